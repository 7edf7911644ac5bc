//! Flux `HelmRelease` objects whose chart is a directory of this repository, as a [`RenderRequest`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::chart::is_chart_dir;
use super::remote::{LocalChart, RemoteChart, oci_chart};
use super::render::{InlineValues, RenderRequest, WrittenAt};
use crate::json_pointer::At;
use crate::json_pointer::leaf_pointers;
use crate::manifest::Document;

/// API group of Flux's HelmRelease.
pub const HELM_RELEASE_GROUP: &str = "helm.toolkit.fluxcd.io";

/// Finds a ConfigMap or Secret of the repository by kind, namespace and name (for `valuesFrom`), with the lines
/// of its fields.
pub type ObjectLookup<'a> = dyn Fn(&str, &str, &str) -> Option<Document> + 'a;

/// Finds the local copy of a chart a GitOps object would download ([`super::ChartLocator::locate`]), or says why
/// there is none.
pub type ChartResolver<'a> = dyn Fn(&RemoteChart) -> Result<LocalChart, String> + 'a;

/// Whether `document` is a Flux HelmRelease.
pub fn is_helm_release(document: &Document) -> bool {
    document.group() == HELM_RELEASE_GROUP && document.kind() == "HelmRelease"
}

/// What `helm template` would be asked to render for the HelmRelease `document`, when its chart is a path of
/// this repository (`spec.chart.spec.chart` with a GitRepository or Bucket source): release name and namespace
/// as Flux computes them, `spec.chart.spec.valuesFiles`, then `valuesFrom` (ConfigMaps and Secrets that
/// `lookup` finds in the tree), then `spec.values`. `Err` says why it is not rendered (a chart from a Helm or
/// OCI repository, a `chartRef`, a chart path or a values source that is not in the tree).
pub fn helm_release_request(
    document: &Document,
    repo_root: &Path,
    lookup: &ObjectLookup<'_>,
) -> Result<RenderRequest, String> {
    helm_release_request_with(document, repo_root, lookup, &|_: &RemoteChart| Err("it would need a download".into()))
}

/// [`helm_release_request`], with the chart of a HelmRepository or of an OCIRepository (`chartRef`, found with
/// `lookup`) taken from the local copy `resolve` finds (vendored, or in the helm cache); the request's
/// `chart_dir` is that copy, to render with [`super::render_local`] (the [`LocalChart`] is found again from
/// it by the caller).
pub fn helm_release_request_with(
    document: &Document,
    repo_root: &Path,
    lookup: &ObjectLookup<'_>,
    resolve: &ChartResolver<'_>,
) -> Result<RenderRequest, String> {
    let spec = document.value.get("spec").cloned().unwrap_or(Value::Null);
    let name = document.name().to_string();
    let namespace = document.namespace().unwrap_or("default").to_string();
    let chart_spec = spec.pointer("/chart/spec").cloned().unwrap_or(Value::Null);
    let chart = chart_spec.get("chart").and_then(Value::as_str).unwrap_or("");
    // A chart that would be downloaded: its local copy, or why there is none.
    let remote = remote_chart_of(&spec, &chart_spec, &namespace, lookup)?;
    let chart_dir = chart_dir_of(remote.as_ref(), repo_root, chart, resolve)?;
    let values_files = values_files_of(&chart_spec, remote.is_some(), &chart_dir, repo_root)?;
    let ValuesFrom { mut inline_values, set_string, written_at } = values_from(&spec, &namespace, lookup)?;
    if let Some(values) = spec.get("values").filter(|values| values.is_object()) {
        let label = format!("HelmRelease/{name} spec.values");
        inline_values.push(InlineValues::in_document(label, values.clone(), document, "/spec/values"));
    }
    let target_namespace = spec.get("targetNamespace").and_then(Value::as_str);
    let release = match (spec.get("releaseName").and_then(Value::as_str), target_namespace) {
        (Some(release), _) => release.to_string(),
        (None, Some(target)) => format!("{target}-{name}"),
        (None, None) => name.clone(),
    };
    Ok(RenderRequest {
        chart_dir,
        release,
        namespace: target_namespace.unwrap_or(&namespace).to_string(),
        values_files,
        inline_values,
        set: Vec::new(),
        set_string,
        set_written_at: written_at,
        // `install.crds` defaults to Create: the chart's crds/ are applied.
        include_crds: spec.pointer("/install/crds").and_then(Value::as_str) != Some("Skip"),
        label: format!("HelmRelease/{name}"),
        stage: None,
    })
}

