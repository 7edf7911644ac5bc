//! A `kustomization.yaml` read without running kustomize: the directories and files it includes, and what would make
//! building it unsafe for an untrusted pull request (remote bases, exec and KRM-function plugins, Helm inflation,
//! paths that leave the repository).

use std::path::Path;

use serde_json::Value;

use super::boundary::{Boundary, Walked};
use super::remote::{remote_file_reason, remote_reason};
use crate::json_pointer::At;
use crate::manifest::{self, LineIndex};

/// The file names kustomize recognises, in its order of preference.
pub const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// What a kustomization refers to.
#[derive(Debug, Clone, Default)]
pub struct Kustomization {
    /// Repository-relative path of the kustomization file.
    pub file: String,
    /// Directories included as resources, bases or components (repository-relative).
    pub dirs: Vec<String>,
    /// Files read by the build: resources, patches, generator inputs, replacements, configurations.
    pub files: Vec<String>,
    /// Patch files and inline patches, in the order kustomize applies them.
    pub patches: Vec<PatchSource>,
    /// Why it must not be built, each at its line of the kustomization file.
    pub refusals: Vec<(usize, String)>,
    /// Files it reads from outside its own directory (inside the repository), each at its line: kustomize's default
    /// load restrictions refuse them; Flux builds with `LoadRestrictionsNone` and reads them.
    pub outside_dir: Vec<(usize, String)>,
    /// Nothing but `resources` of local files and directories: its build is those files' objects, read directly.
    pub only_resources: bool,
    /// `kind: Component`: only ever built as a part of a kustomization that lists it, never on its own.
    pub is_component: bool,
}

/// Where a patch comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchSource {
    /// A file (strategic merge or JSON 6902), repository-relative.
    File(String),
    /// Inline in the kustomization file: the patch text and the line of the `patch:` field.
    Inline { text: String, line: usize },
}

pub use super::relative::resolve;
pub use super::remote::is_remote;

