//! From a ClusterClass, its templates and a topology Cluster to the objects the CAPI topology
//! controller creates: the Cluster (with its refs), the infrastructure cluster, the control plane
//! (and its machine template), and per MachinePool / MachineDeployment topology the pool or
//! deployment with its bootstrap and infrastructure objects or templates.
//!
//! Order of work mirrors `exp/topology/desiredstate`: objects are computed from the unpatched
//! templates, builtin variables are taken from them, the class patches run on the templates, and
//! the patched `spec.template.spec` replaces each object's spec, keeping the fields the controller
//! sets itself (control plane `version`, `replicas`, `machineTemplate`).
//!
//! Naming rule: the controller's naming templates (`{{ .cluster.name }}-{{ .random }}`,
//! `{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}`, the class's own
//! `naming`/`namingStrategy` templates, and `<cluster>-<topology>-` prefixes for pool objects)
//! are kept, but `.random` is not random: it is 5 characters of Kubernetes' name alphabet
//! taken from SHA-256 of `<namespace>/<cluster>/<role>`, so a plan is reproducible. When names of
//! live objects are known ([`Current`]), they are reused exactly as the controller does.
//! Owner references to the Cluster are not emitted (they need its UID).
//!
//! One file per step of the controller: `infrastructure_cluster`, `control_plane`, `cluster`, `workers`
//! (machine deployments and machine pools), `builtins` and `patching` (the class patches), `assemble` (the
//! output order, with `health_checks`); the types they share are in `types`, `context` and `fields`.

mod assemble;
mod builtins;
mod cluster;
mod context;
mod control_plane;
mod current;
mod error;
mod fields;
mod health_checks;
mod infrastructure_cluster;
mod inputs;
mod patching;
mod templates;
mod types;
mod workers;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use self::assemble::assemble;
use self::builtins::{cluster_builtin, control_plane_builtin};
use self::cluster::compute_cluster;
use self::context::{Ctx, read_ref};
use self::control_plane::{compute_control_plane, compute_control_plane_machine_template};
use self::error::{field_pointer, locate};
use self::infrastructure_cluster::compute_infrastructure_cluster;
use self::inputs::namespace_matches;
use self::patching::{copy_patched_templates, patch_items};
use self::workers::{check_unique_worker_names, compute_machine_deployments, compute_machine_pools};
use crate::json_pointer::At;
use crate::manifest::Document;
use crate::topology::variables::{self, VariableError};
use crate::topology::{patches, webhooks};

pub use self::current::{current_from_live, owned_selector};
pub use self::error::TopologyError;
pub use self::inputs::{class_ref, is_topology_cluster};
pub use self::types::{
    CLONED_FROM_GROUPKIND, CLONED_FROM_NAME, CLUSTER_NAME_LABEL, Current, CurrentWorker, MACHINE_DEPLOYMENT_NAME_LABEL,
    MACHINE_POOL_NAME_LABEL, Planned, TOPOLOGY_OWNED_LABEL,
};

/// Plans every topology Cluster among `documents` (the classes and templates are looked up there).
pub fn plan_all(documents: &[Document]) -> Result<Vec<Planned>, TopologyError> {
    let clusters: Vec<&Document> = documents.iter().filter(|d| is_topology_cluster(d)).collect();
    if clusters.is_empty() {
        return Err(TopologyError::NoTopologyCluster);
    }
    clusters.into_iter().map(|c| plan(c, documents, &Current::default())).collect()
}

