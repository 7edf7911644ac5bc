//! The names a migration works on, discovered from the live classic cluster and recorded on the new namespace
//! (annotation [`super::MIGRATION`]) so that a re-run after the old objects are gone still knows them.

use serde::{Deserialize, Serialize};

use super::kinds::{self, Target};
use super::{Api, LiveError};
use crate::json_pointer::At;

/// Every name of one migration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    pub old_namespace: String,
    pub new_namespace: String,
    pub cluster: String,
    pub control_plane: String,
    pub infra_cluster: Option<String>,
    /// `(MachinePool, AzureManagedMachinePool)` names, in the order the pools are listed.
    pub pools: Vec<(String, String)>,
    pub resource_group: String,
    pub managed_cluster: String,
    pub agent_pools: Vec<String>,
    pub credential_secret: String,
}

impl Names {
    /// Reads the classic cluster `namespace/cluster` and names everything the migration touches. Fails when
    /// the cluster is not a classic one or an object the migration needs is missing.
    pub async fn discover(api: &Api, namespace: &str, cluster: &str, new_namespace: &str) -> Result<Names, LiveError> {
        let cluster_target = Target::new(kinds::CLUSTER, namespace, cluster);
        let live = api
            .get(&cluster_target)
            .await?
            .ok_or_else(|| LiveError::Precondition(format!("{cluster_target} does not exist")))?;
        if live.pointer("/spec/topology").is_some_and(|t| !t.is_null()) {
            return Err(LiveError::Precondition(format!(
                "{cluster_target} is drawn from a ClusterClass (spec.topology); only flat classic clusters migrate"
            )));
        }
        let cp_kind = live.str_at("/spec/controlPlaneRef/kind").unwrap_or("");
        if cp_kind != "AzureManagedControlPlane" {
            return Err(LiveError::Precondition(format!(
                "{cluster_target} is not a classic cluster: its spec.controlPlaneRef is {:?}, not an AzureManagedControlPlane",
                if cp_kind.is_empty() { "missing" } else { cp_kind }
            )));
        }
        let control_plane = live.str_at("/spec/controlPlaneRef/name").unwrap_or("").to_string();
        let cp_target = Target::new(kinds::AZURE_MANAGED_CONTROL_PLANE, namespace, &control_plane);
        let cp = api.get(&cp_target).await?.ok_or_else(|| {
            LiveError::Precondition(format!("{cp_target} (the Cluster's control plane) does not exist"))
        })?;
        let infra_cluster = match live.str_at("/spec/infrastructureRef/kind") {
            Some("AzureManagedCluster") => live.str_at("/spec/infrastructureRef/name").map(str::to_string),
            _ => None,
        };
        let mut pools = Vec::new();
        for machine_pool in api.list(kinds::MACHINE_POOL, namespace).await? {
            if machine_pool.str_at("/spec/clusterName") != Some(cluster) {
                continue;
            }
            let infra = "/spec/template/spec/infrastructureRef";
            if machine_pool.str_at(&format!("{infra}/kind")) != Some("AzureManagedMachinePool") {
                continue;
            }
            let name = machine_pool.str_at("/metadata/name").unwrap_or("").to_string();
            let pool = machine_pool.str_at(&format!("{infra}/name")).unwrap_or("").to_string();
            pools.push((name, pool));
        }
        let resource_group = cp.str_at("/spec/resourceGroupName").unwrap_or("").to_string();
        if resource_group.is_empty() {
            return Err(LiveError::Precondition(format!("{cp_target} has no spec.resourceGroupName")));
        }
        // CAPZ names its ASO objects after the CAPZ objects: ManagedCluster = control plane, pools = pools.
        let mc_target = Target::new(kinds::MANAGED_CLUSTER, namespace, &control_plane);
        let managed_cluster = api.get(&mc_target).await?.ok_or_else(|| {
            LiveError::Precondition(format!(
                "{mc_target} (the ASO object CAPZ manages the AKS cluster with) does not exist"
            ))
        })?;
        let credential_secret = managed_cluster
            .str_at(&format!("/metadata/annotations/{}", super::CREDENTIAL_FROM.replace('/', "~1")))
            .unwrap_or("")
            .to_string();
        if credential_secret.is_empty() {
            return Err(LiveError::Precondition(format!(
                "{mc_target} has no {} annotation: no ASO credential Secret to copy",
                super::CREDENTIAL_FROM
            )));
        }
        Ok(Names {
            old_namespace: namespace.to_string(),
            new_namespace: new_namespace.to_string(),
            cluster: cluster.to_string(),
            control_plane: control_plane.clone(),
            infra_cluster,
            agent_pools: pools.iter().map(|(_, pool)| pool.clone()).collect(),
            pools,
            resource_group,
            managed_cluster: control_plane,
            credential_secret,
        })
    }

