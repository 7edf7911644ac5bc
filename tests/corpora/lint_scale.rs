//! The CAPZ rules on a large bundle find exactly what they find on each of its parts: N copies of a small
//! multi-cluster fixture (AKS, aks-aso and topology Clusters, each broken in many ways) yield the findings of
//! every copy checked alone, shifted by the copy's line offset. Catches indexes in `lint::bundle` that mix up
//! objects across clusters (same names in other namespaces, same namespace with other names) or lose some.

use std::collections::BTreeSet;

use capz::lint::{RuleSelection, check};
use capz::manifest::parse_documents;
use capz::report::Finding;

/// One copy: `@N@` is replaced by a per-copy suffix (or a fixed one), `@NS@` by the namespace.
const FIXTURE: &str = r#"apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: aks-@N@, namespace: @NS@}
spec:
  clusterNetwork:
    services: {cidrBlocks: [10.0.0.0/16]}
    pods: {cidrBlocks: [192.168.0.0/16, 10.244.0.0/16]}
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: aks-@N@}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: aks-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: aks-@N@, namespace: @NS@}
spec:
  version: 1.33.2
  dnsPrefix: -bad
  dnsServiceIP: 10.0.0.53
  sshPublicKey: ""
  networkPlugin: kubenet
  networkPluginMode: overlay
  loadBalancerProfile: {idleTimeoutInMinutes: 3}
  apiServerAccessProfile: {authorizedIPRanges: [203.0.113.7]}
  autoscalerProfile: {scaleDownUtilizationThreshold: "2"}
  identity: {type: UserAssigned}
  securityProfile: {workloadIdentity: {enabled: true}}
  disableLocalAccounts: true
  virtualNetwork: {name: vnet-@N@, cidrBlock: 10.0.0.0/16, subnet: {name: s, cidrBlock: 10.240.0.0/16}}
  fleetsMember: {managerName: m, managerResourceGroup: rg, name: Member_@N@}
  extensions: [{name: flux, extensionType: microsoft.flux, version: 1.8.2}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: aks2-windows-@N@, namespace: @NS@, labels: {cluster.x-k8s.io/cluster-name: gone-@N@}}
spec:
  version: v1.33.2
  sshPublicKey: not-base64!
  aadProfile: {managed: true, adminGroupObjectIDs: []}
  extensions: [{name: flux, extensionType: microsoft.flux, scope: {scopeType: Cluster, releaseNamespace: flux}}]
  virtualNetwork:
    name: v
    subnet: {name: s, privateEndpoints: [{name: pe, privateLinkServiceConnections: [{privateLinkServiceID: x}]}]}
  asoManagedClusterPatches: ["spec: ["]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureClusterIdentity
