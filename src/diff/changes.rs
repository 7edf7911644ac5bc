//! Structured comparison of two JSON values: changes as (path, before, after), lists matched by
//! identity (embedded objects by kind.group/name, items by name/key/id) instead of by index,
//! and alignment of the second value onto the first so a text diff shows only real changes.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json_pointer::At;

/// One difference between live and merged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// Where: `spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.dnsPrefix`;
    /// "" for the whole object.
    pub path: String,
    /// Live value; `None` when the field is added.
    pub before: Option<Value>,
    /// Merged value; `None` when the field is removed.
    pub after: Option<Value>,
    /// Field managers other than the diff's own that own this field (or an atomic ancestor, or a
    /// field inside it) in the live object: applying for real would take it from them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub managers: Vec<String>,
}

/// All changes from `before` to `after`, in document order. `schema` (the kind's structural
/// OpenAPI schema, if known) supplies `x-kubernetes-list-map-keys` for matching list items.
pub fn changes(before: &Value, after: &Value, schema: Option<&Value>) -> Vec<Change> {
    let mut out = Vec::new();
    walk(before, after, schema, &mut String::new(), &mut out);
    out
}

/// The schema of field `key` of an object with schema `schema`.
fn child_schema<'a>(schema: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    let schema = schema?;
    schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
}

/// The schema of the items of a list with schema `schema`.
fn items_schema(schema: Option<&Value>) -> Option<&Value> {
    schema?.get("items").filter(|i| i.is_object())
}

fn push(out: &mut Vec<Change>, path: &str, before: Option<&Value>, after: Option<&Value>) {
    out.push(Change { path: path.to_string(), before: before.cloned(), after: after.cloned(), managers: Vec::new() });
}

fn walk(before: &Value, after: &Value, schema: Option<&Value>, path: &mut String, out: &mut Vec<Change>) {
    if before == after {
        return;
    }
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, av) in a {
                let len = path.len();
                push_key(path, key);
                match b.get(key) {
                    Some(bv) => walk(av, bv, child_schema(schema, key), path, out),
                    None => push(out, path, Some(av), None),
                }
                path.truncate(len);
            }
            for (key, bv) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                let len = path.len();
                push_key(path, key);
                push(out, path, None, Some(bv));
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => match list_key(a, b, schema) {
            Some(key) => {
                let item_schema = items_schema(schema);
                for av in a {
                    let k = key.of(av);
                    let len = path.len();
                    path.push_str(&format!("[{k}]"));
                    match b.iter().find(|bv| key.of(bv) == k) {
                        Some(bv) => walk(av, bv, item_schema, path, out),
                        None => push(out, path, Some(av), None),
                    }
                    path.truncate(len);
                }
                for bv in b {
                    let k = key.of(bv);
                    if !a.iter().any(|av| key.of(av) == k) {
                        let len = path.len();
                        path.push_str(&format!("[{k}]"));
                        push(out, path, None, Some(bv));
                        path.truncate(len);
                    }
                }
            }
            None if a.iter().chain(b).all(|v| !v.is_object() && !v.is_array()) => {
                push(out, path, Some(before), Some(after));
            }
            None => {
                for i in 0..a.len().max(b.len()) {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    match (a.get(i), b.get(i)) {
                        (Some(av), Some(bv)) => walk(av, bv, items_schema(schema), path, out),
                        (av, bv) => push(out, path, av, bv),
                    }
                    path.truncate(len);
                }
            }
        },
        _ => push(out, path, Some(before), Some(after)),
    }
}

/// Appends `.key`, or `["key"]` when the key is not a plain identifier.
pub(crate) fn push_key(path: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push_str(&format!("[{}]", Value::String(key.to_string())));
    }
}

/// How the items of a list are identified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ListKey {
    /// Embedded Kubernetes objects (CAPZ `spec.resources`): `Kind.group/name`.
    Object,
    /// The schema's `x-kubernetes-list-map-keys`, or one scalar field unique in each list:
    /// `name`, `key` or `id` (dyff's order).
    Fields(Vec<String>),
}

