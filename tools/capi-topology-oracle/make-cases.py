#!/usr/bin/env python3
# Writes the corpus tests/fixtures/capi-topology/cases/*.yaml (a ClusterClass, its templates and a
# topology Cluster per file; v* valid, x* invalid). The files are committed; rerun after editing,
# then regen.sh to record what CAPI makes of them. Needs PyYAML.
import copy, os
import yaml
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "capi-topology", "cases")
NS = "ns1"
INFRA = "infrastructure.cluster.x-k8s.io/v1beta1"
BOOT = "bootstrap.cluster.x-k8s.io/v1beta1"
def ref(av, kind, name): return {"ref": {"apiVersion": av, "kind": kind, "name": name}}
def tmpl(av, kind, name, spec): return {"apiVersion": av, "kind": kind, "metadata": {"name": name, "namespace": NS}, "spec": {"template": {"spec": spec}}}

def base_class():
    return {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "ClusterClass", "metadata": {"name": "demo", "namespace": NS},
      "spec": {
        "controlPlane": ref(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp"),
        "infrastructure": ref(INFRA, "AzureManagedClusterTemplate", "demo-infra"),
        "workers": {
          "machineDeployments": [{"class": "md", "template": {
             "bootstrap": ref(BOOT, "KubeadmConfigTemplate", "demo-md-bootstrap"),
             "infrastructure": ref(INFRA, "AzureMachineTemplate", "demo-md-infra")}}],
          "machinePools": [{"class": "pool", "template": {
             "bootstrap": ref(BOOT, "KubeadmConfigTemplate", "demo-pool-bootstrap"),
             "infrastructure": ref(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool")}}]}}}

def base_templates():
    return [
      tmpl(INFRA, "AzureManagedClusterTemplate", "demo-infra", {}),
      tmpl(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp", {"location": "westeurope", "dnsServiceIP": "10.0.0.10", "sku": {"tier": "Free"}, "additionalTags": {"base": "yes"}}),
      tmpl(BOOT, "KubeadmConfigTemplate", "demo-md-bootstrap", {"joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": {"cloud-provider": "external"}}}}),
      tmpl(INFRA, "AzureMachineTemplate", "demo-md-infra", {"vmSize": "Standard_D2s_v3", "osDisk": {"diskSizeGB": 128, "osType": "Linux"}}),
      tmpl(BOOT, "KubeadmConfigTemplate", "demo-pool-bootstrap", {}),
      tmpl(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool", {"mode": "System", "sku": "Standard_D2s_v3", "osDiskSizeGB": 128, "nodeLabels": {"pool": "base"}}),
    ]

def base_cluster():
    return {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "c1", "namespace": NS},
      "spec": {"clusterNetwork": {"pods": {"cidrBlocks": ["192.168.0.0/16"]}, "services": {"cidrBlocks": ["10.0.0.0/16"]}},
        "topology": {"class": "demo", "version": "v1.31.2",
          "workers": {"machineDeployments": [{"class": "md", "name": "md-0", "replicas": 2}],
                      "machinePools": [{"class": "pool", "name": "mp-0", "replicas": 1}]}}}}

def write(name, cls, cluster, templates=None, comment=""):
    docs = [cls] + (templates if templates is not None else base_templates()) + [cluster]
    with open(os.path.join(OUT, name + ".yaml"), "w") as f:
        if comment:
            for line in comment.strip().splitlines():
                f.write("# " + line + "\n")
        f.write(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False))

def var(name, schema, required=False):
    return {"name": name, "required": required, "schema": {"openAPIV3Schema": schema}}

def patch(name, selector, jsonPatches, **kw):
    d = {"name": name, "definitions": [{"selector": selector, "jsonPatches": jsonPatches}]}
    d.update(kw)
    return d

def sel(av, kind, **match):
    return {"apiVersion": av, "kind": kind, "matchResources": match}

CP_SEL = sel(INFRA, "AzureManagedControlPlaneTemplate", controlPlane=True)
INFRA_SEL = sel(INFRA, "AzureManagedClusterTemplate", infrastructureCluster=True)
MD_SEL = sel(INFRA, "AzureMachineTemplate", machineDeploymentClass={"names": ["md"]})
MP_SEL = sel(INFRA, "AzureManagedMachinePoolTemplate", machinePoolClass={"names": ["pool"]})

# ---------- valid cases ----------
c, k = base_class(), base_cluster()
write("v01-basic", c, k, comment="MachineDeployment + MachinePool, no variables, no patches.")

def vars_class():
    c = base_class()
    c["spec"]["variables"] = [
        var("location", {"type": "string", "minLength": 1}, required=True),
        var("skuTier", {"type": "string", "default": "Free", "enum": ["Free", "Standard"]}),
        var("vmSize", {"type": "string", "default": "Standard_D2s_v3"}),
        var("network", {"type": "object", "default": {}, "properties": {
            "plugin": {"type": "string", "default": "azure"},
            "policy": {"type": "string"}}}),
        var("tags", {"type": "object", "additionalProperties": {"type": "string"}}),
    ]
    c["spec"]["patches"] = [
        patch("location", CP_SEL, [{"op": "replace", "path": "/spec/template/spec/location", "valueFrom": {"variable": "location"}}]),
        patch("sku", CP_SEL, [{"op": "add", "path": "/spec/template/spec/sku/tier", "valueFrom": {"variable": "skuTier"}}]),
        patch("network", CP_SEL, [{"op": "add", "path": "/spec/template/spec/networkPlugin", "valueFrom": {"variable": "network.plugin"}}]),
        patch("vm-size", MD_SEL, [{"op": "replace", "path": "/spec/template/spec/vmSize", "valueFrom": {"variable": "vmSize"}}]),
        patch("pool-sku", MP_SEL, [{"op": "replace", "path": "/spec/template/spec/sku", "valueFrom": {"variable": "vmSize"}}]),
        patch("tags", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"variable": "tags"}}], enabledIf="{{ if .tags }}true{{ end }}"),
    ]
    return c

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "northeurope"}]
write("v02-variable-defaults", c, k, comment="Top-level and nested variable defaults; the defaulting webhook writes them into the Cluster.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "northeurope"}, {"name": "skuTier", "value": "Free"}, {"name": "tags", "value": {"team": "a"}}]
k["spec"]["topology"]["controlPlane"] = {"variables": {"overrides": [{"name": "skuTier", "value": "Standard"}, {"name": "network", "value": {"policy": "calico"}}]}}
write("v03-control-plane-overrides", c, k, comment="spec.topology.controlPlane.variables.overrides change the control plane's patches only.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "northeurope"}]
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2, "variables": {"overrides": [{"name": "vmSize", "value": "Standard_D8s_v3"}]}},
    {"class": "md", "name": "md-1", "replicas": 1}]
k["spec"]["topology"]["workers"]["machinePools"] = [
    {"class": "pool", "name": "mp-0", "replicas": 1, "variables": {"overrides": [{"name": "vmSize", "value": "Standard_E4s_v3"}, {"name": "network", "value": {"policy": "x"}}]}}]
write("v04-worker-overrides", c, k, comment="Per-MachineDeployment and per-MachinePool overrides, one with a nested default to fill in.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["controlPlane"] = {"nodeDrainTimeout": "9m", "nodeDeletionTimeout": "90s", "nodeVolumeDetachTimeout": "1h30m"}
k["spec"]["topology"]["workers"]["machineDeployments"][0].update({"nodeDrainTimeout": "120s", "nodeDeletionTimeout": "0.5h", "minReadySeconds": 5})
k["spec"]["topology"]["workers"]["machinePools"][0].update({"nodeDrainTimeout": "2m30s", "nodeVolumeDetachTimeout": "1m0s"})
write("v05-go-durations", c, k, comment="Duration fields are written back in Go's canonical form (9m -> 9m0s).")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"][0]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2},
    {"class": "md", "name": "md-1", "replicas": 2, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%", "deletePolicy": "Oldest"}}},
    {"class": "md", "name": "md-2", "replicas": 2, "strategy": {"type": "OnDelete"}}]
write("v06-md-strategy", c, k, comment="MachineDeployment strategy from the class and the topology.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"][0]["failureDomain"] = "1"
c["spec"]["workers"]["machinePools"][0]["failureDomains"] = ["1", "2"]
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2},
    {"class": "md", "name": "md-1", "replicas": 2, "failureDomain": "3"}]
