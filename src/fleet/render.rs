//! Rendering a whole fleet into the files of its repository tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::gitops::{self, Role};
use super::record::{self, Digest, InputDigest, RenderRecord, UnitRecord};
use super::spec::{ClusterEntry, Fleet, FleetError, GitopsKind, NamespacePolicy};
use crate::manifest::{self, Document};
use crate::out_tree::DesiredTree;
use crate::params::{self, InlineValues, Inputs};
use crate::render::{self, CapiVersion, Engine, Flavor};
use crate::report::{Finding, Severity};

/// Checks run on every rendered cluster (the `validate` engine), returning its findings.
pub type Validator<'a> = dyn Fn(&[Document]) -> Vec<Finding> + Sync + 'a;

/// How to render a fleet.
pub struct FleetOptions<'a> {
    /// CAPI API version of the rendered objects.
    pub capi: CapiVersion,
    /// Validation of every rendered cluster; `None` skips it.
    pub validator: Option<&'a Validator<'a>>,
    /// Called after each cluster or class is rendered, with the number done so far.
    pub progress: &'a (dyn Fn(usize) + Sync),
    /// The schemas of the CAPZ release whose patch semantics check the rendered patches.
    pub schemas: &'a crate::target_schemas::TargetSchemas,
    /// What else every unit's files and verdict depend on (the validator's configuration), for the record.
    pub context: &'a str,
    /// An earlier run's record: a unit whose inputs and files in the tree it vouches for is taken from the
    /// tree instead of rendered and validated.
    pub reuse: Option<&'a RenderRecord>,
}

/// A rendered fleet: the tree, and per unit (by its directory) what to record for the next run.
pub struct RenderedFleet {
    /// The files of the tree.
    pub tree: DesiredTree,
    /// Each cluster's and ClusterClass's input digest and files.
    pub units: Vec<(String, UnitRecord)>,
    /// How many units were taken from the tree instead of rendered.
    pub reused: usize,
}

/// The number of clusters and ClusterClasses a fleet renders.
pub fn unit_count(fleet: &Fleet) -> usize {
    fleet.spec.clusters.len() + fleet.spec.cluster_classes.len()
}

/// Files of the tree: relative path and content.
type Files = Vec<(PathBuf, Vec<u8>)>;

enum Unit<'f> {
    Class(usize),
    Cluster(usize, &'f ClusterEntry),
}

/// A unit's result: its key, its record and files, and whether they were taken from the tree.
type UnitResult = Result<(String, UnitRecord, Files, bool), FleetError>;

/// Renders every ClusterClass and cluster of the fleet into the desired tree. Reads values files (and, with
/// [`FleetOptions::reuse`], the recorded units' files in the tree), writes nothing. The first failing entry
/// (in file order) is the error.
pub fn render_fleet(fleet: &Fleet, engine: &Engine, options: &FleetOptions) -> Result<RenderedFleet, FleetError> {
    let spec = &fleet.spec;
    check_names(fleet)?;
    let mut units: Vec<Unit> = (0..spec.cluster_classes.len()).map(Unit::Class).collect();
    units.extend(spec.clusters.iter().enumerate().map(|(i, c)| Unit::Cluster(i, c)));

    let shared_inputs = shared_inputs(fleet, engine, options);
    let flavors: Mutex<BTreeMap<String, Flavor>> = Mutex::new(BTreeMap::new());
    let done = AtomicUsize::new(0);
    let render_unit = |unit: &Unit| -> UnitResult {
        let (key, inputs) = unit_inputs(fleet, unit, &shared_inputs);
        let reused = options.reuse.and_then(|record| {
            let files = record.reuse(&key, &inputs, record.out_dir())?;
            Some((record.get(&key)?.clone(), files))
        });
        let result = match reused {
            Some((unit_record, files)) => Ok((key, unit_record, files, true)),
            None => match unit {
                Unit::Class(i) => render_class(fleet, *i, engine, options, &flavors),
                Unit::Cluster(i, cluster) => render_cluster(fleet, *i, cluster, engine, options, &flavors),
            }
            .map(|files| (key, UnitRecord::of(inputs, &files), files, false)),
        };
        (options.progress)(done.fetch_add(1, Ordering::Relaxed) + 1);
        result
    };

    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(units.len().max(1));
    let chunk = units.len().div_ceil(threads).max(1);
    let results: Vec<UnitResult> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            units.chunks(chunk).map(|part| scope.spawn(|| part.iter().map(&render_unit).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });

    let mut tree = DesiredTree::default();
    let mut recorded = Vec::with_capacity(results.len());
    let mut reused = 0;
    for result in results {
        let (key, unit_record, files, was_reused) = result?;
        reused += usize::from(was_reused);
        recorded.push((key, unit_record));
        for (path, content) in files {
            tree.insert(path, content);
        }
    }
    for (path, content) in namespace_files(fleet) {
        tree.insert(path, content);
    }
    if let Some(kind) = spec.gitops.kind {
        if kind == GitopsKind::Argocd && spec.gitops.create_project == Some(true) {
            let (path, content) = gitops::argocd_project(&spec.gitops, &all_namespaces(fleet));
            tree.insert(path, content);
        }
        add_gitops_index(&mut tree, kind);
    }
    Ok(RenderedFleet { tree, units: recorded, reused })
}

