#!/usr/bin/env python3
"""Writes the referee corpus: tests/fixtures/capz-webhooks/cases/*.yaml (one bundle per case).

The bases are CAPZ's own AKS templates (clusterctl `${VAR}` syntax, substituted here with fixed
values) and the bundle `kubectl capz render aks` emits for examples/aks.values.yaml; each case is a
base plus a few edits aimed at one check of CAPZ's webhooks (or at something CAPZ accepts that looks
wrong). The verdicts are NOT written here: tools/capz-webhook-oracle/regen.sh asks CAPZ's webhook code.

Usage: tools/capz-webhook-oracle/gen_cases.py [REFERENCE_TEMPLATES_DIR] [RENDERED_AKS_BUNDLE]
  REFERENCE_TEMPLATES_DIR  CAPZ's templates/ at the targeted revision 69ec3a40a (default: the copies in
                           tests/fixtures/capz-webhooks/sources/capz-templates)
  RENDERED_AKS_BUNDLE      output of `kubectl capz render aks --values examples/aks.values.yaml`
                           (default tests/fixtures/capz-webhooks/sources/rendered-aks.yaml)
Needs PyYAML. The cases it writes are committed; re-running it rewrites them all.
"""
import copy
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests/fixtures/capz-webhooks/cases")
REF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests/fixtures/capz-webhooks/sources/capz-templates")
RENDERED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "tests/fixtures/capz-webhooks/sources/rendered-aks.yaml")

VARS = {
    "CLUSTER_NAME": "ref-aks",
    "CLUSTER_CLASS_NAME": "ref-aks-class",
    "CLUSTER_IDENTITY_NAME": "ref-identity",
    "AZURE_LOCATION": "eastus",
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
    "KUBERNETES_VERSION": "v1.33.2",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
}

# A real ed25519 public key (authorized_keys form), base64-encoded as CAPZ expects.
SSH_KEY_B64 = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUNtN1ZyS0FOZU5PTXN5dDhqU2l5OXZMd2Q5TE5yWGVRK3M1ZXh2ZEVhSzkgcmVmZXJlZQo="


def envsubst(text, values):
    pattern = re.compile(r"\$\{([A-Z_0-9]+)(?::=([^${}]*))?\}")
    while True:
        new = pattern.sub(lambda m: values.get(m.group(1), m.group(2) if m.group(2) is not None else ""), text)
        if new == text:
            return new
        text = new


def load_reference(name, values=VARS):
    with open(os.path.join(REF, name)) as f:
        text = envsubst(f.read(), values)
    return [d for d in yaml.safe_load_all(text) if d]


def load_rendered():
    with open(RENDERED) as f:
        return [d for d in yaml.safe_load_all(f) if d]


CASES = []


def case(name, description, base, *edits):
    docs = copy.deepcopy(base)
    for edit in edits:
        edit(docs)
    CASES.append((name, description, docs))


# --- edits ---------------------------------------------------------------------------------------------

def _find(docs, kind, name=None):
    for d in docs:
        if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name):
            return d
    raise KeyError(f"{kind}/{name} not in bundle")


def _walk(obj, path, create):
    parts = path.split(".")
    for p in parts[:-1]:
        if isinstance(obj, list):
            obj = obj[int(p)]
            continue
        if p not in obj or obj[p] is None:
            if not create:
                return None, None
            obj[p] = {}
        obj = obj[p]
    return obj, parts[-1]


def put(kind, path, value, name=None):
    def edit(docs):
        parent, key = _walk(_find(docs, kind, name), path, True)
        if isinstance(parent, list):
            parent[int(key)] = value
        else:
            parent[key] = copy.deepcopy(value)
    return edit


def drop(kind, path, name=None):
    def edit(docs):
        parent, key = _walk(_find(docs, kind, name), path, False)
        if parent is not None:
            parent.pop(key, None)
    return edit


def label(kind, key, value, name=None):
    return put(kind, "metadata.labels." + key.replace(".", "\x00"), value, name) if False else _label(kind, key, value, name)


def _label(kind, key, value, name):
    def edit(docs):
        d = _find(docs, kind, name)
        d["metadata"].setdefault("labels", {})[key] = value
    return edit


def rename(kind, new_name, name=None):
    def edit(docs):
        d = _find(docs, kind, name)
        old = d["metadata"]["name"]
        d["metadata"]["name"] = new_name
        # keep references pointing at it
        def fix(o):
            if isinstance(o, dict):
                if o.get("kind") == kind and o.get("name") == old and "apiVersion" in o and o is not d:
                    o["name"] = new_name
                for v in o.values():
                    fix(v)
            elif isinstance(o, list):
                for v in o:
                    fix(v)
        for other in docs:
            fix(other.get("spec", {}))
    return edit


def add(doc):
    def edit(docs):
        docs.append(copy.deepcopy(doc))
    return edit


def remove(kind, name=None):
    def edit(docs):
        docs.remove(_find(docs, kind, name))
    return edit


def move_first(kind, name=None):
    def edit(docs):
        d = _find(docs, kind, name)
        docs.remove(d)
        docs.insert(0, d)
    return edit


# --- bases ---------------------------------------------------------------------------------------------

AKS = load_reference("cluster-template-aks.yaml")
AKS_KEYED = copy.deepcopy(AKS)
put("AzureManagedControlPlane", "spec.sshPublicKey", SSH_KEY_B64)(AKS_KEYED)
AKS_CC = load_reference("cluster-template-aks-clusterclass.yaml")
AKS_TOPO = load_reference("cluster-template-aks-topology.yaml")
AKS_ASO = load_reference("cluster-template-aks-aso.yaml")
AKS_ASO_CC = load_reference("cluster-template-aks-aso-clusterclass.yaml")
AKS_ASO_MAINT = load_reference("cluster-template-aks-aso-maintenance.yaml")
RENDERED_AKS = load_rendered()

AMCP = "AzureManagedControlPlane"
AMCPT = "AzureManagedControlPlaneTemplate"
AMMP = "AzureManagedMachinePool"
AMMPT = "AzureManagedMachinePoolTemplate"
AMC = "AzureManagedCluster"
AMCT = "AzureManagedClusterTemplate"
ACI = "AzureClusterIdentity"
POOL0 = "ref-aks-pool0"
POOL1 = "ref-aks-pool1"
CP_T = "ref-aks-control-plane"

# --- valid bases ------------------------------------------------------------------------------------------

case("base-aks-reference", "CAPZ's aks template as clusterctl generates it (empty sshPublicKey: the webhook generates one)", AKS)
case("base-aks-reference-with-ssh-key", "aks template with an SSH key", AKS_KEYED)
case("base-aks-clusterclass-reference", "CAPZ's aks-clusterclass template", AKS_CC)
case("base-aks-topology-reference", "CAPZ's aks-topology template (a Cluster only)", AKS_TOPO)
case("base-aks-aso-reference", "CAPZ's aks-aso template", AKS_ASO)
case("base-aks-aso-clusterclass-reference", "CAPZ's aks-aso-clusterclass template", AKS_ASO_CC)
case("base-aks-aso-maintenance-reference", "CAPZ's aks-aso-maintenance template", AKS_ASO_MAINT)
case("base-aks-rendered", "kubectl capz render aks --values examples/aks.values.yaml", RENDERED_AKS)
case("base-aks-resource-group-defaulted", "AZURE_RESOURCE_GROUP unset: resourceGroupName defaults to the cluster name in the template", load_reference("cluster-template-aks.yaml", {k: v for k, v in VARS.items()}))

# --- AzureManagedControlPlane: version ------------------------------------------------------------------
for name, value, what in [
    ("no-v-prefix", "1.33.2", "version without v: the webhook adds it"),
    ("major-minor-only", "v1.33", "version without patch"),
    ("word", "latest", "not a version"),
    ("prerelease", "v1.33.2-rc.1", "pre-release suffix"),
    ("leading-zero", "v01.33.2", "leading zero in major"),
    ("build-metadata", "v1.33.2+build.1", "build metadata"),
    ("single-char", "v", "one character"),
    ("double-v", "vv1.33.2", "two v prefixes"),
    ("spaces", " v1.33.2", "leading space"),
]:
    case(f"amcp-version-{name}", what, AKS_KEYED, put(AMCP, "spec.version", value))
case("amcpt-version-no-v-prefix", "template version without v", AKS_CC, put(AMCPT, "spec.template.spec.version", "1.33.2"))
case("amcpt-version-word", "template version not semver", AKS_CC, put(AMCPT, "spec.template.spec.version", "stable"))

# --- SSH key ---------------------------------------------------------------------------------------------
case("amcp-ssh-key-not-base64", "sshPublicKey not base64", AKS, put(AMCP, "spec.sshPublicKey", "ssh-rsa AAAA not base64!"))
case("amcp-ssh-key-base64-garbage", "sshPublicKey base64 of something that is not a key", AKS, put(AMCP, "spec.sshPublicKey", "aGVsbG8gd29ybGQ="))
case("amcp-ssh-key-absent", "no sshPublicKey at all (nil: nothing generated)", AKS, drop(AMCP, "spec.sshPublicKey"))

# --- identity --------------------------------------------------------------------------------------------
UAI = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cp"
case("amcp-identity-user-assigned-no-id", "UserAssigned identity without resource ID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned"}))
case("amcp-identity-user-assigned-with-id", "UserAssigned identity with resource ID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}))
case("amcp-identity-system-assigned-with-id", "SystemAssigned identity with a resource ID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "SystemAssigned", "userAssignedIdentityResourceID": UAI}))
case("amcp-identity-type-bogus", "identity type not in the enum", AKS_KEYED, put(AMCP, "spec.identity", {"type": "Both"}))
case("amcp-identity-ref-missing-kind", "identityRef without kind (CAPZ accepts)", AKS_KEYED, drop(AMCP, "spec.identityRef.kind"))

# --- network plugin / policy / dataplane -------------------------------------------------------------------
case("amcp-overlay-kubenet", "overlay with kubenet", AKS_KEYED, put(AMCP, "spec.networkPlugin", "kubenet"), put(AMCP, "spec.networkPluginMode", "overlay"))
case("amcp-overlay-azure", "azure CNI overlay", AKS_KEYED, put(AMCP, "spec.networkPlugin", "azure"), put(AMCP, "spec.networkPluginMode", "overlay"))
case("amcp-kubenet-calico", "kubenet with calico", AKS_KEYED, put(AMCP, "spec.networkPlugin", "kubenet"), put(AMCP, "spec.networkPolicy", "calico"))
case("amcp-cilium-full", "cilium dataplane + cilium policy + overlay", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.networkPolicy", "cilium"), put(AMCP, "spec.networkDataplane", "cilium"))
case("amcp-cilium-dataplane-no-overlay", "cilium dataplane without overlay", AKS_KEYED, put(AMCP, "spec.networkPolicy", "cilium"), put(AMCP, "spec.networkDataplane", "cilium"))
case("amcp-cilium-dataplane-no-policy", "cilium dataplane with overlay, no policy", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.networkDataplane", "cilium"))
case("amcp-cilium-dataplane-calico-policy", "cilium dataplane with calico policy", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.networkPolicy", "calico"), put(AMCP, "spec.networkDataplane", "cilium"))
case("amcp-cilium-policy-azure-dataplane", "cilium policy with azure dataplane", AKS_KEYED, put(AMCP, "spec.networkPolicy", "cilium"), put(AMCP, "spec.networkDataplane", "azure"))
case("amcp-cilium-policy-no-dataplane", "cilium policy, dataplane unset (CAPZ accepts)", AKS_KEYED, put(AMCP, "spec.networkPolicy", "cilium"))
case("amcp-network-plugin-none", "networkPlugin none (BYO CNI)", AKS_KEYED, put(AMCP, "spec.networkPlugin", "none"))
case("amcp-network-plugin-bogus", "networkPlugin not in the enum", AKS_KEYED, put(AMCP, "spec.networkPlugin", "flannel"))
case("amcp-network-policy-azure-kubenet", "azure network policy with kubenet (CAPZ accepts; AKS refuses)", AKS_KEYED, put(AMCP, "spec.networkPlugin", "kubenet"), put(AMCP, "spec.networkPolicy", "azure"))
case("amcpt-cilium-dataplane-no-overlay", "template: cilium dataplane without overlay", AKS_CC, put(AMCPT, "spec.template.spec.networkPolicy", "cilium"), put(AMCPT, "spec.template.spec.networkDataplane", "cilium"))
case("amcpt-overlay-kubenet", "template: overlay with kubenet (instance check only)", AKS_CC, put(AMCPT, "spec.template.spec.networkPlugin", "kubenet"), put(AMCPT, "spec.template.spec.networkPluginMode", "overlay"))
case("amcpt-cilium-policy-azure-dataplane", "template: cilium policy with azure dataplane", AKS_CC, put(AMCPT, "spec.template.spec.networkPolicy", "cilium"), put(AMCPT, "spec.template.spec.networkDataplane", "azure"))

# --- DNS prefix -------------------------------------------------------------------------------------------
for name, value, what in [
    ("leading-hyphen", "-ref", "starts with a hyphen"),
    ("one-char", "a", "one character (regex needs two)"),
    ("two-chars", "ab", "two characters"),
    ("max-54", "a" * 54, "54 characters"),
    ("too-long-55", "a" * 55, "55 characters"),
    ("underscore", "ref_aks", "underscore"),
    ("empty", "", "empty string (not defaulted: only nil is)"),
    ("uppercase", "RefAks", "uppercase letters"),
]:
    case(f"amcp-dns-prefix-{name}", what, AKS_KEYED, put(AMCP, "spec.dnsPrefix", value))
case("amcp-dns-prefix-defaulted-bad-name", "no dnsPrefix; metadata.name ends with a hyphen-free but 60-char name", AKS_KEYED, rename(AMCP, "r" * 60))
case("amcpt-dns-prefix-invalid", "template: invalid dnsPrefix (not checked on templates)", AKS_CC, put(AMCPT, "spec.template.spec.dnsPrefix", "-bad-"))

# --- names ------------------------------------------------------------------------------------------------
case("amcp-name-microsoft", "AzureManagedControlPlane name contains microsoft", AKS_KEYED, rename(AMCP, "my-microsoft-aks"))
case("amcp-name-windows-uppercase", "AzureManagedControlPlane name contains WINDOWS (case-insensitive)", AKS_KEYED, rename(AMCP, "team-WINDOWS-x".lower().replace("windows", "windows")))
case("amcpt-name-windows", "template name contains windows", AKS_CC, rename(AMCPT, "windows-cp", CP_T))
case("cluster-name-microsoft", "Cluster name contains microsoft; AMCP name clean", AKS_KEYED, rename("Cluster", "microsoft-ref"))

# --- disableLocalAccounts / AAD ----------------------------------------------------------------------------
AAD = {"managed": True, "adminGroupObjectIDs": ["00000000-0000-0000-0000-0000000000aa"]}
case("amcp-disable-local-accounts-no-aad", "disableLocalAccounts without aadProfile", AKS_KEYED, put(AMCP, "spec.disableLocalAccounts", True))
case("amcp-disable-local-accounts-false-no-aad", "disableLocalAccounts: false without aadProfile (still denied: only nil passes)", AKS_KEYED, put(AMCP, "spec.disableLocalAccounts", False))
case("amcp-disable-local-accounts-with-aad", "disableLocalAccounts with aadProfile", AKS_KEYED, put(AMCP, "spec.disableLocalAccounts", True), put(AMCP, "spec.aadProfile", AAD))
case("amcp-aad-empty-admin-groups", "aadProfile with no admin groups (only the update path checks)", AKS_KEYED, put(AMCP, "spec.aadProfile", {"managed": True, "adminGroupObjectIDs": []}))
case("amcp-aad-unmanaged", "aadProfile managed: false", AKS_KEYED, put(AMCP, "spec.aadProfile", {"managed": False, "adminGroupObjectIDs": ["x"]}))
case("amcp-aad-missing-managed", "aadProfile without managed (schema requires it)", AKS_KEYED, put(AMCP, "spec.aadProfile", {"adminGroupObjectIDs": ["x"]}))
case("amcpt-aad-empty-admin-groups", "template aadProfile with no admin groups", AKS_CC, put(AMCPT, "spec.template.spec.aadProfile", {"managed": True, "adminGroupObjectIDs": []}))
case("amcpt-disable-local-accounts-no-aad", "template disableLocalAccounts without AAD (instance check only)", AKS_CC, put(AMCPT, "spec.template.spec.disableLocalAccounts", True))

# --- load balancer profile ----------------------------------------------------------------------------------
for name, lbp, what in [
    ("managed-ips-0", {"managedOutboundIPs": 0}, "managedOutboundIPs 0"),
    ("managed-ips-101", {"managedOutboundIPs": 101}, "managedOutboundIPs 101"),
    ("managed-ips-100", {"managedOutboundIPs": 100}, "managedOutboundIPs 100"),
    ("ports-negative", {"allocatedOutboundPorts": -8}, "allocatedOutboundPorts negative"),
    ("ports-64001", {"allocatedOutboundPorts": 64001}, "allocatedOutboundPorts 64001"),
    ("idle-3", {"idleTimeoutInMinutes": 3}, "idleTimeoutInMinutes 3"),
    ("idle-121", {"idleTimeoutInMinutes": 121}, "idleTimeoutInMinutes 121"),
    ("idle-4", {"idleTimeoutInMinutes": 4}, "idleTimeoutInMinutes 4"),
    ("two-outbound-kinds", {"managedOutboundIPs": 2, "outboundIPs": ["/subscriptions/x/ip1"]}, "managed IPs and outbound IPs"),
    ("prefixes-and-ips", {"outboundIPPrefixes": ["/p"], "outboundIPs": ["/ip"]}, "prefixes and IPs"),
]:
    case(f"amcp-lb-{name}", what, AKS_KEYED, put(AMCP, "spec.loadBalancerProfile", lbp))
case("amcpt-lb-managed-ips-0", "template managedOutboundIPs 0", AKS_CC, put(AMCPT, "spec.template.spec.loadBalancerProfile", {"managedOutboundIPs": 0}))
case("amcp-lb-sku-basic", "loadBalancerSKU Basic (CAPZ accepts)", AKS_KEYED, put(AMCP, "spec.loadBalancerSKU", "Basic"))

# --- cluster network: DNS service IP vs the Cluster (fires once the cluster-name label is there) ---------------
CLUSTER = "Cluster"
case("amcp-dns-ip-in-cidr", "dnsServiceIP .10 inside the service CIDR", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcp-dns-ip-outside-cidr", "dnsServiceIP outside the service CIDR", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "10.0.0.10"))
case("amcp-dns-ip-not-dot-10", "dnsServiceIP inside the CIDR but not .10", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.0.53"))
case("amcp-dns-ip-not-an-ip", "dnsServiceIP not an IP", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.0"))
case("amcp-dns-ip-no-service-cidr", "dnsServiceIP but the Cluster has no service CIDR", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "10.0.0.10"), drop(CLUSTER, "spec.clusterNetwork"))
case("amcp-two-service-cidrs", "Cluster with two service CIDRs", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["192.168.0.0/16", "10.96.0.0/12"]))
case("amcp-two-pod-cidrs", "Cluster with two pod CIDRs", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.pods.cidrBlocks", ["10.244.0.0/16", "10.245.0.0/16"]))
case("amcp-dns-ip-labelled-at-create", "dnsServiceIP outside the CIDR, cluster-name label already set by the user", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "10.0.0.10"), label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"))
case("amcp-labelled-cluster-missing", "cluster-name label names a Cluster that does not exist", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "nope"))
case("amcp-labelled-before-cluster", "cluster-name label set, AMCP applied before its Cluster", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"), move_first(AMCP))
case("amcp-dns-ip-ipv6-cidr", "IPv6 service CIDR with an IPv6 dnsServiceIP ending in ::10? (.10 check)", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["fd00::/108"]), put(AMCP, "spec.dnsServiceIP", "fd00::10"))
case("amcp-service-cidr-invalid", "Cluster service CIDR not a CIDR, dnsServiceIP set", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["192.168.0.0"]), put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcpt-dns-ip-outside", "template dnsServiceIP (templates are never labelled)", AKS_CC, put(AMCPT, "spec.template.spec.dnsServiceIP", "10.0.0.10"))
case("amcp-dns-ip-rendered-outside", "rendered bundle, dnsServiceIP outside the service CIDR", RENDERED_AKS, put(AMCP, "spec.dnsServiceIP", "10.0.0.10"))

# --- virtual network & private endpoints ---------------------------------------------------------------------
VNET = {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24"}}
PLS = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa"
case("amcp-vnet-custom", "custom vnet, subnet inside", AKS_KEYED, put(AMCP, "spec.virtualNetwork", VNET))
case("amcp-vnet-subnet-outside", "subnet CIDR outside the vnet", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {"name": "nodes", "cidrBlock": "10.20.1.0/24"}}))
case("amcp-vnet-cidr-invalid", "vnet CIDR not a CIDR", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "cidrBlock": "10.10.0.0"}))
case("amcp-vnet-subnet-cidr-invalid", "subnet CIDR not a CIDR", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {"name": "nodes", "cidrBlock": "nope"}}))
case("amcp-vnet-name-only", "vnet name only: CIDRs defaulted by the CRD", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {"name": "vnet", "cidrBlock": "10.0.0.0/8"}))
case("amcp-vnet-overlay-defaults", "overlay: webhook picks the overlay vnet defaults", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"))
case("amcp-private-endpoint-ok", "private endpoint with IP in the subnet", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS, "groupIDs": ["blob"]}], "privateIPAddresses": ["10.10.1.5"]}]}}))
case("amcp-private-endpoint-ip-outside", "private endpoint IP outside the subnet", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}], "privateIPAddresses": ["10.99.1.5"]}]}}))
case("amcp-private-endpoint-no-connections", "private endpoint without connections", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1"}]}}))
case("amcp-private-endpoint-bad-name", "private endpoint name with a space", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe 1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}]}]}}))
case("amcp-private-endpoint-bad-service-id", "private link service ID not a resource ID", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": "not-an-id"}]}]}}))
case("amcp-private-endpoint-empty-service-id", "private link service ID empty", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"name": "c1"}]}]}}))
case("amcpt-vnet-subnet-outside", "template subnet outside the vnet", AKS_CC, put(AMCPT, "spec.template.spec.virtualNetwork", {"cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.20.1.0/24"}}))
case("amcpt-private-endpoint-ip-outside", "template private endpoint IP outside the subnet", AKS_CC, put(AMCPT, "spec.template.spec.virtualNetwork", {"cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24", "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}], "privateIPAddresses": ["10.99.1.5"]}]}}))

# --- API server access profile ----------------------------------------------------------------------------------
ZONE = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/"
for name, prof, what in [
    ("authorized-ranges-ok", {"authorizedIPRanges": ["1.2.3.0/24"]}, "authorized range CIDR"),
    ("authorized-range-not-cidr", {"authorizedIPRanges": ["1.2.3.4"]}, "authorized range without a prefix length"),
    ("private-dns-system", {"enablePrivateCluster": True, "privateDNSZone": "System"}, "privateDNSZone System"),
    ("private-dns-none-lower", {"enablePrivateCluster": True, "privateDNSZone": "none"}, "privateDNSZone none (lowercase)"),
    ("private-dns-garbage", {"enablePrivateCluster": True, "privateDNSZone": "myzone"}, "privateDNSZone neither keyword nor resource ID"),
    ("private-dns-not-private", {"privateDNSZone": ZONE + "privatelink.eastus.azmk8s.io"}, "zone resource ID without private cluster"),
    ("private-dns-ok", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "privatelink.eastus.azmk8s.io"}, "valid zone resource ID"),
    ("private-dns-subzone-ok", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "team-a.private.eastus.azmk8s.io"}, "valid subzone"),
    ("private-dns-bad-zone-name", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "example.com"}, "zone ID with a wrong zone name"),
    ("private-dns-subzone-too-long", {"enablePrivateCluster": True, "privateDNSZone": ZONE + ("x" * 33) + ".privatelink.eastus.azmk8s.io"}, "subzone label of 33 characters"),
    ("private-cluster-public-fqdn", {"enablePrivateCluster": True, "enablePrivateClusterPublicFQDN": True}, "private cluster with public FQDN"),
    ("public-fqdn-without-private", {"enablePrivateClusterPublicFQDN": True}, "public FQDN flag on a public cluster (CAPZ accepts)"),
]:
    case(f"amcp-apiserver-{name}", what, AKS_KEYED, put(AMCP, "spec.apiServerAccessProfile", prof))
