//! Normalisation before comparing: server bookkeeping dropped, fields CAPZ's mutators own left
//! out, Secret values masked.

use serde_json::{Map, Value};

/// kubectl's client-side-apply annotation: noisy, and it can hold Secret data in clear.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

// The list of controller-owned fields is shared with the fleet's GitOps objects.
#[cfg(test)]
use crate::controller_fields::CONTAINERSERVICE;
use crate::controller_fields::{AUTOSCALED_MACHINE_POOL_PATHS, is_aso_wrapper_kind};
pub use crate::controller_fields::{RECONCILE_POLICY, REPLICAS_MANAGED_BY, capz_managed_paths};

/// Drops what the server maintains and a diff should not show: `status`, and from `metadata`
/// managedFields, resourceVersion, uid, generation, creationTimestamp, selfLink and the
/// last-applied annotation (an emptied `annotations` map goes too).
pub fn strip_server_fields(object: &mut Value) {
    let Some(map) = object.as_object_mut() else { return };
    map.remove("status");
    let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    for field in ["managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink"] {
        meta.remove(field);
    }
    if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
        annotations.remove(LAST_APPLIED);
        if annotations.is_empty() {
            meta.remove("annotations");
        }
    }
}

fn group_of(object: &Value) -> &str {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

fn kind_of(object: &Value) -> &str {
    object.get("kind").and_then(Value::as_str).unwrap_or("")
}

/// Whether `object` is a CAPZ AzureASOManaged{Cluster,ControlPlane,MachinePool}, whose
/// `spec.resources` embed ASO objects.
pub fn is_aso_wrapper(object: &Value) -> bool {
    is_aso_wrapper_kind(group_of(object), kind_of(object))
}

/// Removes the field at `path`, then the objects on the path that this left empty.
pub fn remove_path(value: &mut Value, path: &[&str]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    let map = value.as_object_mut()?;
    if rest.is_empty() {
        return map.remove(*first);
    }
    let child = map.get_mut(*first)?;
    let removed = remove_path(child, rest)?;
    if child.as_object().is_some_and(Map::is_empty) {
        map.remove(*first);
    }
    Some(removed)
}

fn strip_aso_object(object: &mut Value, live_aso: bool) {
    let paths = capz_managed_paths(group_of(object), kind_of(object), live_aso);
    for path in paths {
        remove_path(object, path);
    }
}

/// Leaves out of both sides what CAPZ's mutators own: in the ASO objects embedded in
/// `spec.resources` of AzureASOManaged* objects, in ASO objects themselves (`live_aso`), and a
/// MachinePool's replicas plus the replicas-managed-by annotation when either side has it.
pub fn strip_capz_managed(live: Option<&mut Value>, merged: &mut Value, live_aso: bool) {
    let mut sides: Vec<&mut Value> = vec![merged];
    if let Some(l) = live {
        sides.push(l);
    }
    let is_machine_pool = group_of(sides[0]) == "cluster.x-k8s.io" && kind_of(sides[0]) == "MachinePool";
    let autoscaled = is_machine_pool
        && sides.iter().any(|s| s.pointer("/metadata/annotations").and_then(|a| a.get(REPLICAS_MANAGED_BY)).is_some());
    for side in sides {
        if live_aso {
            strip_aso_object(side, true);
        } else if is_aso_wrapper(side) {
            if let Some(items) = side.pointer_mut("/spec/resources").and_then(Value::as_array_mut) {
                for item in items {
                    strip_aso_object(item, false);
                }
            }
        } else if autoscaled {
            for path in AUTOSCALED_MACHINE_POOL_PATHS {
                remove_path(side, path);
            }
        }
    }
}

/// Masks the values of a v1 Secret's `data` and `stringData` as kubectl does: `***` when
/// unchanged or on one side only, `*** (before)` / `*** (after)` when changed.
pub fn mask_secrets(live: Option<&mut Value>, merged: &mut Value) {
    let is_secret = |v: &Value| kind_of(v) == "Secret" && v.get("apiVersion").and_then(Value::as_str) == Some("v1");
    if !is_secret(merged) {
        return;
    }
    let mut live = live;
    for field in ["data", "stringData"] {
        // A field that is not a map (a scalar, a list) is masked whole.
        let live_value = live.as_deref().and_then(|l| l.get(field)).cloned();
        let merged_value = merged.get(field).cloned();
        let changed = matches!((&live_value, &merged_value), (Some(l), Some(m)) if l != m);
        if let (Some(l), Some(value)) = (live.as_deref_mut(), &live_value)
            && !value.is_object()
        {
            l[field] = Value::from(if changed { "*** (before)" } else { "***" });
        }
        if let Some(value) = &merged_value
            && !value.is_object()
        {
            merged[field] = Value::from(if changed { "*** (after)" } else { "***" });
        }
        let live_map = live.as_deref().and_then(|l| l.get(field)).and_then(Value::as_object).cloned();
        let merged_map = merged.get(field).and_then(Value::as_object).cloned();
        if let (Some(l), Some(lm)) = (live.as_deref_mut(), &live_map) {
            let masked = lm
                .iter()
                .map(|(k, v)| {
                    let text = match merged_map.as_ref().and_then(|m| m.get(k)) {
                        Some(other) if other != v => "*** (before)",
                        _ => "***",
                    };
                    (k.clone(), Value::from(text))
                })
                .collect();
            l[field] = Value::Object(masked);
        }
        if let Some(mm) = &merged_map {
            let masked = mm
                .iter()
                .map(|(k, v)| {
                    let text = match live_map.as_ref().and_then(|m| m.get(k)) {
                        Some(other) if other != v => "*** (after)",
                        _ => "***",
                    };
                    (k.clone(), Value::from(text))
                })
                .collect();
            merged[field] = Value::Object(masked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn server_fields_and_last_applied_are_dropped() {
        let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "uid": "u", "resourceVersion": "7", "generation": 2,
                "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": [{}],
                "annotations": {LAST_APPLIED: "{\"data\":{\"password\":\"c2VjcmV0\"}}"}, "labels": {"x": "y"}},
            "data": {"k": "v"}, "status": {"phase": "x"}});
        strip_server_fields(&mut v);
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "labels": {"x": "y"}}, "data": {"k": "v"}})
        );
    }

    fn control_plane(version: Option<&str>, policy: bool) -> Value {
        let mut mc = json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
            "metadata": {"name": "c1"}, "spec": {"dnsPrefix": "c1", "networkProfile": {"serviceCidr": "10.0.0.0/16"}}});
        if let Some(v) = version {
            mc["spec"]["kubernetesVersion"] = json!(v);
        }
        if policy {
            mc["metadata"]["annotations"] = json!({RECONCILE_POLICY: "skip"});
        }
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureASOManagedControlPlane",
               "metadata": {"name": "c1"}, "spec": {"version": "v1.33.2", "resources": [mc]}})
    }

    #[test]
    fn capz_owned_fields_of_embedded_objects_are_left_out() {
        let mut live = control_plane(Some("1.33.2"), true);
        let mut merged = control_plane(None, false);
        strip_capz_managed(Some(&mut live), &mut merged, false);
        assert_eq!(live, merged);
        let mc = &merged["spec"]["resources"][0];
        assert_eq!(mc["spec"], json!({"dnsPrefix": "c1"}), "emptied networkProfile goes too");
        assert_eq!(merged["spec"]["version"], json!("v1.33.2"), "the wrapper's own fields stay");
    }

    #[test]
    fn agent_pool_profiles_count_only_on_live_aso_objects() {
        assert!(
            !capz_managed_paths(CONTAINERSERVICE, "ManagedCluster", false)
                .contains(&&["spec", "agentPoolProfiles"][..])
        );
        assert!(
            capz_managed_paths(CONTAINERSERVICE, "ManagedCluster", true).contains(&&["spec", "agentPoolProfiles"][..])
        );
        let pool = capz_managed_paths(CONTAINERSERVICE, "ManagedClustersAgentPool", false);
        assert!(pool.contains(&&["spec", "count"][..]) && pool.contains(&&["spec", "orchestratorVersion"][..]));
        assert_eq!(capz_managed_paths("resources.azure.com", "ResourceGroup", false).len(), 1);
        assert!(capz_managed_paths("example.com", "ManagedCluster", false).is_empty());
    }

    #[test]
    fn autoscaled_machine_pool_replicas_are_left_out() {
        let mp = |replicas: u32, annotated: bool| {
            let mut v = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
                "metadata": {"name": "p"}, "spec": {"replicas": replicas, "clusterName": "c"}});
            if annotated {
                v["metadata"]["annotations"] = json!({REPLICAS_MANAGED_BY: ""});
            }
            v
        };
        let (mut live, mut merged) = (mp(5, true), mp(2, false));
        strip_capz_managed(Some(&mut live), &mut merged, false);
        assert_eq!(live, merged);
        let (mut live, mut merged) = (mp(5, false), mp(2, false));
        strip_capz_managed(Some(&mut live), &mut merged, false);
        assert_ne!(live, merged, "replicas of a MachinePool nobody autoscales are the user's");
    }

    #[test]
    fn secrets_are_masked_like_kubectl() {
        let mut live = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}});
        let mut merged = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"same": "YQ==", "changed": "ZA==", "new": "ZQ=="}, "stringData": {"p": "clear"}});
        mask_secrets(Some(&mut live), &mut merged);
        assert_eq!(live["data"], json!({"same": "***", "changed": "*** (before)", "gone": "***"}));
        assert_eq!(merged["data"], json!({"same": "***", "changed": "*** (after)", "new": "***"}));
        assert_eq!(merged["stringData"], json!({"p": "***"}));
        let text = serde_json::to_string(&(live, merged)).unwrap();
        for secret in ["YQ==", "Yg==", "ZA==", "clear"] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
    }

    #[test]
    fn secret_data_of_any_shape_is_masked() {
        let mut live = json!({"apiVersion": "v1", "kind": "Secret", "data": "live-scalar", "stringData": [true]});
        let mut merged = json!({"apiVersion": "v1", "kind": "Secret", "data": {"k": "new"}, "stringData": [true]});
        mask_secrets(Some(&mut live), &mut merged);
        assert_eq!(live["data"], json!("*** (before)"));
        assert_eq!(merged["data"], json!({"k": "***"}));
        assert_eq!((&live["stringData"], &merged["stringData"]), (&json!("***"), &json!("***")));
        let mut alone = json!({"apiVersion": "v1", "kind": "Secret", "data": {"k": {"nested": "deep"}}});
        mask_secrets(None, &mut alone);
        assert_eq!(alone["data"], json!({"k": "***"}));
    }

    #[test]
    fn other_kinds_are_not_masked() {
        let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        mask_secrets(None, &mut v);
        assert_eq!(v["data"]["a"], json!("b"));
    }
}
