//! The status part of the v1beta1 → v1beta2 conversions: v1beta1 conditions and counters move
//! under `status.deprecated.v1beta1`, the `status.v1beta2` block becomes the status, readiness
//! booleans become `status.initialization`.

use serde_json::{Map, Value};

use super::Context;
use super::fields::{drop_if_empty, object_mut, put, take, take_some};
use crate::convert::ConvertError;

type Object = Map<String, Value>;

/// Moves `keys` (and `conditions`, `failureReason`, `failureMessage`) to `deprecated.v1beta1`,
/// then lifts the fields of `v1beta2` to the status itself.
fn deprecate_and_promote(status: &mut Object, keys: &[&str]) {
    let mut deprecated = Object::new();
    for key in ["conditions", "failureReason", "failureMessage"].iter().chain(keys) {
        if let Some((_, value)) = take_some(status, key) {
            deprecated.insert((*key).to_string(), value);
        }
    }
    if let Some((position, Value::Object(v1beta2))) = take_some(status, "v1beta2") {
        for (offset, (key, value)) in v1beta2.into_iter().enumerate() {
            put(status, position + offset, &[&key], value);
        }
    }
    if !deprecated.is_empty() {
        let end = status.len();
        put(status, end, &["deprecated", "v1beta1"], Value::Object(deprecated));
    }
}

/// `from` (a v1beta1 bool) → `initialization.<to>`: true stays, false only when restored.
fn initialization(context: &Context, status: &mut Object, from: &str, to: &str) {
    let Some((position, value)) = take(status, from) else { return };
    let restored_false =
        matches!(context.restored_at(&format!("/status/initialization/{to}")), Some(Value::Bool(false)));
    if value == Value::Bool(true) || restored_false {
        put(status, position, &["initialization", to], value);
    }
}

fn with_status(object: &mut Object, convert: impl FnOnce(&mut Object)) -> Result<(), ConvertError> {
    if let Some(status) = object_mut(object, "status") {
        convert(status);
    }
    drop_if_empty(object, "status");
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
                    if let Some(attributes) =
                        spec.get("attributes").filter(|a| a.as_object().is_some_and(|a| !a.is_empty()))
                    {
                        out.insert("attributes".into(), attributes.clone());
                    }
                    Value::Object(out)
                })
                .collect();
            put(status, position, &["failureDomains"], Value::Array(list));
        }
        deprecate_and_promote(status, &[]);
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
        deprecate_and_promote(status, &[]);
        if let Some(phase) = restored_phase {
            status.insert("phase".into(), phase);
        }
        if let Some(domain) = restored_domain {
            status.insert("failureDomain".into(), domain);
        }
    })
}

const REPLICA_COUNTERS: [&str; 4] = ["readyReplicas", "availableReplicas", "updatedReplicas", "unavailableReplicas"];

pub(super) fn machine_set(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        let mut keys = REPLICA_COUNTERS.to_vec();
        keys.push("fullyLabeledReplicas");
        deprecate_and_promote(status, &keys);
    })
}

pub(super) fn machine_deployment(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| deprecate_and_promote(status, &REPLICA_COUNTERS))
}

pub(super) fn machine_pool(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "bootstrapReady", "bootstrapDataSecretCreated");
        initialization(context, status, "infrastructureReady", "infrastructureProvisioned");
        deprecate_and_promote(status, &REPLICA_COUNTERS);
    })
}

pub(super) fn machine_health_check(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| deprecate_and_promote(status, &[]))
}

pub(super) fn cluster_class(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| deprecate_and_promote(status, &[]))
}

pub(super) fn kubeadm_config(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "ready", "dataSecretCreated");
        deprecate_and_promote(status, &[]);
    })
}

pub(super) fn kubeadm_control_plane(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| {
        initialization(context, status, "initialized", "controlPlaneInitialized");
        if let Some((_, ready)) = take(status, "ready") {
            let _ = ready;
        }
        deprecate_and_promote(status, &REPLICA_COUNTERS);
    })
}

pub(super) fn cluster_resource_set(_: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    with_status(object, |status| deprecate_and_promote(status, &[]))
}