case("amcpt-apiserver-private-dns-garbage", "template privateDNSZone garbage", AKS_CC, put(AMCPT, "spec.template.spec.apiServerAccessProfile", {"enablePrivateCluster": True, "privateDNSZone": "myzone"}))
case("amcpt-apiserver-authorized-range-not-cidr", "template authorized range not a CIDR", AKS_CC, put(AMCPT, "spec.template.spec.apiServerAccessProfile", {"authorizedIPRanges": ["10.0.0.1"]}))

# --- autoscaler profile ----------------------------------------------------------------------------------------------
for key, value, what in [
    ("maxEmptyBulkDelete", "abc", "not an integer"),
    ("maxEmptyBulkDelete", "-1", "negative"),
    ("maxEmptyBulkDelete", "0", "zero (CAPZ says greater than zero, checks >= 0)"),
    ("maxGracefulTerminationSec", "-5", "negative (pattern)"),
    ("maxNodeProvisionTime", "15s", "seconds instead of minutes"),
    ("maxTotalUnreadyPercentage", "101", "over 100"),
    ("newPodScaleUpDelay", "abc", "not a duration"),
    ("newPodScaleUpDelay", "1h30m", "a Go duration"),
    ("okTotalUnreadyCount", "x", "not an integer"),
    ("scanInterval", "10m", "minutes instead of seconds"),
    ("scaleDownDelayAfterAdd", "10s", "seconds instead of minutes"),
    ("scaleDownDelayAfterDelete", "1m", "minutes instead of seconds"),
    ("scaleDownDelayAfterFailure", "3", "no unit"),
    ("scaleDownUnneededTime", "10h", "hours"),
    ("scaleDownUnreadyTime", "20", "no unit"),
    ("scaleDownUtilizationThreshold", "1.5", "over 1"),
    ("scaleDownUtilizationThreshold", "half", "not a number"),
    ("scaleDownUtilizationThreshold", "0.7", "valid"),
    ("expander", "fastest", "expander not in the enum"),
    ("balanceSimilarNodeGroups", "yes", "not true/false"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{key}-{value}".lower()).strip("-")
    case(f"amcp-autoscaler-{slug}", f"autoscalerProfile.{key} = {value!r}: {what}", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {key: value}))
case("amcp-autoscaler-empty", "empty autoscalerProfile: the CRD fills every default", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {}))
case("amcpt-autoscaler-scan-interval-minutes", "template scanInterval in minutes", AKS_CC, put(AMCPT, "spec.template.spec.autoscalerProfile", {"scanInterval": "1m"}))
case("amcpt-autoscaler-threshold-over-1", "template scaleDownUtilizationThreshold 2", AKS_CC, put(AMCPT, "spec.template.spec.autoscalerProfile", {"scaleDownUtilizationThreshold": "2"}))

# --- AKS extensions ----------------------------------------------------------------------------------------------------
EXT = {"name": "flux", "extensionType": "microsoft.flux"}
for name, ext, what in [
    ("plain", EXT, "extension without scope"),
    ("version-autoupgrade-default", {**EXT, "version": "1.2.3"}, "version with autoUpgradeMinorVersion defaulted true"),
    ("version-autoupgrade-false", {**EXT, "version": "1.2.3", "autoUpgradeMinorVersion": False}, "version with autoUpgradeMinorVersion false"),
    ("release-train-autoupgrade-false", {**EXT, "releaseTrain": "stable", "autoUpgradeMinorVersion": False}, "releaseTrain with autoUpgradeMinorVersion false (CAPZ's pointer comparison never fires)"),
    ("scope-cluster-ok", {**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "flux-system"}}, "cluster scope with releaseNamespace (update path compares scope pointers)"),
    ("scope-cluster-no-release-ns", {**EXT, "scope": {"scopeType": "Cluster"}}, "cluster scope without releaseNamespace"),
    ("scope-cluster-target-ns", {**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "a", "targetNamespace": "b"}}, "cluster scope with targetNamespace"),
    ("scope-namespace-ok", {**EXT, "scope": {"scopeType": "Namespace", "targetNamespace": "apps"}}, "namespace scope with targetNamespace"),
    ("scope-namespace-no-target", {**EXT, "scope": {"scopeType": "Namespace"}}, "namespace scope without targetNamespace"),
    ("scope-namespace-release-ns", {**EXT, "scope": {"scopeType": "Namespace", "targetNamespace": "a", "releaseNamespace": "b"}}, "namespace scope with releaseNamespace"),
    ("plan-no-name", {**EXT, "plan": {"product": "p", "publisher": "pub"}}, "plan without name: the webhook names it"),
    ("identity-system", {**EXT, "identity": "SystemAssigned"}, "identity SystemAssigned"),
]:
    case(f"amcp-extension-{name}", what, AKS_KEYED, put(AMCP, "spec.extensions", [ext]))
case("amcpt-extension-scope-cluster-no-release-ns", "template: cluster scope without releaseNamespace", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [{**EXT, "scope": {"scopeType": "Cluster"}}]))
case("amcpt-extension-version-autoupgrade-default", "template: version with autoUpgradeMinorVersion default", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [{**EXT, "version": "1.0.0"}]))
case("amcpt-extension-scope-cluster-ok", "template: cluster scope ok (templates updated only by owner refs)", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [{**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "flux-system"}}]))

# --- security profile / OIDC --------------------------------------------------------------------------------------------
KMS = {"enabled": True, "keyID": "https://kv.vault.azure.net/keys/k/1"}
case("amcp-kms-system-identity", "KMS without UserAssigned identity", AKS_KEYED, put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": KMS}))
case("amcp-kms-private-no-vault-id", "KMS private without keyVaultResourceID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": {**KMS, "keyVaultNetworkAccess": "Private"}}))
case("amcp-kms-public-with-vault-id", "KMS public with keyVaultResourceID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": {**KMS, "keyVaultResourceID": "/subscriptions/x/kv"}}))
case("amcp-kms-ok", "KMS public with UserAssigned identity", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": KMS}))
case("amcp-workload-identity-oidc-on", "workload identity with OIDC on", AKS_KEYED, put(AMCP, "spec.securityProfile", {"workloadIdentity": {"enabled": True}}))
case("amcp-workload-identity-oidc-off", "workload identity with OIDC off", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {"enabled": False}), put(AMCP, "spec.securityProfile", {"workloadIdentity": {"enabled": True}}))
case("amcp-workload-identity-oidc-absent", "workload identity, no oidcIssuerProfile (defaulted to disabled)", AKS_KEYED, drop(AMCP, "spec.oidcIssuerProfile"), put(AMCP, "spec.securityProfile", {"workloadIdentity": {"enabled": True}}))
case("amcp-workload-identity-disabled-oidc-off", "workloadIdentity enabled: false with OIDC off (still denied: the block's presence counts)", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {"enabled": False}), put(AMCP, "spec.securityProfile", {"workloadIdentity": {"enabled": False}}))
case("amcp-image-cleaner-interval-low", "imageCleaner intervalHours 12", AKS_KEYED, put(AMCP, "spec.securityProfile", {"imageCleaner": {"enabled": True, "intervalHours": 12}}))
case("amcp-defender", "defender profile", AKS_KEYED, put(AMCP, "spec.securityProfile", {"defender": {"logAnalyticsWorkspaceResourceID": "/subscriptions/x/ws", "securityMonitoring": {"enabled": True}}}))
case("amcpt-kms-system-identity", "template KMS without UserAssigned identity", AKS_CC, put(AMCPT, "spec.template.spec.securityProfile", {"azureKeyVaultKms": KMS}))
case("amcpt-workload-identity-oidc-absent", "template workload identity without OIDC", AKS_CC, put(AMCPT, "spec.template.spec.securityProfile", {"workloadIdentity": {"enabled": True}}))

# --- SKU, fleets, upgrade, misc --------------------------------------------------------------------------------------------
case("amcp-sku-paid", "sku tier Paid: webhook rewrites to Standard", AKS_KEYED, put(AMCP, "spec.sku", {"tier": "Paid"}))
case("amcp-sku-standard", "sku tier Standard", AKS_KEYED, put(AMCP, "spec.sku", {"tier": "Standard"}))
case("amcp-sku-premium", "sku tier Premium (not in the CRD enum)", AKS_KEYED, put(AMCP, "spec.sku", {"tier": "Premium"}))
case("amcp-fleets-member-bad-name", "fleetsMember name with uppercase", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"name": "Bad_Name", "managerName": "fleet", "managerResourceGroup": "rg"}))
case("amcp-fleets-member-defaulted-name", "fleetsMember without name: defaulted from the cluster-name label at update", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"managerName": "fleet", "managerResourceGroup": "rg"}))
case("amcp-fleets-member-cluster-name-uppercase", "fleetsMember name defaulted from an uppercase Cluster name", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"managerName": "fleet", "managerResourceGroup": "rg"}), rename(CLUSTER, "RefAKS"))
case("amcp-upgrade-channel-bogus", "upgradeChannel not in the enum", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {"upgradeChannel": "weekly"}))
case("amcp-upgrade-channel-stable", "upgradeChannel stable", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {"upgradeChannel": "stable"}))
case("amcp-outbound-type-udr", "outboundType userDefinedRouting", AKS_KEYED, put(AMCP, "spec.outboundType", "userDefinedRouting"))
case("amcp-outbound-type-bogus", "outboundType not in the enum", AKS_KEYED, put(AMCP, "spec.outboundType", "nat"))
case("amcp-resource-group-missing", "no resourceGroupName (CRD requires it)", AKS_KEYED, drop(AMCP, "spec.resourceGroupName"))
case("amcp-resource-group-empty", "resourceGroupName empty: defaulted from the label at update, then immutable", AKS_KEYED, put(AMCP, "spec.resourceGroupName", ""))
case("amcp-node-resource-group-set", "nodeResourceGroupName set explicitly", AKS_KEYED, put(AMCP, "spec.nodeResourceGroupName", "my-node-rg"))
case("amcp-location-missing", "no location (CRD requires it)", AKS_KEYED, drop(AMCP, "spec.location"))
case("amcp-version-missing", "no version (CRD requires it)", AKS_KEYED, drop(AMCP, "spec.version"))
case("amcp-addon-profiles", "addon profiles", AKS_KEYED, put(AMCP, "spec.addonProfiles", [{"name": "azurepolicy", "enabled": True}]))
case("amcp-http-proxy", "httpProxyConfig", AKS_KEYED, put(AMCP, "spec.httpProxyConfig", {"httpProxy": "http://proxy:3128", "noProxy": ["localhost"]}))
case("amcp-unknown-field", "a field CAPZ's CRD does not have (ASO spelling)", AKS_KEYED, put(AMCP, "spec.kubernetesVersion", "1.33.2"))
case("amcp-oidc-disabled", "OIDC explicitly disabled", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {"enabled": False}))
case("amcp-no-cluster-in-bundle", "AMCP alone (no Cluster references it: no first update)", [d for d in AKS_KEYED if d["kind"] in (AMCP, ACI)])

# --- AzureManagedMachinePool -----------------------------------------------------------------------------------------------
for name, value, what in [("9", 9, "below 10"), ("10", 10, "minimum"), ("250", 250, "maximum"), ("251", 251, "above 250")]:
    case(f"ammp-max-pods-{name}", f"maxPods {value}: {what}", AKS_KEYED, put(AMMP, "spec.maxPods", value, POOL1))
