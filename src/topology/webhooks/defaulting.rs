//! CAPI's defaulting webhook for a topology Cluster: version prefix, variable defaults, canonical durations, the
//! fields CAPI's typed objects always write.

use serde_json::{Map, Value, json};

use super::durations::canonical_duration;
use crate::json_pointer::At;
use crate::topology::variables::{self, VariableDefinition};

fn canonical_mhc(mhc: &mut Value) {
    if let Some(v) = mhc.get_mut("nodeStartupTimeout") {
        canonical_duration(v);
    }
    if let Some(items) = mhc.get_mut("unhealthyConditions").and_then(Value::as_array_mut) {
        for item in items {
            if let Some(v) = item.get_mut("timeout") {
                canonical_duration(v);
            }
        }
    }
}

/// What CAPI's Cluster defaulting webhook (and the typed round trip of a v1beta1 Cluster) writes:
/// `v` before the version, durations in Go's form, `metadata: {}` on topology sections,
/// `controlPlaneEndpoint`, remediation template namespaces, and the variable defaults (missing
/// variables with a default appended by name; nested defaults inside given values and overrides).
pub fn default_cluster(cluster: &mut Value, defs: &[VariableDefinition]) {
    let namespace = cluster.str_at("/metadata/namespace").unwrap_or("default").to_string();
    let v1beta1 = cluster.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta1");
    let Some(topology) = cluster.pointer_mut("/spec/topology").and_then(Value::as_object_mut) else { return };
    if let Some(Value::String(version)) = topology.get_mut("version")
        && !version.starts_with('v')
    {
        *version = format!("v{version}");
    }
    let durations = ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"];
    let default_section = |section: &mut Map<String, Value>| {
        if v1beta1 {
            section.entry("metadata").or_insert_with(|| json!({}));
        }
        for d in durations {
            if let Some(v) = section.get_mut(d) {
                canonical_duration(v);
            }
        }
        if let Some(mhc) = section.get_mut("machineHealthCheck") {
            canonical_mhc(mhc);
            if let Some(t) = mhc.get_mut("remediationTemplate").and_then(Value::as_object_mut)
                && t.get("namespace").and_then(Value::as_str).is_none_or(str::is_empty)
            {
                t.insert("namespace".into(), json!(namespace));
            }
        }
        if let Some(overrides) =
            section.get_mut("variables").and_then(|v| v.get_mut("overrides")).and_then(Value::as_array_mut)
        {
            for item in overrides {
                let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                if let (Some(def), Some(value)) = (defs.iter().find(|d| d.name == name), item.get_mut("value")) {
                    variables::apply_defaults(value, &def.schema);
                }
            }
        }
    };
    // The typed v1beta1 Cluster always has a control plane topology; v1beta2 leaves it out when unset.
    if v1beta1 {
        topology.entry("controlPlane").or_insert_with(|| json!({}));
    }
    if let Some(cp) = topology.get_mut("controlPlane").and_then(Value::as_object_mut) {
        default_section(cp);
    }
    if let Some(workers) = topology.get_mut("workers").and_then(Value::as_object_mut) {
        for key in ["machineDeployments", "machinePools"] {
            for item in workers.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(section) = item.as_object_mut() {
                    default_section(section);
                }
            }
        }
    }
    // Top-level variables: nested defaults in given values, then missing ones with a default.
    let mut given: Vec<Value> = topology.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
    for item in &mut given {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        if let (Some(def), Some(value)) = (defs.iter().find(|d| d.name == name), item.get_mut("value")) {
            variables::apply_defaults(value, &def.schema);
        }
    }
    let mut missing: Vec<&VariableDefinition> = defs
        .iter()
        .filter(|d| d.schema.get("default").is_some())
        .filter(|d| !given.iter().any(|g| g.get("name").and_then(Value::as_str) == Some(d.name.as_str())))
        .collect();
    missing.sort_by(|a, b| a.name.cmp(&b.name));
    for def in missing {
        let mut value = def.schema["default"].clone();
        variables::apply_defaults(&mut value, &def.schema);
        given.push(json!({"name": def.name, "value": value}));
    }
    if !given.is_empty() {
        topology.insert("variables".into(), Value::Array(given));
    }
    // v1beta2 has no `spec.topology.rolloutAfter`: v1.14's conversion drops it (v1.10 kept it).
    if v1beta1 && let Some(topology) = cluster.pointer_mut("/spec/topology").and_then(Value::as_object_mut) {
        topology.remove("rolloutAfter");
    }
    if v1beta1 && let Some(spec) = cluster.pointer_mut("/spec").and_then(Value::as_object_mut) {
        spec.entry("controlPlaneEndpoint").or_insert_with(|| json!({"host": "", "port": 0}));
    }
}
