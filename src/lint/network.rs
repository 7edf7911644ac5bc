//! Cluster network and network plugin combinations: mirrors `validateManagedClusterNetwork`,
//! `validateAzureManagedControlPlaneNetworkPluginMode`, `validateNetworkDataplane` and `validateNetworkPolicy`
//! (internal/webhooks/azuremanagedcontrolplane_validation.go); the plugin rules also apply to ASO ManagedClusters
//! (as `aks-network-plugin`). `validateManagedClusterNetwork` only runs once the object carries the cluster-name
//! label, so its findings say when CAPZ rejects.

use serde_json::Value;

use super::Sink;
use super::bundle::{
    AsoObject, At, Bundle, CAPI_GROUP, CLUSTER_NAME_LABEL, CONTAINERSERVICE_GROUP, spec_root, when_labelled,
};
use super::go_net::{parse_cidr, parse_ip};

pub(crate) const CLUSTER_NETWORK_CIDRS: &str = "capz-cluster-network-cidrs";
pub(crate) const DNS_SERVICE_IP: &str = "capz-dns-service-ip";
pub(crate) const NETWORK_PLUGIN: &str = "capz-network-plugin";
pub(crate) const TEMPLATE_VNET_NAME: &str = "capz-template-vnet-name";
pub(crate) const TEMPLATE_INSTANCE: &str = "capz-template-instance";

/// The first problem of a dnsServiceIP against the Cluster's service CIDR (None when fine).
fn dns_service_ip_problem(dns_service_ip: &str, service_cidrs: &[&str]) -> Option<String> {
    let service_cidr = match service_cidrs {
        [single] => *single,
        [] => {
            return Some(
                "the Cluster has no spec.clusterNetwork.services.cidrBlocks; a service CIDR must be specified when \
                 dnsServiceIP is set. Add one"
                    .to_string(),
            );
        }
        _ => return None, // too many CIDRs: capz-cluster-network-cidrs says so
    };
    let Some(cidr) = parse_cidr(service_cidr) else {
        return Some(format!("the Cluster's service CIDR {service_cidr:?} is not a valid CIDR"));
    };
    let Some(ip) = parse_ip(dns_service_ip) else {
        return Some(format!("dnsServiceIP {dns_service_ip:?} is not a valid IP address"));
    };
    if !cidr.contains(ip) {
        return Some(format!(
            "dnsServiceIP {dns_service_ip:?} is outside the Cluster's service CIDR {service_cidr:?}; pick the .10 \
             address inside it"
        ));
    }
    if !ip.to_string().ends_with(".10") {
        return Some(format!(
            "dnsServiceIP {dns_service_ip:?} must end with \".10\" (AKS uses .10 of the service CIDR)"
        ));
    }
    None
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if sink.wants(&[TEMPLATE_VNET_NAME]) {
        check_template_vnet_names(bundle, sink);
    }
    if sink.wants(&[CLUSTER_NETWORK_CIDRS, DNS_SERVICE_IP]) {
        check_cluster_networks(bundle, sink);
    }
    if sink.wants(&[NETWORK_PLUGIN, TEMPLATE_INSTANCE]) {
        check_network_plugins(bundle, sink);
    }
}

/// A virtual network name in a template, which every Cluster of the ClusterClass would share.
fn check_template_vnet_names(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.capz(&["AzureManagedControlPlaneTemplate"]) {
        let pointer = "/spec/template/spec/virtualNetwork/name";
        if let Some(name) = doc.value.at(pointer).and_then(Value::as_str).filter(|n| !n.is_empty()) {
            sink.emit(
                TEMPLATE_VNET_NAME,
                index,
                pointer,
                format!(
                    "virtualNetwork.name {name:?} in a template is shared by every Cluster of the ClusterClass, \
                     but virtual network names cannot be reused across clusters. Remove it (CAPZ defaults it per \
                     Cluster)"
                ),
            );
        }
    }
}

