//! The fields of one ASO object carried into another API version of its kind, as ASO's generated conversions
//! carry them: through the storage versions to the hub and back, every property the destination version has is
//! assigned by name (a property an intermediate version lacks rides in that version's property bag and comes
//! back), everything the destination lacks is lost, and enum values are matched case-insensitively to the
//! destination's (`genruntime.ToEnum`). Driven by the destination version's structural schema.

use serde_json::{Map, Value};

use crate::json_pointer::escape_token;

/// A value the destination version cannot hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    /// Where in the source object.
    pub pointer: String,
    /// The value lost.
    pub value: Value,
    pub reason: DropReason,
}

/// Why a value is lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropReason {
    /// The destination version has no such property.
    NoSuchField,
    /// The destination version's property holds another type (`string`, `object`, ...).
    OtherType(String),
}

/// `value` (at `pointer` of the source object) as the destination's `schema` holds it, or `None` when nothing
/// of it is kept (a null, which ASO's Go types decode as absent, or a value of another type, noted in
/// `dropped`).
pub fn copy(value: &Value, schema: &Value, pointer: &str, dropped: &mut Vec<Dropped>) -> Option<Value> {
    if value.is_null() {
        return None;
    }
    let flag = |name: &str| schema.get(name).and_then(Value::as_bool) == Some(true);
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties");
    if flag("x-kubernetes-preserve-unknown-fields") && properties.is_none() && additional.is_none() {
        return Some(value.clone());
    }
    if flag("x-kubernetes-int-or-string") {
        return match value {
            Value::String(_) | Value::Number(_) => Some(value.clone()),
            _ => other_type(value, "integer or string", pointer, dropped),
        };
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    match (ty, value) {
        ("object", Value::Object(map)) => {
            Some(Value::Object(copy_object(map, properties, additional, pointer, dropped)))
        }
        ("array", Value::Array(items)) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            let kept = items
                .iter()
                .enumerate()
                .filter_map(|(index, item)| copy(item, item_schema, &format!("{pointer}/{index}"), dropped))
                .collect();
            Some(Value::Array(kept))
        }
        ("string", Value::String(text)) => Some(Value::String(enum_value(text, schema))),
        ("integer", Value::Number(number)) if number.is_i64() || number.is_u64() => Some(value.clone()),
        ("number", Value::Number(_)) | ("boolean", Value::Bool(_)) => Some(value.clone()),
        ("", _) => Some(value.clone()),
        (ty, _) => other_type(value, ty, pointer, dropped),
    }
}

fn other_type(value: &Value, expected: &str, pointer: &str, dropped: &mut Vec<Dropped>) -> Option<Value> {
    dropped.push(Dropped {
        pointer: pointer.to_string(),
        value: value.clone(),
        reason: DropReason::OtherType(expected.to_string()),
    });
    None
}

fn copy_object(
    map: &Map<String, Value>,
    properties: Option<&Map<String, Value>>,
    additional: Option<&Value>,
    pointer: &str,
    dropped: &mut Vec<Dropped>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, child) in map {
        let at = format!("{pointer}/{}", escape_token(key));
        let child_schema = match (properties.and_then(|p| p.get(key)), additional) {
            (Some(schema), _) => Some(schema),
            (None, Some(schema @ Value::Object(_))) => Some(schema),
            (None, Some(Value::Bool(true))) => Some(&Value::Null),
            _ if properties.is_none() && additional.is_none() => Some(&Value::Null),
            _ => None,
        };
        match child_schema {
            Some(schema) => {
                if let Some(kept) = copy(child, schema, &at, dropped) {
                    out.insert(key.clone(), kept);
                }
            }
            None if child.is_null() => {}
            None => dropped.push(Dropped { pointer: at, value: child.clone(), reason: DropReason::NoSuchField }),
        }
    }
    out
}

/// `text` as the destination's enum spells it, when it names one of its values in another case
/// (`genruntime.ToEnum`); otherwise unchanged, as ASO keeps a value it does not know.
fn enum_value(text: &str, schema: &Value) -> String {
    let values = schema.get("enum").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    for value in values {
        if value == text {
            return text.to_string();
        }
    }
    let lower = text.to_lowercase();
    schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|value| value.to_lowercase() == lower)
        .unwrap_or(text)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(value: Value, schema: Value) -> (Option<Value>, Vec<Dropped>) {
        let mut dropped = Vec::new();
        let out = copy(&value, &schema, "/spec", &mut dropped);
        (out, dropped)
    }

    #[test]
    fn properties_the_destination_lacks_are_dropped_with_their_values() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "nested": {"type": "object", "properties": {"keep": {"type": "integer"}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "boolean"}}}}
        }});
        let value = json!({"a": "x", "gone": 3, "nested": {"keep": 1, "lost": "y"}, "list": [{"x": true, "z": 1}]});
        let (out, dropped) = run(value, schema);
        assert_eq!(out, Some(json!({"a": "x", "nested": {"keep": 1}, "list": [{"x": true}]})));
        let pointers: Vec<&str> = dropped.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(pointers, ["/spec/gone", "/spec/nested/lost", "/spec/list/0/z"]);
        assert_eq!(dropped[0].value, json!(3));
        assert_eq!(dropped[0].reason, DropReason::NoSuchField);
    }

    #[test]
    fn maps_free_form_values_and_nulls() {
        let schema = json!({"type": "object", "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "config": {"x-kubernetes-preserve-unknown-fields": true},
            "port": {"x-kubernetes-int-or-string": true},
            "count": {"type": "integer"}
        }});
        let value = json!({"tags": {"a": "b"}, "config": {"any": [1, {"x": null}]}, "port": "80", "count": null});
        let (out, dropped) = run(value, schema);
        assert_eq!(out, Some(json!({"tags": {"a": "b"}, "config": {"any": [1, {"x": null}]}, "port": "80"})));
        assert!(dropped.is_empty());
    }

    #[test]
    fn enum_values_take_the_destinations_spelling_and_other_types_are_dropped() {
        let schema = json!({"type": "object", "properties": {
            "tier": {"type": "string", "enum": ["Free", "Standard"]},
            "mode": {"type": "string", "enum": ["System"]},
            "size": {"type": "integer"}
        }});
        let (out, dropped) = run(json!({"tier": "standard", "mode": "User", "size": "big"}), schema);
        assert_eq!(out, Some(json!({"tier": "Standard", "mode": "User"})));
        assert_eq!(dropped[0].reason, DropReason::OtherType("integer".into()));
    }
}
