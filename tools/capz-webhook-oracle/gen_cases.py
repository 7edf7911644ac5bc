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