impl ListKey {
    pub(crate) fn of(&self, item: &Value) -> String {
        match self {
            ListKey::Object => {
                let kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
                let api_version = item.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
                let name = item.str_at("/metadata/name").unwrap_or("");
                if group.is_empty() { format!("{kind}/{name}") } else { format!("{kind}.{group}/{name}") }
            }
            ListKey::Fields(fields) => fields
                .iter()
                .map(|field| match item.get(field.as_str()) {
                    Some(Value::String(s)) => format!("{field}={s}"),
                    Some(other) => format!("{field}={other}"),
                    None => format!("{field}="),
                })
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

/// The identity to match the items of two lists by: the schema's list-map keys, else one that
/// every item has and that is unique.
pub(crate) fn list_key(a: &[Value], b: &[Value], schema: Option<&Value>) -> Option<ListKey> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    if let Some(schema) = schema
        && schema.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map")
        && let Some(keys) = schema.get("x-kubernetes-list-map-keys").and_then(Value::as_array)
    {
        let keys: Vec<String> = keys.iter().filter_map(Value::as_str).map(str::to_string).collect();
        if !keys.is_empty() && a.iter().chain(b).all(Value::is_object) {
            return Some(ListKey::Fields(keys));
        }
    }
    let unique = |key: &ListKey, items: &[Value]| {
        let mut seen = std::collections::BTreeSet::new();
        items.iter().all(|v| seen.insert(key.of(v)))
    };
    let is_object = |v: &Value| {
        v.get("apiVersion").is_some_and(Value::is_string)
            && v.get("kind").is_some_and(Value::is_string)
            && v.pointer("/metadata/name").is_some_and(Value::is_string)
    };
    if a.iter().chain(b).all(is_object) && unique(&ListKey::Object, a) && unique(&ListKey::Object, b) {
        return Some(ListKey::Object);
    }
    for field in ["name", "key", "id"] {
        let has = |v: &Value| v.get(field).is_some_and(|f| f.is_string() || f.is_number());
        let key = ListKey::Fields(vec![field.to_string()]);
        if a.iter().chain(b).all(has) && unique(&key, a) && unique(&key, b) {
            return Some(key);
        }
    }
    None
}

/// `after` rearranged to follow `before`: object keys in `before`'s order (new keys last) and
/// identified list items in `before`'s order (new items last). Values are unchanged.
pub fn align(before: &Value, after: &Value, schema: Option<&Value>) -> Value {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = Map::new();
            for (key, av) in a {
                if let Some(bv) = b.get(key) {
                    out.insert(key.clone(), align(av, bv, child_schema(schema, key)));
                }
            }
            for (key, bv) in b {
                if !a.contains_key(key) {
                    out.insert(key.clone(), bv.clone());
                }
            }
            Value::Object(out)
        }
        (Value::Array(a), Value::Array(b)) => match list_key(a, b, schema) {
            Some(key) => {
                let item_schema = items_schema(schema);
                let mut out = Vec::with_capacity(b.len());
                for av in a {
                    let k = key.of(av);
                    if let Some(bv) = b.iter().find(|bv| key.of(bv) == k) {
                        out.push(align(av, bv, item_schema));
                    }
                }
                for bv in b {
                    let k = key.of(bv);
                    if !a.iter().any(|av| key.of(av) == k) {
                        out.push(bv.clone());
                    }
                }
                Value::Array(out)
            }
            None => Value::Array(
                b.iter()
                    .enumerate()
                    .map(|(i, bv)| a.get(i).map_or_else(|| bv.clone(), |av| align(av, bv, items_schema(schema))))
                    .collect(),
            ),
        },
        _ => after.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mc(name: &str, dns: &str) -> Value {
        json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
               "metadata": {"name": name}, "spec": {"dnsPrefix": dns}})
    }
    fn rg(name: &str) -> Value {
        json!({"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
               "metadata": {"name": name}, "spec": {"location": "westeurope"}})
    }

    #[test]
    fn embedded_resources_match_by_kind_group_and_name_not_index() {
        let live = json!({"spec": {"resources": [rg("c1"), mc("c1", "a")]}});
        let reordered = json!({"spec": {"resources": [mc("c1", "a"), rg("c1")]}});
        assert_eq!(changes(&live, &reordered, None), vec![]);
        let changed = json!({"spec": {"resources": [mc("c1", "b"), rg("c1")]}});
        assert_eq!(
            changes(&live, &changed, None),
            vec![Change {
                path: "spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.dnsPrefix".into(),
                before: Some(json!("a")),
                after: Some(json!("b")),
                managers: vec![],
            }]
        );
    }

    #[test]
    fn same_kind_in_another_group_is_another_item() {
        let mut other = mc("c1", "a");
        other["apiVersion"] = json!("example.com/v1");
        let c = changes(&json!([mc("c1", "a")]), &json!([other]), None);
        let paths: Vec<&str> = c.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["[ManagedCluster.containerservice.azure.com/c1]", "[ManagedCluster.example.com/c1]"]);
        assert!(c[0].after.is_none() && c[1].before.is_none());
    }

    #[test]
    fn named_items_match_by_name_and_unnamed_by_index() {
        let a = json!({"c": [{"name": "x", "v": 1}, {"name": "y", "v": 2}]});
        let b = json!({"c": [{"name": "y", "v": 3}, {"name": "x", "v": 1}]});
        let c = changes(&a, &b, None);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].path, "c[name=y].v");
        let a = json!({"c": [{"v": 1}, {"v": 2}]});
        let b = json!({"c": [{"v": 2}, {"v": 1}]});
        let paths: Vec<String> = changes(&a, &b, None).into_iter().map(|c| c.path).collect();
        assert_eq!(paths, ["c[0].v", "c[1].v"]);
    }

    #[test]
    fn duplicate_names_fall_back_to_positions() {
        let a = json!([{"name": "x", "v": 1}, {"name": "x", "v": 2}]);
        assert_eq!(list_key(a.as_array().unwrap(), a.as_array().unwrap(), None), None);
    }

    #[test]
    fn scalar_lists_change_as_a_whole_and_odd_keys_are_quoted() {
        let a = json!({"metadata": {"annotations": {"a.io/x": "1"}}, "args": ["a", "b"]});
        let b = json!({"metadata": {"annotations": {"a.io/x": "2"}}, "args": ["b", "a"]});
        let paths: Vec<String> = changes(&a, &b, None).into_iter().map(|c| c.path).collect();
        assert_eq!(paths, [r#"metadata.annotations["a.io/x"]"#, "args"]);
    }

    #[test]
    fn added_and_removed_fields() {
        let c = changes(&json!({"a": 1, "b": 2}), &json!({"b": 2, "c": 3}), None);
        assert_eq!(c[0], Change { path: "a".into(), before: Some(json!(1)), after: None, managers: vec![] });
        assert_eq!(c[1], Change { path: "c".into(), before: None, after: Some(json!(3)), managers: vec![] });
    }

    #[test]
    fn schema_list_map_keys_win_over_heuristics() {
        let schema = json!({"type": "object", "properties": {"ports": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}});
        let a = json!({"ports": [{"containerPort": 80, "protocol": "TCP", "name": "web"},
                                 {"containerPort": 80, "protocol": "UDP", "name": "web"}]});
        let b = json!({"ports": [{"containerPort": 80, "protocol": "UDP", "name": "web"},
                                 {"containerPort": 80, "protocol": "TCP", "name": "http"}]});
        let c = changes(&a, &b, Some(&schema));
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].path, "ports[containerPort=80,protocol=TCP].name");
        // Without the schema, duplicate names force positional matching.
        let paths: Vec<String> = changes(&a, &b, None).into_iter().map(|c| c.path).collect();
        assert_eq!(paths, ["ports[0].protocol", "ports[1].protocol", "ports[1].name"]);
        let aligned = align(&a, &b, Some(&schema));
        assert_eq!(aligned["ports"][0]["protocol"], json!("TCP"));
    }

    #[test]
    fn align_follows_the_live_order() {
        let live = json!({"spec": {"resources": [rg("c1"), mc("c1", "a")], "x": 1, "y": 2}});
        let merged = json!({"spec": {"y": 2, "resources": [mc("c1", "b"), rg("c1"), mc("c2", "c")], "x": 1}});
        let aligned = align(&live, &merged, None);
        assert_eq!(
            serde_json::to_string(&aligned).unwrap(),
            serde_json::to_string(
                &json!({"spec": {"resources": [rg("c1"), mc("c1", "b"), mc("c2", "c")], "x": 1, "y": 2}})
            )
            .unwrap()
        );
        assert!(changes(&merged, &aligned, None).is_empty(), "alignment must not change values");
    }
}
