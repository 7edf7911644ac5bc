#!/usr/bin/env python3
# Writes tests/fixtures/capi-topology/cases-v1.14/*.yaml: cases about what changed between CAPI v1.10 and
# v1.14 (v1beta2 ClusterClass / Cluster shapes, v1beta2 health checks, rollout, deletion, taints,
# kubernetesVersions, v1beta2 kubeadm templates behind v1beta1 classes, CAPZ's AzureASOManaged* kinds).
# Only the v1.14.2 referee runs them (v1.10 has no v1beta2). v114-* valid, x114-* invalid.
# The files are committed; rerun after editing, then regen.sh. Needs PyYAML.
import copy, os
import yaml
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "capi-topology", "cases-v1.14")
os.makedirs(OUT, exist_ok=True)
NS = "ns1"
INFRA = "infrastructure.cluster.x-k8s.io/v1beta1"
BOOT2 = "bootstrap.cluster.x-k8s.io/v1beta2"
BOOT1 = "bootstrap.cluster.x-k8s.io/v1beta1"
CP2 = "controlplane.cluster.x-k8s.io/v1beta2"
CAPI2 = "cluster.x-k8s.io/v1beta2"
CAPI1 = "cluster.x-k8s.io/v1beta1"

def tref(av, kind, name): return {"templateRef": {"apiVersion": av, "kind": kind, "name": name}}
def ref(av, kind, name): return {"ref": {"apiVersion": av, "kind": kind, "name": name}}
def tmpl(av, kind, name, spec): return {"apiVersion": av, "kind": kind, "metadata": {"name": name, "namespace": NS}, "spec": {"template": {"spec": spec}}}

