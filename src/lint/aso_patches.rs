//! `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` checked offline: each patch is applied as
//! CAPZ's `aso.PatchedParameters` applies it to the object CAPZ generates (src/migrate), and a patch CAPZ cannot
//! apply (not YAML, or an object that no longer decodes as the ASO kind) or one that changes nothing is reported
//! at the patch's file:line. Templates and control planes outside a full classic cluster get the YAML check only.

use crate::manifest::{Document, parse_plain_value};
use crate::migrate::{PatchVerdict, check_patches, find_classic_clusters};

use super::Sink;

pub(crate) const PATCH_BROKEN: &str = "capz-aso-patch-broken";
pub(crate) const PATCH_NO_OP: &str = "capz-aso-patch-no-op";

const PATCH_FIELDS: &[(&str, &str)] = &[
    ("AzureManagedControlPlane", "/spec/asoManagedClusterPatches"),
    ("AzureManagedMachinePool", "/spec/asoManagedClustersAgentPoolPatches"),
    ("AzureManagedControlPlaneTemplate", "/spec/template/spec/asoManagedClusterPatches"),
    ("AzureManagedMachinePoolTemplate", "/spec/template/spec/asoManagedClustersAgentPoolPatches"),
];

pub(super) fn check(documents: &[Document], sink: &mut Sink<'_>) {
    if !sink.wants(&[PATCH_BROKEN, PATCH_NO_OP]) {
        return;
    }
    let mut judged = std::collections::BTreeSet::new();
    if let Ok(clusters) = find_classic_clusters(documents) {
        for cluster in &clusters {
            for finding in check_patches(cluster) {
                let Some(doc) = documents.iter().position(|d| d.origin == finding.origin) else { continue };
                judged.insert((doc, finding.pointer.clone()));
                match finding.verdict {
                    PatchVerdict::Broken(error) => sink.emit(
                        PATCH_BROKEN,
                        doc,
                        &finding.pointer,
                        format!("{error}; CAPZ fails to reconcile with this patch"),
                    ),
                    PatchVerdict::NoOp => sink.emit(
                        PATCH_NO_OP,
                        doc,
                        &finding.pointer,
                        format!(
                            "patch at index {} changes nothing in the object CAPZ generates: it sets only what CAPZ \
                             already sets, or fields the ASO type does not have (CAPZ drops them)",
                            finding.index
                        ),
                    ),
                }
            }
        }
    }
    for (doc, document) in documents.iter().enumerate() {
        let Some((_, pointer)) = PATCH_FIELDS.iter().find(|(kind, _)| *kind == document.kind()) else { continue };
        let Some(patches) = document.value.pointer(pointer).and_then(|v| v.as_array()) else { continue };
        for (index, patch) in patches.iter().enumerate() {
            let at = format!("{pointer}/{index}");
            if judged.contains(&(doc, at.clone())) {
                continue;
            }
            let text = patch.as_str().unwrap_or("");
            if let Err(error) = parse_plain_value(text, &format!("patch {index}")) {
                sink.emit(PATCH_BROKEN, doc, &at, format!("patch at index {index} is not valid YAML: {error}"));
            }
        }
    }
}
