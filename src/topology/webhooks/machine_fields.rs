//! Checks of machine fields that a ClusterClass and a Cluster share: reserved condition types, negative
//! seconds, taints.

use serde_json::Value;

use super::field_error::{FieldError, invalid, quoted};

/// The CEL rule CAPI v1.14's CRDs put on every `unhealthyMachineConditions[].type` (class and topology
/// health checks, both API versions): conditions CAPI itself sets cannot be health checks. Paths with
/// list indexes, as the API server reports schema errors.
pub(super) fn reserved_machine_condition_types(value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    const RESERVED: [&str; 5] =
        ["Ready", "Available", "HealthCheckSucceeded", "OwnerRemediated", "ExternallyRemediated"];
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let at = format!("{path}.{key}");
                if key == "unhealthyMachineConditions"
                    && let Some(items) = child.as_array()
                {
                    for (i, item) in items.iter().enumerate() {
                        if let Some(kind) = item.get("type").and_then(Value::as_str)
                            && RESERVED.contains(&kind)
                        {
                            errors.push(invalid(
                                format!("{at}[{i}].type"),
                                quoted(kind),
                                "type must not be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated, ExternallyRemediated",
                            ));
                        }
                    }
                } else {
                    reserved_machine_condition_types(child, &at, errors);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                reserved_machine_condition_types(item, &format!("{path}[{i}]"), errors);
            }
        }
        _ => {}
    }
}

/// The v1beta2 CRD schemas give every `...Seconds` field `minimum: 0` (deletion timeouts, health check
/// timeouts, `minReadySeconds`); the API server reports the path with list indexes.
pub(super) fn negative_seconds(value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let at = format!("{path}.{key}");
                match child.as_i64() {
                    Some(n) if key.ends_with("Seconds") && n < 0 => errors.push(invalid(
                        at.clone(),
                        n.to_string(),
                        format!("{at} in body should be greater than or equal to 0"),
                    )),
                    _ => negative_seconds(child, &at, errors),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                negative_seconds(item, &format!("{path}[{i}]"), errors);
            }
        }
        _ => {}
    }
}

/// `taints.ValidateMachineTaints` with CAPI v1.14's default feature gates: `MachineTaintPropagation`
/// is off, so any taint is refused.
pub(super) fn validate_taints(taints: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    if taints.and_then(Value::as_array).is_some_and(|t| !t.is_empty()) {
        errors.push(FieldError {
            path: path.to_string(),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn health_checks_on_conditions_capi_sets_are_refused() {
        let spec = json!({"workers": {"machineDeployments": [{"healthCheck": {"checks": {"unhealthyMachineConditions": [
            {"type": "EtcdPodHealthy"}, {"type": "Ready"}]}}}]}});
        let mut errors = Vec::new();
        reserved_machine_condition_types(&spec, "spec", &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].path,
            "spec.workers.machineDeployments[0].healthCheck.checks.unhealthyMachineConditions[1].type"
        );
    }

    #[test]
    fn taints_are_refused_while_the_feature_gate_is_off() {
        let mut errors = Vec::new();
        validate_taints(Some(&json!([])), "spec.controlPlane.taints", &mut errors);
        assert!(errors.is_empty());
        validate_taints(Some(&json!([{"key": "a", "effect": "NoSchedule"}])), "spec.controlPlane.taints", &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "spec.controlPlane.taints");
        assert_eq!(errors[0].kind, "Forbidden");
    }
}
