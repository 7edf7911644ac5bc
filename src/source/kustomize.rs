//! Running kustomize on a directory of the repository (`kubectl kustomize`, or `kustomize build` when kubectl is
//! not on PATH) with the user's files untouched: a wrapper kustomization in a temporary directory includes the
//! directory (of the repository's staged copy, in repository mode) and asks for `buildMetadata: [originAnnotations]`,
//! so every built object names the file it came from.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::budget::Budget;
use super::tool::{self, ToolError};
use crate::manifest;

/// The annotation kustomize writes with `originAnnotations`.
pub const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";

/// One object of a build and where kustomize says it came from.
#[derive(Debug, Clone)]
pub struct BuiltObject {
    /// The object, the origin annotation removed.
    pub value: Value,
    /// Repository-relative file of a resource (`path:` of the origin), if inside the repository.
    pub file: Option<String>,
    /// Repository-relative kustomization file of a generated object (`configuredIn:`).
    pub configured_in: Option<String>,
}

/// Why a directory could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "neither `kubectl` nor `kustomize` is on PATH: install kubectl (its `kubectl kustomize` builds kustomizations)"
    )]
    NoTool,
    #[error("{0}")]
    Tool(#[from] ToolError),
    #[error("cannot prepare the build: {0}")]
    Io(#[from] std::io::Error),
    #[error("kustomize's output is not YAML: {0}")]
    Output(String),
}

/// The program and arguments that build the kustomization in `dir`, as the user would run them.
fn command_for(dir: &Path, load_restrictor_none: bool) -> Result<(String, Vec<OsString>), BuildError> {
    let mut args: Vec<OsString> = Vec::new();
    let program = if tool::find_on_path("kubectl").is_some() {
        args.push("kustomize".into());
        "kubectl"
    } else if tool::find_on_path("kustomize").is_some() {
        args.push("build".into());
        "kustomize"
    } else {
        return Err(BuildError::NoTool);
    };
    args.push(dir.as_os_str().to_owned());
    if load_restrictor_none {
        args.push("--load-restrictor".into());
        args.push("LoadRestrictionsNone".into());
    }
    Ok((program.to_string(), args))
}

/// `to` relative to `from` (both absolute, canonical).
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component.as_os_str());
    }
    out
}

/// What to build: a directory of the repository (or several files, for a Flux path without a kustomization), with
/// fields a Flux Kustomization lays over it.
#[derive(Debug, Clone, Default)]
pub struct BuildRequest {
    /// Repository-relative entries of the wrapper's `resources` (one directory, or the files of a Flux path).
    pub resources: Vec<String>,
    /// `namespace`, `namePrefix`, `patches`... of a Flux Kustomization.
    pub overlay: Map<String, Value>,
    /// Repository-relative directories of components laid over the resources (a Flux Kustomization's
    /// `spec.components`, resolved against its path).
    pub components: Vec<String>,
    /// Files outside the wrapper's own directory are read (a Flux path without kustomization.yaml): Flux builds with
    /// `LoadRestrictionsNone`; every file was checked to be inside the repository first.
    pub load_restrictor_none: bool,
}

/// Builds `request` in the repository (in repository mode, its staged copy) whose canonical root is `root`.
pub fn build(root: &Path, request: &BuildRequest, budget: &Budget) -> Result<Vec<BuiltObject>, BuildError> {
    let wrapper = tempfile::Builder::new().prefix("kubectl-capz-kustomize-").tempdir()?;
    let wrapper_dir = std::fs::canonicalize(wrapper.path())?;
    let from_wrapper = |paths: &[String]| -> Vec<Value> {
        paths
            .iter()
            .map(|path| Value::String(relative_path(&wrapper_dir, &root.join(path)).display().to_string()))
            .collect()
    };
    let resources = from_wrapper(&request.resources);
    let mut kustomization = json!({
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
        "buildMetadata": ["originAnnotations"],
    });
    if let Some(object) = kustomization.as_object_mut() {
        object.extend(request.overlay.clone());
        if !request.components.is_empty() {
            object.insert("components".to_string(), Value::Array(from_wrapper(&request.components)));
        }
    }
    std::fs::write(wrapper_dir.join("kustomization.yaml"), manifest::to_yaml(&kustomization))?;
    let (program, args) = command_for(&wrapper_dir, request.load_restrictor_none)?;
    let output = tool::run_tool(&program, &args, &wrapper_dir, budget).map_err(|err| match err {
        ToolError::Failed { program, status, stderr } => {
            ToolError::Failed { program, status, stderr: kustomize_reason(&stderr) }
        }
        other => other,
    })?;
    let documents = manifest::parse_plain_documents(&output.stdout, "kustomize output")
        .map_err(|err| BuildError::Output(err.to_string()))?;
    Ok(documents.into_iter().map(|document| built_object(document.value, &wrapper_dir, root)).collect())
}

