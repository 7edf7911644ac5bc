//! Flux `Kustomization`s (kustomize.toolkit.fluxcd.io) of a repository: the path each one builds, and its
//! post-build variable substitution with the kustomize-controller's semantics (github.com/fluxcd/pkg/kustomize
//! `SubstituteVariables`; checked against it by tests/referee/flux_substitute_referee.rs).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::kustomization::resolve;
use crate::json_pointer::At;
use crate::manifest::{self, Document};
use crate::render::envsubst::{self, Node};

/// The API group of Flux's Kustomization.
pub const FLUX_KUSTOMIZE_GROUP: &str = "kustomize.toolkit.fluxcd.io";
/// The label or annotation that turns substitution off for one object.
pub const SUBSTITUTE_ANNOTATION: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// A ConfigMap or Secret the variables come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubstituteReference {
    pub kind: String,
    pub name: String,
    pub optional: bool,
    /// Line of the reference in the Flux Kustomization's file.
    pub line: usize,
}

/// What repository mode needs of one Flux Kustomization.
#[derive(Debug, Clone)]
pub struct FluxKustomization {
    /// `Kustomization/name`.
    pub object: String,
    pub namespace: String,
    /// The file and line of the object.
    pub source: String,
    pub line: usize,
    /// `spec.path`, repository-relative (`None` when it leaves the repository).
    pub path: Option<String>,
    /// Line of `spec.path`.
    pub path_line: usize,
    /// `spec.sourceRef` (`Kind/name`).
    pub source_ref: String,
    /// Whether `spec.postBuild` is set (Flux substitutes only then).
    pub post_build: bool,
    /// `spec.prune`: whether Flux deletes the objects the Kustomization no longer applies (and all of them when the
    /// Kustomization itself is deleted).
    pub prune: bool,
    pub substitute: BTreeMap<String, String>,
    /// The line of each `postBuild.substitute` entry.
    pub substitute_lines: BTreeMap<String, usize>,
    pub substitute_from: Vec<SubstituteReference>,
    /// `targetNamespace`, `namePrefix`, `nameSuffix`, `patches` (their `patch` and `target`, the fields of Flux's
    /// API), `images`: applied by Flux on top of the path's kustomization (a wrapper kustomization here).
    pub overlay: serde_json::Map<String, Value>,
    /// The cluster it applies to (see [`flux_cluster`]).
    pub cluster: String,
    /// `spec.components` as written (relative to the path), each with its line.
    pub components: Vec<(String, usize)>,
}

impl FluxKustomization {
    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.object.trim_start_matches("Kustomization/")
    }
}

