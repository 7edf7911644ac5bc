//! CAPI's MachineHealthChecks of a topology: which control plane or deployment gets one, and its spec.

use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::types::{CLUSTER_NAME_LABEL, TOPOLOGY_OWNED_LABEL};
use crate::json_pointer::At;
use crate::topology::webhooks;

/// The MachineHealthCheck a control plane or deployment gets (`IsMachineHealthCheckEnabled` and
/// `MachineHealthCheckClass` of CAPI's blueprint): the topology's own checks, else the class's;
/// none when neither has checks or the topology disables it. v1beta1: `machineHealthCheck` with
/// `enable`; v1beta2: `healthCheck` with `enabled`.
///
/// `defined_by_remediation`: a v1beta1 MachineDeployment topology with `strategy.remediation.maxInFlight`.
/// CAPI v1.14 converts it to v1beta2 `healthCheck.remediation.maxInFlight`, which makes the topology's
/// health check "defined": it replaces the class's, with no checks of its own.
pub(super) fn health_check_class(
    topology: Option<&Value>,
    class: Option<&Value>,
    v1beta2: bool,
    defined_by_remediation: bool,
) -> Option<Value> {
    let switch = if v1beta2 { "enabled" } else { "enable" };
    let own = topology.and_then(Value::as_object).map(|m| {
        let mut m = m.clone();
        m.remove(switch);
        m
    });
    let own = match own.filter(|m| !m.is_empty()) {
        Some(m) => Some(Value::Object(m)),
        None if defined_by_remediation => Some(json!({})),
        None => None,
    };
    let class = class.filter(|c| c.as_object().is_some_and(|m| m.keys().any(|k| k != switch)));
    if own.is_none() && class.is_none() {
        return None;
    }
    if topology.and_then(|t| t.get(switch)).and_then(Value::as_bool) == Some(false) {
        return None;
    }
    own.or_else(|| class.cloned())
}

/// `computeMachineHealthCheck` with the MachineHealthCheck webhook's defaults, in the Cluster's
/// API version. As in CAPI v1.14 only `nodeStartupTimeout` is defaulted (10m); v1.10 also wrote
/// `maxUnhealthy: 100%` (docs/plan.md).
pub(super) fn machine_health_check(ctx: &Ctx, target: &Value, selector: Value, check: &Value) -> Value {
    let mut spec = Map::new();
    spec.insert("clusterName".into(), json!(ctx.cluster_name));
    spec.insert("selector".into(), selector);
    if ctx.v1beta2 {
        let mut checks = check.get("checks").and_then(Value::as_object).cloned().unwrap_or_default();
        checks.entry("nodeStartupTimeoutSeconds").or_insert(json!(600));
        spec.insert("checks".into(), Value::Object(checks));
        let mut remediation = Map::new();
        if let Some(trigger) =
            check.pointer("/remediation/triggerIf").filter(|t| t.as_object().is_some_and(|m| !m.is_empty()))
        {
            remediation.insert("triggerIf".into(), trigger.clone());
        }
        if let Some(template) = check.pointer("/remediation/templateRef") {
            remediation.insert("templateRef".into(), template.clone());
        }
        if !remediation.is_empty() {
            spec.insert("remediation".into(), Value::Object(remediation));
        }
    } else {
        for key in
            ["unhealthyConditions", "maxUnhealthy", "unhealthyRange", "nodeStartupTimeout", "remediationTemplate"]
        {
            if let Some(v) = check.get(key) {
                spec.insert(key.into(), v.clone());
            }
        }
        spec.entry("nodeStartupTimeout").or_insert(json!("10m0s"));
        if let Some(v) = spec.get_mut("nodeStartupTimeout") {
            webhooks::canonical_duration(v);
        }
        for condition in spec.get_mut("unhealthyConditions").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(v) = condition.get_mut("timeout") {
                webhooks::canonical_duration(v);
            }
        }
        if let Some(t) = spec.get_mut("remediationTemplate").and_then(Value::as_object_mut) {
            t.entry("namespace").or_insert(json!(ctx.namespace));
        }
    }
    json!({
        "apiVersion": ctx.cluster.get("apiVersion").cloned().unwrap_or(json!("cluster.x-k8s.io/v1beta1")),
        "kind": "MachineHealthCheck",
        "metadata": {
            "name": target.str_at("/metadata/name"),
            "namespace": ctx.namespace,
            "labels": {CLUSTER_NAME_LABEL: ctx.cluster_name, TOPOLOGY_OWNED_LABEL: ""},
        },
        "spec": spec,
    })
}
