//! The fields of CAPI/CAPZ objects that controllers write, not Git: `diff` leaves them out and the GitOps
//! objects of a fleet tell Argo CD (and Flux) to leave them alone.

/// ASO's reconcile-policy annotation, which CAPZ sets to `skip` while a Cluster is paused.
pub const RECONCILE_POLICY: &str = "serviceoperator.azure.com/reconcile-policy";
/// CAPI's annotation saying an external autoscaler owns a MachinePool's replicas.
pub const REPLICAS_MANAGED_BY: &str = "cluster.x-k8s.io/replicas-managed-by";

/// API group of CAPZ's infrastructure objects.
pub const INFRA_GROUP: &str = "infrastructure.cluster.x-k8s.io";
/// CAPZ's objects whose `spec.resources` embed ASO objects.
pub const ASO_WRAPPERS: &[&str] =
    &["AzureASOManagedCluster", "AzureASOManagedControlPlane", "AzureASOManagedMachinePool"];
/// ASO's AKS API group.
pub const CONTAINERSERVICE: &str = "containerservice.azure.com";

/// What an autoscaler (AKS, through CAPZ) writes into a MachinePool whose replicas it manages: the
/// replicas and the annotation naming the manager.
pub const AUTOSCALED_MACHINE_POOL_PATHS: &[&[&str]] =
    &[&["spec", "replicas"], &["metadata", "annotations", REPLICAS_MANAGED_BY]];

/// Whether `group`/`kind` is a CAPZ AzureASOManaged{Cluster,ControlPlane,MachinePool}, whose
/// `spec.resources` embed ASO objects.
pub fn is_aso_wrapper_kind(group: &str, kind: &str) -> bool {
    group == INFRA_GROUP && ASO_WRAPPERS.contains(&kind)
}

/// The fields of an ASO object that CAPZ's mutators write (`pkg/mutators`): the ManagedCluster's
/// kubernetesVersion, service/pod CIDRs and admin-credentials Secret, an agent pool's
/// orchestratorVersion and count. `live_aso` adds agentPoolProfiles, which CAPZ fills in only on
/// the live ManagedCluster it creates (in Git it must stay unset).
pub fn capz_managed_paths(group: &str, kind: &str, live_aso: bool) -> Vec<&'static [&'static str]> {
    let mut paths: Vec<&'static [&'static str]> = Vec::new();
    if group == CONTAINERSERVICE && kind == "ManagedCluster" {
        paths.extend([
            &["spec", "kubernetesVersion"][..],
            &["spec", "networkProfile", "serviceCidr"][..],
            &["spec", "networkProfile", "podCidr"][..],
            &["spec", "operatorSpec", "secrets", "adminCredentials"][..],
        ]);
        if live_aso {
            paths.push(&["spec", "agentPoolProfiles"][..]);
        }
    }
    if group == CONTAINERSERVICE && kind == "ManagedClustersAgentPool" {
        paths.extend([&["spec", "orchestratorVersion"][..], &["spec", "count"][..]]);
    }
    if group.ends_with(".azure.com") {
        paths.push(&["metadata", "annotations", RECONCILE_POLICY][..]);
    }
    paths
}
