//! JSON field moves shared by the CAPI conversions: take a field, put it elsewhere at the same
//! place in key order, durations to seconds, object references to the v1beta2 shapes.

use serde_json::{Map, Number, Value};

use super::Context;
use crate::convert::ConvertError;

/// Removes `key` from `map`, returning its position and value.
pub(crate) fn take(map: &mut Map<String, Value>, key: &str) -> Option<(usize, Value)> {
    let position = map.keys().position(|k| k == key)?;
    map.shift_remove(key).map(|value| (position, value))
}

/// Removes `key`, treating `null` as absent.
pub(crate) fn take_some(map: &mut Map<String, Value>, key: &str) -> Option<(usize, Value)> {
    take(map, key).filter(|(_, value)| !value.is_null())
}

/// Sets `path` (one or more keys) below `map`; a missing first key is inserted at `position`,
/// deeper missing keys at the end of their object. Objects met on the way are merged into.
pub(crate) fn put(map: &mut Map<String, Value>, position: usize, path: &[&str], value: Value) {
    let (first, rest) = path.split_first().expect("a non-empty path");
    if rest.is_empty() {
        if map.contains_key(*first) {
            map.insert((*first).to_string(), value);
        } else {
            map.shift_insert(position.min(map.len()), (*first).to_string(), value);
        }
        return;
    }
    if !matches!(map.get(*first), Some(Value::Object(_))) {
        map.shift_remove(*first);
        map.shift_insert(position.min(map.len()), (*first).to_string(), Value::Object(Map::new()));
    }
    let Some(Value::Object(child)) = map.get_mut(*first) else { unreachable!("just inserted") };
    let end = child.len();
    put(child, end, rest, value);
}

/// Renames `from` to `path` in place (same position), when present.
pub(crate) fn rename(map: &mut Map<String, Value>, from: &str, path: &[&str]) {
    if let Some((position, value)) = take(map, from) {
        put(map, position, path, value);
    }
}

/// The object at `key`, if it is one.
pub(crate) fn object_mut<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// The objects of the list at `key` with their indexes.
pub(crate) fn items_mut<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = (usize, &'a mut Map<String, Value>)> {
    map.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flat_map(|items| items.iter_mut().enumerate())
        .filter_map(|(index, item)| item.as_object_mut().map(|object| (index, object)))
}

/// Removes `key` when it holds an empty object (Go's `omitzero` on a struct left empty).
pub(crate) fn drop_if_empty(map: &mut Map<String, Value>, key: &str) {
    if matches!(map.get(key), Some(Value::Object(object)) if object.is_empty()) {
        map.shift_remove(key);
    }
}

/// Removes `key` when it holds "" (a `*string` that becomes a `string` with `omitempty`).
pub(crate) fn drop_empty_string(map: &mut Map<String, Value>, key: &str) {
    if matches!(map.get(key), Some(Value::String(s)) if s.is_empty()) {
        map.shift_remove(key);
    }
}

/// Removes `key` when it is `false` (a `bool` that becomes a `*bool` CAPI leaves unset for false).
pub(crate) fn drop_false(map: &mut Map<String, Value>, key: &str) {
    if matches!(map.get(key), Some(Value::Bool(false))) {
        map.shift_remove(key);
    }
}

/// Sets `key` to `false` when absent (a `bool` that becomes a `*bool` through the generic
/// conversion, which keeps false).
pub(crate) fn default_false(map: &mut Map<String, Value>, key: &str) {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_string(), Value::Bool(false));
    }
}

/// Parses a Go duration (`1h30m`, `90s`, `1.5s`, `300ms`) into whole seconds, as
/// `metav1.Duration` and `ConvertToSeconds` do (truncated, capped at the int32 maximum).
pub(crate) fn duration_seconds(text: &str) -> Option<i64> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut nanos: f64 = 0.0;
    while !rest.is_empty() {
        let number_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number = &rest[..number_end];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return None;
        }
        rest = &rest[number_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_end..];
        nanos += number.parse::<f64>().ok()? * scale;
    }
    let seconds = (nanos / 1e9).trunc();
    let seconds = if negative { -seconds } else { seconds };
    Some((seconds as i64).clamp(i64::from(i32::MIN), i64::from(i32::MAX)))
}

impl Context {
    /// Moves the duration at `from` to `path` as seconds (`nodeDrainTimeout: 1m` becomes
    /// `deletion: {nodeDrainTimeoutSeconds: 60}`).
    pub(crate) fn move_seconds(
        &mut self,
        map: &mut Map<String, Value>,
        pointer: &str,
        from: &str,
        path: &[&str],
    ) -> Result<(), ConvertError> {
        if let Some((position, value)) = take_some(map, from) {
            let seconds = self.seconds(&value, &format!("{pointer}/{from}"))?;
            put(map, position, path, seconds);
        }
        Ok(())
    }

