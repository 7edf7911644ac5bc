//! Argo CD's kustomize-source options (`spec.source.kustomize`) applied as its repo-server applies them: the
//! `kustomize edit set/add ...` commands of `util/kustomize.Build`, emulated on the app's kustomization in the
//! repository's staged copy (the user's files are never written), then built there.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::json_pointer::At;
use crate::manifest;
use crate::source::budget::Budget;
use crate::source::kustomize::{self, BuildRequest, BuiltObject};
use crate::source::stage::Stage;

/// Kustomization file names, in the order kustomize (and Argo CD's `findKustomizeFile`) looks for them.
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Options that change nothing `kustomize edit` writes, and why they are not applied.
const NOT_APPLIED: [(&str, &str); 3] = [
    ("version", "selects another kustomize binary of the Argo CD installation; built with kubectl's kustomize instead"),
    ("kubeVersion", "is passed only to Helm charts of a `kustomize build --enable-helm`; helmCharts are not rendered"),
    ("apiVersions", "is passed only to Helm charts of a `kustomize build --enable-helm`; helmCharts are not rendered"),
];

/// What Argo CD fills in for the revision being synced: unknown when reading a tree, so a stand-in is used.
pub const REVISION_STAND_IN: &str = "0000000000000000000000000000000000000000";

/// The kustomize options of one Application source, with the environment Argo CD substitutes into them.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgoKustomize {
    /// `spec.source(s)[].kustomize` as written.
    pub options: Value,
    /// `ARGOCD_APP_*` variables (`ARGOCD_APP_REVISION*` hold [`REVISION_STAND_IN`]).
    pub env: BTreeMap<String, String>,
    /// JSON pointer of the source in the Application (`/spec/source`, `/spec/sources/1`), for the lines of its
    /// inline patches.
    pub pointer: String,
}

impl ArgoKustomize {
    /// The options of `source` (an Application source) of application `application`, or `None` when it sets no
    /// option that changes the build (an empty `kustomize: {}` just picks the kustomize tool).
    pub fn of_source(source: &Value, pointer: &str, application: &Value) -> Option<Self> {
        let options = source.get("kustomize").filter(|value| value.as_object().is_some_and(|map| !map.is_empty()))?;
        let text = |value: &Value, pointer: &str| value.str_at(pointer).unwrap_or("").to_string();
        let mut env = BTreeMap::new();
        env.insert("ARGOCD_APP_NAME".to_string(), text(application, "/metadata/name"));
        env.insert("ARGOCD_APP_NAMESPACE".to_string(), text(application, "/spec/destination/namespace"));
        env.insert("ARGOCD_APP_PROJECT_NAME".to_string(), text(application, "/spec/project"));
        env.insert("ARGOCD_APP_REVISION".to_string(), REVISION_STAND_IN.to_string());
        env.insert("ARGOCD_APP_REVISION_SHORT".to_string(), REVISION_STAND_IN[..7].to_string());
        env.insert("ARGOCD_APP_REVISION_SHORT_8".to_string(), REVISION_STAND_IN[..8].to_string());
        env.insert("ARGOCD_APP_SOURCE_REPO_URL".to_string(), text(source, "/repoURL"));
        env.insert("ARGOCD_APP_SOURCE_PATH".to_string(), text(source, "/path"));
        env.insert("ARGOCD_APP_SOURCE_TARGET_REVISION".to_string(), text(source, "/targetRevision"));
        Some(ArgoKustomize { options: options.clone(), env, pointer: pointer.to_string() })
    }

    /// Go's `os.Expand` of `text` with this environment (Argo CD's `Env.Envsubst`), and the revision variables it
    /// read (their real value is only known at sync time).
    fn envsubst(&self, text: &str, option: &str, revision_used: &mut Vec<(String, String)>) -> String {
        go_expand(text, &mut |name| {
            if name == "$" {
                return "$".to_string();
            }
            if name.starts_with("ARGOCD_APP_REVISION") && self.env.contains_key(name) {
                revision_used.push((option.to_string(), name.to_string()));
            }
            self.env.get(name).cloned().unwrap_or_default()
        })
    }
}