/// Whether repository-relative `path` is `dir` or below it (kustomize's `LoadRestrictionsRootOnly` test).
fn is_in_or_below(path: &str, dir: &str) -> bool {
    dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

/// Builtin generator and transformer kinds (`generators:`/`transformers:` entries of these kinds run no code).
const BUILTIN_PLUGINS: [&str; 16] = [
    "AnnotationsTransformer",
    "ConfigMapGenerator",
    "HashTransformer",
    "HelmChartInflationGenerator",
    "IAMPolicyGenerator",
    "ImageTagTransformer",
    "LabelTransformer",
    "NamespaceTransformer",
    "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer",
    "PatchTransformer",
    "PrefixSuffixTransformer",
    "PrefixTransformer",
    "ReplacementTransformer",
    "ReplicaCountTransformer",
    "SecretGenerator",
];

/// Reads the kustomization file `file` of `dir` (both relative to the repository `root`); every path it names is
/// looked up in `boundary`: one that is not a walked file or directory (`.git`, a refused symlink, an excluded or
/// missing path) is a refusal at its line, so no tool is asked to read it.
pub fn read(root: &Path, dir: &str, file: &str, boundary: &Boundary) -> Result<Kustomization, String> {
    let text = manifest::read_input_file(root.join(file)).map_err(|err| format!("cannot read {file}: {err}"))?;
    let (value, lines) = manifest::parse_value(&text, file).map_err(|err| err.to_string())?;
    let mut reader = Reader {
        root,
        dir,
        boundary,
        lines: &lines,
        out: Kustomization { file: file.to_string(), ..Default::default() },
    };
    reader.out.is_component = value.get("kind").and_then(serde_json::Value::as_str) == Some("Component");
    for field in ["resources", "bases", "components"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.as_str() {
                reader.reference(&format!("/{field}/{i}"), name, true);
            }
        }
    }
    // Files read by generators and patches.
    for (i, item) in array(&value, "patchesStrategicMerge").iter().enumerate() {
        if let Some(name) = item.as_str() {
            let pointer = format!("/patchesStrategicMerge/{i}");
            if name.contains('\n') || name.trim_start().starts_with('{') {
                let line = reader.line(&pointer);
                reader.out.patches.push(PatchSource::Inline { text: name.to_string(), line });
            } else if let Some(resolved) = reader.reference(&pointer, name, false) {
                reader.out.patches.push(PatchSource::File(resolved));
            }
        }
    }
    for field in ["patches", "patchesJson6902"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.get("path").and_then(Value::as_str)
                && let Some(resolved) = reader.reference(&format!("/{field}/{i}/path"), name, false)
            {
                reader.out.patches.push(PatchSource::File(resolved));
            }
            if let Some(text) = item.get("patch").and_then(Value::as_str) {
                let line = reader.line(&format!("/{field}/{i}/patch"));
                reader.out.patches.push(PatchSource::Inline { text: text.to_string(), line });
            }
        }
    }
    for field in ["configMapGenerator", "secretGenerator"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            reader.generator_files(item, &format!("/{field}/{i}"), None);
        }
    }
    for (i, item) in array(&value, "replacements").iter().enumerate() {
        if let Some(name) = item.get("path").and_then(Value::as_str) {
            reader.reference(&format!("/replacements/{i}/path"), name, false);
        }
    }
    for field in ["configurations", "crds"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.as_str() {
                reader.reference(&format!("/{field}/{i}"), name, false);
            }
        }
    }
    if let Some(name) = value.str_at("/openapi/path") {
        reader.reference("/openapi/path", name, false);
    }
    reader.out.only_resources = value
        .as_object()
        .is_some_and(|fields| fields.keys().all(|key| matches!(key.as_str(), "apiVersion" | "kind" | "resources")))
        && reader.out.refusals.is_empty()
        && reader.out.files.len() + reader.out.dirs.len() == array(&value, "resources").len();
    reader.plugins(&value);
    // `helmChartInflationGenerator` is the deprecated spelling kustomize moves into `helmCharts`.
    for field in ["helmCharts", "helmChartInflationGenerator"] {
        if value.get(field).is_some_and(|charts| charts.as_array().is_some_and(|c| !c.is_empty())) {
            let line = reader.line(&format!("/{field}"));
            reader.out.refusals.push((
                line,
                format!(
                    "`{field}` needs kustomize's Helm inflation (`--enable-helm`, which runs helm and may download \
                     charts): not built"
                ),
            ));
        }
    }
    Ok(reader.out)
}

/// One kustomization being read.
struct Reader<'a> {
    root: &'a Path,
    dir: &'a str,
    boundary: &'a Boundary,
    lines: &'a LineIndex,
    out: Kustomization,
}

