//! The fleet file: shared defaults, the ClusterClasses to publish and the clusters, read with the line
//! of every entry so errors can point at it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::manifest::{self, LineIndex};

use super::names::{FLAVOR, LABEL, SUBDOMAIN, is_flavor_name, is_label, is_subdomain};

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
    /// The GitOps objects of the tree (Flux Kustomizations or Argo CD Applications), if any.
    #[serde(default)]
    pub gitops: GitopsSettings,
    /// `create` (default): the tree holds a Namespace object for each namespace; `existing`: it does not.
    #[serde(default)]
    pub namespaces: NamespacePolicy,
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

/// Which GitOps objects the tree holds beside the manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GitopsKind {
    /// A Flux `Kustomization` per cluster, ClusterClass and namespace, under `flux/`.
    Flux,
    /// An Argo CD `Application` per cluster, ClusterClass and namespace, under `argocd/`.
    Argocd,
}

impl GitopsKind {
    /// The name the fleet file and `--gitops` use.
    pub fn name(self) -> &'static str {
        match self {
            GitopsKind::Flux => "flux",
            GitopsKind::Argocd => "argocd",
        }
    }
}

/// Whether the tree holds the Namespace objects of the clusters' and classes' namespaces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NamespacePolicy {
    /// Write a Namespace object for every namespace (except `default` and `kube-*`), never pruned.
    #[default]
    Create,
    /// The namespaces exist already: write none.
    Existing,
}

/// The GitOps objects of the tree: which kind and how they are set up. The fleet file alone decides
/// them; `--gitops` can only confirm `kind`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GitopsSettings {
    /// `flux` or `argocd`; absent: no GitOps objects.
    #[serde(default)]
    pub kind: Option<GitopsKind>,
    /// Namespace of the Flux Kustomizations / Argo CD Applications (default `flux-system` / `argocd`).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Path of the output directory inside the repository (default `.`).
    #[serde(default)]
    pub path_prefix: Option<String>,
    /// Whether objects removed from Git are deleted from the management cluster (default true).
    #[serde(default)]
    pub prune: Option<bool>,
    /// Flux: reconcile interval (default `10m`).
    #[serde(default)]
    pub interval: Option<String>,
    /// Flux: interval between retries of a failed reconciliation (Flux's default: `interval`).
    #[serde(default)]
    pub retry_interval: Option<String>,
    /// Flux: timeout of apply and health checks (Flux's default: `interval`).
    #[serde(default)]
    pub timeout: Option<String>,
    /// Flux: wait for every applied object to be ready (then the per-object health checks are not written).
    #[serde(default)]
    pub wait: Option<bool>,
    /// Flux: name of the GitRepository (default `flux-system`).
    #[serde(default)]
    pub source_name: Option<String>,
    /// Flux: namespace of the GitRepository (default: `namespace`).
    #[serde(default)]
    pub source_namespace: Option<String>,
    /// Argo CD: Git repository URL (`spec.source.repoURL`); required for `kind: argocd`.
    #[serde(default)]
    pub repo_url: Option<String>,
    /// Argo CD: revision to track (default `HEAD`).
    #[serde(default)]
    pub revision: Option<String>,
    /// Argo CD: project of the Applications (default `default`).
    #[serde(default)]
    pub project: Option<String>,
    /// Argo CD: also write the AppProject (source: `repoUrl`; destinations: the fleet's namespaces).
    #[serde(default)]
    pub create_project: Option<bool>,
    /// Argo CD: where the objects are applied (default server `https://kubernetes.default.svc`).
    #[serde(default)]
    pub destination: Option<Destination>,
    /// Argo CD: sync option `CreateNamespace=true` (Argo CD creates each destination namespace).
    #[serde(default)]
    pub create_namespace: Option<bool>,
    /// Argo CD: automated sync reverts changes made in the cluster (`selfHeal`).
    #[serde(default)]
    pub self_heal: Option<bool>,
    /// Argo CD: retry of failed syncs (default limit 5, backoff 5s, factor 2, at most 3m).
    #[serde(default)]
    pub retry: Option<Retry>,
}

