//! User values CAPZ's mutators would overwrite and therefore reject: mirrors `setManagedClusterKubernetesVersion`,
//! `setManagedClusterServiceCIDR`, `setManagedClusterPodCIDR` (pkg/mutators/azureasomanagedcontrolplane.go),
//! `setAgentPoolOrchestratorVersion` and `setAgentPoolCount` (pkg/mutators/azureasomanagedmachinepool.go).

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CONTAINERSERVICE_GROUP, REPLICAS_MANAGED_BY, spec_root};

pub(crate) const KUBERNETES_VERSION_MISMATCH: &str = "capz-kubernetes-version-mismatch";
pub(crate) const ORCHESTRATOR_VERSION_MISMATCH: &str = "capz-orchestrator-version-mismatch";
pub(crate) const NETWORK_CIDR_MISMATCH: &str = "capz-network-cidr-mismatch";
pub(crate) const AGENT_POOL_COUNT_MISMATCH: &str = "capz-agent-pool-count-mismatch";
pub(crate) const AUTOSCALED_POOL_COUNT: &str = "capz-autoscaled-pool-count";
pub(crate) const AUTOSCALING_REPLICAS_MANAGER: &str = "capz-autoscaling-replicas-manager";

/// `infrav1.ReplicasManagedByAKS`: the replicas-managed-by value of AKS's own autoscaler.
const REPLICAS_MANAGED_BY_AKS: &str = "aks";

/// CAPZ's `strings.TrimPrefix(version, "v")`.
pub(crate) fn trim_v(version: &str) -> &str {
    version.strip_prefix('v').unwrap_or(version)
}

fn first<'a>(objects: &[AsoObject<'a>], kind: &str) -> Option<AsoObject<'a>> {
    objects.iter().copied().find(|object| object.is(CONTAINERSERVICE_GROUP, kind))
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[
        KUBERNETES_VERSION_MISMATCH,
        ORCHESTRATOR_VERSION_MISMATCH,
        NETWORK_CIDR_MISMATCH,
        AGENT_POOL_COUNT_MISMATCH,
        AUTOSCALED_POOL_COUNT,
        AUTOSCALING_REPLICAS_MANAGER,
    ]) {
        return;
    }
    check_control_planes(bundle, sink);
    check_machine_pools(bundle, sink);
}

/// What CAPZ sets on each ManagedCluster from its control plane and Cluster: the Kubernetes version and the
/// service and pod CIDRs.
fn check_control_planes(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.capz(&["AzureASOManagedControlPlane", "AzureASOManagedControlPlaneTemplate"]) {
        let Some(cluster) = first(bundle.embedded(index), "ManagedCluster") else {
            continue;
        };
        let version_pointer = format!("{}/version", spec_root(doc));
        let capz_version = doc.value.str_at(&version_pointer).map(trim_v).unwrap_or("");
        if !capz_version.is_empty()
            && let Some(user) = cluster.value.str_at("/spec/kubernetesVersion")
            && user != capz_version
        {
            sink.emit(
                KUBERNETES_VERSION_MISMATCH,
                index,
                &cluster.pointer("/spec/kubernetesVersion"),
                format!(
                    "kubernetesVersion {user:?} conflicts with {version_pointer} ({:?}): CAPZ sets it to {capz_version:?} \
                     and fails with an Incompatible error. Remove kubernetesVersion or set it to {capz_version:?}",
                    doc.value.str_at(&version_pointer).unwrap_or("")
                ),
            );
        }
        if doc.kind() == "AzureASOManagedControlPlane"
            && let Some(owner) = bundle.cluster_for_control_plane(index)
        {
            let owner_doc = &bundle.docs[owner];
            for (network, field) in [("services", "serviceCidr"), ("pods", "podCidr")] {
                let capi = owner_doc.value.str_at(&format!("/spec/clusterNetwork/{network}/cidrBlocks/0"));
                let pointer = format!("/spec/networkProfile/{field}");
                if let (Some(capi), Some(user)) = (capi, cluster.value.str_at(&pointer))
                    && capi != user
                {
                    sink.emit(
                        NETWORK_CIDR_MISMATCH,
                        index,
                        &cluster.pointer(&pointer),
                        format!(
                            "networkProfile.{field} {user:?} conflicts with Cluster {:?} \
                             spec.clusterNetwork.{network}.cidrBlocks[0] ({capi:?}): CAPZ sets it from the Cluster and \
                             fails with an Incompatible error. Remove {field} or set it to {capi:?}",
                            owner_doc.name()
                        ),
                    );
                }
            }
        }
    }
}

