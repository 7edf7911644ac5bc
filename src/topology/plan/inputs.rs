//! Which input documents are topology Clusters, and which ClusterClass each one uses.

use serde_json::Value;

use crate::json_pointer::At;
use crate::manifest::Document;

/// Is this a Cluster with `spec.topology`?
pub fn is_topology_cluster(doc: &Document) -> bool {
    doc.kind() == "Cluster" && doc.group() == "cluster.x-k8s.io" && doc.value.pointer("/spec/topology").is_some()
}

/// The ClusterClass (namespace, name) a topology Cluster uses.
pub fn class_ref(cluster: &Value) -> (String, String) {
    let ns = cluster.str_at("/metadata/namespace").unwrap_or("default");
    let topo = cluster.pointer("/spec/topology").cloned().unwrap_or(Value::Null);
    let name =
        topo.pointer("/classRef/name").or_else(|| topo.get("class")).and_then(Value::as_str).unwrap_or("").to_string();
    let class_ns = topo
        .pointer("/classRef/namespace")
        .or_else(|| topo.get("classNamespace"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(ns)
        .to_string();
    (class_ns, name)
}

pub(super) fn namespace_matches(doc: &Document, namespace: &str) -> bool {
    doc.namespace().is_none_or(|ns| ns == namespace)
}
