#!/usr/bin/env python3
"""Writes the update corpus: tests/fixtures/capz-updates/cases/NAME.old.yaml + NAME.new.yaml (one pair per case).

NAME.old.yaml is a whole bundle (what the management cluster holds: created, then updated once by Cluster API);
NAME.new.yaml holds the objects of it that the pair changes, each whole, as a pull request would write them. The
bases are the bundle `kubectl capz render aks --values examples/aks.values.yaml` emits
(tests/fixtures/capz-webhooks/sources/rendered-aks.yaml, with a fixed SSH key instead of the `""` that asks CAPZ
to generate one) and CAPZ's own aks-clusterclass and aks-aso templates (tests/fixtures/capz-webhooks/sources/
capz-templates, clusterctl variables substituted). The edits follow CAPZ's update test tables
(internal/webhooks/*_webhook_test.go, `TestAzureManagedControlPlane_ValidateUpdate`,
`TestAzureManagedMachinePoolUpdatingWebhook`, the template webhooks' update tests): every immutable field
changed, set and unset, and the changes CAPZ allows. The verdicts are NOT written here:
`tools/capz-webhook-oracle/regen.sh v1.27.0 updates` asks CAPZ's webhook code.

Usage: tools/capz-webhook-oracle/gen_updates.py   (needs PyYAML; rewrites every pair)
"""
import copy
import glob
import os
import re

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests/fixtures/capz-updates/cases")
SOURCES = os.path.join(ROOT, "tests/fixtures/capz-webhooks/sources")

VARS = {
    "CLUSTER_NAME": "upd-aks",
    "CLUSTER_CLASS_NAME": "upd-aks-class",
    "CLUSTER_IDENTITY_NAME": "upd-identity",
    "AZURE_LOCATION": "eastus",
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
    "KUBERNETES_VERSION": "v1.33.2",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
}

# Real ed25519 public keys (authorized_keys form), base64-encoded as CAPZ expects.
SSH_KEY = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUNtN1ZyS0FOZU5PTXN5dDhqU2l5OXZMd2Q5TE5yWGVRK3M1ZXh2ZEVhSzkgcmVmZXJlZQo="
OTHER_SSH_KEY = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU9NcWFqOHBhRHJ3NEVlTm9JQ0x0dGJxbm5NYVlkTm1vS3NwUjZoNDJWWjAgb3RoZXIK"


def envsubst(text, values):
    pattern = re.compile(r"\$\{([A-Z_0-9]+)(?::=([^${}]*))?\}")
    while True:
        new = pattern.sub(lambda m: values.get(m.group(1), m.group(2) if m.group(2) is not None else ""), text)
        if new == text:
            return new
        text = new


def load(path, values=None):
    with open(path) as f:
        text = f.read()
    if values:
        text = envsubst(text, values)
    return [d for d in yaml.safe_load_all(text) if d]


def rendered_base():
    docs = load(os.path.join(SOURCES, "rendered-aks.yaml"))
    find(docs, "AzureManagedControlPlane")["spec"]["sshPublicKey"] = SSH_KEY
    return docs


def clusterclass_base():
    return load(os.path.join(SOURCES, "capz-templates/cluster-template-aks-clusterclass.yaml"), VARS)


def aso_base():
    return load(os.path.join(SOURCES, "capz-templates/cluster-template-aks-aso.yaml"), VARS)


# --- edits ---------------------------------------------------------------------------------------------

def find(docs, kind, name=None):
    for d in docs:
        if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name):
            return d
    raise KeyError(f"{kind}/{name} not in bundle")


def walk(obj, path, create):
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
        parent, key = walk(find(docs, kind, name), path, True)
        if isinstance(parent, list):
            parent[int(key)] = copy.deepcopy(value)
        else:
            parent[key] = copy.deepcopy(value)
    return edit


def drop(kind, path, name=None):
    def edit(docs):
        parent, key = walk(find(docs, kind, name), path, False)
        if isinstance(parent, list):
            parent.pop(int(key))
        elif parent is not None:
            parent.pop(key, None)
    return edit


def put_label(kind, key, value, name=None):
    def edit(docs):
        meta = find(docs, kind, name)["metadata"]
        meta.setdefault("labels", {})[key] = value
    return edit


PAIRS = []


def pair(name, description, base, old_edits, new_edits, optional=False):
    """A pair: old = base + old_edits, new = old + new_edits; new.yaml holds the changed objects. An `optional`
    pair whose edits change nothing (a field the base does not set, removed) is left out."""
    old = copy.deepcopy(base)
    for edit in old_edits:
        edit(old)
    new = copy.deepcopy(old)
    for edit in new_edits:
        edit(new)
    changed = [n for o, n in zip(old, new) if o != n]
    if optional and not changed:
        return
    assert changed, f"{name}: the edits change nothing"
    PAIRS.append((name, description, old, changed))


R = rendered_base()
CC = clusterclass_base()
ASO = aso_base()
AMCP = "AzureManagedControlPlane"
AMMP = "AzureManagedMachinePool"
AMC = "AzureManagedCluster"
AMCPT = "AzureManagedControlPlaneTemplate"
AMMPT = "AzureManagedMachinePoolTemplate"
AMCT = "AzureManagedClusterTemplate"
SYS = "analytics-dev-pool0"
USER = "analytics-dev-spark"
WIN = "analytics-dev-win"
CPT = "upd-aks-control-plane"
PT0 = "upd-aks-pool0"
PT1 = "upd-aks-pool1"
SUB = "spec.template.spec."


def amcp(name, description, old_edits, new_edits, optional=False):
    pair("amcp-" + name, description, R, old_edits, new_edits, optional)


def ammp(name, description, old_edits, new_edits, optional=False):
    pair("ammp-" + name, description, R, old_edits, new_edits, optional)


