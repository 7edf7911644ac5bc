//! `asoManagedClusterPatches` and `pools[].asoManagedClustersAgentPoolPatches` checked on the rendered objects:
//! each patch is applied as CAPZ applies it to the ASO object it generates (src/migrate), and a patch CAPZ cannot
//! apply is a problem of the parameter that holds it (`asoManagedClusterPatches[1]`, or the overlay it came from).

use serde_json::Value;

use crate::json_pointer::At;
use crate::manifest::Document;
use crate::migrate::{PatchVerdict, check_patches, find_classic_clusters};
use crate::target_schemas::TargetSchemas;

use super::check::source_label;
use super::{Layered, Params, ParamsError, Problem, display_path};

/// The parameter pointer of the patch at `pointer` (`/spec/<field>/<index>`) of the rendered `document`.
fn parameter_of(params: &Params, document: &Document, pointer: &str) -> Option<String> {
    let (field, index) = pointer.strip_prefix("/spec/")?.split_once('/')?;
    let in_overlay =
        |overlay: &serde_json::Map<String, Value>| overlay.get("spec").and_then(|s| s.get(field)).is_some();
    match document.kind() {
        "AzureManagedControlPlane" if in_overlay(&params.control_plane) => {
            Some(format!("/controlPlane/spec/{field}/{index}"))
        }
        "AzureManagedControlPlane" => Some(format!("/{field}/{index}")),
        "AzureManagedMachinePool" => {
            let name = document.value.str_at("/spec/name")?;
            let (i, pool) = params.pools.iter().enumerate().find(|(_, pool)| pool.name == name)?;
            if in_overlay(&pool.managed_machine_pool) {
                Some(format!("/pools/{i}/managedMachinePool/spec/{field}/{index}"))
            } else {
                Some(format!("/pools/{i}/{field}/{index}"))
            }
        }
        _ => None,
    }
}

/// Every patch of the rendered classic clusters that the target's CAPZ cannot apply, as a parameter problem.
pub fn check_rendered_patches(
    params: &Params,
    layered: &Layered,
    documents: &[Document],
    schemas: &TargetSchemas,
) -> Result<(), ParamsError> {
    let mut problems = Vec::new();
    for cluster in find_classic_clusters(documents).unwrap_or_default() {
        for finding in check_patches(&cluster, schemas) {
            let PatchVerdict::Broken(error) = finding.verdict else { continue };
            let Some(document) = documents.iter().find(|d| d.origin == finding.origin) else { continue };
            let Some(pointer) = parameter_of(params, document, &finding.pointer) else { continue };
            problems.push(Problem {
                path: display_path(&pointer),
                message: format!("{error}; CAPZ fails to reconcile {} with it", document.display_name()),
                source: source_label(layered, &pointer),
            });
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(ParamsError::Invalid(problems)) }
}