metadata: {name: id-@N@, namespace: @NS@}
spec: {type: WorkloadIdentity, clientID: c, tenantID: t, resourceID: /x}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: pat-@N@, namespace: @NS@}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: pat-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: pat-@N@, namespace: @NS@}
spec:
  version: v1.33.2
  location: westeurope
  resourceGroupName: rg-pat-@N@
  subscriptionID: 00000000-0000-0000-0000-000000000000
  asoManagedClusterPatches:
  - '{"spec": {}}'
  - '{"spec": {"networkProfile": {"networkPlugin": "weird"}}}'
  - '{"spec": {"owner": {"name": "x"}}}'
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: pat-@N@-sys, namespace: @NS@}
spec:
  clusterName: pat-@N@
  replicas: 1
  template:
    spec:
      clusterName: pat-@N@
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: pat-@N@-sys}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: pat-@N@-sys, namespace: @NS@}
spec: {mode: System, name: sys, sku: Standard_D2s_v3}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: dot-@N@, namespace: @NS@}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: dot.@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: dot.@N@, namespace: @NS@}
spec:
  version: v1.33.2
  location: westeurope
  resourceGroupName: rg-dot-@N@
  dnsPrefix: dot-@N@
  subscriptionID: 00000000-0000-0000-0000-000000000000
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: dot-@N@-sys, namespace: @NS@}
spec:
  clusterName: dot-@N@
  replicas: 1
  template:
    spec:
      clusterName: dot-@N@
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: dot-@N@-sys}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: dot-@N@-sys, namespace: @NS@}
spec: {mode: System, name: sys, sku: Standard_D2s_v3}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: prev-@N@, namespace: @NS@}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: prev-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: prev-@N@, namespace: @NS@}
spec:
  version: v1.33.2
  location: westeurope
  resourceGroupName: rg-prev-@N@
  subscriptionID: 00000000-0000-0000-0000-000000000000
  enablePreviewFeatures: true
  asoManagedClusterPatches: ['{"metadata": {"labels": {"team": "a"}}}']
  extensions: [{name: flux, extensionType: microsoft.flux}, {name: flux, extensionType: microsoft.dapr}]
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: prev-@N@-sys, namespace: @NS@}
spec:
  clusterName: prev-@N@
  replicas: 1
  template:
    spec:
      clusterName: prev-@N@
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: prev-@N@-sys}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: prev-@N@-sys, namespace: @NS@}
spec: {mode: System, name: sys, sku: Standard_D2s_v3}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: aks-@N@-mp0, namespace: @NS@}
spec:
  clusterName: aks-@N@
  replicas: 1
  template:
    spec:
      clusterName: aks-@N@
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: aks-@N@-mp0}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: aks-@N@-mp0, namespace: @NS@}
spec:
  mode: User
  name: Pool-0
  sku: Standard_D2s_v3
  maxPods: 5
  nodeLabels: {kubernetes.azure.com/team: a}
  nodePublicIPPrefixID: /subscriptions/x/prefix
  subnetName: -bad
  kubeletConfig: {cpuCfsQuotaPeriod: "100", failSwapOn: true}
  linuxOSConfig: {swapFileSizeMB: 512}
  spotMaxPrice: cheap
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: aks-@N@-win, namespace: @NS@}
spec: {mode: System, name: win0, osType: Windows, sku: Standard_D2s_v3}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: aks-@N@-win, namespace: @NS@}
spec:
  clusterName: other-@N@
  replicas: 0
  template:
    spec:
      clusterName: other-@N@
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: aks-@N@-win}
---
apiVersion: v1
kind: Secret
metadata: {name: creds-@N@, namespace: @NS@}
stringData: {AZURE_CLIENT_ID: c}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: aso-@N@, namespace: @NS@}
spec:
  clusterNetwork:
    services: {cidrBlocks: [10.0.0.0/16]}
    pods: {cidrBlocks: [192.168.0.0/16]}
  controlPlaneRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedControlPlane, name: aso-@N@}
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedCluster, name: aso-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedCluster
metadata: {name: aso-@N@, namespace: @NS@}
spec:
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata:
      name: rg-@N@
      annotations: {serviceoperator.azure.com/credential-from: aso-credentials-@N@}
    spec: {location: westeurope}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: aso-@N@, namespace: @NS@}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata:
      name: aso-@N@
      annotations: {serviceoperator.azure.com/reconcile-policy: manage, serviceoperator.azure.com/credential-from: creds-@N@}
    spec:
      dnsPrefix: aso_@N@
      kubernetesVersion: 1.32.0
      autoScalerProfile: {max-total-unready-percentage: "101"}
      owner: {name: rg-other-@N@}
      networkProfile:
        serviceCidr: 10.1.0.0/16
        networkPlugin: kubenet
        networkPluginMode: overlay
        loadBalancerProfile: {managedOutboundIPs: {count: 1}, outboundIPs: {publicIPs: [{reference: {armId: /x}}]}}
      agentPoolProfiles: []
      securityProfile: {workloadIdentity: {enabled: true}}
      disableLocalAccounts: true
      operatorSpec:
        secrets:
          userCredentials: {name: aso-@N@-kubeconfig, key: value}
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: aso-@N@-windows}
    spec: {owner: {name: rg-@N@}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: aso-@N@-mp0
  namespace: @NS@
  annotations: {cluster.x-k8s.io/replicas-managed-by: external-autoscaler}
spec:
  clusterName: aso-@N@
  replicas: 2
  template:
    spec:
      clusterName: aso-@N@
      version: v1.33.2
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: aso-@N@-mp0}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: aso-@N@-mp0, namespace: @NS@}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: aso-@N@-mp0}
    spec:
      azureName: pool0
      mode: User
      owner: {name: aso-@N@}
      orchestratorVersion: 1.32.0
      enableAutoScaling: true
      count: 3
      maxPods: 5
      nodeLabels: {kubernetes.azure.com/x: y}
      nodePublicIPPrefixReference: {armId: /x}
      kubeletConfig: {cpuCfsQuotaPeriod: "100"}
      linuxOSConfig: {swapFileSizeMB: 1}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: aso-@N@-mp1, namespace: @NS@}
