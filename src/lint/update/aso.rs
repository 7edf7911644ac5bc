//! Update rules of ASO objects, standalone or embedded in an AzureASOManaged* object's `spec.resources`: the
//! write-once properties ASO's generated webhooks guard, and the properties AKS does not let change once a cluster
//! or agent pool exists. CAPZ has no update webhook for the ASO API, so a change the API server accepts may still
//! be rejected later: by ASO's webhook when CAPZ applies the embedded object at reconcile (or at once, for a
//! standalone ASO object), or by AKS when ASO sends it.
//!
//! Write-once: `genruntime.ValidateWriteOnceProperties` (v2/pkg/genruntime/base_types... of
//! azure-service-operator v2.18 and v2.20, the versions CAPZ v1.26 and v1.27 build with; v2.20 is also what CAPZ
//! main, the provisional v1.28, pins), run by every generated
//! `ValidateUpdate` once the resource carries its ARM id (`serviceoperator.azure.com/resource-id`, set when ASO
//! created it: the stored side of a change review has been applied). `spec.azureName` is compared as ASO's
//! defaulting leaves it (empty means `metadata.name`).
//!
//! AKS: the agent-pool properties CAPZ's classic AzureManagedMachinePool webhook forbids to change for the reason
//! that AKS does not allow it (AKS documents the VM size: "You can't change the VM size of a node pool after you
//! create it", learn.microsoft.com/azure/aks/manage-node-pools), and the cluster properties its
//! AzureManagedControlPlane webhook forbids for the same reason. Compared only where both sides set the property:
//! an unset side's value is whatever AKS chose, which a repository does not show. Left out because AKS now updates
//! them in place: `enableFIPS`, `enableEncryptionAtHost`, `kubeletConfig`, `linuxOSConfig`, `outboundType`,
//! `networkPolicy`. `networkProfile.networkPlugin` changes only by AKS's migrations to Azure CNI Overlay (from
//! kubenet, learn.microsoft.com/azure/aks/upgrade-azure-cni "Upgrade ... kubenet"; an Azure CNI cluster keeps
//! `azure` and gains `networkPluginMode: overlay`): any other change (to `kubenet`, to `none`, from `none`) is
//! refused.

use serde_json::Value;

use crate::json_pointer::{At, Fields};
use crate::manifest::split_api_version;

pub const ASO_WRITE_ONCE: &str = "aso-write-once";
pub const AKS_IMMUTABLE: &str = "aks-immutable-property";

const CONTAINER_SERVICE_GROUP: &str = "containerservice.azure.com";

/// Agent-pool properties (JSON pointers below `spec`) AKS keeps as created; the zones as a set.
const POOL_PROPERTIES: &[&str] = &[
    "/vmSize",
    "/osType",
    "/osDiskSizeGB",
    "/osDiskType",
    "/vnetSubnetReference",
    "/podSubnetReference",
    "/availabilityZones",
    "/maxPods",
    "/scaleSetPriority",
    "/enableUltraSSD",
    "/enableNodePublicIP",
    "/nodePublicIPPrefixReference",
    "/kubeletDiskType",
];

/// Managed-cluster properties (JSON pointers below `spec`) AKS keeps as created.
const CLUSTER_PROPERTIES: &[&str] = &[
    "/location",
    "/dnsPrefix",
    "/fqdnSubdomain",
    "/nodeResourceGroup",
    "/networkProfile/dnsServiceIP",
    "/linuxProfile/adminUsername",
    "/windowsProfile/adminUsername",
];

/// One rejection of a change to an ASO object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AsoIssue {
    pub(crate) rule: &'static str,
    /// JSON pointer in the new object (relative to the ASO object itself).
    pub(crate) pointer: String,
    pub(crate) message: String,
}

/// What ASO's webhook and AKS reject when the stored ASO object `old` is replaced by `new` (same group, kind,
/// namespace and name), in ASO's order, then AKS's.
pub(crate) fn issues(old: &Value, new: &Value) -> Vec<AsoIssue> {
    let mut out = Vec::new();
    write_once(old, new, &mut out);
    if split_api_version(new.str_at("/apiVersion").unwrap_or("")).0 == CONTAINER_SERVICE_GROUP {
        match new.str_at("/kind") {
            Some("ManagedClustersAgentPool") => changed_properties(old, new, POOL_PROPERTIES, "agent pool", &mut out),
            Some("ManagedCluster") => {
                changed_properties(old, new, CLUSTER_PROPERTIES, "managed cluster", &mut out);
                network_plugin(old, new, &mut out);
            }
            _ => {}
        }
    }
    out
}