def amcpt(name, description, old_edits, new_edits, optional=False):
    pair("amcpt-" + name, description, CC, old_edits, new_edits, optional)


def ammpt(name, description, old_edits, new_edits, optional=False):
    pair("ammpt-" + name, description, CC, old_edits, new_edits, optional)


def cp(path, value):
    return put(AMCP, "spec." + path, value)


def cp_drop(path):
    return drop(AMCP, "spec." + path)


# --- AzureManagedControlPlane: the immutable fields of ValidateUpdate ---------------------------------------

for field, old_value, new_value in [
    ("subscriptionID", None, "00000000-0000-0000-0000-00000000ffff"),
    ("resourceGroupName", None, "rg-other"),
    ("location", None, "westeurope"),
    ("nodeResourceGroupName", "MC_custom", "MC_other"),
    ("dnsServiceIP", "10.96.0.10", "10.96.0.20"),
    ("networkPlugin", None, "kubenet"),
    ("networkPolicy", "azure", "calico"),
    ("loadBalancerSKU", "Standard", "Basic"),
    ("azureEnvironment", "AzurePublicCloud", "AzureChinaCloud"),
    ("dnsPrefix", "analytics", "analytics2"),
    ("outboundType", "loadBalancer", "userDefinedRouting"),
]:
    old_edits = [cp(field, old_value)] if old_value is not None else []
    amcp(f"{field.lower()}-changed", f"AzureManagedControlPlane {field} changed: immutable", old_edits, [cp(field, new_value)])
    amcp(f"{field.lower()}-removed", f"AzureManagedControlPlane {field} removed: immutable (unset)", old_edits, [cp_drop(field)], optional=True)

amcp("sshpublickey-changed", "sshPublicKey changed to another key: immutable", [], [cp("sshPublicKey", OTHER_SSH_KEY)])
amcp("sshpublickey-removed", "sshPublicKey removed: immutable (unset)", [], [cp_drop("sshPublicKey")])
amcp("sshpublickey-empty-reapplied", "sshPublicKey \"\" in the new object: CAPZ generates a fresh key, which differs from the stored one", [cp("sshPublicKey", "")], [cp("version", "v1.33.3")])
amcp("sshpublickey-set-to-empty", "sshPublicKey replaced by \"\": a fresh generated key, immutable", [], [cp("sshPublicKey", "")])
amcp("sshpublickey-set-from-nil", "sshPublicKey set where the stored object had none: immutable (set)", [cp_drop("sshPublicKey")], [cp("sshPublicKey", SSH_KEY)])
amcp("dnsserviceip-set", "dnsServiceIP set where it was unset: immutable (set)", [], [cp("dnsServiceIP", "10.96.0.10")])
amcp("networkpolicy-set", "networkPolicy set where it was unset: immutable (set)", [], [cp("networkPolicy", "azure")])
amcp("networkdataplane-set", "networkDataplane cilium set where it was unset: immutable (set)", [cp("networkPluginMode", "overlay"), cp("networkPolicy", "cilium")], [cp("networkDataplane", "cilium")])
amcp("networkdataplane-removed", "networkDataplane removed: immutable (unset)", [cp("networkPluginMode", "overlay"), cp("networkPolicy", "cilium"), cp("networkDataplane", "cilium")], [cp_drop("networkDataplane")])
amcp("networkdataplane-changed", "networkDataplane cilium -> azure: immutable (and azure with cilium policy)", [cp("networkPluginMode", "overlay"), cp("networkPolicy", "cilium"), cp("networkDataplane", "cilium")], [cp("networkDataplane", "azure")])
amcp("loadbalancersku-set", "loadBalancerSKU set where it was unset: immutable (set)", [], [cp("loadBalancerSKU", "Standard")])
amcp("outboundtype-set", "outboundType set where it was unset: immutable (set)", [], [cp("outboundType", "loadBalancer")])
amcp("httpproxyconfig-set", "httpProxyConfig set where it was unset: immutable (set)", [], [cp("httpProxyConfig", {"httpProxy": "http://proxy:3128"})])
amcp("httpproxyconfig-changed", "httpProxyConfig noProxy changed: immutable", [cp("httpProxyConfig", {"httpProxy": "http://proxy:3128", "noProxy": ["a"]})], [cp("httpProxyConfig", {"httpProxy": "http://proxy:3128", "noProxy": ["a", "b"]})])
amcp("azureenvironment-set", "azureEnvironment set where it was unset: immutable (set)", [], [cp("azureEnvironment", "AzurePublicCloud")])
amcp("subscriptionid-same", "subscriptionID written again unchanged with another change: allowed", [], [cp("version", "v1.33.3")])
amcp("nodeResourceGroupName-default-written".lower(), "nodeResourceGroupName written as the value CAPZ defaulted: allowed", [], [cp("nodeResourceGroupName", "MC_rg-analytics-dev_analytics-dev_eastus2")])
amcp("noderesourcegroupname-set-other", "nodeResourceGroupName set to another value than the defaulted one: immutable", [], [cp("nodeResourceGroupName", "MC_mine")])
amcp("dnsprefix-default-written", "dnsPrefix written as metadata.name (what CAPZ defaulted): allowed", [], [cp("dnsPrefix", "analytics-dev")])
amcp("dnsprefix-set-other", "dnsPrefix set to another value where it was defaulted: immutable", [], [cp("dnsPrefix", "other")])
amcp("dnsprefix-removed-explicit", "dnsPrefix removed where it was set to another value than the name: the default (name) differs", [cp("dnsPrefix", "other")], [cp_drop("dnsPrefix")])

