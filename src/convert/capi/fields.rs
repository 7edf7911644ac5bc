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
#[cfg(test)]
pub(crate) fn duration_seconds(text: &str) -> Option<i64> {
    crate::go_duration::parse(text).ok().map(|nanos| crate::go_duration::capi_whole_seconds(nanos).0)
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
        let nanos = crate::go_duration::parse(text)
            .map_err(|_| ConvertError::invalid(pointer, &format!("`{text}` is not a duration such as \"10m\"")))?;
        let (seconds, capped) = crate::go_duration::capi_whole_seconds(nanos);
        if nanos % 1_000_000_000 != 0 {
            self.dropped(pointer, &format!("v1beta2 counts whole seconds: `{text}` becomes {seconds}"));
        } else if capped {
            self.dropped(pointer, &format!("v1beta2 counts seconds in an int32: `{text}` becomes {seconds}"));
        }
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
        assert_eq!(duration_seconds("-5s"), Some(-5));
        assert_eq!(duration_seconds(".5s"), Some(0));
        assert_eq!(duration_seconds("3000000h"), None, "beyond an int64 of nanoseconds");
        assert_eq!(duration_seconds("10"), None);
        assert_eq!(duration_seconds("m"), None);
        assert_eq!(duration_seconds(""), None);
        // Go's float64 steps: the fraction of `0.999999999999999999m` is 59.999999999s, and Duration.Seconds()
        // rounds 16777216.999999999 up to 16777217 before the truncation.
        assert_eq!(duration_seconds("0.999999999999999999m"), Some(59));
        assert_eq!(duration_seconds("16777216.999999999s"), Some(16_777_217));
        assert_eq!(duration_seconds("-9223372036854775808ns"), Some(i64::from(i32::MIN)));
    }

    #[test]
    fn put_keeps_the_position_of_the_replaced_key() {
        let mut map: Map<String, Value> = serde_json::from_str(r#"{"a":1,"old":"10s","b":2}"#).unwrap();
        rename(&mut map, "old", &["new", "inner"]);
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":1,"new":{"inner":"10s"},"b":2}"#);
    }
}