/// The Flux Kustomization `document` describes, if it is one.
pub fn flux_kustomization(document: &Document) -> Option<FluxKustomization> {
    if document.group() != FLUX_KUSTOMIZE_GROUP || document.kind() != "Kustomization" {
        return None;
    }
    let spec = document.value.get("spec").cloned().unwrap_or(Value::Null);
    let raw_path = spec.get("path").and_then(Value::as_str).unwrap_or("");
    let post_build = spec.get("postBuild").is_some_and(|p| !p.is_null());
    let prune = spec.get("prune").and_then(Value::as_bool).unwrap_or(false);
    let substitute = spec
        .object_at("/postBuild/substitute")
        .map(|vars| {
            vars.iter()
                .map(|(k, v)| (k.clone(), variable_value(&v.as_str().map_or_else(|| v.to_string(), str::to_string))))
                .collect()
        })
        .unwrap_or_default();
    let substitute_lines = spec
        .object_at("/postBuild/substitute")
        .map(|vars| {
            vars.keys()
                .map(|key| {
                    let pointer = format!("/spec/postBuild/substitute/{}", crate::json_pointer::escape_token(key));
                    (key.clone(), document.line_of(&pointer))
                })
                .collect()
        })
        .unwrap_or_default();
    let substitute_from = spec
        .array_at("/postBuild/substituteFrom")
        .map(|refs| {
            refs.iter()
                .enumerate()
                .map(|(i, r)| SubstituteReference {
                    kind: r.get("kind").and_then(Value::as_str).unwrap_or("").to_string(),
                    name: r.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                    optional: r.get("optional").and_then(Value::as_bool).unwrap_or(false),
                    line: document.line_of(&format!("/spec/postBuild/substituteFrom/{i}")),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut overlay = serde_json::Map::new();
    for (field, key) in [
        ("targetNamespace", "namespace"),
        ("namePrefix", "namePrefix"),
        ("nameSuffix", "nameSuffix"),
        ("patches", "patches"),
        ("images", "images"),
    ] {
        if let Some(value) = spec.get(field).filter(|v| !v.is_null()) {
            overlay.insert(key.to_string(), value.clone());
        }
    }
    // Flux's Patch has `patch` and `target` only (the API server prunes anything else, a `path` too).
    if let Some(Value::Array(patches)) = overlay.get_mut("patches") {
        for patch in patches.iter_mut() {
            if let Value::Object(fields) = patch {
                fields.retain(|key, _| key == "patch" || key == "target");
            }
        }
    }
    let components = spec
        .get("components")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, c)| Some((c.as_str()?.to_string(), document.line_of(&format!("/spec/components/{i}")))))
        .collect();
    let source_ref =
        format!("{}/{}", spec.str_at("/sourceRef/kind").unwrap_or(""), spec.str_at("/sourceRef/name").unwrap_or(""));
    Some(FluxKustomization {
        object: document.display_name(),
        namespace: document.namespace().unwrap_or("").to_string(),
        source: document.origin.source.to_string(),
        line: document.origin.line,
        path: resolve("", raw_path.trim_start_matches('/')),
        path_line: document.line_of("/spec/path"),
        source_ref,
        post_build,
        prune,
        substitute,
        substitute_lines,
        substitute_from,
        overlay,
        cluster: flux_cluster(document),
        components,
    })
}

/// The cluster a Flux object (Kustomization, HelmRelease) applies to, in words: the one of its `spec.kubeConfig`
/// (a Secret or ConfigMap in its namespace), else the cluster whose Flux reads it, which the repository tells by
/// the directory the object is written in (`clusters/prod/` and `clusters/staging/` are two clusters bootstrapped
/// from one repository; objects of one directory are read by one Flux).
pub fn flux_cluster(document: &Document) -> String {
    let namespace = document.namespace().unwrap_or("default");
    for (field, kind) in [("secretRef", "Secret"), ("configMapRef", "ConfigMap")] {
        let pointer = format!("/spec/kubeConfig/{field}/name");
        if let Some(name) = document.value.str_at(&pointer).filter(|name| !name.is_empty()) {
            return format!("the cluster of the kubeconfig in {kind} {namespace}/{name}");
        }
    }
    let source = document.origin.source.as_ref();
    let dir = source.rsplit_once('/').map_or(".", |(dir, _)| dir);
    format!("the cluster whose Flux reads {dir}/")
}

/// A variable's value as Flux reads it from `substitute`, a ConfigMap or a Secret: newlines removed.
pub fn variable_value(text: &str) -> String {
    text.replace('\n', "")
}

/// Flux's check on variable names.
static VARIABLE_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[_[:alpha:]][_[:alpha:][:digit:]]*$").expect("variable name regex is valid"));

/// Why substitution failed (Flux's messages).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubstituteError {
    #[error("envsubst error: '{0}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'")]
    InvalidName(String),
    #[error("envsubst error: variable substitution failed: {0}")]
    Failed(String),
    #[error("envsubst error: variable substitution failed: variable not set (strict mode): \"{0}\"")]
    NotSet(String),
    #[error("envsubst error: YAMLToJSON: {0}")]
    NotYaml(String),
}

/// Whether the object opts out of substitution (label or annotation `kustomize.toolkit.fluxcd.io/substitute:
/// disabled`).
pub fn substitution_disabled(object: &Value) -> bool {
    ["labels", "annotations"].iter().any(|field| {
        object.str_at(&format!("/metadata/{field}/{}", SUBSTITUTE_ANNOTATION.replace('/', "~1"))) == Some("disabled")
    })
}

/// The object after Flux's substitution of `vars` (as SubstituteVariables does when the Kustomization has variables):
/// `None` when the object opts out. The object is written as YAML, `${...}` expressions are replaced in that text
/// (strict: a variable without a value and without a default operator is an error; otherwise it is ""), and the
/// text is read back, so a value can change type (`replicas: ${REPLICAS}` becomes a number). With `keep_unknown`
/// (some variables live in the cluster only), a variable without a value stays `${NAME}` instead of becoming "".
pub fn substitute(
    object: &Value,
    vars: &BTreeMap<String, String>,
    strict: bool,
    keep_unknown: bool,
) -> Result<Option<Value>, SubstituteError> {
    if substitution_disabled(object) {
        return Ok(None);
    }
    for name in vars.keys() {
        if !VARIABLE_NAME.is_match(name) {
            return Err(SubstituteError::InvalidName(name.clone()));
        }
    }
    let text = manifest::to_yaml(object);
    let template = envsubst::parse(&text).map_err(|err| SubstituteError::Failed(err.kind.to_string()))?;
    if strict && let Some(missing) = first_missing(&template.nodes, vars) {
        return Err(SubstituteError::NotSet(missing));
    }
    let output = template
        .execute(|name| match vars.get(name) {
            Some(value) => value.clone(),
            None if keep_unknown => format!("${{{name}}}"),
            None => String::new(),
        })
        .map_err(|err| SubstituteError::Failed(err.to_string()))?;
    let mut value =
        manifest::parse_plain_value(&output, "substituted").map_err(|err| SubstituteError::NotYaml(err.to_string()))?;
    whole_floats_to_integers(&mut value);
    Ok(Some(value))
}

/// Flux reads the substituted YAML back through JSON (sigs.k8s.io/yaml, then the unstructured decoder): a float
/// without a fraction (`1e3`, `2.0`) becomes an integer.
fn whole_floats_to_integers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(float) = number.as_f64()
                && float.fract() == 0.0
                && float.abs() < 9.2e18
            {
                *value = Value::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_to_integers),
        Value::Object(map) => map.values_mut().for_each(whole_floats_to_integers),
        _ => {}
    }
}