# --- version and auto-upgrade -------------------------------------------------------------------------------
amcp("version-upgrade-patch", "version v1.33.2 -> v1.33.3: allowed", [], [cp("version", "v1.33.3")])
amcp("version-upgrade-minor", "version v1.33.2 -> v1.34.0: allowed", [], [cp("version", "v1.34.0")])
amcp("version-downgrade-patch", "version v1.33.2 -> v1.33.1: cannot be downgraded", [], [cp("version", "v1.33.1")])
amcp("version-downgrade-minor", "version v1.33.2 -> v1.32.9: cannot be downgraded", [], [cp("version", "v1.32.9")])
amcp("version-without-v", "version 1.33.2 (the webhook adds the v): the same version, allowed", [], [cp("version", "1.33.2"), cp("additionalTags", {"team": "data"})])
amcp("version-without-v-downgrade", "version 1.32.0 without v: a downgrade", [], [cp("version", "1.32.0")])
amcp("version-prerelease-below", "version v1.33.2 -> v1.33.2-rc.1: a prerelease sorts below its release", [], [cp("version", "v1.33.2-rc.1")])
amcp("version-prerelease-to-release", "version v1.34.0-rc.1 -> v1.34.0: allowed", [cp("version", "v1.34.0-rc.1")], [cp("version", "v1.34.0")])
amcp("autoupgrade-channel-changed", "autoUpgradeProfile.upgradeChannel patch -> stable: allowed", [], [cp("autoUpgradeProfile.upgradeChannel", "stable")])
amcp("autoupgrade-channel-none", "autoUpgradeProfile.upgradeChannel -> none: allowed", [], [cp("autoUpgradeProfile.upgradeChannel", "none")])
amcp("autoupgrade-channel-removed", "autoUpgradeProfile.upgradeChannel removed: cannot be set to nil", [], [cp("autoUpgradeProfile", {})])
amcp("autoupgrade-profile-removed", "autoUpgradeProfile removed: the channel cannot be set to nil", [], [cp_drop("autoUpgradeProfile")])
amcp("autoupgrade-channel-added", "autoUpgradeProfile added where there was none: allowed", [cp_drop("autoUpgradeProfile")], [cp("autoUpgradeProfile", {"upgradeChannel": "rapid"})])

# --- virtual network ------------------------------------------------------------------------------------------
VNET = {"name": "analytics-vnet", "cidrBlock": "10.0.0.0/8", "resourceGroup": "rg-analytics-dev",
        "subnet": {"name": "analytics-subnet", "cidrBlock": "10.240.0.0/16"}}
for path, value in [("name", "vnet2"), ("cidrBlock", "10.0.0.0/9"), ("resourceGroup", "rg-net"),
                    ("subnet.name", "subnet2"), ("subnet.cidrBlock", "10.241.0.0/16")]:
    amcp(f"vnet-{path.replace('.', '-').lower()}-changed", f"virtualNetwork.{path} changed: immutable",
         [cp("virtualNetwork", VNET)], [cp("virtualNetwork." + path, value)])
amcp("vnet-defaults-written", "virtualNetwork written as CAPZ defaulted it: allowed", [],
     [cp("virtualNetwork", {"name": "analytics-dev", "cidrBlock": "10.0.0.0/8", "resourceGroup": "rg-analytics-dev",
                            "subnet": {"name": "analytics-dev", "cidrBlock": "10.240.0.0/16"}})])
amcp("vnet-set-over-defaults", "virtualNetwork set where CAPZ had defaulted it: name and CIDRs immutable", [], [cp("virtualNetwork", VNET)])
amcp("vnet-removed", "virtualNetwork removed where it was set: the defaults differ", [cp("virtualNetwork", VNET)], [cp_drop("virtualNetwork")])
amcp("vnet-subnet-service-endpoints", "virtualNetwork.subnet.serviceEndpoints added: allowed", [cp("virtualNetwork", VNET)],
     [cp("virtualNetwork.subnet.serviceEndpoints", [{"service": "Microsoft.Storage", "locations": ["eastus2"]}])])
amcp("networkpluginmode-overlay-with-policy", "networkPluginMode overlay where networkPolicy is set: forbidden (and the overlay vnet default differs)",
     [cp("networkPolicy", "azure"), cp("virtualNetwork", VNET)], [cp("networkPluginMode", "overlay")])
amcp("networkpluginmode-overlay-no-policy", "networkPluginMode overlay without networkPolicy, vnet given: allowed",
     [cp("virtualNetwork", VNET)], [cp("networkPluginMode", "overlay")])
amcp("networkpluginmode-overlay-defaulted-vnet", "networkPluginMode overlay with a defaulted vnet: the overlay default CIDRs differ", [], [cp("networkPluginMode", "overlay")])

# --- addon profiles -----------------------------------------------------------------------------------------
ADDONS = [{"name": "azurepolicy", "enabled": True}, {"name": "azureKeyvaultSecretsProvider", "enabled": True}]
amcp("addon-removed", "an addonProfile removed: cannot remove", [cp("addonProfiles", ADDONS)], [cp("addonProfiles", ADDONS[1:])])
amcp("addon-all-removed", "every addonProfile removed: cannot remove", [cp("addonProfiles", ADDONS)], [cp_drop("addonProfiles")])
amcp("addon-disabled", "an addonProfile disabled: allowed", [cp("addonProfiles", ADDONS)], [cp("addonProfiles", [dict(ADDONS[0], enabled=False), ADDONS[1]])])
amcp("addon-added", "an addonProfile added: allowed", [cp("addonProfiles", ADDONS[:1])], [cp("addonProfiles", ADDONS)])
amcp("addon-first-added", "addonProfiles added where there were none: allowed", [], [cp("addonProfiles", ADDONS)])
amcp("addon-renamed", "an addonProfile renamed: the old name is removed", [cp("addonProfiles", ADDONS[:1])], [cp("addonProfiles", [{"name": "monitoring", "enabled": True}])])
amcp("addon-config-changed", "an addonProfile's config changed: allowed", [cp("addonProfiles", ADDONS[:1])], [cp("addonProfiles", [{"name": "azurepolicy", "enabled": True, "config": {"team": "data"}}])])

