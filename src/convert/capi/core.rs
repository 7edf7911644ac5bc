//! cluster.x-k8s.io v1beta1 → v1beta2: Cluster, Machine, MachineSet,
//! MachineDeployment, MachinePool, MachineHealthCheck (MachineDrainRule has the same shape).

use serde_json::{Map, Value};

use super::Context;
use super::fields::{drop_empty_string, drop_if_empty, items_mut, object_mut, put, rename, take, take_some};
use super::status;
use crate::convert::ConvertError;

type Object = Map<String, Value>;

/// The three node timeouts that become `deletion.*Seconds`.
const TIMEOUTS: [(&str, &str); 3] = [
    ("nodeDrainTimeout", "nodeDrainTimeoutSeconds"),
    ("nodeVolumeDetachTimeout", "nodeVolumeDetachTimeoutSeconds"),
    ("nodeDeletionTimeout", "nodeDeletionTimeoutSeconds"),
];

pub(crate) fn deletion_timeouts(context: &mut Context, map: &mut Object, pointer: &str) -> Result<(), ConvertError> {
    for (from, to) in TIMEOUTS {
        context.move_seconds(map, pointer, from, &["deletion", to])?;
    }
    Ok(())
}

pub(super) fn cluster(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = object_mut(object, "spec") {
        context.bool_intent(spec, "paused", "/spec/paused");
        for key in ["infrastructureRef", "controlPlaneRef"] {
            if let Some((position, reference)) = take_some(spec, key) {
                let converted =
                    context.contract_ref(&reference, &format!("/spec/{key}"), &context.namespace.clone())?;
                put(spec, position, &[key], converted);
            }
        }
        if let Some(topology) = object_mut(spec, "topology") {
            self::topology(context, topology)?;
        }
        drop_if_empty(spec, "topology");
    }
    status::cluster(context, object)
}

fn topology(context: &mut Context, topology: &mut Object) -> Result<(), ConvertError> {
    rename(topology, "class", &["classRef", "name"]);
    if let Some((position, namespace)) = take(topology, "classNamespace")
        && namespace.as_str().is_some_and(|s| !s.is_empty())
    {
        put(topology, position, &["classRef", "namespace"], namespace);
    }
    if let Some((_, after)) = take_some(topology, "rolloutAfter") {
        let _ = after;
        context.dropped("/spec/topology/rolloutAfter", "v1beta2 has no topology.rolloutAfter");
    }
    if let Some(control_plane) = object_mut(topology, "controlPlane") {
        let pointer = "/spec/topology/controlPlane";
        health_check_move(context, control_plane, pointer, HealthCheckKind::Topology)?;
        deletion_timeouts(context, control_plane, pointer)?;
        overrides_definition_from(context, control_plane, pointer);
        drop_if_empty(control_plane, "metadata");
    }
    drop_if_empty(topology, "controlPlane");
    if let Some(workers) = object_mut(topology, "workers") {
        for (index, deployment) in items_mut(workers, "machineDeployments") {
            let pointer = format!("/spec/topology/workers/machineDeployments/{index}");
            health_check_move(context, deployment, &pointer, HealthCheckKind::Topology)?;
            deletion_timeouts(context, deployment, &pointer)?;
            overrides_definition_from(context, deployment, &pointer);
            strategy_move(deployment, &["healthCheck", "remediation", "maxInFlight"]);
            drop_empty_string(deployment, "failureDomain");
        }
        for (index, pool) in items_mut(workers, "machinePools") {
            let pointer = format!("/spec/topology/workers/machinePools/{index}");
            deletion_timeouts(context, pool, &pointer)?;
            overrides_definition_from(context, pool, &pointer);
        }
    }
    drop_if_empty(topology, "workers");
    for (index, variable) in items_mut(topology, "variables") {
        if let Some((_, from)) = take(variable, "definitionFrom")
            && from.as_str().is_some_and(|s| !s.is_empty())
        {
            context.dropped(
                &format!("/spec/topology/variables/{index}/definitionFrom"),
                "v1beta2 variables have no definitionFrom",
            );
        }
    }
    Ok(())
}

