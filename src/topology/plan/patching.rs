//! The class patches applied to a plan: the templates they run on, with each holder's variables, and the patched
//! specs copied back into the desired objects.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::builtins::worker_builtin;
use super::context::Ctx;
use super::error::TopologyError;
use super::fields::set_pointer;
use super::types::{Worker, WorkerKind};
use crate::topology::patches::{Holder, Item};
use crate::topology::variables::{self, VariableError};

/// The templates the class patches run on, each with the variables of its holder: the infrastructure cluster
/// (cluster variables only), the control plane and its machine template (control plane overrides), then the
/// bootstrap and infrastructure templates of every worker (its overrides and `builtin.<worker>`).
pub(super) fn patch_items(
    ctx: &Ctx,
    defs: &[variables::VariableDefinition],
    var_err: &dyn Fn(Vec<VariableError>) -> TopologyError,
    [infra_template, cp_template]: [&Value; 2],
    cp_machine_template: Option<&Value>,
    cp_vars: &BTreeMap<String, Value>,
    workers: &[Worker],
) -> Result<Vec<Item>, TopologyError> {
    let mut items = vec![
        Item { holder: Holder::InfrastructureCluster, object: infra_template.clone(), variables: BTreeMap::new() },
        Item { holder: Holder::ControlPlane, object: cp_template.clone(), variables: cp_vars.clone() },
    ];
    if let Some(t) = cp_machine_template {
        items.push(Item {
            holder: Holder::ControlPlaneMachineInfrastructure,
            object: t.clone(),
            variables: cp_vars.clone(),
        });
    }
    for w in workers {
        let (key, holder) = match w.kind {
            WorkerKind::Pool => {
                ("machinePool", Holder::MachinePool { class: w.class.clone(), topology: w.topology_name.clone() })
            }
            WorkerKind::Deployment => (
                "machineDeployment",
                Holder::MachineDeployment { class: w.class.clone(), topology: w.topology_name.clone() },
            ),
        };
        let topo_key = if w.kind == WorkerKind::Pool { "machinePools" } else { "machineDeployments" };
        let topo = ctx
            .cluster
            .pointer(&format!("/spec/topology/workers/{topo_key}/{}", w.index))
            .cloned()
            .unwrap_or(Value::Null);
        let mut vars = variables::resolve(
            defs,
            topo.pointer("/variables/overrides"),
            &format!("spec.topology.workers.{topo_key}[{}].variables.overrides", w.index),
            &ctx.class_label,
            true,
        )
        .map_err(var_err)?;
        vars.insert(variables::BUILTIN.into(), json!({ key: worker_builtin(w) }));
        items.push(Item { holder: holder.clone(), object: w.bootstrap_template.clone(), variables: vars.clone() });
        items.push(Item { holder, object: w.infrastructure_template.clone(), variables: vars });
    }
    Ok(items)
}

/// The patched templates' specs back into the desired objects, in the order `items` was built (infrastructure
/// cluster, control plane, its machine template, then bootstrap and infrastructure per worker); the control plane
/// keeps the fields the controller sets itself.
pub(super) fn copy_patched_templates(
    items: &[Item],
    infra_cluster: &mut Value,
    control_plane: &mut Value,
    cp_machine: Option<&mut Value>,
    workers: &mut [Worker],
) {
    copy_spec(infra_cluster, &items[0].object, &[]);
    copy_spec(
        control_plane,
        &items[1].object,
        &[
            "/spec/machineTemplate/metadata",
            "/spec/machineTemplate/infrastructureRef",
            "/spec/machineTemplate/spec/infrastructureRef",
            "/spec/machineTemplate/nodeDrainTimeout",
            "/spec/machineTemplate/nodeVolumeDetachTimeout",
            "/spec/machineTemplate/nodeDeletionTimeout",
            "/spec/replicas",
            "/spec/version",
        ],
    );
    let mut next = 2;
    if let Some(machine) = cp_machine {
        machine["spec"] = items[next].object.get("spec").cloned().unwrap_or(json!({}));
        next += 1;
    }
    for w in workers.iter_mut() {
        let (bootstrap, infra) = (&items[next].object, &items[next + 1].object);
        next += 2;
        match w.kind {
            WorkerKind::Pool => {
                copy_spec(&mut w.bootstrap, bootstrap, &[]);
                copy_spec(&mut w.infrastructure, infra, &[]);
            }
            WorkerKind::Deployment => {
                w.bootstrap["spec"] = bootstrap.get("spec").cloned().unwrap_or(json!({}));
                w.infrastructure["spec"] = infra.get("spec").cloned().unwrap_or(json!({}));
            }
        }
    }
}

/// `copySpec`: the object's spec becomes the patched template's `spec.template.spec`, except
/// for `preserve` pointers (relative to the object) that the desired object already sets.
fn copy_spec(object: &mut Value, patched_template: &Value, preserve: &[&str]) {
    let kept: Vec<(&str, Value)> = preserve.iter().filter_map(|p| object.pointer(p).map(|v| (*p, v.clone()))).collect();
    let spec = patched_template.pointer("/spec/template/spec").cloned().unwrap_or(json!({}));
    object["spec"] = spec;
    for (pointer, value) in kept {
        set_pointer(object, pointer, value);
    }
}
