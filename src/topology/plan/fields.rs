//! The JSON fields of objects: their group and kind, values written at a pointer, label maps merged as CAPI merges them.

use serde_json::{Map, Value, json};

use crate::json_pointer::At;
use crate::manifest::split_api_version;

pub(super) fn labels_of(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// `util.MergeMap`: the first map wins.
pub(super) fn merge_first_wins(first: &Map<String, Value>, second: &Map<String, Value>) -> Map<String, Value> {
    let mut out = second.clone();
    for (k, v) in first {
        out.insert(k.clone(), v.clone());
    }
    let mut sorted: Vec<(String, Value)> = out.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    sorted.into_iter().collect()
}

pub(super) fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

pub(super) fn group_kind(obj: &Value) -> String {
    let group = split_api_version(obj.str_at("/apiVersion").unwrap_or("")).0;
    let kind = obj.str_at("/kind").unwrap_or("");
    if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") }
}

pub(super) fn set_pointer(doc: &mut Value, pointer: &str, value: Value) {
    let mut current = doc;
    let tokens: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for (i, token) in tokens.iter().enumerate() {
        if !current.is_object() {
            *current = json!({});
        }
        let map = current.as_object_mut().expect("object");
        if i + 1 == tokens.len() {
            map.insert((*token).to_string(), value);
            return;
        }
        current = map.entry((*token).to_string()).or_insert_with(|| json!({}));
    }
}