/// Why the options could not be applied: what Argo CD's build would fail with.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EditError {
    #[error("no kustomization file (kustomization.yaml, kustomization.yml, Kustomization) in `{0}`")]
    NoKustomization(String),
    #[error("`kustomize edit {command}` fails: {message}")]
    Command { command: &'static str, message: String },
    #[error("`kustomize.{option}` is not what Argo CD accepts: {message}")]
    Option { option: &'static str, message: String },
    #[error("cannot stage the edited copy: {0}")]
    Stage(String),
    #[error("{0}")]
    Build(String),
}

/// The edited kustomization and what was left out (one message per option not applied).
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub kustomization: Value,
    pub not_applied: Vec<NotApplied>,
}

/// An option (or part of one) that was not applied as Argo CD would, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotApplied {
    /// Its JSON pointer below the source's `kustomize` (`/version`, `/components/1`).
    pub option: String,
    pub message: String,
}

/// Applies `argo`'s options to `kustomization` (the parsed kustomization file of the app's directory) in the
/// order and with the semantics of Argo CD's `kustomize edit` sequence. `component_exists` says whether a
/// component path (relative to the app's directory) exists in the repository.
pub fn edit(
    kustomization: &Value,
    argo: &ArgoKustomize,
    component_exists: &dyn Fn(&str) -> bool,
) -> Result<Edited, EditError> {
    let options = &argo.options;
    let mut k = match kustomization {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        _ => return Err(command_error("set", "the kustomization file is not a map")),
    };
    let mut not_applied = Vec::new();
    for (option, why) in NOT_APPLIED {
        if options.get(option).is_some_and(|value| !value.is_null() && value != "" && value != &json!([])) {
            not_applied.push(NotApplied { option: format!("/{option}"), message: format!("kustomize.{option} {why}") });
        }
    }
    let mut revision_used = Vec::new();
    let text = |pointer: &str| options.str_at(pointer).unwrap_or("");
    if runs_a_kustomize_edit(options) {
        fix_kustomization(&mut k);
    }
    let flag = |name: &str| options.get(name).and_then(Value::as_bool).unwrap_or(false);
    if !text("/namePrefix").is_empty() {
        k.insert("namePrefix".into(), json!(text("/namePrefix")));
    }
    if !text("/nameSuffix").is_empty() {
        k.insert("nameSuffix".into(), json!(text("/nameSuffix")));
    }
    if let Some(images) = options.get("images").and_then(Value::as_array).filter(|list| !list.is_empty()) {
        let mut args = Vec::new();
        for image in images {
            let image = image.as_str().ok_or_else(|| option_error("images", "an image is not a string"))?;
            args.push(argo.envsubst(image, "/images", &mut revision_used));
        }
        set_images(&mut k, &args)?;
    }
    if let Some(replicas) = options.get("replicas").and_then(Value::as_array).filter(|list| !list.is_empty()) {
        set_replicas(&mut k, replicas)?;
    }
    if let Some(labels) = options.get("commonLabels").and_then(Value::as_object).filter(|map| !map.is_empty()) {
        add_common_labels(&mut k, argo, labels, &mut revision_used)?;
    }
    if let Some(annotations) = options.get("commonAnnotations").and_then(Value::as_object).filter(|map| !map.is_empty())
    {
        add_common_annotations(&mut k, argo, annotations, &mut revision_used)?;
    }
    // `kustomize edit set namespace` takes any name (v5.7.1 validates none); the API server judges it.
    let namespace = text("/namespace");
    if !namespace.is_empty() {
        k.insert("namespace".into(), json!(namespace));
    }
    if let Some(patches) = options.get("patches").and_then(Value::as_array).filter(|list| !list.is_empty()) {
        let existing = k.entry("patches").or_insert_with(|| json!([]));
        let Value::Array(list) = existing else {
            return Err(option_error("patches", "the kustomization's `patches` is not a list"));
        };
        list.extend(patches.iter().cloned());
    }
    if let Some(components) = options.get("components").and_then(Value::as_array).filter(|list| !list.is_empty()) {
        add_components(&mut k, components, flag("ignoreMissingComponents"), component_exists, &mut not_applied)?;
    }
    revision_used.sort();
    revision_used.dedup();
    for (option, variable) in revision_used {
        let stand_in = argo.env.get(&variable).cloned().unwrap_or_default();
        not_applied.push(NotApplied {
            message: format!(
                "kustomize{} uses ${variable}, the revision Argo CD syncs, unknown in a working tree: `{stand_in}` \
                 stands in for it",
                option.replace('/', ".")
            ),
            option,
        });
    }
    Ok(Edited { kustomization: Value::Object(k), not_applied })
}