/// `variables.overrides[].definitionFrom` has no v1beta2 place.
fn overrides_definition_from(context: &mut Context, topology: &mut Object, pointer: &str) {
    let Some(variables) = object_mut(topology, "variables") else { return };
    for (index, variable) in items_mut(variables, "overrides") {
        if let Some((_, from)) = take(variable, "definitionFrom")
            && from.as_str().is_some_and(|s| !s.is_empty())
        {
            context.dropped(
                &format!("{pointer}/variables/overrides/{index}/definitionFrom"),
                "v1beta2 variables have no definitionFrom",
            );
        }
    }
}

/// Which v1beta1 health check shape is converted (the topology one has `enable`).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum HealthCheckKind {
    Topology,
    Class,
}

/// `machineHealthCheck` → `healthCheck` in place.
pub(super) fn health_check_move(
    context: &mut Context,
    map: &mut Object,
    pointer: &str,
    kind: HealthCheckKind,
) -> Result<(), ConvertError> {
    let Some((position, check)) = take_some(map, "machineHealthCheck") else { return Ok(()) };
    let mut check = check.as_object().cloned().unwrap_or_default();
    let pointer = format!("{pointer}/machineHealthCheck");
    let mut out = Object::new();
    if kind == HealthCheckKind::Topology
        && let Some((_, enable)) = take_some(&mut check, "enable")
    {
        out.insert("enabled".into(), enable);
    }
    let checks = checks_and_remediation(context, &mut check, &pointer)?;
    out.extend(checks);
    put(map, position, &["healthCheck"], Value::Object(out));
    Ok(())
}

/// The v1beta1 health check fields as v1beta2 `checks` and `remediation` (MachineHealthCheck
/// spec, ClusterClass and topology health checks).
fn checks_and_remediation(context: &mut Context, check: &mut Object, pointer: &str) -> Result<Object, ConvertError> {
    let mut checks = Object::new();
    let mut remediation = Object::new();
    let mut trigger = Object::new();
    if let Some((_, timeout)) = take_some(check, "nodeStartupTimeout") {
        checks.insert(
            "nodeStartupTimeoutSeconds".into(),
            context.seconds(&timeout, &format!("{pointer}/nodeStartupTimeout"))?,
        );
    }
    for (from, to) in [
        ("unhealthyConditions", "unhealthyNodeConditions"),
        ("unhealthyMachineConditions", "unhealthyMachineConditions"),
    ] {
        let Some((_, Value::Array(conditions))) = take_some(check, from) else { continue };
        if conditions.is_empty() {
            continue;
        }
        let mut out = Vec::new();
        for (index, condition) in conditions.iter().enumerate() {
            let mut converted = Object::new();
            for key in ["type", "status"] {
                if let Some(value) = condition.get(key).filter(|v| v.as_str().is_some_and(|s| !s.is_empty())) {
                    converted.insert(key.into(), value.clone());
                }
            }
            let timeout = condition.get("timeout").cloned().unwrap_or(Value::String("0s".into()));
            converted.insert(
                "timeoutSeconds".into(),
                context.seconds(&timeout, &format!("{pointer}/{from}/{index}/timeout"))?,
            );
            out.push(Value::Object(converted));
        }
        checks.insert(to.into(), Value::Array(out));
    }
    if let Some((_, max)) = take_some(check, "maxUnhealthy") {
        trigger.insert("unhealthyLessThanOrEqualTo".into(), max);
    }
    if let Some((_, range)) = take_some(check, "unhealthyRange")
        && range.as_str().is_some_and(|s| !s.is_empty())
    {
        trigger.insert("unhealthyInRange".into(), range);
    }
    if !trigger.is_empty() {
        remediation.insert("triggerIf".into(), Value::Object(trigger));
    }
    if let Some((_, template)) = take_some(check, "remediationTemplate") {
        let mut reference = Object::new();
        for (key, value) in template.as_object().into_iter().flatten() {
            match key.as_str() {
                "kind" | "name" | "apiVersion" => {
                    if value.as_str().is_some_and(|s| !s.is_empty()) {
                        reference.insert(key.clone(), value.clone());
                    }
                }
                "namespace" if value.as_str().is_none_or(|s| s.is_empty() || s == context.namespace) => {}
                _ => context.dropped(
                    &format!("{pointer}/remediationTemplate/{key}"),
                    "v1beta2 template references have no such field",
                ),
            }
        }
        if !reference.is_empty() {
            remediation.insert("templateRef".into(), Value::Object(reference));
        }
    }
    let mut out = Object::new();
    if !checks.is_empty() {
        out.insert("checks".into(), Value::Object(checks));
    }
    if !remediation.is_empty() {
        out.insert("remediation".into(), Value::Object(remediation));
    }
    // Whatever is left has no v1beta2 place.
    for key in check.keys() {
        context.dropped(&format!("{pointer}/{key}"), "unknown health check field");
    }
    Ok(out)
}

