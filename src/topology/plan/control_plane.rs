//! CAPI's `computeControlPlane` and `computeControlPlaneInfrastructureMachineTemplate`: the control plane of a
//! topology and its machine template.

use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::error::TopologyError;
use super::fields::{labels_of, merge_first_wins, set_pointer};
use super::templates::{template_to_object, template_to_template};
use super::types::{CLUSTER_NAME_LABEL, Current, TOPOLOGY_OWNED_LABEL};
use crate::json_pointer::At;
use crate::manifest::split_api_version;
use crate::topology::webhooks;

/// CAPI's `computeControlPlaneInfrastructureMachineTemplate`: the control plane's machine template, if the class has
/// one.
pub(super) fn compute_control_plane_machine_template(
    ctx: &Ctx,
    cp_machine_template: Option<&Value>,
    current: &Current,
    cluster_name: &str,
) -> Option<Value> {
    cp_machine_template.map(|t| {
        let name = current
            .control_plane_machine_infrastructure
            .clone()
            .unwrap_or_else(|| ctx.prefixed_name(&format!("{cluster_name}-"), "control-plane-machine-infrastructure"));
        template_to_template(ctx, t, name, &Map::new())
    })
}

/// CAPI's `computeControlPlane`: the control plane from the class's template, with the topology's and the class's
/// metadata, its machine template's reference, replicas and version.
#[allow(clippy::too_many_arguments)]
pub(super) fn compute_control_plane(
    ctx: &Ctx,
    cluster: &Value,
    class: &Value,
    cp_template: &Value,
    cp_machine: Option<&Value>,
    current: &Current,
    topology_version: &str,
) -> Result<Value, TopologyError> {
    let (cluster_name, namespace, v1beta2) = (&ctx.cluster_name, &ctx.namespace, ctx.v1beta2);
    let topo_cp_meta = cluster.pointer("/spec/topology/controlPlane/metadata");
    let class_cp_meta = class.pointer("/spec/controlPlane/metadata");
    let mut cp_labels = merge_first_wins(
        &labels_of(topo_cp_meta.and_then(|m| m.get("labels"))),
        &labels_of(class_cp_meta.and_then(|m| m.get("labels"))),
    );
    cp_labels.insert(CLUSTER_NAME_LABEL.into(), json!(cluster_name));
    cp_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let cp_annotations = merge_first_wins(
        &labels_of(topo_cp_meta.and_then(|m| m.get("annotations"))),
        &labels_of(class_cp_meta.and_then(|m| m.get("annotations"))),
    );
    let cp_name_template = class
        .str_at("/spec/controlPlane/naming/template")
        .or_else(|| class.str_at("/spec/controlPlane/namingStrategy/template"))
        .unwrap_or("{{ .cluster.name }}-{{ .random }}");
    let cp_name = match &current.control_plane {
        Some(n) => n.clone(),
        None => ctx.name_from_template(cp_name_template, "control-plane", None)?,
    };
    let mut control_plane = template_to_object(ctx, cp_template, cp_name, &cp_labels, &cp_annotations);
    // Contract of the control plane provider: v1beta2 for controlplane.cluster.x-k8s.io/v1beta2
    // (KCP), v1beta1 otherwise (CAPZ and most providers today).
    let cp_contract_v1beta2 = control_plane["apiVersion"] == json!("controlplane.cluster.x-k8s.io/v1beta2");
    if let Some(machine) = cp_machine {
        let api_version = machine.str_at("/apiVersion").unwrap_or("");
        if cp_contract_v1beta2 {
            set_pointer(
                &mut control_plane,
                "/spec/machineTemplate/spec/infrastructureRef",
                json!({"apiGroup": split_api_version(api_version).0, "kind": machine.str_at("/kind"), "name": machine.str_at("/metadata/name")}),
            );
        } else {
            set_pointer(
                &mut control_plane,
                "/spec/machineTemplate/infrastructureRef",
                json!({"apiVersion": api_version, "kind": machine.str_at("/kind"), "name": machine.str_at("/metadata/name"), "namespace": namespace}),
            );
        }
        let existing = control_plane.pointer("/spec/machineTemplate/metadata").cloned().unwrap_or(json!({}));
        let labels = merge_first_wins(&labels_of(existing.get("labels")), &cp_labels);
        let annotations = merge_first_wins(&labels_of(existing.get("annotations")), &cp_annotations);
        let mut meta = Map::new();
        if !labels.is_empty() {
            meta.insert("labels".into(), Value::Object(labels));
        }
        if !annotations.is_empty() {
            meta.insert("annotations".into(), Value::Object(annotations));
        }
        set_pointer(&mut control_plane, "/spec/machineTemplate/metadata", Value::Object(meta));
    }
    set_control_plane_machine_fields(&mut control_plane, cluster, class, v1beta2, cp_contract_v1beta2);
    if let Some(replicas) = cluster.pointer("/spec/topology/controlPlane/replicas") {
        set_pointer(&mut control_plane, "/spec/replicas", replicas.clone());
    }
    set_pointer(&mut control_plane, "/spec/version", json!(topology_version));
    Ok(control_plane)
}

/// The control plane's `machineTemplate` fields the topology (or else the class) sets:
/// node drain / volume detach / deletion timeouts and readiness gates.
fn set_control_plane_machine_fields(
    control_plane: &mut Value,
    cluster: &Value,
    class: &Value,
    v1beta2: bool,
    contract_v1beta2: bool,
) {
    let pick = |field: &str| {
        cluster
            .pointer(&format!("/spec/topology/controlPlane/{field}"))
            .or_else(|| class.pointer(&format!("/spec/controlPlane/{field}")))
            .cloned()
    };
    if let Some(gates) = pick("readinessGates") {
        let at = if contract_v1beta2 {
            "/spec/machineTemplate/spec/readinessGates"
        } else {
            "/spec/machineTemplate/readinessGates"
        };
        set_pointer(control_plane, at, gates);
    }
    for field in ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"] {
        let value = if v1beta2 { pick(&format!("deletion/{field}Seconds")) } else { pick(field) };
        let Some(mut value) = value else { continue };
        match (v1beta2, contract_v1beta2) {
            (true, true) => {
                set_pointer(control_plane, &format!("/spec/machineTemplate/spec/deletion/{field}Seconds"), value)
            }
            (true, false) => {
                let seconds = value.as_i64().unwrap_or(0) as i128;
                let text = webhooks::format_go_duration(seconds * 1_000_000_000);
                set_pointer(control_plane, &format!("/spec/machineTemplate/{field}"), json!(text));
            }
            (false, true) => {
                // v1.14 converts the v1beta1 duration to v1beta2 whole seconds before computing the
                // control plane, whose v1beta2 contract takes `deletion.*Seconds`.
                let nanos = value.as_str().and_then(|text| crate::go_duration::parse(text).ok()).unwrap_or(0);
                let seconds = crate::go_duration::capi_whole_seconds(nanos).0;
                set_pointer(
                    control_plane,
                    &format!("/spec/machineTemplate/spec/deletion/{field}Seconds"),
                    json!(seconds),
                )
            }
            (false, false) => {
                webhooks::canonical_duration(&mut value);
                set_pointer(control_plane, &format!("/spec/machineTemplate/{field}"), value);
            }
        }
    }
}
