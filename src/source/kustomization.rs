//! A `kustomization.yaml` read without running kustomize: the directories and files it includes, and what would make
//! building it unsafe for an untrusted pull request (remote bases, exec and KRM-function plugins, Helm inflation,
//! paths that leave the repository).

use std::path::{Component, Path};

use serde_json::Value;

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

/// Whether a reference is a remote base (a URL or a git/go-getter address) rather than a path.
pub fn is_remote(reference: &str) -> bool {
    let lower = reference.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("git@")
        || lower.starts_with("github.com/")
        || lower.starts_with("gitlab.com/")
        || lower.starts_with("bitbucket.org/")
        || lower.contains("?ref=")
        || lower.contains("?version=")
        || lower.contains(".git//")
        || lower.ends_with(".git")
}

/// `dir/reference` normalized lexically; `None` when it climbs above the repository root.
/// Whether repository-relative `path` is `dir` or below it (kustomize's `LoadRestrictionsRootOnly` test).
fn is_in_or_below(path: &str, dir: &str) -> bool {
    dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

pub fn resolve(dir: &str, reference: &str) -> Option<String> {
    let mut parts: Vec<String> = if dir.is_empty() { Vec::new() } else { dir.split('/').map(String::from).collect() };
    if reference.starts_with('/') {
        return None;
    }
    for component in Path::new(reference).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
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

/// Reads the kustomization file `file` of `dir` (both relative to the repository `root`); `exists` tells whether a
/// repository-relative path is a directory (`Some(true)`), a file (`Some(false)`) or absent (`None`).
pub fn read(
    root: &Path,
    dir: &str,
    file: &str,
    exists: &dyn Fn(&str) -> Option<bool>,
) -> Result<Kustomization, String> {
    let text = manifest::read_input_file(root.join(file)).map_err(|err| format!("cannot read {file}: {err}"))?;
    let (value, lines) = manifest::parse_value(&text, file).map_err(|err| err.to_string())?;
    let mut out = Kustomization { file: file.to_string(), ..Default::default() };
    out.is_component = value.get("kind").and_then(serde_json::Value::as_str) == Some("Component");
    let line = |pointer: &str| lines.line_of(pointer).unwrap_or(1);
    let reference = |out: &mut Kustomization, pointer: &str, reference: &str, dirs_allowed: bool| {
        if is_remote(reference) {
            out.refusals.push((
                line(pointer),
                format!(
                    "`{reference}` is a remote base: repository mode builds local kustomizations only (nothing is \
                     fetched from the network); not built"
                ),
            ));
            return;
        }
        let Some(resolved) = resolve(dir, reference) else {
            out.refusals.push((
                line(pointer),
                format!("`{reference}` is outside the repository: nothing outside it is read; not built"),
            ));
            return;
        };
        match exists(&resolved) {
            Some(true) if dirs_allowed => out.dirs.push(resolved),
            Some(true) => out.refusals.push((line(pointer), format!("`{reference}` is a directory, not a file"))),
            Some(false) => {
                if !is_in_or_below(&resolved, dir) {
                    out.outside_dir.push((line(pointer), reference.to_string()));
                }
                out.files.push(resolved);
            }
            None => {}
        }
    };
    for field in ["resources", "bases", "components"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.as_str() {
                reference(&mut out, &format!("/{field}/{i}"), name, true);
            }
        }
    }
    // Files read by generators and patches.
    for (i, item) in array(&value, "patchesStrategicMerge").iter().enumerate() {
        if let Some(name) = item.as_str() {
            if name.contains('\n') || name.trim_start().starts_with('{') {
                out.patches.push(PatchSource::Inline {
                    text: name.to_string(),
                    line: line(&format!("/patchesStrategicMerge/{i}")),
                });
            } else {
                reference(&mut out, &format!("/patchesStrategicMerge/{i}"), name, false);
                if let Some(resolved) = resolve(dir, name) {
                    out.patches.push(PatchSource::File(resolved));
                }
            }
        }
    }
    for field in ["patches", "patchesJson6902"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.get("path").and_then(Value::as_str) {
                reference(&mut out, &format!("/{field}/{i}/path"), name, false);
                if let Some(resolved) = resolve(dir, name) {
                    out.patches.push(PatchSource::File(resolved));
                }
            }
            if let Some(text) = item.get("patch").and_then(Value::as_str) {
                out.patches
                    .push(PatchSource::Inline { text: text.to_string(), line: line(&format!("/{field}/{i}/patch")) });
            }
        }
    }
    for field in ["configMapGenerator", "secretGenerator"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            for key in ["files", "envs", "env"] {
                let names: Vec<(String, String)> = match item.get(key) {
                    Some(Value::String(name)) => vec![(format!("/{field}/{i}/{key}"), name.clone())],
                    Some(Value::Array(names)) => names
                        .iter()
                        .enumerate()
                        .filter_map(|(j, n)| n.as_str().map(|n| (format!("/{field}/{i}/{key}/{j}"), n.to_string())))
                        .collect(),
                    _ => Vec::new(),
                };
                for (pointer, name) in names {
                    // `files` entries may be `key=path`.
                    let path = name.split_once('=').map_or(name.as_str(), |(_, path)| path);
                    reference(&mut out, &pointer, path, false);
                }
            }
        }
    }
    for field in ["replacements"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.get("path").and_then(Value::as_str) {
                reference(&mut out, &format!("/{field}/{i}/path"), name, false);
            }
        }
    }
    for field in ["configurations", "crds"] {
        for (i, item) in array(&value, field).iter().enumerate() {
            if let Some(name) = item.as_str() {
                reference(&mut out, &format!("/{field}/{i}"), name, false);
            }
        }
    }
    if let Some(name) = value.pointer("/openapi/path").and_then(Value::as_str) {
        reference(&mut out, "/openapi/path", name, false);
    }
    out.only_resources = value
        .as_object()
        .is_some_and(|fields| fields.keys().all(|key| matches!(key.as_str(), "apiVersion" | "kind" | "resources")))
        && out.refusals.is_empty()
        && out.files.len() + out.dirs.len() == array(&value, "resources").len();
    plugins(&value, &lines, root, dir, exists, &mut out);
    if value.get("helmCharts").is_some_and(|charts| charts.as_array().is_some_and(|c| !c.is_empty())) {
        out.refusals.push((
            line("/helmCharts"),
            "`helmCharts` needs kustomize's Helm inflation (`--enable-helm`, which runs helm and may download \
             charts): not built"
                .to_string(),
        ));
    }
    Ok(out)
}

