//! The GitOps objects of a fleet tree: Flux Kustomizations or Argo CD Applications (and AppProject) for
//! its namespaces, ClusterClasses and clusters, their names, order and the fields they leave to controllers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::spec::{GitopsKind, GitopsSettings};
use crate::controller_fields::{AUTOSCALED_MACHINE_POOL_PATHS, capz_managed_paths, is_aso_wrapper_kind};
use crate::json_pointer::At;
use crate::manifest::{self, Document};

/// Argo CD's annotation ordering the objects of one sync.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// Argo CD's per-object sync options (`Prune=false`).
pub const ARGOCD_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// Flux's per-object prune switch (`disabled`).
pub const FLUX_PRUNE: &str = "kustomize.toolkit.fluxcd.io/prune";

/// What a GitOps object deploys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// The Namespace object of one namespace.
    Namespace,
    /// A ClusterClass and its templates.
    ClusterClass,
    /// A cluster's objects.
    Cluster,
}

impl Role {
    fn prefix(self) -> &'static str {
        match self {
            Role::Namespace => "namespace",
            Role::ClusterClass => "clusterclass",
            Role::Cluster => "cluster",
        }
    }
    fn folder(self) -> &'static str {
        match self {
            Role::Namespace => "namespaces",
            Role::ClusterClass => "clusterclasses",
            Role::Cluster => "clusters",
        }
    }
    /// Argo CD sync wave of the Application: namespaces, then classes, then clusters.
    fn wave(self) -> &'static str {
        match self {
            Role::Namespace => "-2",
            Role::ClusterClass => "-1",
            Role::Cluster => "0",
        }
    }
    /// What the role is called in messages.
    pub fn what(self) -> &'static str {
        match self {
            Role::Namespace => "namespace",
            Role::ClusterClass => "ClusterClass",
            Role::Cluster => "cluster",
        }
    }
}

/// Argo CD wave of the AppProject: before everything that uses it.
const PROJECT_WAVE: &str = "-3";
/// Argo CD wave of the credential Secrets inside a cluster's Application: before the cluster's objects.
const SECRET_WAVE: &str = "-1";

/// Kubernetes namespaces that always exist: no Namespace object is written for them.
pub fn is_builtin_namespace(namespace: &str) -> bool {
    namespace == "default" || namespace.starts_with("kube-")
}

/// Name of the GitOps object of a namespace, ClusterClass or cluster: `<role>-<namespace>-<name>`
/// (`namespace-<namespace>`). Not injective on its own (`team-a`/`c` and `team`/`a-c`): the fleet checks
/// every name it generates for collisions.
pub fn object_name(role: Role, namespace: &str, name: &str) -> String {
    match role {
        Role::Namespace => format!("{}-{namespace}", role.prefix()),
        _ => format!("{}-{namespace}-{name}", role.prefix()),
    }
}

/// Path of the GitOps object's file in the tree: `<flux|argocd>/<clusters|clusterclasses|namespaces>/…`.
pub fn object_path(kind: GitopsKind, role: Role, namespace: &str, name: &str) -> PathBuf {
    let file = match role {
        Role::Namespace => format!("{namespace}.yaml"),
        _ => format!("{namespace}-{name}.yaml"),
    };
    PathBuf::from(kind.name()).join(role.folder()).join(file)
}

/// Namespace of the GitOps objects.
pub fn objects_namespace(settings: &GitopsSettings, kind: GitopsKind) -> &str {
    settings.namespace.as_deref().unwrap_or(match kind {
        GitopsKind::Flux => "flux-system",
        GitopsKind::Argocd => "argocd",
    })
}

fn repo_path(settings: &GitopsSettings, dir: &Path) -> String {
    let prefix = settings.path_prefix.as_deref().unwrap_or(".").trim_end_matches('/');
    format!("{prefix}/{}", dir.display())
}

/// One GitOps object to write.
pub struct Unit<'a> {
    /// What it deploys.
    pub role: Role,
    /// Namespace of what it deploys.
    pub namespace: &'a str,
    /// Name of what it deploys (the namespace again for a namespace).
    pub name: &'a str,
    /// Directory of the manifests in the tree.
    pub dir: &'a Path,
    /// GitOps objects (roles, namespaces, names) that must be ready first.
    pub depends_on: Vec<(Role, &'a str, &'a str)>,
    /// The objects it deploys.
    pub documents: &'a [Document],
}

