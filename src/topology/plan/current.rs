//! The names a live topology Cluster's objects already have, which a plan reuses.

use serde_json::Value;

use super::types::{
    CLUSTER_NAME_LABEL, Current, CurrentWorker, MACHINE_DEPLOYMENT_NAME_LABEL, MACHINE_POOL_NAME_LABEL,
    TOPOLOGY_OWNED_LABEL,
};
use crate::json_pointer::At;

/// The label selector of the objects the topology controller created for a Cluster.
pub fn owned_selector(cluster_name: &str) -> String {
    format!("{CLUSTER_NAME_LABEL}={cluster_name},{TOPOLOGY_OWNED_LABEL}")
}

/// The names the controller already gave a live topology Cluster's objects: its refs, the control
/// plane's machine template, and the MachinePools / MachineDeployments (with their bootstrap and
/// infrastructure refs) labelled with the Cluster's name and their topology name. Planning with
/// these reuses the names, so planned and live objects line up one to one.
pub fn current_from_live(live_cluster: &Value, live_objects: &[Value]) -> Current {
    let cluster_name = live_cluster.str_at("/metadata/name").unwrap_or("");
    let mut current = Current {
        infrastructure_cluster: live_cluster.str_at("/spec/infrastructureRef/name").map(str::to_string),
        control_plane: live_cluster.str_at("/spec/controlPlaneRef/name").map(str::to_string),
        ..Current::default()
    };
    let labelled = |o: &&Value, label: &str| {
        o.str_at(&format!("/metadata/labels/{}", CLUSTER_NAME_LABEL.replace('/', "~1"))) == Some(cluster_name)
            && o.pointer(&format!("/metadata/labels/{}", label.replace('/', "~1"))).is_some()
    };
    if let Some(cp_name) = &current.control_plane {
        let cp_kind = live_cluster.str_at("/spec/controlPlaneRef/kind");
        if let Some(cp) =
            live_objects.iter().find(|o| o.str_at("/metadata/name") == Some(cp_name) && o.str_at("/kind") == cp_kind)
        {
            current.control_plane_machine_infrastructure = cp
                .str_at("/spec/machineTemplate/infrastructureRef/name")
                .or_else(|| cp.str_at("/spec/machineTemplate/spec/infrastructureRef/name"))
                .map(str::to_string);
        }
    }
    for (kind, label) in
        [("MachinePool", MACHINE_POOL_NAME_LABEL), ("MachineDeployment", MACHINE_DEPLOYMENT_NAME_LABEL)]
    {
        for object in live_objects.iter().filter(|o| o.str_at("/kind") == Some(kind) && labelled(o, label)) {
            let Some(topology_name) = object.str_at(&format!("/metadata/labels/{}", label.replace('/', "~1"))) else {
                continue;
            };
            let worker = CurrentWorker {
                name: object.str_at("/metadata/name").map(str::to_string),
                bootstrap: object.str_at("/spec/template/spec/bootstrap/configRef/name").map(str::to_string),
                infrastructure: object.str_at("/spec/template/spec/infrastructureRef/name").map(str::to_string),
            };
            let map = if kind == "MachinePool" { &mut current.machine_pools } else { &mut current.machine_deployments };
            map.insert(topology_name.to_string(), worker);
        }
    }
    current
}