# --- API server access profile -----------------------------------------------------------------------------
amcp("apiserver-authorized-ranges-added", "apiServerAccessProfile.authorizedIPRanges added: allowed", [], [cp("apiServerAccessProfile", {"authorizedIPRanges": ["1.2.3.0/24"]})])
amcp("apiserver-authorized-ranges-changed", "apiServerAccessProfile.authorizedIPRanges changed: allowed", [cp("apiServerAccessProfile", {"authorizedIPRanges": ["1.2.3.0/24"]})], [cp("apiServerAccessProfile", {"authorizedIPRanges": ["5.6.7.0/24"]})])
amcp("apiserver-private-enabled", "apiServerAccessProfile.enablePrivateCluster set: immutable", [], [cp("apiServerAccessProfile", {"enablePrivateCluster": True})])
amcp("apiserver-private-false-added", "apiServerAccessProfile.enablePrivateCluster false added: a nil pointer becomes false, immutable", [], [cp("apiServerAccessProfile", {"enablePrivateCluster": False})])
amcp("apiserver-private-removed", "apiServerAccessProfile with enablePrivateCluster removed: immutable", [cp("apiServerAccessProfile", {"enablePrivateCluster": True})], [cp_drop("apiServerAccessProfile")])
amcp("apiserver-private-dns-zone-changed", "apiServerAccessProfile.privateDNSZone System -> None: immutable", [cp("apiServerAccessProfile", {"enablePrivateCluster": True, "privateDNSZone": "System"})], [cp("apiServerAccessProfile.privateDNSZone", "None")])
amcp("apiserver-public-fqdn-set", "apiServerAccessProfile.enablePrivateClusterPublicFQDN set: immutable", [cp("apiServerAccessProfile", {"enablePrivateCluster": True})], [cp("apiServerAccessProfile.enablePrivateClusterPublicFQDN", True)])
amcp("apiserver-private-same-ranges-changed", "a private cluster's authorizedIPRanges changed, the rest kept: allowed", [cp("apiServerAccessProfile", {"enablePrivateCluster": False, "authorizedIPRanges": ["1.2.3.0/24"]})], [cp("apiServerAccessProfile.authorizedIPRanges", ["1.2.4.0/24"])])

# --- AAD and local accounts ---------------------------------------------------------------------------------
AAD = {"managed": True, "adminGroupObjectIDs": ["00000000-0000-0000-0000-0000000000a1"]}
amcp("aad-removed", "aadProfile removed: cannot disable AADProfile", [cp("aadProfile", AAD)], [cp_drop("aadProfile")])
amcp("aad-managed-false", "aadProfile.managed true -> false: forbidden", [cp("aadProfile", AAD)], [cp("aadProfile.managed", False)])
amcp("aad-admin-groups-emptied", "aadProfile.adminGroupObjectIDs emptied: cannot be zero", [cp("aadProfile", AAD)], [cp("aadProfile.adminGroupObjectIDs", [])])
amcp("aad-admin-groups-changed", "aadProfile.adminGroupObjectIDs changed: allowed", [cp("aadProfile", AAD)], [cp("aadProfile.adminGroupObjectIDs", ["00000000-0000-0000-0000-0000000000a2"])])
amcp("aad-added", "aadProfile added where there was none: allowed", [], [cp("aadProfile", AAD)])
amcp("aad-managed-false-to-true", "aadProfile.managed false -> true: allowed", [cp("aadProfile", dict(AAD, managed=False))], [cp("aadProfile.managed", True)])
amcp("local-accounts-set-without-aad", "disableLocalAccounts set on a cluster without aadProfile: only for AAD clusters", [], [cp("disableLocalAccounts", True)])
amcp("local-accounts-set-with-aad", "disableLocalAccounts set with aadProfile: allowed", [cp("aadProfile", AAD)], [cp("disableLocalAccounts", True)])
amcp("local-accounts-changed", "disableLocalAccounts true -> false: immutable once set", [cp("aadProfile", AAD), cp("disableLocalAccounts", True)], [cp("disableLocalAccounts", False)])
amcp("local-accounts-removed", "disableLocalAccounts removed: immutable once set", [cp("aadProfile", AAD), cp("disableLocalAccounts", True)], [cp_drop("disableLocalAccounts")])
amcp("local-accounts-aad-both-added", "aadProfile and disableLocalAccounts added together: allowed", [], [cp("aadProfile", AAD), cp("disableLocalAccounts", True)])

# --- OIDC issuer, fleets member, identity ------------------------------------------------------------------
amcp("oidc-disabled", "oidcIssuerProfile.enabled true -> false: cannot be disabled", [], [cp("oidcIssuerProfile.enabled", False)])
amcp("oidc-removed", "oidcIssuerProfile removed (defaulted to {}): allowed", [], [cp_drop("oidcIssuerProfile")])
amcp("oidc-enabled", "oidcIssuerProfile.enabled false -> true: allowed", [cp("oidcIssuerProfile.enabled", False)], [cp("oidcIssuerProfile.enabled", True)])
amcp("oidc-enabled-removed", "oidcIssuerProfile.enabled removed: allowed (nil is not false)", [], [cp("oidcIssuerProfile", {})])
FLEET = {"name": "member1", "group": "group1", "managerName": "fleet1", "managerResourceGroup": "rg-fleet"}
amcp("fleets-member-renamed", "fleetsMember.name changed: immutable", [cp("fleetsMember", FLEET)], [cp("fleetsMember.name", "member2")])
amcp("fleets-member-group-changed", "fleetsMember.group changed: allowed", [cp("fleetsMember", FLEET)], [cp("fleetsMember.group", "group2")])
amcp("fleets-member-added", "fleetsMember added: allowed", [], [cp("fleetsMember", FLEET)])
amcp("fleets-member-removed", "fleetsMember removed: allowed", [cp("fleetsMember", FLEET)], [cp_drop("fleetsMember")])
amcp("fleets-member-name-defaulted-then-set", "fleetsMember without name (defaulted from the cluster-name label) then named otherwise: immutable",
     [cp("fleetsMember", {k: v for k, v in FLEET.items() if k != "name"})], [cp("fleetsMember.name", "member2")])
