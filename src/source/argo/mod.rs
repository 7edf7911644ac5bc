//! Argo CD Applications and ApplicationSets: the sources of this repository they point at.
//!
//! Each source of an `Application` (`spec.source`, `spec.sources[]`) whose `path` is a directory of the
//! repository becomes an [`ArgoBuild`]: a directory of manifests, a kustomization, or a Helm chart with the
//! application's values, as Argo CD's repo-server would build it. An `ApplicationSet` is expanded first (list,
//! git directories and clusters generators, a matrix of two). Charts from Helm repositories are rendered from a
//! copy vendored in the tree (or in the helm cache the command line names), never fetched; paths that are not in
//! the tree are reported as not built.

mod appset;
pub mod clusters;
mod directory;
pub mod kustomize;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use appset::{expand_application_set, expand_application_set_with};
pub use clusters::{ArgoCluster, cluster_of_secret};
pub use directory::{directory_manifests, glob_match};
pub use kustomize::ArgoKustomize;

use crate::json_pointer::At;
use crate::manifest::Document;
use crate::source::helm::{ChartResolver, InlineValues, RemoteChart, RenderRequest, WrittenAt, is_chart_dir};

/// What expanding Applications needs from outside the object: the clusters Argo CD knows (`None`: none is
/// known) and where remote charts have local copies.
pub struct ArgoInputs<'a> {
    pub clusters: Option<&'a [ArgoCluster]>,
    pub charts: &'a ChartResolver<'a>,
}

/// API group of Argo CD's Application and ApplicationSet.
pub const ARGO_GROUP: &str = "argoproj.io";

/// One source of an Application (or of an Application an ApplicationSet generates).
#[derive(Debug, Clone, PartialEq)]
pub struct ArgoSource {
    /// `Application/name`, or `ApplicationSet/name` and the generated application's name.
    pub owner: String,
    /// Where the Application or ApplicationSet is written (its document's source and line).
    pub file: String,
    pub line: usize,
    /// `spec.destination.namespace`, when set.
    pub destination_namespace: Option<String>,
    /// `spec.destination.server` (or `name`), when set: `in-cluster` is the server Argo CD runs in.
    pub destination_cluster: Option<String>,
    /// `spec.syncPolicy.automated.prune`: whether Argo CD deletes what the application no longer renders.
    pub prune: bool,
    pub build: ArgoBuild,
}

/// What Argo CD would build from one source.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgoBuild {
    /// Plain manifests of a directory (`directory.recurse`, `include` and `exclude` globs).
    Directory { relative: String, path: PathBuf, recurse: bool, include: String, exclude: String },
    /// A kustomization directory (`kustomize build`), with the source's `kustomize` options when it sets some
    /// (applied as Argo CD's `kustomize edit` commands, on a staged copy).
    Kustomize { relative: String, path: PathBuf, edits: Option<ArgoKustomize> },
    /// A chart of the repository, with the application's values (`helm template`).
    Helm { relative: String, request: RenderRequest },
    /// Not built from this repository, and why (a chart from a Helm repository, a path not in the tree, a
    /// generator that needs the live cluster).
    NotBuilt { reason: String },
}

/// Whether `document` is an Argo CD Application.
pub fn is_application(document: &Document) -> bool {
    document.group() == ARGO_GROUP && document.kind() == "Application"
}

/// Whether `document` is an Argo CD ApplicationSet.
pub fn is_application_set(document: &Document) -> bool {
    document.group() == ARGO_GROUP && document.kind() == "ApplicationSet"
}

/// The sources of an Application or ApplicationSet `document` (nothing for other objects), paths resolved
/// against `repo_root`.
pub fn argo_sources(document: &Document, repo_root: &Path) -> Vec<ArgoSource> {
    let no_copy = |_: &RemoteChart| Err("it would need a download".to_string());
    argo_sources_with(document, repo_root, &ArgoInputs { clusters: None, charts: &no_copy })
}