/// What every unit's files and verdict depend on besides its own entry: the record's format, the validator's
/// configuration, the CAPI version, the target, the fleet file's path and its settings shared by all units
/// (defaults, classes, GitOps settings, namespace policy), and the templates of a `--flavor-dir`. (The
/// embedded templates, schemas and rules are the tool's build, which the record checks as a whole.)
fn shared_inputs(fleet: &Fleet, engine: &Engine, options: &FleetOptions) -> InputDigest {
    let spec = &fleet.spec;
    let flavor_dir = match &engine.source().flavor_dir {
        Some(dir) => record::dir_digest(dir).to_vec(),
        None => b"embedded templates".to_vec(),
    };
    InputDigest::default()
        .part(b"fleet unit v1")
        .part(options.context.as_bytes())
        .part(format!("{:?}", options.capi).as_bytes())
        .part(format!("{:?}", options.schemas.target()).as_bytes())
        .part(fleet.file.as_os_str().as_encoded_bytes())
        .part(format!("{:?}", spec.defaults).as_bytes())
        .part(format!("{:?}", spec.cluster_classes).as_bytes())
        .part(format!("{:?}", spec.gitops).as_bytes())
        .part(format!("{:?}", spec.namespaces).as_bytes())
        .part(&flavor_dir)
}

/// A unit's key (its directory in the tree) and the digest of everything its files and verdict depend on: the
/// shared inputs, its entry, and the path and content of each of its values files.
fn unit_inputs(fleet: &Fleet, unit: &Unit, shared: &InputDigest) -> (String, Digest) {
    match unit {
        Unit::Class(i) => {
            let class = &fleet.spec.cluster_classes[*i];
            let key = format!("clusterclasses/{}/{}", class.namespace, class.name);
            (key, shared.clone().part(b"class").part(format!("{class:?}").as_bytes()).finish())
        }
        Unit::Cluster(_, cluster) => {
            let key = format!("clusters/{}/{}", cluster.namespace, cluster.name);
            let mut inputs = shared.clone().part(b"cluster").part(format!("{cluster:?}").as_bytes());
            for relative in &cluster.values_files {
                let path = fleet.resolve(relative);
                inputs = inputs.part(path.as_os_str().as_encoded_bytes());
                inputs = match std::fs::read(&path) {
                    Ok(content) => inputs.part(b"content").part(&content),
                    Err(e) => inputs.part(b"unreadable").part(e.to_string().as_bytes()),
                };
            }
            (key, inputs.finish())
        }
    }
}

/// Every namespace of the fleet's clusters and classes.
fn all_namespaces(fleet: &Fleet) -> BTreeSet<String> {
    let spec = &fleet.spec;
    spec.clusters
        .iter()
        .map(|c| c.namespace.clone())
        .chain(spec.cluster_classes.iter().map(|c| c.namespace.clone()))
        .collect()
}

/// Whether the tree writes the Namespace object of `namespace`, one of the fleet's namespaces.
fn writes_namespace(fleet: &Fleet, namespace: &str) -> bool {
    fleet.spec.namespaces == NamespacePolicy::Create && !gitops::is_builtin_namespace(namespace)
}

/// The namespaces the tree writes a Namespace object for.
fn managed_namespaces(fleet: &Fleet) -> BTreeSet<String> {
    all_namespaces(fleet).into_iter().filter(|ns| writes_namespace(fleet, ns)).collect()
}