def aks_class():
    """A v1beta2 ClusterClass over CAPZ's AKS kinds with a MachineDeployment and a MachinePool class."""
    return {"apiVersion": CAPI2, "kind": "ClusterClass", "metadata": {"name": "demo", "namespace": NS},
      "spec": {
        "controlPlane": tref(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp"),
        "infrastructure": tref(INFRA, "AzureManagedClusterTemplate", "demo-infra"),
        "workers": {
          "machineDeployments": [{"class": "md",
             "bootstrap": tref(BOOT2, "KubeadmConfigTemplate", "demo-md-bootstrap"),
             "infrastructure": tref(INFRA, "AzureMachineTemplate", "demo-md-infra")}],
          "machinePools": [{"class": "pool",
             "bootstrap": tref(BOOT2, "KubeadmConfigTemplate", "demo-pool-bootstrap"),
             "infrastructure": tref(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool")}]}}}

def aks_templates(boot=BOOT2):
    return [
      tmpl(INFRA, "AzureManagedClusterTemplate", "demo-infra", {}),
      tmpl(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp", {"location": "westeurope", "dnsServiceIP": "10.0.0.10", "sku": {"tier": "Free"}, "additionalTags": {"base": "yes"}}),
      tmpl(boot, "KubeadmConfigTemplate", "demo-md-bootstrap", {"joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": [{"name": "cloud-provider", "value": "external"}]}}} if boot == BOOT2 else {"joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": {"cloud-provider": "external"}}}}),
      tmpl(INFRA, "AzureMachineTemplate", "demo-md-infra", {"vmSize": "Standard_D2s_v3", "osDisk": {"diskSizeGB": 128, "osType": "Linux"}}),
      tmpl(boot, "KubeadmConfigTemplate", "demo-pool-bootstrap", {}),
      tmpl(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool", {"mode": "System", "sku": "Standard_D2s_v3", "osDiskSizeGB": 128}),
    ]

def cluster():
    return {"apiVersion": CAPI2, "kind": "Cluster", "metadata": {"name": "c1", "namespace": NS},
      "spec": {"clusterNetwork": {"pods": {"cidrBlocks": ["192.168.0.0/16"]}, "services": {"cidrBlocks": ["10.0.0.0/16"]}},
        "topology": {"classRef": {"name": "demo"}, "version": "v1.31.2",
          "workers": {"machineDeployments": [{"class": "md", "name": "md-0", "replicas": 2}],
                      "machinePools": [{"class": "pool", "name": "mp-0", "replicas": 1}]}}}}

def kcp_class():
    """A v1beta2 ClusterClass with a KubeadmControlPlane (v1beta2 contract) and machine infrastructure."""
    c = aks_class()
    c["spec"]["controlPlane"] = dict(tref(CP2, "KubeadmControlPlaneTemplate", "demo-kcp"),
                                     machineInfrastructure=tref(INFRA, "AzureMachineTemplate", "demo-cp-machine"))
    c["spec"]["infrastructure"] = tref(INFRA, "AzureClusterTemplate", "demo-azure")
    t = [x for x in aks_templates() if x["kind"] not in ("AzureManagedControlPlaneTemplate", "AzureManagedClusterTemplate")]
    t += [tmpl(CP2, "KubeadmControlPlaneTemplate", "demo-kcp", {"kubeadmConfigSpec": {"preKubeadmCommands": ["echo start"]}}),
          tmpl(INFRA, "AzureMachineTemplate", "demo-cp-machine", {"vmSize": "Standard_D4s_v3", "osDisk": {"diskSizeGB": 128, "osType": "Linux"}}),
          tmpl(INFRA, "AzureClusterTemplate", "demo-azure", {"location": "westeurope"})]
    return c, t

def write(name, cls, k, templates=None, comment=""):
    docs = [cls] + (templates if templates is not None else aks_templates()) + [k]
    with open(os.path.join(OUT, name + ".yaml"), "w") as f:
        for line in comment.strip().splitlines():
            f.write("# " + line + "\n")
        f.write(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False))

# ---------- valid ----------
write("v114-01-v1beta2-basic", aks_class(), cluster(), comment="v1beta2 ClusterClass (templateRef) and Cluster (classRef): a MachineDeployment and a MachinePool.")

c = aks_class(); k = cluster()
c["spec"]["infrastructure"]["naming"] = {"template": "{{ .cluster.name }}-infra-{{ .random }}"}
c["spec"]["controlPlane"]["naming"] = {"template": "{{ .cluster.name }}-cp"}
c["spec"]["workers"]["machineDeployments"][0]["naming"] = {"template": "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-x-{{ .random }}"}
c["spec"]["workers"]["machinePools"][0]["naming"] = {"template": "{{ .cluster.name }}-{{ .machinePool.topologyName }}"}
write("v114-02-v1beta2-naming", c, k, comment="v1beta2 naming templates (naming.template) for every object kind.")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0].update({"rollout": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}},
    "deletion": {"order": "Oldest", "nodeDrainTimeoutSeconds": 60}, "minReadySeconds": 10, "readinessGates": [{"conditionType": "ClassGate"}], "failureDomain": "1"})
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2},
    {"class": "md", "name": "md-1", "replicas": 3, "rollout": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%"}}},
     "deletion": {"order": "Newest", "nodeDeletionTimeoutSeconds": 30, "nodeVolumeDetachTimeoutSeconds": 90}, "minReadySeconds": 5,
     "readinessGates": [{"conditionType": "TopoGate", "polarity": "Negative"}], "failureDomain": "2"}]
write("v114-03-v1beta2-md-rollout-deletion", c, k, comment="v1beta2 MachineDeployment rollout, deletion order and timeouts, readinessGates, failureDomain: class and topology.")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machinePools"][0].update({"deletion": {"nodeDrainTimeoutSeconds": 120}, "minReadySeconds": 15, "failureDomains": ["1", "2"]})
k["spec"]["topology"]["workers"]["machinePools"] = [
    {"class": "pool", "name": "mp-0", "replicas": 1},
    {"class": "pool", "name": "mp-1", "replicas": 2, "deletion": {"nodeDeletionTimeoutSeconds": 45, "nodeVolumeDetachTimeoutSeconds": 30}, "minReadySeconds": 20, "failureDomains": ["3"]}]
