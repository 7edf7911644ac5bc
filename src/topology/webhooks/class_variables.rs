//! The ClusterClass webhook's checks of variable definitions and their OpenAPI schemas.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::field_error::{FieldError, invalid, quoted};
use crate::json_pointer::At;
use crate::topology::variables::{self};

pub(super) fn validate_variable_definitions(class: &Value, errors: &mut Vec<FieldError>) {
    let Some(items) = class.array_at("/spec/variables") else { return };
    let mut seen = BTreeSet::new();
    // The v1beta2 CRD schema makes `required` a required field of every variable (v1beta1: optional).
    let v1beta2 = class.str_at("/apiVersion") == Some("cluster.x-k8s.io/v1beta2");
    for (index, item) in items.iter().enumerate() {
        if v1beta2 && item.get("required").is_none() {
            errors.push(FieldError {
                path: format!("spec.variables[{index}].required"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "a v1beta2 ClusterClass variable must say whether it is required (true or false)".into(),
            });
        }
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        let path = format!("spec.variables[{name}]");
        if name == variables::BUILTIN {
            errors.push(invalid(format!("{path}.name"), quoted(name), "\"builtin\" is a reserved variable name"));
            continue;
        }
        if name.is_empty() {
            errors.push(FieldError {
                path: format!("{path}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "variable name must be defined".into(),
            });
            continue;
        }
        if name.contains('.') {
            errors.push(invalid(format!("{path}.name"), quoted(name), "variable name cannot contain \".\""));
        }
        if !seen.insert(name.to_string()) {
            errors.push(invalid(
                format!("{path}.name"),
                quoted(name),
                format!("variable names must be unique. Variable with name {name:?} is defined more than once"),
            ));
            continue;
        }
        let schema = item.pointer("/schema/openAPIV3Schema").cloned().unwrap_or(json!({}));
        check_schema(&schema, &format!("{path}.schema.openAPIV3Schema"), errors);
    }
}

/// A variable schema as CAPI's `ValidateClusterClassVariables` checks it, node by node: a known
/// `type`, a `pattern` that compiles, CEL rules that compile, and every `default` valid against
/// its own schema (after defaulting).
fn check_schema(schema: &Value, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(ty) = schema.get("type").and_then(Value::as_str)
        && !matches!(ty, "array" | "boolean" | "integer" | "number" | "object" | "string")
    {
        errors.push(FieldError {
            path: format!("{path}.type"),
            context: None,
            kind: "Unsupported value",
            value: Some(quoted(ty)),
            detail: "supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"".into(),
        });
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Err(e) = regex::Regex::new(pattern)
    {
        let reason = e.to_string().lines().last().unwrap_or_default().trim().to_string();
        errors.push(invalid(
            format!("{path}.pattern"),
            quoted(pattern),
            format!("must be a valid regular expression, but isn't: {reason}"),
        ));
    }
    if let Some(rules) = schema.get("x-kubernetes-validations").and_then(Value::as_array) {
        let node =
            json!({"type": schema.get("type").cloned().unwrap_or(json!("object")), "x-kubernetes-validations": rules});
        let compiled = kube::core::cel::compile_schema(&node);
        for (i, result) in compiled.validations.iter().enumerate() {
            if let Err(e) = result {
                let rule = rules[i].get("rule").and_then(Value::as_str).unwrap_or("");
                errors.push(invalid(
                    format!("{path}.x-kubernetes-validations[{i}].rule"),
                    quoted(rule),
                    format!("compilation failed: {e}"),
                ));
            }
        }
    }
    if let Some(default) = schema.get("default") {
        let mut value = default.clone();
        variables::apply_defaults(&mut value, schema);
        let mut found = Vec::new();
        variables::validate(&value, schema, &format!("{path}.default"), &mut found);
        for e in found {
            let reason = match &e {
                variables::VariableError::Invalid { reason, .. } => reason.clone(),
                other => other.to_string(),
            };
            errors.push(invalid(format!("{path}.default"), quoted(&value.to_string()), reason));
        }
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, child) in props {
            check_schema(child, &format!("{path}.properties[{key}]"), errors);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = schema.get(key).filter(|c| c.is_object()) {
            check_schema(child, &format!("{path}.{key}"), errors);
        }
    }
}