/// The Cluster's CIDR blocks as CAPZ reads them for its control plane: one per network, the DNS service IP
/// inside the services CIDR.
fn check_cluster_networks(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        // validateManagedClusterNetwork reads the Cluster the cluster-name label names; an unlabelled
        // AzureManagedControlPlane gets its Cluster's name at CAPI's first update, a template never.
        let label = doc.value.at("/metadata/labels").and_then(|labels| labels.get(CLUSTER_NAME_LABEL));
        let cluster = match label {
            Some(label) => bundle.find_named("Cluster", label.as_str().unwrap_or(""), bundle.namespace(index), |c| {
                bundle.group(c) == CAPI_GROUP
            }),
            None if doc.kind() == "AzureManagedControlPlane" => bundle.cluster_for_control_plane(index),
            None => None,
        };
        let Some(cluster) = cluster else {
            continue;
        };
        let root = spec_root(doc);
        let cluster_doc = &bundle.docs[cluster];
        let blocks = |network: &str| -> Vec<&str> {
            cluster_doc
                .value
                .at(&format!("/spec/clusterNetwork/{network}/cidrBlocks"))
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default()
        };
        // CAPZ rejects the AzureManagedControlPlane (the Cluster itself is accepted); the message names the
        // Cluster's field as CAPZ does (Cluster.spec.clusterNetwork.<network>.cidrBlocks).
        for network in ["services", "pods"] {
            let count = blocks(network).len();
            if count > 1 {
                sink.emit(
                    CLUSTER_NETWORK_CIDRS,
                    index,
                    "/metadata/name",
                    format!(
                        "Cluster {:?} has {count} spec.clusterNetwork.{network}.cidrBlocks, but AKS supports one; \
                         {}. Keep a single CIDR",
                        cluster_doc.name(),
                        when_labelled(doc)
                    ),
                );
            }
        }
        let pointer = format!("{root}/dnsServiceIP");
        if let Some(dns_service_ip) = doc.value.at(&pointer).and_then(Value::as_str)
            && let Some(problem) = dns_service_ip_problem(dns_service_ip, &blocks("services"))
        {
            sink.emit(DNS_SERVICE_IP, index, &pointer, format!("{problem}; {}", when_labelled(doc)));
        }
    }
}

/// The network plugin, mode, policy and dataplane of control planes, templates and ASO ManagedClusters.
fn check_network_plugins(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        let root = spec_root(doc);
        let field = |name: &str| doc.value.at(&format!("{root}/{name}")).and_then(Value::as_str);
        let settings = Settings {
            plugin: field("networkPlugin"),
            mode: field("networkPluginMode"),
            policy: field("networkPolicy"),
            dataplane: field("networkDataplane"),
            // CAPZ insists on an explicit cilium policy with the cilium dataplane.
            policy_required: true,
            // And on overlay mode (validateNetworkDataplane).
            cilium_needs_overlay: true,
        };
        for (name, message) in settings.problems() {
            // validateAzureManagedControlPlaneTemplate does not call validateAzureManagedControlPlaneNetworkPluginMode:
            // the template is accepted and each AzureManagedControlPlane made from it is rejected.
            if root != "/spec" && name == "networkPluginMode" {
                let message = format!(
                    "{message}. CAPZ's template webhook accepts this, but rejects every AzureManagedControlPlane \
                     the topology controller creates from the template"
                );
                sink.emit(TEMPLATE_INSTANCE, index, &format!("{root}/{name}"), message);
            } else {
                sink.emit(NETWORK_PLUGIN, index, &format!("{root}/{name}"), message);
            }
        }
    }
    for object in bundle.aso_objects() {
        if object.is(CONTAINERSERVICE_GROUP, "ManagedCluster") {
            check_aso(object, sink);
        }
    }
}

fn check_aso(object: &AsoObject<'_>, sink: &mut Sink<'_>) {
    let field = |name: &str| object.value.str_at(&format!("/spec/networkProfile/{name}"));
    let settings = Settings {
        plugin: field("networkPlugin"),
        mode: field("networkPluginMode"),
        policy: field("networkPolicy"),
        dataplane: field("networkDataplane"),
        // AKS fills in the policy for the cilium dataplane, and runs it with overlay, pod subnet or
        // node subnet IP assignment: no CAPZ code checks the embedded object, AKS does not reject these.
        policy_required: false,
        cilium_needs_overlay: false,
    };
    for (name, message) in settings.problems() {
        sink.emit(NETWORK_PLUGIN, object.doc, &object.pointer(&format!("/spec/networkProfile/{name}")), message);
    }
}