case("ammpt-max-pods-9", "template maxPods 9", AKS_CC, put(AMMPT, "spec.template.spec.maxPods", 9, POOL1))
case("ammp-system-windows", "System pool with osType Windows", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL0), put(AMMP, "spec.name", "win0", POOL0))
case("ammp-user-windows-ok", "User pool Windows with a 6-char name", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), put(AMMP, "spec.name", "win123", POOL1))
case("ammp-user-windows-name-7", "Windows pool name of 7 characters", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), put(AMMP, "spec.name", "winpool", POOL1))
case("ammp-windows-no-spec-name", "Windows pool without spec.name: defaulted to metadata.name (too long)", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), drop(AMMP, "spec.name", POOL1))
case("ammpt-system-windows", "template System pool Windows", AKS_CC, put(AMMPT, "spec.template.spec.osType", "Windows", POOL0))
for name, value, what in [
    ("uppercase", "Pool1", "uppercase letter"),
    ("hyphen", "pool-1", "hyphen"),
    ("digit-first", "1pool", "starts with a digit"),
    ("13-chars", "poolpoolpool1", "13 characters"),
    ("12-chars", "poolpoolpool", "12 characters"),
    ("empty", "", "empty: defaulted to metadata.name"),
]:
    case(f"ammp-name-{name}", f"spec.name {value!r}: {what}", AKS_KEYED, put(AMMP, "spec.name", value, POOL1))
case("ammp-no-spec-name-long-metadata", "no spec.name; metadata.name ref-aks-pool1 (hyphens, 13 chars)", AKS_KEYED, drop(AMMP, "spec.name", POOL1))
case("ammp-no-spec-name-good-metadata", "no spec.name; metadata.name pool1", AKS_KEYED, drop(AMMP, "spec.name", POOL1), rename(AMMP, "pool1", POOL1))
case("ammpt-name-uppercase", "template spec.name uppercase", AKS_CC, put(AMMPT, "spec.template.spec.name", "Pool1", POOL1))
case("ammpt-no-spec-name", "template without spec.name: defaulted to metadata.name", AKS_CC, drop(AMMPT, "spec.template.spec.name", POOL1))
case("ammp-node-label-azure-prefix", "node label kubernetes.azure.com/...", AKS_KEYED, put(AMMP, "spec.nodeLabels", {"kubernetes.azure.com/scalesetpriority": "spot"}, POOL1))
case("ammp-node-label-ok", "ordinary node labels", AKS_KEYED, put(AMMP, "spec.nodeLabels", {"team": "a", "example.com/tier": "web"}, POOL1))
case("ammp-node-label-invalid-key", "node label key that is not a label key (CAPZ accepts)", AKS_KEYED, put(AMMP, "spec.nodeLabels", {"bad key!": "x"}, POOL1))
case("ammpt-node-label-azure-prefix", "template node label kubernetes.azure.com/...", AKS_CC, put(AMMPT, "spec.template.spec.nodeLabels", {"kubernetes.azure.com/mode": "user"}, POOL1))
PREFIX = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p"
case("ammp-public-ip-prefix-ok", "node public IP prefix with enableNodePublicIP", AKS_KEYED, put(AMMP, "spec.enableNodePublicIP", True, POOL1), put(AMMP, "spec.nodePublicIPPrefixID", PREFIX, POOL1))
case("ammp-public-ip-prefix-without-enable", "node public IP prefix without enableNodePublicIP", AKS_KEYED, put(AMMP, "spec.nodePublicIPPrefixID", PREFIX, POOL1))
case("ammp-public-ip-prefix-bad-id", "node public IP prefix not a prefix ID", AKS_KEYED, put(AMMP, "spec.enableNodePublicIP", True, POOL1), put(AMMP, "spec.nodePublicIPPrefixID", "/subscriptions/x/p", POOL1))
case("ammpt-public-ip-prefix-without-enable", "template public IP prefix without enable", AKS_CC, put(AMMPT, "spec.template.spec.nodePublicIPPrefixID", PREFIX, POOL1))
for name, kc, what in [
    ("cfs-no-ms", {"cpuCfsQuotaPeriod": "100"}, "cpuCfsQuotaPeriod without ms"),
    ("cfs-ok", {"cpuCfsQuotaPeriod": "100ms"}, "cpuCfsQuotaPeriod 100ms"),
    ("gc-low-above-high", {"imageGcHighThreshold": 70, "imageGcLowThreshold": 80}, "imageGcLowThreshold above high"),
    ("gc-over-100", {"imageGcHighThreshold": 101}, "imageGcHighThreshold 101"),
    ("sysctl-unsupported", {"allowedUnsafeSysctls": ["kernel.foo"]}, "unsafe sysctl not allowed"),
    ("sysctl-ok", {"allowedUnsafeSysctls": ["net.core.somaxconn", "kernel.shmmax", "kernel.sem", "fs.mqueue.msg_max"]}, "allowed unsafe sysctls"),
    ("sysctl-kernel-shm-bare", {"allowedUnsafeSysctls": ["kernel.shm"]}, "kernel.shm (pattern needs a suffix)"),
    ("container-log-files-1", {"containerLogMaxFiles": 1}, "containerLogMaxFiles 1"),
    ("topology-policy-bogus", {"topologyManagerPolicy": "strict"}, "topologyManagerPolicy not in the enum"),
]:
    case(f"ammp-kubelet-{name}", what, AKS_KEYED, put(AMMP, "spec.kubeletConfig", kc, POOL1))
case("ammpt-kubelet-sysctl-unsupported", "template unsafe sysctl not allowed", AKS_CC, put(AMMPT, "spec.template.spec.kubeletConfig", {"allowedUnsafeSysctls": ["vm.swappiness"]}, POOL1))
for name, lc, kc, what in [
    ("swap-no-kubelet", {"swapFileSizeMB": 1024}, None, "swap without kubeletConfig"),
    ("swap-failswapon-true", {"swapFileSizeMB": 1024}, {"failSwapOn": True}, "swap with failSwapOn true"),
    ("swap-ok", {"swapFileSizeMB": 1024}, {"failSwapOn": False}, "swap with failSwapOn false"),
    ("port-range-dash", {"sysctls": {"netIpv4IPLocalPortRange": "32768-60999"}}, None, "port range with a dash"),
    ("port-range-first-low", {"sysctls": {"netIpv4IPLocalPortRange": "1000 60999"}}, None, "first port below 1024"),
    ("port-range-last-low", {"sysctls": {"netIpv4IPLocalPortRange": "2000 30000"}}, None, "last port below 32768"),
    ("port-range-reversed", {"sysctls": {"netIpv4IPLocalPortRange": "60000 40000"}}, None, "first port above last"),
    ("port-range-ok", {"sysctls": {"netIpv4IPLocalPortRange": "32768 60999"}}, None, "valid port range"),
    ("aso-spelling", {"sysctls": {"netIpv4IpLocalPortRange": "1000 2000"}}, None, "ASO's spelling of the sysctl: unknown to CAPZ's CRD, pruned"),
    ("sysctl-out-of-range", {"sysctls": {"vmSwappiness": 101}}, None, "vmSwappiness 101 (CRD maximum)"),
    ("thp-bogus", {"transparentHugePageEnabled": "sometimes"}, None, "transparentHugePageEnabled not in the enum"),
]:
    edits = [put(AMMP, "spec.linuxOSConfig", lc, POOL1)]
    if kc is not None:
        edits.append(put(AMMP, "spec.kubeletConfig", kc, POOL1))
    case(f"ammp-linux-{name}", what, AKS_KEYED, *edits)
case("ammpt-linux-port-range-reversed", "template port range reversed", AKS_CC, put(AMMPT, "spec.template.spec.linuxOSConfig", {"sysctls": {"netIpv4IPLocalPortRange": "60000 40000"}}, POOL1))
case("ammpt-linux-swap-no-kubelet", "template swap without kubelet config", AKS_CC, put(AMMPT, "spec.template.spec.linuxOSConfig", {"swapFileSizeMB": 512}, POOL1))
for name, value, what in [("leading-dot", ".subnet", "starts with a dot"), ("ok", "node-subnet_1.a", "dots, dashes, underscores"), ("81-chars", "s" * 81, "81 characters")]:
    case(f"ammp-subnet-name-{name}", what, AKS_KEYED, put(AMMP, "spec.subnetName", value, POOL1))
case("ammpt-subnet-name-leading-dot", "template subnet name starting with a dot (not checked on templates)", AKS_CC, put(AMMPT, "spec.template.spec.subnetName", ".subnet", POOL1))
case("ammp-scaling-min-above-max", "scaling minSize above maxSize (CAPZ accepts)", AKS_KEYED, put(AMMP, "spec.scaling", {"minSize": 5, "maxSize": 2}, POOL1))
case("ammp-scaling-negative", "scaling minSize negative (CAPZ accepts)", AKS_KEYED, put(AMMP, "spec.scaling", {"minSize": -1, "maxSize": 2}, POOL1))
case("ammp-scaling-ok", "scaling 1..5", AKS_KEYED, put(AMMP, "spec.scaling", {"minSize": 1, "maxSize": 5}, POOL1))
case("ammp-os-disk-tiny", "osDiskSizeGB 1 (CAPZ accepts)", AKS_KEYED, put(AMMP, "spec.osDiskSizeGB", 1, POOL1))
case("ammp-os-disk-ephemeral", "osDiskType Ephemeral", AKS_KEYED, put(AMMP, "spec.osDiskType", "Ephemeral", POOL1))
case("ammp-os-disk-type-bogus", "osDiskType not in the enum", AKS_KEYED, put(AMMP, "spec.osDiskType", "Premium", POOL1))
case("ammp-taint-effect-bogus", "taint effect not in the enum", AKS_KEYED, put(AMMP, "spec.taints", [{"key": "k", "value": "v", "effect": "Never"}], POOL1))
case("ammp-taint-ok", "taint NoSchedule", AKS_KEYED, put(AMMP, "spec.taints", [{"key": "k", "value": "v", "effect": "NoSchedule"}], POOL1))
case("ammp-taint-system-pool-noschedule", "System pool tainted NoSchedule (CAPZ accepts)", AKS_KEYED, put(AMMP, "spec.taints", [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}], POOL0))
case("ammp-mode-bogus", "mode not in the enum", AKS_KEYED, put(AMMP, "spec.mode", "Worker", POOL1))
case("ammp-no-system-pool", "both pools User (CAPZ's webhook does not check at create)", AKS_KEYED, put(AMMP, "spec.mode", "User", POOL0))
case("ammp-sku-missing", "no sku (CRD requires it)", AKS_KEYED, drop(AMMP, "spec.sku", POOL1))
case("ammp-spot", "Spot pool with spotMaxPrice", AKS_KEYED, put(AMMP, "spec.scaleSetPriority", "Spot", POOL1), put(AMMP, "spec.spotMaxPrice", "0.5", POOL1))
case("ammp-spot-max-price-bad", "spotMaxPrice not a quantity", AKS_KEYED, put(AMMP, "spec.scaleSetPriority", "Spot", POOL1), put(AMMP, "spec.spotMaxPrice", "cheap", POOL1))
case("ammp-availability-zones", "availability zones", AKS_KEYED, put(AMMP, "spec.availabilityZones", ["1", "2", "3"], POOL1))
case("ammp-fips-encryption", "FIPS and encryption at host", AKS_KEYED, put(AMMP, "spec.enableFIPS", True, POOL1), put(AMMP, "spec.enableEncryptionAtHost", True, POOL1))
case("ammp-no-machinepool", "AzureManagedMachinePool without its MachinePool (no first update)", AKS_KEYED, remove("MachinePool", POOL1))
case("ammp-mode-label-preset", "user sets the agentpoolmode label to the wrong mode", AKS_KEYED, label(AMMP, "azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode", "User", POOL0))
case("ammp-before-cluster", "pools applied before the Cluster", AKS_KEYED, move_first(AMMP, POOL1), move_first(AMMP, POOL0))
case("ammp-rendered-pool-name-bad", "rendered bundle with an uppercase pool name", RENDERED_AKS, lambda docs: [d["spec"].__setitem__("name", "Spark") for d in docs if d.get("kind") == AMMP and d["spec"].get("name") == "spark"])

# --- AzureManagedCluster(Template) --------------------------------------------------------------------------------------------
case("amc-control-plane-endpoint", "AzureManagedCluster with a controlPlaneEndpoint", AKS_KEYED, put(AMC, "spec.controlPlaneEndpoint", {"host": "x.example.com", "port": 443}))
case("amc-unknown-field", "AzureManagedCluster with an unknown field", AKS_KEYED, put(AMC, "spec.location", "eastus"))
case("amc-port-string", "AzureManagedCluster port not an integer", AKS_KEYED, put(AMC, "spec.controlPlaneEndpoint", {"host": "x", "port": "443"}))
case("amct-with-endpoint", "AzureManagedClusterTemplate with controlPlaneEndpoint (no webhook at create)", AKS_CC, put(AMCT, "spec.template.spec", {"controlPlaneEndpoint": {"host": "x", "port": 6443}}))
case("amct-unknown-field", "AzureManagedClusterTemplate unknown field", AKS_CC, put(AMCT, "spec.template.spec", {"foo": "bar"}))

# --- AzureClusterIdentity --------------------------------------------------------------------------------------------------------
for name, spec_edit, what in [
    ("service-principal-with-resource-id", {"type": "ServicePrincipal", "resourceID": UAI}, "ServicePrincipal with resourceID"),
    ("msi-with-resource-id", {"type": "UserAssignedMSI", "resourceID": UAI}, "UserAssignedMSI with resourceID"),
    ("workload-with-credentials-path", {"type": "WorkloadIdentity", "userAssignedIdentityCredentialsPath": "/var/run/creds"}, "WorkloadIdentity with credentials path"),
    ("workload-with-cloud-type", {"type": "WorkloadIdentity", "userAssignedIdentityCredentialsCloudType": "public"}, "WorkloadIdentity with cloud type"),
    ("uaic-ok", {"type": "UserAssignedIdentityCredential", "userAssignedIdentityCredentialsPath": "/var/run/creds", "userAssignedIdentityCredentialsCloudType": "public"}, "UserAssignedIdentityCredential with path"),
    ("uaic-no-path", {"type": "UserAssignedIdentityCredential"}, "UserAssignedIdentityCredential without a path (CAPZ accepts)"),
    ("type-bogus", {"type": "Magic"}, "type not in the enum"),
    ("service-principal-no-secret", {"type": "ServicePrincipal"}, "ServicePrincipal without clientSecret (CAPZ accepts)"),
    ("manual-sp", {"type": "ManualServicePrincipal", "clientSecret": {"name": "s", "namespace": "default"}}, "ManualServicePrincipal"),
    ("cert", {"type": "ServicePrincipalCertificate", "certPath": "/cert"}, "ServicePrincipalCertificate"),
]:
    def edit(docs, spec_edit=spec_edit):
        d = _find(docs, ACI)
        d["spec"].update(copy.deepcopy(spec_edit))
    case(f"aci-{name}", what, AKS_KEYED, edit)
case("aci-no-client-id", "AzureClusterIdentity without clientID (CRD requires it)", AKS_KEYED, drop(ACI, "spec.clientID"))
case("aci-allowed-namespaces-list", "allowedNamespaces list", AKS_KEYED, put(ACI, "spec.allowedNamespaces", {"list": ["default", "team-a"]}))
case("aci-in-clusterclass-sp-resource-id", "clusterclass bundle identity ServicePrincipal with resourceID", AKS_CC, put(ACI, "spec.type", "ServicePrincipal"), put(ACI, "spec.resourceID", UAI))

# --- ClusterClass / templates -----------------------------------------------------------------------------------------------------
case("amcpt-resource-group-set", "AMCP template with resourceGroupName", AKS_CC, put(AMCPT, "spec.template.spec.resourceGroupName", "rg"))
case("amcpt-ssh-key-garbage", "template sshPublicKey garbage (checked only on instances)", AKS_CC, put(AMCPT, "spec.template.spec.sshPublicKey", "not-a-key"))
case("amcpt-identity-user-assigned-no-id", "template UserAssigned without resource ID (instance check only)", AKS_CC, put(AMCPT, "spec.template.spec.identity", {"type": "UserAssigned"}))
case("amcpt-fleets-member-bad-name", "template fleetsMember bad name (instance check only)", AKS_CC, put(AMCPT, "spec.template.spec.fleetsMember", {"name": "Bad", "managerName": "f", "managerResourceGroup": "rg"}))
case("amcpt-sku-paid", "template sku Paid", AKS_CC, put(AMCPT, "spec.template.spec.sku", {"tier": "Paid"}))
case("amcpt-unknown-field", "template with a field the CRD lacks", AKS_CC, put(AMCPT, "spec.template.spec.resourceGroup", "rg"))
case("cc-templates-without-clusterclass", "templates without their ClusterClass (no owner-reference update)", AKS_CC, remove("ClusterClass"))
case("ammpt-kubelet-gc-low-above-high", "template imageGcLowThreshold above high", AKS_CC, put(AMMPT, "spec.template.spec.kubeletConfig", {"imageGcHighThreshold": 50, "imageGcLowThreshold": 60}, POOL1))
case("ammpt-kubelet-cfs-no-ms", "template cpuCfsQuotaPeriod without ms", AKS_CC, put(AMMPT, "spec.template.spec.kubeletConfig", {"cpuCfsQuotaPeriod": "50"}, POOL1))
case("ammpt-max-pods-251", "template maxPods 251", AKS_CC, put(AMMPT, "spec.template.spec.maxPods", 251, POOL1))
case("ammpt-windows-name-7", "template Windows pool name 7 chars", AKS_CC, put(AMMPT, "spec.template.spec.osType", "Windows", POOL1), put(AMMPT, "spec.template.spec.name", "winpool", POOL1))