amcp("fleets-member-name-written-as-default", "fleetsMember.name written as the cluster name it was defaulted to: allowed",
     [cp("fleetsMember", {k: v for k, v in FLEET.items() if k != "name"})], [cp("fleetsMember.name", "analytics-dev")])

# --- extensions ----------------------------------------------------------------------------------------------
EXT = {"name": "flux", "extensionType": "microsoft.flux", "autoUpgradeMinorVersion": False, "version": "1.8.0",
       "releaseTrain": "Stable", "plan": {"name": "p", "product": "prod", "publisher": "pub"}}
def ext(**changes):
    e = dict(copy.deepcopy(EXT), **changes)
    return [{k: v for k, v in e.items() if v is not None}]
amcp("extension-added", "an extension added: allowed", [], [cp("extensions", ext())])
amcp("extension-removed", "an extension removed: allowed", [cp("extensions", ext())], [cp_drop("extensions")])
amcp("extension-type-changed", "extensionType changed: immutable", [cp("extensions", ext())], [cp("extensions", ext(extensionType="microsoft.dapr"))])
amcp("extension-plan-changed", "plan changed: immutable", [cp("extensions", ext())], [cp("extensions", ext(plan={"name": "p2", "product": "prod", "publisher": "pub"}))])
amcp("extension-release-train-changed", "releaseTrain changed: immutable", [cp("extensions", ext())], [cp("extensions", ext(releaseTrain="Preview"))])
amcp("extension-version-changed", "version changed: immutable", [cp("extensions", ext())], [cp("extensions", ext(version="1.9.0"))])
amcp("extension-version-removed", "version removed (nil on one side): allowed", [cp("extensions", ext())], [cp("extensions", ext(version=None, autoUpgradeMinorVersion=True))])
amcp("extension-identity-changed", "identity changed: immutable", [cp("extensions", ext())], [cp("extensions", ext(identity="SystemAssigned"))])
amcp("extension-renamed", "an extension renamed (a new extension): allowed", [cp("extensions", ext())], [cp("extensions", ext(name="flux2", extensionType="microsoft.dapr"))])
amcp("extension-scope-unchanged", "an extension with a scope, unchanged, another field changed: the scope pointers differ", [cp("extensions", ext(scope={"scopeType": "Cluster", "releaseNamespace": "flux-system"}))], [cp("additionalTags", {"team": "data"})])
amcp("extension-config-changed", "configurationSettings changed: allowed", [cp("extensions", ext())], [cp("extensions", ext(configurationSettings={"team": "data"}))])
amcp("extension-second-type-changed", "the second extension's extensionType changed: the path names index 1",
     [cp("extensions", ext() + [{"name": "dapr", "extensionType": "microsoft.dapr"}])],
     [cp("extensions", ext() + [{"name": "dapr", "extensionType": "microsoft.other"}])])
amcp("extension-reordered-type-changed", "extensions reordered and one's extensionType changed: the path names its new index",
     [cp("extensions", ext() + [{"name": "dapr", "extensionType": "microsoft.dapr"}])],
     [cp("extensions", [{"name": "dapr", "extensionType": "microsoft.other"}] + ext())])

# --- security profile ----------------------------------------------------------------------------------------
SEC = {"workloadIdentity": {"enabled": True}, "imageCleaner": {"enabled": True, "intervalHours": 48},
       "defender": {"logAnalyticsWorkspaceResourceID": "/subscriptions/s/resourceGroups/r/providers/Microsoft.OperationalInsights/workspaces/w",
                    "securityMonitoring": {"enabled": True}}}
for part in ["workloadIdentity", "imageCleaner", "defender"]:
    amcp(f"security-{part.lower()}-removed", f"securityProfile.{part} removed: cannot unset", [cp("securityProfile", SEC)], [cp_drop("securityProfile." + part)])
amcp("security-profile-removed", "securityProfile removed: each profile cannot be unset", [cp("securityProfile", SEC)], [cp_drop("securityProfile")])
amcp("security-workload-identity-disabled", "securityProfile.workloadIdentity.enabled -> false: allowed", [cp("securityProfile", SEC)], [cp("securityProfile.workloadIdentity.enabled", False)])
amcp("security-profile-added", "securityProfile added: allowed", [], [cp("securityProfile", SEC)])
amcp("security-image-cleaner-interval", "securityProfile.imageCleaner.intervalHours changed: allowed", [cp("securityProfile", SEC)], [cp("securityProfile.imageCleaner.intervalHours", 24)])

