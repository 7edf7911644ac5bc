//! The objects the migration creates (namespace, Secret copy, adopted ASO objects), built from the live old
//! objects, and the readiness checks of live objects.

use serde_json::{Map, Value, json};

use super::names::Names;
use super::{ADOPT, CREDENTIAL_FROM, MIGRATION, RECONCILE_POLICY};
use crate::json_pointer::At;

/// Read-only fields of `status.agentPoolProfiles` that the spec does not have (ASO v1api20250801's schema).
const STATUS_ONLY_PROFILE_FIELDS: &[&str] =
    &["currentOrchestratorVersion", "eTag", "nodeImageVersion", "provisioningState", "status"];
/// ARM id fields of a status profile and the spec reference each one becomes.
const PROFILE_REFERENCES: &[(&str, &str)] = &[
    ("vnetSubnetID", "vnetSubnetReference"),
    ("podSubnetID", "podSubnetReference"),
    ("nodePublicIPPrefixID", "nodePublicIPPrefixReference"),
    ("capacityReservationGroupID", "capacityReservationGroupReference"),
    ("hostGroupID", "hostGroupReference"),
    ("proximityPlacementGroupID", "proximityPlacementGroupReference"),
];

/// The annotation value of a key, on a live object.
pub fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.pointer("/metadata/annotations").and_then(|a| a.get(key)).and_then(Value::as_str)
}

/// The object's finalizers (empty when none).
pub fn finalizers(object: &Value) -> Vec<String> {
    object
        .array_at("/metadata/finalizers")
        .map(|items| items.iter().filter_map(|f| f.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Whether the object carries `reconcile-policy: skip`.
pub fn is_skipped(object: &Value) -> bool {
    annotation(object, RECONCILE_POLICY) == Some("skip")
}

/// Whether a condition of that type has status True, in `status.conditions` or CAPI's `status.v1beta2.conditions`.
pub fn condition_true(object: &Value, kind: &str) -> bool {
    ["/status/conditions", "/status/v1beta2/conditions"].iter().any(|pointer| {
        object.array_at(pointer).is_some_and(|conditions| {
            conditions.iter().any(|c| c.get("type") == Some(&json!(kind)) && c.get("status") == Some(&json!("True")))
        })
    })
}

/// The new namespace, annotated with the migration's names.
pub fn namespace(names: &Names) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": names.new_namespace, "annotations": {MIGRATION: record(names)}},
    })
}

/// The value of the [`MIGRATION`] annotation.
pub fn record(names: &Names) -> String {
    serde_json::to_string(names).expect("names serialize")
}

/// The credential Secret for the new namespace: the old one's type and data, metadata reduced to name and
/// namespace.
pub fn secret_copy(old: &Value, names: &Names) -> Value {
    let mut secret = Map::new();
    secret.insert("apiVersion".into(), json!("v1"));
    secret.insert("kind".into(), json!("Secret"));
    secret.insert("metadata".into(), json!({"name": names.credential_secret, "namespace": names.new_namespace}));
    for key in ["type", "data", "immutable"] {
        if let Some(value) = old.get(key) {
            secret.insert(key.into(), value.clone());
        }
    }
    Value::Object(secret)
}

fn fresh(old: &Value, kind: super::kinds::Kind, names: &Names, adopt: bool) -> Value {
    let name = old.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    let mut annotations = Map::new();
    annotations.insert(CREDENTIAL_FROM.into(), json!(names.credential_secret));
    if adopt {
        annotations.insert(ADOPT.into(), json!("true"));
    }
    let mut spec = old.get("spec").cloned().unwrap_or_else(|| json!({}));
    if let Some(spec) = spec.as_object_mut() {
        // ASO's owner is a name in the object's own namespace: the new ResourceGroup / ManagedCluster keep
        // the old names, so the owner names stay; only the namespace changes.
        if let Some(owner) = spec.get_mut("owner").and_then(Value::as_object_mut) {
            owner.remove("armId");
        }
    }
    json!({
        "apiVersion": kind.api_version, "kind": kind.kind,
        "metadata": {"name": name, "namespace": names.new_namespace, "annotations": annotations},
        "spec": spec,
    })
}

/// The ResourceGroup to adopt: the old one's spec (same `azureName`, location, tags), the credential-from
/// annotation.
pub fn resource_group(old: &Value, names: &Names) -> Value {
    fresh(old, super::kinds::RESOURCE_GROUP, names, false)
}

/// The ManagedCluster to adopt: the old spec with `agentPoolProfiles` from the old `status.agentPoolProfiles`
/// (CAPZ strips them from its spec; without them ASO would PUT a cluster without pools), the kubeconfig Secrets
/// the ASO API expects, the adopt annotation.
pub fn managed_cluster(old: &Value, names: &Names) -> Value {
    let mut object = fresh(old, super::kinds::MANAGED_CLUSTER, names, true);
    let profiles: Vec<Value> = old
        .array_at("/status/agentPoolProfiles")
        .map(|items| items.iter().map(spec_profile).collect())
        .unwrap_or_default();
    object["spec"]["agentPoolProfiles"] = Value::Array(profiles);
    // The same kubeconfig Secrets as the offline translation (the ASO API writes `<cluster>-kubeconfig`).
    crate::migrate::use_aso_api_kubeconfig_secrets(&mut object, &names.managed_cluster);
    object
}

/// A spec `agentPoolProfiles` entry from a status one: read-only fields dropped, ARM ids as references.
fn spec_profile(status: &Value) -> Value {
    let Some(fields) = status.as_object() else { return status.clone() };
    let mut out = Map::new();
    for (key, value) in fields {
        if STATUS_ONLY_PROFILE_FIELDS.contains(&key.as_str()) {
            continue;
        }
        match PROFILE_REFERENCES.iter().find(|(id, _)| id == key) {
            Some((_, reference)) => {
                out.insert((*reference).into(), json!({"armId": value}));
            }
            None => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// A ManagedClustersAgentPool to adopt: the old spec (owner: the ManagedCluster, same name in the new
/// namespace), the adopt annotation.
pub fn agent_pool(old: &Value, names: &Names) -> Value {
    fresh(old, super::kinds::AGENT_POOL, names, true)
}

/// A Secret with every value of `data` / `stringData` replaced by `***`, for printing.
pub fn masked(object: &Value) -> Value {
    let mut object = object.clone();
    if object.get("kind") == Some(&json!("Secret")) {
        for field in ["data", "stringData"] {
            if let Some(map) = object.get_mut(field).and_then(Value::as_object_mut) {
                for value in map.values_mut() {
                    *value = json!("***");
                }
            }
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_profiles_become_spec_profiles() {
        let status = json!({"name": "pool0", "count": 2, "mode": "System", "vmSize": "Standard_D2s_v3",
            "provisioningState": "Succeeded", "powerState": {"code": "Running"}, "vnetSubnetID": "/subscriptions/x"});
        assert_eq!(
            spec_profile(&status),
            json!({"name": "pool0", "count": 2, "mode": "System", "vmSize": "Standard_D2s_v3", "powerState": {"code": "Running"},
                "vnetSubnetReference": {"armId": "/subscriptions/x"}})
        );
    }

    #[test]
    fn masked_secrets_show_no_value() {
        let secret = json!({"kind": "Secret", "data": {"a": "c2VjcmV0"}, "stringData": {"b": "plain"}});
        let text = masked(&secret).to_string();
        assert!(!text.contains("c2VjcmV0") && !text.contains("plain"), "{text}");
    }
}