/// What CAPZ sets on each agent pool from its MachinePool: the orchestrator version, the count, and who manages
/// the replicas of an autoscaled pool.
fn check_machine_pools(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, _) in bundle.capz(&["AzureASOManagedMachinePool"]) {
        let Some(pool) = first(bundle.embedded(index), "ManagedClustersAgentPool") else {
            continue;
        };
        let Some(machine_pool) = bundle.machine_pool_for_infra(index) else {
            continue;
        };
        let machine_pool = &bundle.docs[machine_pool];
        let mp_version = machine_pool.value.str_at("/spec/template/spec/version").unwrap_or("");
        if !mp_version.is_empty()
            && let Some(user) = pool.value.str_at("/spec/orchestratorVersion")
            && user != trim_v(mp_version)
        {
            let want = trim_v(mp_version);
            sink.emit(
                ORCHESTRATOR_VERSION_MISMATCH,
                index,
                &pool.pointer("/spec/orchestratorVersion"),
                format!(
                    "orchestratorVersion {user:?} conflicts with MachinePool {:?} spec.template.spec.version \
                     ({mp_version:?}): CAPZ sets it to {want:?} and fails with an Incompatible error. Remove \
                     orchestratorVersion or set it to {want:?}",
                    machine_pool.name()
                ),
            );
        }
        let replicas = machine_pool.value.i64_at("/spec/replicas");
        let pool_autoscaling = pool.value.bool_at("/spec/enableAutoScaling") == Some(true);
        let manager =
            machine_pool.value.at("/metadata/annotations").and_then(|annotations| annotations.get(REPLICAS_MANAGED_BY));
        if pool_autoscaling
            && let Some(manager) = manager
            && manager.as_str() != Some(REPLICAS_MANAGED_BY_AKS)
        {
            sink.emit(
                AUTOSCALING_REPLICAS_MANAGER,
                index,
                &pool.pointer("/spec/enableAutoScaling"),
                format!(
                    "enableAutoScaling is true but MachinePool {:?} says its replicas are managed by {manager}; \
                     CAPZ refuses to enable AKS autoscaling then. Remove the {REPLICAS_MANAGED_BY} annotation (CAPZ \
                     sets it to \"aks\") or turn enableAutoScaling off",
                    machine_pool.name()
                ),
            );
        }
        let autoscaled = pool_autoscaling || manager.is_some();
        let count = pool.value.i64_at("/spec/count");
        if let (Some(replicas), Some(count)) = (replicas, count)
            && replicas != count
        {
            let (rule, message) = if autoscaled {
                (
                    AUTOSCALED_POOL_COUNT,
                    format!(
                        "count {count} differs from MachinePool {:?} spec.replicas ({replicas}): the pool is \
                         autoscaled, but until the agent pool exists CAPZ still seeds count from replicas and \
                         fails with an Incompatible error. Remove count",
                        machine_pool.name()
                    ),
                )
            } else {
                (
                    AGENT_POOL_COUNT_MISMATCH,
                    format!(
                        "count {count} conflicts with MachinePool {:?} spec.replicas ({replicas}): CAPZ sets it \
                         from the MachinePool and fails with an Incompatible error. Remove count (set replicas on \
                         the MachinePool)",
                        machine_pool.name()
                    ),
                )
            };
            sink.emit(rule, index, &pool.pointer("/spec/count"), message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, findings_of, ids};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(
            yaml,
            &[
                KUBERNETES_VERSION_MISMATCH,
                ORCHESTRATOR_VERSION_MISMATCH,
                NETWORK_CIDR_MISMATCH,
                AGENT_POOL_COUNT_MISMATCH,
                AUTOSCALING_REPLICAS_MANAGER,
            ],
        )
    }

    const CONTROL_PLANE: &str = "apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: c1, namespace: ns}
spec:
  clusterNetwork:
    services: {cidrBlocks: [10.0.0.0/16]}
    pods: {cidrBlocks: [192.168.0.0/16]}
  controlPlaneRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedControlPlane, name: c1}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1, namespace: ns}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: c1}
    spec:
      KEY: VALUE
