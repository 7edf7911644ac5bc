//! The minijinja environment over the embedded `flavors/` and `clusterclasses/` trees (or a
//! `--flavor-dir` override): renders templates to YAML text and parses it into documents.
//!
//! Conventions for template authors:
//! - Templates are `*.yaml.j2`; `{{ x }}` is JSON-escaped automatically (a string prints quoted, so
//!   YAML can't re-type it), `{{ x | tojson }}` does the same explicitly.
//! - Undefined variables and attributes are errors (strict mode).
//! - `{% filter overlay(obj) %} ...YAML object... {% endfilter %}` deep-merges `obj` (JSON merge
//!   patch) into the object written in the block and prints it as one-line JSON (valid YAML).
//! - `fail("message")` aborts rendering with `template file:line: message`.
//! - Blocks trim their newline (`trim_blocks`, `lstrip_blocks`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use include_dir::{Dir, include_dir};
use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, Error, ErrorKind, State, UndefinedBehavior, Value as JinjaValue};
use serde_json::Value;

use super::RenderError;
use crate::manifest::{self, Document};

/// The flavor templates compiled into the binary.
pub static EMBEDDED_FLAVORS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/flavors");
/// The ClusterClass templates compiled into the binary.
pub static EMBEDDED_CLUSTERCLASSES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/clusterclasses");

/// Where templates come from: `flavors/<path>` is looked up in the override directory first
/// (when given), then in the embedded tree; `clusterclasses/<path>` in the embedded tree.
#[derive(Debug, Clone, Default)]
pub struct TemplateSource {
    /// `--flavor-dir`: a directory laid out like `flavors/` (one subdirectory per flavor).
    pub flavor_dir: Option<PathBuf>,
}

impl TemplateSource {
    /// The text of a template by its name (`flavors/aks/cluster.yaml.j2`), or None.
    pub fn read(&self, name: &str) -> Result<Option<String>, std::io::Error> {
        if name.split('/').any(|part| part == "..") {
            return Ok(None);
        }
        if let Some(rest) = name.strip_prefix("flavors/") {
            if let Some(dir) = &self.flavor_dir {
                let path = dir.join(rest);
                if path.is_file() {
                    return crate::manifest::read_input_file(path).map(Some);
                }
            }
            return Ok(EMBEDDED_FLAVORS.get_file(rest).and_then(|f| f.contents_utf8()).map(str::to_string));
        }
        if let Some(rest) = name.strip_prefix("clusterclasses/") {
            return Ok(EMBEDDED_CLUSTERCLASSES.get_file(rest).and_then(|f| f.contents_utf8()).map(str::to_string));
        }
        Ok(None)
    }

    /// How a template is named in messages: the user's file (`DIR/aks/cluster.yaml.j2`) when it comes
    /// from `--flavor-dir`, else its embedded name (`flavors/aks/cluster.yaml.j2`).
    pub fn label(&self, name: &str) -> String {
        if let (Some(rest), Some(dir)) = (name.strip_prefix("flavors/"), &self.flavor_dir)
            && !name.split('/').any(|part| part == "..")
        {
            let path = dir.join(rest);
            if path.is_file() {
                return path.display().to_string();
            }
        }
        name.to_string()
    }