/// A MachineDeployment `strategy` → `rollout.strategy`, `deletion.order` and the remediation's
/// `maxInFlight` at `max_in_flight_path`.
pub(super) fn strategy_move(map: &mut Object, max_in_flight_path: &[&str]) {
    let Some((position, strategy)) = take_some(map, "strategy") else { return };
    let mut strategy = strategy.as_object().cloned().unwrap_or_default();
    let mut rollout_strategy = Object::new();
    if let Some(kind) = strategy.shift_remove("type").filter(|t| t.as_str().is_some_and(|s| !s.is_empty())) {
        rollout_strategy.insert("type".into(), kind);
    }
    let mut delete_policy = None;
    if let Some(Value::Object(mut rolling)) = strategy.shift_remove("rollingUpdate") {
        delete_policy = rolling.shift_remove("deletePolicy").filter(|p| !p.is_null());
        let mut out = Object::new();
        for key in ["maxUnavailable", "maxSurge"] {
            if let Some(value) = rolling.shift_remove(key).filter(|v| !v.is_null()) {
                out.insert(key.into(), value);
            }
        }
        if !out.is_empty() {
            rollout_strategy.insert("rollingUpdate".into(), Value::Object(out));
        }
    }
    let mut position = position;
    if !rollout_strategy.is_empty() {
        put(map, position, &["rollout", "strategy"], Value::Object(rollout_strategy));
        position += 1;
    }
    if let Some(policy) = delete_policy.filter(|p| p.as_str().is_some_and(|s| !s.is_empty())) {
        put(map, position, &["deletion", "order"], policy);
        position += 1;
    }
    let max_in_flight = strategy.get("remediation").and_then(|r| r.get("maxInFlight")).filter(|v| !v.is_null());
    if let Some(max) = max_in_flight.cloned() {
        put(map, position, max_in_flight_path, max);
    }
}

/// A v1beta1 `MachineSpec` (Machine spec, the templates of MachineSets, MachineDeployments,
/// MachinePools) as v1beta2.
fn machine_spec(context: &mut Context, spec: &mut Object, pointer: &str) -> Result<(), ConvertError> {
    if let Some(bootstrap) = object_mut(spec, "bootstrap")
        && let Some((position, reference)) = take_some(bootstrap, "configRef")
    {
        let converted =
            context.contract_ref(&reference, &format!("{pointer}/bootstrap/configRef"), &context.namespace.clone())?;
        put(bootstrap, position, &["configRef"], converted);
    }
    if let Some((position, reference)) = take_some(spec, "infrastructureRef") {
        let converted =
            context.contract_ref(&reference, &format!("{pointer}/infrastructureRef"), &context.namespace.clone())?;
        put(spec, position, &["infrastructureRef"], converted);
    }
    for key in ["version", "providerID", "failureDomain"] {
        drop_empty_string(spec, key);
    }
    deletion_timeouts(context, spec, pointer)
}

fn template_spec(object: &mut Object) -> Option<&mut Object> {
    object_mut(object, "spec").and_then(|spec| object_mut(spec, "template")).and_then(|t| object_mut(t, "spec"))
}