/// [`argo_sources`] with the clusters and chart copies of `inputs`.
pub fn argo_sources_with(document: &Document, repo_root: &Path, inputs: &ArgoInputs<'_>) -> Vec<ArgoSource> {
    let file = document.origin.source.to_string();
    let line = document.origin.line;
    if is_application(document) {
        let owner = format!("Application/{}", document.name());
        return application_sources(&document.value, Some(document), &owner, repo_root, &file, line, inputs);
    }
    if !is_application_set(document) {
        return Vec::new();
    }
    let set_name = document.name();
    match expand_application_set_with(&document.value, repo_root, inputs.clusters) {
        Ok(applications) => applications
            .iter()
            .flat_map(|application| {
                let name = application.str_at("/metadata/name").unwrap_or("");
                let owner = format!("ApplicationSet/{set_name} ({name})");
                application_sources(application, None, &owner, repo_root, &file, line, inputs)
            })
            .collect(),
        Err(reason) => vec![ArgoSource {
            owner: format!("ApplicationSet/{set_name}"),
            file,
            line,
            destination_namespace: None,
            destination_cluster: None,
            prune: false,
            build: ArgoBuild::NotBuilt { reason },
        }],
    }
}

/// The sources of one Application object (`document`, when it is written in a file rather than generated).
fn application_sources(
    application: &Value,
    document: Option<&Document>,
    owner: &str,
    repo_root: &Path,
    file: &str,
    line: usize,
    inputs: &ArgoInputs<'_>,
) -> Vec<ArgoSource> {
    let spec = application.get("spec").cloned().unwrap_or(Value::Null);
    let name = application.str_at("/metadata/name").unwrap_or("");
    let destination_namespace = spec.str_at("/destination/namespace").filter(|ns| !ns.is_empty()).map(str::to_string);
    let destination = |field: &str| spec.str_at(&format!("/destination/{field}")).filter(|text| !text.is_empty());
    // Argo CD's name for the cluster it runs in.
    let destination_cluster = match (destination("server"), destination("name")) {
        (Some(server), _) => Some(server.trim_end_matches('/').to_string()),
        (None, Some("in-cluster")) => Some("https://kubernetes.default.svc".to_string()),
        (None, Some(name)) => Some(format!("cluster {name}")),
        (None, None) => None,
    };
    let prune = spec.pointer("/syncPolicy/automated/prune").and_then(Value::as_bool).unwrap_or(false);
    let (sources, pointers): (Vec<Value>, Vec<String>) =
        match (spec.get("sources").and_then(Value::as_array), spec.get("source")) {
            (Some(list), _) if !list.is_empty() => {
                (list.clone(), (0..list.len()).map(|index| format!("/spec/sources/{index}")).collect())
            }
            (_, Some(single)) => (vec![single.clone()], vec!["/spec/source".to_string()]),
            _ => (Vec::new(), Vec::new()),
        };
    let context = SourceContext {
        all_sources: &sources,
        app_name: name,
        namespace: destination_namespace.as_deref(),
        owner,
        repo_root,
        document,
        charts: inputs.charts,
    };
    sources
        .iter()
        .zip(&pointers)
        // A source with `ref` and no path only lends its files to `$ref/...` value files.
        .filter(|(source, _)| {
            !(source.get("ref").is_some() && source.get("path").is_none() && source.get("chart").is_none())
        })
        .map(|(source, pointer)| ArgoSource {
            owner: owner.to_string(),
            file: file.to_string(),
            line,
            destination_namespace: destination_namespace.clone(),
            destination_cluster: destination_cluster.clone(),
            prune,
            build: match source_build(source, pointer, &context) {
                ArgoBuild::Kustomize { relative, path, .. } => {
                    let edits = ArgoKustomize::of_source(source, pointer, application);
                    ArgoBuild::Kustomize { relative, path, edits }
                }
                other => other,
            },
        })
        .collect()
}

fn str_of<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.str_at(pointer).unwrap_or("")
}

