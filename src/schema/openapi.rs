//! The importer's OpenAPI v3 mode: the built-in kinds a kube-apiserver serves by default, read from
//! Kubernetes' published spec (`api/openapi-spec/v3/*.json` of the `k8s.io/kubernetes` module).
//!
//! Per served kind one [`KindSchema`] (`typed`: a Go type) with every `$ref` inlined, descriptions and
//! defaults dropped, `x-kubernetes-*` kept, `int32` bounds added, and the Go types' custom JSON forms
//! written the way the validator reads CRD schemas: `IntOrString` as `x-kubernetes-int-or-string`, `Quantity` as
//! a number or a string of the quantity syntax, free-form values (`RawExtension`, `JSON`) as
//! `x-kubernetes-preserve-unknown-fields`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{KindSchema, SchemaError};
use crate::json_pointer::At;

/// The quantity syntax (`resource.ParseQuantity`), as controller-gen writes it for `Quantity` fields.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

const REF_PREFIX: &str = "#/components/schemas/";

/// One created resource found in the spec's paths.
struct Resource {
    group: String,
    version: String,
    kind: String,
    plural: String,
    namespaced: bool,
    status_subresource: bool,
    component: String,
}

/// One input file of an OpenAPI import: its name, sha256 and how many kinds it brought.
pub type OpenApiInput = (String, String, usize);

/// Reads the spec directory `from` (the `*.json` files of `api/openapi-spec/v3`): one [`KindSchema`] per kind
/// kube-apiserver serves by default (sorted by group, version, kind), and the input files that brought kinds.
pub fn kind_schemas_from_openapi_dir(from: &Path) -> Result<(Vec<KindSchema>, Vec<OpenApiInput>), SchemaError> {
    let read_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SchemaError::Read { path, source }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(from)
        .map_err(read_err(from))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut inputs = Vec::new();
    let mut kinds: BTreeMap<(String, String, String), KindSchema> = BTreeMap::new();
    for file in &files {
        let bytes = std::fs::read(file).map_err(read_err(file))?;
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let spec: Value = serde_json::from_slice(&bytes).map_err(|err| SchemaError::InvalidCrd {
            location: file.display().to_string(),
            message: format!("not an OpenAPI document: {err}"),
        })?;
        let found = kind_schemas_from_openapi(&spec, &name)?;
        if !found.is_empty() {
            inputs.push((name, hex(&Sha256::digest(&bytes)), found.len()));
        }
        for kind in found {
            kinds.insert((kind.group.clone(), kind.version.clone(), kind.kind.clone()), kind);
        }
    }
    if kinds.is_empty() {
        return Err(SchemaError::InvalidCrd {
            location: from.display().to_string(),
            message: "no served kind found in the OpenAPI v3 documents".into(),
        });
    }
    Ok((kinds.into_values().collect(), inputs))
}

/// Whether kube-apiserver serves this group version by default: alpha and beta versions are off by
/// default (`pkg/controlplane/instance.go`: every beta of 1.36 is in `betaAPIGroupVersionsDisabledByDefault`).
fn served_by_default(version: &str) -> bool {
    !(version.contains("alpha") || version.contains("beta"))
}

/// The served kinds of one OpenAPI v3 document (one group version), `location` naming it in errors.
pub fn kind_schemas_from_openapi(spec: &Value, location: &str) -> Result<Vec<KindSchema>, SchemaError> {
    let components = spec.object_at("/components/schemas").cloned().unwrap_or_default();
    let mut out = Vec::new();
    for resource in resources(spec) {
        if !served_by_default(&resource.version) {
            continue;
        }
        let Some(component) = components.get(&resource.component) else {
            return Err(SchemaError::InvalidCrd {
                location: location.to_string(),
                message: format!("`{}` is referenced but not defined", resource.component),
            });
        };
        let mut stack = vec![resource.component.clone()];
        let mut schema = convert(component, &components, &mut stack);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            // The validator checks a resource's metadata with its own ObjectMeta rules.
            properties.insert("metadata".into(), json!({"type": "object"}));
        }
        out.push(KindSchema {
            group: resource.group,
            version: resource.version,
            kind: resource.kind,
            plural: resource.plural,
            scope: if resource.namespaced { "Namespaced" } else { "Cluster" }.into(),
            status_subresource: resource.status_subresource,
            deprecation_warning: None,
            cel: false,
            typed: true,
            status_omitted: false,
            defaults: Default::default(),
            schema,
        });
    }
    Ok(out)
}

