//! controlplane.cluster.x-k8s.io v1beta1 → v1beta2: KubeadmControlPlane and its template.

use serde_json::{Map, Value};

use super::Context;
use super::bootstrap::kubeadm_config_spec;
use super::core::deletion_timeouts;
use super::fields::{drop_if_empty, object_mut, put, take, take_some};
use super::status;
use crate::convert::ConvertError;

type Object = Map<String, Value>;

pub(super) fn kubeadm_control_plane(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = object_mut(object, "spec") {
        resource_spec(context, spec, "/spec", false)?;
    }
    status::kubeadm_control_plane(context, object)
}

pub(super) fn kubeadm_control_plane_template(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    let spec = object_mut(object, "spec").and_then(|s| object_mut(s, "template")).and_then(|t| object_mut(t, "spec"));
    if let Some(spec) = spec {
        resource_spec(context, spec, "/spec/template/spec", true)?;
    }
    Ok(())
}

/// The spec of a KubeadmControlPlane (or of its template's resource, `template`).
fn resource_spec(context: &mut Context, spec: &mut Object, pointer: &str, template: bool) -> Result<(), ConvertError> {
    if let Some(machine) = object_mut(spec, "machineTemplate") {
        machine_template(context, machine, &format!("{pointer}/machineTemplate"))?;
    }
    if let Some(config) = object_mut(spec, "kubeadmConfigSpec") {
        kubeadm_config_spec(context, config, &format!("{pointer}/kubeadmConfigSpec"))?;
    }
    let mut rollout_position = None;
    if let Some((position, before)) = take_some(spec, "rolloutBefore") {
        rollout_position.get_or_insert(position);
        if let Some(days) = before.get("certificatesExpiryDays").filter(|d| !d.is_null()) {
            put(spec, position, &["rollout", "before", "certificatesExpiryDays"], days.clone());
        }
    }
    if let Some((position, after)) = take_some(spec, "rolloutAfter") {
        put(spec, *rollout_position.get_or_insert(position), &["rollout", "after"], after);
    }
    if let Some((position, strategy)) = take_some(spec, "rolloutStrategy") {
        let mut out = Object::new();
        match strategy.get("type").and_then(Value::as_str) {
            Some(kind) if !kind.is_empty() => {
                out.insert("type".into(), Value::String(kind.to_string()));
            }
            _ if template => {
                out.insert("type".into(), Value::String("RollingUpdate".into()));
            }
            _ => {}
        }
        if let Some(surge) = strategy.get("rollingUpdate").and_then(|r| r.get("maxSurge")).filter(|s| !s.is_null()) {
            out.insert("rollingUpdate".into(), serde_json::json!({ "maxSurge": surge }));
        }
        if !out.is_empty() {
            put(spec, *rollout_position.get_or_insert(position), &["rollout", "strategy"], Value::Object(out));
        }
    }
    if let Some((position, remediation)) = take_some(spec, "remediationStrategy") {
        let mut out = Object::new();
        let pointer = format!("{pointer}/remediationStrategy");
        if let Some(retry) = remediation.get("maxRetry").filter(|r| !r.is_null()) {
            out.insert("maxRetry".into(), retry.clone());
        }
        let retry_period = match remediation.get("retryPeriod").filter(|r| !r.is_null()) {
            Some(period) => context.seconds(period, &format!("{pointer}/retryPeriod"))?,
            None => Value::from(0),
        };
        let restored_key = if template { "/spec/template/spec" } else { "/spec" };
        let restored = context.restored_at(&format!("{restored_key}/remediation/retryPeriodSeconds")).cloned();
        if retry_period != 0 || restored == Some(Value::from(0)) {
            out.insert("retryPeriodSeconds".into(), retry_period);
        }
        if let Some(period) = remediation.get("minHealthyPeriod").filter(|r| !r.is_null()) {
            out.insert(
                "minHealthyPeriodSeconds".into(),
                context.seconds(period, &format!("{pointer}/minHealthyPeriod"))?,
            );
        }
        if !out.is_empty() {
            put(spec, position, &["remediation"], Value::Object(out));
        }
    }
    if let Some((position, naming)) = take_some(spec, "machineNamingStrategy")
        && let Some(template) = naming.get("template").filter(|t| t.as_str().is_some_and(|s| !s.is_empty()))
    {
        put(spec, position, &["machineNaming", "template"], template.clone());
    }
    Ok(())
}

/// `machineTemplate`: the infrastructure reference, readiness gates, taints and node timeouts
/// move under `machineTemplate.spec`.
fn machine_template(context: &mut Context, machine: &mut Object, pointer: &str) -> Result<(), ConvertError> {
    let mut spec = Object::new();
    let mut position = None;
    if let Some((at, reference)) = take_some(machine, "infrastructureRef") {
        position.get_or_insert(at);
        let converted =
            context.contract_ref(&reference, &format!("{pointer}/infrastructureRef"), &context.namespace.clone())?;
        spec.insert("infrastructureRef".into(), converted);
    }
    for key in ["readinessGates", "taints"] {
        if let Some((at, value)) = take_some(machine, key) {
            position.get_or_insert(at);
            spec.insert(key.into(), value);
        }
    }
    let mut timeouts = Object::new();
    for key in ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"] {
        if let Some((at, value)) = take(machine, key) {
            position.get_or_insert(at);
            timeouts.insert(key.into(), value);
        }
    }
    deletion_timeouts(context, &mut timeouts, pointer)?;
    spec.extend(timeouts);
    if !spec.is_empty() {
        put(machine, position.unwrap_or(machine.len()), &["spec"], Value::Object(spec));
    }
    drop_if_empty(machine, "metadata");
    Ok(())
}