spec:
  clusterName: aso-@N@
  replicas: 1
  template:
    spec:
      clusterName: aso-@N@
      version: v1.33.2
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: aso-@N@-mp1}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: aso-@N@-mp1, namespace: @NS@}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: aso-@N@-mp1}
    spec: {azureName: winpool1, osType: Windows, mode: User, owner: {name: aso-@N@}, count: 5}
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: aso-@N@-mp2}
    spec: {mode: System, osType: Windows, owner: {name: aso-@N@-missing}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
kind: AzureASOManagedControlPlane
metadata: {name: aso2-@N@, namespace: @NS@}
spec:
  version: v1.33.2
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata: {name: aso2-@N@}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: topo-@N@, namespace: @NS@}
spec:
  topology:
    class: class-@N@
    version: v1.33.2
    workers:
      machinePools:
      - {class: worker, name: mp-0}
    variables: [{name: undefined, value: 1}]
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: class-@N@, namespace: @NS@}
spec:
  controlPlane:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp-@N@}
  infrastructure:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedClusterTemplate, name: ic-@N@}
  workers:
    machinePools:
    - class: worker
      template:
        bootstrap: {ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: boot-@N@}}
        infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: worker-@N@}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: class-rejected-@N@, namespace: @NS@}
spec:
  controlPlane:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp-@N@}
  infrastructure:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedClusterTemplate, name: ic-@N@}
  workers:
    machinePools:
    - class: worker
      template:
        bootstrap: {ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: boot-@N@}}
        infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: worker-@N@}}
  patches:
  - name: behind-its-ref
    definitions:
    - selector:
        apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
        kind: KubeadmConfigTemplate
        matchResources: {machinePoolClass: {names: [worker]}}
      jsonPatches: [{op: add, path: /spec/template/spec/files, value: []}]
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: topo-@N@-extra, namespace: @NS@}
spec:
  clusterName: topo-@N@
  template:
    spec:
      clusterName: topo-@N@
      version: v1.32.4
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: topo-@N@-extra}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: class-aso-@N@, namespace: @NS@}
spec:
  workers:
    machinePools:
    - class: pinned
      template:
        infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePoolTemplate, name: pinned-@N@}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePoolTemplate
metadata: {name: pinned-@N@, namespace: @NS@}
spec:
  template:
    spec:
      resources:
      - apiVersion: containerservice.azure.com/v1api20240901
        kind: ManagedClustersAgentPool
        metadata: {name: pinned}
        spec: {mode: User, orchestratorVersion: 1.33.2}
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata: {name: vnet-top-@N@, namespace: @NS@}
spec:
  location: westeurope
  owner: {name: rg-nowhere-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: cp-@N@, namespace: @NS@}
spec:
  template:
    spec:
      version: v1.33
      virtualNetwork: {name: shared-vnet, cidrBlock: 10.0.0.0/8}
      networkPlugin: kubenet
      networkPluginMode: overlay
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: worker-@N@, namespace: @NS@}
spec:
  template:
    spec: {mode: User, name: worker, sku: Standard_D2s_v3}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: md-@N@, namespace: @NS@}
spec:
  clusterName: aks-@N@
  template:
    spec:
      clusterName: aks-@N@
      bootstrap: {dataSecretName: md-@N@-data}
      infrastructureRef: {name: md-@N@}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: ver-@N@, namespace: @NS@}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: ver-@N@}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: ver-@N@, namespace: @NS@}
spec:
  version: v1.34.1
  autoUpgradeProfile: {upgradeChannel: stable}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ver-@N@-old, namespace: @NS@}
