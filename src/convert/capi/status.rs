//! The status part of the v1beta1 → v1beta2 conversions, per kind as CAPI's
//! `Convert_v1beta1_*Status_To_v1beta2_*Status` do it: v1beta1 conditions, failure fields and
//! counters move under `status.deprecated.v1beta1`, the `status.v1beta2` block becomes the status,
//! readiness booleans become `status.initialization`. Counters the generated code turns into
//! pointers are written even when 0, as Go does; which zeros stay is then decided by the Go types
//! ([`super::marshal`]).

use serde_json::{Map, Value};

use super::Context;
use super::fields::{object_mut, put, take, take_some};
use crate::convert::ConvertError;

type Object = Map<String, Value>;

/// What goes to `status.deprecated.v1beta1`.
#[derive(Default)]
struct Deprecated {
    fields: Object,
}

impl Deprecated {
    /// Moves `key` when present.
    fn take(&mut self, status: &mut Object, key: &str) {
        if let Some((_, value)) = take_some(status, key) {
            self.fields.insert(key.to_string(), value);
        }
    }
    /// Moves the counter `key`, 0 when absent (a non-pointer int32 in v1beta1).
    fn counter(&mut self, status: &mut Object, key: &str) {
        let value = take_some(status, key).map_or(Value::from(0), |(_, v)| v);
        self.fields.insert(key.to_string(), value);
    }
    fn write(self, status: &mut Object, always: bool) {
        if always || !self.fields.is_empty() {
            let end = status.len();
            put(status, end, &["deprecated", "v1beta1"], Value::Object(self.fields));
        }
    }
}

/// The `status.v1beta2` block, taken out.
fn take_v1beta2(status: &mut Object) -> Object {
    match take_some(status, "v1beta2") {
        Some((_, Value::Object(block))) => block,
        _ => Object::new(),
    }
}

/// Lifts `keys` of the v1beta2 block into the status.
fn promote(status: &mut Object, v1beta2: &Object, keys: &[&str]) {
    for key in keys {
        if let Some(value) = v1beta2.get(*key).filter(|v| !v.is_null()) {
            status.insert((*key).to_string(), value.clone());
        }
    }
}

/// An int32 the generated code turns into a pointer (`Convert_int32_To_Pointer_int32`): always set.
fn explicit_counter(status: &mut Object, key: &str) {
    if status.get(key).is_none_or(Value::is_null) {
        status.insert(key.to_string(), Value::from(0));
    }
}

/// `from` (a v1beta1 bool) → `initialization.<to>`: true stays, false only when restored.
fn initialization(context: &Context, status: &mut Object, from: &str, to: &str) {
    let Some((position, value)) = take(status, from) else { return };
    let restored_false =
        matches!(context.restored_at(&format!("/status/initialization/{to}")), Some(Value::Bool(false)));
    if value == Value::Bool(true) {
        put(status, position, &["initialization", to], value);
    } else if restored_false {
        put(status, position, &["initialization", to], Value::Bool(false));
    }
}

fn with_status(object: &mut Object, convert: impl FnOnce(&mut Object)) -> Result<(), ConvertError> {
    if let Some(status) = object_mut(object, "status") {
        convert(status);
    }
    Ok(())
}

pub(super) fn cluster(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "infrastructureReady", "infrastructureProvisioned");
        initialization(context, status, "controlPlaneReady", "controlPlaneInitialized");
        if let Some((position, Value::Object(domains))) = take_some(status, "failureDomains") {
            let mut names: Vec<&String> = domains.keys().collect();
            names.sort();
            let list = names
                .into_iter()
                .map(|name| {
                    let spec = &domains[name];
                    let mut out = Object::new();
                    out.insert("name".into(), Value::String(name.clone()));
                    out.insert("controlPlane".into(), spec.get("controlPlane").cloned().unwrap_or(Value::Bool(false)));
                    if let Some(attributes) = spec.get("attributes") {
                        out.insert("attributes".into(), attributes.clone());
                    }
                    Value::Object(out)
                })
                .collect();
            put(status, position, &["failureDomains"], Value::Array(list));
        }
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        for key in ["conditions", "failureReason", "failureMessage"] {
            deprecated.take(status, key);
        }
        promote(status, &v1beta2, &["conditions", "controlPlane", "workers"]);
        deprecated.write(status, false);
    })
}

pub(super) fn machine(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    let restored_phase = context.restored_at("/status/phase").cloned();
    let restored_domain = context.restored_at("/status/failureDomain").cloned();
    with_status(object, |status| {
        initialization(context, status, "bootstrapReady", "bootstrapDataSecretCreated");
        initialization(context, status, "infrastructureReady", "infrastructureProvisioned");
        if let Some((position, node_ref)) = take_some(status, "nodeRef")
            && let Some(name) = node_ref.get("name").filter(|n| n.as_str().is_some_and(|s| !s.is_empty()))
        {
            put(status, position, &["nodeRef", "name"], name.clone());
        }
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        for key in ["conditions", "failureReason", "failureMessage"] {
            deprecated.take(status, key);
        }
        promote(status, &v1beta2, &["conditions"]);
        deprecated.write(status, false);
        if context.restored.is_some() {
            status.insert("phase".into(), restored_phase.unwrap_or(Value::String(String::new())));
            status.insert("failureDomain".into(), restored_domain.unwrap_or(Value::String(String::new())));
        }
    })
}

