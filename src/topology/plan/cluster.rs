//! CAPI's `computeCluster`: the topology Cluster with its labels and references.

use serde_json::{Value, json};

use super::context::Ctx;
use super::fields::{labels_of, set_pointer, sorted};
use super::types::{CLUSTER_NAME_LABEL, TOPOLOGY_OWNED_LABEL};

/// CAPI's `computeCluster`: the Cluster with its labels and the references to the infrastructure cluster and the
/// control plane.
pub(super) fn compute_cluster(ctx: &Ctx, cluster: &Value, infra_cluster: &Value, control_plane: &Value) -> Value {
    let cluster_name = &ctx.cluster_name;
    let mut desired_cluster = cluster.clone();
    let mut cluster_labels = labels_of(cluster.pointer("/metadata/labels"));
    cluster_labels.insert(CLUSTER_NAME_LABEL.into(), json!(cluster_name));
    cluster_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    set_pointer(&mut desired_cluster, "/metadata/labels", Value::Object(sorted(cluster_labels)));
    set_pointer(&mut desired_cluster, "/spec/infrastructureRef", ctx.reference(infra_cluster));
    set_pointer(&mut desired_cluster, "/spec/controlPlaneRef", ctx.reference(control_plane));
    if let Some(obj) = desired_cluster.as_object_mut() {
        obj.remove("status");
    }
    desired_cluster
}