/// Every resource the document lets a client create (a `post` on a collection path that is not a
/// subresource), with its plural, scope and whether it has a `status` subresource.
fn resources(spec: &Value) -> Vec<Resource> {
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (path, item) in paths {
        let Some(post) = item.get("post") else { continue };
        if post.get("x-kubernetes-action").and_then(Value::as_str) != Some("post") {
            continue;
        }
        let Some(gvk) = post.get("x-kubernetes-group-version-kind") else { continue };
        let field = |key: &str| gvk.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        // /api/v1/<plural>, /apis/<group>/<version>/<plural>, optionally with namespaces/{namespace}/.
        let rest = match segments.first() {
            Some(&"api") => &segments[2.min(segments.len())..],
            Some(&"apis") => &segments[3.min(segments.len())..],
            _ => continue,
        };
        let (namespaced, plural) = match rest {
            [plural] => (false, *plural),
            ["namespaces", "{namespace}", plural] => (true, *plural),
            _ => continue,
        };
        let component = post
            .str_at("/requestBody/content/*~1*/schema/$ref")
            .and_then(|r| r.strip_prefix(REF_PREFIX))
            .unwrap_or_default()
            .to_string();
        if component.is_empty() {
            continue;
        }
        let collection = path.as_str();
        let status_subresource = paths.contains_key(&format!("{collection}/{{name}}/status"));
        out.push(Resource {
            group: field("group"),
            version: field("version"),
            kind: field("kind"),
            plural: plural.to_string(),
            namespaced,
            status_subresource,
            component,
        });
    }
    out
}

/// The component named by a `$ref`, if the node is one (`$ref`, or `allOf` of a single `$ref`).
fn referenced(node: &Map<String, Value>) -> Option<&str> {
    let reference = match node.get("allOf") {
        Some(Value::Array(all)) if all.len() == 1 => all[0].get("$ref"),
        _ => node.get("$ref"),
    };
    reference.and_then(Value::as_str).and_then(|r| r.strip_prefix(REF_PREFIX))
}

/// `node` with references inlined (a reference back into `stack` becomes a free-form value) and the
/// keywords rewritten as the module doc says.
fn convert(node: &Value, components: &Map<String, Value>, stack: &mut Vec<String>) -> Value {
    let Some(map) = node.as_object() else { return node.clone() };
    if let Some(name) = referenced(map) {
        let target = match name {
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => json!({"x-kubernetes-int-or-string": true}),
            "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
                json!({"anyOf": [{"type": "number"}, {"type": "string"}], "pattern": QUANTITY_PATTERN})
            }
            _ if stack.iter().any(|s| s == name) => free_form(),
            _ => match components.get(name) {
                Some(component) => {
                    stack.push(name.to_string());
                    let converted = convert(component, components, stack);
                    stack.pop();
                    converted
                }
                None => free_form(),
            },
        };
        let mut merged = target.as_object().cloned().unwrap_or_default();
        for (key, value) in map {
            if key.starts_with("x-kubernetes-") && !matches!(key.as_str(), "x-kubernetes-group-version-kind") {
                merged.insert(key.clone(), value.clone());
            }
        }
        return Value::Object(merged);
    }
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "description" | "default" | "x-kubernetes-group-version-kind" | "x-kubernetes-action" => {}
            "properties" => {
                let properties: Map<String, Value> = value
                    .as_object()
                    .map(|p| p.iter().map(|(name, child)| (name.clone(), convert(child, components, stack))).collect())
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(properties));
            }
            "items" | "additionalProperties" if value.is_object() => {
                out.insert(key.clone(), convert(value, components, stack));
            }
            "allOf" | "anyOf" | "oneOf" => {
                let items = value.as_array().map(|a| a.iter().map(|s| convert(s, components, stack)).collect());
                out.insert(key.clone(), Value::Array(items.unwrap_or_default()));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    let typeless = !out.contains_key("type") && !out.keys().any(|k| matches!(k.as_str(), "allOf" | "anyOf" | "oneOf"));
    let open_object = out.get("type").and_then(Value::as_str) == Some("object")
        && !out.contains_key("properties")
        && !out.contains_key("additionalProperties");
    if typeless || open_object {
        // A Go type with its own JSON form (`{}` in the spec), or a free-form object (RawExtension).
        out.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
    }
    if out.get("type").and_then(Value::as_str) == Some("integer")
        && out.get("format").and_then(Value::as_str) == Some("int32")
    {
        // Go's JSON decoder rejects a number that does not fit the int32 field.
        out.entry("minimum").or_insert(json!(i32::MIN));
        out.entry("maximum").or_insert(json!(i32::MAX));
    }
    Value::Object(out)
}

fn free_form() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true})
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_inlined_and_go_forms_rewritten() {
        let components = json!({
            "a.Thing": {"type": "object", "required": ["port"], "properties": {
                "port": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}],
                         "description": "d"},
                "size": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"},
                "count": {"type": "integer", "format": "int32", "default": 1},
                "raw": {"$ref": "#/components/schemas/a.Raw"},
                "self": {"allOf": [{"$ref": "#/components/schemas/a.Thing"}], "default": {}}
            }},
            "a.Raw": {"type": "object"}
        });
        let components = components.as_object().unwrap();
        let converted = convert(&components["a.Thing"], components, &mut vec!["a.Thing".into()]);
        assert_eq!(converted["required"], json!(["port"]));
        let p = &converted["properties"];
        assert_eq!(p["port"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(p["size"]["pattern"], json!(QUANTITY_PATTERN));
        assert_eq!(p["count"], json!({"type": "integer", "format": "int32", "minimum": i32::MIN, "maximum": i32::MAX}));
        assert_eq!(p["raw"], json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
        assert_eq!(p["self"], free_form());
    }
}
