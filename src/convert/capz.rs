//! CAPZ's AzureASOManaged* kinds (and their templates): infrastructure.cluster.x-k8s.io
//! v1alpha1 → v1beta1. CAPZ v1.26.0 declares the same Go types in both versions and serves them
//! without a conversion webhook, so only `apiVersion` changes, in the object and in every
//! reference to it.

use serde_json::Value;

pub const GROUP: &str = "infrastructure.cluster.x-k8s.io";
pub const OLD_API_VERSION: &str = "infrastructure.cluster.x-k8s.io/v1alpha1";
pub const NEW_API_VERSION: &str = "infrastructure.cluster.x-k8s.io/v1beta1";

/// Whether `kind` is one of CAPZ's AzureASOManaged kinds.
pub fn is_aso_managed_kind(kind: &str) -> bool {
    matches!(
        kind,
        "AzureASOManagedCluster"
            | "AzureASOManagedClusterTemplate"
            | "AzureASOManagedControlPlane"
            | "AzureASOManagedControlPlaneTemplate"
            | "AzureASOManagedMachinePool"
            | "AzureASOManagedMachinePoolTemplate"
    )
}

/// Whether this object is an AzureASOManaged* object at v1alpha1.
pub fn converts(object: &Value) -> bool {
    object.get("apiVersion").and_then(Value::as_str) == Some(OLD_API_VERSION)
        && object.get("kind").and_then(Value::as_str).is_some_and(is_aso_managed_kind)
}

/// The object at v1beta1.
pub fn convert(object: &Value) -> Value {
    let mut out = object.clone();
    out["apiVersion"] = Value::String(NEW_API_VERSION.to_string());
    out
}

/// Points every reference below the root of `object` (any `{apiVersion, kind}` pair: Cluster
/// `infrastructureRef`/`controlPlaneRef`, MachinePool `infrastructureRef`, ClusterClass template
/// references) that names an AzureASOManaged* kind at v1alpha1 to v1beta1. Returns whether
/// anything changed.
pub fn update_references(object: &mut Value) -> bool {
    let mut changed = false;
    if let Value::Object(map) = object {
        for child in map.values_mut() {
            changed |= update_below(child);
        }
    }
    changed
}

fn update_below(value: &mut Value) -> bool {
    let mut changed = false;
    match value {
        Value::Object(map) => {
            let is_reference = map.get("apiVersion").and_then(Value::as_str) == Some(OLD_API_VERSION)
                && map.get("kind").and_then(Value::as_str).is_some_and(is_aso_managed_kind);
            if is_reference {
                map.insert("apiVersion".into(), Value::String(NEW_API_VERSION.to_string()));
                changed = true;
            }
            for child in map.values_mut() {
                changed |= update_below(child);
            }
        }
        Value::Array(items) => {
            for item in items {
                changed |= update_below(item);
            }
        }
        _ => {}
    }
    changed
}
