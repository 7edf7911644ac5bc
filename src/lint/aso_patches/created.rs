//! The ManagedCluster and ManagedClustersAgentPools CAPZ creates for a classic cluster, checked against ASO's
//! schema of their apiVersion: what ASO rejects when CAPZ's reconcile applies them is reported
//! on the classic object, at the field the value comes from (`metadata.name` for the ManagedCluster's azureName).

use serde_json::Value;

use crate::manifest::{Document, split_api_version};
use crate::migrate::{ClassicCluster, Translation};
use crate::report::Finding;
use crate::schema::Gvk;

use super::super::Sink;
use super::Locator;
use super::patched::schema_errors;
use crate::json_pointer::At;

pub(crate) const CREATED_SCHEMA: &str = "aso-classic-object-schema";

/// One object CAPZ creates and the classic document it comes from.
struct Created<'a> {
    holder: &'a Document,
    object: &'a Value,
    unpatched: &'a Value,
}

/// Reports the ASO schema errors of the objects of `translation` that the objects without the cluster's patches
/// (`unpatched`, the same translation for a cluster without patches) have too: the classic fields cause them
/// (what only the patched objects fail is `aso-patched-object-schema`'s).
///
/// `unpatched` is `None` for a cluster without patches (the translation is its own unpatched translation). Both lose
/// the ManagedCluster's `spec.agentPoolProfiles` here: they are copies of the agent pools' specs (CAPZ's
/// AgentPoolToManagedClusterAgentPoolProfile) that each agent pool's own check reports, and ASO's ManagedCluster
/// schemas have no rule (CEL, `required`, `minItems`) that reads them from elsewhere, so the other fields' errors are
/// the same without them (about a sixth of the check's work).
pub(super) fn check(
    locator: &Locator<'_>,
    cluster: &ClassicCluster<'_>,
    translation: &mut Translation,
    mut unpatched: Option<&mut Translation>,
    sink: &mut Sink<'_>,
) {
    let schemas = sink.selection.schemas();
    let validator = schemas.aso_validator();
    without_agent_pool_profiles(&mut translation.managed_cluster);
    if let Some(unpatched) = unpatched.as_deref_mut() {
        without_agent_pool_profiles(&mut unpatched.managed_cluster);
    }
    let unpatched: &Translation = unpatched.map_or(&*translation, |unpatched| &*unpatched);
    let mut created = vec![Created {
        holder: &cluster.control_plane,
        object: &translation.managed_cluster,
        unpatched: &unpatched.managed_cluster,
    }];
    for (((_, pool), object), unpatched) in
        cluster.pools.iter().zip(&translation.agent_pools).zip(&unpatched.agent_pools)
    {
        created.push(Created { holder: pool, object, unpatched });
    }
    for created in created {
        let api_version = created.object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = created.object.get("kind").and_then(Value::as_str).unwrap_or("");
        let (group, version) = split_api_version(api_version);
        if !matches!(schemas.registry().get(&Gvk::new(group, version, kind)), Ok(Some(_))) {
            // A version without a schema (a preview version): the patch rules say so when a patch chose it.
            continue;
        }
        let before = if std::ptr::eq(created.object, created.unpatched) {
            None
        } else {
            Some(schema_errors(validator, created.unpatched))
        };
        // One finding per field: every message ASO's schema gives there (a name both too long and off pattern).
        let mut by_path: Vec<(String, Vec<String>)> = Vec::new();
        for (path, message) in schema_errors(validator, created.object) {
            if before.as_ref().is_some_and(|before| !before.contains(&(path.clone(), message.clone()))) {
                continue;
            }
            match by_path.iter_mut().find(|(known, _)| *known == path) {
                Some((_, messages)) => messages.push(message),
                None => by_path.push((path, vec![message])),
            }
        }
        for (path, messages) in by_path {
            let message = messages.join("; ");
            let classic_pointer = classic_field(created.holder, created.object, &path);
            let Some((doc, pointer)) = locator.locate(&created.holder.origin, &classic_pointer) else { continue };
            let name = created.object.str_at("/metadata/name").unwrap_or("");
            sink.emit(
                CREATED_SCHEMA,
                doc,
                &pointer,
                format!(
                    "ASO rejects the {kind} {name} ({api_version}) that CAPZ's reconcile creates from this value, at \
                     {path}: {message}; the apply succeeds, the cluster never provisions"
                ),
            );
        }
    }
}

fn without_agent_pool_profiles(managed_cluster: &mut Value) {
    if let Some(spec) = managed_cluster.get_mut("spec").and_then(Value::as_object_mut) {
        spec.shift_remove("agentPoolProfiles");
    }
}

/// The field of the classic `holder` the value at `path` of the created `object` comes from: the name for
/// `azureName`, else the leaf of the classic spec holding the same value under the same key (case-insensitive),
/// else any leaf of the classic spec holding it, else `/spec`.
fn classic_field(holder: &Document, object: &Value, path: &str) -> String {
    if path == "/spec/azureName" {
        return if holder.value.str_at("/spec/name").is_some_and(|n| !n.is_empty()) {
            "/spec/name".into()
        } else {
            "/metadata/name".into()
        };
    }
    let Some(value) = object.at(path).filter(|v| !v.is_object() && !v.is_array()) else {
        return "/spec".into();
    };
    let key = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    let mut leaves = Vec::new();
    if let Some(spec) = holder.value.get("spec") {
        leaves_equal_to(spec, value, "/spec", &mut leaves);
    }
    let same_key = leaves.iter().find(|pointer| pointer.rsplit('/').next().unwrap_or("").eq_ignore_ascii_case(&key));
    same_key.or(leaves.first()).cloned().unwrap_or_else(|| "/spec".into())
}

fn leaves_equal_to(value: &Value, wanted: &Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                leaves_equal_to(child, wanted, &format!("{prefix}/{}", crate::json_pointer::escape_token(key)), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                leaves_equal_to(child, wanted, &format!("{prefix}/{index}"), out);
            }
        }
        leaf if leaf == wanted => out.push(prefix.to_string()),
        _ => {}
    }
}

/// Drops this module's findings whose cause another error of the same object at the same field already reports
/// (`capz-pool-name` on a pool name, a classic rule on the field): one finding per cause.
pub(crate) fn drop_reported_causes(findings: &mut Vec<Finding>) {
    let reported: std::collections::HashSet<(String, String, String)> = findings
        .iter()
        .filter(|f| f.rule != CREATED_SCHEMA && f.severity == crate::report::Severity::Error)
        .flat_map(|f| {
            let key = |path: &str| (f.source.clone(), f.object.clone(), path.to_string());
            let mut keys = vec![key(&f.path)];
            // CAPZ's pool name rule names spec.name even where the webhook defaulted it from metadata.name.
            if f.rule == "capz-pool-name" {
                keys.extend([key("/spec/name"), key("/metadata/name")]);
            }
            // A dnsPrefix CAPZ defaulted from metadata.name: the name is the cause of both.
            if f.rule == "capz-dns-prefix" && f.message.contains(super::super::names::DNS_PREFIX_DEFAULTED) {
                keys.push(key("/metadata/name"));
            }
            keys
        })
        .collect();
    findings.retain(|f| {
        f.rule != CREATED_SCHEMA || !reported.contains(&(f.source.clone(), f.object.clone(), f.path.clone()))
    });
}
