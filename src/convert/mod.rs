//! API version upgrades of Kubernetes objects as JSON (CAPI v1beta1 → v1beta2, CAPZ
//! AzureASOManaged* v1alpha1 → v1beta1) and their format-preserving application to YAML text.
//!
//! [`convert_object`] is the semantic conversion of one object, exactly what CAPI v1.14.2's
//! conversion webhooks (and CAPZ v1.26.0's API) produce; [`follow_references`] is our own pass
//! over all objects of one run: references to AzureASOManaged* kinds at v1alpha1 move to
//! v1beta1 (CAPZ's migration instructions), and a ClusterClass's template references follow
//! the CAPI templates converted in the same run to v1beta2 (CAPI itself leaves them and reports
//! `RefVersionsUpToDate=False` until the class is edited), together with the patch selectors
//! that match them ([`class_refs`]). [`aso`] moves ASO objects between ASO's API versions
//! (`convert --aso`). [`edit`] rewrites a file's text.

pub mod aso;
pub mod capi;
pub mod capz;
mod class_refs;
pub mod edit;
pub mod files;
pub mod served;

use serde_json::Value;

use crate::json_pointer::At;

/// What one run converts: CAPI's and CAPZ's API versions, or ASO's.
pub enum Mode<'r> {
    Capi(TargetVersion),
    Aso(&'r aso::AsoPlan<'r>),
}

/// The CAPI API version to reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetVersion {
    /// CAPI v1beta2 (and AzureASOManaged* v1beta1).
    V1beta2,
    /// Keep CAPI at v1beta1; only AzureASOManaged* move to v1beta1 (with their references).
    V1beta1,
}

impl TargetVersion {
    /// Parses `v1beta2` / `v1beta1`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "v1beta2" => Some(TargetVersion::V1beta2),
            "v1beta1" => Some(TargetVersion::V1beta1),
            _ => None,
        }
    }
}

/// Something the conversion dropped or decided, at a JSON pointer of the source object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where in the source object (the v1beta1 field).
    pub pointer: String,
    pub message: String,
}

/// An object the conversion cannot read, as CAPI would reject it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct ConvertError {
    /// Where in the source object.
    pub pointer: String,
    pub message: String,
}

impl ConvertError {
    pub(crate) fn invalid(pointer: &str, message: &str) -> Self {
        ConvertError { pointer: if pointer.is_empty() { "/".into() } else { pointer.into() }, message: message.into() }
    }
}

/// One converted object.
#[derive(Debug, Clone)]
pub struct Conversion {
    pub value: Value,
    pub warnings: Vec<Warning>,
    /// What was decided, at the fields it is about (`convert --aso`'s version moves).
    pub notes: Vec<Warning>,
}

/// Converts one object to `target`; `None` when there is nothing to convert (another kind, or
/// already at the target version).
pub fn convert_object(object: &Value, target: TargetVersion) -> Result<Option<Conversion>, ConvertError> {
    if capz::converts(object) {
        return Ok(Some(Conversion { value: capz::convert(object), warnings: Vec::new(), notes: Vec::new() }));
    }
    if target == TargetVersion::V1beta1 {
        return Ok(None);
    }
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    match api_version.split_once('/') {
        Some((group, "v1beta1")) if capi::converts(group, kind) => {
            let (value, warnings) = capi::convert(object)?;
            Ok(Some(Conversion { value, warnings, notes: Vec::new() }))
        }
        _ => Ok(None),
    }
}

/// Whether `convert` upgrades objects of this group, version and kind (what `validate`'s
/// deprecation findings point to).
pub fn converts_api_version(group: &str, version: &str, kind: &str) -> bool {
    (group == capz::GROUP && version == "v1alpha1" && capz::is_aso_managed_kind(kind))
        || (version == "v1beta1" && capi::converts(group, kind))
}

/// A CAPI template converted to v1beta2 in this run, which ClusterClass references follow.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvertedTemplate {
    pub group: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    /// The template as written (v1beta1) and as converted: patches must still apply to it.
    pub before: Value,
    pub after: Value,
}

impl ConvertedTemplate {
    /// The template `after` is, when it is a CAPI template at v1beta2 converted from `before`.
    pub fn of(before: &Value, after: &Value) -> Option<Self> {
        let (group, version) = after.get("apiVersion")?.as_str()?.split_once('/')?;
        let kind = after.get("kind")?.as_str()?;
        let is_template = matches!(kind, "KubeadmConfigTemplate" | "KubeadmControlPlaneTemplate");
        (version == "v1beta2" && is_template).then(|| ConvertedTemplate {
            group: group.to_string(),
            kind: kind.to_string(),
            name: after.str_at("/metadata/name").unwrap_or("").to_string(),
            namespace: after.str_at("/metadata/namespace").unwrap_or("").to_string(),
            before: before.clone(),
            after: after.clone(),
        })
    }
}

/// Our pass over the objects of one run (see the module doc): AzureASOManaged* references to
/// v1beta1, ClusterClass template references (with every reference and patch selector CAPI
/// matches with them) to the templates converted to v1beta2. Returns whether `object` changed,
/// and warnings about references kept back.
pub fn follow_references(object: &mut Value, converted_templates: &[ConvertedTemplate]) -> (bool, Vec<Warning>) {
    let mut changed = capz::update_references(object);
    let is_class = object.get("kind").and_then(Value::as_str) == Some("ClusterClass")
        && object.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("cluster.x-k8s.io/"));
    let mut warnings = Vec::new();
    if is_class {
        let (class_changed, class_warnings) = class_refs::follow(object, converted_templates);
        changed |= class_changed;
        warnings = class_warnings;
    }
    (changed, warnings)
}
