//! Finds the classic clusters of a manifest bundle: each Cluster whose control plane is an
//! AzureManagedControlPlane, with its AzureManagedCluster, MachinePools, AzureManagedMachinePools and identity.

use crate::manifest::Document;

use super::{TranslateError, str_at};

/// One classic (AzureManagedControlPlane-based) cluster and the objects that make it up.
#[derive(Debug, Clone)]
pub struct ClassicCluster {
    pub cluster: Document,
    pub control_plane: Document,
    pub infra_cluster: Option<Document>,
    /// Each MachinePool of the Cluster with the AzureManagedMachinePool it references, in file order.
    pub pools: Vec<(Document, Document)>,
    /// The AzureClusterIdentity named by `spec.identityRef`, when it is in the bundle.
    pub identity: Option<Document>,
}

impl ClassicCluster {
    /// The namespace every object of the cluster lives in (`default` when unset).
    pub fn namespace(&self) -> &str {
        self.cluster.namespace().unwrap_or("default")
    }
    /// The Cluster's name.
    pub fn name(&self) -> &str {
        self.cluster.name()
    }
}

fn same_namespace(doc: &Document, namespace: &str) -> bool {
    doc.namespace().unwrap_or("default") == namespace
}

fn find<'a>(documents: &'a [Document], kind: &str, name: &str, namespace: &str) -> Option<&'a Document> {
    documents.iter().find(|doc| doc.kind() == kind && doc.name() == name && same_namespace(doc, namespace))
}

/// Every Cluster in `documents` whose `controlPlaneRef` is an AzureManagedControlPlane, with its objects.
pub fn find_classic_clusters(documents: &[Document]) -> Result<Vec<ClassicCluster>, TranslateError> {
    let mut found = Vec::new();
    for cluster in documents.iter().filter(|doc| doc.kind() == "Cluster") {
        if str_at(&cluster.value, "/spec/controlPlaneRef/kind") != Some("AzureManagedControlPlane") {
            continue;
        }
        let namespace = cluster.namespace().unwrap_or("default");
        let cp_name = str_at(&cluster.value, "/spec/controlPlaneRef/name").unwrap_or("");
        let control_plane = find(documents, "AzureManagedControlPlane", cp_name, namespace).ok_or_else(|| {
            TranslateError::Incomplete {
                location: cluster.location_of("/spec/controlPlaneRef/name"),
                message: format!(
                    "Cluster {}: AzureManagedControlPlane {namespace}/{cp_name} is not in the input",
                    cluster.name()
                ),
            }
        })?;
        let infra_cluster = str_at(&cluster.value, "/spec/infrastructureRef/name")
            .and_then(|name| find(documents, "AzureManagedCluster", name, namespace))
            .cloned();
        let mut pools = Vec::new();
        for machine_pool in documents.iter().filter(|doc| {
            doc.kind() == "MachinePool"
                && same_namespace(doc, namespace)
                && str_at(&doc.value, "/spec/clusterName") == Some(cluster.name())
        }) {
            let infra_ref = "/spec/template/spec/infrastructureRef";
            if str_at(&machine_pool.value, &format!("{infra_ref}/kind")) != Some("AzureManagedMachinePool") {
                continue;
            }
            let name = str_at(&machine_pool.value, &format!("{infra_ref}/name")).unwrap_or("");
            let pool = find(documents, "AzureManagedMachinePool", name, namespace).ok_or_else(|| {
                TranslateError::Incomplete {
                    location: machine_pool.location_of(&format!("{infra_ref}/name")),
                    message: format!(
                        "MachinePool {}: AzureManagedMachinePool {namespace}/{name} is not in the input",
                        machine_pool.name()
                    ),
                }
            })?;
            pools.push((machine_pool.clone(), pool.clone()));
        }
        let identity = str_at(&control_plane.value, "/spec/identityRef/name").and_then(|name| {
            let identity_ns = str_at(&control_plane.value, "/spec/identityRef/namespace").unwrap_or(namespace);
            find(documents, "AzureClusterIdentity", name, identity_ns).cloned()
        });
        found.push(ClassicCluster {
            cluster: cluster.clone(),
            control_plane: control_plane.clone(),
            infra_cluster,
            pools,
            identity,
        });
    }
    Ok(found)
}