/// kustomize's reason for failing, without what hides it: the `# Warning: 'commonLabels' is deprecated...` lines
/// printed before it and kubectl's klog wrapping (`E1126 18:56:53.911474 25955 run.go:72] "command failed"
/// err="..."` or `err=< ... >`).
fn kustomize_reason(stderr: &str) -> String {
    static KLOG: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^[EWIF]\d{4} [0-9:.]+\s+\d+ [^\]]+\] "command failed" err="#).expect("klog regex is valid")
    });
    let kept: Vec<&str> = stderr.lines().filter(|line| !line.trim_start().starts_with("# Warning:")).collect();
    let text = KLOG.replace_all(kept.join("\n").trim(), "").into_owned();
    let text = text.trim();
    let text = match text.strip_prefix('<').and_then(|rest| rest.strip_suffix('>')) {
        Some(inner) => inner.trim().to_string(),
        None => match text.strip_prefix('"').and_then(|rest| rest.strip_suffix('"')) {
            Some(inner) => inner.replace("\\\"", "\""),
            None => text.to_string(),
        },
    };
    // The wrapper kustomization's own frame, before the error of the directory it includes.
    static WRAPPER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^accumulating resources: accumulation err='accumulating resources from '[^']*': .*?': ",
            r"recursed accumulation of path '[^']*': ",
        ))
        .expect("wrapper regex is valid")
    });
    let text = WRAPPER.replace(&text, "").into_owned();
    if text.is_empty() { stderr.trim().to_string() } else { text }
}

/// Reads and removes the origin annotation (and `metadata.annotations` when it is left empty).
fn built_object(mut value: Value, wrapper_dir: &Path, root: &Path) -> BuiltObject {
    let origin = take_origin(&mut value);
    let in_repository = |path: &str| -> Option<String> {
        let absolute = normalize(&wrapper_dir.join(path));
        absolute.strip_prefix(root).ok().map(|p| p.display().to_string())
    };
    let (mut file, mut configured_in) = (None, None);
    if let Some(origin) = origin.and_then(|text| manifest::parse_plain_value(&text, "origin").ok()) {
        if origin.get("repo").is_none() {
            file = origin.get("path").and_then(Value::as_str).and_then(in_repository);
        }
        configured_in = origin.get("configuredIn").and_then(Value::as_str).and_then(in_repository);
    }
    BuiltObject { value, file, configured_in }
}

fn take_origin(value: &mut Value) -> Option<String> {
    let metadata = value.get_mut("metadata")?.as_object_mut()?;
    let annotations = metadata.get_mut("annotations")?.as_object_mut()?;
    let origin = annotations.remove(ORIGIN_ANNOTATION)?;
    if annotations.is_empty() {
        metadata.remove("annotations");
    }
    origin.as_str().map(str::to_string)
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn kustomize_reason_drops_deprecation_warnings_and_klog_wrapping() {
        let quoted = "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n\
                      E1126 18:56:53.911474   25955 run.go:72] \"command failed\" err=\"unable to find field \\\"spec.owner.name\\\" \
                      in replacement target\"\n";
        assert_eq!(super::kustomize_reason(quoted), "unable to find field \"spec.owner.name\" in replacement target");
        let block = "E1126 18:50:45.482573   13668 run.go:72] \"command failed\" err=<\n\ttrouble configuring builtin \
                     PatchTransformer\n >\n";
        assert_eq!(super::kustomize_reason(block), "trouble configuring builtin PatchTransformer");
        assert_eq!(super::kustomize_reason("Error: no such file\n"), "Error: no such file");
        let wrapped = "E1126 18:59:01.000001   1 run.go:72] \"command failed\" err=\"accumulating resources: accumulation \
                       err='accumulating resources from '../../repo/overlays/dev': read /repo/overlays/dev: is a \
                       directory': recursed accumulation of path '/repo/overlays/dev': unable to find field\"";
        assert_eq!(super::kustomize_reason(wrapped), "unable to find field");
        let must_resolve = "accumulating resources: accumulation err='accumulating resources from '../../r/dev': \
                            '/r/dev' must resolve to a file': recursed accumulation of path '/r/dev': bad patch";
        assert_eq!(super::kustomize_reason(must_resolve), "bad patch");
    }

    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_parent() {
        assert_eq!(relative_path(Path::new("/tmp/a/w"), Path::new("/work/r/x")), PathBuf::from("../../../work/r/x"));
        assert_eq!(relative_path(Path::new("/a"), Path::new("/a/b")), PathBuf::from("b"));
    }

    #[test]
    fn the_origin_annotation_is_read_and_removed() {
        let mut value =
            json!({"metadata": {"name": "a", "annotations": {ORIGIN_ANNOTATION: "path: ../r/base/cm.yaml\n"}}});
        let built = built_object(value.take(), Path::new("/tmp/w"), Path::new("/tmp/r"));
        assert_eq!(built.file.as_deref(), Some("base/cm.yaml"));
        assert_eq!(built.value, json!({"metadata": {"name": "a"}}));
    }
}