case("cc-with-topology-cluster", "aks-clusterclass plus the aks-topology Cluster that uses it", AKS_CC + AKS_TOPO)
case("amcpt-dns-ip-labelled-outside", "template labelled with a cluster-name (by hand) and a dnsServiceIP outside that Cluster's service CIDR (Cluster applied first)", AKS_TOPO + AKS_CC, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["10.96.0.0/16"]), put(AMCPT, "spec.template.spec.dnsServiceIP", "10.0.0.10"), label(AMCPT, "cluster.x-k8s.io/cluster-name", "ref-aks"))
case("amcpt-dns-ip-labelled-no-cluster", "template labelled with a cluster-name whose Cluster is not in the bundle", AKS_CC, label(AMCPT, "cluster.x-k8s.io/cluster-name", "ref-aks"))
case("amcpt-private-endpoint-labelled", "template labelled, private endpoint IP outside its subnet (Cluster applied first)", AKS_TOPO + AKS_CC, label(AMCPT, "cluster.x-k8s.io/cluster-name", "ref-aks"), put(AMCPT, "spec.template.spec.virtualNetwork", {"cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24", "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}], "privateIPAddresses": ["10.99.1.5"]}]}}))
case("amcp-private-endpoint-labelled-at-create", "private endpoint IP outside the subnet, cluster-name label set by the user", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"), put(AMCP, "spec.virtualNetwork", {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": [{"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}], "privateIPAddresses": ["10.99.1.5"]}]}}))
case("amcp-aad-empty-admin-groups-rendered", "rendered bundle with aadProfile and no admin groups", RENDERED_AKS, put(AMCP, "spec.aadProfile", {"managed": True, "adminGroupObjectIDs": []}))
case("amcp-extension-scope-rendered", "rendered bundle with a cluster-scoped extension", RENDERED_AKS, put(AMCP, "spec.extensions", [{**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "flux-system"}}]))

# --- aks-aso ------------------------------------------------------------------------------------------------------------------------
AAMCP = "AzureASOManagedControlPlane"
AAMMP = "AzureASOManagedMachinePool"
AAMC = "AzureASOManagedCluster"


def aso_resource(kind_owner, res_kind, path, value, name=None):
    def edit(docs):
        d = _find(docs, kind_owner, name)
        for r in d["spec"]["resources"]:
            if r.get("kind") == res_kind:
                parent, key = _walk(r, path, True)
                parent[key] = copy.deepcopy(value)
                return
        raise KeyError(res_kind)
    return edit


case("aso-agent-pool-profiles-set", "embedded ManagedCluster with agentPoolProfiles (the mutator refuses later; webhook accepts)", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "spec.agentPoolProfiles", [{"name": "x", "count": 1}]))
case("aso-kubernetes-version-mismatch", "embedded ManagedCluster kubernetesVersion differs from spec.version", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "spec.kubernetesVersion", "1.30.0"))
case("aso-version-no-v", "AzureASOManagedControlPlane version without v (no defaulting webhook)", AKS_ASO, put(AAMCP, "spec.version", "1.33.2"))
case("aso-version-garbage", "AzureASOManagedControlPlane version garbage", AKS_ASO, put(AAMCP, "spec.version", "latest"))
case("aso-pool-count-mismatch", "embedded agent pool count differs from the MachinePool replicas", AKS_ASO, aso_resource(AAMMP, "ManagedClustersAgentPool", "spec.count", 7, "ref-aks-pool0"))
case("aso-no-resources", "AzureASOManagedControlPlane without resources", AKS_ASO, put(AAMCP, "spec.resources", []))
case("aso-reconcile-policy-manage", "reconcile-policy manage annotation on an embedded resource", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "metadata.annotations", {"serviceoperator.azure.com/reconcile-policy": "manage"}))
case("aso-cluster-unknown-field", "AzureASOManagedCluster with an unknown field", AKS_ASO, put(AAMC, "spec.location", "eastus"))
case("aso-pool-name-uppercase", "embedded agent pool azureName uppercase", AKS_ASO, aso_resource(AAMMP, "ManagedClustersAgentPool", "spec.azureName", "Pool0", "ref-aks-pool0"))
case("aso-dns-prefix-invalid", "embedded ManagedCluster dnsPrefix invalid", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "spec.dnsPrefix", "-bad-"))
case("aso-cc-version-garbage", "aks-aso-clusterclass control plane template version garbage (no ASO template webhook)", AKS_ASO_CC, put("AzureASOManagedControlPlaneTemplate", "spec.template.spec.version", "latest"))

# --- mixed / ordering -----------------------------------------------------------------------------------------------------------------
case("mixed-many-errors", "several create-time errors on one control plane", AKS_KEYED, put(AMCP, "spec.version", "latest"), put(AMCP, "spec.dnsPrefix", "-x"), put(AMCP, "spec.loadBalancerProfile", {"managedOutboundIPs": 0}), rename(AMCP, "windows-cp"))
case("mixed-create-and-update-errors", "a create-time error on a pool and an update-time error on the control plane", AKS_KEYED, put(AMMP, "spec.maxPods", 5, POOL1), put(AMCP, "spec.dnsServiceIP", "10.0.0.10"))
case("namespace-omitted", "documents without namespace (kubectl applies them to default)", AKS_KEYED, lambda docs: [d["metadata"].pop("namespace", None) for d in docs])
case("namespace-other", "all objects in namespace team-a", AKS_KEYED, lambda docs: [d["metadata"].__setitem__("namespace", "team-a") for d in docs])


# =====================================================================================================================
# Widening (webhook-widen): boundaries, empty vs absent, defaulting-then-validation, case sensitivity, several errors
# on one object, unknown fields and wrong types. Each case names the CAPZ branch it aims at.
# =====================================================================================================================

# --- AMCP version: kubeSemver ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_\.+]*)?$ after NormalizeVersion
for name, value, what in [
    ("trailing-dash", "v1.33.2-", "suffix of one dash (the suffix class allows it)"),
    ("underscore-suffix", "v1.33.2_hotfix", "underscore suffix"),
    ("four-parts", "v1.33.2.4", "a fourth dotted number (suffix class)"),
    ("leading-zero-patch", "v1.33.02", "leading zero in patch"),
    ("leading-zero-minor", "v1.033.2", "leading zero in minor"),
    ("zeros", "v0.0.0", "all zeros"),
    ("uppercase-v", "V1.33.2", "uppercase V: normalized to vV1.33.2"),
    ("empty", "", "empty string (not normalized)"),
    ("no-v-major-minor", "1.33", "no v, no patch"),
    ("trailing-space", "v1.33.2 ", "trailing space"),
    ("bang", "v1.33.2!", "suffix with a character outside the class"),
    ("prerelease-and-build", "v1.33.2-rc.1+build.5", "pre-release and build metadata"),
    ("no-v-leading-zero", "01.33.2", "no v and a leading zero"),
    ("big-numbers", "v100.2000.30000", "large numbers"),
    ("no-v-prerelease", "1.34.0-alpha.1", "no v with a pre-release"),
]:
    case(f"amcp-version-{name}", what, AKS_KEYED, put(AMCP, "spec.version", value))
case("amcp-version-number", "version written as a YAML number (schema: string)", AKS_KEYED, put(AMCP, "spec.version", 1.33))
for name, value, what in [
    ("uppercase-v", "V1.33.2", "template version with uppercase V"),
    ("empty", "", "template version empty"),
    ("leading-zero-patch", "v1.33.02", "template leading zero in patch"),
    ("trailing-dash", "v1.33.2-", "template version suffix of one dash"),
    ("major-minor-only", "v1.33", "template version without patch"),
]:
    case(f"amcpt-version-{name}", what, AKS_CC, put(AMCPT, "spec.template.spec.version", value))

# --- DNS prefix: ^[a-zA-Z0-9][a-zA-Z0-9-]{0,52}[a-zA-Z0-9]$ (nil defaults to metadata.name)
for name, value, what in [
    ("trailing-hyphen", "ref-", "ends with a hyphen"),
    ("digit-first", "1ref", "starts with a digit"),
    ("double-hyphen", "a--b", "two hyphens inside"),
    ("max-54-with-hyphens", "a" + "-b" * 26 + "c", "54 characters with hyphens"),
    ("dot", "ref.aks", "a dot"),
    ("non-ascii", "réf", "a non-ASCII letter"),
    ("all-digits", "12345", "digits only"),
]:
    case(f"amcp-dns-prefix-{name}", what, AKS_KEYED, put(AMCP, "spec.dnsPrefix", value))
case("amcp-dns-prefix-defaulted-54", "no dnsPrefix; metadata.name of 54 characters (boundary, admitted)", AKS_KEYED, rename(AMCP, "r" * 54))
case("amcp-dns-prefix-defaulted-55", "no dnsPrefix; metadata.name of 55 characters", AKS_KEYED, rename(AMCP, "r" * 55))
case("amcp-dns-prefix-defaulted-dot", "no dnsPrefix; metadata.name with a dot", AKS_KEYED, rename(AMCP, "ref.aks"))
case("amcpt-dns-prefix-too-long", "template dnsPrefix of 60 characters (not checked on templates)", AKS_CC, put(AMCPT, "spec.template.spec.dnsPrefix", "a" * 60))

# --- validateName: microsoft / windows anywhere in metadata.name, case-insensitive
case("amcp-name-windows-suffix", "name ends with windows", AKS_KEYED, rename(AMCP, "aks-windows"))
case("amcp-name-microsof", "name microsof (not the whole word: admitted)", AKS_KEYED, rename(AMCP, "microsof-aks"))
case("amcp-name-win-dows", "name win-dows (split: admitted)", AKS_KEYED, rename(AMCP, "win-dows"))
case("amcp-name-microsoft-embedded", "microsoft embedded without separators", AKS_KEYED, rename(AMCP, "amicrosoftb"))
case("amcpt-name-microsoft", "template name contains microsoft", AKS_CC, rename(AMCPT, "microsoft-cp", CP_T))
case("amcpt-name-windo", "template name windo (admitted)", AKS_CC, rename(AMCPT, "windo-cp", CP_T))

# --- SSH key: base64 (StdEncoding) of an authorized_keys line
SSH_LINE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICm7VrKANeNOMsyt8jSiy9vLwd9LNrXeQ+s5exvdEaK9 referee"
import base64 as _b64
case("amcp-ssh-key-plain-line", "sshPublicKey as the plain authorized_keys line (not base64)", AKS, put(AMCP, "spec.sshPublicKey", SSH_LINE))
case("amcp-ssh-key-no-padding", "sshPublicKey base64 without its padding", AKS, put(AMCP, "spec.sshPublicKey", _b64.b64encode((SSH_LINE + "\n").encode()).decode().rstrip("=")))
case("amcp-ssh-key-no-comment", "sshPublicKey base64 of a key without comment or newline", AKS, put(AMCP, "spec.sshPublicKey", _b64.b64encode(SSH_LINE.rsplit(" ", 1)[0].encode()).decode()))
case("amcp-ssh-key-urlsafe", "sshPublicKey in URL-safe base64", AKS, put(AMCP, "spec.sshPublicKey", _b64.urlsafe_b64encode((SSH_LINE + "\n").encode()).decode()))
case("amcp-ssh-key-wrapped", "sshPublicKey base64 with a line break inside", AKS, put(AMCP, "spec.sshPublicKey", SSH_KEY_B64[:40] + "\n" + SSH_KEY_B64[40:]))
case("amcp-ssh-key-truncated-blob", "sshPublicKey base64 of a key whose blob is cut short", AKS, put(AMCP, "spec.sshPublicKey", _b64.b64encode(b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICm7 x\n").decode()))
case("amcp-ssh-key-space", "sshPublicKey a single space", AKS, put(AMCP, "spec.sshPublicKey", " "))

# --- identity ----------------------------------------------------------------------------------------------
case("amcp-identity-empty-object", "identity {} (type defaulted by the CRD?)", AKS_KEYED, put(AMCP, "spec.identity", {}))
case("amcp-identity-system-assigned", "identity SystemAssigned without resource ID", AKS_KEYED, put(AMCP, "spec.identity", {"type": "SystemAssigned"}))
case("amcp-identity-type-lowercase", "identity type userassigned (enum is case-sensitive)", AKS_KEYED, put(AMCP, "spec.identity", {"type": "userassigned", "userAssignedIdentityResourceID": UAI}))
case("amcp-identity-only-resource-id", "identity with a resource ID and no type", AKS_KEYED, put(AMCP, "spec.identity", {"userAssignedIdentityResourceID": UAI}))

# --- load balancer profile boundaries ------------------------------------------------------------------------------
for name, lbp, what in [
    ("managed-ips-1", {"managedOutboundIPs": 1}, "managedOutboundIPs 1 (minimum)"),
    ("ports-0", {"allocatedOutboundPorts": 0}, "allocatedOutboundPorts 0 (minimum)"),
    ("ports-64000", {"allocatedOutboundPorts": 64000}, "allocatedOutboundPorts 64000 (maximum)"),
    ("idle-120", {"idleTimeoutInMinutes": 120}, "idleTimeoutInMinutes 120 (maximum)"),
    ("all-three-kinds", {"managedOutboundIPs": 1, "outboundIPPrefixes": ["/p"], "outboundIPs": ["/ip"]}, "all three outbound kinds"),
    ("empty-lists-and-managed", {"managedOutboundIPs": 2, "outboundIPPrefixes": [], "outboundIPs": []}, "managed IPs with empty prefix and IP lists (admitted)"),
    ("several-out-of-range", {"managedOutboundIPs": 0, "allocatedOutboundPorts": 70000, "idleTimeoutInMinutes": 1}, "three values out of range at once"),
    ("empty", {}, "empty loadBalancerProfile"),
    ("managed-ips-negative", {"managedOutboundIPs": -1}, "managedOutboundIPs negative"),
]:
    case(f"amcp-lb-{name}", what, AKS_KEYED, put(AMCP, "spec.loadBalancerProfile", lbp))
case("amcpt-lb-idle-121", "template idleTimeoutInMinutes 121", AKS_CC, put(AMCPT, "spec.template.spec.loadBalancerProfile", {"idleTimeoutInMinutes": 121}))
case("amcpt-lb-two-kinds", "template managed IPs and outbound IPs", AKS_CC, put(AMCPT, "spec.template.spec.loadBalancerProfile", {"managedOutboundIPs": 1, "outboundIPs": ["/ip"]}))
case("amcpt-lb-ports-64000", "template allocatedOutboundPorts 64000 (admitted)", AKS_CC, put(AMCPT, "spec.template.spec.loadBalancerProfile", {"allocatedOutboundPorts": 64000}))

# --- API server access profile edges ----------------------------------------------------------------------------
for name, prof, what in [
    ("authorized-range-ipv6", {"authorizedIPRanges": ["2001:db8::/32"]}, "IPv6 authorized range"),
    ("authorized-range-prefix-33", {"authorizedIPRanges": ["1.2.3.0/33"]}, "prefix length 33"),
    ("authorized-range-host-bits", {"authorizedIPRanges": ["1.2.3.4/24"]}, "range with host bits set (ParseCIDR accepts)"),
    ("authorized-ranges-two-bad", {"authorizedIPRanges": ["x", "1.2.3.0/24", "y/8"]}, "two invalid ranges among three"),
    ("private-dns-system-upper", {"enablePrivateCluster": True, "privateDNSZone": "SYSTEM"}, "privateDNSZone SYSTEM (case-insensitive)"),
    ("private-dns-none-mixed", {"enablePrivateCluster": True, "privateDNSZone": "None"}, "privateDNSZone None"),
    ("private-dns-empty", {"enablePrivateCluster": True, "privateDNSZone": ""}, "privateDNSZone empty string (neither keyword nor resource ID)"),
    ("private-dns-keyword-not-private", {"privateDNSZone": "System"}, "keyword zone on a public cluster (admitted)"),
    ("private-dns-mixed-case-id", {"enablePrivateCluster": True, "privateDNSZone": ZONE.replace("privateDnsZones", "PrivateDNSZones") + "PrivateLink.EastUS.azmk8s.io"}, "zone ID in mixed case (lowercased before matching)"),
    ("private-dns-subzone-32", {"enablePrivateCluster": True, "privateDNSZone": ZONE + ("x" * 32) + ".privatelink.eastus.azmk8s.io"}, "subzone label of 32 characters (maximum)"),
    ("private-dns-location-hyphen", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "privatelink.east-us.azmk8s.io"}, "location with a hyphen"),
    ("private-dns-private-prefix", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "private.eastus.azmk8s.io"}, "private.<location> zone"),
    ("private-dns-explicit-false", {"enablePrivateCluster": False, "privateDNSZone": ZONE + "privatelink.eastus.azmk8s.io"}, "zone ID with enablePrivateCluster false"),
    ("private-dns-bare-segment", {"enablePrivateCluster": True, "privateDNSZone": "privateDnsZones/privatelink.eastus.azmk8s.io"}, "only the privateDnsZones/ segment, no full ID"),
    ("private-dns-subzone-underscore", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "team_a.privatelink.eastus.azmk8s.io"}, "subzone with an underscore"),
    ("empty", {}, "empty apiServerAccessProfile"),
]:
    case(f"amcp-apiserver-{name}", what, AKS_KEYED, put(AMCP, "spec.apiServerAccessProfile", prof))
case("amcpt-apiserver-private-dns-empty", "template privateDNSZone empty", AKS_CC, put(AMCPT, "spec.template.spec.apiServerAccessProfile", {"enablePrivateCluster": True, "privateDNSZone": ""}))
case("amcpt-apiserver-zone-not-private", "template zone ID without private cluster", AKS_CC, put(AMCPT, "spec.template.spec.apiServerAccessProfile", {"privateDNSZone": ZONE + "privatelink.eastus.azmk8s.io"}))
case("amcpt-apiserver-authorized-ipv6", "template IPv6 authorized range (admitted)", AKS_CC, put(AMCPT, "spec.template.spec.apiServerAccessProfile", {"authorizedIPRanges": ["2001:db8::/32"]}))

# --- autoscaler profile edges (webhook parsing vs CRD patterns) ------------------------------------------------------
for key, value, what in [
    ("maxEmptyBulkDelete", "+5", "plus sign (Atoi accepts)"),
    ("maxEmptyBulkDelete", "10", "valid"),
    ("maxGracefulTerminationSec", "0", "zero"),
    ("maxNodeProvisionTime", "0m", "zero minutes"),
    ("maxNodeProvisionTime", "15M", "uppercase unit"),
    ("maxTotalUnreadyPercentage", "0", "zero (minimum)"),
    ("maxTotalUnreadyPercentage", "100", "100 (maximum)"),
    ("maxTotalUnreadyPercentage", "-1", "negative"),
    ("maxTotalUnreadyPercentage", "45.5", "a decimal"),
    ("newPodScaleUpDelay", "0", "zero without unit (ParseDuration accepts)"),
    ("newPodScaleUpDelay", "10", "number without unit"),
    ("newPodScaleUpDelay", "-5s", "negative duration"),
    ("newPodScaleUpDelay", "500ms", "milliseconds"),
    ("okTotalUnreadyCount", "-3", "negative"),
    ("okTotalUnreadyCount", "0", "zero"),
    ("scanInterval", "0s", "zero seconds"),
    ("scanInterval", "10", "no unit"),
    ("scaleDownDelayAfterAdd", "0m", "zero minutes"),
    ("scaleDownDelayAfterDelete", "0s", "zero seconds"),
    ("scaleDownDelayAfterFailure", "3m", "valid minutes"),
    ("scaleDownUnneededTime", "10s", "seconds instead of minutes"),
    ("scaleDownUnreadyTime", "20m", "valid"),
    ("scaleDownUtilizationThreshold", "0", "zero"),
    ("scaleDownUtilizationThreshold", "1", "one (maximum)"),
    ("scaleDownUtilizationThreshold", "1.0001", "just above one"),
    ("scaleDownUtilizationThreshold", ".5", "no leading zero"),
    ("scaleDownUtilizationThreshold", "-0.1", "negative"),
    ("scaleDownUtilizationThreshold", "1e-1", "exponent notation"),
    ("scaleDownUtilizationThreshold", "NaN", "NaN (ParseFloat accepts, comparisons false)"),
    ("expander", "priority", "expander priority"),
    ("expander", "Random", "expander with uppercase"),
    ("balanceSimilarNodeGroups", "True", "True with uppercase"),
    ("skipNodesWithLocalStorage", "false", "valid"),
    ("skipNodesWithSystemPods", "no", "not true/false"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{key}-{value}".lower()).strip("-")
    cname = f"amcp-autoscaler-{slug}"
    if any(c[0] == cname for c in CASES):
        cname += "-edge"
    case(cname, f"autoscalerProfile.{key} = {value!r}: {what}", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {key: value}))
case("amcp-autoscaler-several-bad", "several autoscaler values invalid at once", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {"scanInterval": "1m", "scaleDownUnneededTime": "5s", "maxTotalUnreadyPercentage": "150", "scaleDownUtilizationThreshold": "2"}))
case("amcpt-autoscaler-max-total-unready-150", "template maxTotalUnreadyPercentage 150", AKS_CC, put(AMCPT, "spec.template.spec.autoscalerProfile", {"maxTotalUnreadyPercentage": "150"}))
case("amcpt-autoscaler-new-pod-delay-bad", "template newPodScaleUpDelay not a duration", AKS_CC, put(AMCPT, "spec.template.spec.autoscalerProfile", {"newPodScaleUpDelay": "soon"}))
case("amcpt-autoscaler-delete-delay-minutes", "template scaleDownDelayAfterDelete in minutes", AKS_CC, put(AMCPT, "spec.template.spec.autoscalerProfile", {"scaleDownDelayAfterDelete": "1m"}))

# --- AKS extensions edges --------------------------------------------------------------------------------------------
for name, exts, what in [
    ("version-autoupgrade-true", [{**EXT, "version": "1.2.3", "autoUpgradeMinorVersion": True}], "version with autoUpgradeMinorVersion true"),
    ("release-train-autoupgrade-true", [{**EXT, "releaseTrain": "stable", "autoUpgradeMinorVersion": True}], "releaseTrain with autoUpgradeMinorVersion true (admitted)"),
    ("namespace-both-missing", [{**EXT, "scope": {"scopeType": "Namespace"}}, {**EXT, "name": "other", "scope": {"scopeType": "Cluster"}}], "two extensions, each scope missing its namespace"),
    ("scope-cluster-both-ns", [{**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "", "targetNamespace": "b"}}], "cluster scope with empty releaseNamespace and a targetNamespace"),
    ("scope-type-bogus", [{**EXT, "scope": {"scopeType": "Global", "releaseNamespace": "a"}}], "scopeType not in the enum"),
    ("plan-with-name", [{**EXT, "plan": {"name": "p1", "product": "p", "publisher": "pub"}}], "plan with a name"),
    ("config-settings", [{**EXT, "configurationSettings": {"a": "b"}}], "configuration settings"),
    ("two-ok", [EXT, {**EXT, "name": "dapr", "extensionType": "microsoft.dapr"}], "two valid extensions"),
    ("version-and-bad-scope", [{**EXT, "version": "1.0.0", "scope": {"scopeType": "Namespace", "releaseNamespace": "x"}}], "version with default auto-upgrade and a namespace scope with releaseNamespace"),
]:
    case(f"amcp-extension-{name}", what, AKS_KEYED, put(AMCP, "spec.extensions", exts))
