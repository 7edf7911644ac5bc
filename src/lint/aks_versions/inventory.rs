//! The Kubernetes versions a bundle pins, per cluster: its control plane's and its pools', each with where it is
//! written; what `kubectl capz upgrade plan` reads. A topology Cluster pins one version (`spec.topology.version`)
//! that Cluster API's topology controller gives its control plane, then its MachinePools; its pools here are only
//! the MachinePools written beside it, which keep their own versions.

use super::sites::{Role, Sites, control_plane_of_pool, has_lts_plan};
use crate::aks_versions::Minor;
use crate::lint::bundle::{At, Bundle, CAPI_GROUP, CONTAINERSERVICE_GROUP, ObjRef};
use crate::manifest::Document;

/// One pinned version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    /// `Kind/name` of the object that pins it.
    pub object: String,
    /// As written (`v1.33.2`).
    pub version: String,
    pub minor: Minor,
    /// The JSON pointer of the version in the object's document.
    pub pointer: String,
    /// `file:line` of the version.
    pub at: String,
    /// Where its value is set when not at `at`: the line of a Helm values file or of an Argo CD `valuesObject` that
    /// renders it, of a kustomize patch that sets it (repository mode's provenance, [`Pinned::edit_at`]).
    pub set_at: Option<String>,
}

impl Pinned {
    /// The line to edit to change the version: where its value is set, else where it is written.
    pub fn edit_at(&self) -> &str {
        self.set_at.as_deref().unwrap_or(&self.at)
    }
}

/// One cluster's versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterVersions {
    /// `namespace/name` of its Cluster, else of its control plane.
    pub name: String,
    pub control_plane: Pinned,
    /// Its pools' own versions (for a topology Cluster only the MachinePools written beside it: the topology's own
    /// follow its version).
    pub pools: Vec<Pinned>,
    /// The control plane's ManagedCluster has AKS's long-term support plan.
    pub lts: bool,
    /// A topology Cluster (one version for the control plane and every pool).
    pub topology: bool,
    /// Its Azure region, where the bundle says.
    pub location: Option<String>,
}

/// The clusters of `documents` (one bundle: what one unit applies) with the versions they pin, in document order.
pub fn clusters(documents: &[Document]) -> Vec<ClusterVersions> {
    let bundle = Bundle::new(documents);
    let sites = Sites::read(&bundle);
    let pinned = |doc: usize, pointer: &str, version: &str, minor: Minor| Pinned {
        object: bundle.docs[doc].display_name(),
        version: version.to_string(),
        minor,
        pointer: pointer.to_string(),
        at: bundle.docs[doc].location_of(pointer),
        set_at: None,
    };
    let mut out = Vec::new();
    for site in sites.all.iter().filter(|site| site.role == Role::ControlPlane) {
        // An ASO ManagedCluster of its own (not embedded in a control plane): its pools are the agent pools that
        // name it as their owner, which the bundle does not pair; it is listed without pools.
        let pools = sites
            .all
            .iter()
            .filter(|pool| pool.role == Role::Pool && control_plane_of_pool(&bundle, pool.doc) == Some(site.doc))
            .map(|pool| pinned(pool.doc, &pool.pointer, pool.written, pool.minor))
            .collect();
        out.push(ClusterVersions {
            name: cluster_name(&bundle, site.doc),
            control_plane: pinned(site.doc, &site.pointer, site.written, site.minor),
            pools,
            lts: site.lts,
            topology: false,
            location: site.location.map(str::to_string),
        });
    }
    for (index, doc) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
        let pointer = "/spec/topology/version";
        let Some(written) = doc.value.str_at(pointer) else { continue };
        let Some(minor) = Minor::parse(written) else { continue };
        let lts = bundle
            .aso_objects()
            .iter()
            .any(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedCluster") && has_lts_plan(o.value) && o.doc == index);
        // The topology controller upgrades its MachinePools; one written beside it keeps its own version, a pool
        // to upgrade by hand.
        let pools = super::topology::machine_pools_beside(&bundle, index)
            .into_iter()
            .filter_map(|(pool, version)| {
                Some(pinned(pool, super::topology::MACHINE_POOL_VERSION, version, Minor::parse(version)?))
            })
            .collect();
        out.push(ClusterVersions {
            name: namespaced(bundle.namespace(index), bundle.meta_name(index)),
            control_plane: pinned(index, pointer, written, minor),
            pools,
            lts,
            topology: true,
            location: None,
        });
    }
    out
}

/// The Cluster whose `controlPlaneRef` is `control_plane`, as `namespace/name`; else the control plane's own.
fn cluster_name(bundle: &Bundle<'_>, control_plane: usize) -> String {
    for (index, doc) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
        let reference = doc.value.at("/spec/controlPlaneRef").and_then(ObjRef::parse);
        if reference.and_then(|r| bundle.resolve_capi(index, &r)) == Some(control_plane) {
            return namespaced(bundle.namespace(index), bundle.meta_name(index));
        }
    }
    namespaced(bundle.namespace(control_plane), bundle.meta_name(control_plane))
}

fn namespaced(namespace: Option<&str>, name: &str) -> String {
    format!("{}/{name}", namespace.unwrap_or("default"))
}
