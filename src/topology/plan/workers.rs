//! CAPI's `computeMachineDeployments` and `computeMachinePools`: the workers of a topology, each with its
//! bootstrap and infrastructure objects (pools) or templates (deployments).

use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::error::TopologyError;
use super::fields::{labels_of, merge_first_wins, sorted};
use super::templates::{template_to_object, template_to_template};
use super::types::{
    CLUSTER_NAME_LABEL, Current, CurrentWorker, MACHINE_DEPLOYMENT_NAME_LABEL, MACHINE_POOL_NAME_LABEL,
    TOPOLOGY_OWNED_LABEL, Worker, WorkerKind,
};
use crate::json_pointer::At;
use crate::topology::webhooks;

/// Worker topology names are unique per kind (CAPI's Cluster webhook).
pub(super) fn check_unique_worker_names(ctx: &Ctx, cluster: &Value) -> Result<(), TopologyError> {
    for topo_key in ["machineDeployments", "machinePools"] {
        let names: Vec<&str> = cluster
            .array_at(&format!("/spec/topology/workers/{topo_key}"))
            .map(|items| items.iter().filter_map(|t| t.str_at("/name")).collect())
            .unwrap_or_default();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(ctx.cluster_err(
                    &format!("spec.topology.workers.{topo_key}[{i}].name"),
                    format!("Invalid value: {name:?}: names must be unique"),
                ));
            }
        }
    }
    Ok(())
}

/// CAPI's `computeMachineDeployments`: one MachineDeployment (with its bootstrap and infrastructure templates) per
/// topology entry.
pub(super) fn compute_machine_deployments(
    ctx: &Ctx,
    cluster: &Value,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    compute_workers(ctx, cluster, WorkerKind::Deployment, "machineDeployments", topology_version, current)
}

/// CAPI's `computeMachinePools`: one MachinePool (with its bootstrap and infrastructure objects) per topology entry.
pub(super) fn compute_machine_pools(
    ctx: &Ctx,
    cluster: &Value,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    compute_workers(ctx, cluster, WorkerKind::Pool, "machinePools", topology_version, current)
}

/// The workers of one kind (`topo_key` names it in the topology and in the class), in topology order.
fn compute_workers(
    ctx: &Ctx,
    cluster: &Value,
    kind: WorkerKind,
    topo_key: &str,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    let topologies = cluster.array_at(&format!("/spec/topology/workers/{topo_key}")).cloned().unwrap_or_default();
    let mut workers = Vec::new();
    for (index, topo) in topologies.iter().enumerate() {
        let entry = Entry { kind, key: topo_key, index, topo };
        workers.push(compute_worker(ctx, &entry, topology_version, current)?);
    }
    Ok(workers)
}

/// One worker topology of the Cluster: its kind, where it is (`spec.topology.workers.<key>[<index>]`, the class's
/// list has the same key) and its fields.
struct Entry<'a> {
    kind: WorkerKind,
    key: &'a str,
    index: usize,
    topo: &'a Value,
}

impl Entry<'_> {
    /// The object's field in the topology, as CAPI's webhook names it.
    fn field(&self) -> String {
        format!("spec.topology.workers.{}[{}]", self.key, self.index)
    }

    /// The key of the worker's values in a naming template, its name label, and the role in generated names.
    fn names(&self) -> (&'static str, &'static str, &'static str) {
        match self.kind {
            WorkerKind::Pool => ("machinePool", MACHINE_POOL_NAME_LABEL, "machine-pool"),
            WorkerKind::Deployment => ("machineDeployment", MACHINE_DEPLOYMENT_NAME_LABEL, "machine-deployment"),
        }
    }
}

/// The worker class an entry names, with its templates.
struct WorkerClass {
    topology_name: String,
    class_name: String,
    /// The class's entry in the ClusterClass.
    def: Value,
    /// Where its metadata is: `/template/metadata` (v1beta1) or `/metadata` (v1beta2).
    metadata: &'static str,
    bootstrap_template: Value,
    infrastructure_template: Value,
}