k["spec"]["topology"]["workers"]["machinePools"][0]["failureDomains"] = ["3"]
write("v07-failure-domain", c, k, comment="failureDomain / failureDomains from class and topology.")

def kcp_class(typed_round_trip=False):
    c = base_class()
    c["spec"]["controlPlane"] = {
        "ref": {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "KubeadmControlPlaneTemplate", "name": "demo-kcp"},
        "machineInfrastructure": ref(INFRA, "AzureMachineTemplate", "demo-cp-machine")}
    c["spec"]["infrastructure"] = ref(INFRA, "AzureClusterTemplate", "demo-azure")
    t = [x for x in base_templates() if x["kind"] not in ("AzureManagedControlPlaneTemplate", "AzureManagedClusterTemplate")]
    # clusterctl's dry-run client knows KubeadmControlPlane as a Go type: a clusterConfiguration
    # comes back with Go durations and empty structs (only v08 shows that, see docs/plan.md).
    kcp_spec = {"kubeadmConfigSpec": {"clusterConfiguration": {"apiServer": {"timeoutForControlPlane": "20m"}}}} if typed_round_trip else {"kubeadmConfigSpec": {"preKubeadmCommands": ["echo start"]}}
    t += [tmpl("controlplane.cluster.x-k8s.io/v1beta1", "KubeadmControlPlaneTemplate", "demo-kcp", kcp_spec),
          tmpl(INFRA, "AzureMachineTemplate", "demo-cp-machine", {"vmSize": "Standard_D4s_v3", "osDisk": {"diskSizeGB": 128, "osType": "Linux"}}),
          tmpl(INFRA, "AzureClusterTemplate", "demo-azure", {"location": "westeurope"})]
    return c, t

c, t = kcp_class(typed_round_trip=True); k = base_cluster()
c["spec"]["controlPlane"]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "Unknown", "timeout": "300s"}, {"type": "Ready", "status": "False", "timeout": "5m"}], "maxUnhealthy": "40%", "nodeStartupTimeout": "10m"}
c["spec"]["workers"]["machineDeployments"][0]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "300s"}], "unhealthyRange": "[0-2]"}
k["spec"]["topology"]["controlPlane"] = {"replicas": 3}
write("v08-mhc-from-class", c, k, t, comment="The class asks for MachineHealthChecks for the control plane and the deployments.")