case("amcpt-extension-namespace-no-target", "template namespace scope without targetNamespace", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [{**EXT, "scope": {"scopeType": "Namespace"}}]))
case("amcpt-extension-version-autoupgrade-false", "template version with autoUpgradeMinorVersion false (admitted)", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [{**EXT, "version": "1.0.0", "autoUpgradeMinorVersion": False}]))

# --- security profile edges ------------------------------------------------------------------------------------------
case("amcp-kms-private-with-vault-id", "KMS private with keyVaultResourceID and UserAssigned identity (admitted)", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": {**KMS, "keyVaultNetworkAccess": "Private", "keyVaultResourceID": "/subscriptions/x/kv"}}))
case("amcp-kms-explicit-system-identity", "KMS with identity SystemAssigned explicitly", AKS_KEYED, put(AMCP, "spec.identity", {"type": "SystemAssigned"}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": KMS}))
case("amcp-kms-disabled-no-identity", "KMS enabled: false without UserAssigned identity (still denied: the block counts)", AKS_KEYED, put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": {**KMS, "enabled": False}}))
case("amcp-kms-network-access-bogus", "KMS keyVaultNetworkAccess not in the enum", AKS_KEYED, put(AMCP, "spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": {**KMS, "keyVaultNetworkAccess": "Internal"}}))
case("amcp-image-cleaner-24", "imageCleaner intervalHours 24 (minimum)", AKS_KEYED, put(AMCP, "spec.securityProfile", {"imageCleaner": {"enabled": True, "intervalHours": 24}}))
case("amcp-image-cleaner-2160", "imageCleaner intervalHours 2160 (maximum)", AKS_KEYED, put(AMCP, "spec.securityProfile", {"imageCleaner": {"enabled": True, "intervalHours": 2160}}))
case("amcp-image-cleaner-2161", "imageCleaner intervalHours 2161", AKS_KEYED, put(AMCP, "spec.securityProfile", {"imageCleaner": {"enabled": True, "intervalHours": 2161}}))
case("amcp-workload-identity-oidc-enabled-missing", "workload identity; oidcIssuerProfile {} (enabled nil)", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {}), put(AMCP, "spec.securityProfile", {"workloadIdentity": {"enabled": True}}))
case("amcp-security-profile-empty", "empty securityProfile", AKS_KEYED, put(AMCP, "spec.securityProfile", {}))
case("amcp-kms-and-workload-identity-bad", "KMS without UserAssigned and workload identity without OIDC", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {"enabled": False}), put(AMCP, "spec.securityProfile", {"azureKeyVaultKms": KMS, "workloadIdentity": {"enabled": True}}))
case("amcpt-kms-private-no-vault-id", "template KMS private without keyVaultResourceID", AKS_CC, put(AMCPT, "spec.template.spec.identity", {"type": "UserAssigned", "userAssignedIdentityResourceID": UAI}), put(AMCPT, "spec.template.spec.securityProfile", {"azureKeyVaultKms": {**KMS, "keyVaultNetworkAccess": "Private"}}))
case("amcpt-workload-identity-oidc-on", "template workload identity with OIDC on (admitted)", AKS_CC, put(AMCPT, "spec.template.spec.oidcIssuerProfile", {"enabled": True}), put(AMCPT, "spec.template.spec.securityProfile", {"workloadIdentity": {"enabled": True}}))

# --- fleets member ----------------------------------------------------------------------------------------------------
for name, fname, what in [("one-char", "a", "one character (admitted)"), ("trailing-hyphen", "fleet-", "ends with a hyphen"), ("leading-hyphen", "-fleet", "starts with a hyphen"), ("dot", "a.b", "a dot"), ("hyphen-inside", "my-fleet-1", "hyphens inside (admitted)")]:
    case(f"amcp-fleets-member-name-{name}", what, AKS_KEYED, put(AMCP, "spec.fleetsMember", {"name": fname, "managerName": "fleet", "managerResourceGroup": "rg"}))
case("amcp-fleets-member-cluster-name-dot", "fleetsMember name defaulted from a Cluster name with a dot", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"managerName": "fleet", "managerResourceGroup": "rg"}), rename(CLUSTER, "ref.aks"))
case("amcp-fleets-member-empty-name", "fleetsMember name empty string: defaulted at update", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"name": "", "managerName": "fleet", "managerResourceGroup": "rg"}))

# --- virtual network: webhook defaulting happens before validation ------------------------------------------------------
for name, vnet, what in [
    ("subnet-equals-vnet", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.0.0/16"}}, "subnet CIDR equal to the vnet CIDR"),
    ("subnet-wider-same-base", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.0.0/8"}}, "subnet wider than the vnet but its base IP inside (CAPZ checks only the IP)"),
    ("subnet-defaulted-outside", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes"}}, "custom vnet CIDR, subnet CIDR defaulted to 10.240.0.0/16 (outside)"),
    ("vnet-defaulted-subnet-inside", {"name": "vnet", "subnet": {"name": "nodes", "cidrBlock": "10.1.0.0/16"}}, "vnet CIDR defaulted to 10.0.0.0/8, subnet inside"),
    ("vnet-defaulted-subnet-outside", {"name": "vnet", "subnet": {"name": "nodes", "cidrBlock": "172.16.0.0/16"}}, "vnet CIDR defaulted to 10.0.0.0/8, subnet outside"),
    ("ipv6-subnet-in-ipv4", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "fd00::/64"}}, "IPv6 subnet in an IPv4 vnet"),
    ("host-bits", {"name": "vnet", "cidrBlock": "10.10.1.1/16", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24"}}, "vnet CIDR with host bits (ParseCIDR accepts)"),
    ("both-invalid", {"name": "vnet", "cidrBlock": "x", "subnet": {"name": "nodes", "cidrBlock": "y"}}, "vnet and subnet CIDRs both invalid"),
    ("resource-group", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "resourceGroup": "net-rg", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24"}}, "vnet in another resource group"),
    ("prefix-32", {"name": "vnet", "cidrBlock": "10.10.1.5/32", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.5/32"}}, "/32 vnet and subnet"),
]:
    case(f"amcp-vnet-{name}", what, AKS_KEYED, put(AMCP, "spec.virtualNetwork", vnet))
case("amcp-vnet-overlay-custom-cidr", "overlay with a custom vnet CIDR; subnet defaulted to 10.224.0.0/16 (outside)", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.virtualNetwork", {"name": "vnet", "cidrBlock": "10.10.0.0/16"}))
case("amcp-vnet-overlay-subnet-inside", "overlay, vnet defaulted to 10.224.0.0/12, custom subnet inside", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.virtualNetwork", {"name": "vnet", "subnet": {"name": "s", "cidrBlock": "10.225.0.0/16"}}))
case("amcpt-vnet-subnet-defaulted-outside", "template custom vnet CIDR, subnet CIDR defaulted to 10.240.0.0/16", AKS_CC, put(AMCPT, "spec.template.spec.virtualNetwork", {"cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes"}}))
case("amcpt-vnet-overlay-defaults", "template overlay: template defaults ignore overlay (10.0.0.0/8, 10.240.0.0/16)", AKS_CC, put(AMCPT, "spec.template.spec.networkPluginMode", "overlay"))
case("amcpt-vnet-cidr-invalid", "template vnet CIDR not a CIDR", AKS_CC, put(AMCPT, "spec.template.spec.virtualNetwork", {"cidrBlock": "10.10.0.0", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24"}}))
PE = {"name": "pe1", "privateLinkServiceConnections": [{"privateLinkServiceID": PLS}]}
SUBNET_PE = lambda pes: {**VNET, "subnet": {**VNET["subnet"], "privateEndpoints": pes}}
case("amcp-private-endpoint-two-ips-one-outside", "private endpoint with two IPs, one outside", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "privateIPAddresses": ["10.10.1.5", "10.10.2.5"]}])))
case("amcp-private-endpoint-ip-not-ip", "private endpoint IP not an IP", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "privateIPAddresses": ["10.10.1"]}])))
case("amcp-private-endpoint-name-80", "private endpoint name of 80 characters", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "name": "p" * 80}])))
case("amcp-private-endpoint-name-81", "private endpoint name of 81 characters", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "name": "p" * 81}])))
case("amcp-private-endpoint-name-trailing-dot", "private endpoint name ending with a dot", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "name": "pe1."}])))
case("amcp-private-endpoint-name-underscore-end", "private endpoint name ending with an underscore", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "name": "pe1_"}])))
case("amcp-private-endpoint-two-bad", "two private endpoints, both invalid", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{"name": "a b"}, {**PE, "name": "pe2", "privateIPAddresses": ["192.168.9.9"]}])))
case("amcp-private-endpoint-connection-bad-name", "private link connection with an invalid name", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{"name": "pe1", "privateLinkServiceConnections": [{"name": "c 1", "privateLinkServiceID": PLS}]}])))
case("amcp-private-endpoint-location", "private endpoint with a location and custom NIC name", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "location": "westus", "customNetworkInterfaceName": "nic-1"}])))

# --- cluster network: DNS service IP -----------------------------------------------------------------------------------
case("amcp-dns-ip-ipv4-mapped", "dnsServiceIP written as an IPv4-mapped IPv6 address (String() gives the IPv4 form)", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "::ffff:192.168.0.10"))
case("amcp-dns-ip-dot-100", "dnsServiceIP ending in .100", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.0.100"))
case("amcp-dns-ip-10-10", "dnsServiceIP 192.168.10.10", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.10.10"))
case("amcp-dns-ip-leading-zero", "dnsServiceIP with a leading zero octet", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "192.168.0.010"))
case("amcp-dns-ip-empty", "dnsServiceIP empty string", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", ""))
case("amcp-dns-ip-outside-and-not-10", "dnsServiceIP outside the CIDR and not .10", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "10.0.0.53"))
case("amcp-dns-ip-service-cidr-host-bits", "service CIDR with host bits; dnsServiceIP inside", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["192.168.0.5/16"]), put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcp-dns-ip-no-cluster-network-no-ip", "Cluster without clusterNetwork, no dnsServiceIP (admitted)", AKS_KEYED, drop(CLUSTER, "spec.clusterNetwork"))
case("amcp-dns-ip-services-empty-list", "Cluster with an empty service CIDR list and a dnsServiceIP", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", []), put(AMCP, "spec.dnsServiceIP", "10.0.0.10"))
case("amcp-two-service-cidrs-and-dns-ip", "two service CIDRs and a dnsServiceIP in the first", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["192.168.0.0/16", "10.96.0.0/12"]), put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcp-dns-ip-and-private-endpoint-bad", "dnsServiceIP outside and a private endpoint IP outside its subnet", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", "10.0.0.10"), put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "privateIPAddresses": ["10.99.1.5"]}])))

# --- disableLocalAccounts / AAD edges --------------------------------------------------------------------------------
case("amcp-disable-local-accounts-aad-unmanaged", "disableLocalAccounts with aadProfile managed false (admitted at create)", AKS_KEYED, put(AMCP, "spec.disableLocalAccounts", True), put(AMCP, "spec.aadProfile", {"managed": False, "adminGroupObjectIDs": ["x"]}))
case("amcp-disable-local-accounts-aad-empty-groups", "disableLocalAccounts with AAD and no admin groups (first update denies the groups)", AKS_KEYED, put(AMCP, "spec.disableLocalAccounts", True), put(AMCP, "spec.aadProfile", {"managed": True, "adminGroupObjectIDs": []}))
case("amcp-aad-admin-groups-absent", "aadProfile managed without adminGroupObjectIDs", AKS_KEYED, put(AMCP, "spec.aadProfile", {"managed": True}))
case("amcp-aad-unmanaged-empty-groups", "aadProfile managed false and no admin groups", AKS_KEYED, put(AMCP, "spec.aadProfile", {"managed": False, "adminGroupObjectIDs": []}))
case("amcpt-aad-admin-groups-absent", "template aadProfile without admin groups", AKS_CC, put(AMCPT, "spec.template.spec.aadProfile", {"managed": True}))