/// The GitOps object of a unit, with its path in the tree.
pub fn object(settings: &GitopsSettings, kind: GitopsKind, unit: &Unit) -> (PathBuf, Vec<u8>) {
    let value = match kind {
        GitopsKind::Flux => flux_kustomization(settings, unit),
        GitopsKind::Argocd => argocd_application(settings, unit),
    };
    (object_path(kind, unit.role, unit.namespace, unit.name), manifest::to_yaml(&value).into_bytes())
}

fn flux_kustomization(settings: &GitopsSettings, unit: &Unit) -> Value {
    let namespace = objects_namespace(settings, GitopsKind::Flux);
    let mut spec = serde_json::Map::new();
    spec.insert("interval".into(), json!(settings.interval.as_deref().unwrap_or("10m")));
    if let Some(retry) = &settings.retry_interval {
        spec.insert("retryInterval".into(), json!(retry));
    }
    if let Some(timeout) = &settings.timeout {
        spec.insert("timeout".into(), json!(timeout));
    }
    spec.insert("path".into(), json!(repo_path(settings, unit.dir)));
    spec.insert("prune".into(), json!(settings.prune.unwrap_or(true)));
    if let Some(wait) = settings.wait {
        spec.insert("wait".into(), json!(wait));
    }
    spec.insert(
        "sourceRef".into(),
        json!({
            "kind": "GitRepository",
            "name": settings.source_name.as_deref().unwrap_or("flux-system"),
            "namespace": settings.source_namespace.as_deref().unwrap_or(namespace),
        }),
    );
    if !unit.depends_on.is_empty() {
        let depends: Vec<Value> = unit
            .depends_on
            .iter()
            .map(|(role, ns, name)| json!({"name": object_name(*role, ns, name), "namespace": namespace}))
            .collect();
        spec.insert("dependsOn".into(), Value::Array(depends));
    }
    // With `wait`, Flux checks every applied object and ignores `healthChecks`.
    if settings.wait != Some(true) {
        let checks = health_checks(unit);
        if !checks.is_empty() {
            spec.insert("healthChecks".into(), Value::Array(checks));
        }
    }
    json!({
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": object_name(unit.role, unit.namespace, unit.name), "namespace": namespace},
        "spec": spec,
    })
}

/// The objects whose readiness says the unit is deployed: the Namespace, the ClusterClass, the Cluster.
fn health_checks(unit: &Unit) -> Vec<Value> {
    let wanted = match unit.role {
        Role::Namespace => ("", "Namespace"),
        Role::ClusterClass => ("cluster.x-k8s.io", "ClusterClass"),
        Role::Cluster => ("cluster.x-k8s.io", "Cluster"),
    };
    unit.documents
        .iter()
        .filter(|doc| (doc.group(), doc.kind()) == wanted)
        .map(|doc| {
            let mut check = json!({"apiVersion": doc.api_version(), "kind": doc.kind(), "name": doc.name()});
            if let Some(namespace) = doc.namespace() {
                check["namespace"] = json!(namespace);
            }
            check
        })
        .collect()
}

fn destination(settings: &GitopsSettings) -> serde_json::Map<String, Value> {
    let mut destination = serde_json::Map::new();
    match settings.destination.as_ref().and_then(|d| d.name.as_deref()) {
        Some(name) => destination.insert("name".into(), json!(name)),
        None => destination.insert(
            "server".into(),
            json!(
                settings
                    .destination
                    .as_ref()
                    .and_then(|d| d.server.as_deref())
                    .unwrap_or("https://kubernetes.default.svc")
            ),
        ),
    };
    destination
}