write("v114-04-v1beta2-mp-fields", c, k, comment="v1beta2 MachinePool deletion timeouts, minReadySeconds, failureDomains: class and topology.")

c, t = kcp_class(); k = cluster()
c["spec"]["controlPlane"].update({"metadata": {"labels": {"cp-class": "x"}}, "deletion": {"nodeDrainTimeoutSeconds": 300}, "readinessGates": [{"conditionType": "CpClassGate"}]})
k["spec"]["topology"]["controlPlane"] = {"replicas": 3, "metadata": {"labels": {"cp-topo": "topo"}, "annotations": {"a": "b"}},
    "deletion": {"nodeVolumeDetachTimeoutSeconds": 600, "nodeDeletionTimeoutSeconds": 10}, "readinessGates": [{"conditionType": "CpTopoGate"}]}
write("v114-05-v1beta2-kcp-control-plane", c, k, t, comment="v1beta2 KubeadmControlPlane (v1beta2 contract): replicas, metadata, deletion timeouts, readinessGates.")

c, t = kcp_class(); k = cluster()
c["spec"]["controlPlane"]["healthCheck"] = {"checks": {"nodeStartupTimeoutSeconds": 900, "unhealthyNodeConditions": [{"type": "Ready", "status": "Unknown", "timeoutSeconds": 300}]},
    "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}}
c["spec"]["workers"]["machineDeployments"][0]["healthCheck"] = {"checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]},
    "remediation": {"maxInFlight": 2, "triggerIf": {"unhealthyInRange": "[0-2]"}}}
k["spec"]["topology"]["controlPlane"] = {"replicas": 3}
write("v114-06-v1beta2-health-checks-from-class", c, k, t, comment="v1beta2 health checks (checks, remediation.triggerIf, maxInFlight) from the class.")

c, t = kcp_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["healthCheck"] = {"checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]}}
k["spec"]["topology"]["controlPlane"] = {"replicas": 1, "healthCheck": {"enabled": True, "checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 60}], "nodeStartupTimeoutSeconds": 1200}}}
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2, "healthCheck": {"enabled": False}},
    {"class": "md", "name": "md-1", "replicas": 2, "healthCheck": {"checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "Unknown", "timeoutSeconds": 120}]}, "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": 1}}}},
    {"class": "md", "name": "md-2", "replicas": 2}]
write("v114-07-v1beta2-health-checks-from-topology", c, k, t, comment="v1beta2 topology health checks: enabled, disabled, overriding the class's.")

c = aks_class(); k = cluster()
c["spec"]["variables"] = [
    {"name": "location", "required": True, "schema": {"openAPIV3Schema": {"type": "string", "minLength": 1}}},
    {"name": "vmSize", "required": False, "schema": {"openAPIV3Schema": {"type": "string", "default": "Standard_D2s_v3"}}}]
CP_SEL = {"apiVersion": INFRA, "kind": "AzureManagedControlPlaneTemplate", "matchResources": {"controlPlane": True}}
MD_SEL = {"apiVersion": INFRA, "kind": "AzureMachineTemplate", "matchResources": {"machineDeploymentClass": {"names": ["md"]}}}
c["spec"]["patches"] = [
    {"name": "location", "definitions": [{"selector": CP_SEL, "jsonPatches": [{"op": "replace", "path": "/spec/template/spec/location", "valueFrom": {"variable": "location"}}]}]},
    {"name": "class-ref", "definitions": [{"selector": CP_SEL, "jsonPatches": [{"op": "add", "path": "/spec/template/spec/additionalTags/class", "valueFrom": {"variable": "builtin.cluster.topology.classRef.name"}},
        {"op": "add", "path": "/spec/template/spec/additionalTags/classNs", "valueFrom": {"template": "{{ .builtin.cluster.topology.classRef.namespace }}"}}]}]},
    {"name": "vm-size", "definitions": [{"selector": MD_SEL, "jsonPatches": [{"op": "replace", "path": "/spec/template/spec/vmSize", "valueFrom": {"variable": "vmSize"}}]}]}]
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "northeurope"}]
k["spec"]["topology"]["workers"]["machineDeployments"][0]["variables"] = {"overrides": [{"name": "vmSize", "value": "Standard_D8s_v3"}]}
write("v114-08-v1beta2-variables-patches", c, k, comment="v1beta2 variables and patches; builtin.cluster.topology.classRef (new in v1beta2).")

c = copy.deepcopy(aks_class())
c["apiVersion"] = CAPI1
c["spec"] = {"controlPlane": dict(ref(CP2, "KubeadmControlPlaneTemplate", "demo-kcp"), machineInfrastructure=ref(INFRA, "AzureMachineTemplate", "demo-cp-machine")),
    "infrastructure": ref(INFRA, "AzureClusterTemplate", "demo-azure"),
    "workers": {"machineDeployments": [{"class": "md", "template": {"bootstrap": ref(BOOT2, "KubeadmConfigTemplate", "demo-md-bootstrap"), "infrastructure": ref(INFRA, "AzureMachineTemplate", "demo-md-infra")}}]}}
_, t = kcp_class()
t = [x for x in t if x["metadata"]["name"] not in ("demo-pool-bootstrap", "demo-pool")]
k = {"apiVersion": CAPI1, "kind": "Cluster", "metadata": {"name": "c1", "namespace": NS},
     "spec": {"topology": {"class": "demo", "version": "v1.31.2", "controlPlane": {"replicas": 1, "nodeDrainTimeout": "5m"},
        "workers": {"machineDeployments": [{"class": "md", "name": "md-0", "replicas": 2, "nodeDrainTimeout": "90s"}]}}}}
write("v114-09-v1beta1-class-v1beta2-kubeadm-templates", c, k, t, comment="a v1beta1 class and Cluster whose kubeadm templates are v1beta2 (v1beta2 contract for the control plane).")

ASO = INFRA
c = {"apiVersion": CAPI1, "kind": "ClusterClass", "metadata": {"name": "demo", "namespace": NS},
     "spec": {"controlPlane": ref(ASO, "AzureASOManagedControlPlaneTemplate", "demo-cp"), "infrastructure": ref(ASO, "AzureASOManagedClusterTemplate", "demo-infra"),
        "workers": {"machinePools": [{"class": "pool", "template": {"bootstrap": ref(BOOT1, "KubeadmConfigTemplate", "demo-pool-bootstrap"), "infrastructure": ref(ASO, "AzureASOManagedMachinePoolTemplate", "demo-pool")}}]}}}
t = [tmpl(ASO, "AzureASOManagedClusterTemplate", "demo-infra", {"resources": [{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"name": "rg"}, "spec": {"location": "westeurope"}}]}),
     tmpl(ASO, "AzureASOManagedControlPlaneTemplate", "demo-cp", {"version": "v1.31.2", "resources": [{"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster", "metadata": {"name": "aks"}, "spec": {"location": "westeurope", "dnsPrefix": "x"}}]}),
     tmpl(BOOT1, "KubeadmConfigTemplate", "demo-pool-bootstrap", {}),
     tmpl(ASO, "AzureASOManagedMachinePoolTemplate", "demo-pool", {"resources": [{"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedClustersAgentPool", "metadata": {"name": "pool0"}, "spec": {"mode": "System", "vmSize": "Standard_D2s_v3"}}]})]
k = {"apiVersion": CAPI1, "kind": "Cluster", "metadata": {"name": "c1", "namespace": NS},
     "spec": {"topology": {"class": "demo", "version": "v1.31.2", "workers": {"machinePools": [{"class": "pool", "name": "pool0", "replicas": 2}]}}}}
write("v114-10-v1beta1-aso-managed", c, k, t, comment="CAPZ's AzureASOManaged* kinds (the aks-aso flavor) behind a v1beta1 class.")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["taints"] = [{"key": "class", "value": "x", "effect": "NoSchedule", "propagation": "Always"}]
k["spec"]["topology"]["workers"]["machineDeployments"][0]["taints"] = [{"key": "topo", "effect": "PreferNoSchedule", "propagation": "OnInitialization"}]
k["spec"]["topology"]["workers"]["machinePools"][0]["taints"] = [{"key": "pool", "value": "pool", "effect": "NoExecute", "propagation": "Always"}]
write("x114-05-class-taints-feature-gate-off", c, k, comment="v1beta2 machine taints in the class: refused while the MachineTaintPropagation feature gate is off (v1.14's default).")

c = aks_class(); k = cluster()
k["spec"]["topology"]["workers"]["machinePools"][0]["taints"] = [{"key": "pool", "value": "p", "effect": "NoExecute", "propagation": "Always"}]
write("x114-06-topology-taints-feature-gate-off", c, k, comment="v1beta2 machine taints on a MachinePool topology: refused while MachineTaintPropagation is off.")

c = aks_class(); k = cluster()
c["spec"]["kubernetesVersions"] = ["v1.30.5", "v1.31.2", "v1.32.0"]
write("v114-12-v1beta2-kubernetes-versions", c, k, comment="a class listing kubernetesVersions; the topology version is one of them.")

c = aks_class(); k = cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"labels": {"md-topo": "1"}, "annotations": {"topology.cluster.x-k8s.io/hold-upgrade-sequence": "", "keep": "me"}}
k["spec"]["topology"]["workers"]["machinePools"][0]["metadata"] = {"annotations": {"topology.cluster.x-k8s.io/defer-upgrade": "", "keep": "too"}}
write("v114-13-v1beta2-upgrade-annotations-not-copied", c, k, comment="upgrade sequencing annotations on worker topologies are not copied to the objects (v1.14 drops them).")