/// A managed cluster's network plugin changed other than by the migration to Azure CNI Overlay (`kubenet` to
/// `azure` with `networkPluginMode: overlay`).
fn network_plugin(old: &Value, new: &Value, out: &mut Vec<AsoIssue>) {
    let plugin = |v: &Value| v.str_at("/spec/networkProfile/networkPlugin").map(str::to_ascii_lowercase);
    let (Some(before), Some(after)) = (plugin(old), plugin(new)) else { return };
    if before == after {
        return;
    }
    let mode = new.str_at("/spec/networkProfile/networkPluginMode").map(str::to_ascii_lowercase);
    if before == "kubenet" && after == "azure" && mode.as_deref() == Some("overlay") {
        return;
    }
    out.push(AsoIssue {
        rule: AKS_IMMUTABLE,
        pointer: "/spec/networkProfile/networkPlugin".into(),
        message: format!(
            "managed cluster property `networkProfile.networkPlugin` changed (`{before}` -> `{after}`): AKS changes a \
             cluster's network plugin only by the migration from kubenet to Azure CNI Overlay (`azure` with \
             `networkPluginMode: overlay`); create a new cluster instead"
        ),
    });
}

/// `spec.azureName` as ASO's defaulting webhook leaves it: the object's name when empty.
fn azure_name(object: &Value) -> &str {
    match object.str_at("/spec/azureName") {
        Some(name) if !name.is_empty() => name,
        _ => object.str_at("/metadata/name").unwrap_or(""),
    }
}

/// `genruntime.ValidateWriteOnceProperties`.
fn write_once(old: &Value, new: &Value, out: &mut Vec<AsoIssue>) {
    let what = || format!("'{} : {}'", new.str_at("/kind").unwrap_or(""), new.str_at("/metadata/name").unwrap_or(""));
    let (old_name, new_name) = (azure_name(old), azure_name(new));
    if !old_name.is_empty() && old_name != new_name {
        out.push(AsoIssue {
            rule: ASO_WRITE_ONCE,
            pointer: "/spec/azureName".into(),
            message: format!(
                "updating 'spec.azureName' is not allowed for {} (`{old_name}` -> `{new_name}`): the Azure resource \
                 keeps its name; a new name is a new resource",
                what()
            ),
        });
    }
    fn owner(object: &Value) -> Option<&Value> {
        object.at("/spec/owner").filter(|owner| owner.is_object())
    }
    let text = |owner: &Value, key: &str| owner.field(key).and_then(Value::as_str).unwrap_or("").to_string();
    let issue = match (owner(old), owner(new)) {
        (None, Some(_)) => Some(("/spec/owner", "adding an owner to an already created resource is not allowed")),
        (Some(o), Some(n)) if text(o, "name") != text(n, "name") => {
            Some(("/spec/owner/name", "updating 'spec.owner.name' is not allowed"))
        }
        (Some(o), Some(n)) if text(o, "armId") != text(n, "armId") => {
            Some(("/spec/owner/armId", "updating 'spec.owner.armId' is not allowed"))
        }
        (Some(_), None) => Some(("/spec", "removing 'spec.owner' is not allowed")),
        _ => None,
    };
    if let Some((pointer, message)) = issue {
        out.push(AsoIssue {
            rule: ASO_WRITE_ONCE,
            pointer: pointer.into(),
            message: format!("{message} for {}: ASO does not move a created resource", what()),
        });
    }
}

/// A property's value for comparison; availability zones as a set.
fn comparable(spec: &Value, pointer: &str) -> Option<Value> {
    let value = spec.at(pointer)?;
    if value.is_null() {
        return None;
    }
    if pointer == "/availabilityZones"
        && let Some(zones) = value.as_array()
    {
        let mut zones: Vec<String> = zones.iter().map(|z| z.as_str().unwrap_or("").to_string()).collect();
        zones.sort();
        return Some(Value::from(zones));
    }
    Some(value.clone())
}

/// An [`AKS_IMMUTABLE`] issue for each of `properties` that both sides set to different values.
fn changed_properties(old: &Value, new: &Value, properties: &[&str], what: &str, out: &mut Vec<AsoIssue>) {
    let (Some(o), Some(n)) = (old.field("spec"), new.field("spec")) else { return };
    for property in properties {
        let (Some(before), Some(after)) = (comparable(o, property), comparable(n, property)) else { continue };
        if before != after {
            let name = property.trim_start_matches('/').replace('/', ".");
            out.push(AsoIssue {
                rule: AKS_IMMUTABLE,
                pointer: format!("/spec{property}"),
                message: format!(
                    "AKS does not change `{name}` of an existing {what} ({} -> {}): accepted by the API server, the \
                     update fails when ASO sends it to AKS; a new value takes a new {what}",
                    compact(&before),
                    compact(&after)
                ),
            });
        }
    }
}