/// MachineSet, MachineDeployment, MachinePool, KubeadmControlPlane: `replicas` always set, the
/// v1beta1 counters to `deprecated.v1beta1` (always written), the v1beta2 counters lifted.
fn replicated(status: &mut Object, deprecated_keys: &[&str], counters: &[&str], reset: &[&str]) {
    let v1beta2 = take_v1beta2(status);
    let mut deprecated = Deprecated::default();
    for key in deprecated_keys {
        deprecated.take(status, key);
    }
    for key in counters {
        deprecated.counter(status, key);
    }
    for key in reset {
        status.shift_remove(*key);
    }
    explicit_counter(status, "replicas");
    promote(status, &v1beta2, &["conditions", "readyReplicas", "availableReplicas", "upToDateReplicas"]);
    deprecated.write(status, true);
}

pub(super) fn machine_set(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        replicated(
            status,
            &["conditions", "failureReason", "failureMessage"],
            &["availableReplicas", "fullyLabeledReplicas", "readyReplicas"],
            &[],
        );
    })
}

pub(super) fn machine_deployment(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        replicated(
            status,
            &["conditions"],
            &["availableReplicas", "unavailableReplicas", "updatedReplicas", "readyReplicas"],
            &[],
        );
    })
}

pub(super) fn machine_pool(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "bootstrapReady", "bootstrapDataSecretCreated");
        initialization(context, status, "infrastructureReady", "infrastructureProvisioned");
        replicated(
            status,
            &["conditions", "failureReason", "failureMessage"],
            &["readyReplicas", "availableReplicas", "unavailableReplicas"],
            &[],
        );
    })
}

pub(super) fn machine_health_check(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        // CAPI's Convert_int32_To_Pointer_int32: 0 stays only when the conversion data had 0.
        for key in ["expectedMachines", "currentHealthy", "remediationsAllowed"] {
            let zero = status.get(key).is_none_or(|v| v.as_i64() == Some(0));
            let restored_zero = context.restored_at(&format!("/status/{key}")).and_then(Value::as_i64) == Some(0);
            if zero && restored_zero {
                status.insert(key.to_string(), Value::from(0));
            } else if zero {
                status.shift_remove(key);
            }
        }
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        deprecated.take(status, "conditions");
        promote(status, &v1beta2, &["conditions"]);
        deprecated.write(status, false);
    })
}

pub(super) fn cluster_class(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        deprecated.take(status, "conditions");
        promote(status, &v1beta2, &["conditions"]);
        deprecated.write(status, false);
        if let Some(Value::Array(variables)) = status.get_mut("variables") {
            for variable in variables.iter_mut().filter_map(Value::as_object_mut) {
                if variable.get("definitionsConflict") == Some(&Value::Bool(false)) {
                    variable.shift_remove("definitionsConflict");
                }
                if let Some(Value::Array(definitions)) = variable.get_mut("definitions") {
                    for definition in definitions.iter_mut().filter_map(Value::as_object_mut) {
                        if definition.get("required").is_none_or(Value::is_null) {
                            definition.insert("required".into(), Value::Bool(false));
                        }
                        if let Some((position, metadata)) = take_some(definition, "metadata") {
                            put(definition, position, &["deprecatedV1Beta1Metadata"], metadata);
                        }
                    }
                }
            }
        }
    })
}

pub(super) fn kubeadm_config(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "ready", "dataSecretCreated");
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        for key in ["conditions", "failureReason", "failureMessage"] {
            deprecated.take(status, key);
        }
        promote(status, &v1beta2, &["conditions"]);
        deprecated.write(status, true);
    })
}

pub(super) fn kubeadm_control_plane(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "initialized", "controlPlaneInitialized");
        take(status, "ready");
        if let Some(remediation) = object_mut(status, "lastRemediation") {
            if let Some((position, timestamp)) = take_some(remediation, "timestamp") {
                put(remediation, position, &["time"], timestamp);
            }
            explicit_counter(remediation, "retryCount");
        }
        replicated(
            status,
            &["conditions", "failureReason", "failureMessage"],
            &["updatedReplicas", "readyReplicas", "unavailableReplicas"],
            &[],
        );
    })
}

pub(super) fn cluster_resource_set(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        let v1beta2 = take_v1beta2(status);
        let mut deprecated = Deprecated::default();
        deprecated.take(status, "conditions");
        promote(status, &v1beta2, &["conditions"]);
        deprecated.write(status, false);
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn machine_deployment_status_moves_v1beta1_counters_and_lifts_v1beta2() {
        let object = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment",
            "metadata": {"name": "md"}, "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c"}}},
            "status": {"replicas": 3, "readyReplicas": 2, "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"}],
                "v1beta2": {"availableReplicas": 1}}});
        let (converted, _) = super::super::convert(&object).unwrap();
        assert_eq!(
            converted["status"],
            json!({"replicas": 3, "phase": "Running", "availableReplicas": 1, "deprecated": {"v1beta1": {
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"}],
                "availableReplicas": 0, "unavailableReplicas": 0, "updatedReplicas": 0, "readyReplicas": 2}}})
        );
    }

    #[test]
    fn cluster_status_readiness_and_failure_domains() {
        let object = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "c"},
            "status": {"infrastructureReady": true, "controlPlaneReady": false,
                "failureDomains": {"2": {"controlPlane": true}, "1": {}}}});
        let (converted, _) = super::super::convert(&object).unwrap();
        assert_eq!(
            converted["status"],
            json!({"initialization": {"infrastructureProvisioned": true},
                "failureDomains": [{"name": "1", "controlPlane": false}, {"name": "2", "controlPlane": true}]})
        );
    }
}