/// `kustomize edit add label` for `commonLabels` (values expanded), with or without the selector.
fn add_common_labels(
    k: &mut Map<String, Value>,
    argo: &ArgoKustomize,
    labels: &Map<String, Value>,
    revision_used: &mut Vec<(String, String)>,
) -> Result<(), EditError> {
    let flag = |name: &str| argo.options.get(name).and_then(Value::as_bool).unwrap_or(false);
    let labels: Vec<(String, String)> = labels
        .iter()
        .map(|(name, value)| (name.clone(), argo.envsubst(&string_of(value), "/commonLabels", revision_used)))
        .collect();
    let without_selector = flag("labelWithoutSelector");
    if flag("labelIncludeTemplates") && !without_selector {
        return Err(command_error(
            "add label",
            "--without-selector flag must be specified for --include-templates to work",
        ));
    }
    let force = flag("forceCommonLabels");
    if without_selector {
        add_labels_without_selector(k, &labels, force, flag("labelIncludeTemplates"))?;
    } else {
        add_to_map(k, "commonLabels", "label", &labels, force)?;
    }
    Ok(())
}

/// `kustomize edit add annotation` for `commonAnnotations` (values expanded when asked).
fn add_common_annotations(
    k: &mut Map<String, Value>,
    argo: &ArgoKustomize,
    annotations: &Map<String, Value>,
    revision_used: &mut Vec<(String, String)>,
) -> Result<(), EditError> {
    let flag = |name: &str| argo.options.get(name).and_then(Value::as_bool).unwrap_or(false);
    let envsubst = flag("commonAnnotationsEnvsubst");
    let annotations: Vec<(String, String)> = annotations
        .iter()
        .map(|(name, value)| {
            let value = string_of(value);
            let value = if envsubst { argo.envsubst(&value, "/commonAnnotations", revision_used) } else { value };
            (name.clone(), value)
        })
        .collect();
    add_to_map(k, "commonAnnotations", "annotation", &annotations, flag("forceCommonAnnotations"))
}

/// `kustomize edit add component` for each local component that exists (a missing one skipped when
/// `ignore_missing`); remote and glob entries are noted as not applied.
fn add_components(
    k: &mut Map<String, Value>,
    components: &[Value],
    ignore_missing: bool,
    component_exists: &dyn Fn(&str) -> bool,
    not_applied: &mut Vec<NotApplied>,
) -> Result<(), EditError> {
    let mut found = Vec::new();
    for (index, component) in components.iter().enumerate() {
        let component = component.as_str().ok_or_else(|| option_error("components", "not a string"))?;
        if ignore_missing && !component_exists(component) {
            continue;
        }
        if component.contains("://") || component.contains(['*', '?', '[']) {
            not_applied.push(NotApplied {
                option: format!("/components/{index}"),
                message: format!(
                    "kustomize.components entry `{component}` is remote or a glob: not added (nothing is fetched)"
                ),
            });
            continue;
        }
        if !component_exists(component) {
            return Err(command_error("add component", &format!("{component} has no match")));
        }
        found.push(component.to_string());
    }
    if !found.is_empty() {
        let Value::Array(list) = k.entry("components").or_insert_with(|| json!([])) else {
            return Err(option_error("components", "the kustomization's `components` is not a list"));
        };
        for component in found {
            if !list.iter().any(|existing| existing.as_str() == Some(&component)) {
                list.push(json!(component));
            }
        }
    }
    Ok(())
}