# --- changes CAPZ allows ------------------------------------------------------------------------------------
amcp("tags-added", "additionalTags added: allowed", [], [cp("additionalTags", {"team": "data"})])
amcp("sku-tier-changed", "sku.tier Standard -> Free: allowed", [], [cp("sku.tier", "Free")])
amcp("lb-profile-changed", "loadBalancerProfile.managedOutboundIPs changed: allowed", [cp("loadBalancerProfile", {"managedOutboundIPs": 1})], [cp("loadBalancerProfile.managedOutboundIPs", 2)])
amcp("autoscaler-profile-added", "autoscalerProfile added: allowed", [], [cp("autoscalerProfile", {"expander": "random", "scanInterval": "20s"})])
amcp("identity-ref-changed", "identityRef name changed: no update rule", [], [cp("identityRef.name", "other-identity")])
amcp("kubelet-identity-set", "kubeletUserAssignedIdentity set: no update rule", [], [cp("kubeletUserAssignedIdentity", "/subscriptions/s/resourceGroups/r/providers/Microsoft.ManagedIdentity/userAssignedIdentities/k")])
amcp("preview-features-enabled", "enablePreviewFeatures true: no update rule", [], [cp("enablePreviewFeatures", True)])
amcp("aso-patches-added", "asoManagedClusterPatches added: no update rule", [], [cp("asoManagedClusterPatches", ['{"spec": {"disableLocalAccounts": false}}'])])
amcp("several-immutable", "location, networkPlugin and version downgrade at once: each is reported",
     [], [cp("location", "westeurope"), cp("networkPlugin", "kubenet"), cp("version", "v1.32.0")])
amcp("update-ok-create-rule-fails", "an update that passes the update rules but fails a create rule (bad authorized IP range)",
     [], [cp("apiServerAccessProfile", {"authorizedIPRanges": ["not-a-cidr"]})])

# --- AzureManagedMachinePool ---------------------------------------------------------------------------------
def mp(path, value, name=USER):
    return put(AMMP, "spec." + path, value, name)


def mp_drop(path, name=USER):
    return drop(AMMP, "spec." + path, name)


for field, old_value, new_value in [
    ("name", None, "spark2"),
    ("sku", None, "Standard_E16s_v5"),
    ("osDiskSizeGB", None, 256),
    ("maxPods", 30, 40),
    ("osDiskType", "Managed", "Ephemeral"),
    ("scaleSetPriority", None, "Regular"),
    ("enableUltraSSD", True, False),
    ("enableNodePublicIP", True, False),
    ("nodePublicIPPrefixID", "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p1",
     "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p2"),
    ("kubeletDiskType", "OS", "Temporary"),
    ("subnetName", "subnet-a", "subnet-b"),
    ("enableFIPS", True, False),
    ("enableEncryptionAtHost", True, False),
    ("kubeletConfig", {"cpuManagerPolicy": "static"}, {"cpuManagerPolicy": "none"}),
    ("linuxOSConfig", {"transparentHugePageEnabled": "always"}, {"transparentHugePageEnabled": "never"}),
]:
    old_edits = [mp(field, old_value)] if old_value is not None else []
    if field == "nodePublicIPPrefixID":
        old_edits = [mp("enableNodePublicIP", True)] + old_edits
    ammp(f"{field.lower()}-changed", f"AzureManagedMachinePool {field} changed: immutable", old_edits, [mp(field, new_value)])
    if field not in ("name",):
        ammp(f"{field.lower()}-removed", f"AzureManagedMachinePool {field} removed: immutable (unset), except where CAPZ only checks a set value", old_edits, [mp_drop(field)], optional=True)

for field, value in [("subnetName", "subnet-a"), ("enableFIPS", True), ("enableEncryptionAtHost", True), ("maxPods", 30),
                     ("osDiskType", "Ephemeral"), ("enableUltraSSD", True), ("kubeletConfig", {"cpuManagerPolicy": "static"}),
                     ("linuxOSConfig", {"swapFileSizeMB": 1500}), ("kubeletDiskType", "OS")]:
    ammp(f"{field.lower()}-set", f"AzureManagedMachinePool {field} set where it was unset: immutable unless CAPZ only checks a set value", [], [mp(field, value)])

ammp("name-removed-default-differs", "spec.name removed: defaulted to metadata.name, which differs", [], [mp_drop("name")])
ammp("name-removed-default-same", "spec.name removed where it equalled metadata.name: allowed",
     [put(AMMP, "metadata.name", "spark", USER), put("MachinePool", "spec.template.spec.infrastructureRef.name", "spark", USER)],
     [drop(AMMP, "spec.name", "spark")])
ammp("ostype-windows", "osType Linux (defaulted) -> Windows: immutable", [], [mp("osType", "Windows")])
ammp("ostype-linux-written", "osType Linux written where it was defaulted: allowed", [], [mp("osType", "Linux")])
ammp("ostype-windows-removed", "osType Windows removed: the default Linux differs", [], [mp_drop("osType", WIN)])
ammp("zones-added", "availabilityZones added: immutable", [], [mp("availabilityZones", ["1", "2"])])
ammp("zones-reordered", "availabilityZones reordered: allowed (compared as sets)", [mp("availabilityZones", ["1", "2"])], [mp("availabilityZones", ["2", "1"])])
ammp("zones-changed", "availabilityZones changed: immutable", [mp("availabilityZones", ["1", "2"])], [mp("availabilityZones", ["1", "3"])])
ammp("zones-removed", "availabilityZones removed: immutable", [mp("availabilityZones", ["1"])], [mp_drop("availabilityZones")])
ammp("mode-last-system-to-user", "the only System pool switched to User: at least one System pool", [], [mp("mode", "User", SYS)])
ammp("mode-system-to-user-with-another", "a System pool switched to User while another System pool exists: allowed",
     [mp("mode", "System", USER), mp_drop("taints", USER)], [mp("mode", "User", SYS)])
