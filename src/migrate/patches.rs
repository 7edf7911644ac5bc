//! `aso.PatchedParameters` as CAPZ applies `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches`:
//! each patch read as YAML and turned into JSON, merged in order into the generated object as an RFC 7386 JSON
//! merge patch (evanphx/json-patch's `MergePatch`), then decoded into ASO's Go type, which drops fields the type
//! does not have, nulls and empty maps and lists, and fails on a value of the wrong type.

use serde_json::{Map, Value};

use crate::json_pointer::At;
use crate::manifest::parse_plain_value;
use crate::schema::Gvk;
use crate::target_schemas::TargetSchemas;

/// A patch CAPZ cannot apply, with the index CAPZ's error names.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// The patch is not YAML (CAPZ: "failed to convert patch at index N to JSON").
    #[error("patch at index {index} is not valid YAML: {message}")]
    NotYaml { index: usize, message: String },
    /// The merged object no longer decodes as the ASO kind (CAPZ: "failed to decode object").
    #[error("patch at index {index} makes an object CAPZ cannot decode as {kind}: {message}")]
    Undecodable { index: usize, kind: String, message: String },
}

impl PatchError {
    /// The 0-based index of the patch in its list.
    pub fn index(&self) -> usize {
        match self {
            PatchError::NotYaml { index, .. } | PatchError::Undecodable { index, .. } => *index,
        }
    }
}

/// Removes nulls from objects (recursively, also inside arrays), as evanphx's `pruneNulls`.
fn prune_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(prune_nulls);
        }
        Value::Array(items) => items.iter_mut().filter(|v| !v.is_null()).for_each(prune_nulls),
        _ => {}
    }
}

/// RFC 7386 merge of `patch` into `target`, with evanphx/json-patch's details.
fn merge(target: &mut Value, patch: &Value) {
    let Some(patch_map) = patch.as_object() else {
        let mut replacement = patch.clone();
        if replacement.is_array() {
            prune_nulls(&mut replacement);
        }
        *target = replacement;
        return;
    };
    let Some(target_map) = target.as_object_mut() else {
        let mut replacement = patch.clone();
        prune_nulls(&mut replacement);
        *target = replacement;
        return;
    };
    merge_maps(target_map, patch_map);
}

fn merge_maps(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        if value.is_null() {
            target.remove(key);
            continue;
        }
        match target.get_mut(key) {
            Some(current) if !current.is_null() => {
                if current.is_object() && value.is_object() {
                    merge_maps(current.as_object_mut().expect("object"), value.as_object().expect("object"));
                } else if current.is_object() {
                    *current = value.clone();
                } else {
                    let mut replacement = value.clone();
                    prune_nulls(&mut replacement);
                    *current = replacement;
                }
            }
            _ => {
                let mut replacement = value.clone();
                prune_nulls(&mut replacement);
                target.insert(key.clone(), replacement);
            }
        }
    }
}

