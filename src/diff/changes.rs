//! Structured comparison of two JSON values: changes as (path, before, after), lists matched by
//! identity (embedded objects by kind.group/name, items by name/key/id) instead of by index,
//! and alignment of the second value onto the first so a text diff shows only real changes.

use serde::Serialize;
use serde_json::{Map, Value};

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
}

/// All changes from `before` to `after`, in document order.
pub fn changes(before: &Value, after: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    walk(before, after, &mut String::new(), &mut out);
    out
}

fn push(out: &mut Vec<Change>, path: &str, before: Option<&Value>, after: Option<&Value>) {
    out.push(Change { path: path.to_string(), before: before.cloned(), after: after.cloned() });
}

fn walk(before: &Value, after: &Value, path: &mut String, out: &mut Vec<Change>) {
    if before == after {
        return;
    }
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, av) in a {
                let len = path.len();
                push_key(path, key);
                match b.get(key) {
                    Some(bv) => walk(av, bv, path, out),
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
        (Value::Array(a), Value::Array(b)) => match list_key(a, b) {
            Some(key) => {
                for av in a {
                    let k = key.of(av);
                    let len = path.len();
                    path.push_str(&format!("[{k}]"));
                    match b.iter().find(|bv| key.of(bv) == k) {
                        Some(bv) => walk(av, bv, path, out),
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
                        (Some(av), Some(bv)) => walk(av, bv, path, out),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKey {
    /// Embedded Kubernetes objects (CAPZ `spec.resources`): `Kind.group/name`.
    Object,
    /// A scalar field unique in each list: `name`, `key` or `id` (dyff's order).
    Field(&'static str),
}

impl ListKey {
    pub(crate) fn of(self, item: &Value) -> String {
        match self {
            ListKey::Object => {
                let kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
                let api_version = item.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
                let name = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                if group.is_empty() { format!("{kind}/{name}") } else { format!("{kind}.{group}/{name}") }
            }
            ListKey::Field(field) => match item.get(field) {
                Some(Value::String(s)) => format!("{field}={s}"),
                Some(other) => format!("{field}={other}"),
                None => String::new(),
            },
        }
    }
}

/// The identity to match the items of two lists by, if every item has a unique one.
pub(crate) fn list_key(a: &[Value], b: &[Value]) -> Option<ListKey> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let unique = |key: ListKey, items: &[Value]| {
        let mut seen = std::collections::BTreeSet::new();
        items.iter().all(|v| seen.insert(key.of(v)))
    };
    let is_object = |v: &Value| {
        v.get("apiVersion").is_some_and(Value::is_string)
            && v.get("kind").is_some_and(Value::is_string)
            && v.pointer("/metadata/name").is_some_and(Value::is_string)
    };
    if a.iter().chain(b).all(is_object) && unique(ListKey::Object, a) && unique(ListKey::Object, b) {
        return Some(ListKey::Object);
    }
    for field in ["name", "key", "id"] {
        let has = |v: &Value| v.get(field).is_some_and(|f| f.is_string() || f.is_number());
        let key = ListKey::Field(field);
        if a.iter().chain(b).all(has) && unique(key, a) && unique(key, b) {
            return Some(key);
        }
    }
    None
}

/// `after` rearranged to follow `before`: object keys in `before`'s order (new keys last) and
/// identified list items in `before`'s order (new items last). Values are unchanged.
pub fn align(before: &Value, after: &Value) -> Value {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = Map::new();
            for (key, av) in a {
                if let Some(bv) = b.get(key) {
                    out.insert(key.clone(), align(av, bv));
                }
            }
            for (key, bv) in b {
                if !a.contains_key(key) {
                    out.insert(key.clone(), bv.clone());
                }
            }
            Value::Object(out)
        }
        (Value::Array(a), Value::Array(b)) => match list_key(a, b) {
            Some(key) => {
                let mut out = Vec::with_capacity(b.len());
                for av in a {
                    let k = key.of(av);
                    if let Some(bv) = b.iter().find(|bv| key.of(bv) == k) {
                        out.push(align(av, bv));
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
                b.iter().enumerate().map(|(i, bv)| a.get(i).map_or_else(|| bv.clone(), |av| align(av, bv))).collect(),
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
        assert_eq!(changes(&live, &reordered), vec![]);
        let changed = json!({"spec": {"resources": [mc("c1", "b"), rg("c1")]}});
        assert_eq!(
            changes(&live, &changed),
            vec![Change {
                path: "spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.dnsPrefix".into(),
                before: Some(json!("a")),
                after: Some(json!("b")),
            }]
        );
    }

    #[test]
    fn same_kind_in_another_group_is_another_item() {
        let mut other = mc("c1", "a");
        other["apiVersion"] = json!("example.com/v1");
        let c = changes(&json!([mc("c1", "a")]), &json!([other]));
        let paths: Vec<&str> = c.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["[ManagedCluster.containerservice.azure.com/c1]", "[ManagedCluster.example.com/c1]"]);
        assert!(c[0].after.is_none() && c[1].before.is_none());
    }

    #[test]
    fn named_items_match_by_name_and_unnamed_by_index() {
        let a = json!({"c": [{"name": "x", "v": 1}, {"name": "y", "v": 2}]});
        let b = json!({"c": [{"name": "y", "v": 3}, {"name": "x", "v": 1}]});
        let c = changes(&a, &b);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].path, "c[name=y].v");
        let a = json!({"c": [{"v": 1}, {"v": 2}]});
        let b = json!({"c": [{"v": 2}, {"v": 1}]});
        let paths: Vec<String> = changes(&a, &b).into_iter().map(|c| c.path).collect();
        assert_eq!(paths, ["c[0].v", "c[1].v"]);
    }

    #[test]
    fn duplicate_names_fall_back_to_positions() {
        let a = json!([{"name": "x", "v": 1}, {"name": "x", "v": 2}]);
        assert_eq!(list_key(a.as_array().unwrap(), a.as_array().unwrap()), None);
    }

    #[test]
    fn scalar_lists_change_as_a_whole_and_odd_keys_are_quoted() {
        let a = json!({"metadata": {"annotations": {"a.io/x": "1"}}, "args": ["a", "b"]});
        let b = json!({"metadata": {"annotations": {"a.io/x": "2"}}, "args": ["b", "a"]});
        let paths: Vec<String> = changes(&a, &b).into_iter().map(|c| c.path).collect();
        assert_eq!(paths, [r#"metadata.annotations["a.io/x"]"#, "args"]);
    }

    #[test]
    fn added_and_removed_fields() {
        let c = changes(&json!({"a": 1, "b": 2}), &json!({"b": 2, "c": 3}));
        assert_eq!(c[0], Change { path: "a".into(), before: Some(json!(1)), after: None });
        assert_eq!(c[1], Change { path: "c".into(), before: None, after: Some(json!(3)) });
    }

    #[test]
    fn align_follows_the_live_order() {
        let live = json!({"spec": {"resources": [rg("c1"), mc("c1", "a")], "x": 1, "y": 2}});
        let merged = json!({"spec": {"y": 2, "resources": [mc("c1", "b"), rg("c1"), mc("c2", "c")], "x": 1}});
        let aligned = align(&live, &merged);
        assert_eq!(
            serde_json::to_string(&aligned).unwrap(),
            serde_json::to_string(&json!({"spec": {"resources": [rg("c1"), mc("c1", "b"), mc("c2", "c")], "x": 1, "y": 2}}))
                .unwrap()
        );
        assert!(changes(&merged, &aligned).is_empty(), "alignment must not change values");
    }
}
