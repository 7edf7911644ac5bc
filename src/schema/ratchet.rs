//! CRD validation ratcheting, as the API server applies it on an update (KEP-4008: on by default since Kubernetes
//! 1.30, GA in 1.33): a schema or CEL error raised at a value the stored object already had is forgiven, and the CEL
//! transition rules (`oldSelf`) run only where the new object's value has a stored counterpart.
//!
//! The stored counterpart is found as apiextensions-apiserver's `common.CorrelatedObject` finds it: an object's
//! property by name (where the schema declares it, or has an `additionalProperties` schema), a list item only in an
//! `x-kubernetes-list-type: map` list, by its keys; every other list item has none. An error is forgiven when the
//! deepest node of its path that has a counterpart equals it (`CachedDeepEqual`: map lists compared by key,
//! properties without a schema never equal). Not forgiven: errors at `apiVersion` and `kind`, metadata (validated
//! apart), and a duplicate in a set or map list unless the stored object had one too (then none is checked).

use serde_json::Value;

use crate::json_pointer::unescape_token;

/// Where an error is raised: the node whose validation fails, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Raised<'a> {
    /// At this node (a JSON pointer into the object).
    At(&'a str),
    /// A duplicate in a set or map list: checked on update only when the stored object has none.
    ListUniqueness,
}

/// Whether the API server forgives, on updating `old` (as stored) to `new` (as admitted), an error `raised` by
/// `schema` (the kind's `openAPIV3Schema`). `old_has_duplicates`: the stored object already breaks a set or map list.
pub(crate) fn forgiven(schema: &Value, old: &Value, new: &Value, raised: Raised<'_>, old_has_duplicates: bool) -> bool {
    let pointer = match raised {
        Raised::ListUniqueness => return old_has_duplicates,
        Raised::At(pointer) => pointer,
    };
    let tokens: Vec<String> = pointer.split('/').skip(1).map(unescape_token).collect();
    if matches!(tokens.first().map(String::as_str), Some("apiVersion" | "kind")) {
        return false;
    }
    let (node, _) = deepest(Node { schema: Some(schema), old, new }, &tokens);
    deep_equal(node)
}

/// Whether the node at `pointer` of `new` has a stored counterpart all the way down (what a transition rule needs
/// to run).
pub(crate) fn correlates(schema: &Value, old: &Value, new: &Value, pointer: &str) -> bool {
    let tokens: Vec<String> = pointer.split('/').skip(1).map(unescape_token).collect();
    let (_, reached) = deepest(Node { schema: Some(schema), old, new }, &tokens);
    reached == tokens.len()
}

/// `old` arranged so that pairing by property name and list index (how kube-cel hands `oldSelf` down) pairs what
/// the API server pairs: the items of a map list put at the index of the new item with the same keys. A new item
/// without a counterpart gets itself as a stand-in; [`correlates`] tells the transition errors under it apart.
pub(crate) fn aligned_old(schema: &Value, old: &Value, new: &Value) -> Value {
    match (old, new) {
        (Value::Object(old_map), Value::Object(new_map)) => {
            let mut out = serde_json::Map::with_capacity(old_map.len());
            for (key, old_child) in old_map {
                let aligned = match (new_map.get(key), property_schema(Some(schema), key)) {
                    (Some(new_child), Some(child_schema)) => aligned_old(child_schema, old_child, new_child),
                    _ => old_child.clone(),
                };
                out.insert(key.clone(), aligned);
            }
            Value::Object(out)
        }
        (Value::Array(old_items), Value::Array(new_items)) => {
            let Some(keys) = map_list_keys(schema) else { return old.clone() };
            let item_schema = schema.get("items");
            let aligned = new_items.iter().map(|new_item| {
                match old_items.iter().find(|old_item| same_keys(&keys, old_item, new_item)) {
                    Some(old_item) => match item_schema {
                        Some(item_schema) => aligned_old(item_schema, old_item, new_item),
                        None => old_item.clone(),
                    },
                    None => new_item.clone(),
                }
            });
            Value::Array(aligned.collect())
        }
        _ => old.clone(),
    }
}

/// A node of the new object with its stored counterpart and its schema.
#[derive(Clone, Copy)]
struct Node<'a> {
    schema: Option<&'a Value>,
    old: &'a Value,
    new: &'a Value,
}

/// The deepest node along `tokens` that has a counterpart, and how many tokens deep it is.
fn deepest<'a>(mut node: Node<'a>, tokens: &[String]) -> (Node<'a>, usize) {
    for (depth, token) in tokens.iter().enumerate() {
        match child(node, token) {
            Some(next) => node = next,
            None => return (node, depth),
        }
    }
    (node, tokens.len())
}

/// The counterpart of `node`'s child `token` (`CorrelatedObject.Key` / `.Index`).
fn child<'a>(node: Node<'a>, token: &str) -> Option<Node<'a>> {
    let schema = node.schema?;
    match (node.old, node.new) {
        (Value::Object(old), Value::Object(new)) => {
            let (old_child, new_child) = (old.get(token)?, new.get(token)?);
            let child_schema = property_schema(Some(schema), token)?;
            Some(Node { schema: Some(child_schema), old: old_child, new: new_child })
        }
        (Value::Array(old), Value::Array(new)) => {
            let new_child = new.get(token.parse::<usize>().ok()?)?;
            let keys = map_list_keys(schema)?;
            let old_child = old.iter().find(|item| same_keys(&keys, item, new_child))?;
            Some(Node { schema: Some(schema.get("items")?), old: old_child, new: new_child })
        }
        _ => None,
    }
}