/// The chart a HelmRelease downloads: from an OCIRepository (`chartRef`) or a HelmRepository; `None` for a chart
/// of a GitRepository or Bucket (a path of this repository); an error for any other source.
fn remote_chart_of(
    spec: &Value,
    chart_spec: &Value,
    namespace: &str,
    lookup: &ObjectLookup<'_>,
) -> Result<Option<RemoteChart>, String> {
    let chart = chart_spec.get("chart").and_then(Value::as_str).unwrap_or("");
    let source_kind = chart_spec.pointer("/sourceRef/kind").and_then(Value::as_str).unwrap_or("");
    Ok(if let Some(chart_ref) = spec.get("chartRef") {
        let kind = chart_ref.get("kind").and_then(Value::as_str).unwrap_or("?");
        let ref_name = chart_ref.get("name").and_then(Value::as_str).unwrap_or("?");
        let ref_namespace = chart_ref.get("namespace").and_then(Value::as_str).unwrap_or(namespace);
        let not_here = || {
            format!("its chart comes from {kind}/{ref_name} (chartRef), which is not a directory of this repository")
        };
        if kind != "OCIRepository" {
            return Err(not_here());
        }
        let source = lookup(kind, ref_namespace, ref_name).ok_or_else(not_here)?;
        let url = source.value.str_at("/spec/url").unwrap_or("");
        let Some((chart_name, _)) = oci_chart(url) else { return Err(not_here()) };
        let tag = source.value.str_at("/spec/ref/tag").unwrap_or("");
        Some(RemoteChart { name: chart_name, version: tag.to_string(), from: format!("{kind}/{ref_name} ({url})") })
    } else if !matches!(source_kind, "GitRepository" | "Bucket") {
        if source_kind != "HelmRepository" {
            return Err(format!(
                "its chart `{chart}` comes from a {} (a download), not from this repository",
                if source_kind.is_empty() { "source that is not named" } else { source_kind }
            ));
        }
        let source_name = chart_spec.str_at("/sourceRef/name").unwrap_or("?");
        // Flux's default version is `*`: the newest.
        let version = chart_spec.get("version").and_then(Value::as_str).unwrap_or("*");
        Some(RemoteChart {
            name: chart.to_string(),
            version: version.to_string(),
            from: format!("HelmRepository/{source_name}"),
        })
    } else {
        None
    })
}

/// The chart's directory (or packed archive): the local copy of a remote chart, or the repository's chart
/// directory at `chart`.
fn chart_dir_of(
    remote: Option<&RemoteChart>,
    repo_root: &Path,
    chart: &str,
    resolve: &ChartResolver<'_>,
) -> Result<PathBuf, String> {
    Ok(match remote {
        Some(remote) => match resolve(remote)
            .map_err(|why| format!("its chart `{}` comes from {}: {why}", remote.name, remote.from))?
        {
            LocalChart::Directory(dir) => dir,
            LocalChart::Archive { path, .. } => path,
        },
        None => {
            let Some(chart_dir) = in_repository(repo_root, chart) else {
                return Err(format!("its chart path `{chart}` is not a chart directory of this repository"));
            };
            if !is_chart_dir(&chart_dir) {
                return Err(format!("its chart path `{chart}` is not a chart directory of this repository"));
            }
            chart_dir
        }
    })
}

/// `valuesFiles`: files of the chart for a remote chart (none in a packed one), else of the repository.
fn values_files_of(
    chart_spec: &Value,
    remote: bool,
    chart_dir: &Path,
    repo_root: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut values_files = Vec::new();
    for file in chart_spec.get("valuesFiles").and_then(Value::as_array).into_iter().flatten() {
        let file = file.as_str().unwrap_or("");
        // A remote chart's values files are files of the chart; a repository chart's, files of the repository.
        let path = match remote {
            true if chart_dir.is_dir() => in_repository(chart_dir, file),
            true => {
                return Err(format!("its values file `{file}` is inside the packed chart {}", chart_dir.display()));
            }
            false => in_repository(repo_root, file),
        };
        match path.filter(|path| path.is_file()) {
            Some(path) => values_files.push(path),
            None => return Err(format!("its values file `{file}` is not in this repository")),
        }
    }
    Ok(values_files)
}

