//! CAPI's ClusterClass webhook: template references, worker classes, metadata, Kubernetes versions and health
//! checks, with the variable, naming and patch checks of the files beside it.

use std::collections::BTreeSet;

use serde_json::Value;

use super::class_naming::validate_naming;
use super::class_patches::validate_patches;
use super::class_variables::validate_variable_definitions;
use super::field_error::{FieldError, invalid, quoted};
use super::machine_fields::{negative_seconds, reserved_machine_condition_types, validate_taints};
use super::names::validate_metadata;
use crate::json_pointer::At;

/// The ClusterClass checks of CAPI's validating webhook that decide whether a plan can be made.
pub fn validate_class(class: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    validate_template_refs(class, &mut errors);
    validate_worker_classes(class, &mut errors);
    validate_class_health_checks(class, &mut errors);
    validate_naming(class, &mut errors);
    validate_variable_definitions(class, &mut errors);
    validate_patches(class, &mut errors);
    validate_class_metadata(class, &mut errors);
    validate_taints(class.pointer("/spec/controlPlane/taints"), "spec.controlPlane.taints", &mut errors);
    for key in ["machineDeployments", "machinePools"] {
        for item in class.items_at(&format!("/spec/workers/{key}")) {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            validate_taints(item.get("taints"), &format!("spec.workers.{key}[{name}].taints"), &mut errors);
        }
    }
    validate_kubernetes_versions(class, &mut errors);
    reserved_machine_condition_types(class.get("spec").unwrap_or(&Value::Null), "spec", &mut errors);
    if class.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta2") {
        negative_seconds(class.get("spec").unwrap_or(&Value::Null), "spec", &mut errors);
    }
    errors
}

fn validate_worker_classes(class: &Value, errors: &mut Vec<FieldError>) {
    for (key, word) in [("machineDeployments", "MachineDeployment"), ("machinePools", "MachinePool")] {
        let Some(items) = class.array_at(&format!("/spec/workers/{key}")) else { continue };
        let mut seen = BTreeSet::new();
        for (i, item) in items.iter().enumerate() {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            if !seen.insert(name) {
                errors.push(invalid(
                    format!("spec.workers.{key}[{i}].class"),
                    quoted(name),
                    format!("{word} class must be unique. {word} with class {name:?} is defined more than once"),
                ));
            }
        }
    }
}