/// An Argo CD destination: a cluster by URL or by name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Destination {
    /// API server URL of the management cluster.
    #[serde(default)]
    pub server: Option<String>,
    /// Name of the management cluster as Argo CD knows it.
    #[serde(default)]
    pub name: Option<String>,
}

/// Argo CD's retry of failed syncs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Retry {
    /// Number of retries (default 5; negative: unlimited).
    #[serde(default)]
    pub limit: Option<i64>,
    /// Backoff between retries.
    #[serde(default)]
    pub backoff: Option<Backoff>,
}

/// Argo CD's retry backoff.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Backoff {
    /// First wait (default `5s`).
    #[serde(default)]
    pub duration: Option<String>,
    /// Factor applied to the wait after each failure (default 2).
    #[serde(default)]
    pub factor: Option<i64>,
    /// Longest wait (default `3m`).
    #[serde(default)]
    pub max_duration: Option<String>,
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
    /// Two entries would get the same GitOps object, or a name is too long for its GitOps tool.
    #[error("{location}: {message}")]
    GitopsName { location: String, message: String },
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
        let text = manifest::read_input_file(path)
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
        if let Some((pointer, message)) = first_bad_name(&spec) {
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
        check_gitops(&spec.gitops).map_err(|(pointer, message)| invalid(&pointer, message))?;
        Ok(Fleet { spec, file: path.to_path_buf(), lines: Arc::new(lines) })
    }

    /// `file:line` of a JSON pointer into the fleet file (the line of its closest ancestor present).
    pub fn location_of_setting(&self, pointer: &str) -> String {
        let mut current = pointer;
        loop {
            if let Some(line) = self.lines.line_of(current) {
                return format!("{}:{line}", self.file.display());
            }
            match current.rsplit_once('/') {
                Some((parent, _)) if !parent.is_empty() => current = parent,
                _ => return format!("{}:1", self.file.display()),
            }
        }
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

/// Flux's and Argo CD's duration syntax (Flux's CRD pattern): `10m`, `1h30m`, `500ms`.
fn is_duration(text: &str) -> bool {
    static PATTERN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    PATTERN
        .get_or_init(|| regex::Regex::new(r"^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$").expect("duration pattern"))
        .is_match(text)
}

/// The GitOps settings agree with their kind: no Flux setting for Argo CD or the reverse, the
/// settings a kind needs are there, durations are durations. Errors are (JSON pointer, message).
fn check_gitops(gitops: &GitopsSettings) -> Result<(), (String, String)> {
    let flux_only = [
        ("interval", gitops.interval.is_some()),
        ("retryInterval", gitops.retry_interval.is_some()),
        ("timeout", gitops.timeout.is_some()),
        ("wait", gitops.wait.is_some()),
        ("sourceName", gitops.source_name.is_some()),
        ("sourceNamespace", gitops.source_namespace.is_some()),
    ];
    let argocd_only = [
        ("repoUrl", gitops.repo_url.is_some()),
        ("revision", gitops.revision.is_some()),
        ("project", gitops.project.is_some()),
        ("createProject", gitops.create_project.is_some()),
        ("destination", gitops.destination.is_some()),
        ("createNamespace", gitops.create_namespace.is_some()),
        ("selfHeal", gitops.self_heal.is_some()),
        ("retry", gitops.retry.is_some()),
    ];
    let misplaced = |keys: &[(&str, bool)], owner: &str, kind: GitopsKind| {
        keys.iter().find(|(_, set)| *set).map(|(key, _)| {
            (
                format!("/gitops/{key}"),
                format!("`{key}` is a {owner} setting, but this fleet has `kind: {}`", kind.name()),
            )
        })
    };
    match gitops.kind {
        Some(GitopsKind::Flux) => {
            if let Some(error) = misplaced(&argocd_only, "Argo CD", GitopsKind::Flux) {
                return Err(error);
            }
        }
        Some(GitopsKind::Argocd) => {
            if let Some(error) = misplaced(&flux_only, "Flux", GitopsKind::Argocd) {
                return Err(error);
            }
            if gitops.repo_url.is_none() {
                return Err((
                    "/gitops/kind".into(),
                    "`kind: argocd` needs `repoUrl` (the Git repository Argo CD reads this tree from)".into(),
                ));
            }
        }
        None => {}
    }
    let mut durations = vec![
        ("/gitops/interval", gitops.interval.as_deref()),
        ("/gitops/retryInterval", gitops.retry_interval.as_deref()),
        ("/gitops/timeout", gitops.timeout.as_deref()),
    ];
    if let Some(backoff) = gitops.retry.as_ref().and_then(|r| r.backoff.as_ref()) {
        durations.push(("/gitops/retry/backoff/duration", backoff.duration.as_deref()));
        durations.push(("/gitops/retry/backoff/maxDuration", backoff.max_duration.as_deref()));
        if let Some(factor) = backoff.factor
            && factor < 1
        {
            return Err(("/gitops/retry/backoff/factor".into(), format!("factor must be at least 1, got {factor}")));
        }
    }
    for (pointer, value) in durations {
        if let Some(text) = value
            && !is_duration(text)
        {
            return Err((pointer.into(), format!("`{text}` is not a duration (like `30s`, `10m`, `1h30m`)")));
        }
    }
    if gitops.create_project == Some(true) && gitops.project.as_deref().unwrap_or("default") == "default" {
        return Err((
            "/gitops/createProject".into(),
            "`createProject` needs `project` naming a project other than Argo CD's built-in `default`".into(),
        ));
    }
    if let Some(destination) = &gitops.destination
        && destination.server.is_some() == destination.name.is_some()
    {
        return Err(("/gitops/destination".into(), "set exactly one of `server` and `name`".into()));
    }
    Ok(())
}

/// serde's "unknown field `x`, expected one of `a`, `b`" with the closest known field named.
fn with_suggestion(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else { return message };
    let Some((unknown, expected)) = rest.split_once("`, expected ") else { return message };
    let best = crate::suggest::closest(unknown, expected.split('`').skip(1).step_by(2));
    match best {
        Some(known) => format!("unknown field `{unknown}` (did you mean `{known}`?)"),
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
            Segment::Map { key } => pointer.push_str(&crate::json_pointer::escape_token(key)),
            Segment::Enum { variant } => pointer.push_str(variant),
            Segment::Unknown => pointer.push('?'),
        }
    }
    pointer
}