pub(super) fn machine(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = object_mut(object, "spec") {
        machine_spec(context, spec, "/spec")?;
        if let Some(min) = context.restored_at("/spec/minReadySeconds").cloned() {
            spec.insert("minReadySeconds".into(), min);
        }
    }
    status::machine(context, object)
}

/// Moves `spec.minReadySeconds` into `spec.template.spec` (`keep_zero`: a 0 stays, as for
/// MachineDeployments and MachinePools).
fn min_ready_seconds_into_template(object: &mut Object, keep_zero: bool) {
    let Some(spec) = object_mut(object, "spec") else { return };
    let Some((_, min)) = take_some(spec, "minReadySeconds") else { return };
    if !keep_zero && min.as_i64() == Some(0) {
        return;
    }
    let template = spec.entry("template").or_insert_with(|| Value::Object(Object::new()));
    if let Some(template) = template.as_object_mut() {
        let end = template.len();
        put(template, end, &["spec", "minReadySeconds"], min);
    }
}

pub(super) fn machine_set(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = template_spec(object) {
        machine_spec(context, spec, "/spec/template/spec")?;
    }
    min_ready_seconds_into_template(object, false);
    if let Some(spec) = object_mut(object, "spec") {
        if let Some((position, policy)) = take_some(spec, "deletePolicy")
            && policy.as_str().is_some_and(|s| !s.is_empty())
        {
            put(spec, position, &["deletion", "order"], policy);
        }
        naming_move(spec, "machineNamingStrategy", "machineNaming");
    }
    status::machine_set(context, object)
}

/// `…NamingStrategy: {template}` → `…Naming: {template}` (an empty template is dropped).
pub(super) fn naming_move(map: &mut Object, from: &str, to: &str) {
    if let Some((position, naming)) = take_some(map, from)
        && let Some(template) = naming.get("template").filter(|t| t.as_str().is_some_and(|s| !s.is_empty()))
    {
        put(map, position, &[to, "template"], template.clone());
    }
}

pub(super) fn machine_deployment(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = template_spec(object) {
        machine_spec(context, spec, "/spec/template/spec")?;
    }
    min_ready_seconds_into_template(object, true);
    if let Some(spec) = object_mut(object, "spec") {
        strategy_move(spec, &["remediation", "maxInFlight"]);
        if let Some((position, after)) = take_some(spec, "rolloutAfter") {
            put(spec, position, &["rollout", "after"], after);
        }
        naming_move(spec, "machineNamingStrategy", "machineNaming");
        for key in ["revisionHistoryLimit", "progressDeadlineSeconds"] {
            if take_some(spec, key).is_some() {
                context.dropped(&format!("/spec/{key}"), &format!("v1beta2 MachineDeployments have no {key}"));
            }
        }
        context.bool_intent(spec, "paused", "/spec/paused");
    }
    status::machine_deployment(context, object)
}

pub(super) fn machine_pool(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = template_spec(object) {
        machine_spec(context, spec, "/spec/template/spec")?;
    }
    min_ready_seconds_into_template(object, true);
    status::machine_pool(context, object)
}

pub(super) fn machine_health_check(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = object_mut(object, "spec") {
        let mut rest = Object::new();
        let mut position = None;
        let keys: Vec<String> = spec.keys().cloned().collect();
        for key in keys {
            if matches!(
                key.as_str(),
                "unhealthyConditions"
                    | "unhealthyMachineConditions"
                    | "nodeStartupTimeout"
                    | "maxUnhealthy"
                    | "unhealthyRange"
                    | "remediationTemplate"
            ) {
                let (at, value) = take(spec, &key).expect("listed key");
                position.get_or_insert(at);
                rest.insert(key, value);
            }
        }
        let converted = checks_and_remediation(context, &mut rest, "/spec")?;
        let start = position.unwrap_or(spec.len());
        for (position, (key, value)) in (start..).zip(converted) {
            put(spec, position, &[&key], value);
        }
    }
    status::machine_health_check(context, object)
}
