//! Where a bundle pins AKS Kubernetes versions: control planes and pools, with the minor each names (not in
//! ClusterClass templates, whose versions the topology's replaces).

use serde_json::Value;

use crate::aks_versions::Minor;
use crate::lint::bundle::{At, Bundle, CAPI_GROUP, CONTAINERSERVICE_GROUP, ObjRef, spec_root};

/// ASO's long-term support plan on a ManagedCluster (`spec.supportPlan`).
pub(super) const LTS_PLAN: &str = "AKSLongTermSupport";

/// The infrastructure kinds of an AKS pool: a MachinePool pointing at another kind is not an AKS pool.
const AKS_POOL_KINDS: &[&str] = &["AzureManagedMachinePool", "AzureASOManagedMachinePool"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    ControlPlane,
    Pool,
}

/// One pinned version.
#[derive(Debug, Clone)]
pub(super) struct Site<'a> {
    pub doc: usize,
    pub pointer: String,
    pub written: &'a str,
    pub minor: Minor,
    pub role: Role,
    /// The cluster has AKS's long-term support plan.
    pub lts: bool,
    /// The cluster's Azure region, where the bundle says.
    pub location: Option<&'a str>,
}

/// Every pinned version of a bundle, control planes first.
pub(super) struct Sites<'a> {
    pub all: Vec<Site<'a>>,
}

fn site<'a>(doc: usize, pointer: String, written: &'a str, role: Role, lts: bool) -> Option<Site<'a>> {
    Some(Site { doc, pointer, written, minor: Minor::parse(written)?, role, lts, location: None })
}

/// The region of a control plane document: its `spec.location` (classic), else its embedded ManagedCluster's.
fn control_plane_location<'a>(bundle: &Bundle<'a>, doc: usize) -> Option<&'a str> {
    if let Some(location) = bundle.docs[doc].value.str_at("/spec/location") {
        return Some(location);
    }
    let cluster = bundle.embedded(doc).iter().find(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedCluster"))?;
    cluster.value.str_at("/spec/location")
}

fn located<'a>(site: Option<Site<'a>>, location: Option<&'a str>) -> Option<Site<'a>> {
    site.map(|site| Site { location, ..site })
}

/// Whether an ASO ManagedCluster has the long-term support plan.
pub(super) fn has_lts_plan(cluster: &Value) -> bool {
    cluster.str_at("/spec/supportPlan") == Some(LTS_PLAN)
}

impl<'a> Sites<'a> {
    pub(super) fn read(bundle: &Bundle<'a>) -> Sites<'a> {
        let mut all = Vec::new();
        control_planes(bundle, &mut all);
        pools(bundle, &mut all);
        Sites { all }
    }
}

/// The LTS plan of the ManagedCluster embedded in document `doc`, if any.
fn embedded_lts(bundle: &Bundle<'_>, doc: usize) -> bool {
    bundle
        .embedded(doc)
        .iter()
        .any(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedCluster") && has_lts_plan(object.value))
}

fn control_planes<'a>(bundle: &Bundle<'a>, all: &mut Vec<Site<'a>>) {
    // Not the templates: CAPI's topology controller writes the topology's version over theirs (a placeholder).
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureASOManagedControlPlane"]) {
        let pointer = format!("{}/version", spec_root(doc));
        if let Some(written) = doc.value.str_at(&pointer) {
            let found = site(index, pointer, written, Role::ControlPlane, embedded_lts(bundle, index));
            all.extend(located(found, control_plane_location(bundle, index)));
        }
    }
    for object in bundle.aso_objects().iter().filter(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedCluster")) {
        let Some(written) = object.value.str_at("/spec/kubernetesVersion") else { continue };
        // CAPZ sets kubernetesVersion from the control plane's version: the same minor is one pin, reported there.
        let holder = bundle.docs[object.doc].value.str_at("/spec/version").and_then(Minor::parse);
        if object.slot.is_some() && holder.is_some() && holder == Minor::parse(written) {
            continue;
        }
        let pointer = object.pointer("/spec/kubernetesVersion");
        let found = site(object.doc, pointer, written, Role::ControlPlane, has_lts_plan(object.value));
        all.extend(located(found, object.value.str_at("/spec/location")));
    }
}