spec:
  clusterName: ver-@N@
  template:
    spec:
      version: v1.30.14
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: ver-@N@-old}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ver-@N@-new, namespace: @NS@}
spec:
  clusterName: ver-@N@
  template:
    spec:
      version: v1.37.0
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: ver-@N@-new}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: dup-@N@, namespace: @NS@}
data: {copy: first}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: dup-@N@, namespace: @NS@}
data: {copy: last}
"#;

fn copy(suffix: &str, namespace: &str) -> String {
    FIXTURE.replace("@N@", suffix).replace("@NS@", namespace)
}

fn findings(text: &str) -> Vec<Finding> {
    let documents = parse_documents(text, "bundle.yaml").expect("fixture parses");
    // The AKS version rules judge on the tests' day, never the wall clock.
    let day = capz::aks_versions::Date::parse(crate::support::AKS_TEST_DAY).unwrap();
    check(&documents, &RuleSelection::all().on_date(day))
}

/// Checks N copies as one bundle against each copy checked alone.
fn assert_bundle_equals_parts(copies: &[String]) {
    let place = regex::Regex::new(r"bundle\.yaml:(\d+)").unwrap();
    let mut bundle = String::new();
    let mut expected = Vec::new();
    for text in copies {
        let offset = bundle.lines().count();
        expected.extend(findings(text).into_iter().map(|mut finding| {
            finding.line += offset;
            // A message naming a place in the bundle (duplicate-object: where the other copies are) shifts too.
            finding.message = place
                .replace_all(&finding.message, |found: &regex::Captures<'_>| {
                    format!("bundle.yaml:{}", found[1].parse::<usize>().unwrap() + offset)
                })
                .into_owned();
            finding
        }));
        bundle.push_str(text);
        bundle.push_str("---\n");
    }
    let found = findings(&bundle);
    assert_eq!(found.len(), expected.len(), "number of findings");
    for (index, (found, expected)) in found.iter().zip(&expected).enumerate() {
        assert_eq!(found, expected, "finding {index}");
    }
}

#[test]
fn one_copy_fires_most_rules() {
    let found = findings(&copy("0", "ns-0"));
    let fired: BTreeSet<&str> = found.iter().map(|f| f.rule.as_str()).collect();
    // The rules of a change review judge an old and a new object, never one bundle.
    let all: BTreeSet<&str> =
        capz::lint::rules().iter().filter(|rule| !rule.judges_a_change()).map(|rule| rule.id).collect();
    // aso-patched-object-unchecked fires only when the ManagedCluster / agent pool CAPZ creates is of an API version
    // the target has no schema for; CAPZ's translation writes v1api20250801, or v20251002preview with
    // enablePreviewFeatures, and every supported target serves both (checked here), so no fixture can fire it.
    let unreachable = "aso-patched-object-unchecked";
    for target in capz::versions::TARGETS {
        let registry = capz::schema::Registry::for_target(target);
        for version in ["v1api20250801", "v20251002preview"] {
            for kind in ["ManagedCluster", "ManagedClustersAgentPool"] {
                let gvk = capz::schema::Gvk::new("containerservice.azure.com", version, kind);
                assert!(
                    registry.get(&gvk).unwrap().is_some(),
                    "{} lacks {gvk}: {unreachable} is reachable",
                    target.name
                );
            }
        }
    }
    let silent: Vec<&&str> = all.difference(&fired).filter(|rule| **rule != unreachable).collect();
    // The fixture is meant to exercise every rule, so that the copies below compare something.
    assert!(silent.is_empty(), "rules the fixture does not fire: {silent:?}");
}

#[test]
fn distinct_names_and_namespaces() {
    let copies: Vec<String> = (0..100).map(|i| copy(&format!("{i:03}"), &format!("ns-{i:03}"))).collect();
    assert_bundle_equals_parts(&copies);
}

#[test]
fn same_names_in_distinct_namespaces() {
    let copies: Vec<String> = (0..100).map(|i| copy("x", &format!("ns-{i:03}"))).collect();
    assert_bundle_equals_parts(&copies);
}

#[test]
fn distinct_names_in_one_namespace() {
    let copies: Vec<String> = (0..100).map(|i| copy(&format!("{i:03}"), "shared")).collect();
    assert_bundle_equals_parts(&copies);
}