# --- network plugin / policy / dataplane edges -----------------------------------------------------------------------
case("amcp-network-policy-cilium-dataplane-azure-overlay", "cilium policy with azure dataplane in overlay", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.networkPolicy", "cilium"), put(AMCP, "spec.networkDataplane", "azure"))
case("amcp-network-dataplane-azure", "azure dataplane alone (admitted)", AKS_KEYED, put(AMCP, "spec.networkDataplane", "azure"))
case("amcp-network-dataplane-cilium-alone", "cilium dataplane alone (two errors)", AKS_KEYED, put(AMCP, "spec.networkDataplane", "cilium"))
case("amcp-network-plugin-mode-uppercase", "networkPluginMode Overlay (enum is lowercase)", AKS_KEYED, put(AMCP, "spec.networkPluginMode", "Overlay"))
case("amcp-network-policy-bogus", "networkPolicy not in the enum", AKS_KEYED, put(AMCP, "spec.networkPolicy", "weave"))
case("amcp-network-dataplane-bogus", "networkDataplane not in the enum", AKS_KEYED, put(AMCP, "spec.networkDataplane", "ebpf"))
case("amcp-overlay-kubenet-cilium", "overlay with kubenet and a cilium dataplane", AKS_KEYED, put(AMCP, "spec.networkPlugin", "kubenet"), put(AMCP, "spec.networkPluginMode", "overlay"), put(AMCP, "spec.networkPolicy", "cilium"), put(AMCP, "spec.networkDataplane", "cilium"))
case("amcpt-cilium-dataplane-alone", "template cilium dataplane alone", AKS_CC, put(AMCPT, "spec.template.spec.networkDataplane", "cilium"))
case("amcpt-cilium-full", "template cilium dataplane, policy and overlay (admitted)", AKS_CC, put(AMCPT, "spec.template.spec.networkPluginMode", "overlay"), put(AMCPT, "spec.template.spec.networkPolicy", "cilium"), put(AMCPT, "spec.template.spec.networkDataplane", "cilium"))

# --- AMCP misc: schema types, enums, unknown nested fields, first-update defaulting ------------------------------------
case("amcp-sku-free", "sku tier Free", AKS_KEYED, put(AMCP, "spec.sku", {"tier": "Free"}))
case("amcp-sku-empty", "sku {} (tier required by the CRD?)", AKS_KEYED, put(AMCP, "spec.sku", {}))
case("amcp-sku-tier-lowercase", "sku tier standard (lowercase)", AKS_KEYED, put(AMCP, "spec.sku", {"tier": "standard"}))
case("amcp-upgrade-channel-none", "upgradeChannel none", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {"upgradeChannel": "none"}))
case("amcp-upgrade-channel-node-image", "upgradeChannel node-image", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {"upgradeChannel": "node-image"}))
case("amcp-auto-upgrade-profile-empty", "autoUpgradeProfile {}", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {}))
case("amcp-outbound-type-lb", "outboundType loadBalancer", AKS_KEYED, put(AMCP, "spec.outboundType", "loadBalancer"))
case("amcp-outbound-type-nat-gateway", "outboundType managedNATGateway", AKS_KEYED, put(AMCP, "spec.outboundType", "managedNATGateway"))
case("amcp-lb-sku-lowercase", "loadBalancerSKU standard (lowercase)", AKS_KEYED, put(AMCP, "spec.loadBalancerSKU", "standard"))
case("amcp-unknown-nested-field", "unknown field inside virtualNetwork", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {**VNET, "addressSpace": "10.10.0.0/16"}))
case("amcp-unknown-field-in-lb-profile", "unknown field inside loadBalancerProfile", AKS_KEYED, put(AMCP, "spec.loadBalancerProfile", {"managedOutboundIPs": 2, "backendPoolType": "NodeIP"}))
case("amcp-enable-preview-string", "enablePreviewFeatures as a string (schema: boolean)", AKS_KEYED, put(AMCP, "spec.enablePreviewFeatures", "true"))
case("amcp-node-resource-group-empty", "nodeResourceGroupName empty: defaulted to MC_<rg>_<name>_<location>", AKS_KEYED, put(AMCP, "spec.nodeResourceGroupName", ""))
case("amcp-resource-group-empty-no-cluster", "resourceGroupName empty and no Cluster references the control plane", [d for d in AKS_KEYED if d["kind"] in (AMCP, ACI)], put(AMCP, "spec.resourceGroupName", ""))
case("amcp-subscription-id-empty", "subscriptionID empty string", AKS_KEYED, put(AMCP, "spec.subscriptionID", ""))
case("amcp-addon-profile-no-name", "addon profile without a name (CRD requires it)", AKS_KEYED, put(AMCP, "spec.addonProfiles", [{"enabled": True}]))
case("amcp-addon-profiles-config", "addon profile with config", AKS_KEYED, put(AMCP, "spec.addonProfiles", [{"name": "omsagent", "enabled": False, "config": {"logAnalyticsWorkspaceResourceID": "/x"}}]))
case("amcp-oidc-enabled-null", "oidcIssuerProfile {} (enabled unset)", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {}))
case("amcp-many-errors-everywhere", "version, dnsPrefix, identity, lb, autoscaler, extension, apiserver, vnet, fleets errors at once", AKS_KEYED,
     put(AMCP, "spec.version", "1.x"), put(AMCP, "spec.dnsPrefix", "a"), put(AMCP, "spec.identity", {"type": "UserAssigned"}),
     put(AMCP, "spec.loadBalancerProfile", {"idleTimeoutInMinutes": 200}), put(AMCP, "spec.autoscalerProfile", {"scanInterval": "1m"}),
     put(AMCP, "spec.extensions", [{**EXT, "version": "1.0.0"}]), put(AMCP, "spec.apiServerAccessProfile", {"authorizedIPRanges": ["nope"]}),
     put(AMCP, "spec.virtualNetwork", {"name": "v", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "s", "cidrBlock": "10.20.0.0/24"}}),
     put(AMCP, "spec.fleetsMember", {"name": "Bad", "managerName": "f", "managerResourceGroup": "rg"}))
case("amcp-ssh-and-version-and-name", "bad SSH key, bad version and a forbidden name", AKS, put(AMCP, "spec.sshPublicKey", "aGVsbG8="), put(AMCP, "spec.version", "v1"), rename(AMCP, "microsoft"))

# --- AzureManagedMachinePool edges -------------------------------------------------------------------------------------
for name, value, what in [
    ("underscore", "pool_1", "underscore"),
    ("one-char", "p", "one character (admitted)"),
    ("non-ascii-lower", "pöol", "non-ASCII lowercase letter inside (unicode.IsLower)"),
    ("non-ascii-first", "épool", "non-ASCII first letter (first byte checked as a rune)"),
    ("12-bytes-11-runes", "pöolpoolpoo", "11 characters but 12 bytes"),
    ("13-bytes-12-runes", "pöolpoolpool", "12 characters but 13 bytes"),
    ("uppercase-inside", "poOl", "uppercase letter inside"),
    ("digits-after-letter", "p123456789", "letter then digits (admitted)"),
]:
    case(f"ammp-name-{name}", f"spec.name {value!r}: {what}", AKS_KEYED, put(AMMP, "spec.name", value, POOL1))
case("ammp-windows-name-6-bytes-non-ascii", "Windows pool name of 5 characters and 6 bytes", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), put(AMMP, "spec.name", "wöin1", POOL1))
case("ammp-windows-name-uppercase", "Windows pool name with uppercase", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), put(AMMP, "spec.name", "Win1", POOL1))
case("ammp-windows-name-6-metadata", "Windows pool without spec.name, metadata.name of 6 characters", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), drop(AMMP, "spec.name", POOL1), rename(AMMP, "win001", POOL1))
case("ammp-os-type-lowercase", "osType windows (enum is case-sensitive)", AKS_KEYED, put(AMMP, "spec.osType", "windows", POOL1))
case("ammp-os-type-linux-explicit", "System pool osType Linux explicit (admitted)", AKS_KEYED, put(AMMP, "spec.osType", "Linux", POOL0))
case("ammp-no-spec-name-metadata-13", "no spec.name; metadata.name of 13 lowercase letters", AKS_KEYED, drop(AMMP, "spec.name", POOL1), rename(AMMP, "poolpoolpoolp", POOL1))
case("ammp-no-spec-name-metadata-12", "no spec.name; metadata.name of 12 lowercase letters (admitted)", AKS_KEYED, drop(AMMP, "spec.name", POOL1), rename(AMMP, "poolpoolpool", POOL1))
for name, labels, what in [
    ("azure-prefix-no-slash", {"kubernetes.azure.com": "x"}, "key kubernetes.azure.com (no slash)"),
    ("azure-prefix-uppercase", {"Kubernetes.Azure.Com/mode": "user"}, "prefix in mixed case"),
    ("azure-prefix-suffix-domain", {"kubernetes.azure.com.example/x": "y"}, "kubernetes.azure.com as the start of a longer domain"),
    ("azure-subdomain", {"sub.kubernetes.azure.com/x": "y"}, "a subdomain of kubernetes.azure.com"),
    ("kubernetes-io", {"node-role.kubernetes.io/worker": ""}, "node-role.kubernetes.io label (admitted by CAPZ)"),
    ("empty-value", {"team": ""}, "empty label value"),
]:
    case(f"ammp-node-label-{name}", what, AKS_KEYED, put(AMMP, "spec.nodeLabels", labels, POOL1))
for name, pid, enable, what in [
    ("no-leading-slash", PREFIX.lstrip("/"), True, "prefix ID without the leading slash"),
    ("uppercase-path", PREFIX.replace("providers/Microsoft.Network/publicIPPrefixes", "PROVIDERS/MICROSOFT.NETWORK/PUBLICIPPREFIXES"), True, "prefix ID in upper case"),
    ("subscription-not-guid", "/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p", True, "subscription not a GUID"),
    ("trailing-slash", PREFIX + "/", True, "prefix ID with a trailing slash"),
    ("wrong-type", PREFIX.replace("publicIPPrefixes", "publicIPAddresses"), True, "a public IP address ID, not a prefix"),
    ("enable-false", PREFIX, False, "valid prefix with enableNodePublicIP false"),
    ("empty", "", True, "empty prefix ID"),
    ("bad-and-not-enabled", "nope", False, "invalid prefix ID and enableNodePublicIP false (two errors)"),
]:
    edits = [put(AMMP, "spec.nodePublicIPPrefixID", pid, POOL1), put(AMMP, "spec.enableNodePublicIP", enable, POOL1)]
    case(f"ammp-public-ip-prefix-{name}", what, AKS_KEYED, *edits)
case("ammp-enable-node-public-ip-alone", "enableNodePublicIP without prefix (admitted)", AKS_KEYED, put(AMMP, "spec.enableNodePublicIP", True, POOL1))
for name, kc, what in [
    ("cfs-ms-only", {"cpuCfsQuotaPeriod": "ms"}, "cpuCfsQuotaPeriod just ms (suffix check only)"),
    ("cfs-uppercase", {"cpuCfsQuotaPeriod": "100MS"}, "cpuCfsQuotaPeriod uppercase MS"),
    ("cfs-empty", {"cpuCfsQuotaPeriod": ""}, "cpuCfsQuotaPeriod empty"),
    ("cfs-seconds", {"cpuCfsQuotaPeriod": "1s"}, "cpuCfsQuotaPeriod in seconds"),
    ("gc-equal", {"imageGcHighThreshold": 70, "imageGcLowThreshold": 70}, "gc thresholds equal (admitted)"),
    ("gc-low-only", {"imageGcLowThreshold": 90}, "gc low threshold alone (admitted)"),
    ("gc-negative", {"imageGcLowThreshold": -1}, "gc low threshold negative"),
    ("sysctl-kernel-shmall", {"allowedUnsafeSysctls": ["kernel.shmall"]}, "kernel.shmall (admitted)"),
    ("sysctl-kernel-msg", {"allowedUnsafeSysctls": ["kernel.msgmax"]}, "kernel.msgmax (admitted)"),
    ("sysctl-kernel-semx", {"allowedUnsafeSysctls": ["kernel.semx"]}, "kernel.semx (kernel.sem is exact)"),
    ("sysctl-net-bare", {"allowedUnsafeSysctls": ["net."]}, "net. with nothing after"),
    ("sysctl-net-wildcard", {"allowedUnsafeSysctls": ["net.*"]}, "net.* wildcard (admitted by the pattern)"),
    ("sysctl-fs-mqueue-bare", {"allowedUnsafeSysctls": ["fs.mqueue."]}, "fs.mqueue. with nothing after"),
    ("sysctl-uppercase", {"allowedUnsafeSysctls": ["NET.core.somaxconn"]}, "uppercase NET"),
    ("sysctl-second-bad", {"allowedUnsafeSysctls": ["net.core.somaxconn", "vm.max_map_count"]}, "second sysctl unsupported"),
    ("cfs-and-gc-bad", {"cpuCfsQuotaPeriod": "100", "imageGcHighThreshold": 50, "imageGcLowThreshold": 60}, "cpuCfsQuotaPeriod and gc thresholds both bad (CAPZ returns the first)"),
    ("container-log-size", {"containerLogMaxSizeMB": 10, "containerLogMaxFiles": 2}, "container log size and files (admitted)"),
    ("pod-max-pids", {"podMaxPids": -1}, "podMaxPids -1"),
    ("fail-swap-on-false-only", {"failSwapOn": False}, "failSwapOn false without swap (admitted)"),
    ("empty", {}, "empty kubeletConfig"),
]:
    case(f"ammp-kubelet-{name}", what, AKS_KEYED, put(AMMP, "spec.kubeletConfig", kc, POOL1))
for name, lc, kc, what in [
    ("port-range-min", {"sysctls": {"netIpv4IPLocalPortRange": "1024 32768"}}, None, "port range 1024 32768 (both minimums)"),
    ("port-range-first-1023", {"sysctls": {"netIpv4IPLocalPortRange": "1023 32768"}}, None, "first port 1023"),
    ("port-range-max", {"sysctls": {"netIpv4IPLocalPortRange": "60999 65000"}}, None, "port range 60999 65000 (both maximums)"),
    ("port-range-first-61000", {"sysctls": {"netIpv4IPLocalPortRange": "61000 65000"}}, None, "first port 61000"),
    ("port-range-last-65001", {"sysctls": {"netIpv4IPLocalPortRange": "1024 65001"}}, None, "last port 65001"),
    ("port-range-last-below-first-and-low", {"sysctls": {"netIpv4IPLocalPortRange": "40000 32767"}}, None, "last port 32767 below the first (two errors)"),
    ("port-range-leading-zeros", {"sysctls": {"netIpv4IPLocalPortRange": "01024 032768"}}, None, "leading zeros (Atoi accepts)"),
    ("port-range-two-spaces", {"sysctls": {"netIpv4IPLocalPortRange": "1024  32768"}}, None, "two spaces"),
    ("port-range-tab", {"sysctls": {"netIpv4IPLocalPortRange": "1024\t32768"}}, None, "a tab"),
    ("port-range-overflow", {"sysctls": {"netIpv4IPLocalPortRange": "99999999999999999999 32768"}}, None, "first port overflows int"),
    ("port-range-single", {"sysctls": {"netIpv4IPLocalPortRange": "32768"}}, None, "one number"),
    ("port-range-empty", {"sysctls": {"netIpv4IPLocalPortRange": ""}}, None, "empty port range"),
    ("swap-failswapon-unset", {"swapFileSizeMB": 1024}, {"cpuCfsQuotaPeriod": "100ms"}, "swap with kubeletConfig lacking failSwapOn"),
    ("swap-zero", {"swapFileSizeMB": 0}, None, "swapFileSizeMB 0 without kubelet config"),
    ("swap-and-port-range-bad", {"swapFileSizeMB": 512, "sysctls": {"netIpv4IPLocalPortRange": "10 20"}}, None, "swap without kubelet and a bad port range (all errors aggregated)"),
    ("sysctls-empty", {"sysctls": {}}, None, "empty sysctls"),
    ("thp-always", {"transparentHugePageEnabled": "always", "transparentHugePageDefrag": "madvise"}, None, "transparent huge pages (admitted)"),
]:
    edits = [put(AMMP, "spec.linuxOSConfig", lc, POOL1)]
    if kc is not None:
        edits.append(put(AMMP, "spec.kubeletConfig", kc, POOL1))
    case(f"ammp-linux-{name}", what, AKS_KEYED, *edits)
for name, value, what in [
    ("one-char", "a", "one character"),
    ("two-chars", "ab", "two characters (minimum)"),
    ("80-chars", "s" * 80, "80 characters (maximum)"),
    ("trailing-hyphen", "subnet-", "ends with a hyphen"),
    ("empty", "", "empty string"),
    ("uppercase", "NodeSubnet", "uppercase (admitted)"),
    ("space", "node subnet", "a space"),
]:
    case(f"ammp-subnet-name-{name}", what, AKS_KEYED, put(AMMP, "spec.subnetName", value, POOL1))
case("ammp-max-pods-0", "maxPods 0", AKS_KEYED, put(AMMP, "spec.maxPods", 0, POOL1))
case("ammp-max-pods-string", "maxPods as a string (schema: integer)", AKS_KEYED, put(AMMP, "spec.maxPods", "30", POOL1))
case("ammp-os-disk-size-string", "osDiskSizeGB as a string", AKS_KEYED, put(AMMP, "spec.osDiskSizeGB", "128", POOL1))
case("ammp-availability-zones-string", "availabilityZones as a string, not a list", AKS_KEYED, put(AMMP, "spec.availabilityZones", "1", POOL1))
case("ammp-enable-fips-string", "enableFIPS as a string", AKS_KEYED, put(AMMP, "spec.enableFIPS", "true", POOL1))
case("ammp-scale-set-priority-lowercase", "scaleSetPriority spot (lowercase)", AKS_KEYED, put(AMMP, "spec.scaleSetPriority", "spot", POOL1))
case("ammp-kubelet-disk-type-bogus", "kubeletDiskType not in the enum", AKS_KEYED, put(AMMP, "spec.kubeletDiskType", "Premium", POOL1))
case("ammp-kubelet-disk-type-temporary", "kubeletDiskType Temporary", AKS_KEYED, put(AMMP, "spec.kubeletDiskType", "Temporary", POOL1))
case("ammp-unknown-field", "AzureManagedMachinePool with a field the CRD lacks (ASO spelling)", AKS_KEYED, put(AMMP, "spec.vmSize", "Standard_D2s_v3", POOL1))
case("ammp-unknown-kubelet-field", "unknown field inside kubeletConfig", AKS_KEYED, put(AMMP, "spec.kubeletConfig", {"cpuManagerPolicy": "static", "maxPods": 30}, POOL1))
case("ammp-mode-lowercase", "mode system (lowercase)", AKS_KEYED, put(AMMP, "spec.mode", "system", POOL0))
case("ammp-mode-missing", "no mode (CRD requires it)", AKS_KEYED, drop(AMMP, "spec.mode", POOL1))
case("ammp-system-windows-name-long", "System pool Windows with a long name (two errors)", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL0), put(AMMP, "spec.name", "systempool", POOL0))
case("ammp-many-errors", "maxPods, name, node label, prefix and kubelet errors on one pool", AKS_KEYED,
     put(AMMP, "spec.maxPods", 300, POOL1), put(AMMP, "spec.name", "Pool-1", POOL1), put(AMMP, "spec.nodeLabels", {"kubernetes.azure.com/x": "y"}, POOL1),
     put(AMMP, "spec.nodePublicIPPrefixID", PREFIX, POOL1), put(AMMP, "spec.kubeletConfig", {"cpuCfsQuotaPeriod": "5"}, POOL1),
     put(AMMP, "spec.subnetName", "-x", POOL1))