fn kind_schema(
    api_version: &str,
    kind: &str,
    schemas: &TargetSchemas,
) -> Option<std::sync::Arc<crate::schema::KindSchema>> {
    let (group, version) = crate::manifest::split_api_version(api_version);
    schemas.registry().get(&Gvk::new(group, version, kind)).ok().flatten()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Decodes `value` as Go's `encoding/json` would into the type `schema` describes and marshals it back:
/// unknown fields and nulls go, empty maps and lists go (`omitempty`), a wrong type is an error.
fn decode_like_go(value: &mut Value, schema: &Value, path: &str) -> Result<(), String> {
    let declared = schema.get("type").and_then(Value::as_str);
    let ok = match (declared, &*value) {
        (Some("boolean"), Value::Bool(_)) | (Some("string"), Value::String(_)) => true,
        (Some("integer"), Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Some("number"), Value::Number(_)) => true,
        (Some("array"), Value::Array(_)) | (Some("object"), Value::Object(_)) => true,
        (None, _) => true,
        _ => false,
    };
    if !ok {
        return Err(format!(
            "{path}: cannot put a {} into a field of type {}",
            type_name(value),
            declared.unwrap_or("?")
        ));
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            let preserve = schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let child_schema = properties.and_then(|p| p.get(&key)).or(additional);
                let child_path = format!("{path}.{key}");
                match child_schema {
                    None if preserve || (properties.is_none() && additional.is_none()) => {}
                    None => {
                        map.remove(&key);
                    }
                    Some(child_schema) => {
                        let child = map.get_mut(&key).expect("key present");
                        if child.is_null() {
                            map.remove(&key);
                            continue;
                        }
                        decode_like_go(child, child_schema, &child_path)?;
                        let is_map_type = child_schema.get("additionalProperties").is_some();
                        let empty = match &*child {
                            Value::Array(items) => items.is_empty(),
                            Value::Object(m) => m.is_empty() && is_map_type,
                            _ => false,
                        };
                        if empty {
                            map.remove(&key);
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    decode_like_go(item, item_schema, &format!("{path}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn decode_metadata(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in ["labels", "annotations"] {
            if metadata.get(key).is_some_and(|v| v.is_null() || v.as_object().is_some_and(Map::is_empty)) {
                metadata.remove(key);
            }
        }
    }
}

/// Applies `patches` in order to `object` (an ASO object with `apiVersion` and `kind`) as CAPZ does.
/// Without patches the object is returned unchanged (CAPZ does not decode it then; taken by value, so the
/// translation's unpatched objects are not copied). The object is decoded with `target`'s schema of its kind.
pub fn apply_merge_patches(object: Value, patches: &[String], schemas: &TargetSchemas) -> Result<Value, PatchError> {
    if patches.is_empty() {
        return Ok(object);
    }
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let mut merged = object;
    let mut last_non_object: Option<usize> = None;
    for (index, text) in patches.iter().enumerate() {
        let patch =
            parse_plain_value(text, "the patch").map_err(|e| PatchError::NotYaml { index, message: e.to_string() })?;
        merge(&mut merged, &patch);
        if !merged.is_object() && last_non_object.is_none() {
            last_non_object = Some(index);
        }
    }
    let last = patches.len() - 1;
    let undecodable = |index: usize, message: String| PatchError::Undecodable { index, kind: kind.clone(), message };
    if !merged.is_object() {
        return Err(undecodable(last_non_object.unwrap_or(last), "the result is not an object".into()));
    }
    if merged.get("apiVersion").and_then(Value::as_str) != Some(&api_version)
        || merged.get("kind").and_then(Value::as_str) != Some(&kind)
    {
        return Err(undecodable(last, "a patch changes apiVersion or kind".into()));
    }
    if let Some(schema) = kind_schema(&api_version, &kind, schemas) {
        let no_schema = serde_json::json!({});
        let spec_schema = schema.schema.at("/properties/spec").filter(|s| !s.is_null()).unwrap_or(&no_schema);
        if let Some(spec) = merged.get_mut("spec") {
            if spec.is_null() {
                merged.as_object_mut().expect("object").remove("spec");
            } else {
                decode_like_go(spec, spec_schema, "spec").map_err(|message| undecodable(last, message))?;
            }
        }
    }
    decode_metadata(&mut merged);
    if let Some(map) = merged.as_object_mut() {
        map.remove("status");
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merge_follows_rfc_7386() {
        let mut target = json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge(&mut target, &json!({"a": {"b": null, "e": {"f": null, "g": 1}}, "d": [2]}));
        assert_eq!(target, json!({"a": {"c": 2, "e": {"g": 1}}, "d": [2]}));
    }

    #[test]
    fn broken_yaml_names_the_index() {
        let object = json!({"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "spec": {}});
        let err = apply_merge_patches(
            object,
            &["{}".into(), "spec: [".into()],
            TargetSchemas::builtin(crate::versions::default_target()),
        )
        .unwrap_err();
        assert_eq!(err.index(), 1);
    }
}