/// What a HelmRelease's `valuesFrom` adds: inline values, and `--set-string` assignments for `targetPath`s
/// with where each was written.
struct ValuesFrom {
    inline_values: Vec<InlineValues>,
    set_string: Vec<String>,
    written_at: HashMap<String, WrittenAt>,
}

/// Reads `valuesFrom`: each ConfigMap's or Secret's key found in the repository (a missing optional one skipped).
fn values_from(spec: &Value, namespace: &str, lookup: &ObjectLookup<'_>) -> Result<ValuesFrom, String> {
    let mut inline_values = Vec::new();
    let mut set_string = Vec::new();
    let mut written_at = HashMap::new();
    for source in spec.get("valuesFrom").and_then(Value::as_array).into_iter().flatten() {
        let kind = source.get("kind").and_then(Value::as_str).unwrap_or("");
        let source_name = source.get("name").and_then(Value::as_str).unwrap_or("");
        let key = source.get("valuesKey").and_then(Value::as_str).unwrap_or("values.yaml");
        let optional = source.get("optional").and_then(Value::as_bool).unwrap_or(false);
        let found = lookup(kind, namespace, source_name)
            .and_then(|object| data_value(&object.value, key).map(|(text, pointer)| (object, text, pointer)));
        let Some((object, text, pointer)) = found else {
            if optional {
                continue;
            }
            return Err(format!("its valuesFrom {kind}/{source_name} (key {key}) is not in this repository"));
        };
        let label = format!("{kind}/{source_name} {key}");
        let secret = kind == "Secret";
        if let Some(target) = source.get("targetPath").and_then(Value::as_str) {
            let assignment = format!("{target}={}", text.trim_end());
            let file = PathBuf::from(object.origin.source.as_ref());
            written_at.insert(assignment.clone(), WrittenAt { file, line: object.line_of(&pointer), secret });
            set_string.push(assignment);
            continue;
        }
        let inline = match pointer.starts_with("/data/") && secret || !block_scalar_at(&object, &pointer, key) {
            // Base64 data, or text not written as a block below its key (a generated ConfigMap, a quoted string):
            // every value at the line of its key.
            false => InlineValues::in_text(label.clone(), &text, &object, &pointer),
            true => crate::manifest::parse_plain_value(&text, &label).map_err(|err| err.to_string()).map(|value| {
                let mut lines = HashMap::new();
                leaf_pointers(&value, &mut String::new(), &mut |leaf| {
                    lines.insert(leaf.to_string(), object.line_of(&pointer));
                });
                let file = PathBuf::from(object.origin.source.as_ref());
                InlineValues { label: label.clone(), value, written_at: Some((file, lines)), secret }
            }),
        };
        match inline {
            Ok(inline) if inline.value.is_null() => {}
            Ok(inline) if inline.value.is_object() => inline_values.push(InlineValues { secret, ..inline }),
            Ok(_) => return Err(format!("its valuesFrom {label} is not a map of values")),
            Err(err) => return Err(format!("its valuesFrom {label} is not YAML: {err}")),
        }
    }
    Ok(ValuesFrom { inline_values, set_string, written_at })
}

/// `repo_root/relative` when `relative` stays inside the repository (no absolute path, no `..` above the root).
pub fn in_repository(repo_root: &Path, relative: &str) -> Option<std::path::PathBuf> {
    let relative = relative.trim_start_matches("./");
    let mut depth = 0usize;
    for part in Path::new(relative).components() {
        match part {
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => depth = depth.checked_sub(1)?,
            _ => return None,
        }
    }
    Some(if relative.is_empty() { repo_root.to_path_buf() } else { repo_root.join(relative) })
}

/// Whether the value at `pointer` of `object` (whose key is `key`) is written in its file as a block scalar
/// (`key: |` and the text on the lines below), so that lines within the text are lines of the file.
fn block_scalar_at(object: &Document, pointer: &str, key: &str) -> bool {
    let line = object.line_of(pointer);
    let Ok(text) = std::fs::read_to_string(object.origin.source.as_ref()) else { return false };
    let Some(written) = text.lines().nth(line.saturating_sub(1)) else { return false };
    let written = written.trim_start();
    let rest = [format!("{key}:"), format!("\"{key}\":"), format!("'{key}':")]
        .iter()
        .find_map(|prefix| written.strip_prefix(prefix.as_str()).map(str::to_string));
    rest.is_some_and(|rest| rest.trim_start().starts_with(['|', '>']))
}