/// Whether Argo CD runs at least one `kustomize edit` command for `options` (patches are written without one).
fn runs_a_kustomize_edit(options: &Value) -> bool {
    let set = |name: &str| match options.get(name) {
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(list)) => !list.is_empty(),
        Some(Value::Object(map)) => !map.is_empty(),
        _ => false,
    };
    ["namePrefix", "nameSuffix", "images", "replicas", "commonLabels", "commonAnnotations", "namespace", "components"]
        .iter()
        .any(|name| set(name))
}

/// What `kustomize edit` rewrites in every kustomization it reads (kustomize's `FixKustomization`): `kind` and
/// `apiVersion` filled in, `bases` moved to `resources`, `imageTags` to `images`, a generator's `envSource` to its
/// `envSources`.
fn fix_kustomization(k: &mut Map<String, Value>) {
    let kind = k.get("kind").and_then(Value::as_str).filter(|kind| !kind.is_empty()).unwrap_or("Kustomization");
    let api_version =
        if kind == "Component" { "kustomize.config.k8s.io/v1alpha1" } else { "kustomize.config.k8s.io/v1beta1" };
    let kind = kind.to_string();
    k.insert("kind".into(), json!(kind));
    if k.get("apiVersion").and_then(Value::as_str).is_none_or(str::is_empty) {
        k.insert("apiVersion".into(), json!(api_version));
    }
    for (old, new) in [("bases", "resources"), ("imageTags", "images")] {
        if let Some(Value::Array(moved)) = k.remove(old) {
            match k.entry(new).or_insert_with(|| json!([])) {
                Value::Array(list) => list.extend(moved),
                other => *other = Value::Array(moved),
            }
        }
    }
    for generator in ["configMapGenerator", "secretGenerator"] {
        for entry in k.get_mut(generator).and_then(Value::as_array_mut).into_iter().flatten() {
            let Some(map) = entry.as_object_mut() else { continue };
            if let Some(Value::String(source)) = map.remove("envSource").filter(|s| s != "") {
                match map.entry("envSources").or_insert_with(|| json!([])) {
                    Value::Array(list) => list.push(json!(source)),
                    other => *other = json!([source]),
                }
            }
        }
    }
}

fn command_error(command: &'static str, message: &str) -> EditError {
    EditError::Command { command, message: message.to_string() }
}

fn option_error(option: &'static str, message: &str) -> EditError {
    EditError::Option { option, message: message.to_string() }
}

/// A label or annotation value as Argo CD's `map[string]string` reads it.
fn string_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `kustomize edit set image ARGS...`: each argument parsed as kustomize does, merged into `images` by name
/// (`*` keeps the existing newName/newTag/digest), the list sorted by name.
fn set_images(k: &mut Map<String, Value>, args: &[String]) -> Result<(), EditError> {
    let mut by_name: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for arg in args {
        let image = parse_image(arg).ok_or_else(|| {
            command_error("set image", &format!("invalid format of image `{arg}` (see `kustomize edit set image -h`)"))
        })?;
        let name = image.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        by_name.insert(name, image);
    }
    let existing: Vec<Value> = k.get("images").and_then(Value::as_array).cloned().unwrap_or_default();
    for old in existing {
        let Some(old) = old.as_object().cloned() else { continue };
        let name = old.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        match by_name.get_mut(&name) {
            Some(new) => {
                for field in ["newName", "newTag", "digest"] {
                    if new.get(field).and_then(Value::as_str) == Some("*") {
                        set_or_remove(new, field, old.get(field).and_then(Value::as_str).unwrap_or(""));
                    }
                }
            }
            None => {
                by_name.insert(name, old);
            }
        }
    }
    let images: Vec<Value> = by_name
        .into_values()
        .map(|mut image| {
            for field in ["newName", "newTag", "digest"] {
                if image.get(field).and_then(Value::as_str) == Some("*") {
                    image.remove(field);
                }
            }
            Value::Object(image)
        })
        .collect();
    k.insert("images".into(), Value::Array(images));
    Ok(())
}

fn set_or_remove(map: &mut Map<String, Value>, field: &str, value: &str) {
    if value.is_empty() {
        map.remove(field);
    } else {
        map.insert(field.to_string(), json!(value));
    }
}

