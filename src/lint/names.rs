//! AKS cluster naming: mirrors `validateAzureManagedControlPlaneDNSPrefix` and `validateName`
//! (internal/webhooks/azuremanagedcontrolplane_validation.go), applied to ASO ManagedClusters as well.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CAPI_GROUP, CONTAINERSERVICE_GROUP};
use super::network::TEMPLATE_INSTANCE;

pub(crate) const DNS_PREFIX: &str = "capz-dns-prefix";
pub(crate) const RESERVED_NAME: &str = "capz-reserved-name";

static DNS_PREFIX_PATTERN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9-]{0,52}[a-zA-Z0-9]$").expect("valid regex"));

fn reserved_word(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    ["microsoft", "windows"].into_iter().find(|word| lower.contains(word))
}

/// What a `capz-dns-prefix` message says when CAPZ defaulted the dnsPrefix from metadata.name.
pub(super) const DNS_PREFIX_DEFAULTED: &str = " (CAPZ defaults dnsPrefix to metadata.name)";

fn dns_prefix_message(prefix: &str, defaulted: bool) -> String {
    let origin = if defaulted { DNS_PREFIX_DEFAULTED } else { "" };
    format!(
        "dnsPrefix {prefix:?}{origin} must be 2-54 letters, digits or hyphens, starting and ending with a letter or \
         digit (^[a-zA-Z0-9][a-zA-Z0-9-]{{0,52}}[a-zA-Z0-9]$); set spec.dnsPrefix to such a value"
    )
}

fn reserved_message(what: &str, name: &str, word: &str) -> String {
    format!(
        "{what} {name:?} contains {word:?}; AKS does not allow \"microsoft\" or \"windows\" anywhere in a cluster name. \
         Choose another name"
    )
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[DNS_PREFIX, RESERVED_NAME, TEMPLATE_INSTANCE]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        if let Some(word) = reserved_word(doc.name()) {
            sink.emit(RESERVED_NAME, index, "/metadata/name", reserved_message("metadata.name", doc.name(), word));
        }
        if doc.kind() != "AzureManagedControlPlane" {
            continue;
        }
        match doc.value.at("/spec/dnsPrefix") {
            Some(Value::String(prefix)) => {
                if !DNS_PREFIX_PATTERN.is_match(prefix) {
                    sink.emit(DNS_PREFIX, index, "/spec/dnsPrefix", dns_prefix_message(prefix, false));
                }
            }
            None | Some(Value::Null) => {
                let name = doc.name();
                // CAPZ's defaulting writes metadata.name into spec.dnsPrefix; the webhook reports that field.
                if !name.is_empty() && !DNS_PREFIX_PATTERN.is_match(name) {
                    sink.emit(DNS_PREFIX, index, "/spec/dnsPrefix", dns_prefix_message(name, true));
                }
            }
            Some(_) => {}
        }
    }
    for object in bundle.aso_objects() {
        if object.is(CONTAINERSERVICE_GROUP, "ManagedCluster") {
            check_managed_cluster(object, sink);
        }
    }
    if sink.wants(&[TEMPLATE_INSTANCE]) {
        for (index, doc) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
            check_topology_control_plane_name(bundle, index, doc, sink);
        }
    }
}

/// CAPI's topology controller names the control plane `{{ .cluster.name }}-{{ .random }}` unless the ClusterClass
/// sets a naming strategy; CAPZ's validateName then rejects an AzureManagedControlPlane whose name holds a reserved
/// word, so a topology Cluster named that way never gets its control plane.
fn check_topology_control_plane_name(
    bundle: &Bundle<'_>,
    index: usize,
    doc: &crate::manifest::Document,
    sink: &mut Sink<'_>,
) {
    let Some(class) = super::pools::aks_cluster_class(bundle, index) else {
        return;
    };
    let class = &bundle.docs[class];
    let kind = class
        .value
        .at("/spec/controlPlane/ref/kind")
        .or_else(|| class.value.at("/spec/controlPlane/templateRef/kind"))
        .and_then(Value::as_str);
    if kind != Some("AzureManagedControlPlaneTemplate") || class.value.at("/spec/controlPlane/namingStrategy").is_some()
    {
        return;
    }
    if let Some(word) = reserved_word(doc.name()) {
        sink.emit(
            TEMPLATE_INSTANCE,
            index,
            "/metadata/name",
            format!(
                "topology Cluster {:?} contains {word:?}: CAPI names its AzureManagedControlPlane \"{}-<random>\", which \
                 CAPZ's webhook rejects (validateName: no \"microsoft\" or \"windows\" in AKS cluster names). Rename the \
                 Cluster or set the ClusterClass's controlPlane.namingStrategy",
                doc.name(),
                doc.name()
            ),
        );
    }
}