/// One worker: its class's templates made into the bootstrap and infrastructure objects (pools) or per-cluster
/// templates (deployments), and the MachinePool or MachineDeployment with the topology's and the class's fields.
fn compute_worker(
    ctx: &Ctx,
    entry: &Entry,
    topology_version: &str,
    current: &Current,
) -> Result<Worker, TopologyError> {
    let class = worker_class(ctx, entry)?;
    let current_worker = match entry.kind {
        WorkerKind::Pool => current.machine_pools.get(&class.topology_name),
        WorkerKind::Deployment => current.machine_deployments.get(&class.topology_name),
    };
    let (bootstrap, infrastructure) = worker_templates(ctx, entry, &class, current_worker);
    let name = worker_name(ctx, entry, &class, current_worker)?;
    let (labels, annotations) = worker_metadata(ctx, entry, &class);
    let template_spec = template_spec(ctx, entry, &class, topology_version, &bootstrap, &infrastructure);
    let mut template_meta = Map::new();
    template_meta.insert("labels".into(), Value::Object(labels.clone()));
    if !annotations.is_empty() {
        template_meta.insert("annotations".into(), Value::Object(annotations.clone()));
    }
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    meta.insert("labels".into(), Value::Object(labels));
    if !annotations.is_empty() {
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    let mut spec = worker_spec(ctx, entry, &class);
    spec.insert("template".into(), json!({"metadata": template_meta, "spec": template_spec}));
    let capi_api_version = ctx.cluster.get("apiVersion").cloned().unwrap_or(json!("cluster.x-k8s.io/v1beta1"));
    let object = json!({
        "apiVersion": capi_api_version,
        "kind": if entry.kind == WorkerKind::Pool { "MachinePool" } else { "MachineDeployment" },
        "metadata": meta,
        "spec": spec,
    });
    let class_health_check = class.def.get(if ctx.v1beta2 { "healthCheck" } else { "machineHealthCheck" }).cloned();
    Ok(Worker {
        kind: entry.kind,
        topology_name: class.topology_name,
        class: class.class_name,
        index: entry.index,
        bootstrap,
        infrastructure,
        object,
        bootstrap_template: class.bootstrap_template,
        infrastructure_template: class.infrastructure_template,
        class_health_check,
    })
}

/// The class the entry names (both its name and class are required) and the class's bootstrap and infrastructure
/// templates.
fn worker_class(ctx: &Ctx, entry: &Entry) -> Result<WorkerClass, TopologyError> {
    let field = entry.field();
    let topology_name = entry.topo.str_at("/name").unwrap_or("").to_string();
    let class_name = entry.topo.str_at("/class").unwrap_or("").to_string();
    if topology_name.is_empty() || class_name.is_empty() {
        return Err(ctx.cluster_err(&field, "Required value: name and class must be set".into()));
    }
    let class_key = entry.key;
    let classes = ctx.class.array_at(&format!("/spec/workers/{class_key}")).cloned().unwrap_or_default();
    let Some(ci) = classes.iter().position(|c| c.str_at("/class") == Some(class_name.as_str())) else {
        return Err(ctx.cluster_err(
            &format!("{field}.class"),
            format!(
                "Invalid value: {class_name:?}: no {class_key} class of that name in ClusterClass {}",
                ctx.class_label
            ),
        ));
    };
    let def = classes[ci].clone();
    let base = format!("/spec/workers/{class_key}/{ci}");
    // v1beta2: bootstrap/infrastructure directly on the class; v1beta1: under template:.
    let (boot_base, infra_base, metadata) = if def.get("template").is_some() {
        (format!("{base}/template/bootstrap"), format!("{base}/template/infrastructure"), "/template/metadata")
    } else {
        (format!("{base}/bootstrap"), format!("{base}/infrastructure"), "/metadata")
    };
    let bootstrap_template = ctx.template(&ctx.required_ref(&boot_base)?)?;
    let infrastructure_template = ctx.template(&ctx.required_ref(&infra_base)?)?;
    Ok(WorkerClass { topology_name, class_name, def, metadata, bootstrap_template, infrastructure_template })
}

/// The bootstrap and infrastructure objects (pools) or templates (deployments) made from the class's templates,
/// keeping the names of an existing worker's.
fn worker_templates(
    ctx: &Ctx,
    entry: &Entry,
    class: &WorkerClass,
    current_worker: Option<&CurrentWorker>,
) -> (Value, Value) {
    let (_, label, role) = entry.names();
    let topology_name = &class.topology_name;
    let prefix = format!("{}-{topology_name}-", ctx.cluster_name);
    let mut topo_label = Map::new();
    topo_label.insert(label.into(), json!(topology_name));
    let bootstrap_name = current_worker
        .and_then(|c| c.bootstrap.clone())
        .unwrap_or_else(|| ctx.prefixed_name(&prefix, &format!("{role}/{topology_name}/bootstrap")));
    let infra_name = current_worker
        .and_then(|c| c.infrastructure.clone())
        .unwrap_or_else(|| ctx.prefixed_name(&prefix, &format!("{role}/{topology_name}/infrastructure")));
    match entry.kind {
        WorkerKind::Pool => (
            template_to_object(ctx, &class.bootstrap_template, bootstrap_name, &topo_label, &Map::new()),
            template_to_object(ctx, &class.infrastructure_template, infra_name, &topo_label, &Map::new()),
        ),
        WorkerKind::Deployment => (
            template_to_template(ctx, &class.bootstrap_template, bootstrap_name, &topo_label),
            template_to_template(ctx, &class.infrastructure_template, infra_name, &topo_label),
        ),
    }
}

/// An existing worker's name, else one from the class's naming template (CAPI's default when it has none).
fn worker_name(
    ctx: &Ctx,
    entry: &Entry,
    class: &WorkerClass,
    current_worker: Option<&CurrentWorker>,
) -> Result<String, TopologyError> {
    if let Some(name) = current_worker.and_then(|c| c.name.clone()) {
        return Ok(name);
    }
    let (key, _, role) = entry.names();
    let topology_name = &class.topology_name;
    let name_template = class
        .def
        .str_at("/naming/template")
        .or_else(|| class.def.str_at("/namingStrategy/template"))
        .map(str::to_string)
        .unwrap_or_else(|| format!("{{{{ .cluster.name }}}}-{{{{ .{key}.topologyName }}}}-{{{{ .random }}}}"));
    ctx.name_from_template(&name_template, &format!("{role}/{topology_name}"), Some((key, topology_name)))
}

/// The worker's labels (the topology's over the class's, then CAPI's own, sorted) and annotations (the same, without
/// the upgrade-sequencing ones).
fn worker_metadata(ctx: &Ctx, entry: &Entry, class: &WorkerClass) -> (Map<String, Value>, Map<String, Value>) {
    let (_, label, _) = entry.names();
    let class_meta = class.def.pointer(class.metadata);
    let topo_meta = entry.topo.get("metadata");
    let mut annotations = merge_first_wins(
        &labels_of(topo_meta.and_then(|m| m.get("annotations"))),
        &labels_of(class_meta.and_then(|m| m.get("annotations"))),
    );
    annotations.remove("topology.cluster.x-k8s.io/hold-upgrade-sequence");
    annotations.remove("topology.cluster.x-k8s.io/defer-upgrade");
    let mut labels = merge_first_wins(
        &labels_of(topo_meta.and_then(|m| m.get("labels"))),
        &labels_of(class_meta.and_then(|m| m.get("labels"))),
    );
    labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    labels.insert(label.into(), json!(class.topology_name));
    (sorted(labels), annotations)
}

/// A field of the topology, else of the class.
fn pick(entry: &Entry, class: &WorkerClass, pointer: &str) -> Option<Value> {
    entry.topo.pointer(pointer).or_else(|| class.def.pointer(pointer)).cloned()
}

/// The spec of the machines' template: cluster, version, the bootstrap and infrastructure references, and the
/// machine fields the topology overrides over the class (v1beta2: `deletion`; v1beta1: the node timeouts).
fn template_spec(
    ctx: &Ctx,
    entry: &Entry,
    class: &WorkerClass,
    topology_version: &str,
    bootstrap: &Value,
    infrastructure: &Value,
) -> Map<String, Value> {
    let pick = |pointer: &str| pick(entry, class, pointer);
    let deployment = entry.kind == WorkerKind::Deployment;
    let mut template_spec = Map::new();
    template_spec.insert("clusterName".into(), json!(ctx.cluster_name));
    template_spec.insert("version".into(), json!(topology_version));
    template_spec.insert("bootstrap".into(), json!({"configRef": ctx.reference(bootstrap)}));
    template_spec.insert("infrastructureRef".into(), ctx.reference(infrastructure));
    if ctx.v1beta2 {
        let mut deletion = Map::new();
        for f in ["nodeDrainTimeoutSeconds", "nodeVolumeDetachTimeoutSeconds", "nodeDeletionTimeoutSeconds"] {
            if let Some(v) = pick(&format!("/deletion/{f}")) {
                deletion.insert(f.into(), v);
            }
        }
        if !deletion.is_empty() {
            template_spec.insert("deletion".into(), Value::Object(deletion));
        }
        if let Some(v) = pick("/minReadySeconds") {
            template_spec.insert("minReadySeconds".into(), v);
        }
        if deployment {
            for field in ["failureDomain", "taints"] {
                if let Some(v) = pick(&format!("/{field}")) {
                    template_spec.insert(field.into(), v);
                }
            }
        }
    } else {
        for f in ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"] {
            if let Some(mut v) = pick(&format!("/{f}")) {
                webhooks::canonical_duration(&mut v);
                template_spec.insert(f.into(), v);
            }
        }
        if deployment && let Some(v) = pick("/failureDomain") {
            template_spec.insert("failureDomain".into(), v);
        }
    }
    if let Some(v) = pick("/readinessGates") {
        template_spec.insert("readinessGates".into(), v);
    }
    template_spec
}