/// CAPI's `LocalObjectTemplateIsValid` for every template reference of the class.
fn validate_template_refs(class: &Value, errors: &mut Vec<FieldError>) {
    let mut refs: Vec<(String, bool)> = vec![("spec.infrastructure".into(), true), ("spec.controlPlane".into(), true)];
    if class.pointer("/spec/controlPlane/machineInfrastructure").is_some() {
        refs.push(("spec.controlPlane.machineInfrastructure".into(), true));
    }
    for key in ["machineDeployments", "machinePools"] {
        for (i, item) in class.items_at(&format!("/spec/workers/{key}")).enumerate() {
            let base = if item.get("template").is_some() {
                format!("spec.workers.{key}[{i}].template")
            } else {
                format!("spec.workers.{key}[{i}]")
            };
            refs.push((format!("{base}.bootstrap"), true));
            refs.push((format!("{base}.infrastructure"), true));
        }
    }
    for (path, _) in refs {
        let pointer = format!("/{}", path.replace(['.', '['], "/").replace(']', ""));
        let holder = class.pointer(&pointer);
        let (field, reference) = match holder {
            Some(h) if h.get("templateRef").is_some() => ("templateRef", h.get("templateRef")),
            Some(h) => ("ref", h.get("ref")),
            None => ("ref", None),
        };
        let Some(reference) = reference.filter(|r| r.is_object()) else {
            errors.push(FieldError {
                path: format!("{path}.{field}"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "template reference must be defined".into(),
            });
            continue;
        };
        let at = format!("{path}.{field}");
        if reference.str_at("/name").unwrap_or("").is_empty() {
            errors.push(FieldError {
                path: format!("{at}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "template name must be defined".into(),
            });
        }
        // No namespace check: CAPI v1.14 converts a v1beta1 `ref` to a v1beta2 `templateRef`, which has no
        // namespace (the class's is used), so a ref to another namespace is accepted (v1.10 rejected it).
        let kind = reference.str_at("/kind").unwrap_or("");
        if kind.len() <= "Template".len() || !kind.ends_with("Template") {
            errors.push(invalid(
                format!("{at}.kind"),
                quoted(kind),
                "template kind must be of form \"<name>Template\"",
            ));
        }
        if field == "ref" {
            let api_version = reference.str_at("/apiVersion").unwrap_or("");
            if api_version.is_empty() {
                errors.push(FieldError {
                    path: format!("{at}.apiVersion"),
                    context: None,
                    kind: "Required value",
                    value: None,
                    detail: "template apiVersion must be defined".into(),
                });
            } else if api_version.matches('/').count() > 1 {
                errors.push(invalid(
                    format!("{at}.apiVersion"),
                    quoted(api_version),
                    format!("template apiVersion must be a valid Kubernetes apiVersion: unexpected GroupVersion string: {api_version}"),
                ));
            }
        }
    }
}

/// `validateClusterClassMetadata`: the control plane's and each worker class's metadata.
fn validate_class_metadata(class: &Value, errors: &mut Vec<FieldError>) {
    validate_metadata(class.pointer("/spec/controlPlane/metadata"), "spec.controlPlane.metadata", errors);
    for key in ["machineDeployments", "machinePools"] {
        for item in class.items_at(&format!("/spec/workers/{key}")) {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            let (ptr, field) = if item.get("template").is_some() {
                ("/template/metadata", "template.metadata")
            } else {
                ("/metadata", "metadata")
            };
            validate_metadata(item.pointer(ptr), &format!("spec.workers.{key}[{name}].{field}"), errors);
        }
    }
}

/// A Kubernetes version as blang/semver's `ParseTolerant` reads it (a leading `v`, `major.minor` allowed):
/// (major, minor, patch, pre-release/build rest).
fn parse_tolerant(version: &str) -> Option<(u64, u64, u64, String)> {
    let v = version.trim().strip_prefix('v').unwrap_or(version.trim());
    let end = v.find(['-', '+']).unwrap_or(v.len());
    let (core, rest) = v.split_at(end);
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    if parts.next().is_some() {
        return None;
    }
    Some((major, minor, patch, rest.to_string()))
}

/// `validateKubernetesVersions` (v1.14's `spec.kubernetesVersions`): valid versions, increasing, no
/// minor skipped (CAPI's field path says `kubernetesVersion`).
fn validate_kubernetes_versions(class: &Value, errors: &mut Vec<FieldError>) {
    let mut previous: Option<(u64, u64, u64, String)> = None;
    for (i, item) in class.items_at("/spec/kubernetesVersions").enumerate() {
        let text = item.as_str().unwrap_or("");
        let path = format!("spec.kubernetesVersion[{i}]");
        let Some(version) = parse_tolerant(text) else {
            errors.push(invalid(path, quoted(text), "version must be a valid semantic version"));
            continue;
        };
        if let Some(prev) = &previous {
            // Same major.minor.patch with other build tags is tolerated.
            let (a, b) = ((version.0, version.1, version.2), (prev.0, prev.1, prev.2));
            if a < b || (a == b && version.3.is_empty() && prev.3.is_empty()) {
                errors.push(invalid(
                    path.clone(),
                    quoted(text),
                    format!("version must be greater than v{}.{}.{}{}", prev.0, prev.1, prev.2, prev.3),
                ));
            }
            if prev.1 != version.1 && prev.1 + 1 != version.1 {
                errors.push(invalid(
                    path,
                    quoted(text),
                    format!(
                        "expecting a version with minor {} or {}, found version {}.{}.{}{}",
                        prev.1,
                        prev.1 + 1,
                        version.0,
                        version.1,
                        version.2,
                        version.3
                    ),
                ));
            }
        }
        previous = Some(version);
    }
}

/// The class's MachineHealthChecks: one for the control plane needs `machineInfrastructure`.
fn validate_class_health_checks(class: &Value, errors: &mut Vec<FieldError>) {
    let key = if class.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta2") {
        "healthCheck"
    } else {
        "machineHealthCheck"
    };
    if class.pointer(&format!("/spec/controlPlane/{key}")).is_some()
        && class.pointer("/spec/controlPlane/machineInfrastructure").is_none()
    {
        errors.push(FieldError {
            path: format!("spec.controlPlane.{key}.machineInfrastructure"),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "can be set only if spec.controlPlane.machineInfrastructure is set".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn kubernetes_versions_must_increase_without_skipping_a_minor() {
        let class = |versions: Value| json!({"spec": {"kubernetesVersions": versions}});
        let mut errors = Vec::new();
        validate_kubernetes_versions(&class(json!(["v1.30.5", "v1.31.0", "1.31.2", "v1.32"])), &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        validate_kubernetes_versions(&class(json!(["v1.30.5", "v1.32.0", "v1.32.0", "nope"])), &mut errors);
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "spec.kubernetesVersion[1]: Invalid value: \"v1.32.0\": expecting a version with minor 30 or 31, found version 1.32.0",
                "spec.kubernetesVersion[2]: Invalid value: \"v1.32.0\": version must be greater than v1.32.0",
                "spec.kubernetesVersion[3]: Invalid value: \"nope\": version must be a valid semantic version",
            ]
        );
    }
}