fn check_managed_cluster(object: &AsoObject<'_>, sink: &mut Sink<'_>) {
    // AKS itself also takes a single alphanumeric character, which CAPZ's pattern does not.
    if let Some(prefix) = object.value.str_at("/spec/dnsPrefix")
        && !DNS_PREFIX_PATTERN.is_match(prefix)
        && !(prefix.len() == 1 && prefix.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        sink.emit(DNS_PREFIX, object.doc, &object.pointer("/spec/dnsPrefix"), dns_prefix_message(prefix, false));
    }
    let (what, pointer, name) = match object.value.str_at("/spec/azureName").filter(|name| !name.is_empty()) {
        Some(name) => ("azureName", "/spec/azureName", name),
        None => ("metadata.name (the Azure name when azureName is unset)", "/metadata/name", object.name()),
    };
    if let Some(word) = reserved_word(name) {
        sink.emit(RESERVED_NAME, object.doc, &object.pointer(pointer), reserved_message(what, name, word));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, ids};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(
            yaml,
            &[
                DNS_PREFIX,
                RESERVED_NAME,
                super::super::rules::twins::AKS_DNS_PREFIX,
                super::super::rules::twins::AKS_RESERVED_NAME,
            ],
        )
    }

    fn amcp(name: &str, dns_prefix: Option<&str>) -> String {
        let mut yaml = format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata:\n  name: {name}\nspec:\n  version: v1.33.2\n"
        );
        if let Some(prefix) = dns_prefix {
            yaml.push_str(&format!("  dnsPrefix: {prefix}\n"));
        }
        yaml
    }

    #[test]
    fn good_names_pass() {
        assert!(findings(&amcp("my-cluster", None)).is_empty());
        assert!(findings(&amcp("my-cluster", Some("My-Prefix1"))).is_empty());
    }

    #[test]
    fn bad_dns_prefix_fires() {
        for bad in ["-lead", "trail-", "a", "has.dot", "\"\""] {
            let found = findings(&amcp("ok", Some(bad)));
            assert_eq!(ids(&found), [DNS_PREFIX], "{bad}");
            assert_eq!(found[0].path, "/spec/dnsPrefix");
            assert_eq!(found[0].line, 7);
        }
        let long = "a".repeat(55);
        assert_eq!(ids(&findings(&amcp("ok", Some(&long)))), [DNS_PREFIX]);
        assert!(findings(&amcp("ok", Some(&"a".repeat(54)))).is_empty());
    }

    #[test]
    fn dns_prefix_defaults_to_metadata_name() {
        let found = findings(&amcp("my.cluster", None));
        assert_eq!(ids(&found), [DNS_PREFIX]);
        assert_eq!(found[0].path, "/spec/dnsPrefix", "the field CAPZ's defaulting fills and its webhook reports");
        assert!(found[0].message.contains("defaults dnsPrefix to metadata.name"));
        // An explicit, valid dnsPrefix makes the name irrelevant.
        assert!(findings(&amcp("my.cluster", Some("mycluster"))).is_empty());
    }

    #[test]
    fn reserved_words_fire_case_insensitively() {
        let found = findings(&amcp("my-Windows-aks", Some("ok1")));
        assert_eq!(ids(&found), [RESERVED_NAME]);
        assert!(found[0].message.contains("\"windows\""));
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: microsoftish}
spec: {template: {spec: {version: v1.33.2}}}
";
        assert_eq!(ids(&findings(template)), [RESERVED_NAME]);
    }

    #[test]
    fn aso_managed_cluster_is_checked() {
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
      azureName: windows-c1
      dnsPrefix: bad_prefix
";
        let found = findings(yaml);
        assert_eq!(
            ids(&found),
            [super::super::rules::twins::AKS_RESERVED_NAME, super::super::rules::twins::AKS_DNS_PREFIX],
            "ordered by line, AKS rules on ASO objects"
        );
        let paths: Vec<_> = found.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"/spec/resources/0/spec/dnsPrefix"));
        assert!(paths.contains(&"/spec/resources/0/spec/azureName"));
        let good = yaml.replace("windows-c1", "c1").replace("bad_prefix", "c1");
        assert!(findings(&good).is_empty());
        let single = yaml.replace("windows-c1", "c1").replace("bad_prefix", "x");
        assert!(findings(&single).is_empty(), "AKS accepts a one-character dnsPrefix");
    }
}

#[cfg(test)]
mod topology_tests {
    use super::super::test_support::{findings_of, paths};
    use super::*;

    #[test]
    fn topology_cluster_name_becomes_the_control_plane_name() {
        let bundle = |cluster: &str| {
            format!(
                "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {{name: {cluster}}}
spec:
  topology: {{class: aks, version: v1.33.2}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {{name: aks}}
spec:
  controlPlane:
    ref: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp}}
"
            )
        };
        assert_eq!(paths(&findings_of(&bundle("team-windows"), TEMPLATE_INSTANCE)), ["/metadata/name"]);
        assert!(findings_of(&bundle("team-a"), TEMPLATE_INSTANCE).is_empty());
    }
}
