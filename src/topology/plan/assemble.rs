//! The planned objects in the order the topology controller writes them, with their MachineHealthChecks.

use serde_json::{Value, json};

use super::context::Ctx;
use super::health_checks::{health_check_class, machine_health_check};
use super::types::{MACHINE_DEPLOYMENT_NAME_LABEL, TOPOLOGY_OWNED_LABEL, Worker, WorkerKind};

/// The output objects in the controller's order: the Cluster, the infrastructure cluster, the control plane's
/// machine template, the control plane and its health check, then per worker its bootstrap and infrastructure
/// objects, the worker itself and its health check.
pub(super) fn assemble(
    ctx: &Ctx,
    desired_cluster: Value,
    infra_cluster: Value,
    cp_machine: Option<Value>,
    control_plane: Value,
    workers: Vec<Worker>,
) -> Vec<Value> {
    let (cluster, class, v1beta2) = (ctx.cluster, ctx.class, ctx.v1beta2);
    let mut objects = vec![desired_cluster, infra_cluster];
    let cp_health_check = cp_machine.as_ref().and_then(|_| {
        let key = if v1beta2 { "healthCheck" } else { "machineHealthCheck" };
        health_check_class(
            cluster.pointer(&format!("/spec/topology/controlPlane/{key}")),
            class.pointer(&format!("/spec/controlPlane/{key}")),
            v1beta2,
            false,
        )
    });
    if let Some(machine) = cp_machine {
        objects.push(machine);
    }
    let cp_mhc = cp_health_check.map(|check| {
        let selector = json!({"matchLabels": {"cluster.x-k8s.io/control-plane": "", TOPOLOGY_OWNED_LABEL: ""}});
        machine_health_check(ctx, &control_plane, selector, &check)
    });
    objects.push(control_plane);
    objects.extend(cp_mhc);
    for w in workers {
        objects.push(w.bootstrap);
        objects.push(w.infrastructure);
        let mhc = (w.kind == WorkerKind::Deployment)
            .then(|| {
                let topo = cluster.pointer(&format!("/spec/topology/workers/machineDeployments/{}", w.index));
                let key = if v1beta2 { "healthCheck" } else { "machineHealthCheck" };
                let by_remediation =
                    !v1beta2 && topo.and_then(|t| t.pointer("/strategy/remediation/maxInFlight")).is_some();
                health_check_class(
                    topo.and_then(|t| t.get(key)),
                    w.class_health_check.as_ref(),
                    v1beta2,
                    by_remediation,
                )
            })
            .flatten()
            .map(|check| {
                let selector =
                    json!({"matchLabels": {MACHINE_DEPLOYMENT_NAME_LABEL: w.topology_name, TOPOLOGY_OWNED_LABEL: ""}});
                machine_health_check(ctx, &w.object, selector, &check)
            });
        objects.push(w.object);
        objects.extend(mhc);
    }
    objects
}