case("ammp-taint-no-effect", "taint without effect (CRD requires it)", AKS_KEYED, put(AMMP, "spec.taints", [{"key": "k", "value": "v"}], POOL1))
case("ammp-scaling-empty", "scaling {}", AKS_KEYED, put(AMMP, "spec.scaling", {}, POOL1))
case("ammp-spot-max-price-negative-one", "spotMaxPrice -1 (pay up to on-demand)", AKS_KEYED, put(AMMP, "spec.scaleSetPriority", "Spot", POOL1), put(AMMP, "spec.spotMaxPrice", "-1", POOL1))

# --- AzureManagedMachinePoolTemplate edges ------------------------------------------------------------------------------
for name, spec, what in [
    ("name-13", {"name": "poolpoolpool1"}, "template spec.name 13 characters"),
    ("name-underscore", {"name": "pool_1"}, "template spec.name underscore"),
    ("max-pods-250", {"maxPods": 250}, "template maxPods 250 (admitted)"),
    ("node-label-azure-mixed-case", {"nodeLabels": {"KUBERNETES.AZURE.COM/x": "y"}}, "template node label prefix in upper case"),
    ("public-ip-prefix-bad", {"enableNodePublicIP": True, "nodePublicIPPrefixID": "/subscriptions/x/p"}, "template invalid prefix ID"),
    ("kubelet-sysctl-net-bare", {"kubeletConfig": {"allowedUnsafeSysctls": ["net."]}}, "template sysctl net."),
    ("linux-port-range-first-low", {"linuxOSConfig": {"sysctls": {"netIpv4IPLocalPortRange": "80 40000"}}}, "template port range first port 80"),
    ("linux-swap-failswapon-false", {"linuxOSConfig": {"swapFileSizeMB": 1024}, "kubeletConfig": {"failSwapOn": False}}, "template swap with failSwapOn false (admitted)"),
    ("windows-name-6", {"osType": "Windows", "name": "win123"}, "template Windows pool 6-character name (admitted)"),
    ("unknown-field", {"vmSize": "Standard_D2s_v3"}, "template with a field the CRD lacks"),
]:
    edits = [put(AMMPT, f"spec.template.spec.{k}", v, POOL1) for k, v in spec.items()]
    case(f"ammpt-{name}", what, AKS_CC, *edits)
case("ammpt-no-spec-name-long-metadata", "template without spec.name; metadata.name 13 characters with hyphens", AKS_CC, drop(AMMPT, "spec.template.spec.name", POOL1), rename(AMMPT, "ref-aks-pool9", POOL1))

# --- AzureManagedCluster(Template) --------------------------------------------------------------------------------------
case("amc-endpoint-port-zero", "controlPlaneEndpoint port 0", AKS_KEYED, put(AMC, "spec.controlPlaneEndpoint", {"host": "x.example.com", "port": 0}))
case("amc-endpoint-host-only", "controlPlaneEndpoint with host only", AKS_KEYED, put(AMC, "spec.controlPlaneEndpoint", {"host": "x.example.com"}))
case("amc-spec-empty-object", "AzureManagedCluster spec {}", AKS_KEYED, put(AMC, "spec", {}))
case("amct-empty-spec", "AzureManagedClusterTemplate spec.template.spec {} (admitted)", AKS_CC, put(AMCT, "spec.template.spec", {}))

# --- AzureClusterIdentity edges -----------------------------------------------------------------------------------------
for name, spec_edit, what in [
    ("workload-with-path-and-cloud", {"type": "WorkloadIdentity", "userAssignedIdentityCredentialsPath": "/p", "userAssignedIdentityCredentialsCloudType": "public"}, "WorkloadIdentity with path and cloud type (two errors)"),
    ("uaic-cloud-only", {"type": "UserAssignedIdentityCredential", "userAssignedIdentityCredentialsCloudType": "china"}, "UserAssignedIdentityCredential with only a cloud type"),
    ("uaic-cloud-bogus", {"type": "UserAssignedIdentityCredential", "userAssignedIdentityCredentialsPath": "/p", "userAssignedIdentityCredentialsCloudType": "mars"}, "cloud type not in the enum"),
    ("uaic-with-resource-id", {"type": "UserAssignedIdentityCredential", "userAssignedIdentityCredentialsPath": "/p", "resourceID": UAI}, "UserAssignedIdentityCredential with resourceID"),
    ("msi-with-credentials-path", {"type": "UserAssignedMSI", "resourceID": UAI, "userAssignedIdentityCredentialsPath": "/p"}, "UserAssignedMSI with a credentials path"),
    ("sp-resource-id-and-path", {"type": "ServicePrincipal", "resourceID": UAI, "userAssignedIdentityCredentialsPath": "/p"}, "ServicePrincipal with resourceID and credentials path (two errors)"),
    ("type-lowercase", {"type": "workloadidentity"}, "type in lower case"),
    ("msi-no-resource-id", {"type": "UserAssignedMSI"}, "UserAssignedMSI without resourceID (admitted)"),
    ("workload-empty-path", {"type": "WorkloadIdentity", "userAssignedIdentityCredentialsPath": ""}, "WorkloadIdentity with an empty credentials path (admitted)"),
]:
    def edit(docs, spec_edit=spec_edit):
        d = _find(docs, ACI)
        d["spec"].update(copy.deepcopy(spec_edit))
    case(f"aci-{name}", what, AKS_KEYED, edit)
case("aci-no-tenant-id", "AzureClusterIdentity without tenantID", AKS_KEYED, drop(ACI, "spec.tenantID"))
case("aci-no-type", "AzureClusterIdentity without type", AKS_KEYED, drop(ACI, "spec.type"))
case("aci-allowed-namespaces-selector", "allowedNamespaces selector", AKS_KEYED, put(ACI, "spec.allowedNamespaces", {"selector": {"matchLabels": {"team": "a"}}}))
case("aci-unknown-field", "AzureClusterIdentity with an unknown field", AKS_KEYED, put(ACI, "spec.clientSecretName", "s"))

# --- aks-aso: schema and webhook (the mutators run at reconcile, not at admission) ------------------------------------------
case("aso-pool-unknown-field", "AzureASOManagedMachinePool with an unknown field", AKS_ASO, put(AAMMP, "spec.mode", "System", "ref-aks-pool0"))
case("aso-resources-not-list", "AzureASOManagedControlPlane resources as a map", AKS_ASO, put(AAMCP, "spec.resources", {"kind": "ManagedCluster"}))
case("aso-resource-without-kind", "embedded ManagedCluster with tags (embedded resources are preserved as unknown fields)", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "spec.tags", {"team": "a"}))
case("aso-version-empty", "AzureASOManagedControlPlane version empty", AKS_ASO, put(AAMCP, "spec.version", ""))
case("aso-cluster-no-resources", "AzureASOManagedCluster with resources: []", AKS_ASO, put(AAMC, "spec.resources", []))
case("aso-pool-no-resources", "AzureASOManagedMachinePool with resources: []", AKS_ASO, put(AAMMP, "spec.resources", [], "ref-aks-pool1"))
case("aso-network-plugin-kubenet-overlay", "embedded ManagedCluster kubenet overlay (no webhook checks embedded resources)", AKS_ASO, aso_resource(AAMCP, "ManagedCluster", "spec.networkProfile", {"networkPlugin": "kubenet", "networkPluginMode": "overlay"}))
case("aso-pool-max-pods-5", "embedded agent pool maxPods 5", AKS_ASO, aso_resource(AAMMP, "ManagedClustersAgentPool", "spec.maxPods", 5, "ref-aks-pool1"))

# --- first update: objects Cluster API labels, mixed kinds ------------------------------------------------------------------
case("update-resource-group-and-fleets-defaulted", "resourceGroupName empty and fleetsMember without name: both defaulted from the label at update", AKS_KEYED, put(AMCP, "spec.resourceGroupName", ""), put(AMCP, "spec.fleetsMember", {"managerName": "fleet", "managerResourceGroup": "rg"}))
case("update-aad-empty-groups-rendered", "rendered bundle: aadProfile without groups plus disableLocalAccounts", RENDERED_AKS, put(AMCP, "spec.aadProfile", {"managed": True, "adminGroupObjectIDs": []}), put(AMCP, "spec.disableLocalAccounts", True))
case("update-labelled-other-namespace", "control plane labelled with a cluster-name whose Cluster is in another namespace", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"), lambda docs: _find(docs, CLUSTER)["metadata"].__setitem__("namespace", "elsewhere"))
case("update-pool-labelled-no-system", "pool applied with the cluster-name label and mode User (admitted: only mode changes are checked)", AKS_KEYED, label(AMMP, "cluster.x-k8s.io/cluster-name", "ref-aks", POOL1))

# --- second pass: Go parsing corners (strconv.Atoi/ParseFloat, time.ParseDuration, RE2's ASCII \d, unicode
# categories, ssh.ParseAuthorizedKey) -----------------------------------------------------------------------------------
for key, value, what in [
    ("maxEmptyBulkDelete", "-0", "minus zero (Atoi reads 0)"),
    ("maxEmptyBulkDelete", "007", "leading zeros"),
    ("maxEmptyBulkDelete", " 5", "leading space"),
    ("maxEmptyBulkDelete", "9223372036854775808", "one past int64"),
    ("maxEmptyBulkDelete", "", "empty string (Atoi fails)"),
    ("maxEmptyBulkDelete", "٣", "an Arabic-Indic digit"),
    ("maxGracefulTerminationSec", "٣٠", "Arabic-Indic digits (RE2's \\d is ASCII)"),
    ("maxGracefulTerminationSec", "99999999999999999999", "digits beyond int64"),
    ("okTotalUnreadyCount", "99999999999999999999", "digits beyond int64"),
    ("maxTotalUnreadyPercentage", "0100", "leading zero, value 100"),
    ("scanInterval", "١٠s", "Arabic-Indic digits before s"),
    ("maxNodeProvisionTime", "١٥m", "Arabic-Indic digits before m"),
    ("scaleDownUnneededTime", "٣m", "an Arabic-Indic digit before m"),
    ("newPodScaleUpDelay", "", "empty (skipped)"),
    ("newPodScaleUpDelay", "1h1h", "a unit twice"),
    ("newPodScaleUpDelay", ".5s", "no leading zero"),
    ("newPodScaleUpDelay", "1µs", "micro sign"),
    ("newPodScaleUpDelay", "1us", "us"),
    ("newPodScaleUpDelay", "1d", "days"),
    ("newPodScaleUpDelay", "+5s", "plus sign"),
    ("newPodScaleUpDelay", "5 s", "a space"),
    ("scaleDownUtilizationThreshold", "", "empty string"),
    ("scaleDownUtilizationThreshold", "0x1p-2", "hexadecimal float (ParseFloat accepts)"),
    ("scaleDownUtilizationThreshold", "+.5", "plus sign, no leading zero"),
    ("scaleDownUtilizationThreshold", "1.", "trailing dot"),
    ("scaleDownUtilizationThreshold", "nan", "lowercase nan"),
    ("scaleDownUtilizationThreshold", "inf", "infinity"),
    ("scaleDownUtilizationThreshold", "1e-50", "below float32's range (rounds to 0)"),
    ("scaleDownUtilizationThreshold", "1e50", "above float32's range"),
    ("scaleDownUtilizationThreshold", "0.5 ", "trailing space"),
    ("scaleDownUtilizationThreshold", "1_0", "underscore"),
    ("scaleDownUtilizationThreshold", "-0", "minus zero"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{key}-{value}".lower()).strip("-")
    if value and not re.search(r"[a-z0-9]", value.lower()):
        slug += "-" + "-".join(f"{ord(c):x}" for c in value)
    elif any(ord(c) > 127 for c in value):
        slug += "-" + "-".join(f"{ord(c):x}" for c in value if ord(c) > 127)
    if value == "":
        slug += "-empty"
    cname = f"amcp-autoscaler-go-{slug}"
    if value.startswith("+"):
        cname += "-plus"
    if " " in value:
        cname += "-space"
    case(cname, f"autoscalerProfile.{key} = {value!r}: {what}", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {key: value}))

# pool names: Go's unicode.IsLower is the Ll category; Other_Lowercase letters are not lower for Go
for name, value, what in [
    ("ordinal-indicator", "poolª", "feminine ordinal indicator (Lo, Other_Lowercase)"),
    ("modifier-h", "poolʰ", "modifier letter small h (Lm, Other_Lowercase)"),
    ("circled-a", "poolⓐ", "circled small a (So, Other_Lowercase)"),
    ("roman-numeral", "poolⅰ", "small roman numeral one (Nl: a number for Go)"),
    ("arabic-digit", "pool٣", "Arabic-Indic digit (Nd)"),
    ("superscript-two", "pool²", "superscript two (No)"),
    ("greek", "poolα", "Greek small alpha (Ll)"),
    ("fullwidth-first", "ａpool", "fullwidth a first (its first byte read as ï)"),
]:
    case(f"ammp-name-unicode-{name}", f"spec.name {value!r}: {what}", AKS_KEYED, put(AMMP, "spec.name", value, POOL1))

# ssh keys
def _ssh_string(b):
    return len(b).to_bytes(4, "big") + b
_ED_BLOB = _ssh_string(b"ssh-ed25519") + _ssh_string(bytes(range(32)))
_RSA_BLOB = lambda e: _ssh_string(b"ssh-rsa") + _ssh_string(e) + _ssh_string(b"\x00" + bytes([0xc5]) * 256)
_line = lambda kind, blob, rest=" me@host": kind + " " + _b64.b64encode(blob).decode() + rest
_enc = lambda text: _b64.b64encode(text.encode()).decode()
for name, text, what in [
    ("type-field-mismatch", _line("ssh-rsa", _ED_BLOB), "type field ssh-rsa, ed25519 blob (Go ignores the field)"),
    # x/crypto v0.55.0 (CAPZ v1.27) compares the type field with the blob's algorithm, also after options;
    # v0.53.0 (CAPZ v1.26) ignores it.
    ("options-type-field-mismatch", "restrict " + _line("ssh-rsa", _ED_BLOB), "options, then type field ssh-rsa with an ed25519 blob"),
    ("type-field-match-rsa", _line("ssh-rsa", _RSA_BLOB(b"\x01\x00\x01")), "type field ssh-rsa, RSA blob"),
    # the largest RSA modulus: 8192 bits in x/crypto v0.53.0 (CAPZ v1.26), 16384 in v0.55.0 (CAPZ v1.27)
    ("rsa-10240-bits", _line("ssh-rsa", _ssh_string(b"ssh-rsa") + _ssh_string(b"\x01\x00\x01") + _ssh_string(b"\x00" + bytes([0xc5]) * 1280)), "RSA key with a 10240-bit modulus"),
    ("rsa-16392-bits", _line("ssh-rsa", _ssh_string(b"ssh-rsa") + _ssh_string(b"\x01\x00\x01") + _ssh_string(b"\x00" + bytes([0xc5]) * 2049)), "RSA key with a 16392-bit modulus"),
    ("type-field-unknown", _line("foo", _ED_BLOB), "unknown type field, valid blob"),
    ("options-prefix", "no-pty,command=\"echo hi\" " + _line("ssh-ed25519", _ED_BLOB), "options before the key"),
    ("second-line", "garbage\n" + _line("ssh-ed25519", _ED_BLOB), "a garbage line, then the key"),
    ("comment-line-first", "# my key\n" + _line("ssh-ed25519", _ED_BLOB), "a comment line, then the key"),
    ("trailing-junk", _line("ssh-ed25519", _ED_BLOB + b"\x00"), "blob with a trailing byte"),
    ("ed25519-31-bytes", _line("ssh-ed25519", _ssh_string(b"ssh-ed25519") + _ssh_string(bytes(31))), "ed25519 key of 31 bytes"),
    ("rsa-65537", _line("ssh-rsa", _RSA_BLOB(b"\x01\x00\x01")), "RSA key, exponent 65537"),
    ("rsa-even-exponent", _line("ssh-rsa", _RSA_BLOB(b"\x04")), "RSA key, even exponent"),
    ("rsa-exponent-1", _line("ssh-rsa", _RSA_BLOB(b"\x01")), "RSA key, exponent 1"),
    ("rsa-exponent-25-bits", _line("ssh-rsa", _RSA_BLOB(b"\x01\x00\x00\x01")), "RSA key, 25-bit exponent"),
    ("ecdsa-wrong-curve", _line("ecdsa-sha2-nistp256", _ssh_string(b"ecdsa-sha2-nistp256") + _ssh_string(b"nistp384") + _ssh_string(b"\x04" + bytes(96))), "ecdsa algorithm with another curve's name"),
    ("blob-no-padding", "ssh-ed25519 " + _b64.b64encode(_ED_BLOB).decode().rstrip("=") + " me", "key blob base64 without padding"),
    ("tab-separated", _line("ssh-ed25519", _ED_BLOB, "\tme").replace(" ", "\t"), "fields separated by tabs"),
    ("crlf", _line("ssh-ed25519", _ED_BLOB) + "\r\n", "CRLF line ending"),
]:
    case(f"amcp-ssh-key-{name}", what, AKS, put(AMCP, "spec.sshPublicKey", _enc(text)))
case("amcp-ssh-key-b64-with-crlf", "sshPublicKey base64 with CRLF inside (DecodeString drops CR and LF)", AKS, put(AMCP, "spec.sshPublicKey", SSH_KEY_B64[:40] + "\r\n" + SSH_KEY_B64[40:]))
case("amcp-ssh-key-b64-space-inside", "sshPublicKey base64 with a space inside", AKS, put(AMCP, "spec.sshPublicKey", SSH_KEY_B64[:40] + " " + SSH_KEY_B64[40:]))

# private DNS zone and API server corners
for name, prof, what in [
    ("private-dns-system-space", {"enablePrivateCluster": True, "privateDNSZone": "System "}, "System with a trailing space"),
    ("private-dns-two-segments", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "privateDnsZones/privatelink.eastus.azmk8s.io"}, "privateDnsZones/ twice"),
    ("private-dns-location-digits", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "privatelink.eastus2.azmk8s.io"}, "location with a digit"),
    ("private-dns-trailing-dot", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "privatelink.eastus.azmk8s.io."}, "zone with a trailing dot"),
    ("private-dns-subzone-hyphens", {"enablePrivateCluster": True, "privateDNSZone": ZONE + "-.privatelink.eastus.azmk8s.io"}, "subzone of one hyphen"),
    ("authorized-range-ipv4-mapped", {"authorizedIPRanges": ["::ffff:1.2.3.0/120"]}, "IPv4-mapped IPv6 range"),
    ("authorized-range-prefix-leading-zero", {"authorizedIPRanges": ["1.2.3.0/024"]}, "prefix with a leading zero"),
    ("authorized-range-zone", {"authorizedIPRanges": ["fe80::%eth0/64"]}, "IPv6 with a zone"),
]:
    case(f"amcp-apiserver-{name}", what, AKS_KEYED, put(AMCP, "spec.apiServerAccessProfile", prof))