/// Default-providing operators: a variable without a value is not an error in strict mode.
fn is_default_operator(name: &str) -> bool {
    matches!(name, "-" | "+" | "=" | "?" | ":-" | ":+" | ":=" | ":?")
}

/// The first variable (in evaluation order: arguments before their expression) strict mode would refuse.
fn first_missing(nodes: &[Node], vars: &BTreeMap<String, String>) -> Option<String> {
    for node in nodes {
        if let Node::Func(func) = node {
            if let Some(missing) = first_missing(&func.args, vars) {
                return Some(missing);
            }
            if !vars.contains_key(&func.param) && !is_default_operator(&func.name) {
                return Some(func.param.clone());
            }
        }
    }
    None
}

/// The `${NAME}` variables of `text` (names only, sorted, each once).
pub fn variables_in(text: &str) -> Vec<String> {
    static VARIABLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$\{([_A-Za-z][_A-Za-z0-9]*)").expect("variable regex is valid"));
    let mut names: Vec<String> = VARIABLE.captures_iter(text).map(|c| c[1].to_string()).collect();
    names.sort();
    names.dedup();
    names
}

/// The string fields of `value` written with exactly one `${NAME}` variable: (JSON pointer, the variable's name).
pub fn single_variable_fields(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    crate::json_pointer::leaf_pointers(value, &mut String::new(), &mut |leaf| {
        if let Some(Value::String(text)) = value.pointer(leaf)
            && text.contains("${")
            && let [name] = variables_in(text).as_slice()
        {
            out.push((leaf.to_string(), name.clone()));
        }
    });
    out
}

/// The variables a ConfigMap or Secret provides (Secret data base64-decoded, stringData as is; newlines removed as
/// Flux does).
pub fn variables_of(object: &Value) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some(data) = object.get("data").and_then(Value::as_object) {
        for (key, value) in data {
            let Some(text) = value.as_str() else { continue };
            let text = if kind == "Secret" {
                use base64::Engine as _;
                match base64::engine::general_purpose::STANDARD.decode(text.trim()) {
                    Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    Err(_) => continue,
                }
            } else {
                text.to_string()
            };
            vars.insert(key.clone(), variable_value(&text));
        }
    }
    if kind == "Secret" {
        // The API server moves stringData into data before Flux reads it.
        if let Some(data) = object.get("stringData").and_then(Value::as_object) {
            for (key, value) in data {
                if let Some(text) = value.as_str() {
                    vars.insert(key.clone(), variable_value(text));
                }
            }
        }
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_change_type_and_disabled_objects_are_left_alone() {
        let object: Value = serde_json::json!({"kind": "X", "spec": {"replicas": "${N}", "name": "${A:=dflt}-x"}});
        let vars = BTreeMap::from([("N".to_string(), "3".to_string())]);
        let out = substitute(&object, &vars, false, false).unwrap().unwrap();
        assert_eq!(out["spec"]["replicas"], 3);
        assert_eq!(out["spec"]["name"], "dflt-x");
        let strict = substitute(&serde_json::json!({"a": "${MISSING}"}), &vars, true, false).unwrap_err();
        assert_eq!(strict, SubstituteError::NotSet("MISSING".to_string()));
        let disabled =
            serde_json::json!({"metadata": {"annotations": {SUBSTITUTE_ANNOTATION: "disabled"}}, "a": "${N}"});
        assert_eq!(substitute(&disabled, &vars, false, false).unwrap(), None);
    }
}
