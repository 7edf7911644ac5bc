//! The ClusterClass webhook's checks of a patch's selector: the template it names and the worker classes it matches.

use serde_json::{Value, json};

use super::field_error::{FieldError, invalid, quoted};
use super::names::is_qualified_name;
use super::template_refs::{template_ref, worker_refs};
use crate::json_pointer::At;

pub(super) fn validate_selector(selector: &Value, class: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let api_version = selector.str_at("/apiVersion").unwrap_or("");
    let kind = selector.str_at("/kind").unwrap_or("");
    let matches = |r: Option<(String, String)>| r.is_some_and(|(a, k)| a == api_version && k == kind);
    let m = selector.get("matchResources").cloned().unwrap_or(json!({}));
    let flag = |key: &str| m.get(key).and_then(Value::as_bool) == Some(true);
    let names = |key: &str| -> Vec<String> {
        m.array_at(&format!("/{key}/names"))
            .map(|n| n.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let (md_names, mp_names) = (names("machineDeploymentClass"), names("machinePoolClass"));
    if !flag("infrastructureCluster") && !flag("controlPlane") && md_names.is_empty() && mp_names.is_empty() {
        errors.push(invalid(path.to_string(), quoted(&selector.to_string()), "no selector enabled"));
        return errors;
    }
    if flag("infrastructureCluster") && !matches(template_ref(class, "/spec/infrastructure")) {
        errors.push(invalid(
            format!("{path}.matchResources.infrastructureCluster"),
            "true".into(),
            "selector is enabled but does not match the infrastructure ref",
        ));
    }
    if flag("controlPlane")
        && !matches(template_ref(class, "/spec/controlPlane"))
        && !matches(template_ref(class, "/spec/controlPlane/machineInfrastructure"))
    {
        errors.push(invalid(
            format!("{path}.matchResources.controlPlane"),
            "true".into(),
            "selector is enabled but matches neither the controlPlane ref nor the controlPlane machineInfrastructure ref",
        ));
    }
    for (key, list, word, selector_names) in [
        ("machineDeploymentClass", "machineDeployments", "MachineDeployment", &md_names),
        ("machinePoolClass", "machinePools", "MachinePool", &mp_names),
    ] {
        let classes = class.array_at(&format!("/spec/workers/{list}")).cloned().unwrap_or_default();
        for (i, name) in selector_names.iter().enumerate() {
            let at = format!("{path}.matchResources.{key}.names[{i}]");
            if name.contains('*') {
                let bad = if name.matches('*').count() > 1 {
                    Some("selector can at most contain a single \"*\" rune")
                } else if !name.starts_with('*') && !name.ends_with('*') {
                    Some("\"*\" rune can only appear at the beginning, or ending of the selector")
                } else if !is_qualified_name(&name.replace('*', "a")) {
                    Some("selector does not comply with the Kubernetes naming standards")
                } else {
                    None
                };
                if let Some(detail) = bad {
                    errors.push(invalid(at, quoted(name), detail));
                    break;
                }
            }
            let found = classes.iter().any(|c| {
                class_name_matches(name, c.get("class").and_then(Value::as_str).unwrap_or(""))
                    && worker_refs(c).into_iter().any(|r| matches(Some(r)))
            });
            if !found {
                errors.push(invalid(
                    at,
                    quoted(name),
                    format!("selector is enabled but matches neither the bootstrap ref nor the infrastructure ref of a {word} class"),
                ));
            }
        }
    }
    errors
}

fn class_name_matches(selector_name: &str, class: &str) -> bool {
    selector_name == "*"
        || selector_name == class
        || (selector_name.starts_with('*') && class.ends_with(&selector_name[1..]))
        || (selector_name.ends_with('*') && class.starts_with(&selector_name[..selector_name.len() - 1]))
}