/// `namespaces/<namespace>/` for each managed namespace, with its GitOps object.
fn namespace_files(fleet: &Fleet) -> Vec<(PathBuf, Vec<u8>)> {
    let kind = fleet.spec.gitops.kind;
    let mut files = Vec::new();
    for namespace in managed_namespaces(fleet) {
        let dir = PathBuf::from("namespaces").join(&namespace);
        let object = gitops::namespace_object(&namespace, kind);
        let documents = vec![Document::from_value(object, &std::sync::Arc::from("namespace.yaml"), 0)];
        files.extend(manifests_and_kustomization(&dir, "namespace.yaml", &documents));
        if let Some(kind) = kind {
            let unit = gitops::Unit {
                role: Role::Namespace,
                namespace: &namespace,
                name: &namespace,
                dir: &dir,
                depends_on: Vec::new(),
                documents: &documents,
            };
            files.push(gitops::object(&fleet.spec.gitops, kind, &unit));
        }
    }
    files
}

/// The names and files of the GitOps objects are `<role>-<namespace>-<name>`, which two entries can
/// share (`team-a`/`c` and `team`/`a-c`): such a pair is an error naming both. Flux also writes the
/// name into a label on every object it applies, so a Flux name is at most 63 characters.
fn check_names(fleet: &Fleet) -> Result<(), FleetError> {
    let Some(kind) = fleet.spec.gitops.kind else { return Ok(()) };
    let spec = &fleet.spec;
    let mut entries: Vec<(Role, &str, &str, String)> = Vec::new();
    for (i, class) in spec.cluster_classes.iter().enumerate() {
        entries.push((Role::ClusterClass, &class.namespace, &class.name, format!("/clusterClasses/{i}")));
    }
    for (i, cluster) in spec.clusters.iter().enumerate() {
        entries.push((Role::Cluster, &cluster.namespace, &cluster.name, format!("/clusters/{i}")));
    }
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (role, namespace, name, pointer) in entries {
        let object = gitops::object_name(role, namespace, name);
        let location = fleet.location(&pointer);
        if kind == GitopsKind::Flux && object.len() > 63 {
            return Err(FleetError::GitopsName {
                location,
                message: format!(
                    "{} `{namespace}/{name}`: its Flux Kustomization would be named `{object}` ({} characters); Flux \
                     labels every object it applies with that name, and a label value has at most 63",
                    role.what(),
                    object.len()
                ),
            });
        }
        let this = format!("{} `{namespace}/{name}`", role.what());
        if let Some((first, first_location)) = seen.get(&object) {
            return Err(FleetError::GitopsName {
                location,
                message: format!(
                    "{this} and {first} (at {first_location}) would both get the GitOps object `{object}`; rename one"
                ),
            });
        }
        seen.insert(object, (this, location));
    }
    Ok(())
}

fn flavor(engine: &Engine, name: &str, cache: &Mutex<BTreeMap<String, Flavor>>) -> Result<Flavor, render::RenderError> {
    if let Some(found) = cache.lock().ok().and_then(|c| c.get(name).cloned()) {
        return Ok(found);
    }
    let loaded = render::load_flavor(engine.source(), name)?;
    if let Ok(mut c) = cache.lock() {
        c.insert(name.to_string(), loaded.clone());
    }
    Ok(loaded)
}

fn inline(fleet: &Fleet, value: &Value, prefix: String) -> InlineValues {
    InlineValues {
        value: value.clone(),
        source: fleet.file.display().to_string(),
        lines: fleet.lines().clone(),
        prefix,
    }
}

fn values_file_layer(
    fleet: &Fleet,
    index: usize,
    cluster: &ClusterEntry,
    relative: &Path,
) -> Result<InlineValues, FleetError> {
    let path = fleet.resolve(relative);
    let name = path.display().to_string();
    let values_file_error = |reason: String| FleetError::ValuesFile {
        file: fleet.file.display().to_string(),
        line: fleet.cluster_line(index),
        cluster: cluster.name.clone(),
        values_file: name.clone(),
        reason,
    };
    let text = manifest::read_input_file(&path).map_err(|e| values_file_error(e.to_string()))?;
    let (value, lines) = manifest::parse_value(&text, &name).map_err(|e| values_file_error(e.to_string()))?;
    Ok(InlineValues { value, source: name, lines: std::sync::Arc::new(lines), prefix: String::new() })
}

