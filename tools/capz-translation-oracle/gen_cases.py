#!/usr/bin/env python3
"""Writes the classic-bundle corpus tests/fixtures/capz-translation/cases/*.yaml (run once; the cases are committed).

Each case is a flat classic AKS bundle: Cluster, AzureManagedControlPlane, AzureManagedCluster, MachinePools and
AzureManagedMachinePools (and an AzureClusterIdentity), varied over SKUs, network, profiles, identities, pools,
Windows, spot, autoscaling, tags and asoManagedClusterPatches / asoManagedClustersAgentPoolPatches.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "fixtures", "capz-translation", "cases")
SUB = "00000000-0000-0000-0000-000000000001"
SSH = "c3NoLXJzYSBBQUFBQjNOemFDMXljMkVBQUFBREFRQUJBQUFCQVFDN3Rlc3Qga2V5QGV4YW1wbGUK"


def y(v):
    return json.dumps(v)


def bundle(name, ns="default", cp=None, pools=None, cluster_net=None, cp_labels=None):
    cp = dict(cp or {})
    pools = pools if pools is not None else [dict(name="pool0", mode="System"), dict(name="pool1", mode="User")]
    cluster = {
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "controlPlaneRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedControlPlane", "name": name},
            "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedCluster", "name": name},
        },
    }
    if cluster_net is not None:
        cluster["spec"]["clusterNetwork"] = cluster_net
    spec = {"identityRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureClusterIdentity", "name": "cluster-identity"},
            "location": "westeurope", "subscriptionID": SUB, "version": "v1.33.2"}
    spec.update(cp)
    amcp = {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedControlPlane",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}
    if cp_labels:
        amcp["metadata"]["labels"] = cp_labels
    docs = [cluster, amcp,
            {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedCluster", "metadata": {"name": name, "namespace": ns}, "spec": {}}]
    for p in pools:
        p = dict(p)
        obj_name = p.pop("objname", f"{name}-{p['name']}")
        replicas = p.pop("replicas", 2)
        version = p.pop("version", "v1.33.2")
        pool_name = p.pop("name")
        if p.pop("noname", False):
            pool_name = None
        mp = {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": obj_name, "namespace": ns},
              "spec": {"clusterName": name, "template": {"spec": {
                  "bootstrap": {"dataSecretName": ""}, "clusterName": name,
                  "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedMachinePool", "name": obj_name}}}}}
        if replicas is not None:
            mp["spec"]["replicas"] = replicas
        if version is not None:
            mp["spec"]["template"]["spec"]["version"] = version
        ps = {"mode": p.pop("mode"), "sku": p.pop("sku", "Standard_D2s_v3")}
        if pool_name is not None:
            ps["name"] = pool_name
        ps.update(p)
        docs += [mp, {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedMachinePool",
                      "metadata": {"name": obj_name, "namespace": ns}, "spec": ps}]
    docs.append({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureClusterIdentity",
                 "metadata": {"name": "cluster-identity", "namespace": ns},
                 "spec": {"type": "WorkloadIdentity", "clientID": "11111111-2222-3333-4444-555555555555", "tenantID": "66666666-7777-8888-9999-000000000000", "allowedNamespaces": {}}})
    return "\n---\n".join(to_yaml(d) for d in docs) + "\n"


def to_yaml(v, indent=0):
    """Block YAML with JSON-quoted scalars (valid YAML; keeps every string a string)."""
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        lines = []
        for k, val in v.items():
            if isinstance(val, (dict, list)) and val:
                lines.append(f"{pad}{k}:\n{to_yaml(val, indent + 1)}")
            else:
                lines.append(f"{pad}{k}: {to_yaml(val, 0) if isinstance(val,(dict,list)) else y(val)}")
        return "\n".join(lines)
    if isinstance(v, list):
        if not v:
            return "[]"
        lines = []
        for item in v:
            if isinstance(item, dict) and item:
                body = to_yaml(item, indent + 1)
                first, _, rest = body.partition("\n")
                lines.append(f"{pad}- {first.strip()}" + (f"\n{rest}" if rest else ""))
            else:
                lines.append(f"{pad}- {y(item)}")
        return "\n".join(lines)
    return y(v)


NET = {"pods": {"cidrBlocks": ["192.168.0.0/16"]}, "services": {"cidrBlocks": ["10.96.0.0/12"]}}
CASES = {
    "01-minimal": dict(),
    "02-sku-standard": dict(cp={"sku": {"tier": "Standard"}}),
    "03-sku-paid-deprecated": dict(cp={"sku": {"tier": "Paid"}, "resourceGroupName": "rg-paid"}),
    "04-sku-premium-rg-label": dict(cp={"sku": {"tier": "Premium"}}, cp_labels={"cluster.x-k8s.io/cluster-name": "c04"}),
    "05-cluster-network": dict(cluster_net=NET, cp={"resourceGroupName": "rg05"}),
    "06-dns-service-ip": dict(cluster_net={"services": {"cidrBlocks": ["10.0.0.0/16"]}}, cp={"dnsServiceIP": "10.0.0.10", "resourceGroupName": "rg06"}),
    "07-azure-cni-overlay-cilium": dict(cluster_net=NET, cp={"resourceGroupName": "rg07", "networkPlugin": "azure", "networkPluginMode": "overlay", "networkPolicy": "cilium", "networkDataplane": "cilium"}),
    "08-kubenet-calico-lb": dict(cp={"resourceGroupName": "rg08", "networkPlugin": "kubenet", "networkPolicy": "calico", "loadBalancerSKU": "Standard", "outboundType": "loadBalancer",
                                     "loadBalancerProfile": {"managedOutboundIPs": 3, "allocatedOutboundPorts": 1024, "idleTimeoutInMinutes": 10}}),
    "09-custom-vnet-other-rg": dict(cp={"resourceGroupName": "rg09", "virtualNetwork": {"name": "shared-vnet", "resourceGroup": "Network_RG", "cidrBlock": "10.10.0.0/16",
                                                                                       "subnet": {"name": "aks-nodes", "cidrBlock": "10.10.1.0/24"}}}),
    "10-user-assigned-identity": dict(cp={"resourceGroupName": "rg10", "identity": {"type": "UserAssigned", "userAssignedIdentityResourceID": f"/subscriptions/{SUB}/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cp"},
                                          "kubeletUserAssignedIdentity": f"/subscriptions/{SUB}/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet"}),
    "11-system-assigned-identity": dict(cp={"resourceGroupName": "rg11", "identity": {"type": "SystemAssigned"}}),
    "12-aad-disable-local": dict(cp={"resourceGroupName": "rg12", "aadProfile": {"managed": True, "adminGroupObjectIDs": ["aaaaaaaa-0000-0000-0000-000000000001"]}, "disableLocalAccounts": True}),
    "13-aad-local-accounts": dict(cp={"resourceGroupName": "rg13", "aadProfile": {"managed": True, "adminGroupObjectIDs": ["g1", "g2"]}}),
    "14-addons": dict(cp={"resourceGroupName": "rg14", "addonProfiles": [{"name": "azurepolicy", "enabled": True}, {"name": "omsagent", "enabled": False, "config": {"logAnalyticsWorkspaceResourceID": "/x/y"}}]}),
    "15-private-api": dict(cp={"resourceGroupName": "rg15", "apiServerAccessProfile": {"enablePrivateCluster": True, "privateDNSZone": "System", "enablePrivateClusterPublicFQDN": False}}),
    "16-authorized-ips": dict(cp={"resourceGroupName": "rg16", "apiServerAccessProfile": {"authorizedIPRanges": ["1.2.3.4/32", "10.0.0.0/8"]}}),
    "17-autoscaler-profile": dict(cp={"resourceGroupName": "rg17", "autoscalerProfile": {"balanceSimilarNodeGroups": "true", "expander": "least-waste", "maxEmptyBulkDelete": "10", "maxGracefulTerminationSec": "600",
                                                                                          "maxNodeProvisionTime": "15m", "maxTotalUnreadyPercentage": "45", "newPodScaleUpDelay": "0s", "okTotalUnreadyCount": "3", "scanInterval": "10s",
                                                                                          "scaleDownDelayAfterAdd": "10m", "scaleDownDelayAfterDelete": "10s", "scaleDownDelayAfterFailure": "3m", "scaleDownUnneededTime": "10m",
                                                                                          "scaleDownUnreadyTime": "20m", "scaleDownUtilizationThreshold": "0.5", "skipNodesWithLocalStorage": "false", "skipNodesWithSystemPods": "true"}}),
    "18-http-proxy": dict(cp={"resourceGroupName": "rg18", "httpProxyConfig": {"httpProxy": "http://proxy:3128", "httpsProxy": "http://proxy:3128", "noProxy": ["localhost", "10.0.0.0/8"], "trustedCa": "Q0EK"}}),
    "19-oidc-workload-identity": dict(cp={"resourceGroupName": "rg19", "oidcIssuerProfile": {"enabled": True}, "securityProfile": {"workloadIdentity": {"enabled": True}}}),
    "20-auto-upgrade": dict(cp={"resourceGroupName": "rg20", "autoUpgradeProfile": {"upgradeChannel": "stable"}}),
    "21-security-profile": dict(cp={"resourceGroupName": "rg21", "securityProfile": {
        "azureKeyVaultKms": {"enabled": True, "keyID": "https://kv.vault.azure.net/keys/k/1", "keyVaultNetworkAccess": "Private", "keyVaultResourceID": f"/subscriptions/{SUB}/resourceGroups/kv/providers/Microsoft.KeyVault/vaults/kv"},
        "defender": {"logAnalyticsWorkspaceResourceID": "/subscriptions/x/resourceGroups/la/providers/Microsoft.OperationalInsights/workspaces/w", "securityMonitoring": {"enabled": True}},
        "imageCleaner": {"enabled": True, "intervalHours": 48}}}),
    "22-ssh-key-tags-dnsprefix": dict(cp={"resourceGroupName": "rg22", "sshPublicKey": SSH, "dnsPrefix": "my-prefix", "nodeResourceGroupName": "nodes-rg22",
                                          "additionalTags": {"team": "platform", "env": "prod"}}),
    "23-windows-pool": dict(cp={"resourceGroupName": "rg23", "networkPlugin": "azure"}, pools=[dict(name="sys", mode="System"), dict(name="win1", mode="User", osType="Windows", sku="Standard_D4s_v3")]),
    "24-spot-pool": dict(cp={"resourceGroupName": "rg24"}, pools=[dict(name="pool0", mode="System"), dict(name="spot", mode="User", scaleSetPriority="Spot", spotMaxPrice="-1",
                                                                                                         taints=[{"key": "kubernetes.azure.com/scalesetpriority", "value": "spot", "effect": "NoSchedule"}])]),
    "25-autoscaling-pools": dict(cp={"resourceGroupName": "rg25"}, pools=[dict(name="pool0", mode="System", scaling={"minSize": 1, "maxSize": 3}),
                                                                          dict(name="pool1", mode="User", scaling={"minSize": 0, "maxSize": 10}, replicas=None, scaleDownMode="Deallocate")]),
    "26-pool-details": dict(cp={"resourceGroupName": "rg26"}, pools=[dict(name="pool0", mode="System", osDiskSizeGB=64, osDiskType="Ephemeral", maxPods=50, availabilityZones=["1", "2", "3"],
                                                                          nodeLabels={"role": "system"}, kubeletDiskType="OS", enableFIPS=True, enableEncryptionAtHost=True,
                                                                          additionalTags={"pool": "zero"}, enableUltraSSD=False)]),
    "27-pool-kubelet-linux-config": dict(cp={"resourceGroupName": "rg27"}, pools=[dict(name="pool0", mode="System",
        kubeletConfig={"cpuManagerPolicy": "static", "cpuCfsQuota": True, "cpuCfsQuotaPeriod": "100ms", "imageGcHighThreshold": 85, "imageGcLowThreshold": 80, "topologyManagerPolicy": "best-effort",
                       "allowedUnsafeSysctls": ["net.core.*"], "failSwapOn": False, "containerLogMaxSizeMB": 10, "containerLogMaxFiles": 5, "podMaxPids": 1024},
        linuxOSConfig={"swapFileSizeMB": 1500, "transparentHugePageEnabled": "madvise", "transparentHugePageDefrag": "defer",
                       "sysctls": {"fsFileMax": 100000, "netCoreSomaxconn": 4096, "vmMaxMapCount": 262144, "netIpv4IpLocalPortRange": "32768 60999"}})]),
    "28-pool-public-ip-subnet": dict(cp={"resourceGroupName": "rg28", "virtualNetwork": {"name": "vn28", "cidrBlock": "10.1.0.0/16", "subnet": {"name": "default", "cidrBlock": "10.1.0.0/24"}}},
                                     pools=[dict(name="pool0", mode="System", subnetName="sys-subnet"), dict(name="pool1", mode="User", enableNodePublicIP=True,
                                                                                                           nodePublicIPPrefixID=f"/subscriptions/{SUB}/resourceGroups/ip/providers/Microsoft.Network/publicIPPrefixes/p")]),
    "29-pool-name-defaulted": dict(cp={"resourceGroupName": "rg29"}, pools=[dict(name="x", objname="sysnp", noname=True, mode="System", replicas=None, version=None)]),
    "30-pool-version-and-replicas": dict(cp={"resourceGroupName": "rg30", "version": "1.32.5"}, pools=[dict(name="pool0", mode="System", version="v1.32.5", replicas=5), dict(name="pool1", mode="User", version="v1.31.9", replicas=0)]),
    "31-namespace-and-odd-names": dict(ns="team-a", cp={"resourceGroupName": "My_RG.Prod"}, pools=[dict(name="pool0", mode="System")]),
    "32-autoscaler-partial-crd-defaults": dict(cp={"resourceGroupName": "rg32", "autoscalerProfile": {"expander": "Priority", "scanInterval": "20s"}}),
    "33-basic-lb-udr-preview": dict(cp={"resourceGroupName": "rg33", "loadBalancerSKU": "Basic", "outboundType": "userDefinedRouting", "enablePreviewFeatures": True}),
    "34-version-without-v": dict(cp={"resourceGroupName": "rg34", "version": "1.33.2"}, pools=[dict(name="pool0", mode="System", version="1.33.2")]),
    "35-ipv6-service-cidr": dict(cluster_net={"services": {"cidrBlocks": ["fd00:10::/108"]}, "pods": {"cidrBlocks": ["10.244.0.0/16", "fd00:20::/64"]}}, cp={"resourceGroupName": "rg35"}),
    "36-aad-unmanaged-image-cleaner": dict(cp={"resourceGroupName": "rg36", "aadProfile": {"managed": False, "adminGroupObjectIDs": []}, "disableLocalAccounts": False,
                                               "securityProfile": {"imageCleaner": {"enabled": False}, "workloadIdentity": {"enabled": False}}}),
    "37-fleets-extensions-vnet-same-rg": dict(cp={"resourceGroupName": "rg37", "fleetsMember": {"group": "g"}, "virtualNetwork": {"name": "v37", "resourceGroup": "rg37", "cidrBlock": "10.3.0.0/16", "subnet": {"name": "s37", "cidrBlock": "10.3.0.0/24"}}},
                                              cp_labels={"cluster.x-k8s.io/cluster-name": "c37"}),
    "38-identity-none-oidc-disabled": dict(cp={"resourceGroupName": "rg38", "identity": {"type": "SystemAssigned"}, "oidcIssuerProfile": {"enabled": False}, "autoUpgradeProfile": {}}),
    "39-pool-no-replicas-temporary-disk": dict(cp={"resourceGroupName": "rg39"}, pools=[dict(name="pool0", mode="System", replicas=None, kubeletDiskType="Temporary", osDiskType="Managed",
                                                                                      kubeletConfig={"failSwapOn": True}, linuxOSConfig={"sysctls": {"netIpv4TcpFinTimeout": 30, "netIpv4TcpkeepaliveIntvl": 10}})]),
    # patches on the control plane
    "40-cp-patch-single": dict(cp={"resourceGroupName": "rg40", "asoManagedClusterPatches": ['{"spec": {"disableLocalAccounts": true}}']}),
    "41-cp-patch-yaml": dict(cp={"resourceGroupName": "rg41", "asoManagedClusterPatches": ["spec:\n  nodeProvisioningProfile:\n    mode: Auto\n"]}),
    "42-cp-patch-order": dict(cp={"resourceGroupName": "rg42", "asoManagedClusterPatches": ['{"spec": {"tags": {"a": "1"}}}', '{"spec": {"tags": {"a": "2", "b": "x"}}}']}),
    "43-cp-patch-null-removes": dict(cp={"resourceGroupName": "rg43", "sku": {"tier": "Standard"}, "asoManagedClusterPatches": ['{"spec": {"sku": null, "enableRBAC": false}}']}),
    "44-cp-patch-list-replace": dict(cp={"resourceGroupName": "rg44", "apiServerAccessProfile": {"authorizedIPRanges": ["1.1.1.1/32"]},
                                         "asoManagedClusterPatches": ['{"spec": {"apiServerAccessProfile": {"authorizedIPRanges": ["2.2.2.2/32"]}}}']}),
    "45-cp-patch-preview": dict(cp={"resourceGroupName": "rg45", "enablePreviewFeatures": True, "asoManagedClusterPatches": ['{"spec": {"aiToolchainOperatorProfile": {"enabled": true}}}']}),
    "46-cp-patch-metadata": dict(cp={"resourceGroupName": "rg46", "asoManagedClusterPatches": ['{"metadata": {"annotations": {"example.com/x": "y"}, "labels": {"team": "a"}}}']}),
    "47-cp-patch-agentpoolprofiles": dict(cp={"resourceGroupName": "rg47", "asoManagedClusterPatches": ['{"spec": {"agentPoolProfiles": null}}']}),
    "48-cp-patch-broken-yaml": dict(cp={"resourceGroupName": "rg48", "asoManagedClusterPatches": ['{"spec": {}}', "spec: [unclosed"]}),
    "49-cp-patch-wrong-type": dict(cp={"resourceGroupName": "rg49", "asoManagedClusterPatches": ['{"spec": {"enableRBAC": "yes"}}']}),
    # patches on pools
    "50-pool-patch-single": dict(cp={"resourceGroupName": "rg50"}, pools=[dict(name="pool0", mode="System", asoManagedClustersAgentPoolPatches=['{"spec": {"enableAutoScaling": true, "minCount": 1, "maxCount": 4}}'])]),
    "51-pool-patch-yaml-order": dict(cp={"resourceGroupName": "rg51"}, pools=[dict(name="pool0", mode="System"), dict(name="pool1", mode="User", asoManagedClustersAgentPoolPatches=[
        "spec:\n  nodeLabels:\n    a: one\n", "spec:\n  nodeLabels:\n    a: two\n    b: three\n"])]),
    "52-pool-patch-null": dict(cp={"resourceGroupName": "rg52"}, pools=[dict(name="pool0", mode="System", availabilityZones=["1"], asoManagedClustersAgentPoolPatches=['{"spec": {"availabilityZones": null, "osDiskSizeGB": 100}}'])]),
    "53-pool-patch-tags": dict(cp={"resourceGroupName": "rg53"}, pools=[dict(name="pool0", mode="System", additionalTags={"k": "v"}, asoManagedClustersAgentPoolPatches=['{"spec": {"tags": {"k": "patched", "new": "1"}}}'])]),
    "54-pool-patch-preview": dict(cp={"resourceGroupName": "rg54", "enablePreviewFeatures": True}, pools=[dict(name="pool0", mode="System", asoManagedClustersAgentPoolPatches=['{"spec": {"artifactStreamingProfile": {"enabled": true}}}'])]),
    "55-pool-patch-windows": dict(cp={"resourceGroupName": "rg55", "networkPlugin": "azure"}, pools=[dict(name="pool0", mode="System"), dict(name="win", mode="User", osType="Windows",
                                                                                                                                        asoManagedClustersAgentPoolPatches=['{"spec": {"windowsProfile": {"disableOutboundNat": true}}}'])]),
    "56-pool-patch-owner": dict(cp={"resourceGroupName": "rg56"}, pools=[dict(name="pool0", mode="System", asoManagedClustersAgentPoolPatches=['{"spec": {"owner": {"name": "other"}}}'])]),
    "57-pool-patch-broken": dict(cp={"resourceGroupName": "rg57"}, pools=[dict(name="pool0", mode="System", asoManagedClustersAgentPoolPatches=['{"spec": {}}', '{"spec": {"count": 3}}', "- not a map"])]),
    "58-pool-patch-both-kinds": dict(cp={"resourceGroupName": "rg58", "asoManagedClusterPatches": ['{"spec": {"supportPlan": "KubernetesOfficial"}}']},
                                     pools=[dict(name="pool0", mode="System", asoManagedClustersAgentPoolPatches=['{"spec": {"maxPods": 60}}']),
                                            dict(name="pool1", mode="User", spotMaxPrice="0.25", scaleSetPriority="Spot", asoManagedClustersAgentPoolPatches=['{"spec": {"spotMaxPrice": 0.5}}'])]),
    # errors
    "60-no-system-pool": dict(cp={"resourceGroupName": "rg60"}, pools=[dict(name="pool1", mode="User")]),
    "61-user-assigned-without-id": dict(cp={"resourceGroupName": "rg61", "identity": {"type": "UserAssigned"}}),
    "62-pool-version-above-cp": dict(cp={"resourceGroupName": "rg62", "version": "v1.31.0"}, pools=[dict(name="pool0", mode="System", version="v1.32.0")]),
}

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, kw in CASES.items():
        cluster = "c" + name.split("-")[0]
        with open(os.path.join(OUT, name + ".yaml"), "w") as f:
            f.write(bundle(cluster, **kw))
    print(f"wrote {len(CASES)} cases to {OUT}")
