//! `capz-topology-version-pinned` and `aks-version-topology-pinned`: versions pinned against a topology Cluster's `spec.topology.version`. Cluster API's
//! topology controller gives that version to the control plane and to the MachinePools of
//! `spec.topology.workers`, and CAPZ writes it into the embedded ManagedCluster (`kubernetesVersion`) and agent pools
//! (`orchestratorVersion`), failing with an Incompatible error on a different value the user set
//! (setManagedClusterKubernetesVersion, setAgentPoolOrchestratorVersion). So a version pinned in a ClusterClass's
//! AzureASOManaged*Template blocks every topology version but its own (`capz-topology-version-pinned`); and a
//! MachinePool written beside a topology Cluster is not the topology's: it keeps its own version while the
//! topology's moves on, until AKS refuses the skew (`aks-version-topology-pinned`).

use serde_json::Value;

use super::skew::MAX_BEHIND;
use super::{TEMPLATE_PINNED, TOPOLOGY_PINNED};
use crate::aks_versions::Minor;
use crate::lint::Sink;
use crate::lint::bundle::{At, Bundle, CAPI_GROUP, CONTAINERSERVICE_GROUP, ObjRef};
use crate::lint::mutators::trim_v;
use crate::report::Severity;

/// The label CAPI's topology controller puts on the objects it creates for a topology Cluster.
const TOPOLOGY_OWNED: &str = "topology.cluster.x-k8s.io/owned";

pub(super) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[TOPOLOGY_PINNED, TEMPLATE_PINNED]) {
        return;
    }
    let topologies: Vec<(usize, &str)> = bundle
        .of_kind(CAPI_GROUP, &["Cluster"])
        .filter_map(|(index, doc)| Some((index, doc.value.str_at("/spec/topology/version")?)))
        .collect();
    for (class_index, _) in bundle.of_kind(CAPI_GROUP, &["ClusterClass"]) {
        let users: Vec<(usize, &str)> =
            topologies.iter().copied().filter(|&(cluster, _)| class_of(bundle, cluster) == Some(class_index)).collect();
        for (template, object, field) in pinned_in_class(bundle, class_index) {
            report_class_pin(bundle, class_index, template, object, field, &users, sink);
        }
    }
    for &(cluster, version) in &topologies {
        hand_written_pools(bundle, cluster, version, sink);
    }
}

/// The ClusterClass document of topology Cluster `cluster`, when it is in the bundle.
fn class_of(bundle: &Bundle<'_>, cluster: usize) -> Option<usize> {
    let (namespace, name) = crate::topology::plan::class_ref(&bundle.docs[cluster].value);
    bundle.find_named("ClusterClass", &name, Some(&namespace), |index| bundle.group(index) == CAPI_GROUP)
}

/// The templates of a ClusterClass: its control plane's, then each machine pool class's infrastructure template.
fn class_templates(bundle: &Bundle<'_>, class_index: usize) -> Vec<usize> {
    let class = &bundle.docs[class_index].value;
    let reference = |value: &Value, paths: &[&str]| {
        paths
            .iter()
            .find_map(|path| value.at(path))
            .and_then(ObjRef::parse)
            .and_then(|r| bundle.resolve(class_index, &r))
    };
    let mut templates = Vec::new();
    templates.extend(reference(class, &["/spec/controlPlane/ref", "/spec/controlPlane/templateRef"]));
    for definition in class.array_at("/spec/workers/machinePools").into_iter().flatten() {
        templates.extend(reference(definition, &["/template/infrastructure/ref", "/infrastructure/templateRef"]));
    }
    templates
}

/// The versions the class's AzureASOManaged*Templates pin in their embedded objects: (template document, index of
/// the embedded object among the template's, the field).
fn pinned_in_class(bundle: &Bundle<'_>, class_index: usize) -> Vec<(usize, usize, &'static str)> {
    let mut found = Vec::new();
    for template in class_templates(bundle, class_index) {
        let field = match bundle.docs[template].kind() {
            "AzureASOManagedControlPlaneTemplate" => ("ManagedCluster", "/spec/kubernetesVersion"),
            "AzureASOManagedMachinePoolTemplate" => ("ManagedClustersAgentPool", "/spec/orchestratorVersion"),
            _ => continue,
        };
        for (slot, object) in bundle.embedded(template).iter().enumerate() {
            if object.is(CONTAINERSERVICE_GROUP, field.0) && object.value.str_at(field.1).is_some() {
                found.push((template, slot, field.1));
            }
        }
    }
    found
}