    /// A duration as seconds.
    /// A clusterctl variable (`${NODE_DRAIN_TIMEOUT}`) is carried over as it is: CAPI never sees
    /// unrendered templates, so there is no conversion to follow for it.
    pub(crate) fn seconds(&mut self, value: &Value, pointer: &str) -> Result<Value, ConvertError> {
        if value.as_str().is_some_and(super::typed::is_clusterctl_variable) {
            return Ok(value.clone());
        }
        let text = value
            .as_str()
            .ok_or_else(|| ConvertError::invalid(pointer, "a duration must be a string such as \"10m\""))?;
        let seconds = duration_seconds(text)
            .ok_or_else(|| ConvertError::invalid(pointer, &format!("`{text}` is not a duration such as \"10m\"")))?;
        Ok(Value::Number(Number::from(seconds)))
    }

    /// An `ObjectReference` as a v1beta2 `ContractVersionedObjectReference`
    /// (`apiVersion` becomes `apiGroup`; namespace, uid, resourceVersion and fieldPath are dropped).
    pub(crate) fn contract_ref(
        &mut self,
        value: &Value,
        pointer: &str,
        namespace: &str,
    ) -> Result<Value, ConvertError> {
        let mut out = Map::new();
        let reference = value.as_object().cloned().unwrap_or_default();
        let api_version = reference.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let group = api_group(api_version).ok_or_else(|| {
            ConvertError::invalid(&format!("{pointer}/apiVersion"), &format!("`{api_version}` is not an API version"))
        })?;
        for (key, value) in &reference {
            match key.as_str() {
                "apiVersion" if !group.is_empty() => {
                    out.insert("apiGroup".into(), Value::String(group.to_string()));
                }
                "kind" | "name" if value.as_str().is_some_and(|s| !s.is_empty()) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => self.warn_dropped_reference_field(pointer, key, value, namespace),
            }
        }
        Ok(Value::Object(out))
    }

    /// A `LocalObjectTemplate` (`{ref: ObjectReference}`) as a v1beta2 template reference
    /// (`{apiVersion, kind, name}`).
    pub(crate) fn template_ref(&mut self, value: &Value, pointer: &str, namespace: &str) -> Option<Value> {
        let reference = value.get("ref").filter(|r| !r.is_null())?;
        let mut out = Map::new();
        for (key, value) in reference.as_object().into_iter().flatten() {
            match key.as_str() {
                "apiVersion" | "kind" | "name" => {
                    if value.as_str().is_some_and(|s| !s.is_empty()) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                _ => self.warn_dropped_reference_field(&format!("{pointer}/ref"), key, value, namespace),
            }
        }
        Some(Value::Object(out))
    }

    fn warn_dropped_reference_field(&mut self, pointer: &str, key: &str, value: &Value, namespace: &str) {
        let empty = value.is_null() || value.as_str().is_some_and(str::is_empty);
        let same_namespace = key == "namespace" && value.as_str() == Some(namespace);
        if !empty && !same_namespace && !matches!(key, "apiVersion" | "kind" | "name") {
            self.dropped(&format!("{pointer}/{key}"), "v1beta2 references have no such field");
        }
    }
}

/// The group of an `apiVersion` (`""` for the core group), or None when it is malformed.
pub(crate) fn api_group(api_version: &str) -> Option<&str> {
    match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [_] => Some(""),
        [group, _] => Some(group),
        _ => None,
    }
}

/// Keys whose values are raw JSON in the Go types (`apiextensionsv1.JSON`: variable values,
/// schema defaults, examples and enums, JSON patch values) or `*string` (kubeadm arg values):
/// kept exactly as written.
const RAW_JSON_KEYS: [&str; 4] = ["value", "default", "example", "enum"];

/// Go maps (`map[string]…`): present means non-nil, their entries are data.
const MAP_KEYS: [&str; 8] =
    ["annotations", "attributes", "config", "featureGates", "labels", "properties", "settings", "matchLabels"];

/// Pointers to structs in the v1beta2 types: present means non-nil, written even when empty.
const POINTER_STRUCT_KEYS: [&str; 7] =
    ["additionalProperties", "items", "not", "external", "machineDeploymentClass", "machinePoolClass", "valueFrom"];

/// `*string` fields of the v1beta2 types: an empty string is kept.
const POINTER_STRING_KEYS: [&str; 2] = ["dataSecretName", "failureMessage"];

/// The integers of the v1beta2 spec types that are not pointers: 0 is their zero value.
const PLAIN_INT_KEYS: [&str; 8] = [
    "apiServerPort",
    "bindPort",
    "caCertificateValidityPeriodDays",
    "certificateValidityPeriodDays",
    "certificatesExpiryDays",
    "percentage",
    "port",
    "observedGeneration",
];