/// One `set image` argument: `name=newName[:tag][@digest]`, `name:tag[@digest]`, `name@digest`.
fn parse_image(arg: &str) -> Option<Map<String, Value>> {
    let (key, value) = match arg.split_once('=') {
        Some((key, value)) => (Some(key), value),
        None => (None, arg),
    };
    let (name, tag, digest) = split_image_name(value);
    if name == arg {
        return None;
    }
    let mut image = Map::new();
    match key {
        Some(key) => {
            image.insert("name".into(), json!(key));
            set_or_remove(&mut image, "newName", name);
        }
        None => {
            image.insert("name".into(), json!(name));
        }
    }
    set_or_remove(&mut image, "newTag", tag);
    set_or_remove(&mut image, "digest", digest);
    Some(image)
}

/// kustomize's `image.Split`: name, tag and digest of an image reference (a `:` before the first `/` is a port).
fn split_image_name(image: &str) -> (&str, &str, &str) {
    let slash = image.find('/').filter(|at| *at > 0).unwrap_or(0);
    let search = &image[slash..];
    let (at, colon) = (search.find('@'), search.find(':'));
    match (at, colon) {
        (None, None) => (image, "", ""),
        (Some(at), colon) if colon.is_none_or(|colon| at < colon) => {
            (&image[..slash + at], "", &image[slash + at + 1..])
        }
        (Some(at), Some(colon)) => {
            (&image[..slash + colon], &image[slash + colon + 1..slash + at], &image[slash + at + 1..])
        }
        (None, Some(colon)) => (&image[..slash + colon], &image[slash + colon + 1..], ""),
        (Some(_), None) => unreachable!("handled by the first digest arm"),
    }
}

/// `kustomize edit set replicas NAME=COUNT...`: merged into `replicas` by name, sorted by name.
fn set_replicas(k: &mut Map<String, Value>, replicas: &[Value]) -> Result<(), EditError> {
    let mut by_name: BTreeMap<String, Value> = BTreeMap::new();
    for replica in replicas {
        let name = replica.get("name").and_then(Value::as_str).unwrap_or("");
        let count = match replica.get("count") {
            Some(Value::Number(number)) => number.as_i64(),
            Some(Value::String(text)) => text.parse::<i64>().ok(),
            _ => None,
        };
        let Some(count) = count else {
            let shown = replica.get("count").map_or_else(String::new, string_of);
            return Err(option_error("replicas", &format!("expected integer value for count. Received: {shown}")));
        };
        if name.contains('=') {
            return Err(command_error("set replicas", &format!("invalid format of replica `{name}={count}`")));
        }
        by_name.insert(name.to_string(), json!({"name": name, "count": count}));
    }
    for old in k.get("replicas").and_then(Value::as_array).cloned().unwrap_or_default() {
        let name = old.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        by_name.entry(name).or_insert(old);
    }
    k.insert("replicas".into(), Value::Array(by_name.into_values().collect()));
    Ok(())
}

/// The `k:v` argument of `edit add label/annotation` read back as kustomize's `ConvertSliceToMap` does: cut at
/// the first `:`, surrounding double quotes of the value trimmed.
fn as_argument(name: &str, value: &str) -> Result<(String, String), String> {
    let argument = format!("{name}:{value}");
    match argument.find(':') {
        Some(0) => Err(format!("invalid '{argument}' (need k:v pair where v may be quoted)")),
        Some(at) => {
            let value = &argument[at + 1..];
            let value = if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
                &value[1..value.len() - 1]
            } else {
                value
            };
            Ok((argument[..at].to_string(), value.to_string()))
        }
        None => Ok((argument, String::new())),
    }
}