fn argocd_application(settings: &GitopsSettings, unit: &Unit) -> Value {
    let mut destination = destination(settings);
    // A Namespace is cluster-scoped; its namespace as destination keeps it within the project's destinations.
    destination.insert("namespace".into(), json!(unit.namespace));
    let ignore = ignore_differences(unit.documents);
    let mut sync_options = Vec::new();
    if settings.create_namespace == Some(true) && unit.role != Role::Namespace {
        sync_options.push("CreateNamespace=true");
    }
    if !ignore.is_empty() {
        // Without it a sync would still write the ignored fields back.
        sync_options.push("RespectIgnoreDifferences=true");
    }
    let mut automated = json!({"prune": settings.prune.unwrap_or(true)});
    if let Some(self_heal) = settings.self_heal {
        automated["selfHeal"] = json!(self_heal);
    }
    let retry = settings.retry.as_ref();
    let backoff = retry.and_then(|r| r.backoff.as_ref());
    let mut sync_policy = json!({
        "automated": automated,
        "retry": {
            "limit": retry.and_then(|r| r.limit).unwrap_or(5),
            "backoff": {
                "duration": backoff.and_then(|b| b.duration.as_deref()).unwrap_or("5s"),
                "factor": backoff.and_then(|b| b.factor).unwrap_or(2),
                "maxDuration": backoff.and_then(|b| b.max_duration.as_deref()).unwrap_or("3m"),
            },
        },
    });
    if !sync_options.is_empty() {
        sync_policy["syncOptions"] = json!(sync_options);
    }
    let mut spec = json!({
        "project": settings.project.as_deref().unwrap_or("default"),
        "source": {
            "repoURL": settings.repo_url.as_deref().unwrap_or_default(),
            "targetRevision": settings.revision.as_deref().unwrap_or("HEAD"),
            "path": repo_path(settings, unit.dir).trim_start_matches("./"),
        },
        "destination": destination,
        "syncPolicy": sync_policy,
    });
    if !ignore.is_empty() {
        spec["ignoreDifferences"] = Value::Array(ignore);
    }
    json!({
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": object_name(unit.role, unit.namespace, unit.name),
            "namespace": objects_namespace(settings, GitopsKind::Argocd),
            "annotations": {SYNC_WAVE: unit.role.wave()},
        },
        "spec": spec,
    })
}

/// The Argo CD AppProject of the fleet: its repository as the only source, its namespaces on the
/// destination as the only destinations, Namespace the only cluster-scoped kind.
pub fn argocd_project(settings: &GitopsSettings, namespaces: &BTreeSet<String>) -> (PathBuf, Vec<u8>) {
    let destinations: Vec<Value> = namespaces
        .iter()
        .map(|namespace| {
            let mut destination = destination(settings);
            destination.insert("namespace".into(), json!(namespace));
            Value::Object(destination)
        })
        .collect();
    let project = json!({
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {
            "name": settings.project.as_deref().unwrap_or("default"),
            "namespace": objects_namespace(settings, GitopsKind::Argocd),
            "annotations": {SYNC_WAVE: PROJECT_WAVE},
        },
        "spec": {
            "description": "Clusters and ClusterClasses written by kubectl-capz render --fleet",
            "sourceRepos": [settings.repo_url.as_deref().unwrap_or_default()],
            "destinations": destinations,
            "clusterResourceWhitelist": [{"group": "", "kind": "Namespace"}],
        },
    });
    (PathBuf::from("argocd/project.yaml"), manifest::to_yaml(&project).into_bytes())
}

/// The Namespace object of a namespace, never pruned by either GitOps tool (pruning a namespace
/// deletes everything in it).
pub fn namespace_object(namespace: &str, kind: Option<GitopsKind>) -> Value {
    let mut object = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
    match kind {
        Some(GitopsKind::Flux) => object["metadata"]["annotations"] = json!({FLUX_PRUNE: "disabled"}),
        Some(GitopsKind::Argocd) => object["metadata"]["annotations"] = json!({ARGOCD_SYNC_OPTIONS: "Prune=false"}),
        None => {}
    }
    object
}

/// Argo CD: credential Secrets sync before the objects that read them.
pub fn order_for_argocd(documents: &mut [Document]) {
    for doc in documents.iter_mut().filter(|d| d.kind() == "Secret" && d.api_version() == "v1") {
        let Some(metadata) = doc.value.get_mut("metadata").and_then(Value::as_object_mut) else { continue };
        let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
        if let Some(map) = annotations.as_object_mut() {
            map.insert(SYNC_WAVE.into(), json!(SECRET_WAVE));
        }
    }
}

/// A path of field names as a jq path expression: `.spec.resources`, `.metadata.annotations["a/b"]`.
fn jq_path(path: &[&str]) -> String {
    path.iter()
        .map(|segment| {
            let plain = segment.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && segment.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if plain { format!(".{segment}") } else { format!("[{}]", json!(segment)) }
        })
        .collect()
}