/// What the sources of one Application share.
struct SourceContext<'a> {
    all_sources: &'a [Value],
    app_name: &'a str,
    namespace: Option<&'a str>,
    owner: &'a str,
    repo_root: &'a Path,
    /// The Application's document, when it is written in a file (for the lines of inline values).
    document: Option<&'a Document>,
    charts: &'a ChartResolver<'a>,
}

/// What one source (at `pointer` in the Application) builds.
fn source_build(source: &Value, pointer: &str, context: &SourceContext<'_>) -> ArgoBuild {
    let repo_root = context.repo_root;
    let repo_url = str_of(source, "/repoURL");
    if let Some(chart) = source.get("chart").and_then(Value::as_str) {
        // A Helm or OCI repository's chart: rendered from a local copy when there is one.
        let version = str_of(source, "/targetRevision");
        let remote = RemoteChart { name: chart.to_string(), version: version.to_string(), from: repo_url.to_string() };
        return match (context.charts)(&remote) {
            Ok(local) => match helm_request(source, pointer, local.path(), context) {
                Ok(request) => {
                    let path = local.path();
                    let relative = path.strip_prefix(repo_root).unwrap_or(path).display().to_string();
                    ArgoBuild::Helm { relative, request }
                }
                Err(reason) => ArgoBuild::NotBuilt { reason },
            },
            Err(why) => ArgoBuild::NotBuilt {
                reason: format!("chart `{chart}` comes from the Helm repository {repo_url}: {why}; not built"),
            },
        };
    }
    let relative = str_of(source, "/path").trim_start_matches("./").trim_end_matches('/').to_string();
    if relative.contains("{{") {
        return ArgoBuild::NotBuilt { reason: format!("path `{relative}` still holds a template expression") };
    }
    let path = match crate::source::helm::in_repository(repo_root, &relative) {
        Some(path) if path.is_dir() => path,
        _ => {
            return ArgoBuild::NotBuilt {
                reason: format!("path `{relative}` of {repo_url} is not a directory of this repository: not built"),
            };
        }
    };
    let has_kustomization =
        ["kustomization.yaml", "kustomization.yml", "Kustomization"].iter().any(|file| path.join(file).is_file());
    let explicit_helm = source.get("helm").is_some();
    let explicit_kustomize = source.get("kustomize").is_some();
    let explicit_directory = source.get("directory").is_some();
    if explicit_helm || (!explicit_kustomize && !explicit_directory && !has_kustomization && is_chart_dir(&path)) {
        return match helm_request(source, pointer, &path, context) {
            Ok(request) => ArgoBuild::Helm { relative, request },
            Err(reason) => ArgoBuild::NotBuilt { reason },
        };
    }
    if explicit_kustomize || (!explicit_directory && has_kustomization) {
        return ArgoBuild::Kustomize { relative, path, edits: None };
    }
    ArgoBuild::Directory {
        relative,
        path,
        recurse: source.bool_at("/directory/recurse").unwrap_or(false),
        include: str_of(source, "/directory/include").to_string(),
        exclude: str_of(source, "/directory/exclude").to_string(),
    }
}

