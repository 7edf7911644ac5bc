//! CAPI's Cluster webhook for a topology: version, worker topologies, metadata, autoscaler annotations and
//! MachineHealthChecks.

use std::collections::BTreeSet;

use serde_json::Value;

use super::field_error::{FieldError, invalid, quoted};
use super::machine_fields::{negative_seconds, reserved_machine_condition_types, validate_taints};
use super::names::{
    DNS1123_SUBDOMAIN_PATTERN, LABEL_VALUE_MESSAGE, is_dns1123_subdomain, is_label_value, validate_metadata,
};
use super::template_refs::template_ref;
use crate::json_pointer::At;

/// The Cluster checks of CAPI's validating webhook (on the defaulted Cluster) that do not need
/// the variable values: version, worker topology names and classes, MachineHealthChecks.
pub fn validate_cluster(cluster: &Value, class: &Value, class_name: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let version = cluster.str_at("/spec/topology/version").unwrap_or("");
    validate_metadata(
        cluster.pointer("/spec/topology/controlPlane/metadata"),
        "spec.topology.controlPlane.metadata",
        &mut errors,
    );
    if !is_semver(version) {
        errors.push(invalid(
            "spec.topology.version".into(),
            quoted(version),
            "version must be a valid semantic version",
        ));
    }
    validate_upgrade_concurrency(cluster, &mut errors);
    validate_autoscaler_annotations(cluster, class, &mut errors);
    if let Some(versions) = class.array_at("/spec/kubernetesVersions")
        && !versions.is_empty()
        && !versions.iter().any(|v| v.as_str() == Some(version))
    {
        errors.push(invalid(
            "spec.topology.version".into(),
            quoted(version),
            "version must match one of the versions defined in the ClusterClass",
        ));
    }
    reserved_machine_condition_types(
        cluster.pointer("/spec/topology").unwrap_or(&Value::Null),
        "spec.topology",
        &mut errors,
    );
    let v1beta2 = cluster.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta2");
    if v1beta2 {
        negative_seconds(cluster.pointer("/spec/topology").unwrap_or(&Value::Null), "spec.topology", &mut errors);
    }
    validate_taints(
        cluster.pointer("/spec/topology/controlPlane/taints"),
        "spec.topology.controlPlane.taints",
        &mut errors,
    );
    // v1beta1 `machineHealthCheck` with `enable`; v1beta2 `healthCheck` with `enabled`.
    let (mhc_key, switch) = if cluster.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta2") {
        ("healthCheck", "enabled")
    } else {
        ("machineHealthCheck", "enable")
    };
    validate_control_plane_health_check(cluster, class, (mhc_key, switch), &mut errors);
    for (key, word) in [("machineDeployments", "MachineDeployment"), ("machinePools", "MachinePool")] {
        let items = cluster
            .pointer(&format!("/spec/topology/workers/{key}"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let classes =
            class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array).cloned().unwrap_or_default();
        validate_worker_topologies(&items, &classes, class_name, (key, word), v1beta2, (mhc_key, switch), &mut errors);
    }
    errors
}

/// The upgrade-concurrency annotation, when set: an integer of at least 1.
fn validate_upgrade_concurrency(cluster: &Value, errors: &mut Vec<FieldError>) {
    const CONCURRENCY: &str = "topology.cluster.x-k8s.io/upgrade-concurrency";
    if let Some(value) = cluster.pointer("/metadata/annotations").and_then(|a| a.get(CONCURRENCY)) {
        let text = value.as_str().unwrap_or("");
        let path = format!("metadata.annotations.{CONCURRENCY}");
        match text.parse::<i64>() {
            Err(_) => errors.push(invalid(
                path,
                quoted(text),
                format!(
                    "could not parse the value of the annotation: strconv.Atoi: parsing {}: invalid syntax",
                    quoted(text)
                ),
            )),
            Ok(n) if n < 1 => errors.push(invalid(path, quoted(text), "value cannot be less than 1")),
            Ok(_) => {}
        }
    }
}

/// The control plane's MachineHealthCheck (`mhc_key` with its `switch`): enabled only with a class that has one,
/// and only when the class names the control plane's machine infrastructure.
fn validate_control_plane_health_check(
    cluster: &Value,
    class: &Value,
    (mhc_key, switch): (&str, &str),
    errors: &mut Vec<FieldError>,
) {
    let cp_machine = template_ref(class, "/spec/controlPlane/machineInfrastructure").is_some();
    if let Some(mhc) = cluster.pointer(&format!("/spec/topology/controlPlane/{mhc_key}")) {
        let class_mhc = class.pointer(&format!("/spec/controlPlane/{mhc_key}")).is_some();
        check_mhc_enable(mhc, switch, class_mhc, &format!("spec.topology.controlPlane.{mhc_key}"), errors);
        if !cp_machine && mhc_enabled(mhc, switch) {
            errors.push(FieldError {
                path: format!("spec.topology.controlPlane.{mhc_key}"),
                context: None,
                kind: "Forbidden",
                value: None,
                detail: "can be set only if spec.controlPlane.machineInfrastructure is set in ClusterClass".into(),
            });
        }
    }
}