fn pools<'a>(bundle: &Bundle<'a>, all: &mut Vec<Site<'a>>) {
    for (index, doc) in bundle.of_kind(CAPI_GROUP, &["MachinePool"]) {
        let kind = doc.value.str_at("/spec/template/spec/infrastructureRef/kind").unwrap_or("");
        let pointer = "/spec/template/spec/version";
        if AKS_POOL_KINDS.contains(&kind)
            && let Some(written) = doc.value.str_at(pointer)
        {
            let control_plane = control_plane_of_machine_pool(bundle, index);
            let lts = control_plane.is_some_and(|cp| embedded_lts(bundle, cp));
            let location = control_plane.and_then(|cp| control_plane_location(bundle, cp));
            all.extend(located(site(index, pointer.to_string(), written, Role::Pool, lts), location));
        }
    }
    for object in bundle.aso_objects().iter().filter(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool")) {
        let Some(written) = object.value.str_at("/spec/orchestratorVersion") else { continue };
        // CAPZ sets orchestratorVersion from the MachinePool's version: the same minor is reported there.
        let machine_pool = object.slot.and_then(|_| bundle.machine_pool_for_infra(object.doc));
        let mp_minor = machine_pool
            .and_then(|mp| bundle.docs[mp].value.str_at("/spec/template/spec/version"))
            .and_then(Minor::parse);
        if mp_minor.is_some() && mp_minor == Minor::parse(written) {
            continue;
        }
        let control_plane = machine_pool.and_then(|mp| control_plane_of_machine_pool(bundle, mp));
        let lts = control_plane.is_some_and(|cp| embedded_lts(bundle, cp));
        let location = control_plane.and_then(|cp| control_plane_location(bundle, cp));
        let found = site(object.doc, object.pointer("/spec/orchestratorVersion"), written, Role::Pool, lts);
        all.extend(located(found, location));
    }
}

/// The control plane of a pool site's document: a MachinePool's, or the MachinePool's of an
/// AzureASOManagedMachinePool.
pub(super) fn control_plane_of_pool(bundle: &Bundle<'_>, doc: usize) -> Option<usize> {
    let machine_pool = if bundle.group(doc) == CAPI_GROUP { Some(doc) } else { bundle.machine_pool_for_infra(doc) }?;
    control_plane_of_machine_pool(bundle, machine_pool)
}

/// The control plane of the Cluster a MachinePool names in `spec.clusterName`.
pub(super) fn control_plane_of_machine_pool(bundle: &Bundle<'_>, machine_pool: usize) -> Option<usize> {
    let cluster_name = bundle.docs[machine_pool].value.str_at("/spec/clusterName")?;
    let namespace = bundle.namespace(machine_pool);
    let cluster = bundle.find_named("Cluster", cluster_name, namespace, |index| bundle.group(index) == CAPI_GROUP)?;
    let reference = bundle.docs[cluster].value.at("/spec/controlPlaneRef").and_then(ObjRef::parse)?;
    bundle.resolve_capi(cluster, &reference)
}

/// The control plane minor of a control plane document: its `spec.version`, else its embedded ManagedCluster's
/// `kubernetesVersion`; with where it is written.
pub(super) fn control_plane_version<'a>(bundle: &Bundle<'a>, doc: usize) -> Option<(Minor, &'a str)> {
    let value = &bundle.docs[doc].value;
    if let Some(written) = value.str_at("/spec/version") {
        return Some((Minor::parse(written)?, written));
    }
    let cluster = bundle.embedded(doc).iter().find(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedCluster"))?;
    let written = cluster.value.str_at("/spec/kubernetesVersion")?;
    Some((Minor::parse(written)?, written))
}