/// The text under `key` of a ConfigMap (`data`) or Secret (`stringData`, or base64 `data`), and its JSON pointer.
fn data_value(object: &Value, key: &str) -> Option<(String, String)> {
    let text = |map: Option<&Map<String, Value>>| map?.get(key)?.as_str().map(str::to_string);
    let escaped = crate::json_pointer::escape_token(key);
    if let Some(found) = text(object.get("stringData").and_then(Value::as_object)) {
        return Some((found, format!("/stringData/{escaped}")));
    }
    let data = text(object.get("data").and_then(Value::as_object))?;
    if object.get("kind").and_then(Value::as_str) == Some("Secret") {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).ok()?;
        return String::from_utf8(bytes).ok().map(|text| (text, format!("/data/{escaped}")));
    }
    Some((data, format!("/data/{escaped}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_repository() {
        let root = Path::new("/repo");
        assert_eq!(in_repository(root, "./charts/a"), Some(root.join("charts/a")));
        assert_eq!(in_repository(root, "charts/../charts/a"), Some(root.join("charts/../charts/a")));
        assert_eq!(in_repository(root, "../other"), None);
        assert_eq!(in_repository(root, "/etc"), None);
    }

    #[test]
    fn values_from_keep_where_they_are_written_and_whether_they_are_secret() {
        let chart = tempfile::tempdir().unwrap();
        std::fs::write(chart.path().join("Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n").unwrap();
        let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: r\n  namespace: ns\nspec:\n  \
             chart:\n    spec:\n      chart: ./c\n      sourceRef:\n        kind: GitRepository\n        name: g\n  \
             valuesFrom:\n    - kind: Secret\n      name: s\n    - kind: ConfigMap\n      name: m\n      \
             valuesKey: size\n      targetPath: pool.size\n";
        let release = crate::manifest::parse_documents(release, "release.yaml").unwrap().remove(0);
        // `a: 1\nb: two\n` in base64, then a ConfigMap key for targetPath.
        let objects = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  values.yaml: YTogMQpiOiB0d28K\n---\n\
                       apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  size: large\n";
        let objects = crate::manifest::parse_documents(objects, "objects.yaml").unwrap();
        let lookup =
            |kind: &str, _: &str, name: &str| objects.iter().find(|o| o.kind() == kind && o.name() == name).cloned();
        let root = chart.path().parent().unwrap();
        let name = chart.path().file_name().unwrap().to_str().unwrap();
        let mut document = release;
        // The chart directory is the temporary one.
        document.value["spec"]["chart"]["spec"]["chart"] = Value::from(format!("./{name}"));
        let request = helm_release_request(&document, root, &lookup).unwrap();
        let secret = &request.inline_values[0];
        assert!(secret.secret);
        let (file, lines) = secret.written_at.clone().unwrap();
        assert_eq!(file, PathBuf::from("objects.yaml"));
        assert_eq!((lines["/a"], lines["/b"]), (6, 6));
        assert_eq!(request.set_string, ["pool.size=large"]);
        let at = WrittenAt { file: PathBuf::from("objects.yaml"), line: 13, secret: false };
        assert_eq!(request.set_written_at["pool.size=large"], at);
    }

    #[test]
    fn lines_inside_values_text_count_only_for_a_block_below_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("values.yaml");
        let text = "kind: ConfigMap\nmetadata:\n  name: m\ndata:\n  block: |\n    a: 1\n  quoted: \"a: 1\"\n";
        std::fs::write(&file, text).unwrap();
        let object = crate::manifest::parse_documents(text, file.to_str().unwrap()).unwrap().remove(0);
        assert!(block_scalar_at(&object, "/data/block", "block"));
        assert!(!block_scalar_at(&object, "/data/quoted", "quoted"));
    }

    #[test]
    fn secret_data_is_decoded() {
        let secret = serde_json::json!({"kind": "Secret", "data": {"values.yaml": "YTogMQo="}});
        assert_eq!(data_value(&secret, "values.yaml"), Some(("a: 1\n".into(), "/data/values.yaml".into())));
        let config_map = serde_json::json!({"kind": "ConfigMap", "data": {"values.yaml": "a: 1"}});
        assert_eq!(data_value(&config_map, "values.yaml"), Some(("a: 1".into(), "/data/values.yaml".into())));
        assert_eq!(data_value(&config_map, "other"), None);
    }
}