/// `CachedDeepEqual`: a map list's items compared with their counterparts by key, an object's properties only where
/// the schema has one for them.
fn deep_equal(node: Node<'_>) -> bool {
    match (node.old, node.new) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Array(old), Value::Array(new)) => {
            if old.len() != new.len() {
                return false;
            }
            let is_map_list = node.schema.is_some_and(|s| map_list_keys(s).is_some() && s.get("items").is_some());
            if !is_map_list {
                return old == new;
            }
            (0..new.len()).all(|i| child(node, &i.to_string()).is_some_and(deep_equal))
        }
        (Value::Object(old), Value::Object(new)) => {
            old.len() == new.len() && new.keys().all(|key| child(node, key).is_some_and(deep_equal))
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        (old, new) => old == new,
    }
}

/// The schema of property `key`: declared, or the `additionalProperties` schema.
fn property_schema<'a>(schema: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    let schema = schema?;
    if let Some(declared) = schema.get("properties").and_then(|p| p.get(key)) {
        return Some(declared);
    }
    schema.get("additionalProperties").filter(|s| s.is_object())
}

/// The keys of an `x-kubernetes-list-type: map` list.
fn map_list_keys(schema: &Value) -> Option<Vec<&str>> {
    if schema.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
        return None;
    }
    let keys = schema.get("x-kubernetes-list-map-keys")?.as_array()?;
    Some(keys.iter().filter_map(Value::as_str).collect())
}

fn same_keys(keys: &[&str], a: &Value, b: &Value) -> bool {
    keys.iter().all(|key| a.get(key) == b.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "apiVersion": {"type": "string"},
            "spec": {"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "string"},
                "pools": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}},
                "tags": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}})
    }

    #[test]
    fn an_unchanged_value_is_forgiven_a_changed_one_is_not() {
        let old = json!({"spec": {"a": "bad", "b": "x"}});
        let new = json!({"spec": {"a": "bad", "b": "y"}});
        assert!(forgiven(&schema(), &old, &new, Raised::At("/spec/a"), false));
        assert!(!forgiven(&schema(), &old, &new, Raised::At("/spec/b"), false));
        // The object holding both changed: an error it raises (a missing required field) stands.
        assert!(!forgiven(&schema(), &old, &new, Raised::At("/spec"), false));
        assert!(!forgiven(&schema(), &old, &new, Raised::At("/apiVersion"), false));
    }

    #[test]
    fn map_list_items_pair_by_key_other_lists_only_as_a_whole() {
        let old = json!({"spec": {"pools": [{"name": "a", "size": 0}, {"name": "b", "size": 1}],
            "tags": [{"v": "bad"}, {"v": "x"}]}});
        let new = json!({"spec": {"pools": [{"name": "b", "size": 2}, {"name": "a", "size": 0}],
            "tags": [{"v": "bad"}, {"v": "y"}]}});
        assert!(forgiven(&schema(), &old, &new, Raised::At("/spec/pools/1/size"), false));
        assert!(!forgiven(&schema(), &old, &new, Raised::At("/spec/pools/0/size"), false));
        // An atomic list's item has no counterpart: the list changed, so nothing in it is forgiven.
        assert!(!forgiven(&schema(), &old, &new, Raised::At("/spec/tags/0/v"), false));
        let same_tags = json!({"spec": {"pools": [], "tags": [{"v": "bad"}, {"v": "x"}]}});
        assert!(forgiven(&schema(), &old, &same_tags, Raised::At("/spec/tags/0/v"), false));
        // A map list reordered is equal.
        let reordered = json!({"spec": {"pools": [{"name": "b", "size": 1}, {"name": "a", "size": 0}]}});
        let stored = json!({"spec": {"pools": [{"name": "a", "size": 0}, {"name": "b", "size": 1}]}});
        assert!(forgiven(&schema(), &stored, &reordered, Raised::At("/spec/pools"), false));
    }

    #[test]
    fn fields_without_a_schema_are_never_equal() {
        let old = json!({"spec": {"free": {"x": 1}}});
        assert!(!forgiven(&schema(), &old, &old.clone(), Raised::At("/spec/free"), false));
        let labels = json!({"spec": {"labels": {"k": "v"}}});
        assert!(forgiven(&schema(), &labels, &labels.clone(), Raised::At("/spec/labels/k"), false));
    }

    #[test]
    fn duplicates_are_checked_only_when_the_stored_object_had_none() {
        let old = json!({"spec": {}});
        assert!(forgiven(&schema(), &old, &old.clone(), Raised::ListUniqueness, true));
        assert!(!forgiven(&schema(), &old, &old.clone(), Raised::ListUniqueness, false));
    }

    #[test]
    fn old_is_aligned_by_map_keys_and_correlation_stops_at_other_lists() {
        let old = json!({"spec": {"pools": [{"name": "a", "size": 0}, {"name": "b", "size": 1}]}});
        let new = json!({"spec": {"pools": [{"name": "c", "size": 5}, {"name": "b", "size": 2}]}});
        let aligned = aligned_old(&schema(), &old, &new);
        assert_eq!(aligned, json!({"spec": {"pools": [{"name": "c", "size": 5}, {"name": "b", "size": 1}]}}));
        assert!(correlates(&schema(), &old, &new, "/spec/pools/1/size"));
        assert!(!correlates(&schema(), &old, &new, "/spec/pools/0/size"));
        let tags = json!({"spec": {"tags": [{"v": "a"}]}});
        assert!(correlates(&schema(), &tags, &tags, "/spec/tags"));
        assert!(!correlates(&schema(), &tags, &tags, "/spec/tags/0/v"));
    }
}