fn report_class_pin(
    bundle: &Bundle<'_>,
    class_index: usize,
    template: usize,
    slot: usize,
    field: &str,
    users: &[(usize, &str)],
    sink: &mut Sink<'_>,
) {
    let object = bundle.embedded(template)[slot];
    let pinned = object.value.str_at(field).unwrap_or_default();
    let class = bundle.meta_name(class_index);
    let pointer = object.pointer(field);
    let name = field.rsplit('/').next().unwrap_or(field);
    let conflicting: Vec<String> = users
        .iter()
        .filter(|(_, version)| trim_v(version) != trim_v(pinned))
        .map(|&(cluster, version)| format!("{:?} ({version:?})", bundle.meta_name(cluster)))
        .collect();
    if conflicting.is_empty() {
        let message = format!(
            "{name} {pinned:?} is pinned in a template of ClusterClass {class:?}: the topology's version replaces it \
             (CAPZ writes spec.topology.version there and fails with an Incompatible error on another value), so \
             every topology Cluster of the class fails as soon as its version moves off {pinned:?}. Remove {name}"
        );
        sink.emit_as(TEMPLATE_PINNED, Some(Severity::Warning), template, &pointer, message);
    } else {
        let message = format!(
            "{name} {pinned:?} is pinned in a template of ClusterClass {class:?}, whose topology Cluster(s) {} run \
             another version: CAPZ writes spec.topology.version there and fails with an Incompatible error. Remove \
             {name}",
            conflicting.join(", ")
        );
        sink.emit(TEMPLATE_PINNED, template, &pointer, message);
    }
}

/// Where a MachinePool writes its version.
pub(super) const MACHINE_POOL_VERSION: &str = "/spec/template/spec/version";

/// The MachinePools written beside topology Cluster `cluster` (its `spec.clusterName`, its namespace) that the
/// topology does not manage (no `topology.cluster.x-k8s.io/owned` label), with the version each writes.
pub(super) fn machine_pools_beside<'a>(bundle: &Bundle<'a>, cluster: usize) -> Vec<(usize, &'a str)> {
    let cluster_name = bundle.meta_name(cluster);
    let namespace = bundle.namespace(cluster).unwrap_or("default");
    bundle
        .of_kind(CAPI_GROUP, &["MachinePool"])
        .filter(|(index, doc)| {
            doc.value.at("/metadata/labels").and_then(|labels| labels.get(TOPOLOGY_OWNED)).is_none()
                && doc.value.str_at("/spec/clusterName") == Some(cluster_name)
                && bundle.namespace(*index).unwrap_or("default") == namespace
        })
        .filter_map(|(index, doc)| Some((index, doc.value.str_at(MACHINE_POOL_VERSION)?)))
        .collect()
}

/// MachinePools beside topology Cluster `cluster` with a version of their own.
fn hand_written_pools(bundle: &Bundle<'_>, cluster: usize, version: &str, sink: &mut Sink<'_>) {
    let Some(topology_minor) = Minor::parse(version) else { return };
    let cluster_name = bundle.meta_name(cluster);
    for (index, written) in machine_pools_beside(bundle, cluster) {
        let pointer = MACHINE_POOL_VERSION;
        let Some(minor) = Minor::parse(written) else { continue };
        if trim_v(written) == trim_v(version) {
            continue;
        }
        let behind = topology_minor.minors_after(minor);
        let base = format!(
            "MachinePool version {written:?} is pinned beside topology Cluster {cluster_name:?} \
             (spec.topology.version {version:?}): the topology controller upgrades its control plane and the \
             MachinePools of spec.topology.workers only, not this one"
        );
        match behind {
            Some(ahead) if ahead < 0 => {
                let message = format!("{base}; AKS rejects a node pool newer than its control plane");
                sink.emit(TOPOLOGY_PINNED, index, pointer, message);
            }
            Some(behind) if behind > MAX_BEHIND => {
                let message = format!("{base}; it is {behind} minors behind, AKS allows at most {MAX_BEHIND}");
                sink.emit(TOPOLOGY_PINNED, index, pointer, message);
            }
            _ => {
                let message = format!(
                    "{base}. Add it to spec.topology.workers.machinePools, or keep its version with the topology's"
                );
                sink.emit_as(TOPOLOGY_PINNED, Some(Severity::Warning), index, pointer, message);
            }
        }
    }
}