/// Whether the infrastructure pool of a MachinePool scales itself: an embedded ASO agent pool with
/// `enableAutoScaling`, or an AzureManagedMachinePool with `scaling`. CAPZ then owns the replicas.
fn autoscaled(machine_pool: &Document, documents: &[Document]) -> bool {
    let reference = machine_pool.value.pointer("/spec/template/spec/infrastructureRef");
    let kind = reference.and_then(|r| r.get("kind")).and_then(Value::as_str);
    let name = reference.and_then(|r| r.get("name")).and_then(Value::as_str);
    documents.iter().filter(|d| Some(d.kind()) == kind && Some(d.name()) == name).any(|pool| {
        pool.value.pointer("/spec/scaling").is_some()
            || pool.value.array_at("/spec/resources").is_some_and(|items| {
                items.iter().any(|item| item.pointer("/spec/enableAutoScaling") == Some(&Value::Bool(true)))
            })
    })
}

/// The jq path expressions of one `ignoreDifferences` entry: the fields, then the objects their removal
/// may leave empty (deepest first), so that as in `diff` an emptied map is gone on both sides.
#[derive(Default)]
struct IgnoredPaths {
    fields: Vec<String>,
    emptied: Vec<(usize, String)>,
}

impl IgnoredPaths {
    /// Adds the field at `path` below the objects `prefix` selects (`""`: the object itself).
    fn add(&mut self, prefix: &str, path: &[&str]) {
        let join = |rest: String| if prefix.is_empty() { rest } else { format!("{prefix} | {rest}") };
        self.fields.push(join(jq_path(path)));
        // Parents below the top level (`spec`, `metadata` never end up empty).
        for depth in (2..path.len()).rev() {
            let parent = jq_path(&path[..depth]);
            self.emptied.push((depth, join(format!("select({parent} == {{}}) | {parent}"))));
        }
    }

    fn expressions(mut self) -> Vec<String> {
        self.emptied.sort_by_key(|(depth, _)| std::cmp::Reverse(*depth));
        let mut seen = BTreeSet::new();
        self.fields
            .into_iter()
            .chain(self.emptied.into_iter().map(|(_, expression)| expression))
            .filter(|expression| seen.insert(expression.clone()))
            .collect()
    }
}