/// `kustomize edit add label|annotation [--force] k:v...` into `commonLabels` / `commonAnnotations`.
fn add_to_map(
    k: &mut Map<String, Value>,
    field: &str,
    kind: &'static str,
    pairs: &[(String, String)],
    force: bool,
) -> Result<(), EditError> {
    let command = if kind == "label" { "add label" } else { "add annotation" };
    let map = match k.entry(field).or_insert_with(|| json!({})) {
        Value::Object(map) => map,
        other => {
            *other = json!({});
            other.as_object_mut().expect("just made an object")
        }
    };
    for (name, value) in pairs {
        let (name, value) = as_argument(name, value).map_err(|message| command_error(command, &message))?;
        if map.contains_key(&name) && !force {
            return Err(command_error(
                command,
                &format!("{kind} {name} already in kustomization file. Use --force to override."),
            ));
        }
        map.insert(name, json!(value));
    }
    Ok(())
}

/// `kustomize edit add label --without-selector [--include-templates] [--force] k:v...` as kustomize v5.7.1's
/// `writeToLabels` does it: each pair goes into the `labels` entry with `includeSelectors: false` and the same
/// includeTemplates; when there is none, the first pair adds one holding every pair, so a later pair of the same
/// command finds itself there and needs `--force` (a quirk of kustomize this emulation keeps).
fn add_labels_without_selector(
    k: &mut Map<String, Value>,
    pairs: &[(String, String)],
    force: bool,
    include_templates: bool,
) -> Result<(), EditError> {
    let mut arguments = Vec::new();
    for (name, value) in pairs {
        arguments.push(as_argument(name, value).map_err(|message| command_error("add label", &message))?);
    }
    let Value::Array(labels) = k.entry("labels").or_insert_with(|| json!([])) else {
        return Err(option_error("commonLabels", "the kustomization's `labels` is not a list"));
    };
    let flag = |label: &Value, name: &str| label.get(name).and_then(Value::as_bool).unwrap_or(false);
    let matching = |labels: &[Value]| {
        labels
            .iter()
            .position(|label| !flag(label, "includeSelectors") && flag(label, "includeTemplates") == include_templates)
    };
    for (name, value) in &arguments {
        let Some(index) = matching(labels) else {
            let pairs: Map<String, Value> = arguments.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
            let mut entry = json!({"pairs": pairs});
            if include_templates {
                entry["includeTemplates"] = json!(true);
            }
            labels.push(entry);
            continue;
        };
        let entry =
            labels[index].as_object_mut().ok_or_else(|| option_error("commonLabels", "a label is not a map"))?;
        let Value::Object(map) = entry.entry("pairs").or_insert_with(|| json!({})) else {
            return Err(option_error("commonLabels", "a label entry's pairs is not a map"));
        };
        if map.contains_key(name) && !force {
            return Err(command_error(
                "add label",
                &format!("label {name} already in kustomization file. Use --force to override."),
            ));
        }
        map.insert(name.clone(), json!(value));
    }
    Ok(())
}

/// Go's `os.Expand`: `$name` and `${name}` replaced by `mapping(name)`; `${}` and an unclosed `${` are eaten; a
/// `$` followed by no name stays.
pub fn go_expand(text: &str, mapping: &mut dyn FnMut(&str) -> String) -> String {
    let bytes = text.as_bytes();
    let special = |c: u8| b"*#$@!?-0123456789".contains(&c);
    let alphanumeric = |c: u8| c == b'_' || c.is_ascii_alphanumeric();
    let mut out = String::with_capacity(text.len());
    let (mut start, mut j) = (0, 0);
    while j < bytes.len() {
        if bytes[j] == b'$' && j + 1 < bytes.len() {
            out.push_str(&text[start..j]);
            let rest = &text[j + 1..];
            let rb = rest.as_bytes();
            let (name, width): (&str, usize) = if rb[0] == b'{' {
                if rb.len() > 2 && special(rb[1]) && rb[2] == b'}' {
                    (&rest[1..2], 3)
                } else {
                    match rest[1..].find('}') {
                        Some(0) => ("", 2),
                        Some(at) => (&rest[1..at + 1], at + 2),
                        None => ("", 1),
                    }
                }
            } else if special(rb[0]) {
                (&rest[..1], 1)
            } else {
                let end = rb.iter().position(|c| !alphanumeric(*c)).unwrap_or(rb.len());
                (&rest[..end], end)
            };
            if name.is_empty() && width == 0 {
                out.push('$');
            } else if !name.is_empty() {
                out.push_str(&mapping(name));
            }
            j += width;
            start = j + 1;
        }
        j += 1;
    }
    out.push_str(&text[start.min(text.len())..]);
    out
}

