//! Finds the classic clusters of a manifest bundle: each Cluster whose control plane is an
//! AzureManagedControlPlane, with its AzureManagedCluster, MachinePools, AzureManagedMachinePools and identity.

use std::borrow::Cow;

use crate::fast_hash::HashMap;
use crate::json_pointer::At;
use crate::manifest::Document;

use super::TranslateError;

/// One classic (AzureManagedControlPlane-based) cluster and the objects that make it up: borrowed from the bundle
/// it was found in (a copy only of what is changed, e.g. the patches stripped or a placeholder key put in), or
/// owned when made up (see `clusters_from_templates`).
#[derive(Debug, Clone)]
pub struct ClassicCluster<'a> {
    pub cluster: Cow<'a, Document>,
    pub control_plane: Cow<'a, Document>,
    pub infra_cluster: Option<Cow<'a, Document>>,
    /// Each MachinePool of the Cluster with the AzureManagedMachinePool it references, in file order.
    pub pools: Vec<(Cow<'a, Document>, Cow<'a, Document>)>,
    /// The AzureClusterIdentity named by `spec.identityRef`, when it is in the bundle.
    pub identity: Option<Cow<'a, Document>>,
}

impl ClassicCluster<'_> {
    /// The namespace every object of the cluster lives in (`default` when unset).
    pub fn namespace(&self) -> &str {
        self.cluster.namespace().unwrap_or("default")
    }
    /// The Cluster's name.
    pub fn name(&self) -> &str {
        self.cluster.name()
    }
}

/// The documents of a bundle by kind, namespace and name (the first in input order wins), and the MachinePools by
/// namespace and `spec.clusterName` (again the first copy of each name only): one pass, so finding the clusters is
/// linear in the bundle, also when it holds many copies of one cluster.
struct Index<'a> {
    named: HashMap<(&'a str, &'a str, &'a str), &'a Document>,
    machine_pools: HashMap<(&'a str, &'a str), Vec<&'a Document>>,
}

/// `kind`, namespace (`default` when unset) and name of `doc`.
fn identity(doc: &Document) -> (&str, &str, &str) {
    (doc.kind(), doc.namespace().unwrap_or("default"), doc.name())
}

impl<'a> Index<'a> {
    fn new(documents: &'a [Document]) -> Self {
        let mut named = HashMap::with_capacity_and_hasher(documents.len(), Default::default());
        for doc in documents {
            named.entry(identity(doc)).or_insert(doc);
        }
        let mut index = Index { named, machine_pools: HashMap::default() };
        let mut machine_pools: HashMap<(&str, &str), Vec<&Document>> = HashMap::default();
        for doc in documents.iter().filter(|doc| identity(doc).0 == "MachinePool" && index.is_first_copy(doc)) {
            if let Some(cluster) = doc.value.str_at("/spec/clusterName") {
                machine_pools.entry((identity(doc).1, cluster)).or_default().push(doc);
            }
        }
        index.machine_pools = machine_pools;
        index
    }

    fn find(&self, kind: &str, name: &str, namespace: &str) -> Option<&'a Document> {
        self.named.get(&(kind, namespace, name)).copied()
    }

    /// Whether `doc` is the first document of its kind, namespace and name (the one every lookup finds).
    fn is_first_copy(&self, doc: &Document) -> bool {
        self.named.get(&identity(doc)).is_some_and(|first| std::ptr::eq(*first, doc))
    }

    /// The Clusters of the bundle, one per namespace and name: the first copy, as every lookup finds it.
    fn clusters(&self, documents: &'a [Document]) -> impl Iterator<Item = &'a Document> {
        documents.iter().filter(|doc| identity(doc).0 == "Cluster" && self.is_first_copy(doc))
    }
}

/// Every Cluster in `documents` whose `controlPlaneRef` is an AzureManagedControlPlane, with its objects; an error
/// for the first whose control plane or pools are not in `documents`. A Cluster defined more than once (same
/// namespace and name) is taken once, from its first copy, with the first copy of each of its objects.
pub fn find_classic_clusters(documents: &[Document]) -> Result<Vec<ClassicCluster<'_>>, TranslateError> {
    let index = Index::new(documents);
    let clusters: Vec<Option<ClassicCluster<'_>>> =
        index.clusters(documents).map(|cluster| classic_cluster(&index, cluster)).collect::<Result<_, _>>()?;
    Ok(clusters.into_iter().flatten().collect())
}

/// Like [`find_classic_clusters`], without the clusters whose objects are not all in `documents`.
pub fn complete_classic_clusters(documents: &[Document]) -> Vec<ClassicCluster<'_>> {
    let index = Index::new(documents);
    index.clusters(documents).filter_map(|cluster| classic_cluster(&index, cluster).ok().flatten()).collect()
}