fn unit_error(
    fleet: &Fleet,
    pointer: &str,
    what: String,
    source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> FleetError {
    FleetError::Entry { location: fleet.location(pointer), what, source: source.into() }
}

fn render_class(
    fleet: &Fleet,
    index: usize,
    engine: &Engine,
    options: &FleetOptions,
    cache: &Mutex<BTreeMap<String, Flavor>>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, FleetError> {
    let class = &fleet.spec.cluster_classes[index];
    let pointer = format!("/clusterClasses/{index}");
    let what = format!("ClusterClass `{}/{}`", class.namespace, class.name);
    let flavor_name = format!("{}-clusterclass", class.class);
    let flavor = flavor(engine, &flavor_name, cache)
        .map_err(|e| unit_error(fleet, &format!("{pointer}/class"), what.clone(), e))?;
    let inputs = Inputs {
        namespace: Some(class.namespace.clone()),
        // A class does not start from the fleet's `defaults`: those are cluster values.
        values_inline: vec![
            inline(fleet, &json!({"clusterClassName": class.name}), pointer.clone()),
            inline(fleet, &class.values, format!("{pointer}/values")),
        ],
        ..Inputs::default()
    };
    let documents =
        render_with(engine, &flavor, &inputs, options).map_err(|e| unit_error(fleet, &pointer, what.clone(), e))?;
    check(fleet, &pointer, &what, &documents, options)?;
    let dir = PathBuf::from("clusterclasses").join(&class.namespace).join(&class.name);
    let mut files = manifests_and_kustomization(&dir, "clusterclass.yaml", &documents);
    if let Some(kind) = fleet.spec.gitops.kind {
        let unit = gitops::Unit {
            role: Role::ClusterClass,
            namespace: &class.namespace,
            name: &class.name,
            dir: &dir,
            depends_on: namespace_dependency(fleet, &class.namespace),
            documents: &documents,
        };
        files.push(gitops::object(&fleet.spec.gitops, kind, &unit));
    }
    Ok(files)
}

fn render_cluster(
    fleet: &Fleet,
    index: usize,
    cluster: &ClusterEntry,
    engine: &Engine,
    options: &FleetOptions,
    cache: &Mutex<BTreeMap<String, Flavor>>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, FleetError> {
    let pointer = format!("/clusters/{index}");
    let what = format!("cluster `{}/{}`", cluster.namespace, cluster.name);
    let mut layers = vec![inline(fleet, &fleet.spec.defaults, "/defaults".into())];
    let (flavor_name, class) = match (&cluster.flavor, &cluster.class) {
        (Some(flavor), _) => (flavor.clone(), None),
        (None, Some(class_name)) => {
            let class = fleet.spec.cluster_classes.iter().find(|c| &c.name == class_name);
            let base = class.map_or("aks-aso", |c| c.class.as_str());
            layers.push(inline(fleet, &json!({"clusterClassName": class_name}), format!("{pointer}/class")));
            (format!("{base}-topology"), class)
        }
        (None, None) => unreachable_entry(fleet, &pointer, &what)?,
    };
    for relative in &cluster.values_files {
        layers.push(values_file_layer(fleet, index, cluster, relative)?);
    }
    layers.push(inline(fleet, &cluster.values, format!("{pointer}/values")));
    let field = if cluster.flavor.is_some() { "flavor" } else { "class" };
    let flavor = flavor(engine, &flavor_name, cache)
        .map_err(|e| unit_error(fleet, &format!("{pointer}/{field}"), what.clone(), e))?;
    let inputs = Inputs {
        cluster_name: Some(cluster.name.clone()),
        namespace: Some(cluster.namespace.clone()),
        values_inline: layers,
        ..Inputs::default()
    };
    let mut documents =
        render_with(engine, &flavor, &inputs, options).map_err(|e| unit_error(fleet, &pointer, what.clone(), e))?;
    if let Some(class) = class
        && class.namespace != cluster.namespace
    {
        point_at_class_namespace(&mut documents, &class.namespace);
    }
    check(fleet, &pointer, &what, &documents, options)?;
    let kind = fleet.spec.gitops.kind;
    if kind == Some(GitopsKind::Argocd) {
        gitops::order_for_argocd(&mut documents);
    }
    let dir = PathBuf::from("clusters").join(&cluster.namespace).join(&cluster.name);
    let mut files = manifests_and_kustomization(&dir, "cluster.yaml", &documents);
    if let Some(kind) = kind {
        let mut depends_on = namespace_dependency(fleet, &cluster.namespace);
        if let Some(class) = class {
            depends_on.push((Role::ClusterClass, class.namespace.as_str(), class.name.as_str()));
        }
        let unit = gitops::Unit {
            role: Role::Cluster,
            namespace: &cluster.namespace,
            name: &cluster.name,
            dir: &dir,
            depends_on,
            documents: &documents,
        };
        files.push(gitops::object(&fleet.spec.gitops, kind, &unit));
    }
    Ok(files)
}

/// A topology Cluster whose ClusterClass lives in another namespace names it: v1beta1
/// `spec.topology.classNamespace`, v1beta2 `spec.topology.classRef.namespace`.
fn point_at_class_namespace(documents: &mut [Document], class_namespace: &str) {
    for doc in documents.iter_mut().filter(|d| d.kind() == "Cluster" && d.group() == "cluster.x-k8s.io") {
        let Some(topology) = doc.value.pointer_mut("/spec/topology").and_then(Value::as_object_mut) else { continue };
        if let Some(class_ref) = topology.get_mut("classRef").and_then(Value::as_object_mut) {
            class_ref.insert("namespace".into(), Value::String(class_namespace.to_string()));
        } else {
            topology.insert("classNamespace".into(), Value::String(class_namespace.to_string()));
        }
    }
}

fn unreachable_entry<T>(fleet: &Fleet, pointer: &str, what: &str) -> Result<T, FleetError> {
    Err(unit_error(fleet, pointer, what.to_string(), "set exactly one of `flavor` and `class`"))
}

fn render_with(
    engine: &Engine,
    flavor: &Flavor,
    inputs: &Inputs,
    options: &FleetOptions,
) -> Result<Vec<Document>, Box<dyn std::error::Error + Send + Sync>> {
    let layered = params::merge(inputs)?;
    let resolved = params::resolve(&layered, &flavor.name, &flavor.required, &flavor.unsupported)?;
    let documents = render::render_flavor(engine, flavor, &resolved, options.capi)?;
    params::check_rendered_patches(&resolved, &layered, &documents, options.schemas)?;
    Ok(documents)
}

fn check(
    fleet: &Fleet,
    pointer: &str,
    what: &str,
    documents: &[Document],
    options: &FleetOptions,
) -> Result<(), FleetError> {
    let Some(validator) = options.validator else { return Ok(()) };
    let errors: Vec<String> = validator(documents)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} {}: {} [{}]", f.object, f.path, f.message, f.rule))
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(unit_error(
        fleet,
        pointer,
        what.to_string(),
        format!("rendered objects are invalid:\n  {}", errors.join("\n  ")),
    ))
}

fn manifests_and_kustomization(dir: &Path, file: &str, documents: &[Document]) -> Vec<(PathBuf, Vec<u8>)> {
    let manifests = manifest::to_yaml_documents(documents.iter().map(|d| &d.value));
    let kustomization = manifest::to_yaml(&json!({
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [file],
    }));
    vec![(dir.join(file), manifests.into_bytes()), (dir.join("kustomization.yaml"), kustomization.into_bytes())]
}

/// The namespace's GitOps object, when the tree writes the namespace.
fn namespace_dependency<'a>(fleet: &Fleet, namespace: &'a str) -> Vec<(Role, &'a str, &'a str)> {
    if writes_namespace(fleet, namespace) { vec![(Role::Namespace, namespace, namespace)] } else { Vec::new() }
}

/// A kustomization in each GitOps folder listing its objects, so one entry point applies them all.
fn add_gitops_index(tree: &mut DesiredTree, kind: GitopsKind) {
    let folder = kind.name();
    let resources: Vec<String> =
        tree.files().filter_map(|(path, _)| path.strip_prefix(folder).ok().map(|p| p.display().to_string())).collect();
    if resources.is_empty() {
        return;
    }
    let index = manifest::to_yaml(&json!({
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    }));
    tree.insert(PathBuf::from(folder).join("kustomization.yaml"), index.into_bytes());
}

#[cfg(test)]
mod reuse_tests;