/// The pool's or deployment's own spec before its template: cluster, replicas, a deployment's selector, failure
/// domains, and its rollout fields (v1beta1: `minReadySeconds`, `strategy`; v1beta2: `rollout`, `deletion`,
/// `remediation`).
fn worker_spec(ctx: &Ctx, entry: &Entry, class: &WorkerClass) -> Map<String, Value> {
    let pick = |pointer: &str| pick(entry, class, pointer);
    let deployment = entry.kind == WorkerKind::Deployment;
    let mut spec = Map::new();
    spec.insert("clusterName".into(), json!(ctx.cluster_name));
    if let Some(r) = entry.topo.get("replicas") {
        spec.insert("replicas".into(), r.clone());
    }
    if deployment {
        let (_, label, _) = entry.names();
        let mut selector = Map::new();
        selector.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
        selector.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
        selector.insert(label.into(), json!(class.topology_name));
        spec.insert("selector".into(), json!({"matchLabels": selector}));
    }
    if let Some(v) = pick("/failureDomains") {
        spec.insert("failureDomains".into(), v);
    }
    if !ctx.v1beta2
        && let Some(v) = pick("/minReadySeconds")
    {
        spec.insert("minReadySeconds".into(), v);
    }
    if deployment && !ctx.v1beta2 {
        if let Some(v) = pick("/strategy") {
            spec.insert("strategy".into(), v);
        }
    } else if deployment {
        // v1beta2: the topology's rollout (with `after`) replaces the class's strategy.
        let rollout = match entry.topo.get("rollout").filter(|r| r.as_object().is_some_and(|m| !m.is_empty())) {
            Some(r) => Some(r.clone()),
            None => class.def.pointer("/rollout/strategy").map(|st| json!({"strategy": st})),
        };
        if let Some(r) = rollout {
            spec.insert("rollout".into(), r);
        }
        if let Some(order) = pick("/deletion/order") {
            spec.insert("deletion".into(), json!({"order": order}));
        }
        if let Some(max) = pick("/healthCheck/remediation/maxInFlight") {
            spec.insert("remediation".into(), json!({"maxInFlight": max}));
        }
    }
    spec
}