/// The classic cluster of document `cluster`, if it is a Cluster whose control plane is an AzureManagedControlPlane.
fn classic_cluster<'a>(index: &Index<'a>, cluster: &'a Document) -> Result<Option<ClassicCluster<'a>>, TranslateError> {
    let (kind, namespace, cluster_name) = identity(cluster);
    if kind != "Cluster" || cluster.value.str_at("/spec/controlPlaneRef/kind") != Some("AzureManagedControlPlane") {
        return Ok(None);
    }
    let cp_name = cluster.value.str_at("/spec/controlPlaneRef/name").unwrap_or("");
    let control_plane =
        index.find("AzureManagedControlPlane", cp_name, namespace).ok_or_else(|| TranslateError::Incomplete {
            location: cluster.location_of("/spec/controlPlaneRef/name"),
            message: format!(
                "Cluster {}: AzureManagedControlPlane {namespace}/{cp_name} is not in the input",
                cluster.name()
            ),
        })?;
    let infra_cluster = cluster
        .value
        .str_at("/spec/infrastructureRef/name")
        .and_then(|name| index.find("AzureManagedCluster", name, namespace))
        .map(Cow::Borrowed);
    let mut pools = Vec::new();
    let machine_pools = index.machine_pools.get(&(namespace, cluster_name)).map_or(&[][..], Vec::as_slice);
    for machine_pool in machine_pools {
        let infra_ref = "/spec/template/spec/infrastructureRef";
        if machine_pool.value.str_at(&format!("{infra_ref}/kind")) != Some("AzureManagedMachinePool") {
            continue;
        }
        let name = machine_pool.value.str_at(&format!("{infra_ref}/name")).unwrap_or("");
        let pool =
            index.find("AzureManagedMachinePool", name, namespace).ok_or_else(|| TranslateError::Incomplete {
                location: machine_pool.location_of(&format!("{infra_ref}/name")),
                message: format!(
                    "MachinePool {}: AzureManagedMachinePool {namespace}/{name} is not in the input",
                    machine_pool.name()
                ),
            })?;
        pools.push((Cow::Borrowed(*machine_pool), Cow::Borrowed(pool)));
    }
    let identity = control_plane.value.str_at("/spec/identityRef/name").and_then(|name| {
        let identity_ns = control_plane.value.str_at("/spec/identityRef/namespace").unwrap_or(namespace);
        index.find("AzureClusterIdentity", name, identity_ns).map(Cow::Borrowed)
    });
    Ok(Some(ClassicCluster {
        cluster: Cow::Borrowed(cluster),
        control_plane: Cow::Borrowed(control_plane),
        infra_cluster,
        pools,
        identity,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;
    use crate::migrate::{put_placeholder_ssh_key, without_patches};

    /// A classic cluster with control plane patches and two pools (neither with patches).
    const CLUSTER: &str = include_str!("../../tests/fixtures/capz-translation/cases/42-cp-patch-order.yaml");

    #[test]
    fn found_clusters_borrow_the_bundle_and_copy_only_what_changes() {
        let borrowed = |doc: &Cow<'_, Document>| matches!(doc, Cow::Borrowed(_));
        let documents = parse_documents(CLUSTER, "c.yaml").unwrap();
        let [cluster] = &complete_classic_clusters(&documents)[..] else { panic!("one classic cluster") };
        assert!(borrowed(&cluster.cluster) && borrowed(&cluster.control_plane));
        assert!(cluster.infra_cluster.iter().chain(&cluster.identity).all(&borrowed));
        assert_eq!(cluster.pools.len(), 2);
        assert!(cluster.pools.iter().all(|(machine_pool, pool)| borrowed(machine_pool) && borrowed(pool)));
        // The documents found are the bundle's own, not equal copies.
        assert!(std::ptr::eq(&*cluster.control_plane, &documents[1]), "{:?}", cluster.control_plane.kind());

        // Stripping the patches copies the control plane only (the pools have none).
        let stripped = without_patches(cluster);
        assert!(!borrowed(&stripped.control_plane));
        assert!(stripped.control_plane.value["spec"].get("asoManagedClusterPatches").is_none());
        assert!(stripped.pools.iter().all(|(machine_pool, pool)| borrowed(machine_pool) && borrowed(pool)));
        assert!(borrowed(&stripped.cluster));

        // A missing key is left as it is, without a copy; an empty one is replaced in a copy.
        let mut keyed = cluster.clone();
        put_placeholder_ssh_key(&mut keyed);
        assert!(borrowed(&keyed.control_plane));
        let mut unkeyed = cluster.clone();
        unkeyed.control_plane.to_mut().value["spec"]["sshPublicKey"] = serde_json::json!("");
        put_placeholder_ssh_key(&mut unkeyed);
        assert_eq!(unkeyed.control_plane.value["spec"]["sshPublicKey"], "c3NoLXJzYSBwbGFjZWhvbGRlcg==");
        assert!(documents[1].value["spec"].get("sshPublicKey").is_none(), "the bundle's document is not changed");
    }
}