/// Plans one topology Cluster; the class and its templates are looked up in `documents`.
pub fn plan(cluster_doc: &Document, documents: &[Document], current: &Current) -> Result<Planned, TopologyError> {
    let cluster = &cluster_doc.value;
    let cluster_name = cluster_doc.name().to_string();
    let namespace = cluster_doc.namespace().unwrap_or("default").to_string();
    let location = cluster_doc.origin.to_string();
    let (class_ns, class_name) = class_ref(cluster);
    let cluster_label = format!("{namespace}/{cluster_name}");
    if class_name.is_empty() {
        let message = "Required value: the topology names no ClusterClass";
        return Err(invalid_cluster(location, cluster_label, "spec.topology.classRef.name", message));
    }
    let (class_doc, defs) = accepted_class(documents, &class_ns, &class_name, &location, &cluster_label)?;
    let class = &class_doc.value;
    // What CAPI's defaulting webhook writes into the Cluster; the plan is made from that.
    let mut defaulted = cluster.clone();
    webhooks::default_cluster(&mut defaulted, &defs);
    let cluster = &defaulted;
    let v1beta2 = cluster_doc.version() == "v1beta2";
    let topology_version = cluster.str_at("/spec/topology/version").unwrap_or("").to_string();
    if topology_version.is_empty() {
        return Err(invalid_cluster(location, cluster_label, "spec.topology.version", "Required value"));
    }
    let ctx = Ctx {
        documents,
        class,
        class_label: format!("{class_ns}/{class_name}"),
        class_ns: class_ns.clone(),
        v1beta2,
        cluster,
        cluster_name: cluster_name.clone(),
        namespace: namespace.clone(),
        location: location.clone(),
    };

    // Variables: cluster values (defaulted, checked), control plane and per-worker overrides.
    let var_err = |errors: Vec<VariableError>| TopologyError::Variables {
        location: location.clone(),
        cluster: cluster_label.clone(),
        errors: errors.into_iter().map(|e| (cluster_doc.location_of(&field_pointer(&e)), e)).collect(),
    };
    let (mut global, cp_overrides) = cluster_variables(&defs, cluster, &ctx.class_label).map_err(var_err)?;
    check_cluster_webhook(cluster_doc, cluster, class, &class_name, &location, &cluster_label)?;

    // Templates.
    let infra_ref = ctx.required_ref("/spec/infrastructure")?;
    let infra_template = ctx.template(&infra_ref)?;
    let cp_ref = ctx.required_ref("/spec/controlPlane")?;
    let cp_template = ctx.template(&cp_ref)?;
    let cp_machine_ref = read_ref(class, "/spec/controlPlane/machineInfrastructure", &class_ns);
    let cp_machine_template = cp_machine_ref.as_ref().map(|r| ctx.template(r)).transpose()?;

    // Infrastructure cluster.
    let mut infra_cluster = compute_infrastructure_cluster(&ctx, class, &infra_template, current)?;

    // Control plane machine template (if the class has one).
    let mut cp_machine =
        compute_control_plane_machine_template(&ctx, cp_machine_template.as_ref(), current, &cluster_name);

    // Control plane.
    let mut control_plane =
        compute_control_plane(&ctx, cluster, class, &cp_template, cp_machine.as_ref(), current, &topology_version)?;

    // The Cluster with its refs and labels.
    let desired_cluster = compute_cluster(&ctx, cluster, &infra_cluster, &control_plane);

    // Workers.
    check_unique_worker_names(&ctx, cluster)?;
    let mut workers = compute_machine_deployments(&ctx, cluster, &topology_version, current)?;
    workers.extend(compute_machine_pools(&ctx, cluster, &topology_version, current)?);

    // Builtin variables.
    let cluster_builtin = cluster_builtin(&ctx, cluster, &topology_version, &class_name);
    global.insert(variables::BUILTIN.into(), json!({"cluster": cluster_builtin}));

    let cp_builtin = control_plane_builtin(cluster, &control_plane, cp_machine.as_ref(), &topology_version);
    let mut cp_vars = cp_overrides;
    cp_vars.insert(variables::BUILTIN.to_string(), json!({"controlPlane": cp_builtin}));

    // Patch the templates.
    let mut items = patch_items(
        &ctx,
        &defs,
        &var_err,
        [&infra_template, &cp_template],
        cp_machine_template.as_ref(),
        &cp_vars,
        &workers,
    )?;
    let has_patches = class.array_at("/spec/patches").is_some_and(|p| !p.is_empty());
    if has_patches {
        patches::apply(class, &global, &mut items)?;
        copy_patched_templates(&items, &mut infra_cluster, &mut control_plane, cp_machine.as_mut(), &mut workers);
    }

    let objects = assemble(&ctx, desired_cluster, infra_cluster, cp_machine, control_plane, workers);
    Ok(Planned { cluster_name, namespace, objects })
}