/// The MachineDeployment or MachinePool topologies (`key`, named `word` in messages): metadata, taints, names
/// (valid and unique), their class in the ClusterClass and their MachineHealthChecks.
fn validate_worker_topologies(
    items: &[Value],
    classes: &[Value],
    class_name: &str,
    (key, word): (&str, &str),
    v1beta2: bool,
    (mhc_key, switch): (&str, &str),
    errors: &mut Vec<FieldError>,
) {
    let mut names = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        let class_of = item.get("class").and_then(Value::as_str).unwrap_or("");
        validate_metadata(item.get("metadata"), &format!("spec.topology.workers.{key}[{name}].metadata"), errors);
        validate_taints(item.get("taints"), &format!("spec.topology.workers.{key}[{name}].taints"), errors);
        // The v1beta2 CRD schema: worker topology names are DNS-1123 subdomains of at most 63 characters.
        if v1beta2 && !name.is_empty() && (name.len() > 63 || !is_dns1123_subdomain(name)) {
            let path = format!("spec.topology.workers.{key}[{i}].name");
            let rule = if name.len() > 63 {
                "may not be more than 63 bytes".to_string()
            } else {
                format!("should match '{DNS1123_SUBDOMAIN_PATTERN}'")
            };
            errors.push(invalid(path.clone(), quoted(name), format!("{path} in body {rule}")));
        } else if !is_label_value(name) {
            errors.push(invalid(
                format!("spec.topology.workers.{key}[{i}].name"),
                quoted(name),
                format!("must be a valid label value {LABEL_VALUE_MESSAGE}"),
            ));
        }
        if !names.insert(name.to_string()) {
            errors.push(invalid(
                format!("spec.topology.workers.{key}[{i}].name"),
                quoted(name),
                format!("name must be unique. {word} with name {name:?} is defined more than once"),
            ));
        }
        let Some(class_def) = classes.iter().find(|c| c.get("class").and_then(Value::as_str) == Some(class_of)) else {
            errors.push(invalid(
                format!("spec.topology.workers.{key}[{i}].class"),
                quoted(class_of),
                format!("{word}Class with name {class_of:?} does not exist in ClusterClass {class_name:?}"),
            ));
            continue;
        };
        if let Some(mhc) = item.get(mhc_key) {
            let class_mhc = class_def.get(mhc_key).is_some();
            check_mhc_enable(mhc, switch, class_mhc, &format!("spec.topology.workers.{key}[{name}].{mhc_key}"), errors);
        }
    }
}

/// CAPI's `version.KubeSemver`: `^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_\.+]*)?$`.
fn is_semver(version: &str) -> bool {
    let v = version.strip_prefix('v').unwrap_or(version);
    let mut rest = v;
    for i in 0..3 {
        let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let number = &rest[..end];
        if number.is_empty() || (number.len() > 1 && number.starts_with('0')) {
            return false;
        }
        rest = &rest[end..];
        if i < 2 {
            match rest.strip_prefix('.') {
                Some(r) => rest = r,
                None => return false,
            }
        }
    }
    rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
}

/// `validateAutoscalerAnnotationsForCluster`: a MachineDeployment topology with `replicas` must
/// not carry the autoscaler's min/max size annotations, nor may its class.
fn validate_autoscaler_annotations(cluster: &Value, class: &Value, errors: &mut Vec<FieldError>) {
    const SIZES: [&str; 2] = [
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size",
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size",
    ];
    let has_size = |annotations: Option<&Value>| {
        annotations.and_then(Value::as_object).is_some_and(|a| a.keys().any(|k| SIZES.contains(&k.as_str())))
    };
    let cluster_name = cluster.str_at("/metadata/name").unwrap_or("");
    let namespace = cluster.str_at("/metadata/namespace").unwrap_or("default");
    let classes = class.array_at("/spec/workers/machineDeployments");
    for md in cluster.items_at("/spec/topology/workers/machineDeployments") {
        let Some(replicas) = md.get("replicas") else { continue };
        let name = md.get("name").and_then(Value::as_str).unwrap_or("");
        let path = format!("spec.topology.workers.machineDeployments[{name}].replicas");
        if has_size(md.pointer("/metadata/annotations")) {
            errors.push(invalid(
                path.clone(),
                replicas.to_string(),
                format!("cannot be set for cluster {cluster_name:?} in namespace {namespace:?} if the same MachineDeploymentTopology has autoscaler annotations"),
            ));
        }
        let class_name = md.get("class").and_then(Value::as_str).unwrap_or("");
        let class_def =
            classes.into_iter().flatten().find(|c| c.get("class").and_then(Value::as_str) == Some(class_name));
        if let Some(c) = class_def
            && has_size(c.pointer("/template/metadata/annotations").or_else(|| c.pointer("/metadata/annotations")))
        {
            errors.push(invalid(
                path,
                replicas.to_string(),
                format!("cannot be set for cluster {cluster_name:?} in namespace {namespace:?} if the source class {class_name:?} of this MachineDeploymentTopology has autoscaler annotations"),
            ));
        }
    }
}

/// The checks of a MachineHealthCheck (`checks` / `unhealthyConditions`) besides the switch.
fn mhc_has_checks(mhc: &Value, switch: &str) -> bool {
    mhc.as_object().is_some_and(|m| m.keys().any(|k| k != switch))
}

fn mhc_enabled(mhc: &Value, switch: &str) -> bool {
    mhc.get(switch).and_then(Value::as_bool) == Some(true)
}

fn check_mhc_enable(mhc: &Value, switch: &str, class_has_mhc: bool, path: &str, errors: &mut Vec<FieldError>) {
    if mhc_enabled(mhc, switch) && !class_has_mhc && !mhc_has_checks(mhc, switch) {
        errors.push(FieldError {
            path: format!("{path}.{switch}"),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "cannot be set to true as MachineHealthCheck definition is not available in the Cluster topology or the ClusterClass".into(),
        });
    }
}