    /// File names (not paths) directly inside `flavors/<flavor>/`, sorted, override first.
    pub fn flavor_files(&self, flavor: &str) -> Vec<String> {
        if let Some(dir) = &self.flavor_dir {
            let path = dir.join(flavor);
            if path.is_dir() {
                return list_dir(&path);
            }
        }
        let mut names: Vec<String> = EMBEDDED_FLAVORS
            .get_dir(flavor)
            .map(|d| d.files().filter_map(|f| f.path().file_name()?.to_str().map(str::to_string)).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Flavor names: subdirectories of `flavors/` (and of the override) holding a `flavor.yaml`.
    pub fn flavor_names(&self) -> Vec<String> {
        let mut names: Vec<String> = EMBEDDED_FLAVORS
            .dirs()
            .filter(|d| d.get_file(d.path().join("flavor.yaml")).is_some())
            .filter_map(|d| d.path().file_name()?.to_str().map(str::to_string))
            .collect();
        if let Some(dir) = &self.flavor_dir
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            for entry in entries.flatten() {
                if entry.path().join("flavor.yaml").is_file()
                    && let Some(name) = entry.file_name().to_str()
                {
                    names.push(name.to_string());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

fn list_dir(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The template engine.
pub struct Engine {
    env: Environment<'static>,
    source: TemplateSource,
}

impl Engine {
    /// An engine over the embedded templates, with `flavor_dir` overriding `flavors/`.
    pub fn new(flavor_dir: Option<&Path>) -> Self {
        let source = TemplateSource { flavor_dir: flavor_dir.map(Path::to_path_buf) };
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        if let Ok(syntax) =
            SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).keep_trailing_newline(true).build()
        {
            env.set_syntax(syntax);
        }
        let loader_source = source.clone();
        env.set_loader(move |name| {
            loader_source
                .read(name)
                .map_err(|err| Error::new(ErrorKind::InvalidOperation, format!("cannot read template {name}: {err}")))
        });
        env.add_filter("overlay", overlay_filter);
        env.add_filter("b64decode", b64decode_filter);
        env.add_function("fail", fail_function);
        Engine { env, source }
    }

    /// Where templates come from.
    pub fn source(&self) -> &TemplateSource {
        &self.source
    }

    /// Renders one template (by name, e.g. `flavors/aks/cluster.yaml.j2`) with `context` to text.
    pub fn render_text(&self, name: &str, context: &Value) -> Result<String, RenderError> {
        self.render_root(name, JinjaValue::from(minijinja::value::Serde(context)))
    }

    /// Renders one template with `root` as its context.
    fn render_root(&self, name: &str, root: JinjaValue) -> Result<String, RenderError> {
        let error = |err: Error| template_error(&self.source, name, &err);
        let template = self.env.get_template(name).map_err(error)?;
        template.render(root).map_err(error)
    }

    /// Renders one template and parses its output into documents (empty documents dropped).
    pub fn render_documents(&self, name: &str, context: &Value) -> Result<Vec<Document>, RenderError> {
        if let Some(documents) = self.render_documents_spliced(name, context) {
            return Ok(documents);
        }
        let text = self.render_text(name, context)?;
        let label = self.source.label(name);
        manifest::parse_plain_documents(&text, &format!("<rendered {label}>"))
            .map_err(|err| RenderError::BadOutput { template: label.clone(), message: err.to_string() })
    }

    /// [`Engine::render_documents`] without reading the `overlay` blocks' JSON back as YAML (start-up):
    /// the blocks print placeholders and their objects are put in their place after parsing. None when that may
    /// not give what the JSON text gives (a template or YAML error, a placeholder inside a string, a key or another
    /// overlay, printed twice or not at all): the caller renders again the plain way.
    fn render_documents_spliced(&self, name: &str, context: &Value) -> Option<Vec<Document>> {
        let kept = Arc::new(KeptOverlays::default());
        let root = minijinja::context! {
            __kubectl_capz_kept_overlays => JinjaValue::from_dyn_object(Arc::clone(&kept)),
            ..JinjaValue::from(minijinja::value::Serde(context))
        };
        let text = self.render_root(name, root);
        let overlays = std::mem::take(&mut *kept.0.lock().unwrap_or_else(PoisonError::into_inner));
        let text = text.ok()?;
        if overlays.is_empty() || text.matches(OVERLAY_PLACEHOLDER).count() != overlays.len() {
            return None;
        }
        let label = self.source.label(name);
        let mut documents = manifest::parse_plain_documents(&text, &format!("<rendered {label}>")).ok()?;
        let mut overlays: Vec<Option<Value>> = overlays.into_iter().map(Some).collect();
        for document in &mut documents {
            splice_overlays(&mut document.value, &mut overlays).ok()?;
        }
        overlays.iter().all(Option::is_none).then_some(documents)
    }

    /// Renders several templates in order into one list of documents, re-indexed.
    pub fn render_all(&self, names: &[String], context: &Value, label: &str) -> Result<Vec<Document>, RenderError> {
        let source: Arc<str> = Arc::from(label);
        let mut out = Vec::new();
        for name in names {
            for doc in self.render_documents(name, context)? {
                let index = out.len();
                out.push(Document::from_value(doc.value, &source, index));
            }
        }
        Ok(out)
    }
}

/// `template file:line: message`, with the innermost template minijinja reports, named as the user
/// knows it (their file under `--flavor-dir`).
fn template_error(source: &TemplateSource, requested: &str, err: &Error) -> RenderError {
    let name = source.label(err.name().unwrap_or(requested));
    let mut message = match err.detail() {
        Some(detail) => format!("{}: {detail}", err.kind()),
        None => err.kind().to_string(),
    };
    if err.kind() == ErrorKind::InvalidOperation
        && let Some(detail) = err.detail()
    {
        message = detail.to_string();
    }
    if err.kind() == ErrorKind::TemplateNotFound && err.name().is_none() {
        message = format!("template not found: {}", err.detail().unwrap_or(requested));
    }
    RenderError::Template { template: name, line: err.line(), message }
}

/// JSON merge patch (RFC 7386): objects merge recursively, `null` deletes, anything else replaces.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(patch_map) => {
            if !target.is_object() {
                *target = Value::Object(serde_json::Map::new());
            }
            if let Value::Object(map) = target {
                for (key, value) in patch_map {
                    if value.is_null() {
                        map.shift_remove(key);
                    } else {
                        merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let prefix = " ".repeat(indent);
    // Only blank lines can lack the common indent: they become empty (never a cut inside a multi-byte space).
    text.lines()
        .map(|l| l.strip_prefix(prefix.as_str()).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// While [`Engine::render_documents_spliced`] renders: the merged objects of the `overlay` blocks, in order. It
/// reaches the filter as a value of that render's context, under [`KEPT_OVERLAYS`] (a name no template uses), so
/// every render has its own and a plain render has none.
#[derive(Debug, Default)]
struct KeptOverlays(Mutex<Vec<Value>>);

impl minijinja::value::Object for KeptOverlays {}

/// The context name of a render's [`KeptOverlays`] (the key of `context!` in `render_documents_spliced`).
const KEPT_OVERLAYS: &str = "__kubectl_capz_kept_overlays";

/// An `overlay` block's output while its object is kept aside: `{"<this>": index}`, a flow mapping in the place
/// of the object's JSON (a flow mapping too), so the YAML around it reads the same.
const OVERLAY_PLACEHOLDER: &str = "capz-overlay-placeholder-b1d3e5";

/// Puts the kept objects in place of their placeholders; Err on a placeholder seen twice or out of range.
fn splice_overlays(value: &mut Value, overlays: &mut [Option<Value>]) -> Result<(), ()> {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key(OVERLAY_PLACEHOLDER) => {
            let index = map.get(OVERLAY_PLACEHOLDER).and_then(Value::as_u64).ok_or(())?;
            let index = usize::try_from(index).map_err(|_| ())?;
            *value = overlays.get_mut(index).and_then(Option::take).ok_or(())?;
        }
        Value::Array(items) => {
            for item in items {
                splice_overlays(item, overlays)?;
            }
        }
        Value::Object(map) => {
            for item in map.values_mut() {
                splice_overlays(item, overlays)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// True when the JSON text of `value`, read back as YAML, is `value` again: integers of i64, strings and keys
/// without characters YAML reads specially in double quotes or refuses raw, keys short enough to be implicit.
fn reads_back_exactly(value: &Value) -> bool {
    let plain_text = |text: &str| {
        !text
            .chars()
            .any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'))
    };
    match value {
        Value::Null | Value::Bool(_) => true,
        Value::Number(number) => number.is_i64(),
        Value::String(text) => plain_text(text),
        Value::Array(items) => items.iter().all(reads_back_exactly),
        Value::Object(map) => {
            map.iter().all(|(key, item)| key.len() < 1000 && plain_text(key) && reads_back_exactly(item))
        }
    }
}

/// `{% filter overlay(patch) %}object as YAML{% endfilter %}` -> the merged object as one-line JSON (or, while the
/// render keeps overlays aside, a placeholder for it).
fn overlay_filter(state: &State, body: String, patch: JinjaValue) -> Result<JinjaValue, Error> {
    let mut value = manifest::parse_plain_value(&dedent(&body), "overlay block").map_err(|err| {
        Error::new(ErrorKind::InvalidOperation, format!("the block of `overlay` is not valid YAML: {err}"))
    })?;
    let patch: Value = serde_json::to_value(&patch)
        .map_err(|err| Error::new(ErrorKind::InvalidOperation, format!("the overlay is not JSON-like: {err}")))?;
    if !patch.is_null() && !patch.is_object() {
        return Err(Error::new(ErrorKind::InvalidOperation, "an overlay must be a mapping"));
    }
    if !value.is_object() {
        return Err(Error::new(ErrorKind::InvalidOperation, "the block of `overlay` must be a YAML mapping"));
    }
    merge_patch(&mut value, &patch);
    let sink = state.lookup(KEPT_OVERLAYS);
    let kept = match sink.as_ref().and_then(|sink| sink.downcast_object_ref::<KeptOverlays>()) {
        // (An empty object's JSON `{}` is an empty document, which is dropped: printed as JSON.)
        Some(sink) if value.as_object().is_some_and(|map| !map.is_empty()) && reads_back_exactly(&value) => {
            let mut kept = sink.0.lock().unwrap_or_else(PoisonError::into_inner);
            kept.push(std::mem::take(&mut value));
            Some(kept.len() - 1)
        }
        _ => None,
    };
    // The newline after `{% endfilter %}` is trimmed; put it back so the next line stays a line.
    Ok(JinjaValue::from_safe_string(match kept {
        Some(index) => format!("{{\"{OVERLAY_PLACEHOLDER}\": {index}}}\n"),
        None => format!("{value}\n"),
    }))
}

fn b64decode_filter(text: String) -> Result<String, Error> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|err| Error::new(ErrorKind::InvalidOperation, format!("b64decode: not base64: {err}")))?;
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidOperation, "b64decode: not UTF-8 text"))
}

fn fail_function(message: String) -> Result<JinjaValue, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn engine_with(dir: &Path, files: &[(&str, &str)]) -> Engine {
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Engine::new(Some(dir))
    }

    #[test]
    fn dedent_keeps_blank_lines_of_any_whitespace_whole() {
        // A blank line of two ideographic spaces (6 bytes) is longer than the 4-space indent: cutting it at byte 4
        // would split a character; it becomes empty.
        assert_eq!(dedent("    a: 1\n\u{3000}\u{3000}\n    b: 2\n  \n"), "a: 1\n\nb: 2\n");
    }

    #[test]
    fn values_are_json_escaped_and_overlays_merge() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine_with(
            dir.path(),
            &[(
                "t/a.yaml.j2",
                "kind: X\nmetadata:\n  name: {{ name }}\nspec:\n  list:\n  - {% filter overlay(patch) %}\n    a: 1\n    b: {{ version }}\n    c: {x: 1}\n    {% endfilter %}\n",
            )],
        );
        let docs = engine
            .render_documents(
                "flavors/t/a.yaml.j2",
                &json!({"name": "yes", "version": "1.30", "patch": {"c": {"y": 2}, "a": null}}),
            )
            .unwrap();
        assert_eq!(
            docs[0].value,
            json!({"kind": "X", "metadata": {"name": "yes"}, "spec": {"list": [{"b": "1.30", "c": {"x": 1, "y": 2}}]}})
        );
    }

    #[test]
    fn errors_name_the_template_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine_with(
            dir.path(),
            &[
                ("t/undefined.yaml.j2", "a: 1\nb: {{ missing.attr }}\n"),
                ("t/fail.yaml.j2", "a: 1\n\n{{ fail('no way') }}\n"),
                ("t/syntax.yaml.j2", "a: {% if %}\n"),
                ("t/badyaml.yaml.j2", "a: [1\n"),
            ],
        );
        // Templates from --flavor-dir are named by the user's file, not the embedded name.
        let err = |name: &str| {
            let text = engine.render_documents(&format!("flavors/t/{name}"), &json!({})).unwrap_err().to_string();
            text.replace(&dir.path().display().to_string(), "DIR")
        };
        assert_eq!(
            err("undefined.yaml.j2"),
            "template DIR/t/undefined.yaml.j2:2: undefined value: `missing` is undefined"
        );
        assert_eq!(err("fail.yaml.j2"), "template DIR/t/fail.yaml.j2:3: no way");
        assert!(
            err("syntax.yaml.j2").starts_with("template DIR/t/syntax.yaml.j2:1: syntax error"),
            "{}",
            err("syntax.yaml.j2")
        );
        assert!(
            err("badyaml.yaml.j2").starts_with("template DIR/t/badyaml.yaml.j2 rendered invalid YAML: "),
            "{}",
            err("badyaml.yaml.j2")
        );
        assert!(err("nope.yaml.j2").contains("template not found"), "{}", err("nope.yaml.j2"));
    }

    /// Every embedded flavor, with overlays that are kept aside and overlays that are not (a float, a
    /// multi-line string): the spliced documents are the documents of the JSON text read back as YAML.
    #[test]
    fn spliced_overlays_give_the_documents_of_the_json_text() {
        use crate::params::{Inputs, merge, resolve};
        let engine = Engine::new(None);
        let env: std::collections::BTreeMap<String, String> = [
            ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000000"),
            ("AZURE_TENANT_ID", "11111111-1111-1111-1111-111111111111"),
            ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "22222222-2222-2222-2222-222222222222"),
            ("AZURE_LOCATION", "westeurope"),
            ("KUBERNETES_VERSION", "v1.33.2"),
            ("AZURE_RESOURCE_GROUP", "demo-rg"),
            ("CLUSTER_CLASS_NAME", "demo-class"),
            ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
            ("AZURE_NODE_MACHINE_TYPE", "Standard_D4s_v5"),
            ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
        let sets: [&[&str]; 3] = [
            &[],
            &[
                "maintenance.enabled=true",
                "managedCluster.spec.sku.tier=Standard",
                "pools[0].agentPool.spec.maxPods=50",
            ],
            &["managedCluster.spec.ratio=0.5", "resourceGroup.spec.note=\"a\\nb\"", "maintenance.enabled=true"],
        ];
        let mut spliced = std::collections::BTreeSet::new();
        for flavor_name in engine.source().flavor_names() {
            let flavor = crate::render::load_flavor(engine.source(), &flavor_name).unwrap();
            for set in sets {
                let inputs = Inputs {
                    env: env.clone(),
                    set: set.iter().map(ToString::to_string).collect(),
                    cluster_name: (!flavor_name.ends_with("clusterclass")).then(|| "demo".into()),
                    ..Inputs::default()
                };
                let Ok(params) = merge(&inputs)
                    .and_then(|layered| resolve(&layered, &flavor.name, &flavor.required, &flavor.unsupported))
                else {
                    continue;
                };
                for capi in [crate::render::CapiVersion::V1beta1, crate::render::CapiVersion::V1beta2] {
                    let context = crate::render::flavors::context(&flavor.name, &params, capi);
                    for name in &flavor.templates {
                        let plain = manifest::parse_plain_documents(
                            &engine.render_text(name, &context).unwrap(),
                            &format!("<rendered {name}>"),
                        )
                        .unwrap();
                        if engine.render_documents_spliced(name, &context).is_some() {
                            spliced.insert(flavor_name.clone());
                        }
                        let rendered = engine.render_documents(name, &context).unwrap();
                        let values = |docs: &[Document]| docs.iter().map(|d| d.value.clone()).collect::<Vec<_>>();
                        assert_eq!(values(&rendered), values(&plain), "{name} {set:?} {capi:?}");
                    }
                }
            }
        }
        let with_overlays = ["aks", "aks-aso"];
        assert!(with_overlays.iter().all(|f| spliced.contains(*f)), "overlays kept aside in {spliced:?} only");
    }

    #[test]
    fn overlays_that_json_would_retype_are_printed_as_json() {
        assert!(reads_back_exactly(&json!({"a": [1, -2, true, null, "text", {"b": "ü"}]})));
        for value in [json!({"a": 0.5}), json!({"a": u64::MAX}), json!({"a": "x\u{85}y"}), json!({"a\nb": 1})] {
            assert!(!reads_back_exactly(&value), "{value}");
        }
    }

    #[test]
    fn merge_patch_follows_rfc_7386() {
        let mut target = json!({"a": {"b": 1, "c": [1, 2]}, "d": 1});
        merge_patch(&mut target, &json!({"a": {"b": null, "c": [3]}, "e": {"f": 1}}));
        assert_eq!(target, json!({"a": {"c": [3]}, "d": 1, "e": {"f": 1}}));
    }
}
