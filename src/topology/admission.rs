//! CAPI's admission of a ClusterClass and of a topology Cluster as a list of rejections (for
//! `validate`): the same checks `plan` runs before planning ([`super::webhooks`], variable values).

use serde_json::Value;

use super::variables::{self, VariableError};
use super::webhooks::{self, v1beta2_path_hint};
use crate::json_pointer::At;

/// One rejection: CAPI's field path and its message (path included, as CAPI prints it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// CAPI's field path (`spec.patches[1].definitions[0].selector`).
    pub path: String,
    pub message: String,
}

/// What CAPI's ClusterClass webhook rejects in `class`.
pub fn class_rejections(class: &Value) -> Vec<Rejection> {
    let mut out: Vec<Rejection> = webhooks::validate_class(class)
        .into_iter()
        .map(|e| Rejection { message: format!("{e}{}", v1beta2_path_hint(&e.path)), path: e.path })
        .collect();
    if out.is_empty()
        && let Err(e) = variables::definitions(class)
    {
        out.push(variable_rejection(e));
    }
    out
}

/// What CAPI's Cluster webhooks (defaulting, then validation against `class`) reject in the
/// topology Cluster `cluster`; nothing when the class itself is rejected (that is reported on it).
pub fn cluster_rejections(cluster: &Value, class: &Value) -> Vec<Rejection> {
    if !class_rejections(class).is_empty() {
        return Vec::new();
    }
    let Ok(defs) = variables::definitions(class) else { return Vec::new() };
    let class_name = class.str_at("/metadata/name").unwrap_or("");
    let class_ns = class.str_at("/metadata/namespace").unwrap_or("default");
    let class_label = format!("{class_ns}/{class_name}");
    let mut defaulted = cluster.clone();
    webhooks::default_cluster(&mut defaulted, &defs);
    let mut out = Vec::new();
    let mut values = vec![
        ("/spec/topology/variables".to_string(), "spec.topology.variables".to_string(), false),
        (
            "/spec/topology/controlPlane/variables/overrides".to_string(),
            "spec.topology.controlPlane.variables.overrides".to_string(),
            true,
        ),
    ];
    for key in ["machineDeployments", "machinePools"] {
        let count = defaulted.array_at(&format!("/spec/topology/workers/{key}")).map_or(0, Vec::len);
        for index in 0..count {
            values.push((
                format!("/spec/topology/workers/{key}/{index}/variables/overrides"),
                format!("spec.topology.workers.{key}[{index}].variables.overrides"),
                true,
            ));
        }
    }
    for (pointer, path, overrides) in values {
        if let Err(errors) = variables::resolve(&defs, defaulted.pointer(&pointer), &path, &class_label, overrides) {
            out.extend(errors.into_iter().map(variable_rejection));
        }
    }
    if defaulted.str_at("/spec/topology/version").unwrap_or("").is_empty() {
        out.push(Rejection {
            path: "spec.topology.version".into(),
            message: "spec.topology.version: Required value".into(),
        });
    } else {
        out.extend(
            webhooks::validate_cluster(&defaulted, class, class_name)
                .into_iter()
                .map(|e| Rejection { message: format!("{e}{}", v1beta2_path_hint(&e.path)), path: e.path }),
        );
    }
    out
}

fn variable_rejection(error: VariableError) -> Rejection {
    let path = match &error {
        VariableError::Undefined { path, .. }
        | VariableError::Duplicate { path, .. }
        | VariableError::Missing { path, .. }
        | VariableError::Invalid { path, .. }
        | VariableError::BadDefinition { path, .. }
        | VariableError::Lookup { path, .. } => path.clone(),
    };
    Rejection { path, message: error.to_string() }
}

/// The JSON pointer in `value` of a CAPI field path (`spec.variables[name].schema`,
/// `spec.patches[1].name`): `[key]` is the list item with that `name` (or `class`), else a map
/// key; a field that is not written (a default) gives the nearest one that is.
pub fn pointer_of(value: &Value, path: &str) -> String {
    let mut pointers = Vec::new();
    let mut pointer = String::new();
    let mut current = Some(value);
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    for segment in path.split('.') {
        let (field, key) = match segment.split_once('[') {
            Some((f, k)) => (f, Some(k.trim_end_matches(']'))),
            None => (segment, None),
        };
        pointer.push('/');
        pointer.push_str(&crate::json_pointer::escape_token(field));
        current = current.and_then(|c| c.get(field));
        pointers.push(pointer.clone());
        if let Some(key) = key {
            let index = key.parse::<usize>().ok().or_else(|| {
                current.and_then(Value::as_array).and_then(|items| {
                    items.iter().position(|x| {
                        text(x, "name").as_deref() == Some(key) || text(x, "class").as_deref() == Some(key)
                    })
                })
            });
            match index {
                Some(i) => {
                    pointer.push_str(&format!("/{i}"));
                    current = current.and_then(|c| c.get(i));
                }
                None => {
                    pointer.push_str(&format!("/{}", crate::json_pointer::escape_token(key)));
                    current = current.and_then(|c| c.get(key));
                }
            }
            pointers.push(pointer.clone());
        }
    }
    pointers.into_iter().rev().find(|p| value.pointer(p).is_some()).unwrap_or_default()
}