fn invalid_cluster(location: String, cluster: String, field: &str, message: &str) -> TopologyError {
    TopologyError::InvalidCluster { location, cluster, field: field.into(), message: message.into() }
}

/// The ClusterClass the Cluster names, found among `documents` and accepted by CAPI's ClusterClass webhook, with
/// its variable definitions.
fn accepted_class<'d>(
    documents: &'d [Document],
    class_ns: &str,
    class_name: &str,
    location: &str,
    cluster_label: &str,
) -> Result<(&'d Document, Vec<variables::VariableDefinition>), TopologyError> {
    let class_doc = documents
        .iter()
        .find(|d| d.kind() == "ClusterClass" && d.name() == class_name && namespace_matches(d, class_ns))
        .ok_or_else(|| TopologyError::ClassNotFound {
            location: location.to_string(),
            cluster: cluster_label.to_string(),
            namespace: class_ns.to_string(),
            name: class_name.to_string(),
        })?;
    let class_errors = webhooks::validate_class(&class_doc.value);
    if !class_errors.is_empty() {
        return Err(TopologyError::Rejected {
            location: class_doc.origin.to_string(),
            object: format!("ClusterClass {class_ns}/{class_name}"),
            errors: class_errors.into_iter().map(|e| (locate(class_doc, &e.path), e)).collect(),
        });
    }
    let defs = variables::definitions(&class_doc.value).map_err(|e| TopologyError::InvalidClass {
        class: format!("{class_ns}/{class_name}"),
        field: "spec.variables".into(),
        message: e.to_string(),
    })?;
    Ok((class_doc, defs))
}

/// The defaulted Cluster as CAPI's Cluster webhook checks it against its class.
fn check_cluster_webhook(
    cluster_doc: &Document,
    cluster: &Value,
    class: &Value,
    class_name: &str,
    location: &str,
    cluster_label: &str,
) -> Result<(), TopologyError> {
    let cluster_errors = webhooks::validate_cluster(cluster, class, class_name);
    if !cluster_errors.is_empty() {
        return Err(TopologyError::Rejected {
            location: location.to_string(),
            object: format!("Cluster {cluster_label}"),
            errors: cluster_errors.into_iter().map(|e| (locate(cluster_doc, &e.path), e)).collect(),
        });
    }
    Ok(())
}

/// Variable values by name.
type Values = BTreeMap<String, Value>;