/// Argo CD `ignoreDifferences` for the fields controllers write into `documents`, from the list `diff`
/// leaves out ([`crate::controller_fields`]): CAPZ's mutator fields of the ASO objects embedded in
/// AzureASOManaged* objects (and of plain ASO objects), and an autoscaled MachinePool's replicas. Argo CD
/// runs each expression as `del(EXPR)`, in order, on the Git and the live form of each matching object.
pub fn ignore_differences(documents: &[Document]) -> Vec<Value> {
    // (group, kind, name) -> expressions; name empty for every object of the kind.
    let mut entries: BTreeMap<(String, String, String), IgnoredPaths> = BTreeMap::new();
    for doc in documents {
        let (group, kind) = (doc.group(), doc.kind());
        if is_aso_wrapper_kind(group, kind) {
            let items = doc.value.array_at("/spec/resources").cloned().unwrap_or_default();
            for item in &items {
                let api_version = item.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let (item_group, _) = manifest::split_api_version(api_version);
                let item_kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
                let prefix = format!(
                    ".spec.resources[] | select(.apiVersion | startswith({})) | select(.kind == {})",
                    json!(format!("{item_group}/")),
                    json!(item_kind)
                );
                let entry = entries.entry((group.into(), kind.into(), String::new())).or_default();
                for path in capz_managed_paths(item_group, item_kind, false) {
                    entry.add(&prefix, path);
                }
            }
        } else if group == "cluster.x-k8s.io" && kind == "MachinePool" && autoscaled(doc, documents) {
            let entry = entries.entry((group.into(), kind.into(), doc.name().into())).or_default();
            for path in AUTOSCALED_MACHINE_POOL_PATHS {
                entry.add("", path);
            }
        } else {
            for path in capz_managed_paths(group, kind, false) {
                entries.entry((group.into(), kind.into(), String::new())).or_default().add("", path);
            }
        }
    }
    entries
        .into_iter()
        .filter(|(_, paths)| !paths.fields.is_empty())
        .map(|((group, kind, name), paths)| {
            let mut entry = json!({"group": group, "kind": kind});
            if !name.is_empty() {
                entry["name"] = json!(name);
            }
            entry["jqPathExpressions"] = json!(paths.expressions());
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(yaml: &str) -> Vec<Document> {
        manifest::parse_documents(yaml, "test.yaml").unwrap()
    }

    #[test]
    fn jq_paths_quote_what_is_not_an_identifier() {
        assert_eq!(jq_path(&["spec", "kubernetesVersion"]), ".spec.kubernetesVersion");
        assert_eq!(
            jq_path(&["metadata", "annotations", "serviceoperator.azure.com/reconcile-policy"]),
            ".metadata.annotations[\"serviceoperator.azure.com/reconcile-policy\"]"
        );
    }

    #[test]
    fn ignore_differences_follow_the_controller_owned_fields() {
        let docs = documents(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedControlPlane\nmetadata: {name: c, namespace: n}\nspec:\n  resources:\n  - apiVersion: containerservice.azure.com/v1api20240901\n    kind: ManagedCluster\n    metadata: {name: c}\n    spec: {}\n---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool\nmetadata: {name: c-p1, namespace: n}\nspec:\n  replicas: 2\n  template:\n    spec:\n      infrastructureRef: {kind: AzureASOManagedMachinePool, name: c-p1}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedMachinePool\nmetadata: {name: c-p1, namespace: n}\nspec:\n  resources:\n  - apiVersion: containerservice.azure.com/v1api20240901\n    kind: ManagedClustersAgentPool\n    spec: {enableAutoScaling: true}\n---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool\nmetadata: {name: c-p2, namespace: n}\nspec:\n  replicas: 2\n  template:\n    spec:\n      infrastructureRef: {kind: AzureASOManagedMachinePool, name: c-p2}\n",
        );
        let ignore = ignore_differences(&docs);
        let control_plane = ignore.iter().find(|e| e["kind"] == "AzureASOManagedControlPlane").unwrap();
        let expressions: Vec<&str> =
            control_plane["jqPathExpressions"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
        let prefix = ".spec.resources[] | select(.apiVersion | startswith(\"containerservice.azure.com/\")) | select(.kind == \"ManagedCluster\")";
        // Every path of the shared list, in its order, then the objects they may empty, deepest first.
        let mut expected: Vec<String> = capz_managed_paths("containerservice.azure.com", "ManagedCluster", false)
            .iter()
            .map(|path| format!("{prefix} | {}", jq_path(path)))
            .collect();
        expected.extend(
            [".operatorSpec.secrets", ".spec.networkProfile", ".spec.operatorSpec", ".metadata.annotations"]
                .iter()
                .map(|parent| {
                    let parent =
                        if parent.starts_with(".operatorSpec") { format!(".spec{parent}") } else { parent.to_string() };
                    format!("{prefix} | select({parent} == {{}}) | {parent}")
                }),
        );
        assert_eq!(expressions, expected);
        let pools: Vec<&Value> = ignore.iter().filter(|e| e["kind"] == "MachinePool").collect();
        assert_eq!(pools.len(), 1, "only the autoscaled pool: {ignore:?}");
        assert_eq!(pools[0]["name"], "c-p1");
        assert_eq!(
            pools[0]["jqPathExpressions"],
            json!([
                ".spec.replicas",
                ".metadata.annotations[\"cluster.x-k8s.io/replicas-managed-by\"]",
                "select(.metadata.annotations == {}) | .metadata.annotations"
            ])
        );
        let agent_pool = ignore.iter().find(|e| e["kind"] == "AzureASOManagedMachinePool").unwrap();
        assert_eq!(agent_pool["jqPathExpressions"].as_array().unwrap().len(), 4, "3 fields and the annotations");
    }

    #[test]
    fn names_and_paths() {
        assert_eq!(object_name(Role::Cluster, "team-a", "c"), "cluster-team-a-c");
        assert_eq!(object_name(Role::Namespace, "team-a", "team-a"), "namespace-team-a");
        assert_eq!(
            object_path(GitopsKind::Argocd, Role::ClusterClass, "classes", "std"),
            PathBuf::from("argocd/clusterclasses/classes-std.yaml")
        );
    }
}