/// The repository-relative directories of the local components `argo` adds to the kustomization of `relative`
/// (those that stay inside the repository).
pub fn component_dirs(argo: &ArgoKustomize, relative: &str) -> Vec<String> {
    let components = argo.options.get("components").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    components.iter().filter_map(Value::as_str).filter_map(|component| below(relative, component)).collect()
}

/// `path`, relative to the repository directory `relative`, as a repository-relative path with `.` and `..`
/// resolved; None when it climbs above the repository root.
fn below(relative: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// One of the `patches` the options append: a file (repository-relative) or an inline patch and the JSON pointer
/// of its text in the Application.
#[derive(Debug, Clone, PartialEq)]
pub enum AddedPatch {
    File(String),
    Inline { text: String, pointer: String },
}

/// The patches `argo` appends to the kustomization of `relative`, in order (applied after the kustomization's own).
pub fn added_patches(argo: &ArgoKustomize, relative: &str) -> Vec<AddedPatch> {
    let patches = argo.options.get("patches").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    patches
        .iter()
        .enumerate()
        .filter_map(|(index, patch)| {
            if let Some(text) = patch.get("patch").and_then(Value::as_str).filter(|text| !text.is_empty()) {
                let pointer = format!("{}/kustomize/patches/{index}/patch", argo.pointer);
                return Some(AddedPatch::Inline { text: text.to_string(), pointer });
            }
            let path = patch.get("path").and_then(Value::as_str)?;
            below(relative, path).map(AddedPatch::File)
        })
        .collect()
}

/// The kustomization file of `dir`, if any.
pub fn kustomization_file(dir: &Path) -> Option<&'static str> {
    KUSTOMIZATION_FILES.iter().copied().find(|name| dir.join(name).is_file())
}

/// Applies `argo`'s options to the kustomization of `relative` in the repository's staged copy `stage` (the user's
/// files are never written: the staged file is replaced, then restored) and builds it there. Objects name their
/// repository-relative files, which are the user's (the stage has the same layout). Returns what was not applied
/// too.
pub fn build_edited(
    stage: &Stage,
    relative: &str,
    argo: &ArgoKustomize,
    budget: &Budget,
) -> Result<(Vec<BuiltObject>, Vec<NotApplied>), EditError> {
    let root = stage.root();
    let app_dir = root.join(relative);
    let name = kustomization_file(&app_dir).ok_or_else(|| EditError::NoKustomization(relative.to_string()))?;
    let file = if relative.is_empty() { name.to_string() } else { format!("{relative}/{name}") };
    let text = std::fs::read_to_string(root.join(&file)).map_err(stage_error)?;
    let kustomization = manifest::parse_plain_value(&text, name)
        .map_err(|err| command_error("set", &format!("invalid Kustomization: {err}")))?;
    let exists = |component: &str| -> bool {
        let joined = if relative.is_empty() { component.to_string() } else { format!("{relative}/{component}") };
        crate::source::helm::in_repository(root, &joined).is_some_and(|path| path.exists())
    };
    let edited = edit(&kustomization, argo, &exists)?;
    stage.replace(&file, &manifest::to_yaml(&edited.kustomization)).map_err(stage_error)?;
    let request = BuildRequest { resources: vec![relative.to_string()], ..BuildRequest::default() };
    let built = kustomize::build(root, &request, budget).map_err(|err| EditError::Build(err.to_string()));
    // The next source may build the same directory with other options.
    stage.replace(&file, &text).map_err(stage_error)?;
    Ok((built?, edited.not_applied))
}

