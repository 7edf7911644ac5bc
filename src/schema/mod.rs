//! Schemas of CAPI, CAPZ, ASO, Flux, Argo CD and Kubernetes' built-in kinds: the importers, the embedded
//! registry and validation.

pub mod aso_versions;
pub mod crd_pattern;
pub mod defaulting;
pub mod embedded;
pub mod import;
pub mod openapi;
pub mod registry;
pub mod releases;
pub mod update;
pub mod validate;

mod capi_defaulting;
mod cel;
mod formats;
mod go_regex;
mod issue;
mod meta;
pub(crate) mod packed;
mod pointer;
mod ratchet;
mod removed_apis;

use std::fmt;
use std::path::PathBuf;

pub use registry::{AdditionalAsoCrds, AsoInstall, Registry};
pub use update::{StoredUpdate, TransitionError};
pub use validate::{ObjectStatus, ValidateOptions, ValidationOutcome, Validator};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Group, version and kind of an object (group "" is the core group).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        Gvk { group: group.to_string(), version: version.to_string(), kind: kind.to_string() }
    }
    /// `group/version` (or `version` for the core group).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.api_version(), self.kind)
    }
}

/// The schema of one served kind in one version, as the registry stores it (one JSON file per GVK).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindSchema {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// Resource name (`clusters`), as in the CRD's `spec.names.plural`.
    pub plural: String,
    /// `Namespaced` or `Cluster`.
    pub scope: String,
    /// With a status subresource the API server drops `status` on create, so it is not validated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub status_subresource: bool,
    /// The version is deprecated; the warning the API server returns for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_warning: Option<String>,
    /// The schema has `x-kubernetes-validations` somewhere (so CEL must run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cel: bool,
    /// A built-in (Go-typed) kind: a JSON null anywhere decodes to the zero value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub typed: bool,
    /// The structural `openAPIV3Schema`, descriptions stripped.
    pub schema: Value,
    /// `schema` was read without the subtree of its `status` property (see
    /// [`Registry::get_without_status`]); only for objects that have no `status`.
    #[serde(skip)]
    pub status_omitted: bool,
    /// Whether `schema` has a `default` anywhere, worked out on first use (see [`KindSchema::has_defaults`]).
    #[serde(skip)]
    pub defaults: DefaultsSeen,
}

/// A cache of [`KindSchema::has_defaults`]: not part of the schema's value (two kinds compare equal whether or not
/// either has been asked yet).
#[derive(Debug, Clone, Default)]
pub struct DefaultsSeen(std::sync::OnceLock<bool>);

impl PartialEq for DefaultsSeen {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl KindSchema {
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }

    /// Whether any node of `schema` holds a `default` key (a property named `default` counts too): when none does,
    /// the API server's structural defaulting has nothing to add and the schema walk skips looking for defaults
    /// (it looked at every declared property of every object node it met).
    pub fn has_defaults(&self) -> bool {
        *self.defaults.0.get_or_init(|| holds_key(&self.schema, "default"))
    }
    pub fn namespaced(&self) -> bool {
        self.scope == "Namespaced"
    }
}

/// Errors loading or importing schemas.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("cannot read `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write `{path}`")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Manifest(#[from] crate::manifest::ManifestError),
    /// A CustomResourceDefinition lacks something every CRD has.
    #[error("{location}: invalid CustomResourceDefinition: {message}")]
    InvalidCrd { location: String, message: String },
    /// An embedded schema file is corrupt (a build problem, not a user problem).
    #[error("embedded schema `{path}` is invalid: {message}")]
    Embedded { path: String, message: String },
    /// A Kubernetes version whose built-in schemas are not bundled.
    #[error("no built-in schemas for Kubernetes {version}: bundled: {bundled}")]
    UnknownKubernetesVersion { version: String, bundled: String },
    /// No CRDs found where the user pointed.
    #[error("no CustomResourceDefinitions found in `{path}`")]
    NoCrds { path: PathBuf },
}

/// Walks every sub-schema of a structural schema (including the root), depth first.
pub(crate) fn for_each_schema_mut(schema: &mut Value, f: &mut dyn FnMut(&mut serde_json::Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    f(map);
    for key in ["properties", "patternProperties", "definitions"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            for child in children.values_mut() {
                for_each_schema_mut(child, f);
            }
        }
    }
    for key in ["additionalProperties", "items", "not", "additionalItems"] {
        match map.get_mut(key) {
            Some(Value::Array(items)) => items.iter_mut().for_each(|item| for_each_schema_mut(item, f)),
            Some(child @ Value::Object(_)) => for_each_schema_mut(child, f),
            _ => {}
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = map.get_mut(key) {
            items.iter_mut().for_each(|item| for_each_schema_mut(item, f));
        }
    }
}

/// Whether any map in `value`, at any depth, has `key`.
fn holds_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => map.contains_key(key) || map.values().any(|child| holds_key(child, key)),
        Value::Array(items) => items.iter().any(|item| holds_key(item, key)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(schema: Value) -> KindSchema {
        serde_json::from_value(serde_json::json!({
            "group": "example.com", "version": "v1", "kind": "Widget", "plural": "widgets", "scope": "Namespaced",
            "schema": schema,
        }))
        .unwrap()
    }

    #[test]
    fn a_default_at_any_depth_is_seen_and_a_kind_without_one_is_not() {
        let nested = serde_json::json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "pools": {"type": "array", "items": {"type": "object", "properties": {"mode": {"type": "string", "default": "User"}}}}
        }}}});
        assert!(kind(nested).has_defaults());
        let plain = serde_json::json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "replicas": {"type": "integer", "minimum": 0}
        }}}});
        let plain = kind(plain);
        assert!(!plain.has_defaults());
        // Cached, and not part of the value: a kind asked compares equal to one not asked yet.
        assert_eq!(plain, plain.clone());
        assert_eq!(plain, kind(plain.schema.clone()));
        // A property named `default` counts too (the walk then looks, as it always did).
        let named = serde_json::json!({"type": "object", "properties": {"default": {"type": "string"}}});
        assert!(kind(named).has_defaults());
    }
}