c, t = kcp_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"][0]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "300s"}]}
k["spec"]["topology"]["controlPlane"] = {"replicas": 1, "machineHealthCheck": {"enable": True, "unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "1m"}], "nodeStartupTimeout": "15m"}}
k["spec"]["topology"]["workers"]["machineDeployments"] = [
    {"class": "md", "name": "md-0", "replicas": 2, "machineHealthCheck": {"enable": False}},
    {"class": "md", "name": "md-1", "replicas": 2, "machineHealthCheck": {"maxUnhealthy": 1, "unhealthyConditions": [{"type": "Ready", "status": "Unknown", "timeout": "2m"}]}},
    {"class": "md", "name": "md-2", "replicas": 2}]
write("v09-mhc-from-topology", c, k, t, comment="Topology MachineHealthChecks: enable, disable, override the class's checks.")

c = base_class(); k = base_cluster()
c["spec"]["controlPlane"]["metadata"] = {"labels": {"cp-class": "x"}, "annotations": {"cp-ann": "class"}}
c["spec"]["workers"]["machineDeployments"][0]["template"]["metadata"] = {"labels": {"md-class": "why"}}
c["spec"]["workers"]["machinePools"][0]["template"]["metadata"] = {"labels": {"mp-class": "z"}}
k["metadata"]["labels"] = {"env": "prod"}; k["metadata"]["annotations"] = {"owner": "team-a"}
k["spec"]["topology"]["controlPlane"] = {"metadata": {"labels": {"cp-topo": "1", "cp-class": "topo-wins"}}}
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"labels": {"md-topo": "2"}, "annotations": {"md-ann": "a"}}
k["spec"]["topology"]["workers"]["machinePools"][0]["metadata"] = {"labels": {"mp-topo": "3"}}
c["spec"]["patches"] = [
    patch("cluster-meta", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/fromClusterMeta", "valueFrom": {"template": "{{ .builtin.cluster.metadata.labels.env }}-{{ index .builtin.cluster.metadata.annotations \"owner\" }}"}}]),
    patch("cp-meta", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/fromCpMeta", "valueFrom": {"template": "{{ .builtin.controlPlane.metadata.labels | toJson }}"}}]),
    patch("md-meta", MD_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "md: '{{ .builtin.machineDeployment.metadata.labels | toJson }}'\nann: '{{ .builtin.machineDeployment.metadata.annotations | toJson }}'"}}]),
    patch("mp-meta", MP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "mp: '{{ .builtin.machinePool.metadata.labels | toJson }}'"}}]),
]
write("v10-builtin-metadata", c, k, comment="builtin.cluster/controlPlane/machineDeployment/machinePool.metadata in templates; class and topology metadata merged.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("count", {"type": "integer", "default": 3}), var("ratio", {"type": "number", "default": 1.5}),
    var("name", {"type": "string", "default": "abc"}), var("flag", {"type": "boolean", "default": True}),
    var("obj", {"type": "object", "default": {"a": 1}, "properties": {"a": {"type": "integer"}}}), var("list", {"type": "array", "default": ["ex", "why"], "items": {"type": "string"}})]
c["spec"]["patches"] = [patch("printf", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template":
    "v: '{{ printf \"%v|%v|%v|%v|%v|%v\" .count .ratio .name .flag .obj .list }}'\n"
    "t: '{{ printf \"%T|%T|%T|%T|%T|%T\" .count .ratio .name .flag .obj .list }}'\n"
    "d: '{{ printf \"%d|%5.2f|%q|%s|%x|%e\" (int .count) .ratio .name .name .name .ratio }}'\n"
    "plus: '{{ printf \"%+v|%#v|%g\" .obj .name .count }}'\n"
    "bad: '{{ printf \"%d|%s\" .name .count }}'"}}])]
write("v11-printf-verbs", c, k, comment="Go printf verbs (incl. %T) on the values CAPI passes to templates.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("private", {"type": "boolean", "default": False}), var("mode", {"type": "string", "default": "a"})]
c["spec"]["patches"] = [
    patch("when-private", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/private", "value": "yes"}], enabledIf="{{ .private }}"),
    patch("when-mode-b", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/mode", "value": "b"}], enabledIf='{{ eq .mode "b" }}'),
    patch("always", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/always", "value": "yes"}], enabledIf="true"),
]
k["spec"]["topology"]["variables"] = [{"name": "private", "value": True}]
write("v12-enabled-if", c, k, comment="enabledIf: true, false, from variables and defaults.")

c = base_class(); k = base_cluster()
c["spec"]["infrastructureNamingStrategy"] = {"template": "{{ .cluster.name }}-infra-{{ .random }}"}
c["spec"]["controlPlane"]["namingStrategy"] = {"template": "{{ .cluster.name }}-cp-{{ .random }}"}
c["spec"]["workers"]["machineDeployments"][0]["namingStrategy"] = {"template": "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-d-{{ .random }}"}
c["spec"]["workers"]["machinePools"][0]["namingStrategy"] = {"template": "{{ .cluster.name }}-{{ .machinePool.topologyName }}-p-{{ .random }}"}
write("v13-naming-strategy", c, k, comment="Naming strategies for every object the class names.")

c = base_class(); k = base_cluster()
c["spec"]["patches"] = [
    patch("all-md", sel(INFRA, "AzureMachineTemplate", machineDeploymentClass={"names": ["*"]}), [{"op": "add", "path": "/spec/template/spec/osDisk/cachingType", "value": "ReadOnly"}]),
    patch("boot", sel(BOOT, "KubeadmConfigTemplate", machineDeploymentClass={"names": ["m*"]}, machinePoolClass={"names": ["*ol"]}), [{"op": "add", "path": "/spec/template/spec/files", "value": [{"path": "/etc/x", "content": "x"}]}, {"op": "add", "path": "/spec/template/spec/files/-", "value": {"path": "/etc/why", "content": "why"}}, {"op": "add", "path": "/spec/template/spec/files/0", "value": {"path": "/etc/first", "content": "0"}}]),
    patch("infra-cluster", INFRA_SEL, [{"op": "add", "path": "/spec/template/spec/identityRef", "value": {"name": "id", "kind": "AzureClusterIdentity"}}]),
    patch("remove", MP_SEL, [{"op": "remove", "path": "/spec/template/spec/nodeLabels"}]),
]
write("v14-selectors-and-ops", c, k, comment="Wildcard selectors, add at 0 and -, remove of a map field.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("pools", {"type": "array", "default": [{"name": "a", "size": 1}], "items": {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer", "default": 2}}}})]
c["spec"]["patches"] = [patch("from-template", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template":
    "{{- range $i, $p := .pools }}\n{{ $p.name }}: \"{{ $p.size }}-{{ $i }}\"\n{{- end }}\nversion: {{ .builtin.controlPlane.version }}\nmd: {{ .builtin.cluster.topology.class }}"}}]),
    patch("md-builtins", MD_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template":
    "name: {{ .builtin.machineDeployment.topologyName }}\nclass: {{ .builtin.machineDeployment.class }}\nreplicas: \"{{ .builtin.machineDeployment.replicas }}\"\nversion: {{ .builtin.machineDeployment.version }}"}}])]