    pub fn old(&self, kind: kinds::Kind, name: &str) -> Target {
        Target::new(kind, &self.old_namespace, name)
    }
    pub fn new_(&self, kind: kinds::Kind, name: &str) -> Target {
        Target::new(kind, &self.new_namespace, name)
    }

    /// The old ASO objects, in the order they are disarmed: agent pools, ManagedCluster, ResourceGroup.
    pub fn old_aso(&self) -> Vec<Target> {
        let mut targets: Vec<Target> = self.agent_pools.iter().map(|p| self.old(kinds::AGENT_POOL, p)).collect();
        targets.push(self.old(kinds::MANAGED_CLUSTER, &self.managed_cluster));
        targets.push(self.old(kinds::RESOURCE_GROUP, &self.resource_group));
        targets
    }

    /// The old CAPI/CAPZ objects, in the order CAPZ's procedure deletes them.
    pub fn old_capi(&self) -> Vec<Target> {
        let mut targets = vec![self.old(kinds::CLUSTER, &self.cluster)];
        if let Some(infra) = &self.infra_cluster {
            targets.push(self.old(kinds::AZURE_MANAGED_CLUSTER, infra));
        }
        targets.push(self.old(kinds::AZURE_MANAGED_CONTROL_PLANE, &self.control_plane));
        targets.extend(self.pools.iter().map(|(mp, _)| self.old(kinds::MACHINE_POOL, mp)));
        targets.extend(self.pools.iter().map(|(_, pool)| self.old(kinds::AZURE_MANAGED_MACHINE_POOL, pool)));
        targets
    }

    /// The old objects whose finalizers step 7 removes, in CAPZ's order: AzureManagedMachinePools,
    /// MachinePools, AzureManagedControlPlane, Cluster.
    pub fn old_finalizer_order(&self) -> Vec<Target> {
        let mut targets: Vec<Target> =
            self.pools.iter().map(|(_, pool)| self.old(kinds::AZURE_MANAGED_MACHINE_POOL, pool)).collect();
        targets.extend(self.pools.iter().map(|(mp, _)| self.old(kinds::MACHINE_POOL, mp)));
        targets.push(self.old(kinds::AZURE_MANAGED_CONTROL_PLANE, &self.control_plane));
        targets.push(self.old(kinds::CLUSTER, &self.cluster));
        targets
    }

    /// The objects CAPZ scaffolds for the adopted ManagedCluster: Cluster, AzureASOManagedCluster and
    /// AzureASOManagedControlPlane, each named after the ManagedCluster.
    pub fn new_scaffold(&self) -> Vec<Target> {
        [kinds::CLUSTER, kinds::ASO_MANAGED_CLUSTER, kinds::ASO_MANAGED_CONTROL_PLANE]
            .into_iter()
            .map(|k| self.new_(k, &self.managed_cluster))
            .collect()
    }

    /// The MachinePools and AzureASOManagedMachinePools CAPZ scaffolds, named after the agent pools.
    pub fn new_pool_scaffold(&self) -> Vec<Target> {
        let mut targets: Vec<Target> = self.agent_pools.iter().map(|p| self.new_(kinds::MACHINE_POOL, p)).collect();
        targets.extend(self.agent_pools.iter().map(|p| self.new_(kinds::ASO_MANAGED_MACHINE_POOL, p)));
        targets
    }

    /// Everything the migration creates in the new namespace, or CAPZ creates there for it.
    pub fn new_objects(&self) -> Vec<Target> {
        let mut targets = vec![
            self.new_(kinds::SECRET, &self.credential_secret),
            self.new_(kinds::RESOURCE_GROUP, &self.resource_group),
            self.new_(kinds::MANAGED_CLUSTER, &self.managed_cluster),
        ];
        targets.extend(self.agent_pools.iter().map(|p| self.new_(kinds::AGENT_POOL, p)));
        targets.extend(self.new_scaffold());
        targets.extend(self.new_pool_scaffold());
        targets
    }
}