# CIDR corners in vnet and the Cluster
case("amcp-vnet-prefix-leading-zero", "vnet CIDR prefix with leading zeros", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {"name": "vnet", "cidrBlock": "10.10.0.0/0016", "subnet": {"name": "nodes", "cidrBlock": "10.10.1.0/24"}}))
case("amcp-vnet-ipv4-mapped-subnet", "subnet written IPv4-mapped inside an IPv4 vnet", AKS_KEYED, put(AMCP, "spec.virtualNetwork", {"name": "vnet", "cidrBlock": "10.10.0.0/16", "subnet": {"name": "nodes", "cidrBlock": "::ffff:10.10.1.0/120"}}))
case("amcp-dns-ip-ipv4-mapped-service-cidr", "service CIDR written IPv4-mapped, plain IPv4 dnsServiceIP", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["::ffff:192.168.0.0/112"]), put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcp-dns-ip-ipv6-dot10-form", "IPv6 dnsServiceIP written with an embedded IPv4 ending .10", AKS_KEYED, put(CLUSTER, "spec.clusterNetwork.services.cidrBlocks", ["fd00::/108"]), put(AMCP, "spec.dnsServiceIP", "fd00::0.0.0.10"))
case("amcp-private-endpoint-ipv4-mapped", "private endpoint IP written IPv4-mapped", AKS_KEYED, put(AMCP, "spec.virtualNetwork", SUBNET_PE([{**PE, "privateIPAddresses": ["::ffff:10.10.1.5"]}])))

# node labels and subnet names
case("ammp-node-label-prefix-only", "node label key kubernetes.azure.com/ (prefix alone)", AKS_KEYED, put(AMMP, "spec.nodeLabels", {"kubernetes.azure.com/": "x"}, POOL1))
case("ammp-node-label-azure-com", "node label azure.com/x (admitted)", AKS_KEYED, put(AMMP, "spec.nodeLabels", {"azure.com/x": "y1"}, POOL1))
case("ammp-subnet-name-unicode", "subnet name with a non-ASCII letter", AKS_KEYED, put(AMMP, "spec.subnetName", "sübnet", POOL1))
case("ammp-subnet-name-dot-end", "subnet name ending with a dot", AKS_KEYED, put(AMMP, "spec.subnetName", "subnet.", POOL1))
case("ammp-public-ip-prefix-guid-uppercase", "prefix ID with an uppercase subscription GUID", AKS_KEYED, put(AMMP, "spec.enableNodePublicIP", True, POOL1), put(AMMP, "spec.nodePublicIPPrefixID", PREFIX.replace("00000000-0000-0000-0000-000000000001", "ABCDEF00-0000-0000-0000-000000000001"), POOL1))
case("ammp-kubelet-sysctl-kernel-shm-unicode", "sysctl kernel.shmé (any character after shm)", AKS_KEYED, put(AMMP, "spec.kubeletConfig", {"allowedUnsafeSysctls": ["kernel.shmé"]}, POOL1))
case("ammp-kubelet-sysctl-newline", "sysctl net.core with a trailing newline", AKS_KEYED, put(AMMP, "spec.kubeletConfig", {"allowedUnsafeSysctls": ["net.core\n"]}, POOL1))
case("ammp-linux-port-range-arabic", "port range with Arabic-Indic digits", AKS_KEYED, put(AMMP, "spec.linuxOSConfig", {"sysctls": {"netIpv4IPLocalPortRange": "١٠٢٤ 32768"}}, POOL1))
case("amcp-version-arabic-digits", "version with Arabic-Indic digits", AKS_KEYED, put(AMCP, "spec.version", "v١.33.2"))
case("amcp-dns-prefix-newline", "dnsPrefix with a trailing newline", AKS_KEYED, put(AMCP, "spec.dnsPrefix", "refaks\n"))
case("amcp-fleets-member-name-newline", "fleetsMember name with a trailing newline", AKS_KEYED, put(AMCP, "spec.fleetsMember", {"name": "fleet\n", "managerName": "f", "managerResourceGroup": "rg"}))
case("ammp-subnet-name-newline", "subnet name with a trailing newline", AKS_KEYED, put(AMMP, "spec.subnetName", "subnet\n", POOL1))
case("amcp-version-newline", "version with a trailing newline", AKS_KEYED, put(AMCP, "spec.version", "v1.33.2\n"))

# --- third pass: time.ParseDuration overflow, float32 rounding, quantities, integral floats, labels set at create ------
for value, what in [
    ("2562047h", "just below the int64 nanosecond limit"),
    ("2562048h", "just above the int64 nanosecond limit"),
    ("9223372036854775807ns", "the int64 limit in nanoseconds"),
    ("9223372036854775808ns", "one past the int64 limit"),
    ("-9223372036854775808ns", "the negative int64 limit"),
    ("99999999999999999999s", "a number beyond uint64"),
    ("1.99999999999999999999999s", "a long fraction"),
    ("1h1e3s", "an exponent inside"),
    ("5s5", "a trailing number without unit"),
    ("0.0s", "zero with a fraction"),
    ("-0", "minus zero without unit"),
    ("1.5.5s", "two dots"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-") + ("-neg" if value.startswith("-") else "")
    case(f"amcp-autoscaler-duration-{slug}", f"newPodScaleUpDelay {value!r}: {what}", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {"newPodScaleUpDelay": value}))
for value, what in [
    ("1.00000001", "rounds to 1 as float32 (admitted)"),
    ("1.0000001", "rounds above 1 as float32"),
    ("0x1p0", "hexadecimal 1"),
    ("0x1.1p0", "hexadecimal above 1"),
    ("0x.8p1", "hexadecimal 1 without leading digit"),
    ("1e-0", "exponent zero"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
    case(f"amcp-autoscaler-threshold-{slug}", f"scaleDownUtilizationThreshold {value!r}: {what}", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {"scaleDownUtilizationThreshold": value}))
for value, what in [
    ("0.5Ki", "binary suffix"),
    ("1E3", "uppercase exponent"),
    ("+1", "plus sign"),
    (".5", "no leading zero"),
    ("5.", "trailing dot"),
    ("1.5e-3", "decimal exponent"),
    (0.25, "a YAML number"),
    ("0.5 ", "trailing space"),
    ("1m", "milli suffix"),
]:
    slug = re.sub(r"[^a-z0-9]+", "-", str(value).lower().replace(".", "p")).strip("-") + ("-number" if not isinstance(value, str) else "") + ("-space" if str(value).endswith(" ") else "")
    case(f"ammp-spot-max-price-{slug}", f"spotMaxPrice {value!r}: {what}", AKS_KEYED, put(AMMP, "spec.scaleSetPriority", "Spot", POOL1), put(AMMP, "spec.spotMaxPrice", value, POOL1))
case("ammp-max-pods-float-integral", "maxPods 30.0 (a float with no fraction)", AKS_KEYED, put(AMMP, "spec.maxPods", 30.0, POOL1))
case("ammp-max-pods-float-fraction", "maxPods 30.5", AKS_KEYED, put(AMMP, "spec.maxPods", 30.5, POOL1))
case("ammp-os-disk-size-float", "osDiskSizeGB 128.0", AKS_KEYED, put(AMMP, "spec.osDiskSizeGB", 128.0, POOL1))
case("amcp-lb-managed-ips-float", "managedOutboundIPs 2.0", AKS_KEYED, put(AMCP, "spec.loadBalancerProfile", {"managedOutboundIPs": 2.0}))
case("amcp-labelled-empty-resource-group", "cluster-name label set by the user and resourceGroupName empty: defaulted at create (admitted)", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"), put(AMCP, "spec.resourceGroupName", ""))
case("amcp-labelled-fleets-member-no-name", "cluster-name label set by the user; fleetsMember name defaulted at create", AKS_KEYED, label(AMCP, "cluster.x-k8s.io/cluster-name", "ref-aks"), put(AMCP, "spec.fleetsMember", {"managerName": "f", "managerResourceGroup": "rg"}))
case("amcp-labelled-other-cluster-name", "cluster-name label naming another Cluster that exists", AKS_KEYED + [{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "other", "namespace": "default"}, "spec": {"clusterNetwork": {"services": {"cidrBlocks": ["10.96.0.0/12"]}}}}], move_first(CLUSTER, "other"), label(AMCP, "cluster.x-k8s.io/cluster-name", "other"), put(AMCP, "spec.dnsServiceIP", "192.168.0.10"))
case("amcp-extension-plan-empty-name", "extension plan with name \"\" (defaulted)", AKS_KEYED, put(AMCP, "spec.extensions", [{**EXT, "plan": {"name": "", "product": "p", "publisher": "pub"}}]))
case("amcp-extension-identity-and-plan", "extension with identity and a plan", AKS_KEYED, put(AMCP, "spec.extensions", [{**EXT, "identity": "SystemAssigned", "plan": {"name": "n", "product": "p", "publisher": "pub", "promotionCode": "x"}}]))
case("amcp-two-extensions-same-name", "two extensions with the same name", AKS_KEYED, put(AMCP, "spec.extensions", [EXT, {**EXT, "extensionType": "microsoft.dapr"}]))
case("amcp-addon-profiles-duplicate", "the same addon profile twice", AKS_KEYED, put(AMCP, "spec.addonProfiles", [{"name": "azurepolicy", "enabled": True}, {"name": "azurepolicy", "enabled": False}]))
case("amcp-upgrade-channel-and-version-no-v", "upgradeChannel patch with version without v", AKS_KEYED, put(AMCP, "spec.autoUpgradeProfile", {"upgradeChannel": "patch"}), put(AMCP, "spec.version", "1.33.2"))

# --- fourth pass: extensions sharing a name (validateAKSExtensionsUpdate keys the old list by name) -------------------
for name, exts, what in [
    ("release-train-one-side", [{**EXT, "releaseTrain": "stable"}, EXT], "same name, releaseTrain on one only (both must be set to compare)"),
    ("release-train-differs", [{**EXT, "releaseTrain": "stable"}, {**EXT, "releaseTrain": "preview"}], "same name, different releaseTrain"),
    ("scope-on-last-only", [EXT, {**EXT, "scope": {"scopeType": "Cluster", "releaseNamespace": "x"}}], "same name, scope only on the last"),
    ("identity-differs", [{**EXT, "identity": "SystemAssigned"}, EXT], "same name, identity on the first only"),
    ("plan-defaulted-same", [{**EXT, "plan": {"product": "p", "publisher": "pub"}}, {**EXT, "plan": {"product": "p", "publisher": "pub"}}], "same name, plans without name (defaulted alike)"),
    ("plan-differs", [{**EXT, "plan": {"name": "a", "product": "p", "publisher": "pub"}}, {**EXT, "plan": {"name": "b", "product": "p", "publisher": "pub"}}], "same name, different plans"),
    ("version-differs", [{**EXT, "version": "1.0.0", "autoUpgradeMinorVersion": False}, {**EXT, "version": "2.0.0", "autoUpgradeMinorVersion": False}], "same name, different versions"),
    ("three-same-name", [{**EXT, "extensionType": "a"}, {**EXT, "extensionType": "b"}, {**EXT, "extensionType": "c"}], "three extensions with one name"),
    ("no-type-one-side", [{"name": "flux"}, EXT], "same name, extensionType missing on the first"),
]:
    case(f"amcp-extension-dup-{name}", what, AKS_KEYED, put(AMCP, "spec.extensions", exts))
case("amcpt-extension-dup-type-differs", "template: two extensions with the same name and different types (ClusterClass owner-reference update)", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [EXT, {**EXT, "extensionType": "microsoft.dapr"}]))
case("amcpt-extension-dup-no-clusterclass", "template with duplicate extension names but no ClusterClass (no update)", AKS_CC, put(AMCPT, "spec.template.spec.extensions", [EXT, {**EXT, "extensionType": "microsoft.dapr"}]), remove("ClusterClass"))

# --- fifth pass: explicit nulls (the API server drops a null of a non-nullable field before defaulting) ---------------
for path, what in [
    ("spec.sshPublicKey", "sshPublicKey null (dropped: no key generated)"),
    ("spec.dnsPrefix", "dnsPrefix null (dropped, then defaulted)"),
    ("spec.disableLocalAccounts", "disableLocalAccounts null without AAD"),
    ("spec.identity", "identity null"),
    ("spec.aadProfile", "aadProfile null"),
    ("spec.fleetsMember", "fleetsMember null"),
    ("spec.extensions", "extensions null"),
    ("spec.loadBalancerProfile", "loadBalancerProfile null"),
    ("spec.autoscalerProfile", "autoscalerProfile null"),
    ("spec.version", "version null (required)"),
    ("spec.resourceGroupName", "resourceGroupName null (required)"),
    ("spec.oidcIssuerProfile", "oidcIssuerProfile null"),
]:
    slug = path.split(".")[-1].lower()
    case(f"amcp-null-{slug}", what, AKS_KEYED, put(AMCP, path, None))
case("amcp-null-aad-admin-groups", "aadProfile with adminGroupObjectIDs null", AKS_KEYED, put(AMCP, "spec.aadProfile", {"managed": True, "adminGroupObjectIDs": None}))
case("amcp-null-extension-scope", "extension with scope null", AKS_KEYED, put(AMCP, "spec.extensions", [{**EXT, "scope": None}]))
case("amcp-null-workload-identity", "securityProfile.workloadIdentity null with OIDC off", AKS_KEYED, put(AMCP, "spec.oidcIssuerProfile", {"enabled": False}), put(AMCP, "spec.securityProfile", {"workloadIdentity": None}))
case("amcp-null-private-dns-zone", "privateDNSZone null on a private cluster", AKS_KEYED, put(AMCP, "spec.apiServerAccessProfile", {"enablePrivateCluster": True, "privateDNSZone": None}))
case("amcp-null-dns-service-ip", "dnsServiceIP null", AKS_KEYED, put(AMCP, "spec.dnsServiceIP", None))
case("amcp-null-autoscaler-value", "autoscalerProfile.scanInterval null", AKS_KEYED, put(AMCP, "spec.autoscalerProfile", {"scanInterval": None}))
for path, value, what in [
    ("spec.name", None, "spec.name null: defaulted to metadata.name"),
    ("spec.maxPods", None, "maxPods null"),
    ("spec.osType", None, "osType null"),
    ("spec.nodeLabels", None, "nodeLabels null"),
    ("spec.kubeletConfig", None, "kubeletConfig null"),
    ("spec.subnetName", None, "subnetName null"),
    ("spec.nodePublicIPPrefixID", None, "nodePublicIPPrefixID null"),
]:
    case(f"ammp-null-{path.split('.')[-1].lower()}", what, AKS_KEYED, put(AMMP, path, value, POOL1))
case("ammp-null-swap-kubelet", "swap with kubeletConfig null", AKS_KEYED, put(AMMP, "spec.linuxOSConfig", {"swapFileSizeMB": 512}, POOL1), put(AMMP, "spec.kubeletConfig", None, POOL1))
case("ammp-null-swap-size", "linuxOSConfig.swapFileSizeMB null", AKS_KEYED, put(AMMP, "spec.linuxOSConfig", {"swapFileSizeMB": None}, POOL1))
case("ammp-null-fail-swap-on", "swap with failSwapOn null", AKS_KEYED, put(AMMP, "spec.linuxOSConfig", {"swapFileSizeMB": 512}, POOL1), put(AMMP, "spec.kubeletConfig", {"failSwapOn": None}, POOL1))
case("ammp-null-windows-name", "Windows pool with spec.name null (metadata.name too long)", AKS_KEYED, put(AMMP, "spec.osType", "Windows", POOL1), put(AMMP, "spec.name", None, POOL1))
case("aci-null-resource-id", "AzureClusterIdentity resourceID null", AKS_KEYED, put(ACI, "spec.resourceID", None))
case("aci-null-credentials-path", "WorkloadIdentity with userAssignedIdentityCredentialsPath null", AKS_KEYED, put(ACI, "spec.userAssignedIdentityCredentialsPath", None))
case("amcpt-null-version", "template version null", AKS_CC, put(AMCPT, "spec.template.spec.version", None))
case("amcpt-null-aad-admin-groups", "template aadProfile with adminGroupObjectIDs null", AKS_CC, put(AMCPT, "spec.template.spec.aadProfile", {"managed": True, "adminGroupObjectIDs": None}))


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".yaml"):
            os.remove(os.path.join(OUT, f))
    seen = set()
    for name, description, docs in CASES:
        assert name not in seen, name
        seen.add(name)
        with open(os.path.join(OUT, name + ".yaml"), "w") as f:
            f.write(f"# {description}\n")
            f.write(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, width=200))
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