ammp("mode-user-to-system", "a User pool switched to System: allowed", [mp_drop("taints")], [mp("mode", "System")])
ammp("node-labels-azure-prefix", "nodeLabels with the kubernetes.azure.com prefix added: rejected on update too", [], [mp("nodeLabels", {"kubernetes.azure.com/scalesetpriority": "spot"})])
ammp("node-labels-changed", "nodeLabels changed: allowed", [], [mp("nodeLabels", {"workload": "spark2"})])
ammp("scaling-changed", "scaling.maxSize changed: allowed", [], [mp("scaling.maxSize", 20)])
ammp("scaling-removed", "scaling removed: allowed", [], [mp_drop("scaling")])
ammp("taints-changed", "taints changed: allowed", [], [mp("taints", [{"key": "workload", "value": "spark", "effect": "NoExecute"}])])
ammp("tags-added", "additionalTags added: allowed", [], [mp("additionalTags", {"team": "data"})])
ammp("scale-down-mode", "scaleDownMode Deallocate: allowed", [], [mp("scaleDownMode", "Deallocate")])
ammp("spot-max-price", "spotMaxPrice set: allowed", [], [mp("spotMaxPrice", "0.5")])
ammp("system-pool-sku-changed", "the System pool's sku changed: immutable", [], [mp("sku", "Standard_D4s_v5", SYS)])
ammp("several-immutable", "sku, osDiskSizeGB and maxPods at once: each is reported", [], [mp("sku", "Standard_E4s_v5"), mp("osDiskSizeGB", 64), mp("maxPods", 50)])

# --- AzureManagedCluster (no update rule) ------------------------------------------------------------------
pair("amc-label-added", "AzureManagedCluster labelled: CAPZ has no update rule", R, [], [put_label(AMC, "team", "data")])
pair("amc-endpoint-set", "AzureManagedCluster controlPlaneEndpoint set: CAPZ has no update rule", R, [],
     [put(AMC, "spec.controlPlaneEndpoint", {"host": "example.com", "port": 443})])

# --- templates ------------------------------------------------------------------------------------------------
def tpl(path, value):
    return put(AMCPT, SUB + path, value, CPT)


def tpl_drop(path):
    return drop(AMCPT, SUB + path, CPT)


for field, old_value, new_value in [
    ("subscriptionID", None, "00000000-0000-0000-0000-00000000ffff"),
    ("location", None, "westeurope"),
    ("dnsServiceIP", "10.0.0.10", "10.0.0.20"),
    ("networkPlugin", None, "kubenet"),
    ("networkPolicy", "azure", "calico"),
    ("loadBalancerSKU", None, "Basic"),
    ("outboundType", "loadBalancer", "userDefinedRouting"),
]:
    old_edits = [tpl(field, old_value)] if old_value is not None else []
    amcpt(f"{field.lower()}-changed", f"AzureManagedControlPlaneTemplate {field} changed: immutable", old_edits, [tpl(field, new_value)])
    amcpt(f"{field.lower()}-removed", f"AzureManagedControlPlaneTemplate {field} removed: immutable unless defaulted again", old_edits, [tpl_drop(field)], optional=True)
amcpt("networkdataplane-set", "template networkDataplane set: immutable", [tpl("networkPluginMode", "overlay"), tpl("networkPolicy", "cilium")], [tpl("networkDataplane", "cilium")])
amcpt("aad-removed", "template aadProfile removed: cannot disable", [tpl("aadProfile", AAD)], [tpl_drop("aadProfile")])
amcpt("aad-managed-false", "template aadProfile.managed -> false: forbidden", [tpl("aadProfile", AAD)], [tpl("aadProfile.managed", False)])
amcpt("aad-admin-groups-emptied", "template aadProfile.adminGroupObjectIDs emptied: cannot be zero", [tpl("aadProfile", AAD)], [tpl("aadProfile.adminGroupObjectIDs", [])])
amcpt("aad-added", "template aadProfile added: allowed", [], [tpl("aadProfile", AAD)])
amcpt("vnet-cidr-changed", "template virtualNetwork.cidrBlock changed: immutable", [], [tpl("virtualNetwork.cidrBlock", "10.0.0.0/9")])
amcpt("vnet-subnet-name-changed", "template virtualNetwork.subnet.name changed: immutable", [], [tpl("virtualNetwork.subnet", {"name": "s2"})])
amcpt("vnet-subnet-cidr-changed", "template virtualNetwork.subnet.cidrBlock changed: immutable", [], [tpl("virtualNetwork.subnet", {"cidrBlock": "10.241.0.0/16"})])
amcpt("vnet-defaults-written", "template virtualNetwork written as defaulted: allowed", [],
      [tpl("virtualNetwork", {"cidrBlock": "10.0.0.0/8", "subnet": {"name": CPT, "cidrBlock": "10.240.0.0/16"}})])
amcpt("apiserver-private-enabled", "template apiServerAccessProfile.enablePrivateCluster set: fields are immutable", [], [tpl("apiServerAccessProfile", {"enablePrivateCluster": True})])
amcpt("apiserver-private-removed", "template apiServerAccessProfile removed: fields are immutable", [tpl("apiServerAccessProfile", {"enablePrivateCluster": True})], [tpl_drop("apiServerAccessProfile")])
amcpt("extension-type-changed", "template extension type changed: immutable", [tpl("extensions", ext())], [tpl("extensions", ext(extensionType="microsoft.dapr"))])
amcpt("extension-added", "template extension added: allowed", [], [tpl("extensions", ext())])
amcpt("version-upgrade", "template version upgrade: allowed", [], [tpl("version", "v1.34.0")])
amcpt("version-downgrade", "template version downgrade: cannot be downgraded", [], [tpl("version", "v1.32.0")])
amcpt("security-workload-identity-removed", "template securityProfile.workloadIdentity removed: cannot unset",
      [tpl("oidcIssuerProfile", {"enabled": True}), tpl("securityProfile", {"workloadIdentity": {"enabled": True}})], [tpl_drop("securityProfile")])
