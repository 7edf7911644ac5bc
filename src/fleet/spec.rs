//! The fleet file: shared defaults, the ClusterClasses to publish and the clusters, read with the line
//! of every entry so errors can point at it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::manifest::{self, LineIndex};

/// A fleet: everything `render --fleet` writes into one repository tree.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FleetSpec {
    /// Always `kubectl-capz/v1alpha1`.
    pub api_version: String,
    /// Always `Fleet`.
    pub kind: String,
    /// Parameter values every cluster starts from (deep-merged beneath the cluster's own values).
    #[serde(default)]
    pub defaults: Value,
    /// ClusterClasses to publish under `clusterclasses/<name>/`.
    #[serde(default)]
    pub cluster_classes: Vec<ClassEntry>,
    /// The clusters, each written to `clusters/<namespace>/<name>/`.
    #[serde(default)]
    pub clusters: Vec<ClusterEntry>,
    /// Settings of the optional Flux Kustomization / Argo CD Application per cluster.
    #[serde(default)]
    pub gitops: GitopsSettings,
}

/// One ClusterClass to publish.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClassEntry {
    /// Name of the ClusterClass object.
    pub name: String,
    /// Namespace of the ClusterClass and its templates.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Which embedded ClusterClass to render: `aks` or `aks-aso`.
    pub class: String,
    /// Parameter values for the class (its variable defaults).
    #[serde(default)]
    pub values: Value,
}

/// One cluster of the fleet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterEntry {
    /// Cluster name.
    pub name: String,
    /// Namespace of the cluster's objects.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Flavor to render (`aks`, `aks-aso`); or use `class`.
    #[serde(default)]
    pub flavor: Option<String>,
    /// Name of a ClusterClass of this fleet: renders a topology Cluster of that class.
    #[serde(default)]
    pub class: Option<String>,
    /// Values files, relative to the fleet file, merged in order beneath `values`.
    #[serde(default)]
    pub values_files: Vec<PathBuf>,
    /// Parameter values of this cluster.
    #[serde(default)]
    pub values: Value,
}

/// Where the GitOps objects point.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GitopsSettings {
    /// Git repository URL (Argo CD `spec.source.repoURL`).
    #[serde(default)]
    pub repo_url: Option<String>,
    /// Revision to track (Argo CD `targetRevision`; default `HEAD`).
    #[serde(default)]
    pub revision: Option<String>,
    /// Flux GitRepository name (default `flux-system`).
    #[serde(default)]
    pub source_name: Option<String>,
    /// Namespace of the Flux Kustomizations / Argo CD Applications (default `flux-system` / `argocd`).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Path of the output directory inside the repository (default `.`).
    #[serde(default)]
    pub path_prefix: Option<String>,
}

fn default_namespace() -> String {
    "default".to_string()
}