# ---------- invalid ----------
c = aks_class(); k = cluster()
c["spec"]["kubernetesVersions"] = ["v1.30.5", "v1.32.0", "v1.32.0"]
write("x114-01-kubernetes-versions-gap", c, k, comment="class kubernetesVersions that skip a minor and repeat a version.")

c = aks_class(); k = cluster()
c["spec"]["kubernetesVersions"] = ["v1.30.5", "v1.31.0", "v1.32.0"]
write("x114-07-version-not-in-kubernetes-versions", c, k, comment="the topology version is not among the class's kubernetesVersions.")

c = aks_class(); k = cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["healthCheck"] = {"enabled": True}
write("x114-02-health-check-enabled-without-checks", c, k, comment="v1beta2 healthCheck.enabled without checks in the topology or the class.")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machinePools"][0]["naming"] = {"template": "{{ .cluster.name }}-{{ .machinePool.nope }}"}
write("x114-03-naming-missing-key", c, k, comment="a v1beta2 MachinePool naming template with a key CAPI does not provide.")

c = aks_class(); k = cluster()
k["spec"]["topology"]["classRef"]["namespace"] = "other"
write("x114-04-class-in-other-namespace-missing", c, k, comment="classRef.namespace names a namespace where the class is not.")
c = aks_class(); k = cluster()
c["spec"]["variables"] = [{"name": "vmSize", "schema": {"openAPIV3Schema": {"type": "string", "default": "Standard_D2s_v3"}}}]
write("x114-08-v1beta2-variable-without-required", c, k, comment="a v1beta2 class variable without `required` (the v1beta2 CRD schema requires the field).")
c = aks_class(); k = cluster()
c["spec"]["controlPlane"].update({"deletion": {"nodeDrainTimeoutSeconds": 90}, "readinessGates": [{"conditionType": "CpClassGate"}]})
k["spec"]["topology"]["controlPlane"] = {"deletion": {"nodeDeletionTimeoutSeconds": 3600, "nodeVolumeDetachTimeoutSeconds": 45}, "readinessGates": [{"conditionType": "CpTopoGate"}]}
write("v114-14-v1beta2-aks-control-plane-deletion", c, k, comment="v1beta2 control plane deletion timeouts and readinessGates on a v1beta1-contract control plane (AzureManagedControlPlane).")