amcpt("tags-added", "template additionalTags added: allowed", [], [tpl("additionalTags", {"team": "data"})])
amcpt("sku-tier", "template sku.tier Standard: allowed", [], [tpl("sku", {"tier": "Standard"})])
amcpt("oidc-disabled", "template oidcIssuerProfile disabled: the template webhook has no OIDC update rule", [tpl("oidcIssuerProfile", {"enabled": True})], [tpl("oidcIssuerProfile.enabled", False)])
amcpt("addon-removed", "template addonProfile removed: the template webhook has no addon update rule", [tpl("addonProfiles", ADDONS)], [tpl("addonProfiles", ADDONS[1:])])
amcpt("local-accounts-changed", "template disableLocalAccounts changed: the template webhook has no local-accounts update rule",
      [tpl("aadProfile", AAD), tpl("disableLocalAccounts", True)], [tpl("disableLocalAccounts", False)])
amcpt("update-ok-create-rule-fails", "template update passing the update rules but failing a create rule (bad authorized IP range)",
      [], [tpl("apiServerAccessProfile", {"authorizedIPRanges": ["nope"]})])


def mpt(path, value, name=PT1):
    return put(AMMPT, SUB + path, value, name)


def mpt_drop(path, name=PT1):
    return drop(AMMPT, SUB + path, name)


for field, old_value, new_value in [
    ("name", None, "pool9"),
    ("sku", None, "Standard_D8s_v3"),
    ("osDiskSizeGB", 128, 256),
    ("maxPods", 30, 40),
    ("osDiskType", "Managed", "Ephemeral"),
    ("scaleSetPriority", "Spot", "Regular"),
    ("enableUltraSSD", True, False),
    ("enableNodePublicIP", True, False),
    ("kubeletDiskType", "OS", "Temporary"),
    ("subnetName", "subnet-a", "subnet-b"),
    ("enableFIPS", True, False),
    ("kubeletConfig", {"cpuManagerPolicy": "static"}, {"cpuManagerPolicy": "none"}),
    ("linuxOSConfig", {"transparentHugePageEnabled": "always"}, {"transparentHugePageEnabled": "never"}),
]:
    old_edits = [mpt(field, old_value)] if old_value is not None else []
    ammpt(f"{field.lower()}-changed", f"AzureManagedMachinePoolTemplate {field} changed: immutable", old_edits, [mpt(field, new_value)])
    if field != "name":
        ammpt(f"{field.lower()}-removed", f"AzureManagedMachinePoolTemplate {field} removed: immutable (unset) unless CAPZ checks a set value only", old_edits, [mpt_drop(field)], optional=True)
ammpt("enableencryptionathost-changed", "template enableEncryptionAtHost changed: the template webhook does not check it", [mpt("enableEncryptionAtHost", True)], [mpt("enableEncryptionAtHost", False)])
ammpt("nodepublicipprefixid-set", "template nodePublicIPPrefixID set: immutable",
      [mpt("enableNodePublicIP", True)], [mpt("nodePublicIPPrefixID", "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p1")])
ammpt("ostype-windows", "template osType -> Windows: immutable", [], [mpt("osType", "Windows")])
ammpt("zones-added", "template availabilityZones added: immutable", [], [mpt("availabilityZones", ["1"])])
ammpt("zones-reordered", "template availabilityZones reordered: allowed", [mpt("availabilityZones", ["1", "2"])], [mpt("availabilityZones", ["2", "1"])])
ammpt("mode-system-to-user", "template System pool switched to User: the template check reads nodeLabels for the cluster, finds none, allowed", [], [mpt("mode", "User", PT0)])
ammpt("node-labels-azure-prefix", "template nodeLabels with the kubernetes.azure.com prefix: rejected", [], [mpt("nodeLabels", {"kubernetes.azure.com/x": "spot"})])
ammpt("node-labels-changed", "template nodeLabels changed: allowed", [], [mpt("nodeLabels", {"team": "data"})])
ammpt("scaling-changed", "template scaling changed: allowed", [], [mpt("scaling", {"minSize": 1, "maxSize": 5})])
ammpt("taints-added", "template taints added: allowed", [], [mpt("taints", [{"key": "k", "value": "v", "effect": "NoSchedule"}])])
pair("amct-label-added", "AzureManagedClusterTemplate labelled: CAPZ's update webhook has no rule", CC, [], [put_label(AMCT, "team", "data")])

# --- AzureASOManaged* (CAPZ registers their validating webhooks for CREATE only) ----------------------------
pair("asomcp-version-changed", "AzureASOManagedControlPlane embedded ManagedCluster kubernetesVersion changed: no CAPZ update webhook", ASO, [],
     [put("AzureASOManagedControlPlane", "spec.resources.0.spec.kubernetesVersion", "1.34.0")])
pair("asomcp-label-added", "AzureASOManagedControlPlane labelled: no CAPZ update webhook", ASO, [], [put_label("AzureASOManagedControlPlane", "team", "data")])
pair("asomc-label-added", "AzureASOManagedCluster labelled: no CAPZ update webhook", ASO, [], [put_label("AzureASOManagedCluster", "team", "data")])
pair("asommp-label-added", "AzureASOManagedMachinePool labelled: no CAPZ update webhook", ASO, [], [put_label("AzureASOManagedMachinePool", "team", "data")])


def main():
    os.makedirs(OUT, exist_ok=True)
    for path in glob.glob(os.path.join(OUT, "*.yaml")):
        os.remove(path)
    names = set()
    for name, description, old, changed in PAIRS:
        assert name not in names, f"pair {name} twice"
        names.add(name)
        for side, docs in (("old", old), ("new", changed)):
            with open(os.path.join(OUT, f"{name}.{side}.yaml"), "w") as f:
                f.write(f"# {description} ({side})\n")
                yaml.safe_dump_all(docs, f, sort_keys=False, explicit_start=False)
    print(f"wrote {len(PAIRS)} pairs to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