/// A value as one short line of JSON.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 { format!("{}…", text.chars().take(80).collect::<String>()) } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pool(spec: Value) -> Value {
        json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedClustersAgentPool",
               "metadata": {"name": "c1-pool0"}, "spec": spec})
    }

    fn rules_and_pointers(found: &[AsoIssue]) -> Vec<(&str, &str)> {
        found.iter().map(|i| (i.rule, i.pointer.as_str())).collect()
    }

    #[test]
    fn azure_name_compares_as_defaulted() {
        let owner = json!({"name": "c1"});
        let old = pool(json!({"owner": owner, "azureName": "pool0", "vmSize": "Standard_D2s_v5"}));
        let renamed = pool(json!({"owner": owner, "azureName": "pool1", "vmSize": "Standard_D2s_v5"}));
        assert_eq!(rules_and_pointers(&issues(&old, &renamed)), [(ASO_WRITE_ONCE, "/spec/azureName")]);
        // Dropping azureName defaults it to metadata.name, another name.
        let dropped = pool(json!({"owner": owner, "vmSize": "Standard_D2s_v5"}));
        assert_eq!(rules_and_pointers(&issues(&old, &dropped)), [(ASO_WRITE_ONCE, "/spec/azureName")]);
        // Writing out the default is no change.
        let implicit = pool(json!({"owner": owner}));
        let explicit = pool(json!({"owner": owner, "azureName": "c1-pool0"}));
        assert!(issues(&implicit, &explicit).is_empty());
    }

    #[test]
    fn owner_changes_in_asos_order() {
        let with = |owner: Value| pool(json!({"owner": owner}));
        let old = with(json!({"name": "c1"}));
        assert_eq!(
            rules_and_pointers(&issues(&old, &with(json!({"name": "c2"})))),
            [(ASO_WRITE_ONCE, "/spec/owner/name")]
        );
        let arm = with(json!({"armId": "/subscriptions/0/resourceGroups/a"}));
        let moved = with(json!({"armId": "/subscriptions/0/resourceGroups/b"}));
        assert_eq!(rules_and_pointers(&issues(&arm, &moved)), [(ASO_WRITE_ONCE, "/spec/owner/armId")]);
        assert_eq!(rules_and_pointers(&issues(&old, &pool(json!({})))), [(ASO_WRITE_ONCE, "/spec")]);
        assert_eq!(rules_and_pointers(&issues(&pool(json!({})), &old)), [(ASO_WRITE_ONCE, "/spec/owner")]);
        assert!(issues(&old, &with(json!({"name": "c1"}))).is_empty());
    }

    #[test]
    fn pool_properties_aks_keeps() {
        let old = pool(json!({"owner": {"name": "c1"}, "vmSize": "Standard_D2s_v5", "count": 1,
                              "availabilityZones": ["1", "2"], "enableFIPS": false}));
        let new = pool(json!({"owner": {"name": "c1"}, "vmSize": "Standard_D4s_v5", "count": 3,
                              "availabilityZones": ["2", "1"], "enableFIPS": true}));
        let found = issues(&old, &new);
        assert_eq!(rules_and_pointers(&found), [(AKS_IMMUTABLE, "/spec/vmSize")]);
        assert!(found[0].message.contains("\"Standard_D2s_v5\" -> \"Standard_D4s_v5\""), "{}", found[0].message);
        let zones = pool(json!({"owner": {"name": "c1"}, "availabilityZones": ["1"]}));
        let more = pool(json!({"owner": {"name": "c1"}, "availabilityZones": ["1", "3"]}));
        assert_eq!(rules_and_pointers(&issues(&zones, &more)), [(AKS_IMMUTABLE, "/spec/availabilityZones")]);
        // Set on one side only: what AKS chose is not in the repository.
        let unset = pool(json!({"owner": {"name": "c1"}}));
        let set = pool(json!({"owner": {"name": "c1"}, "maxPods": 50}));
        assert!(issues(&unset, &set).is_empty());
    }

    #[test]
    fn cluster_properties_aks_keeps() {
        let cluster = |dns: &str, version: &str| {
            json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
                   "metadata": {"name": "c1"},
                   "spec": {"owner": {"name": "rg"}, "location": "westeurope", "dnsPrefix": dns,
                            "kubernetesVersion": version}})
        };
        let found = issues(&cluster("c1", "1.33.2"), &cluster("c1-new", "1.34.1"));
        assert_eq!(rules_and_pointers(&found), [(AKS_IMMUTABLE, "/spec/dnsPrefix")]);
        assert!(found[0].message.contains("`dnsPrefix` of an existing managed cluster"), "{}", found[0].message);
        // Other groups' objects keep their AKS-side properties to themselves.
        let mut other = cluster("c1", "1.33.2");
        other["apiVersion"] = json!("example.azure.com/v1");
        let mut other_new = cluster("c2", "1.33.2");
        other_new["apiVersion"] = json!("example.azure.com/v1");
        assert!(issues(&other, &other_new).is_empty());
    }
}