/// `helm template` of a helm source as Argo CD runs it: release `helm.releaseName` (else the application's
/// name), `valueFiles` (relative to the chart, or `$ref/...` from the root of a `ref` source), then `values` and
/// `valuesObject`, then `parameters` as `--set` / `--set-string`.
fn helm_request(
    source: &Value,
    pointer: &str,
    chart_dir: &Path,
    context: &SourceContext<'_>,
) -> Result<RenderRequest, String> {
    let SourceContext { all_sources, app_name, namespace, owner, repo_root, document, .. } = *context;
    // A chart directory, or a packed chart found for a `chart:` source.
    if !is_chart_dir(chart_dir) && !chart_dir.is_file() {
        return Err(format!("helm source `{}` has no Chart.yaml", chart_dir.display()));
    }
    let helm = source.get("helm").cloned().unwrap_or(Value::Null);
    let ignore_missing = helm.get("ignoreMissingValueFiles").and_then(Value::as_bool).unwrap_or(false);
    let mut values_files = Vec::new();
    for file in helm.get("valueFiles").and_then(Value::as_array).into_iter().flatten() {
        let file = file.as_str().unwrap_or("");
        let resolved = match file.strip_prefix('$') {
            Some(reference) => {
                let (ref_name, rest) = reference.split_once('/').unwrap_or((reference, ""));
                if !all_sources.iter().any(|other| other.get("ref").and_then(Value::as_str) == Some(ref_name)) {
                    return Err(format!("value file `{file}` names no source with `ref: {ref_name}`"));
                }
                repo_root.join(rest)
            }
            None => chart_dir.join(file),
        };
        let resolved = Some(resolved).filter(|path| !file.contains("://") && inside_repository(path, repo_root));
        match resolved.filter(|path| path.is_file()) {
            Some(path) => values_files.push(path),
            None if ignore_missing => {}
            None => return Err(format!("value file `{file}` is not in this repository: not built")),
        }
    }
    let mut inline_values = Vec::new();
    if let Some(text) = helm.get("values").and_then(Value::as_str).filter(|text| !text.trim().is_empty()) {
        let label = format!("{owner} helm.values");
        let inline = match document {
            Some(document) => InlineValues::in_text(label.clone(), text, document, &format!("{pointer}/helm/values")),
            None => crate::manifest::parse_plain_value(text, &label)
                .map(|value| InlineValues { label: label.clone(), value, written_at: None, secret: false })
                .map_err(|err| err.to_string()),
        };
        match inline {
            Ok(inline) if inline.value.is_null() => {}
            Ok(inline) if inline.value.is_object() => inline_values.push(inline),
            Ok(_) => return Err("helm.values is not a map of values".to_string()),
            Err(err) => return Err(format!("helm.values is not YAML: {err}")),
        }
    }
    if let Some(object) = helm.get("valuesObject").filter(|value| value.is_object()) {
        let label = format!("{owner} helm.valuesObject");
        inline_values.push(match document {
            Some(document) => {
                InlineValues::in_document(label, object.clone(), document, &format!("{pointer}/helm/valuesObject"))
            }
            None => InlineValues { label, value: object.clone(), written_at: None, secret: false },
        });
    }
    let (mut set, mut set_string, mut set_written_at) = (Vec::new(), Vec::new(), HashMap::new());
    for (index, parameter) in helm.get("parameters").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = str_of(parameter, "/name");
        let value = match parameter.get("value") {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let assignment = format!("{name}={value}");
        if let Some(document) = document {
            let line = document.line_of(&format!("{pointer}/helm/parameters/{index}/value"));
            let file = PathBuf::from(document.origin.source.as_ref());
            set_written_at.insert(assignment.clone(), WrittenAt { file, line, secret: false });
        }
        if parameter.get("forceString").and_then(Value::as_bool).unwrap_or(false) {
            set_string.push(assignment);
        } else {
            set.push(assignment);
        }
    }
    let release = helm.get("releaseName").and_then(Value::as_str).filter(|name| !name.is_empty()).unwrap_or(app_name);
    let namespace = helm.get("namespace").and_then(Value::as_str).filter(|ns| !ns.is_empty()).or(namespace);
    Ok(RenderRequest {
        chart_dir: chart_dir.to_path_buf(),
        release: release.to_string(),
        namespace: namespace.unwrap_or(crate::source::helm::RELEASE_NAMESPACE).to_string(),
        include_crds: !helm.get("skipCrds").and_then(Value::as_bool).unwrap_or(false),
        values_files,
        inline_values,
        set,
        set_string,
        set_written_at,
        label: owner.to_string(),
        stage: None,
    })
}

/// Whether `path` exists and, symlinks resolved, lies inside `repo_root`.
fn inside_repository(path: &Path, repo_root: &Path) -> bool {
    match (path.canonicalize(), repo_root.canonicalize()) {
        (Ok(path), Ok(root)) => path.starts_with(root),
        _ => false,
    }
}