/// The Cluster's variable values (defaulted and checked) and the control plane's overrides.
fn cluster_variables(
    defs: &[variables::VariableDefinition],
    cluster: &Value,
    class_label: &str,
) -> Result<(Values, Values), Vec<VariableError>> {
    let global = variables::resolve(
        defs,
        cluster.pointer("/spec/topology/variables"),
        "spec.topology.variables",
        class_label,
        false,
    )?;
    let cp_overrides = variables::resolve(
        defs,
        cluster.pointer("/spec/topology/controlPlane/variables/overrides"),
        "spec.topology.controlPlane.variables.overrides",
        class_label,
        true,
    )?;
    Ok((global, cp_overrides))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;
    use serde_json::Value;

    const CLASS: &str = include_str!("../../../tests/fixtures/topology/custom/class.yaml");
    const CLUSTER: &str = include_str!("../../../tests/fixtures/topology/custom/cluster.yaml");

    fn docs() -> Vec<Document> {
        let mut docs = parse_documents(CLASS, "class.yaml").unwrap();
        docs.extend(parse_documents(CLUSTER, "cluster.yaml").unwrap());
        docs
    }

    #[test]
    fn live_names_are_reused() {
        let docs = docs();
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap();
        let first = plan(cluster, &docs, &Current::default()).unwrap();
        // Pretend the controller created the objects with other names; plan again against them.
        let mut live: Vec<Value> = first.objects.clone();
        for object in &mut live {
            let kind = object["kind"].as_str().unwrap().to_string();
            let renamed = format!("{}-live", object["metadata"]["name"].as_str().unwrap());
            if kind != "Cluster" {
                object["metadata"]["name"] = json!(renamed);
            }
        }
        let mut live_cluster = live[0].clone();
        live_cluster["spec"]["infrastructureRef"]["name"] = live[1]["metadata"]["name"].clone();
        live_cluster["spec"]["controlPlaneRef"]["name"] = live[2]["metadata"]["name"].clone();
        for mp in live.iter_mut().filter(|o| o["kind"] == "MachinePool") {
            let boot = mp["spec"]["template"]["spec"]["bootstrap"]["configRef"]["name"].as_str().unwrap().to_string();
            let infra = mp["spec"]["template"]["spec"]["infrastructureRef"]["name"].as_str().unwrap().to_string();
            mp["spec"]["template"]["spec"]["bootstrap"]["configRef"]["name"] = json!(format!("{boot}-live"));
            mp["spec"]["template"]["spec"]["infrastructureRef"]["name"] = json!(format!("{infra}-live"));
        }
        let current = current_from_live(&live_cluster, &live);
        assert_eq!(current.machine_pools.len(), 2);
        let second = plan(cluster, &docs, &current).unwrap();
        let names = |objects: &[Value]| -> Vec<String> {
            objects
                .iter()
                .map(|o| format!("{}/{}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap()))
                .collect()
        };
        assert_eq!(names(&second.objects), names(&live));
        // Same content apart from the names.
        assert_eq!(second.objects[2]["spec"], first.objects[2]["spec"]);
        assert_eq!(owned_selector("team-a"), "cluster.x-k8s.io/cluster-name=team-a,topology.cluster.x-k8s.io/owned");
    }

    #[test]
    fn v1beta2_health_checks_are_planned_in_the_v1beta2_shape() {
        const V1BETA2_CLASS: &str = include_str!("../../../tests/fixtures/topology/v1beta2/class.yaml");
        const V1BETA2_CLUSTER: &str = include_str!("../../../tests/fixtures/topology/v1beta2/cluster.yaml");
        let mut docs = parse_documents(V1BETA2_CLASS, "class.yaml").unwrap();
        docs.extend(parse_documents(V1BETA2_CLUSTER, "cluster.yaml").unwrap());
        let class = docs.iter_mut().find(|d| d.kind() == "ClusterClass").unwrap();
        class.value["spec"]["controlPlane"]["healthCheck"] = json!({
            "checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]},
            "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}
        });
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap().clone();
        let planned = plan(&cluster, &docs, &Current::default()).unwrap();
        let mhc = planned.objects.iter().find(|o| o["kind"] == "MachineHealthCheck").expect("a MachineHealthCheck");
        let cp = planned.objects.iter().find(|o| o["kind"] == "KubeadmControlPlane").unwrap();
        assert_eq!(mhc["apiVersion"], "cluster.x-k8s.io/v1beta2");
        assert_eq!(mhc["metadata"]["name"], cp["metadata"]["name"]);
        assert_eq!(mhc["spec"]["checks"]["nodeStartupTimeoutSeconds"], 600);
        assert_eq!(mhc["spec"]["checks"]["unhealthyNodeConditions"][0]["timeoutSeconds"], 300);
        assert_eq!(mhc["spec"]["remediation"], json!({"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}));
        assert_eq!(
            mhc["spec"]["selector"],
            json!({"matchLabels": {"cluster.x-k8s.io/control-plane": "", "topology.cluster.x-k8s.io/owned": ""}})
        );
        // The topology switches it off.
        let mut off = cluster.clone();
        off.value["spec"]["topology"]["controlPlane"]["healthCheck"] = json!({"enabled": false});
        let planned = plan(&off, &docs, &Current::default()).unwrap();
        assert!(planned.objects.iter().all(|o| o["kind"] != "MachineHealthCheck"));
    }

    #[test]
    fn random_suffix_is_stable_and_uses_the_kubernetes_alphabet() {
        let docs = docs();
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap();
        let a = plan(cluster, &docs, &Current::default()).unwrap();
        let b = plan(cluster, &docs, &Current::default()).unwrap();
        assert_eq!(a.objects, b.objects);
        let cp_name = a.objects[2]["metadata"]["name"].as_str().unwrap();
        let suffix = cp_name.strip_prefix("team-a-").unwrap();
        assert_eq!(suffix.len(), 5);
        assert!(suffix.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{suffix}");
    }
}