impl Reader<'_> {
    fn line(&self, pointer: &str) -> usize {
        self.lines.line_of(pointer).unwrap_or(1)
    }

    /// A path the kustomization names at `pointer`: recorded when it is a walked file (or a walked directory, with
    /// `dirs_allowed`), else a refusal saying why. Returns the repository-relative path of a file.
    fn reference(&mut self, pointer: &str, reference: &str, dirs_allowed: bool) -> Option<String> {
        let line = self.line(pointer);
        self.reference_at(line, reference, dirs_allowed, "")
    }

    /// [`Reader::reference`] at `line`; `context` ends the refusal's subject (`, in the plugin config x.yaml`).
    fn reference_at(&mut self, line: usize, reference: &str, dirs_allowed: bool, context: &str) -> Option<String> {
        let remote = if dirs_allowed { remote_reason(reference) } else { remote_file_reason(reference) };
        if let Some(reason) = remote {
            let what = if dirs_allowed { "base" } else { "file" };
            self.out.refusals.push((
                line,
                format!(
                    "`{reference}`{context} is a remote {what} ({reason}): repository mode builds local kustomizations \
                     only (nothing is fetched from the network, no git or ssh runs); not built"
                ),
            ));
            return None;
        }
        let Some(resolved) = resolve(self.dir, reference) else {
            self.out.refusals.push((
                line,
                format!("`{reference}`{context} is outside the repository: nothing outside it is read; not built"),
            ));
            return None;
        };
        match self.boundary.lookup(&resolved) {
            Walked::Dir(walked) if dirs_allowed => {
                self.out.dirs.push(walked);
                None
            }
            Walked::Dir(_) => {
                self.out.refusals.push((line, format!("`{reference}`{context} is a directory, not a file")));
                None
            }
            Walked::File(walked) => {
                if !is_in_or_below(&resolved, self.dir) {
                    self.out.outside_dir.push((line, reference.to_string()));
                }
                self.out.files.push(walked.clone());
                Some(walked)
            }
            Walked::Not(why) => {
                let path = if resolved == reference.trim_start_matches("./") {
                    String::new()
                } else {
                    format!(" (`{resolved}` in the repository)")
                };
                self.out.refusals.push((
                    line,
                    format!(
                        "`{reference}`{context}{path} {why}: only the repository's walked files are handed to \
                         kustomize; not built"
                    ),
                ));
                None
            }
        }
    }

    /// The files a `configMapGenerator`/`secretGenerator` entry (or a builtin generator's config) reads: `files`
    /// (`key=path` too), `envs` and `env`.
    fn generator_files(&mut self, item: &Value, pointer: &str, at: Option<(usize, &str)>) {
        for key in ["files", "envs", "env"] {
            let names: Vec<(String, String)> = match item.get(key) {
                Some(Value::String(name)) => vec![(format!("{pointer}/{key}"), name.clone())],
                Some(Value::Array(names)) => names
                    .iter()
                    .enumerate()
                    .filter_map(|(j, n)| n.as_str().map(|n| (format!("{pointer}/{key}/{j}"), n.to_string())))
                    .collect(),
                _ => Vec::new(),
            };
            for (pointer, name) in names {
                let path = name.split_once('=').map_or(name.as_str(), |(_, path)| path);
                match at {
                    Some((line, context)) => self.reference_at(line, path, false, context),
                    None => self.reference(&pointer, path, false),
                };
            }
        }
    }

    /// The files a builtin plugin's config reads (relative to the kustomization, as kustomize loads them), each
    /// checked like the kustomization's own; `HelmChartInflationGenerator` runs helm: refused.
    fn plugin_files(&mut self, config: &Value, line: usize, context: &str) {
        let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
        match kind {
            "PatchTransformer" | "PatchJson6902Transformer" => {
                if let Some(path) = config.get("path").and_then(Value::as_str) {
                    self.reference_at(line, path, false, context);
                }
            }
            "PatchStrategicMergeTransformer" => {
                for path in config.get("paths").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(path) = path.as_str() {
                        self.reference_at(line, path, false, context);
                    }
                }
            }
            "ConfigMapGenerator" | "SecretGenerator" => self.generator_files(config, "", Some((line, context))),
            "ReplacementTransformer" => {
                for replacement in config.get("replacements").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(path) = replacement.get("path").and_then(Value::as_str) {
                        self.reference_at(line, path, false, context);
                    }
                }
            }
            "HelmChartInflationGenerator" => self.out.refusals.push((
                line,
                format!(
                    "`{kind}`{context} needs kustomize's Helm inflation (`--enable-helm`, which runs helm and may \
                     download charts): not built"
                ),
            )),
            _ => {}
        }
    }

    /// `generators`, `transformers` and `validators` entries that are not builtin plugins need
    /// `--enable-alpha-plugins`/`--enable-exec` (they run programs or containers): refused. The files builtin ones
    /// read are checked like the kustomization's own.
    fn plugins(&mut self, value: &Value) {
        for field in ["generators", "transformers", "validators"] {
            for (i, item) in array(value, field).iter().enumerate() {
                let line = self.line(&format!("/{field}/{i}"));
                let (configs, context): (Vec<Value>, String) = match item {
                    Value::String(text) if text.contains('\n') || text.contains("kind:") => (
                        manifest::parse_plain_value(text, "inline").into_iter().collect(),
                        format!(", in the inline `{field}` entry {}", i + 1),
                    ),
                    Value::String(name) if !is_remote(name) => match resolve(self.dir, name) {
                        Some(resolved) => match self.boundary.lookup(&resolved) {
                            Walked::File(walked) => {
                                self.out.files.push(walked.clone());
                                let configs = std::fs::read_to_string(self.root.join(&walked))
                                    .ok()
                                    .and_then(|text| manifest::parse_plain_documents(&text, &walked).ok())
                                    .map(|documents| documents.into_iter().map(|d| d.value).collect())
                                    .unwrap_or_default();
                                (configs, format!(", in the plugin config `{name}`"))
                            }
                            // A directory of plugin configs is a kustomization itself: its entries are checked when it
                            // is read.
                            Walked::Dir(walked) => {
                                self.out.dirs.push(walked);
                                continue;
                            }
                            Walked::Not(_) => {
                                self.reference_at(line, name, false, "");
                                continue;
                            }
                        },
                        None => (Vec::new(), String::new()),
                    },
                    Value::Object(_) => (vec![item.clone()], format!(", in `{field}` entry {}", i + 1)),
                    _ => (Vec::new(), String::new()),
                };
                if configs.is_empty() || !configs.iter().all(is_builtin_plugin) {
                    self.out.refusals.push((
                        line,
                        format!(
                            "`{field}` entry {} is not a builtin plugin: it needs kustomize's exec or KRM-function \
                             plugins (`--enable-alpha-plugins`, `--enable-exec`), which repository mode never enables; \
                             not built",
                            i + 1
                        ),
                    ));
                    continue;
                }
                for config in &configs {
                    self.plugin_files(config, line, &context);
                }
            }
        }
    }
}