fn stage_error(err: std::io::Error) -> EditError {
    EditError::Stage(err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argo(options: Value) -> ArgoKustomize {
        let application = json!({"metadata": {"name": "app"}, "spec": {"destination": {"namespace": "ns"}}});
        ArgoKustomize::of_source(&json!({"path": "apps/x", "kustomize": options}), "/spec/source", &application)
            .unwrap()
    }

    #[test]
    fn images_parse_as_kustomize_edit_set_image_does() {
        assert_eq!(split_image_name("nginx:1.2"), ("nginx", "1.2", ""));
        assert_eq!(
            split_image_name("localhost:5000/nginx:1.2@sha256:ab"),
            ("localhost:5000/nginx", "1.2", "sha256:ab")
        );
        assert_eq!(split_image_name("a/b@sha256:ab"), ("a/b", "", "sha256:ab"));
        assert!(parse_image("nginx").is_none());
        assert_eq!(
            Value::Object(parse_image("app=registry.io/app:v2").unwrap()),
            json!({"name": "app", "newName": "registry.io/app", "newTag": "v2"})
        );
    }

    #[test]
    fn options_are_applied_in_argo_cds_order() {
        let kustomization = json!({"resources": ["a.yaml"], "images": [{"name": "b", "newTag": "1"}]});
        let edited = edit(
            &kustomization,
            &argo(json!({"namePrefix": "p-", "images": ["a:${ARGOCD_APP_NAME}", "b=*:2"], "commonLabels": {"x": "y"},
                "namespace": "team", "version": "v5"})),
            &|_| true,
        )
        .unwrap();
        assert_eq!(
            edited.kustomization,
            json!({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": ["a.yaml"],
                "namePrefix": "p-", "namespace": "team", "commonLabels": {"x": "y"},
                "images": [{"name": "a", "newTag": "app"}, {"name": "b", "newTag": "2"}]})
        );
        assert_eq!(edited.not_applied.len(), 1);
        assert_eq!(edited.not_applied[0].option, "/version");
        assert!(edited.not_applied[0].message.starts_with("kustomize.version"), "{:?}", edited.not_applied);
    }

    #[test]
    fn an_existing_label_needs_force() {
        let kustomization = json!({"commonLabels": {"x": "old"}});
        let err = edit(&kustomization, &argo(json!({"commonLabels": {"x": "y"}})), &|_| true).unwrap_err();
        assert!(err.to_string().contains("label x already in kustomization file"), "{err}");
        let edited =
            edit(&kustomization, &argo(json!({"commonLabels": {"x": "y"}, "forceCommonLabels": true})), &|_| true)
                .unwrap();
        assert_eq!(edited.kustomization["commonLabels"], json!({"x": "y"}));
    }

    #[test]
    fn added_components_and_patches_resolve_against_the_apps_directory() {
        let argo = argo(json!({"components": ["../../components/x", "../../../outside"],
            "patches": [{"path": "../common/p.yaml"}, {"patch": "- op: remove\n  path: /a\n"}]}));
        assert_eq!(component_dirs(&argo, "clusters/team-b"), ["components/x"]);
        assert_eq!(
            added_patches(&argo, "clusters/team-b"),
            [
                AddedPatch::File("clusters/common/p.yaml".to_string()),
                AddedPatch::Inline {
                    text: "- op: remove\n  path: /a\n".to_string(),
                    pointer: "/spec/source/kustomize/patches/1/patch".to_string()
                }
            ]
        );
    }

    #[test]
    fn the_revision_has_a_stand_in_and_a_warning_at_the_option() {
        let edited =
            edit(&json!({}), &argo(json!({"images": ["app=registry/app:${ARGOCD_APP_REVISION_SHORT}"]})), &|_| true)
                .unwrap();
        assert_eq!(
            edited.kustomization["images"],
            json!([{"name": "app", "newName": "registry/app", "newTag": "0000000"}])
        );
        assert_eq!(edited.not_applied.len(), 1);
        assert_eq!(edited.not_applied[0].option, "/images");
        assert!(edited.not_applied[0].message.contains("$ARGOCD_APP_REVISION_SHORT"), "{:?}", edited.not_applied);
    }

    #[test]
    fn go_expand_follows_os_expand() {
        let mut map = |name: &str| format!("<{name}>");
        assert_eq!(go_expand("a$B-${C}d$$e${}f$", &mut map), "a<B>-<C>d<$>ef$");
        assert_eq!(go_expand("x${unclosed", &mut map), "xunclosed");
    }
}
