//! The ClusterClass webhook's checks of patches: names, `enabledIf`, JSON patches and the variables they read.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::field_error::{FieldError, invalid, quoted};
use super::patch_selectors::validate_selector;
use crate::json_pointer::At;
use crate::topology::gotemplate;

pub(super) fn validate_patches(class: &Value, errors: &mut Vec<FieldError>) {
    let Some(patches) = class.array_at("/spec/patches") else { return };
    let defined: BTreeSet<&str> = class
        .array_at("/spec/variables")
        .map(|v| v.iter().filter_map(|d| d.get("name").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    for (pi, patch) in patches.iter().enumerate() {
        let name = patch.get("name").and_then(Value::as_str).unwrap_or("");
        let context = Some(format!("patch {name:?}"));
        let mut push = |mut e: FieldError| {
            e.context = context.clone();
            errors.push(e);
        };
        let base = format!("spec.patches[{pi}]");
        if name.is_empty() {
            push(FieldError {
                path: format!("{base}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "patch name must be defined".into(),
            });
        }
        if !names.insert(name.to_string()) {
            push(invalid(
                format!("{base}.name"),
                quoted(name),
                format!("patch names must be unique. Patch with name {name:?} is defined more than once"),
            ));
        }
        if let Some(expr) = patch.get("enabledIf").and_then(Value::as_str)
            && let Err(e) = gotemplate::Template::parse("enabledIf", expr)
        {
            push(invalid(format!("{base}.enabledIf"), quoted(expr), format!("template can not be parsed: {e}")));
        }
        let definitions = patch.get("definitions").and_then(Value::as_array);
        if definitions.is_none() && patch.get("external").is_none() {
            push(FieldError {
                path: base.clone(),
                context: None,
                kind: "Required value",
                value: None,
                detail: "one of definitions or external must be defined".into(),
            });
        }
        for (di, definition) in definitions.into_iter().flatten().enumerate() {
            let dbase = format!("{base}.definitions[{di}]");
            let json_patches = definition.get("jsonPatches").and_then(Value::as_array).cloned().unwrap_or_default();
            for (ji, jp) in json_patches.iter().enumerate() {
                for e in validate_json_patch(jp, &defined, &format!("{dbase}.jsonPatches[{ji}]")) {
                    push(e);
                }
            }
            for e in validate_selector(
                definition.get("selector").unwrap_or(&Value::Null),
                class,
                &format!("{dbase}.selector"),
            ) {
                push(e);
            }
        }
    }
}

fn validate_json_patch(jp: &Value, defined: &BTreeSet<&str>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let op = jp.get("op").and_then(Value::as_str).unwrap_or("");
    let target = jp.get("path").and_then(Value::as_str).unwrap_or("");
    if !matches!(op, "add" | "replace" | "remove") {
        errors.push(FieldError {
            path: format!("{path}.op"),
            context: None,
            kind: "Unsupported value",
            value: Some(pretty(jp)),
            detail: "supported values: \"add\", \"remove\", \"replace\"".into(),
        });
    }
    // v1.10 asks for "/spec/"; v1.14 (our target) for "/spec" (docs/plan.md).
    if !target.starts_with("/spec") {
        errors.push(invalid(format!("{path}.path"), pretty(jp), "jsonPatch path must start with \"/spec\""));
    }
    // Go's strconv.Atoi on each segment: list indexes.
    for part in target.split('/') {
        let digits = part.strip_prefix(['+', '-']).unwrap_or(part);
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let index: i128 = part.parse().unwrap_or(1);
        if op == "add" && index != 0 {
            errors.push(invalid(
                format!("{path}.path"),
                quoted(target),
                "arrays can only be accessed using \"0\" (prepend) or \"-\" (append)",
            ));
        }
        if op == "replace" || op == "remove" {
            errors.push(invalid(
                format!("{path}.path"),
                quoted(target),
                format!("elements in arrays can not be accessed in a {op} operation"),
            ));
        }
    }
    if op != "add" && op != "replace" {
        return errors;
    }
    let value = jp.get("value");
    let value_from = jp.get("valueFrom");
    if value.is_none() && value_from.is_none() {
        errors.push(invalid(path.to_string(), pretty(jp), "jsonPatch must define one of value or valueFrom"));
    }
    if value.is_some() && value_from.is_some() {
        errors.push(invalid(path.to_string(), pretty(jp), "jsonPatch can not define both value and valueFrom"));
    }
    let Some(from) = value_from else { return errors };
    let variable = from.get("variable").and_then(Value::as_str).filter(|v| !v.is_empty());
    let template = from.get("template").and_then(Value::as_str).filter(|t| !t.is_empty());
    match (variable, template) {
        (None, None) => errors.push(invalid(
            format!("{path}.valueFrom"),
            quoted(&from.to_string()),
            "valueFrom must set either template or variable",
        )),
        (Some(_), Some(_)) => errors.push(invalid(
            format!("{path}.valueFrom"),
            quoted(&from.to_string()),
            "valueFrom can not set both template and variable",
        )),
        _ => {}
    }
    if let Some(t) = template
        && let Err(e) = gotemplate::Template::parse("valueFrom.template", t)
    {
        errors.push(invalid(
            format!("{path}.valueFrom.template"),
            quoted(t),
            format!("template can not be parsed: {e}"),
        ));
    }
    if let Some(v) = variable {
        if v.starts_with("builtin.") {
            if !BUILTIN_VARIABLES.contains(&v) {
                errors.push(invalid(format!("{path}.valueFrom.variable"), quoted(v), "not a defined builtin variable"));
            }
        } else {
            let name = v.split(['[', '.']).next().unwrap_or("");
            if !defined.contains(name) {
                errors.push(invalid(
                    format!("{path}.valueFrom.variable"),
                    quoted(v),
                    format!("variable with name {v} cannot be found"),
                ));
            }
        }
    }
    errors
}

/// `builtinVariables` of CAPI v1.14's patch validation.
const BUILTIN_VARIABLES: &[&str] = &[
    "builtin",
    "builtin.cluster",
    "builtin.cluster.name",
    "builtin.cluster.namespace",
    "builtin.cluster.uid",
    "builtin.cluster.metadata.labels",
    "builtin.cluster.metadata.annotations",
    "builtin.cluster.topology",
    "builtin.cluster.topology.class",
    "builtin.cluster.topology.classNamespace",
    "builtin.cluster.topology.classRef.name",
    "builtin.cluster.topology.classRef.namespace",
    "builtin.cluster.topology.version",
    "builtin.cluster.network",
    "builtin.cluster.network.serviceDomain",
    "builtin.cluster.network.services",
    "builtin.cluster.network.pods",
    "builtin.controlPlane",
    "builtin.controlPlane.name",
    "builtin.controlPlane.replicas",
    "builtin.controlPlane.version",
    "builtin.controlPlane.metadata.labels",
    "builtin.controlPlane.metadata.annotations",
    "builtin.controlPlane.machineTemplate.infrastructureRef.name",
    "builtin.machineDeployment",
    "builtin.machineDeployment.class",
    "builtin.machineDeployment.name",
    "builtin.machineDeployment.replicas",
    "builtin.machineDeployment.topologyName",
    "builtin.machineDeployment.version",
    "builtin.machineDeployment.metadata.labels",
    "builtin.machineDeployment.metadata.annotations",
    "builtin.machineDeployment.bootstrap.configRef.name",
    "builtin.machineDeployment.infrastructureRef.name",
    "builtin.machinePool",
    "builtin.machinePool.class",
    "builtin.machinePool.name",
    "builtin.machinePool.replicas",
    "builtin.machinePool.topologyName",
    "builtin.machinePool.version",
    "builtin.machinePool.metadata.labels",
    "builtin.machinePool.metadata.annotations",
    "builtin.machinePool.bootstrap.configRef.name",
    "builtin.machinePool.infrastructureRef.name",
];

/// Go's `json.MarshalIndent(v, "", "  ")` of a patch object, as CAPI's `prettyPrint` shows it
/// (keys in Go's struct order: op, path, value, valueFrom).
fn pretty(v: &Value) -> String {
    let mut ordered = Map::new();
    if let Some(map) = v.as_object() {
        for key in ["op", "path", "value", "valueFrom"] {
            if let Some(x) = map.get(key) {
                ordered.insert(key.into(), x.clone());
            }
        }
    }
    let text = serde_json::to_string_pretty(&Value::Object(ordered)).unwrap_or_default();
    quoted(&text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn index_rules_follow_go_atoi() {
        let defined = BTreeSet::new();
        let errs =
            |op: &str, path: &str| validate_json_patch(&json!({"op": op, "path": path, "value": 1}), &defined, "p");
        assert!(errs("add", "/spec/a/0").is_empty());
        assert!(errs("add", "/spec/a/-").is_empty());
        assert_eq!(errs("add", "/spec/a/1").len(), 1);
        assert_eq!(errs("replace", "/spec/a/0").len(), 1);
        assert_eq!(errs("replace", "/spec/a/+3").len(), 1);
        assert!(errs("replace", "/spec/a/b").is_empty());
    }
}