/// The first name of the fleet that is not allowed: its JSON pointer and the message.
fn first_bad_name(spec: &FleetSpec) -> Option<(String, String)> {
    let bad = |pointer: String, what: &str, value: &str, rule: &str| {
        Some((
            pointer,
            format!(
                "{what} `{}` is not allowed: use {rule} (names become directories of the output tree, so they are checked even with --no-validate)",
                value.escape_debug()
            ),
        ))
    };
    for (i, class) in spec.cluster_classes.iter().enumerate() {
        if !is_subdomain(&class.name) {
            return bad(format!("/clusterClasses/{i}/name"), "ClusterClass name", &class.name, SUBDOMAIN);
        }
        if !is_label(&class.namespace) {
            return bad(format!("/clusterClasses/{i}/namespace"), "namespace", &class.namespace, LABEL);
        }
        if !is_flavor_name(&class.class) {
            return bad(format!("/clusterClasses/{i}/class"), "class", &class.class, FLAVOR);
        }
    }
    for (i, cluster) in spec.clusters.iter().enumerate() {
        if !is_subdomain(&cluster.name) {
            return bad(format!("/clusters/{i}/name"), "cluster name", &cluster.name, SUBDOMAIN);
        }
        if !is_label(&cluster.namespace) {
            return bad(format!("/clusters/{i}/namespace"), "namespace", &cluster.namespace, LABEL);
        }
        if let Some(flavor) = &cluster.flavor
            && !is_flavor_name(flavor)
        {
            return bad(format!("/clusters/{i}/flavor"), "flavor", flavor, FLAVOR);
        }
    }
    None
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
