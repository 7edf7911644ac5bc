//! CAPI's builtin variables (`builtin.cluster`, `builtin.controlPlane`, `builtin.machineDeployment`,
//! `builtin.machinePool`) the class patches read, taken from the unpatched objects.

use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::types::Worker;
use crate::json_pointer::At;

/// CAPI's builtin variable `builtin.cluster`: name, namespace, uid, metadata, topology and network of the Cluster.
pub(super) fn cluster_builtin(
    ctx: &Ctx,
    cluster: &Value,
    topology_version: &str,
    class_name: &str,
) -> Map<String, Value> {
    let (cluster_name, namespace, class_ns) = (&ctx.cluster_name, &ctx.namespace, &ctx.class_ns);
    let mut cluster_builtin = Map::new();
    cluster_builtin.insert("name".into(), json!(cluster_name));
    cluster_builtin.insert("namespace".into(), json!(namespace));
    if let Some(uid) = cluster.str_at("/metadata/uid") {
        cluster_builtin.insert("uid".into(), json!(uid));
    }
    let mut meta = Map::new();
    for key in ["labels", "annotations"] {
        if let Some(v) =
            cluster.pointer(&format!("/metadata/{key}")).filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            meta.insert(key.into(), v.clone());
        }
    }
    if !meta.is_empty() {
        cluster_builtin.insert("metadata".into(), Value::Object(meta));
    }
    cluster_builtin.insert(
        "topology".into(),
        json!({"version": topology_version, "class": class_name, "classNamespace": class_ns,
               "classRef": {"name": class_name, "namespace": class_ns}}),
    );
    if let Some(network) = cluster.pointer("/spec/clusterNetwork").filter(|n| n.is_object()) {
        let mut net = Map::new();
        if let Some(domain) = network.get("serviceDomain").filter(|d| d.as_str().is_some_and(|s| !s.is_empty())) {
            net.insert("serviceDomain".into(), domain.clone());
        }
        if let Some(services) = network.pointer("/services/cidrBlocks") {
            net.insert("services".into(), services.clone());
        }
        if let Some(pods) = network.pointer("/pods/cidrBlocks") {
            net.insert("pods".into(), pods.clone());
        }
        cluster_builtin.insert("network".into(), Value::Object(net));
    }
    cluster_builtin
}

/// CAPI's builtin variable `builtin.controlPlane`: version, name, replicas, machine template and metadata.
pub(super) fn control_plane_builtin(
    cluster: &Value,
    control_plane: &Value,
    cp_machine: Option<&Value>,
    topology_version: &str,
) -> Map<String, Value> {
    let mut cp_builtin = Map::new();
    cp_builtin.insert("version".into(), json!(topology_version));
    cp_builtin.insert("name".into(), control_plane.pointer("/metadata/name").cloned().unwrap_or(Value::Null));
    if cluster.pointer("/spec/topology/controlPlane/replicas").is_some() {
        cp_builtin.insert("replicas".into(), control_plane.pointer("/spec/replicas").cloned().unwrap_or(Value::Null));
    }
    if let Some(machine) = cp_machine {
        cp_builtin
            .insert("machineTemplate".into(), json!({"infrastructureRef": {"name": machine.str_at("/metadata/name")}}));
    }
    if let Some(meta) = object_metadata(control_plane) {
        cp_builtin.insert("metadata".into(), meta);
    }
    cp_builtin
}

/// The `builtin.machineDeployment` / `builtin.machinePool` variable of a worker, from its unpatched objects.
pub(super) fn worker_builtin(w: &Worker) -> Map<String, Value> {
    let mut b = Map::new();
    b.insert("version".into(), w.object.pointer("/spec/template/spec/version").cloned().unwrap_or(Value::Null));
    b.insert("class".into(), json!(w.class));
    b.insert("name".into(), w.object.pointer("/metadata/name").cloned().unwrap_or(Value::Null));
    b.insert("topologyName".into(), json!(w.topology_name));
    if let Some(r) = w.object.pointer("/spec/replicas") {
        b.insert("replicas".into(), r.clone());
    }
    if let Some(meta) = object_metadata(&w.object) {
        b.insert("metadata".into(), meta);
    }
    b.insert("bootstrap".into(), json!({"configRef": {"name": w.bootstrap.str_at("/metadata/name")}}));
    b.insert("infrastructureRef".into(), json!({"name": w.infrastructure.str_at("/metadata/name")}));
    b
}

/// `builtin.*.metadata`: an object's labels and annotations, when it has any.
fn object_metadata(object: &Value) -> Option<Value> {
    let mut meta = Map::new();
    for key in ["labels", "annotations"] {
        if let Some(v) =
            object.pointer(&format!("/metadata/{key}")).filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            meta.insert(key.into(), v.clone());
        }
    }
    if meta.is_empty() { None } else { Some(Value::Object(meta)) }
}