c = aks_class(); k = cluster()
c["spec"]["controlPlane"]["metadata"] = {"labels": {"cp-class": "x", "shared": "class"}, "annotations": {"cp-ann": "class"}}
c["spec"]["workers"]["machineDeployments"][0]["metadata"] = {"labels": {"md-class": "x", "shared": "class"}}
c["spec"]["workers"]["machinePools"][0]["metadata"] = {"annotations": {"mp-class": "x"}}
c["spec"]["patches"] = [{"name": "meta", "definitions": [
    {"selector": {"apiVersion": INFRA, "kind": "AzureManagedControlPlaneTemplate", "matchResources": {"controlPlane": True}},
     "jsonPatches": [{"op": "add", "path": "/spec/template/spec/additionalTags/cp", "valueFrom": {"template": "{{ .builtin.controlPlane.metadata.labels | toJson }}"}}]},
    {"selector": {"apiVersion": INFRA, "kind": "AzureMachineTemplate", "matchResources": {"machineDeploymentClass": {"names": ["md"]}}},
     "jsonPatches": [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "md: '{{ .builtin.machineDeployment.metadata.labels | toJson }}'"}}]}]}]
k["metadata"]["labels"] = {"env": "prod"}
k["spec"]["topology"]["controlPlane"] = {"metadata": {"labels": {"shared": "topo"}}}
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"labels": {"shared": "topo"}, "annotations": {"md-ann": "t"}}
write("v114-15-v1beta2-class-and-topology-metadata", c, k, comment="v1beta2 class metadata (no template: wrapper) merged with topology metadata; builtin metadata in patches.")