";

    fn control_plane(key: &str, value: &str) -> String {
        CONTROL_PLANE.replace("KEY", key).replace("VALUE", value)
    }

    #[test]
    fn matching_or_absent_values_pass() {
        assert!(findings(&control_plane("location", "westeurope")).is_empty());
        assert!(findings(&control_plane("kubernetesVersion", "1.33.2")).is_empty());
        assert!(
            findings(&control_plane("networkProfile", "{serviceCidr: 10.0.0.0/16, podCidr: 192.168.0.0/16}"))
                .is_empty()
        );
    }

    #[test]
    fn kubernetes_version_keeps_no_v() {
        for user in ["v1.33.2", "1.33.1"] {
            let found = findings(&control_plane("kubernetesVersion", user));
            assert_eq!(ids(&found), [KUBERNETES_VERSION_MISMATCH], "{user}");
            assert_eq!(found[0].path, "/spec/resources/0/spec/kubernetesVersion");
            assert_eq!(found[0].object, "AzureASOManagedControlPlane/c1");
        }
    }

    #[test]
    fn empty_control_plane_version_allows_any_kubernetes_version() {
        let yaml = control_plane("kubernetesVersion", "1.30.0").replace("version: v1.33.2", "version: \"\"");
        assert!(findings(&yaml).is_empty());
    }

    #[test]
    fn cidrs_must_match_the_cluster() {
        let found = findings(&control_plane("networkProfile", "{serviceCidr: 10.1.0.0/16, podCidr: 10.244.0.0/16}"));
        assert_eq!(ids(&found), [NETWORK_CIDR_MISMATCH, NETWORK_CIDR_MISMATCH]);
        let paths: Vec<_> = found.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/spec/resources/0/spec/networkProfile/podCidr", "/spec/resources/0/spec/networkProfile/serviceCidr"]
        );
        // Cluster in another namespace: not this control plane's Cluster.
        let elsewhere = control_plane("networkProfile", "{serviceCidr: 10.1.0.0/16}").replacen(
            "namespace: ns",
            "namespace: other",
            1,
        );
        assert!(findings(&elsewhere).is_empty());
    }

    const POOL: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: c1-pool0
  ANNOTATIONS
spec:
  clusterName: c1
  replicas: 2
  template:
    spec:
      bootstrap: {dataSecretName: \"\"}
      clusterName: c1
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: c1-pool0}
      version: v1.33.2
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: c1-pool0}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: c1-pool0}
    spec:
      azureName: pool0
      POOLSPEC
";

    fn pool(annotations: &str, spec: &str) -> String {
        POOL.replace("ANNOTATIONS", annotations).replace("POOLSPEC", spec)
    }

    #[test]
    fn agent_pool_values_from_the_machine_pool() {
        assert!(findings(&pool("", "count: 2")).is_empty());
        assert!(findings(&pool("", "orchestratorVersion: 1.33.2")).is_empty());

        let found = findings(&pool("", "count: 3"));
        assert_eq!(ids(&found), [AGENT_POOL_COUNT_MISMATCH]);
        assert_eq!(found[0].path, "/spec/resources/0/spec/count");
        assert_eq!(found[0].line, 26);

        let found = findings(&pool("", "orchestratorVersion: v1.33.2"));
        assert_eq!(ids(&found), [ORCHESTRATOR_VERSION_MISMATCH]);
    }

    #[test]
    fn autoscaled_pools_are_exempt_from_the_count_error_but_warned() {
        let spec = "enableAutoScaling: true\n      count: 5";
        assert!(findings(&pool("", spec)).is_empty());
        let annotated = pool("annotations: {cluster.x-k8s.io/replicas-managed-by: external-autoscaler}", "count: 5");
        assert!(findings(&annotated).is_empty());
        let warned = findings_of(&pool("", spec), AUTOSCALED_POOL_COUNT);
        assert_eq!(warned.len(), 1);
        assert_eq!(warned[0].severity, crate::report::Severity::Warning);
        let same = pool("", "enableAutoScaling: true\n      count: 2");
        assert!(findings_of(&same, AUTOSCALED_POOL_COUNT).is_empty());
        assert!(findings_of(&pool("", "count: 5"), AUTOSCALED_POOL_COUNT).is_empty());
    }

    #[test]
    fn autoscaling_needs_aks_as_replica_manager() {
        let spec = "enableAutoScaling: true";
        let aks = pool("annotations: {cluster.x-k8s.io/replicas-managed-by: aks}", spec);
        assert!(findings(&aks).is_empty());
        assert!(findings(&pool("", spec)).is_empty(), "CAPZ adds the annotation itself");
        let other = "annotations: {cluster.x-k8s.io/replicas-managed-by: cluster-autoscaler}";
        let found = findings(&pool(other, spec));
        assert_eq!(ids(&found), [AUTOSCALING_REPLICAS_MANAGER]);
        assert_eq!(found[0].path, "/spec/resources/0/spec/enableAutoScaling");
        // Without AKS autoscaling, an external autoscaler may own the replicas.
        assert!(findings(&pool(other, "count: 9")).is_empty());
    }

    #[test]
    fn unset_replicas_leave_count_alone() {
        let yaml = pool("", "count: 7").replace("  replicas: 2\n", "");
        assert!(findings(&yaml).is_empty());
    }
}