/// Errors reading a fleet file.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The fleet file cannot be read or parsed as YAML.
    #[error(transparent)]
    Manifest(#[from] manifest::ManifestError),
    /// A field is unknown, missing or of the wrong type.
    #[error("{file}:{line}: {path}: {message}")]
    Invalid { file: String, line: usize, path: String, message: String },
    /// Two clusters (or classes) share a namespace and name.
    #[error("{file}:{line}: {what} `{namespace}/{name}` is defined twice (first at line {first_line})")]
    Duplicate { file: String, line: usize, first_line: usize, what: &'static str, namespace: String, name: String },
    /// A ClusterClass or cluster of the fleet failed to render or validate.
    #[error("{location}: {what}")]
    Entry {
        location: String,
        what: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A values file of a cluster cannot be read.
    #[error("{file}:{line}: cluster `{cluster}`: cannot read values file `{values_file}`: {reason}")]
    ValuesFile { file: String, line: usize, cluster: String, values_file: String, reason: String },
}

/// A fleet file, parsed, with line information for error messages.
#[derive(Debug, Clone)]
pub struct Fleet {
    /// The parsed specification.
    pub spec: FleetSpec,
    /// Path of the fleet file.
    pub file: PathBuf,
    lines: Arc<LineIndex>,
}

impl Fleet {
    /// Reads and checks a fleet file.
    pub fn read(path: &Path) -> Result<Fleet, FleetError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| manifest::ManifestError::Read { path: path.to_path_buf(), source })?;
        Fleet::parse(&text, path)
    }

    /// Parses fleet text (`path` names it in messages and anchors relative values files).
    pub fn parse(text: &str, path: &Path) -> Result<Fleet, FleetError> {
        let file = path.display().to_string();
        let (value, lines) = manifest::parse_value(text, &file)?;
        let spec: FleetSpec = serde_path_to_error::deserialize(&value).map_err(|err| {
            let pointer = serde_path_to_pointer(err.path());
            FleetError::Invalid {
                file: file.clone(),
                line: lines.line_of(&pointer).unwrap_or(1),
                path: err.path().to_string(),
                message: with_suggestion(err.inner().to_string()),
            }
        })?;
        let invalid = |pointer: &str, message: String| FleetError::Invalid {
            file: file.clone(),
            line: lines.line_of(pointer).unwrap_or(1),
            path: pointer.trim_start_matches('/').replace('/', "."),
            message,
        };
        if spec.api_version != "kubectl-capz/v1alpha1" {
            return Err(invalid(
                "/apiVersion",
                format!("expected `kubectl-capz/v1alpha1`, got `{}`", spec.api_version),
            ));
        }
        if spec.kind != "Fleet" {
            return Err(invalid("/kind", format!("expected `Fleet`, got `{}`", spec.kind)));
        }
        if let Some((pointer, message)) = super::names::first_bad_name(&spec) {
            return Err(invalid(&pointer, message));
        }
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (i, class) in spec.cluster_classes.iter().enumerate() {
            let pointer = format!("/clusterClasses/{i}");
            let line = lines.line_of(&pointer).unwrap_or(1);
            if let Some(first_line) = seen.insert((class.namespace.clone(), class.name.clone()), line) {
                return Err(FleetError::Duplicate {
                    file,
                    line,
                    first_line,
                    what: "ClusterClass",
                    namespace: class.namespace.clone(),
                    name: class.name.clone(),
                });
            }
        }
        let class_names: Vec<&str> = spec.cluster_classes.iter().map(|c| c.name.as_str()).collect();
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (i, cluster) in spec.clusters.iter().enumerate() {
            let pointer = format!("/clusters/{i}");
            let line = lines.line_of(&pointer).unwrap_or(1);
            if let Some(first_line) = seen.insert((cluster.namespace.clone(), cluster.name.clone()), line) {
                return Err(FleetError::Duplicate {
                    file,
                    line,
                    first_line,
                    what: "cluster",
                    namespace: cluster.namespace.clone(),
                    name: cluster.name.clone(),
                });
            }
            match (&cluster.flavor, &cluster.class) {
                (Some(_), Some(_)) | (None, None) => {
                    return Err(invalid(
                        &pointer,
                        format!("cluster `{}`: set exactly one of `flavor` and `class`", cluster.name),
                    ));
                }
                (None, Some(class)) if !class_names.contains(&class.as_str()) => {
                    return Err(invalid(
                        &format!("{pointer}/class"),
                        format!(
                            "cluster `{}`: no ClusterClass `{class}` in this fleet (it has: {})",
                            cluster.name,
                            if class_names.is_empty() { "none".to_string() } else { class_names.join(", ") }
                        ),
                    ));
                }
                _ => {}
            }
        }
        Ok(Fleet { spec, file: path.to_path_buf(), lines: Arc::new(lines) })
    }

    /// `file:line` of an entry, e.g. `/clusters/3` or `/clusters/3/values`.
    pub fn location(&self, pointer: &str) -> String {
        format!("{}:{}", self.file.display(), self.lines.line_of(pointer).unwrap_or(1))
    }

    /// Lines of the fleet file.
    pub fn lines(&self) -> &Arc<LineIndex> {
        &self.lines
    }

    /// Line of a cluster entry.
    pub fn cluster_line(&self, index: usize) -> usize {
        self.lines.line_of(&format!("/clusters/{index}")).unwrap_or(1)
    }

    /// Path of a cluster's values file, relative to the fleet file's directory.
    pub fn resolve(&self, relative: &Path) -> PathBuf {
        self.file.parent().unwrap_or(Path::new(".")).join(relative)
    }
}

/// serde's "unknown field `x`, expected one of `a`, `b`" with the closest known field named.
fn with_suggestion(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else { return message };
    let Some((unknown, expected)) = rest.split_once("`, expected ") else { return message };
    let best = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|known| (strsim::jaro_winkler(unknown, known), known))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, known)) => format!("unknown field `{unknown}` (did you mean `{known}`?)"),
        None => message,
    }
}

fn serde_path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        pointer.push('/');
        match segment {
            Segment::Seq { index } => pointer.push_str(&index.to_string()),
            Segment::Map { key } => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Segment::Enum { variant } => pointer.push_str(variant),
            Segment::Unknown => pointer.push('?'),
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Fleet, FleetError> {
        Fleet::parse(text, Path::new("fleet.yaml"))
    }

    const HEAD: &str = "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\n";

    #[test]
    fn reads_a_fleet() {
        let fleet = parse(&format!(
            "{HEAD}defaults:\n  location: westeurope\nclusterClasses:\n- name: std\n  class: aks-aso\nclusters:\n- name: a\n  flavor: aks-aso\n- name: b\n  namespace: team\n  class: std\n"
        ))
        .unwrap();
        assert_eq!(fleet.spec.clusters.len(), 2);
        assert_eq!(fleet.spec.clusters[1].namespace, "team");
        assert_eq!(fleet.cluster_line(1), 11);
    }

    #[test]
    fn unknown_key_names_file_line_and_path() {
        let err = parse(&format!("{HEAD}clusters:\n- name: a\n  flavour: aks\n")).unwrap_err().to_string();
        assert!(err.starts_with("fleet.yaml:5: clusters[0]"), "{err}");
        assert!(err.contains("unknown field `flavour` (did you mean `flavor`?)"), "{err}");
    }

    #[test]
    fn duplicate_cluster_is_rejected_with_both_lines() {
        let err = parse(&format!("{HEAD}clusters:\n- name: a\n  flavor: aks\n- name: a\n  flavor: aks-aso\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "fleet.yaml:6: cluster `default/a` is defined twice (first at line 4)");
    }

    #[test]
    fn class_must_exist() {
        let err = parse(&format!("{HEAD}clusters:\n- name: a\n  class: nope\n")).unwrap_err().to_string();
        assert!(err.contains("no ClusterClass `nope`"), "{err}");
    }
}