c, t = kcp_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["healthCheck"] = {"checks": {"nodeStartupTimeoutSeconds": 600, "unhealthyMachineConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]},
    "remediation": {"templateRef": {"apiVersion": INFRA, "kind": "AzureMachineRemediationTemplate", "name": "remediate"}}}
k["spec"]["topology"]["controlPlane"] = {"replicas": 1}
write("x114-09-reserved-machine-condition-type", c, k, t, comment="a health check on the machine condition Ready, which CAPI sets itself (a CEL rule of the v1beta2 CRD).")
c = copy.deepcopy(c)
c["spec"]["workers"]["machineDeployments"][0]["healthCheck"]["checks"]["unhealthyMachineConditions"][0]["type"] = "EtcdPodHealthy"
write("v114-16-v1beta2-remediation-template-and-machine-conditions", c, k, t, comment="v1beta2 health check with unhealthyMachineConditions and a remediation templateRef from the class.")
c = aks_class(); k = cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["name"] = "MD0"
k["spec"]["topology"]["workers"]["machinePools"][0]["name"] = "p" * 64
write("x114-10-v1beta2-worker-names-not-dns", c, k, comment="v1beta2 worker topology names the v1beta2 CRD schema refuses (upper case; more than 63 characters).")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["deletion"] = {"nodeDrainTimeoutSeconds": -1}
write("x114-11-v1beta2-class-negative-seconds", c, k, comment="a negative timeout in a v1beta2 class (the CRD schema's minimum 0).")

c = aks_class(); k = cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["minReadySeconds"] = -5
write("x114-12-v1beta2-topology-negative-seconds", c, k, comment="a negative minReadySeconds in a v1beta2 topology (the CRD schema's minimum 0).")

c = aks_class(); k = cluster()
k["spec"]["topology"]["version"] = "1.31.2"
k["spec"]["topology"]["workers"]["machineDeployments"][0]["deletion"] = {"order": "Random"}
del k["spec"]["topology"]["workers"]["machinePools"]
write("v114-17-v1beta2-version-without-v-no-pools", c, k, comment="a version without its v (defaulted), deletion order Random, no MachinePool topologies.")
# v1beta1 inputs whose meaning changed because v1.14 stores v1beta2
V1 = "cluster.x-k8s.io/v1beta1"
def v1beta1_aks_class():
    return {"apiVersion": V1, "kind": "ClusterClass", "metadata": {"name": "demo", "namespace": NS},
      "spec": {"controlPlane": ref(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp"), "infrastructure": ref(INFRA, "AzureManagedClusterTemplate", "demo-infra"),
        "workers": {"machineDeployments": [{"class": "md", "template": {"bootstrap": ref(BOOT1, "KubeadmConfigTemplate", "demo-md-bootstrap"), "infrastructure": ref(INFRA, "AzureMachineTemplate", "demo-md-infra")}}],
                    "machinePools": [{"class": "pool", "template": {"bootstrap": ref(BOOT1, "KubeadmConfigTemplate", "demo-pool-bootstrap"), "infrastructure": ref(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool")}}]}}}
def v1beta1_cluster():
    return {"apiVersion": V1, "kind": "Cluster", "metadata": {"name": "c1", "namespace": NS},
      "spec": {"topology": {"class": "demo", "version": "v1.31.2",
        "workers": {"machineDeployments": [{"class": "md", "name": "md-0", "replicas": 2}], "machinePools": [{"class": "pool", "name": "mp-0", "replicas": 1}]}}}}

c = v1beta1_aks_class(); k = v1beta1_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0].update({"nodeDrainTimeout": "1500ms", "nodeDeletionTimeout": "1m30.5s",
    "machineHealthCheck": {"enable": True, "unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "90.5s"}], "nodeStartupTimeout": "0s", "maxUnhealthy": 2}})
k["spec"]["topology"]["workers"]["machinePools"][0]["nodeDrainTimeout"] = "0.25s"
write("v114-18-v1beta1-subsecond-durations", c, k, aks_templates(BOOT1), comment="v1beta1 durations with fractions of a second: v1.14 stores whole seconds, so they come back truncated.")

c = v1beta1_aks_class(); k = v1beta1_cluster()
c["spec"]["workers"]["machineDeployments"][0].update({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"deletePolicy": "Newest", "maxSurge": "20%"}}, "nodeDrainTimeout": "45s", "minReadySeconds": 7})
c["spec"]["workers"]["machinePools"][0].update({"nodeDeletionTimeout": "2m", "minReadySeconds": 3})
write("v114-19-v1beta1-class-level-worker-fields", c, k, aks_templates(BOOT1), comment="v1beta1 class-level MachineDeployment / MachinePool fields through v1.14's v1beta2 storage.")
c = v1beta1_aks_class(); k = v1beta1_cluster()
k["spec"]["clusterNetwork"] = {"pods": {"cidrBlocks": ["192.168.0.0/16"]}, "apiServerPort": 6443, "serviceDomain": "cluster.local"}
k["spec"]["controlPlaneEndpoint"] = {"host": "example.com", "port": 443}
k["metadata"]["annotations"] = {"team": "a"}
write("v114-20-v1beta1-cluster-network-and-endpoint", c, k, aks_templates(BOOT1), comment="v1beta1 clusterNetwork fields and a controlPlaneEndpoint through v1.14's v1beta2 storage.")

c = v1beta1_aks_class(); k = v1beta1_cluster()
c["spec"]["variables"] = [{"name": "v", "required": False, "metadata": {"labels": {"l": "ex"}, "annotations": {"a": "why"}},
    "schema": {"openAPIV3Schema": {"type": "string", "default": "d", "description": "a variable", "example": "e"}}}]
write("v114-21-v1beta1-variable-metadata", c, k, aks_templates(BOOT1), comment="v1beta1 variable metadata, description and example (v1beta2: deprecatedV1Beta1Metadata).")

c = v1beta1_aks_class(); k = v1beta1_cluster()
k["spec"]["topology"]["controlPlane"] = {"replicas": 0}
k["spec"]["topology"]["workers"]["machineDeployments"][0]["replicas"] = 0
k["spec"]["topology"]["workers"]["machinePools"][0]["replicas"] = 0
write("v114-22-v1beta1-zero-replicas", c, k, aks_templates(BOOT1), comment="zero replicas everywhere.")

c = v1beta1_aks_class(); k = v1beta1_cluster()
k["spec"]["topology"]["rolloutAfter"] = "2030-01-01T00:00:00Z"
write("v114-23-v1beta1-rollout-after-dropped", c, k, aks_templates(BOOT1), comment="v1beta1 spec.topology.rolloutAfter: v1beta2 has no such field, v1.14's conversion drops it.")

c = v1beta1_aks_class(); k = v1beta1_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2, "strategy": {"type": "RollingUpdate", "remediation": {"maxInFlight": 3}}},
    {"class": "md", "name": "md-1", "replicas": 2}]
write("v114-24-v1beta1-remediation-max-in-flight", c, k, aks_templates(BOOT1), comment="v1beta1 strategy.remediation.maxInFlight becomes v1beta2 healthCheck.remediation.maxInFlight: a health check without checks is created.")

c = v1beta1_aks_class(); k = v1beta1_cluster()
c["spec"]["workers"]["machineDeployments"][0]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "5m"}], "maxUnhealthy": "40%"}
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2, "strategy": {"remediation": {"maxInFlight": "50%"}}},
    {"class": "md", "name": "md-1", "replicas": 2, "machineHealthCheck": {"enable": False}},
    {"class": "md", "name": "md-2", "replicas": 2}]
write("v114-25-v1beta1-remediation-replaces-class-health-check", c, k, aks_templates(BOOT1), comment="with a class health check: maxInFlight in the topology replaces it (v1.14), enable false disables it, md-2 gets the class's.")
c = aks_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["healthCheck"] = {"checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]}}
k["spec"]["topology"]["workers"]["machineDeployments"][0]["healthCheck"] = {"remediation": {"maxInFlight": 2}}
write("v114-26-v1beta2-max-in-flight-replaces-class-check", c, k, comment="a v1beta2 topology health check with only remediation.maxInFlight replaces the class's checks.")

c = aks_class(); k = cluster()
c["spec"]["workers"]["machineDeployments"][0]["deletion"] = {"order": "Newest"}
k["spec"]["topology"]["workers"]["machineDeployments"][0]["rollout"] = {"strategy": {"type": "OnDelete"}}
write("v114-27-v1beta2-on-delete-and-class-deletion-order", c, k, comment="v1beta2 OnDelete rollout from the topology, deletion order from the class.")

c = aks_class(); k = cluster()
k["spec"]["controlPlaneEndpoint"] = {"host": "x.example.com", "port": 443}
k["spec"]["clusterNetwork"].update({"serviceDomain": "corp.local", "apiServerPort": 6443})
k["spec"]["topology"]["controlPlane"] = {"metadata": {"labels": {"a": "b1"}}}
write("v114-28-v1beta2-endpoint-and-network", c, k, comment="a v1beta2 Cluster with controlPlaneEndpoint, clusterNetwork fields and control plane metadata.")

c, t = kcp_class(); k = cluster()
k["spec"]["topology"]["controlPlane"] = {"replicas": 3, "healthCheck": {"checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "Unknown", "timeoutSeconds": 100}]},
    "remediation": {"triggerIf": {"unhealthyInRange": "[1-3]"}, "templateRef": {"apiVersion": INFRA, "kind": "AzureMachineRemediationTemplate", "name": "r"}}}}
write("v114-29-v1beta2-control-plane-health-check-range-and-template", c, k, t, comment="a v1beta2 control plane health check with unhealthyInRange and a remediation templateRef.")

c = aks_class(); k = cluster()
del k["spec"]["topology"]["workers"]["machinePools"][0]["replicas"]
del k["spec"]["topology"]["workers"]["machineDeployments"][0]["replicas"]
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"annotations": {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "1", "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "5"}}
write("v114-30-v1beta2-replicas-unset-autoscaler", c, k, comment="v1beta2 worker topologies without replicas; autoscaler annotations.")
print("ok")