k["spec"]["topology"]["variables"] = [{"name": "pools", "value": [{"name": "p1"}, {"name": "p2", "size": 5}]}]
write("v15-value-from-template", c, k, comment="valueFrom.template producing objects; defaults inside array items; builtins.")

c, t = kcp_class(); k = base_cluster()
k["spec"]["topology"]["controlPlane"] = {"replicas": 3, "metadata": {"labels": {"cp": "yes"}}, "nodeDrainTimeout": "5m"}
c["spec"]["patches"] = [patch("kcp", sel("controlplane.cluster.x-k8s.io/v1beta1", "KubeadmControlPlaneTemplate", controlPlane=True), [{"op": "add", "path": "/spec/template/spec/kubeadmConfigSpec/postKubeadmCommands", "valueFrom": {"template": "- echo cloud-provider external\n- echo replicas {{ .builtin.controlPlane.replicas }}\n- echo machine {{ .builtin.controlPlane.machineTemplate.infrastructureRef.name | trunc 3 }}"}}]),
    patch("cp-machine", sel(INFRA, "AzureMachineTemplate", controlPlane=True), [{"op": "replace", "path": "/spec/template/spec/vmSize", "value": "Standard_D8s_v3"}])]
write("v16-control-plane-machine-infrastructure", c, k, t, comment="KubeadmControlPlane with a machine infrastructure template; control plane builtins.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"] = [{"class": "md", "name": "md-a"}, {"class": "md", "name": "md-b", "replicas": 0}]
k["spec"]["topology"]["workers"]["machinePools"] = [{"class": "pool", "name": "mp-a"}, {"class": "pool", "name": "mp-b", "replicas": 4}]
c["spec"]["patches"] = [patch("replicas", MD_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "r: '{{ .builtin.machineDeployment.replicas }}'"}}])]
write("v17-replicas-unset", c, k, comment="Workers without replicas; builtin replicas absent.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("ver", {"type": "string", "default": "x"})]
c["spec"]["patches"] = [patch("semver", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/ge130", "valueFrom": {"template": "{{ if semverCompare \">= v1.30\" .builtin.cluster.topology.version }}yes{{ else }}no{{ end }}"}},
   {"op": "add", "path": "/spec/template/spec/additionalTags/net", "valueFrom": {"template": "{{ index .builtin.cluster.network.pods 0 }}|{{ .builtin.cluster.network.services | join \",\" }}|{{ .builtin.cluster.name }}|{{ .builtin.cluster.namespace }}"}}])]
write("v18-cluster-builtins", c, k, comment="builtin.cluster.network and topology in templates.")

