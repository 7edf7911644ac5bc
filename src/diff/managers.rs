//! Who else owns a changed field: the live object's `managedFields` (server-side apply's field
//! sets, `fieldsV1`) read back onto the paths of [`Change`](super::Change)s.
//!
//! A forced dry run takes nothing over, but applying for real would: naming the managers that own
//! a changed field today (`capz-manager`, `kustomize-controller`, a `kubectl patch`) tells the user
//! who will fight over it.

use std::collections::BTreeSet;

use serde_json::Value;

/// One segment of a change path: an object key or a list item (`[name]`, `[3]`, `[Kind.group/name]`).
#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Item(String),
}

/// Splits `spec.resources[ManagedCluster.containerservice.azure.com/c1].spec["a.io/x"]` into
/// segments; `None` for text this module did not write.
fn segments(path: &str) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[\"") {
            // A quoted key: a JSON string up to the closing `"]`.
            let mut end = None;
            let mut escaped = false;
            for (i, c) in after.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => {
                        end = Some(i);
                        break;
                    }
                    _ => escaped = false,
                }
            }
            let end = end?;
            let key: String = serde_json::from_str(&format!("\"{}\"", &after[..end])).ok()?;
            out.push(Segment::Key(key));
            rest = after[end + 1..].strip_prefix(']')?;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            out.push(Segment::Item(after[..end].to_string()));
            rest = &after[end + 1..];
        } else {
            let rest_key = rest.strip_prefix('.').unwrap_or(rest);
            let end = rest_key.find(['.', '[']).unwrap_or(rest_key.len());
            out.push(Segment::Key(rest_key[..end].to_string()));
            rest = &rest_key[end..];
        }
    }
    Some(out)
}

/// Whether a `fieldsV1` list-item key (`k:{"name":"a"}`, `v:"x"`, `i:3`) is the item a change path
/// names: by index, by value, or every key value of `k:` found in the item's identity text.
fn item_matches(field: &str, item: &str) -> bool {
    if let Some(index) = field.strip_prefix("i:") {
        return index == item;
    }
    if let Some(value) = field.strip_prefix("v:") {
        let value: Value = serde_json::from_str(value).unwrap_or(Value::Null);
        return match &value {
            Value::String(s) => s == item,
            other => serde_json::from_str::<Value>(item).is_ok_and(|parsed| &parsed == other),
        };
    }
    if let Some(keys) = field.strip_prefix("k:") {
        let Ok(Value::Object(keys)) = serde_json::from_str::<Value>(keys) else { return false };
        let parts: Vec<&str> = item.split(['/', '.', ',', '=']).collect();
        return !keys.is_empty()
            && keys.values().all(|v| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                text == item || parts.contains(&text.as_str())
            });
    }
    false
}

/// Whether the field set `fields` (a `fieldsV1` tree) owns the field at `path`, an ancestor of it
/// that is atomic (a leaf of the set), or something inside it.
fn owns(fields: &Value, path: &[Segment]) -> bool {
    let Some(map) = fields.as_object() else { return false };
    let Some((first, rest)) = path.split_first() else {
        return true; // the path itself is in the set (as a leaf or with children)
    };
    let children: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| k.as_str() != ".").collect();
    if children.is_empty() {
        return false; // only `.`: the item's existence is owned, not the fields below it
    }
    match first {
        Segment::Key(key) => map.get(&format!("f:{key}")).is_some_and(|child| owns_child(child, rest)),
        Segment::Item(item) => {
            children.iter().filter(|(k, _)| item_matches(k, item)).any(|(_, child)| owns_child(child, rest))
        }
    }
}

/// A child of a field set: `{}` is a leaf (owned as a whole, atomic below).
fn owns_child(child: &Value, rest: &[Segment]) -> bool {
    match child.as_object() {
        Some(map) if map.is_empty() => true,
        Some(_) => owns(child, rest),
        None => false,
    }
}

/// The managers other than `ours` whose entry in `managed_fields` (the live object's
/// `metadata.managedFields`) owns the field at `path` (a [`Change`](super::Change) path; "" is the
/// whole object), sorted and deduplicated.
pub fn owners(managed_fields: &Value, path: &str, ours: &str) -> Vec<String> {
    let Some(segments) = segments(path) else { return Vec::new() };
    let mut out = BTreeSet::new();
    for entry in managed_fields.as_array().into_iter().flatten() {
        let Some(manager) = entry.get("manager").and_then(Value::as_str) else { continue };
        if manager == ours || entry.get("subresource").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
            continue; // status (and other subresources) never change through an apply of the object
        }
        if entry.get("fieldsV1").is_some_and(|fields| owns(fields, &segments)) {
            out.insert(manager.to_string());
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(manager: &str, fields: Value) -> Value {
        json!({"manager": manager, "operation": "Apply", "fieldsV1": fields})
    }

    #[test]
    fn paths_split_into_keys_and_items() {
        assert_eq!(
            segments(r#"spec.resources[ManagedCluster.containerservice.azure.com/c1].metadata.annotations["a.io/x"]"#),
            Some(vec![
                Segment::Key("spec".into()),
                Segment::Key("resources".into()),
                Segment::Item("ManagedCluster.containerservice.azure.com/c1".into()),
                Segment::Key("metadata".into()),
                Segment::Key("annotations".into()),
                Segment::Key("a.io/x".into()),
            ])
        );
        assert_eq!(segments(""), Some(vec![]));
    }

    #[test]
    fn owner_of_the_field_an_atomic_ancestor_or_a_child() {
        let managed = json!([
            entry("kustomize-controller", json!({"f:spec": {"f:location": {}, "f:resources": {}}})),
            entry("capz-manager", json!({"f:spec": {"f:replicas": {}}})),
            entry("kubectl-capz", json!({"f:spec": {"f:location": {}}})),
            json!({"manager": "ctrl", "operation": "Update", "subresource": "status",
                "fieldsV1": {"f:spec": {"f:location": {}}}}),
        ]);
        assert_eq!(owners(&managed, "spec.location", "kubectl-capz"), ["kustomize-controller"]);
        assert_eq!(owners(&managed, "spec.replicas", "kubectl-capz"), ["capz-manager"]);
        assert_eq!(
            owners(&managed, "spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.dnsPrefix", "x"),
            ["kustomize-controller"],
            "an atomic list is owned as a whole"
        );
        assert_eq!(owners(&managed, "spec", "kubectl-capz"), ["capz-manager", "kustomize-controller"]);
        assert!(owners(&managed, "spec.paused", "kubectl-capz").is_empty());
        assert!(owners(&managed, "metadata.labels", "kubectl-capz").is_empty());
    }

    #[test]
    fn list_items_match_by_key_value_or_index() {
        let managed = json!([entry(
            "flux",
            json!({"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": {".": {}, "f:image": {}}},
            "f:finalizers": {"v:\"a\"": {}}}})
        )]);
        assert_eq!(owners(&managed, "spec.containers[app].image", "me"), ["flux"]);
        assert!(owners(&managed, "spec.containers[other].image", "me").is_empty());
        assert!(owners(&managed, "spec.containers[app].command", "me").is_empty());
        assert_eq!(owners(&managed, "spec.containers[app]", "me"), ["flux"]);
        assert_eq!(owners(&managed, "spec.finalizers[a]", "me"), ["flux"]);
        assert!(item_matches("i:3", "3") && !item_matches("i:3", "4"));
    }
}
