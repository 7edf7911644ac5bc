//! The classic values `migrate` writes differently into the ASO objects (the enum spellings ASO's
//! conversion matches case-insensitively, as CAPZ's own conversion does) or leaves out: each is
//! reported with where it was written, so nothing changes silently.

use serde_json::Value;

use super::AsoBundle;
use super::bundle::ClassicCluster;
use crate::json_pointer::At;

/// One value written differently (or not at all), at `location` (file:line of the classic field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adaptation {
    pub location: String,
    pub message: String,
}

/// (classic field of the AzureManagedControlPlane, field of the ManagedCluster).
const CONTROL_PLANE_FIELDS: &[(&str, &str)] = &[
    ("/spec/networkPlugin", "/spec/networkProfile/networkPlugin"),
    ("/spec/networkPluginMode", "/spec/networkProfile/networkPluginMode"),
    ("/spec/networkPolicy", "/spec/networkProfile/networkPolicy"),
    ("/spec/networkDataplane", "/spec/networkProfile/networkDataplane"),
    ("/spec/loadBalancerSKU", "/spec/networkProfile/loadBalancerSku"),
    ("/spec/outboundType", "/spec/networkProfile/outboundType"),
    ("/spec/dnsServiceIP", "/spec/networkProfile/dnsServiceIP"),
    ("/spec/azureKeyVaultKms/keyVaultNetworkAccess", "/spec/securityProfile/azureKeyVaultKms/keyVaultNetworkAccess"),
];

/// (classic field of the Cluster, field of the ManagedCluster).
const CLUSTER_FIELDS: &[(&str, &str)] = &[
    ("/spec/clusterNetwork/pods/cidrBlocks/0", "/spec/networkProfile/podCidr"),
    ("/spec/clusterNetwork/services/cidrBlocks/0", "/spec/networkProfile/serviceCidr"),
];

/// (classic field of the AzureManagedMachinePool, field of the ManagedClustersAgentPool).
const POOL_FIELDS: &[(&str, &str)] = &[
    ("/spec/mode", "/spec/mode"),
    ("/spec/osType", "/spec/osType"),
    ("/spec/osDiskType", "/spec/osDiskType"),
    ("/spec/scaleSetPriority", "/spec/scaleSetPriority"),
    ("/spec/sku", "/spec/vmSize"),
];

fn field(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

fn compare(
    from: &crate::manifest::Document,
    to: Option<&Value>,
    to_kind: &str,
    fields: &[(&str, &str)],
    out: &mut Vec<Adaptation>,
) {
    for (classic, aso) in fields {
        let Some(old) = from.value.at(classic).filter(|v| !v.is_null() && v.as_str() != Some("")) else {
            continue;
        };
        let new = to.and_then(|t| t.at(aso));
        let message = match new {
            Some(new) if new == old => continue,
            Some(new) => format!(
                "{} {} {old} is written as {new} in {to_kind} {} (ASO's spelling; CAPZ converts it the same way)",
                from.display_name(),
                field(classic),
                field(aso)
            ),
            None => format!(
                "{} {} {old} is not carried over: {to_kind} {} is not set (CAPZ does not send it)",
                from.display_name(),
                field(classic),
                field(aso)
            ),
        };
        out.push(Adaptation { location: from.location_of(classic), message });
    }
}

/// The object embedded first in the `index`-th object of the bundle (a wrapper's `spec.resources[0]`).
fn embedded(bundle: &AsoBundle, index: usize) -> Option<&Value> {
    bundle.objects.get(index)?.at("/spec/resources/0")
}

/// Every classic value of `classic` written differently, or not at all, in `bundle`.
pub fn adaptations(classic: &ClassicCluster<'_>, bundle: &AsoBundle) -> Vec<Adaptation> {
    let mut out = Vec::new();
    // Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane, then (MachinePool, AzureASOManagedMachinePool)s.
    let managed_cluster = embedded(bundle, 2);
    compare(&classic.control_plane, managed_cluster, "ManagedCluster", CONTROL_PLANE_FIELDS, &mut out);
    compare(&classic.cluster, managed_cluster, "ManagedCluster", CLUSTER_FIELDS, &mut out);
    for (index, (_, pool)) in classic.pools.iter().enumerate() {
        compare(pool, embedded(bundle, 4 + 2 * index), "ManagedClustersAgentPool", POOL_FIELDS, &mut out);
    }
    out
}