/// Drops what Go's typed round trip drops, as `encoding/json` marshals the v1beta2 types: nulls,
/// empty strings (`omitempty`, but not `*string`), empty lists (`omitempty` slices), empty maps,
/// and structs (`omitzero`) whose every field is the zero value — a struct holding a list, even an
/// empty one, is not zero and stays as `{}`. Raw JSON values are kept as written, and so are
/// empty `*[]T` lists ([`is_pointer_to_list`]). `metadata` of the object always stays.
pub(crate) fn prune_empty(value: &mut Value) {
    let drain_rule = value.get("kind").and_then(Value::as_str) == Some("MachineDrainRule");
    if let Value::Object(map) = value {
        prune_struct(map, "", drain_rule);
    }
}

/// MachineDrainRule's label selectors are `*metav1.LabelSelector`: an empty one (match all) stays.
const DRAIN_RULE_POINTER_KEYS: [&str; 3] = ["selector", "clusterSelector", "namespaceSelector"];

fn prune_struct(map: &mut Map<String, Value>, parent_key: &str, drain_rule: bool) {
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if RAW_JSON_KEYS.contains(&key.as_str()) {
            continue;
        }
        let pointer_struct = POINTER_STRUCT_KEYS.contains(&key.as_str())
            || (key == "controlPlane" && parent_key == "joinConfiguration")
            || (drain_rule && DRAIN_RULE_POINTER_KEYS.contains(&key.as_str()));
        let child = &map[&key];
        let drop = match child {
            Value::Null => true,
            Value::String(s) => s.is_empty() && !POINTER_STRING_KEYS.contains(&key.as_str()),
            Value::Number(n) => PLAIN_INT_KEYS.contains(&key.as_str()) && n.as_f64() == Some(0.0),
            Value::Bool(_) => false,
            Value::Array(items) => items.is_empty() && !is_pointer_to_list(&key, parent_key),
            Value::Object(object) if MAP_KEYS.contains(&key.as_str()) => object.is_empty(),
            Value::Object(_) if pointer_struct || (key == "metadata" && parent_key.is_empty()) => false,
            Value::Object(_) => is_zero(child, &key),
        };
        if drop {
            map.shift_remove(&key);
            continue;
        }
        match map.get_mut(&key) {
            Some(Value::Object(object)) if key == "properties" => {
                object.values_mut().filter_map(Value::as_object_mut).for_each(|schema| prune_struct(schema, "", false));
            }
            Some(Value::Object(_)) if MAP_KEYS.contains(&key.as_str()) => {}
            Some(Value::Object(object)) => prune_struct(object, &key, drain_rule),
            Some(Value::Array(items)) => {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    prune_struct(item, "", drain_rule);
                }
            }
            _ => {}
        }
    }
}

/// The `*[]T` fields of the v1beta2 types: an empty list is not the same as none and stays
/// (kubeadm `nodeRegistration.taints: []` means no taints at all, not even kubeadm's default).
fn is_pointer_to_list(key: &str, parent_key: &str) -> bool {
    (key == "taints" && parent_key == "nodeRegistration") || key == "extraEnvs"
}

/// Whether `value` (at `key`) is a Go zero value: a struct whose fields are all zero.
fn is_zero(value: &Value, key: &str) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty() && !POINTER_STRING_KEYS.contains(&key),
        Value::Number(n) => PLAIN_INT_KEYS.contains(&key) && n.as_f64() == Some(0.0),
        Value::Bool(_) | Value::Array(_) => false,
        Value::Object(_) if MAP_KEYS.contains(&key) || POINTER_STRUCT_KEYS.contains(&key) => false,
        Value::Object(map) => map.iter().all(|(k, v)| !RAW_JSON_KEYS.contains(&k.as_str()) && is_zero(v, k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_go_durations_truncated_to_seconds() {
        assert_eq!(duration_seconds("10m"), Some(600));
        assert_eq!(duration_seconds("1h30m"), Some(5400));
        assert_eq!(duration_seconds("1.9s"), Some(1));
        assert_eq!(duration_seconds("300ms"), Some(0));
        assert_eq!(duration_seconds("0"), Some(0));
        assert_eq!(duration_seconds("0s"), Some(0));
        assert_eq!(duration_seconds("1000000h"), Some(i64::from(i32::MAX)));
        assert_eq!(duration_seconds("10"), None);
        assert_eq!(duration_seconds("m"), None);
        assert_eq!(duration_seconds(""), None);
    }

    #[test]
    fn put_keeps_the_position_of_the_replaced_key() {
        let mut map: Map<String, Value> = serde_json::from_str(r#"{"a":1,"old":"10s","b":2}"#).unwrap();
        rename(&mut map, "old", &["new", "inner"]);
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":1,"new":{"inner":"10s"},"b":2}"#);
    }

    #[test]
    fn pruning_follows_go_omitempty_and_omitzero() {
        let mut value: Value = serde_json::from_str(
            r#"{"metadata":{},"spec":{"a":"","b":null,"c":[],"d":{"e":""},"f":{"g":[]},"labels":{},
               "dataSecretName":"","port":0,"replicas":0,"value":{}}}"#,
        )
        .unwrap();
        prune_empty(&mut value);
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"metadata":{},"spec":{"f":{},"dataSecretName":"","replicas":0,"value":{}}}"#
        );
    }
}