# ---------- invalid cases ----------
def bad_patch(name, jp, comment, **kw):
    c = base_class(); k = base_cluster()
    c["spec"]["variables"] = [var("location", {"type": "string", "default": "westeurope"})]
    c["spec"]["patches"] = [patch("good", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/a", "value": "b"}]),
                            patch("bad", kw.pop("selector", CP_SEL), jp, **kw)]
    write(name, c, k, comment=comment)

bad_patch("x01-replace-with-index", [{"op": "add", "path": "/spec/template/spec/x", "value": 1}, {"op": "replace", "path": "/spec/template/spec/items/1", "value": "b"}], "replace with a list index (second patch, second definition, index 1).")
bad_patch("x02-remove-with-index", [{"op": "remove", "path": "/spec/template/spec/items/0"}], "remove with a list index.")
bad_patch("x03-add-at-middle-index", [{"op": "add", "path": "/spec/template/spec/items/2", "value": "c"}], "add at an index other than 0 or -.")
bad_patch("x04-value-and-value-from", [{"op": "add", "path": "/spec/template/spec/location", "value": "x", "valueFrom": {"variable": "location"}}], "both value and valueFrom.")
bad_patch("x05-neither-value", [{"op": "add", "path": "/spec/template/spec/location"}], "add with neither value nor valueFrom.")
bad_patch("x06-selector-matches-nothing", [{"op": "add", "path": "/spec/template/spec/location", "value": "x"}], "the selector's kind is no template of the class.", selector=sel(INFRA, "AzureManagedControlPlaneTemplateX", controlPlane=True))
bad_patch("x07-path-outside-spec", [{"op": "add", "path": "/metadata/labels/x", "value": "x"}], "patch path outside /spec.")
bad_patch("x08-unknown-variable", [{"op": "add", "path": "/spec/template/spec/location", "valueFrom": {"variable": "nope"}}], "valueFrom.variable names no variable of the class.")
bad_patch("x09-bad-op", [{"op": "move", "path": "/spec/template/spec/location", "value": "x"}], "an op other than add, replace, remove.")
bad_patch("x10-selector-md-class-unknown", [{"op": "add", "path": "/spec/template/spec/vmSize", "value": "x"}], "machineDeploymentClass names a class the ClusterClass does not have.", selector=sel(INFRA, "AzureMachineTemplate", machineDeploymentClass={"names": ["nope"]}))

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": ""}, {"name": "skuTier", "value": "Premium"}]
write("x11-schema-violation", c, k, comment="values against the schema: minLength, enum.")

c = vars_class(); k = base_cluster()
write("x12-missing-required", c, k, comment="a required variable is not set.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "x"}, {"name": "nope", "value": 1}]
write("x13-undefined-variable", c, k, comment="a variable the class does not define.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "x"}]
k["spec"]["topology"]["controlPlane"] = {"variables": {"overrides": [{"name": "skuTier", "value": 5}]}}
write("x14-override-schema-violation", c, k, comment="a control plane override of the wrong type.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"] = [{"class": "nope", "name": "md-0"}]
write("x15-unknown-md-class", c, k, comment="a MachineDeployment topology names a class the ClusterClass does not have.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"] = [{"class": "md", "name": "md-0"}, {"class": "md", "name": "md-0"}]
write("x16-duplicate-md-name", c, k, comment="two MachineDeployment topologies with the same name.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("builtin", {"type": "string"})]
write("x17-reserved-variable-name", c, k, comment="a variable named builtin.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["version"] = "one.two"
write("x18-bad-version", c, k, comment="spec.topology.version is not a semantic version.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("bad", {"type": "string", "default": 5})]
write("x19-bad-default", c, k, comment="a variable's default does not match its schema.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"].append(copy.deepcopy(c["spec"]["workers"]["machineDeployments"][0]))
write("x20-duplicate-md-class", c, k, comment="two MachineDeployment classes named md.")

c = base_class(); k = base_cluster()
c["spec"]["controlPlane"]["namingStrategy"] = {"template": "{{ .cluster.name }}-{{ .nope }"}
write("x21-bad-naming-template", c, k, comment="a naming template that does not parse.")

c = base_class(); k = base_cluster()
c["spec"]["patches"] = [patch("p", CP_SEL, [{"op": "add", "path": "/spec/template/spec/a", "value": 1}]), patch("p", CP_SEL, [{"op": "add", "path": "/spec/template/spec/b", "value": 2}])]
write("x22-duplicate-patch-name", c, k, comment="two patches named p.")

c, t = kcp_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["machineHealthCheck"] = {"enable": True}
write("x23-mhc-enable-without-checks", c, k, t, comment="topology enables a MachineHealthCheck the class does not define and gives no checks.")
print("ok")

# ---------- second round ----------
c = base_class(); k = base_cluster()
k["spec"]["topology"]["version"] = "1.31.2"
k["spec"]["topology"]["workers"]["machinePools"] = [{"class": "pool", "name": "mp-0", "replicas": 1, "minReadySeconds": 7, "failureDomains": ["1"]}]
c["spec"]["workers"]["machinePools"][0].update({"minReadySeconds": 3, "nodeDeletionTimeout": "45s"})
c["spec"]["workers"]["machineDeployments"][0].update({"minReadySeconds": 4, "nodeDrainTimeout": "600s", "readinessGates": [{"conditionType": "Ready2"}]})
c["spec"]["controlPlane"].update({"nodeDrainTimeout": "3600s", "readinessGates": [{"conditionType": "CPReady"}]})
write("v19-class-level-fields", c, k, comment="Version without v; class-level minReadySeconds, timeouts, readiness gates.")

c, t = kcp_class(); k = base_cluster()
c["spec"]["controlPlane"]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "5m"}], "remediationTemplate": {"apiVersion": INFRA, "kind": "AzureRemediationTemplate", "name": "remediate"}}
k["spec"]["topology"]["controlPlane"] = {"replicas": 3, "readinessGates": [{"conditionType": "X", "polarity": "Negative"}]}
k["spec"]["topology"]["workers"]["machineDeployments"] = [{"class": "md", "name": "md-0", "replicas": 1, "machineHealthCheck": {"enable": True, "nodeStartupTimeout": "0s", "unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "1h"}], "remediationTemplate": {"apiVersion": INFRA, "kind": "AzureRemediationTemplate", "name": "r2"}}}]
write("v20-mhc-remediation", c, k, t, comment="MachineHealthCheck remediation templates get the namespace; nodeStartupTimeout 0s kept.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"annotations": {"topology.cluster.x-k8s.io/hold-upgrade-sequence": "", "topology.cluster.x-k8s.io/defer-upgrade": "", "keep": "me"}}
k["spec"]["topology"]["workers"]["machinePools"][0]["metadata"] = {"annotations": {"topology.cluster.x-k8s.io/defer-upgrade": "", "keep": "pool"}}
c["spec"]["patches"] = [patch("builtins-by-variable", MD_SEL, [
    {"op": "add", "path": "/spec/template/spec/additionalTags", "value": {}},
    {"op": "add", "path": "/spec/template/spec/additionalTags/cluster", "valueFrom": {"variable": "builtin.cluster.name"}},
    {"op": "add", "path": "/spec/template/spec/additionalTags/md", "valueFrom": {"variable": "builtin.machineDeployment.name"}},
    {"op": "add", "path": "/spec/template/spec/additionalTags/boot", "valueFrom": {"variable": "builtin.machineDeployment.bootstrap.configRef.name"}},
    {"op": "add", "path": "/spec/template/spec/additionalTags/infra", "valueFrom": {"variable": "builtin.machineDeployment.infrastructureRef.name"}},
    {"op": "add", "path": "/spec/template/spec/additionalTags/ns", "valueFrom": {"variable": "builtin.cluster.namespace"}}]),
    patch("mp-builtins", MP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "boot: {{ .builtin.machinePool.bootstrap.configRef.name }}\ninfra: {{ .builtin.machinePool.infrastructureRef.name }}\nname: {{ .builtin.machinePool.name }}"}}])]
write("v21-builtins-and-upgrade-annotations", c, k, comment="builtin refs by valueFrom.variable; upgrade annotations are not copied.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("cfg", {"type": "object", "properties": {"size": {"type": "integer", "minimum": 1, "maximum": 10}, "name": {"type": "string", "pattern": "^[a-z]+$"}}, "x-kubernetes-validations": [{"rule": "self.size <= 5 || self.name == 'big'", "message": "size above 5 needs name big"}]}, required=True)]
k["spec"]["topology"]["variables"] = [{"name": "cfg", "value": {"size": 7, "name": "small"}}]
write("x24-cel-rule", c, k, comment="a CEL rule on a variable fails.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("cfg", {"type": "object", "properties": {"size": {"type": "integer", "maximum": 10}, "name": {"type": "string", "pattern": "^[a-z]+$"}}})]
k["spec"]["topology"]["variables"] = [{"name": "cfg", "value": {"size": 11, "name": "Abc", "extra": True}}]
write("x25-schema-bounds-pattern-unknown-field", c, k, comment="maximum, pattern and an undeclared field.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "x"}, {"name": "location", "value": "y"}]
write("x26-duplicate-variable", c, k, comment="a variable set twice.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "x"}]
k["spec"]["topology"]["workers"]["machinePools"][0]["variables"] = {"overrides": [{"name": "nope", "value": "x"}]}
write("x27-undefined-override", c, k, comment="a MachinePool override of a variable the class does not define.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machinePools"] = [{"class": "nope", "name": "mp-0"}]
write("x28-unknown-mp-class", c, k, comment="a MachinePool topology names a class the ClusterClass does not have.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["controlPlane"] = {"machineHealthCheck": {"enable": True, "unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "5m"}]}}
write("x29-cp-mhc-without-machine-infrastructure", c, k, comment="a control plane MachineHealthCheck on a class without machineInfrastructure.")

bad_patch("x30-no-selector-enabled", [{"op": "add", "path": "/spec/template/spec/location", "value": "x"}], "a selector with nothing enabled.", selector={"apiVersion": INFRA, "kind": "AzureManagedControlPlaneTemplate", "matchResources": {}})
bad_patch("x31-selector-two-stars", [{"op": "add", "path": "/spec/template/spec/vmSize", "value": "x"}], "a class name pattern with two stars.", selector=sel(INFRA, "AzureMachineTemplate", machineDeploymentClass={"names": ["*m*"]}))
bad_patch("x32-template-does-not-parse", [{"op": "add", "path": "/spec/template/spec/location", "valueFrom": {"template": "{{ .location "}}], "a valueFrom.template that does not parse.")
bad_patch("x33-unknown-builtin", [{"op": "add", "path": "/spec/template/spec/location", "valueFrom": {"variable": "builtin.cluster.nope"}}], "a builtin variable that does not exist.")
bad_patch("x34-enabled-if-does-not-parse", [{"op": "add", "path": "/spec/template/spec/location", "value": "x"}], "enabledIf that does not parse.", enabledIf="{{ if }}")
bad_patch("x35-value-from-both", [{"op": "add", "path": "/spec/template/spec/location", "valueFrom": {"variable": "location", "template": "x"}}], "valueFrom with both variable and template.")
bad_patch("x36-replace-negative-index", [{"op": "replace", "path": "/spec/template/spec/items/-1", "value": "x"}], "replace at -1 (Go's Atoi reads it as a number).")

c = base_class(); k = base_cluster()
c["spec"]["patches"] = [patch("", CP_SEL, [{"op": "add", "path": "/spec/template/spec/a", "value": 1}])]
write("x37-empty-patch-name", c, k, comment="a patch without a name.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "x"}, {"name": "network", "value": {"plugin": 5}}]
write("x38-nested-type", c, k, comment="a nested property of the wrong type.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("count", {"type": "integer"}), var("on", {"type": "boolean"}), var("list", {"type": "array", "maxItems": 1, "items": {"type": "string"}})]
k["spec"]["topology"]["variables"] = [{"name": "count", "value": 1.5}, {"name": "on", "value": "yes"}, {"name": "list", "value": ["a", "b"]}]
write("x39-integer-boolean-maxitems", c, k, comment="1.5 for an integer, a string for a boolean, too many items.")

c = vars_class(); k = base_cluster()
k["spec"]["topology"]["variables"] = [{"name": "location", "value": "northeurope"}, {"name": "tags", "value": {"a": "b"}}]
k["spec"]["topology"]["workers"]["machineDeployments"][0]["variables"] = {"overrides": [{"name": "location", "value": "eastus"}]}
k["spec"]["topology"]["controlPlane"] = {"variables": {"overrides": [{"name": "tags", "value": {}}]}}
write("v22-override-empty-object-disables-patch", c, k, comment="a control plane override that makes enabledIf false; an override of a variable the worker's patches do not use.")
print("ok2")

# ---------- third round ----------
c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("cfg", {"type": "object", "properties": {"size": {"type": "integer"}}}),
                          var("free", {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {"a": {"type": "string"}}})]
c["spec"]["patches"] = [patch("cfg", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "cfg: '{{ .cfg | toJson }}'\nfree: '{{ .free | toJson }}'"}}])]
k["spec"]["topology"]["variables"] = [{"name": "cfg", "value": {"size": 2, "extra": True}}, {"name": "free", "value": {"a": "x", "b": {"c": 1}}}]
write("v23-undeclared-fields", c, k, comment="an undeclared field in an object variable; preserve-unknown-fields keeps them.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("opt", {"type": "string", "nullable": True}), var("int", {"type": "integer", "default": 2}), var("num", {"type": "number"})]
c["spec"]["patches"] = [patch("types", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "int: '{{ .int }}'\nnum: '{{ .num }}'\nopt: '{{ .opt }}'\nsum: '{{ add .int 1 }}'"}}]),
    patch("md-class", sel(BOOT, "KubeadmConfigTemplate", machineDeploymentClass={"names": ["md"]}), [{"op": "add", "path": "/spec/template/spec/preKubeadmCommands", "value": ["echo md"]}], enabledIf='{{ eq .builtin.machineDeployment.class "md" }}')]
k["spec"]["topology"]["variables"] = [{"name": "opt", "value": "s"}, {"name": "num", "value": 3}]
write("v24-numbers", c, k, comment="integer and number values in templates, enabledIf on a builtin.")
k["spec"]["topology"]["variables"] = [{"name": "opt", "value": None}, {"name": "num", "value": 3}]
write("x40-null-for-nullable", c, k, comment="null for a variable whose schema says nullable: CAPI's schema type has no nullable.")
print("ok3")

# ---------- fourth round: template and naming rules ----------
c = base_class(); k = base_cluster()
c["spec"]["controlPlane"]["namingStrategy"] = {"template": "{{ .cluster.name }}-CP-{{ .random }}"}
write("x41-naming-not-dns", c, k, comment="a naming template whose names are not DNS-1123 subdomains.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"][0]["namingStrategy"] = {"template": "{{ .cluster.name }}-{{ .machineDeployment.nope }}"}
write("x42-naming-missing-key", c, k, comment="a MachineDeployment naming template with a key CAPI does not provide.")

c = base_class(); k = base_cluster()
c["spec"]["infrastructure"]["ref"]["kind"] = "AzureManagedCluster"
write("x43-ref-kind-not-template", c, k, comment="a template reference whose kind does not end in Template.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machinePools"][0]["template"]["bootstrap"]["ref"]["namespace"] = "other"
write("x44-ref-other-namespace", c, k, comment="a template reference in another namespace.")

c = base_class(); k = base_cluster()
c["spec"]["controlPlane"]["machineHealthCheck"] = {"unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "5m"}]}
write("x45-class-cp-mhc-without-machine-infrastructure", c, k, comment="a class MachineHealthCheck for a control plane without machineInfrastructure.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machinePools"][0]["namingStrategy"] = {"template": "{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}-" + "x" * 60}
write("v25-long-naming-template", c, k, comment="a naming template longer than 63 characters: CAPI trims and adds random characters.")
print("ok4")

# ---------- fifth round: metadata, names, versions ----------
c = base_class(); k = base_cluster()
k["spec"]["topology"]["controlPlane"] = {"metadata": {"labels": {"bad key": "v", "ok": "not ok!"}}}
write("x46-topology-label-invalid", c, k, comment="invalid label key and value in the control plane topology metadata.")

c = base_class(); k = base_cluster()
c["spec"]["workers"]["machineDeployments"][0]["template"]["metadata"] = {"annotations": {"-bad": "x"}}
write("x47-class-annotation-invalid", c, k, comment="an invalid annotation key in a MachineDeployment class.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["name"] = "md_0-"
write("x48-md-name-not-label-value", c, k, comment="a MachineDeployment topology name that is no label value.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["version"] = "v1.31"
write("x49-version-two-parts", c, k, comment="a version with two parts only.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["version"] = "v1.31.2-rc.1+build.5"
write("v26-prerelease-version", c, k, comment="a pre-release version with build metadata.")
print("ok5")

# ---------- sixth round: patches failing at plan time, class variable schemas ----------
def plan_time_patch(name, jp, comment, variables=None, values=None):
    c = base_class(); k = base_cluster()
    c["spec"]["variables"] = variables or [var("location", {"type": "string", "default": "westeurope"}), var("list", {"type": "array", "default": ["a"], "items": {"type": "string"}}), var("obj", {"type": "object", "default": {"a": {"b": "c"}}, "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}})]
    c["spec"]["patches"] = [patch("good", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/a", "value": "b"}]),
                            patch("failing", CP_SEL, jp)]
    if values:
        k["spec"]["topology"]["variables"] = values
    write(name, c, k, comment=comment)

plan_time_patch("x50-add-missing-parent", [{"op": "add", "path": "/spec/template/spec/nope/deeper", "value": "x"}], "add below a field that does not exist.")
plan_time_patch("x51-replace-missing-key", [{"op": "replace", "path": "/spec/template/spec/nope", "value": "x"}], "replace a field that does not exist.")
plan_time_patch("x52-remove-missing-key", [{"op": "remove", "path": "/spec/template/spec/nope"}], "remove a field that does not exist.")
plan_time_patch("x53-template-not-yaml", [{"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"template": "a: [b"}}], "a template whose output is not YAML.")
plan_time_patch("x54-variable-path-missing", [{"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"variable": "obj.a.nope"}}], "valueFrom.variable into a field the value does not have.")
plan_time_patch("x55-variable-index-out-of-range", [{"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"variable": "list[3]"}}], "valueFrom.variable with an index past the end.")
plan_time_patch("x56-template-execution-error", [{"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"template": "{{ index .list 5 }}"}}], "a template that fails while executing.")
plan_time_patch("v27-variable-paths", [{"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"variable": "obj.a.b"}}, {"op": "add", "path": "/spec/template/spec/y", "valueFrom": {"variable": "list[0]"}}, {"op": "add", "path": "/spec/template/spec/z", "valueFrom": {"variable": "obj.a"}}], "valueFrom.variable with nested paths and indexes.")

def bad_schema(name, schema, comment, default_ok=True):
    c = base_class(); k = base_cluster()
    c["spec"]["variables"] = [var("v", schema)]
    write(name, c, k, comment=comment)

bad_schema("x57-schema-unknown-type", {"type": "strin"}, "a variable schema with an unknown type.")
bad_schema("x58-schema-bad-pattern", {"type": "string", "pattern": "(["}, "a variable schema with a pattern that does not compile.")
bad_schema("x59-schema-bad-cel", {"type": "string", "x-kubernetes-validations": [{"rule": "self >"}]}, "a CEL rule that does not compile.")
bad_schema("x60-schema-nested-default-invalid", {"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}}, "a nested default that does not match its schema.")
bad_schema("x61-schema-enum-default-not-in-enum", {"type": "string", "enum": ["a", "b"], "default": "c"}, "a default outside the enum.")
print("ok6")

# ---------- seventh round: patch order, builtins CAPI leaves empty, MachinePool overrides ----------
c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("sku", {"type": "string", "default": "Standard_D2s_v3"})]
c["spec"]["patches"] = [
    patch("first", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/order", "value": "first"}, {"op": "add", "path": "/spec/template/spec/additionalTags/uid", "valueFrom": {"template": "[{{ .builtin.cluster.uid }}]"}}]),
    patch("second", CP_SEL, [{"op": "replace", "path": "/spec/template/spec/additionalTags/order", "value": "second"}]),
    patch("mp", MP_SEL, [{"op": "replace", "path": "/spec/template/spec/sku", "valueFrom": {"variable": "sku"}}, {"op": "add", "path": "/spec/template/spec/nodeLabels/replicas", "valueFrom": {"template": "'{{ .builtin.machinePool.replicas }}'"}}]),
    patch("boot-both", sel(BOOT, "KubeadmConfigTemplate", machineDeploymentClass={"names": ["md"]}, machinePoolClass={"names": ["pool"]}), [{"op": "add", "path": "/spec/template/spec/preKubeadmCommands", "valueFrom": {"template": "- echo {{ if .builtin.machinePool }}pool {{ .builtin.machinePool.topologyName }}{{ else }}md {{ .builtin.machineDeployment.topologyName }}{{ end }}"}}]),
]
k["spec"]["topology"]["workers"]["machinePools"] = [
    {"class": "pool", "name": "mp-0", "replicas": 2, "variables": {"overrides": [{"name": "sku", "value": "Standard_E8s_v3"}]}},
    {"class": "pool", "name": "mp-1"}]
write("v28-patch-order-and-pools", c, k, comment="later patches see earlier ones; uid CAPI leaves empty; MachinePool overrides and builtins; one selector for MD and MP bootstrap templates.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("enabled", {"type": "string", "default": "yes"}), var("num", {"type": "integer", "default": 0})]
c["spec"]["patches"] = [
    patch("yaml-yes", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/yes", "value": "1"}], enabledIf="{{ .enabled }}"),
    patch("true-with-spaces", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/spaces", "value": "1"}], enabledIf="  true\n"),
    patch("zero", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/zero", "value": "1"}], enabledIf="{{ .num }}"),
    patch("True", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags/capital", "value": "1"}], enabledIf="True"),
]
write("v29-enabled-if-yaml", c, k, comment="enabledIf outputs read as YAML: yes, True, padded true, 0.")
print("ok7")

# ---------- eighth round ----------
c = base_class(); k = base_cluster()
k["spec"]["topology"]["class"] = "missing"
write("x62-class-not-found", c, k, comment="the Cluster names a ClusterClass that is not there.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("cfg", {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "ips": {"type": "array", "uniqueItems": True, "minItems": 2, "items": {"type": "string", "format": "ipv4"}}}})]
k["spec"]["topology"]["variables"] = [{"name": "cfg", "value": {"ips": ["1.2.3.4", "1.2.3.4"]}}]
write("x63-required-unique-minitems", c, k, comment="a missing required property, duplicate items.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("ip", {"type": "string", "format": "ipv4"}), var("port", {"x-kubernetes-int-or-string": True})]
k["spec"]["topology"]["variables"] = [{"name": "ip", "value": "300.1.1.1"}, {"name": "port", "value": True}]
write("x64-format-and-int-or-string", c, k, comment="an ipv4 that is not one; a boolean for int-or-string.")

c = base_class(); k = base_cluster()
k["metadata"]["annotations"] = {"topology.cluster.x-k8s.io/upgrade-concurrency": "0"}
write("x65-upgrade-concurrency", c, k, comment="an upgrade concurrency below 1.")

c = base_class(); k = base_cluster()
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"annotations": {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "1", "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "3"}}
write("x66-autoscaler-with-replicas", c, k, comment="autoscaler annotations together with replicas.")

c = base_class(); k = base_cluster()
c["spec"]["variables"] = [var("port", {"x-kubernetes-int-or-string": True}), var("cidr", {"type": "string", "format": "cidr"})]
c["spec"]["patches"] = [patch("p", CP_SEL, [{"op": "add", "path": "/spec/template/spec/additionalTags", "valueFrom": {"template": "port: '{{ .port }}'\ncidr: '{{ .cidr }}'"}}])]
k["spec"]["topology"]["variables"] = [{"name": "port", "value": "8080"}, {"name": "cidr", "value": "10.0.0.0/8"}]
k["spec"]["topology"]["workers"]["machineDeployments"][0]["metadata"] = {"annotations": {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "1", "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "3"}}
del k["spec"]["topology"]["workers"]["machineDeployments"][0]["replicas"]
write("v30-int-or-string-cidr-autoscaler", c, k, comment="int-or-string and cidr values; autoscaler annotations without replicas.")
print("ok8")