/// A plugin config of a builtin generator or transformer (no `config.kubernetes.io/function` annotation).
fn is_builtin_plugin(config: &Value) -> bool {
    let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = config.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let function = config.object_at("/metadata/annotations").is_some_and(|annotations| {
        annotations.contains_key("config.kubernetes.io/function") || annotations.contains_key("config.k8s.io/function")
    });
    !function && (api_version == "builtin" || BUILTIN_PLUGINS.contains(&kind))
}

fn array<'a>(value: &'a Value, field: &str) -> &'a [Value] {
    value.get(field).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_references_are_recognised() {
        for remote in [
            "https://github.com/kubernetes-sigs/kustomize//examples/multibases?ref=v1.0.6",
            "github.com/org/repo/deploy?ref=main",
            "git@github.com:org/repo.git",
            "ssh://git@example.com/repo.git//base",
        ] {
            assert!(is_remote(remote), "{remote}");
        }
        for local in ["../base", "deployment.yaml", "github/x.yaml"] {
            assert!(!is_remote(local), "{local}");
        }
    }

    #[test]
    fn every_path_a_kustomization_names_is_a_walked_file_or_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "token").unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/cm.yaml"), "kind: ConfigMap").unwrap();
        std::fs::write(root.join("app/patch.yaml"), "kind: ConfigMap").unwrap();
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "resources:\n- cm.yaml\n- missing.yaml\npatches:\n- path: patch.yaml\nsecretGenerator:\n- name: s\n  envs:\n  \
             - ../.git/config\ntransformers:\n- |-\n  apiVersion: builtin\n  kind: PatchStrategicMergeTransformer\n  \
             metadata:\n    name: p\n  paths:\n  - /etc/passwd\nhelmChartInflationGenerator:\n- chartName: x\n",
        )
        .unwrap();
        let tree = super::super::walk::walk(root, &[]).unwrap();
        let boundary = Boundary::new(root, &tree);
        let read = read(root, "app", "app/kustomization.yaml", &boundary).unwrap();
        assert_eq!(read.files, ["app/cm.yaml", "app/patch.yaml"]);
        assert_eq!(read.patches, [PatchSource::File("app/patch.yaml".into())]);
        let refusals: Vec<(usize, &str)> =
            read.refusals.iter().map(|(line, message)| (*line, message.split(':').next().unwrap())).collect();
        assert_eq!(
            refusals,
            [
                (3, "`missing.yaml` (`app/missing.yaml` in the repository) does not exist in this repository"),
                (
                    9,
                    "`../.git/config` (`.git/config` in the repository) is inside `.git`, version control metadata that is never read (nor handed to a tool)"
                ),
                (12, "`/etc/passwd`, in the inline `transformers` entry 1 is outside the repository"),
                (
                    18,
                    "`helmChartInflationGenerator` needs kustomize's Helm inflation (`--enable-helm`, which runs helm and may download charts)"
                ),
            ]
        );
        assert!(!read.only_resources);
    }
}