/// `generators`, `transformers` and `validators` entries that are not builtin plugins need
/// `--enable-alpha-plugins`/`--enable-exec` (they run programs or containers): refused.
fn plugins(
    value: &Value,
    lines: &LineIndex,
    root: &Path,
    dir: &str,
    exists: &dyn Fn(&str) -> Option<bool>,
    out: &mut Kustomization,
) {
    for field in ["generators", "transformers", "validators"] {
        for (i, item) in array(value, field).iter().enumerate() {
            let configs: Vec<Value> = match item {
                Value::String(text) if text.contains('\n') || text.contains("kind:") => {
                    manifest::parse_plain_value(text, "inline").into_iter().collect()
                }
                Value::String(name) if !is_remote(name) => match resolve(dir, name) {
                    Some(resolved) if exists(&resolved) == Some(false) => {
                        out.files.push(resolved.clone());
                        std::fs::read_to_string(root.join(&resolved))
                            .ok()
                            .and_then(|text| manifest::parse_plain_documents(&text, &resolved).ok())
                            .map(|documents| documents.into_iter().map(|d| d.value).collect())
                            .unwrap_or_default()
                    }
                    // A directory of plugin configs is a kustomization itself: its entries are checked when it is read.
                    Some(resolved) if exists(&resolved) == Some(true) => {
                        out.dirs.push(resolved);
                        continue;
                    }
                    _ => Vec::new(),
                },
                Value::Object(_) => vec![item.clone()],
                _ => Vec::new(),
            };
            if configs.is_empty() || !configs.iter().all(is_builtin_plugin) {
                out.refusals.push((
                    lines.line_of(&format!("/{field}/{i}")).unwrap_or(1),
                    format!(
                        "`{field}` entry {} is not a builtin plugin: it needs kustomize's exec or KRM-function plugins \
                         (`--enable-alpha-plugins`, `--enable-exec`), which repository mode never enables; not built",
                        i + 1
                    ),
                ));
            }
        }
    }
}

/// A plugin config of a builtin generator or transformer (no `config.kubernetes.io/function` annotation).
fn is_builtin_plugin(config: &Value) -> bool {
    let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = config.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let function = config.pointer("/metadata/annotations").and_then(Value::as_object).is_some_and(|annotations| {
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
    fn paths_resolve_inside_the_repository_only() {
        assert_eq!(resolve("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(resolve("a", "./x.yaml").as_deref(), Some("a/x.yaml"));
        assert_eq!(resolve("a", "../../x"), None);
        assert_eq!(resolve("", "/etc/passwd"), None);
    }

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
}