struct Settings<'a> {
    plugin: Option<&'a str>,
    mode: Option<&'a str>,
    policy: Option<&'a str>,
    dataplane: Option<&'a str>,
    policy_required: bool,
    cilium_needs_overlay: bool,
}

impl Settings<'_> {
    /// (field, message) for every broken combination.
    fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if self.mode == Some("overlay") && self.plugin == Some("kubenet") {
            problems.push((
                "networkPluginMode",
                "networkPluginMode \"overlay\" cannot be used with networkPlugin \"kubenet\"; use networkPlugin \"azure\""
                    .to_string(),
            ));
        }
        if self.policy == Some("cilium") && self.dataplane.is_some_and(|dataplane| dataplane != "cilium") {
            problems.push((
                "networkPolicy",
                format!(
                    "networkPolicy \"cilium\" needs networkDataplane \"cilium\", not {:?}",
                    self.dataplane.unwrap_or_default()
                ),
            ));
        }
        if self.dataplane == Some("cilium") {
            if self.cilium_needs_overlay && self.mode != Some("overlay") {
                problems.push((
                    "networkDataplane",
                    "networkDataplane \"cilium\" can only be used with networkPluginMode \"overlay\"; set it"
                        .to_string(),
                ));
            }
            let policy_wrong = match self.policy {
                Some(policy) => policy != "cilium",
                None => self.policy_required,
            };
            if policy_wrong {
                problems.push((
                    "networkDataplane",
                    "networkDataplane \"cilium\" requires networkPolicy \"cilium\"; set it".to_string(),
                ));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{amcp, findings_of, ids};
    use super::*;

    fn bundle(cidrs: &str, dns_service_ip: &str) -> String {
        format!(
            "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {{name: c1}}
spec:
  clusterNetwork:
    services: {{cidrBlocks: {cidrs}}}
  controlPlaneRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {{name: c1}}
spec:
  version: v1.33.2
  dnsServiceIP: {dns_service_ip}
"
        )
    }

    #[test]
    fn dns_service_ip_inside_and_dot_ten_passes() {
        assert!(findings_of(&bundle("[10.0.0.0/16]", "10.0.0.10"), DNS_SERVICE_IP).is_empty());
        assert!(findings_of(&bundle("[192.168.0.0/16]", "192.168.4.10"), DNS_SERVICE_IP).is_empty());
    }

    #[test]
    fn dns_service_ip_problems_fire() {
        for (cidrs, ip, expected) in [
            ("[10.0.0.0/16]", "10.1.0.10", "outside"),
            ("[10.0.0.0/16]", "10.0.0.53", "must end with"),
            ("[10.0.0.0/16]", "not-an-ip", "not a valid IP"),
            ("[]", "10.0.0.10", "no spec.clusterNetwork.services.cidrBlocks"),
            ("[10.0.0.0/33]", "10.0.0.10", "not a valid CIDR"),
        ] {
            let found = findings_of(&bundle(cidrs, ip), DNS_SERVICE_IP);
            assert_eq!(ids(&found), [DNS_SERVICE_IP], "{cidrs} {ip}");
            assert!(found[0].message.contains(expected), "{}", found[0].message);
            assert_eq!((found[0].path.as_str(), found[0].line), ("/spec/dnsServiceIP", 14));
        }
    }

    #[test]
    fn more_than_one_cidr_rejects_the_control_plane() {
        let found = findings_of(&bundle("[10.0.0.0/16, 10.1.0.0/16]", "10.0.0.10"), CLUSTER_NETWORK_CIDRS);
        assert_eq!(ids(&found), [CLUSTER_NETWORK_CIDRS]);
        assert_eq!(
            (found[0].object.as_str(), found[0].path.as_str()),
            ("AzureManagedControlPlane/c1", "/metadata/name")
        );
        assert!(found[0].message.contains("spec.clusterNetwork.services.cidrBlocks"), "{}", found[0].message);
        assert!(findings_of(&bundle("[10.0.0.0/16]", "10.0.0.10"), CLUSTER_NETWORK_CIDRS).is_empty());
    }

    #[test]
    fn network_plugin_combinations() {
        let ok = "  networkPlugin: azure\n  networkPluginMode: overlay\n  networkPolicy: cilium\n  networkDataplane: cilium\n";
        assert!(findings_of(&amcp(ok), NETWORK_PLUGIN).is_empty());
        assert!(findings_of(&amcp("  networkPlugin: kubenet\n"), NETWORK_PLUGIN).is_empty());

        let kubenet = findings_of(&amcp("  networkPlugin: kubenet\n  networkPluginMode: overlay\n"), NETWORK_PLUGIN);
        assert_eq!(kubenet.len(), 1);
        assert_eq!(kubenet[0].path, "/spec/networkPluginMode");

        let no_policy =
            findings_of(&amcp("  networkPluginMode: overlay\n  networkDataplane: cilium\n"), NETWORK_PLUGIN);
        assert_eq!(no_policy.len(), 1);
        assert!(no_policy[0].message.contains("requires networkPolicy"));

        let no_overlay = findings_of(&amcp("  networkPolicy: cilium\n  networkDataplane: cilium\n"), NETWORK_PLUGIN);
        assert!(no_overlay[0].message.contains("overlay"));

        let mixed = findings_of(&amcp("  networkPolicy: cilium\n  networkDataplane: azure\n"), NETWORK_PLUGIN);
        assert_eq!(mixed[0].path, "/spec/networkPolicy");
    }

    #[test]
    fn aso_managed_cluster_network_profile() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: c1}
    spec:
      networkProfile: {networkPlugin: kubenet, networkPluginMode: overlay}
";
        let found = findings_of(yaml, super::super::rules::twins::AKS_NETWORK_PLUGIN);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/spec/resources/0/spec/networkProfile/networkPluginMode");
        // AKS fills in the policy for the cilium dataplane itself, so ASO may leave it out.
        let cilium = yaml.replace(
            "{networkPlugin: kubenet, networkPluginMode: overlay}",
            "{networkPlugin: azure, networkPluginMode: overlay, networkDataplane: cilium}",
        );
        assert!(findings_of(&cilium, NETWORK_PLUGIN).is_empty());
        // AKS runs the cilium dataplane with a pod subnet or a node subnet too: only CAPZ's classic
        // webhook insists on overlay.
        for profile in [
            "{networkPlugin: azure, networkDataplane: cilium}",
            "{networkPlugin: azure, networkDataplane: cilium, networkPolicy: cilium}",
        ] {
            let yaml = yaml.replace("{networkPlugin: kubenet, networkPluginMode: overlay}", profile);
            let found = findings_of(&yaml, super::super::rules::twins::AKS_NETWORK_PLUGIN);
            assert!(found.is_empty(), "{profile}: {found:?}");
        }
        // The cilium policy still needs the cilium dataplane (AKS rejects it with the azure one).
        let mixed = yaml.replace(
            "{networkPlugin: kubenet, networkPluginMode: overlay}",
            "{networkPlugin: azure, networkDataplane: azure, networkPolicy: cilium}",
        );
        assert_eq!(findings_of(&mixed, super::super::rules::twins::AKS_NETWORK_PLUGIN).len(), 1);
    }

    #[test]
    fn template_vnet_name_warns() {
        let template = |vnet: &str| {
            format!(
                "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlaneTemplate\nmetadata: {{name: t}}\nspec:\n  template:\n    spec:\n      version: v1.33.2\n      virtualNetwork: {vnet}\n"
            )
        };
        let found = findings_of(&template("{name: shared, cidrBlock: 10.0.0.0/8}"), TEMPLATE_VNET_NAME);
        assert_eq!(ids(&found), [TEMPLATE_VNET_NAME]);
        assert_eq!(found[0].severity, crate::report::Severity::Warning);
        assert!(findings_of(&template("{cidrBlock: 10.0.0.0/8}"), TEMPLATE_VNET_NAME).is_empty());
    }
}
