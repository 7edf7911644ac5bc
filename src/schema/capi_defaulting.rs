//! CAPI's defaulting webhooks, for the fields they fill that the CRDs require (core/webhooks/admission and
//! controlplane/kubeadm/webhooks/admission of CAPI v1.13 and v1.14, the same in both): a MachineDeployment or
//! MachineSet without `spec.selector`, or a `spec.rollout.strategy` without `type`, is accepted by a management
//! cluster, whose webhook fills them before the schema is checked. The webhooks run on the v1beta2 form of an object
//! (the API server converts a v1beta1 one there and back), so both versions get the selector. Nothing else of those
//! webhooks is modelled: the fields they set that no schema requires change no verdict.

use serde_json::{Map, Value};

use crate::json_pointer::At;

const CAPI_GROUP: &str = "cluster.x-k8s.io";
const CONTROL_PLANE_GROUP: &str = "controlplane.cluster.x-k8s.io";
/// `clusterv1.ClusterNameLabel`, `MachineDeploymentNameLabel`, `MachineSetNameLabel`.
const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
const DEPLOYMENT_NAME_LABEL: &str = "cluster.x-k8s.io/deployment-name";
const SET_NAME_LABEL: &str = "cluster.x-k8s.io/set-name";
/// `RollingUpdateMachineDeploymentStrategyType`, `controlplanev1.RollingUpdateStrategyType`.
const ROLLING_UPDATE: &str = "RollingUpdate";

/// Whether CAPI has a defaulting webhook for this kind that [`apply`] models.
pub fn has_webhook(group: &str, version: &str, kind: &str) -> bool {
    let served = matches!(version, "v1beta1" | "v1beta2");
    served
        && match group {
            CAPI_GROUP => matches!(kind, "MachineDeployment" | "MachineSet"),
            CONTROL_PLANE_GROUP => kind == "KubeadmControlPlane" && version == "v1beta2",
            _ => false,
        }
}

/// Fills what CAPI's defaulting webhook of `kind` fills of the required fields; returns whether the kind has such a
/// webhook (the object may be unchanged).
pub fn apply(group: &str, version: &str, kind: &str, object: &mut Value) -> bool {
    if !has_webhook(group, version, kind) {
        return false;
    }
    let name = object.str_at("/metadata/name").unwrap_or_default().to_string();
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else { return true };
    match kind {
        "MachineDeployment" => {
            default_selector(spec, DEPLOYMENT_NAME_LABEL, &name);
            if version == "v1beta2" {
                default_strategy_type(spec);
            }
        }
        "MachineSet" => default_selector(spec, SET_NAME_LABEL, &name),
        // KubeadmControlPlane.Default: the rollout strategy is always RollingUpdate.
        _ => {
            if let Some(strategy) = object_at(spec, &["rollout", "strategy"]) {
                strategy.insert("type".to_string(), Value::from(ROLLING_UPDATE));
            }
        }
    }
    true
}

/// `m.Spec.Selector.MatchLabels` made, the name label added when the selector selects nothing, and the cluster
/// label on the selector and the template (MachineDeployment.Default, MachineSet.Default).
fn default_selector(spec: &mut Map<String, Value>, name_label: &str, name: &str) {
    let cluster_name = spec.get("clusterName").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(selector) = object_at(spec, &["selector"]) else { return };
    let selects_nothing = selector.get("matchLabels").and_then(Value::as_object).is_none_or(Map::is_empty)
        && selector.get("matchExpressions").and_then(Value::as_array).is_none_or(Vec::is_empty);
    let Some(match_labels) = object_at(selector, &["matchLabels"]) else { return };
    if selects_nothing {
        match_labels.insert(name_label.to_string(), Value::from(name));
    }
    match_labels.insert(CLUSTER_NAME_LABEL.to_string(), Value::from(cluster_name.as_str()));
    if let Some(labels) = object_at(spec, &["template", "metadata", "labels"]) {
        if selects_nothing {
            labels.insert(name_label.to_string(), Value::from(name));
        }
        labels.insert(CLUSTER_NAME_LABEL.to_string(), Value::from(cluster_name));
    }
}

/// A MachineDeployment's rollout strategy type, RollingUpdate when unset.
fn default_strategy_type(spec: &mut Map<String, Value>) {
    if let Some(strategy) = object_at(spec, &["rollout", "strategy"])
        && strategy.get("type").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        strategy.insert("type".to_string(), Value::from(ROLLING_UPDATE));
    }
}

/// The object at `path` below `map`, made where missing or null; `None` when something on the way is not an object
/// (the webhook's decode fails there, which the schema check reports).
fn object_at<'m>(map: &'m mut Map<String, Value>, path: &[&str]) -> Option<&'m mut Map<String, Value>> {
    let mut current = map;
    for key in path {
        let entry = current.entry(key.to_string()).or_insert(Value::Null);
        if entry.is_null() {
            *entry = Value::Object(Map::new());
        }
        current = entry.as_object_mut()?;
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_machine_deployment_without_selector_gets_capis_default() {
        let mut md = json!({
            "metadata": {"name": "md-0"},
            "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c"}}}
        });
        assert!(apply(CAPI_GROUP, "v1beta2", "MachineDeployment", &mut md));
        assert_eq!(
            md["spec"]["selector"],
            json!({"matchLabels": {"cluster.x-k8s.io/deployment-name": "md-0", "cluster.x-k8s.io/cluster-name": "c"}})
        );
        assert_eq!(md["spec"]["template"]["metadata"]["labels"], md["spec"]["selector"]["matchLabels"]);
        assert_eq!(md["spec"]["rollout"]["strategy"]["type"], "RollingUpdate");
        // A selector that selects: only the cluster label is added; v1beta1 has no rollout.
        let mut set =
            json!({"metadata": {"name": "ms"}, "spec": {"clusterName": "c", "selector": {"matchLabels": {"a": "b"}}}});
        assert!(apply(CAPI_GROUP, "v1beta1", "MachineSet", &mut set));
        assert_eq!(set["spec"]["selector"]["matchLabels"], json!({"a": "b", "cluster.x-k8s.io/cluster-name": "c"}));
        let mut v1beta1 = json!({"metadata": {"name": "md"}, "spec": {"clusterName": "c"}});
        apply(CAPI_GROUP, "v1beta1", "MachineDeployment", &mut v1beta1);
        assert!(v1beta1["spec"].get("rollout").is_none());
    }

    #[test]
    fn kubeadm_control_plane_strategy_and_other_kinds() {
        let mut kcp = json!({"spec": {"rollout": {"strategy": {"type": "Other"}}}});
        assert!(apply(CONTROL_PLANE_GROUP, "v1beta2", "KubeadmControlPlane", &mut kcp));
        assert_eq!(kcp["spec"]["rollout"]["strategy"]["type"], "RollingUpdate");
        let mut machine = json!({"spec": {}});
        assert!(!apply(CAPI_GROUP, "v1beta2", "Machine", &mut machine));
        assert!(!apply(CONTROL_PLANE_GROUP, "v1beta1", "KubeadmControlPlane", &mut machine));
        assert_eq!(machine, json!({"spec": {}}));
        // A selector of the wrong type is left for the schema check.
        let mut bad = json!({"metadata": {"name": "x"}, "spec": {"selector": "all"}});
        assert!(apply(CAPI_GROUP, "v1beta2", "MachineSet", &mut bad));
        assert_eq!(bad["spec"]["selector"], "all");
    }
}
