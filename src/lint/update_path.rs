//! What CAPZ's webhooks reject only on update, reported now. Right after creation CAPI's controllers update every
//! CAPZ object (the Cluster controller adds the `cluster.x-k8s.io/cluster-name` label; the ClusterClass controller
//! adds its owner reference to the templates), and CAPZ's `ValidateUpdate` then runs checks that create skips.
//! Mirrors `validateManagedClusterNetwork` → `validatePrivateEndpoints` (internal/webhooks/azurecluster_validation.go),
//! `validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts`, `validateAKSExtensionsUpdate` and the
//! resourceGroupName immutability of `AzureManagedControlPlaneWebhook.ValidateUpdate`
//! (internal/webhooks/azuremanagedcontrolplane_webhook.go, _validation.go, azuremanagedcontrolplanetemplate_webhook.go).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::Sink;
use super::bundle::{At, Bundle, CLUSTER_NAME_LABEL, spec_root, when_labelled};
use super::control_plane::FLEETS_MEMBER_NAME;
use super::go_net::{parse_cidr, parse_ip};
use crate::manifest::Document;

pub(crate) const PRIVATE_ENDPOINTS: &str = "capz-private-endpoints";
pub(crate) const AAD_ADMIN_GROUPS: &str = "capz-aad-admin-groups";
pub(crate) const EXTENSION_SCOPE_UPDATE: &str = "capz-extension-scope-update";
pub(crate) const EXTENSION_DUPLICATE_NAME: &str = "capz-extension-duplicate-name";
pub(crate) const RESOURCE_GROUP_UPDATE: &str = "capz-resource-group-update";
pub(crate) const LABELLED_CLUSTER_MISSING: &str = "capz-labelled-cluster-missing";

/// `privateEndpointRegex` (Go's `\w` is ASCII).
static PRIVATE_ENDPOINT_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-0-9A-Za-z_\._]+$").expect("valid regex"));
/// `validateFleetsMember`'s pattern.
static FLEETS_MEMBER_PATTERN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").expect("valid regex"));
/// `resourceIDPattern`.
static RESOURCE_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)subscriptions/(.+)/resourceGroups/(.+)/providers/(.+?)/(.+?)/(.+)").expect("valid regex")
});

/// When a check of `ValidateUpdate` fires for this object.
fn first_update(doc: &Document) -> &'static str {
    if doc.kind().ends_with("Template") {
        "rejected at CAPI's first update of the template (the ClusterClass controller adds its owner reference): \
         CAPZ's ValidateUpdate refuses it"
    } else {
        "rejected at CAPI's first update (label cluster.x-k8s.io/cluster-name): the apply succeeds, then CAPZ's \
         ValidateUpdate refuses the update that adds the label"
    }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[
        PRIVATE_ENDPOINTS,
        AAD_ADMIN_GROUPS,
        EXTENSION_SCOPE_UPDATE,
        EXTENSION_DUPLICATE_NAME,
        RESOURCE_GROUP_UPDATE,
        LABELLED_CLUSTER_MISSING,
        FLEETS_MEMBER_NAME,
    ]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        let root = spec_root(doc);
        let Some(spec) = doc.value.object_at(root) else {
            continue;
        };
        labelled_cluster(bundle, index, doc, sink);
        let labelled = doc.value.at("/metadata/labels").and_then(|labels| labels.get(CLUSTER_NAME_LABEL)).is_some();
        let control_plane = doc.kind() == "AzureManagedControlPlane";
        // ValidateUpdate runs when something updates the object: for a control plane, the Cluster controller of the
        // Cluster whose controlPlaneRef names it (it adds the label). With no such Cluster in the bundle and no
        // label, CAPZ never runs these checks (nor validateManagedClusterNetwork, gated on the label).
        if control_plane && !labelled && bundle.cluster_for_control_plane(index).is_none() {
            continue;
        }
        // A template is updated by the ClusterClass controller (owner reference) of a ClusterClass naming it.
        if !control_plane && !labelled && !named_by_cluster_class(bundle, index, doc) {
            continue;
        }
        // A template is checked only when it carries the label itself (nothing adds it later).
        if control_plane || labelled {
            private_endpoints(doc, index, root, spec, sink);
        }
        if control_plane {
            resource_group(doc, index, spec, sink);
            fleets_member_from_cluster_name(bundle, index, doc, spec, sink);
        }
        if let Some(aad) = spec.get("aadProfile").filter(|aad| aad.is_object())
            && aad.get("adminGroupObjectIDs").and_then(Value::as_array).is_some_and(Vec::is_empty)
        {
            sink.emit(
                AAD_ADMIN_GROUPS,
                index,
                &format!("{root}/aadProfile/adminGroupObjectIDs"),
                format!(
                    "aadProfile.adminGroupObjectIDs is empty; {}, \"length of AADProfile.AdminGroupObjectIDs cannot be \
                     zero\". List at least one Entra ID group object id",
                    first_update(doc)
                ),
            );
        }
        if let Some(extensions) = spec.get("extensions").and_then(Value::as_array) {
            duplicate_extension_names(doc, index, root, extensions, sink);
            for (i, extension) in extensions.iter().enumerate() {
                if extension.get("scope").is_some_and(Value::is_object) {
                    let name = extension.get("name").and_then(Value::as_str).unwrap_or("");
                    sink.emit(
                        EXTENSION_SCOPE_UPDATE,
                        index,
                        &format!("{root}/extensions/{i}/scope"),
                        format!(
                            "extension {name:?} sets scope; {}, \"spec.extensions[{i}].scope: field is immutable\" \
                             even though nothing changed (CAPZ compares the scope pointers, not their values). \
                             Remove scope (AKS then uses the extension type's default scope)",
                            first_update(doc)
                        ),
                    );
                }
            }
        }
    }
}

/// Whether a ClusterClass of the bundle, in the template's namespace, references the template (by kind and name).
fn named_by_cluster_class(bundle: &Bundle<'_>, index: usize, doc: &Document) -> bool {
    fn names(value: &Value, kind: &str, name: &str) -> bool {
        match value {
            Value::Object(map) => {
                (map.get("kind").and_then(Value::as_str) == Some(kind)
                    && map.get("name").and_then(Value::as_str) == Some(name))
                    || map.values().any(|child| names(child, kind, name))
            }
            Value::Array(items) => items.iter().any(|child| names(child, kind, name)),
            _ => false,
        }
    }
    let namespace = bundle.namespace(index);
    bundle.of_kind(super::bundle::CAPI_GROUP, &["ClusterClass"]).any(|(class, class_doc)| {
        bundle.namespace(class) == namespace
            && class_doc.value.get("spec").is_some_and(|spec| names(spec, doc.kind(), doc.name()))
    })
}

/// `validateAKSExtensionsUpdate` keys the old extensions by name, the last of a name winning, and compares every
/// extension with that one: an extension sharing its name with a later one differs from it in the fields compared.
fn duplicate_extension_names(doc: &Document, index: usize, root: &str, extensions: &[Value], sink: &mut Sink<'_>) {
    let name_of = |extension: &Value| extension.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let last: std::collections::HashMap<String, usize> =
        extensions.iter().enumerate().map(|(i, extension)| (name_of(extension), i)).collect();
    let present = |extension: &Value, field: &str| extension.get(field).filter(|value| !value.is_null()).cloned();
    // SetDefaultAzureManagedControlPlaneAKSExtensions names a plan without a name after the control plane.
    let plan_of = |extension: &Value| {
        let mut plan = present(extension, "plan")?;
        if doc.kind() == "AzureManagedControlPlane"
            && plan.get("name").and_then(Value::as_str).is_none_or(str::is_empty)
            && let Some(map) = plan.as_object_mut()
        {
            let product = map.get("product").and_then(Value::as_str).unwrap_or("").to_string();
            map.insert("name".into(), Value::String(format!("{}-{product}", doc.name())));
        }
        Some(plan)
    };
    for (i, extension) in extensions.iter().enumerate() {
        let name = name_of(extension);
        let Some(&j) = last.get(&name) else { continue };
        if j == i {
            continue;
        }
        let other = &extensions[j];
        let mut changed: Vec<&str> = Vec::new();
        for field in ["extensionType", "releaseTrain", "version"] {
            if let (Some(a), Some(b)) = (present(extension, field), present(other, field))
                && a != b
            {
                changed.push(field);
            }
        }
        if let (Some(a), Some(b)) = (plan_of(extension), plan_of(other))
            && a != b
        {
            changed.push("plan");
        }
        // Scope pointers differ unless both are nil (a set scope of its own is capz-extension-scope-update's).
        if present(extension, "scope").is_none() && present(other, "scope").is_some() {
            changed.push("scope");
        }
        let identity = |extension: &Value| extension.get("identity").and_then(Value::as_str).unwrap_or("").to_string();
        if identity(extension) != identity(other) {
            changed.push("identity");
        }
        for field in changed {
            sink.emit(
                EXTENSION_DUPLICATE_NAME,
                index,
                &format!("{root}/extensions/{i}/{field}"),
                format!(
                    "extensions[{i}] shares the name {name:?} with extensions[{j}]; {}, CAPZ compares each extension \
                     with the last one of its name: \"spec.extensions[{i}].{field}: field is immutable\". Give every \
                     extension its own name",
                    first_update(doc)
                ),
            );
        }
    }
}

/// `validateManagedClusterNetwork` gets the Cluster the cluster-name label names; on a labelled object it does so at
/// create, and a Cluster that does not exist yet (not in the bundle, or later in apply order) is an internal error.
fn labelled_cluster(bundle: &Bundle<'_>, index: usize, doc: &Document, sink: &mut Sink<'_>) {
    let Some(label) = doc.value.at("/metadata/labels").and_then(|labels| labels.get(CLUSTER_NAME_LABEL)) else {
        return;
    };
    let name = label.as_str().unwrap_or("");
    let namespace = bundle.namespace(index);
    let earlier = bundle.find_named("Cluster", name, namespace, |cluster| {
        cluster < index && bundle.group(cluster) == super::bundle::CAPI_GROUP
    });
    if earlier.is_some() {
        return;
    }
    let later = bundle
        .find_named("Cluster", name, namespace, |cluster| bundle.group(cluster) == super::bundle::CAPI_GROUP)
        .is_some();
    let why = if later { "comes after it in apply order" } else { "is not in the bundle" };
    let pointer = format!("/metadata/labels/{}", crate::json_pointer::escape_token(CLUSTER_NAME_LABEL));
    sink.emit(
        LABELLED_CLUSTER_MISSING,
        index,
        &pointer,
        format!(
            "the cluster-name label names Cluster {name:?}, which {why}: CAPZ's webhook looks the Cluster up at create \
             and rejects the object (\"clusters.cluster.x-k8s.io {name:?} not found\"). Apply the Cluster first or \
             drop the label (CAPI adds it)"
        ),
    );
}

/// A fleetsMember without a name gets the Cluster's name from the cluster-name label (`DefaultFleetsMember`), which
/// `validateFleetsMember` then checks.
fn fleets_member_from_cluster_name(
    bundle: &Bundle<'_>,
    index: usize,
    doc: &Document,
    spec: &serde_json::Map<String, Value>,
    sink: &mut Sink<'_>,
) {
    let Some(member) = spec.get("fleetsMember").filter(|member| member.is_object()) else {
        return;
    };
    if member.get("name").and_then(Value::as_str).is_some_and(|name| !name.is_empty()) {
        return;
    }
    let Some(cluster) = bundle.cluster_name_of_control_plane(index) else {
        return;
    };
    if FLEETS_MEMBER_PATTERN.is_match(cluster) {
        return;
    }
    sink.emit(
        FLEETS_MEMBER_NAME,
        index,
        "/spec/fleetsMember/name",
        format!(
            "fleetsMember.name is defaulted to the Cluster name {cluster:?}, which does not match \
             ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$; {}. Set fleetsMember.name",
            when_labelled(doc)
        ),
    );
}

/// `validatePrivateEndpoints` on the control plane's subnet, run by `validateManagedClusterNetwork` only when the
/// object carries the cluster-name label.
fn private_endpoints(
    doc: &Document,
    index: usize,
    root: &str,
    spec: &serde_json::Map<String, Value>,
    sink: &mut Sink<'_>,
) {
    let subnet = spec.get("virtualNetwork").and_then(|vnet| vnet.get("subnet"));
    let Some(endpoints) = subnet.and_then(|subnet| subnet.get("privateEndpoints")).and_then(Value::as_array) else {
        return;
    };
    // The subnet holds the endpoints, so the CRD's default applies to its cidrBlock.
    let subnet_cidr =
        subnet.and_then(|subnet| subnet.get("cidrBlock")).and_then(Value::as_str).unwrap_or("10.240.0.0/16");
    let when = when_labelled(doc);
    let base = format!("{root}/virtualNetwork/subnet/privateEndpoints");
    let mut emit = |pointer: String, problem: String| {
        sink.emit(PRIVATE_ENDPOINTS, index, &pointer, format!("{problem}; {when}"));
    };
    for (i, endpoint) in endpoints.iter().enumerate() {
        let name = endpoint.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() {
            emit(format!("{base}/{i}/name"), "name of private endpoint cannot be empty".into());
        } else if !PRIVATE_ENDPOINT_NAME.is_match(name) {
            emit(
                format!("{base}/{i}/name"),
                format!("private endpoint name {name:?} doesn't match regex ^[-\\w\\._]+$"),
            );
        }
        let connections = endpoint.get("privateLinkServiceConnections").and_then(Value::as_array);
        if connections.is_none_or(Vec::is_empty) {
            emit(
                format!("{base}/{i}"),
                format!("private endpoint {name:?}: privateLinkServiceConnections cannot be empty"),
            );
        }
        for (j, connection) in connections.into_iter().flatten().enumerate() {
            let pointer = format!("{base}/{i}/privateLinkServiceConnections/{j}");
            let service_id = connection.get("privateLinkServiceID").and_then(Value::as_str).unwrap_or("");
            let connection_name = connection.get("name").and_then(Value::as_str).unwrap_or("");
            if service_id.is_empty() {
                emit(pointer, "privateLinkServiceID is required for all privateLinkServiceConnections".into());
            } else if !RESOURCE_ID.is_match(service_id) {
                emit(
                    format!("{pointer}/privateLinkServiceID"),
                    format!(
                        "privateLinkServiceID {service_id:?} is not an Azure resource id (subscriptions/.../resourceGroups/.../providers/...)"
                    ),
                );
            } else if !connection_name.is_empty() && !PRIVATE_ENDPOINT_NAME.is_match(connection_name) {
                emit(
                    format!("{pointer}/name"),
                    format!("privateLinkServiceConnection name {connection_name:?} doesn't match regex ^[-\\w\\._]+$"),
                );
            }
        }
        let addresses = endpoint.get("privateIPAddresses").and_then(Value::as_array);
        for (k, address) in addresses.into_iter().flatten().enumerate() {
            let text = address.as_str().unwrap_or("");
            let pointer = format!("{base}/{i}/privateIPAddresses/{k}");
            match parse_ip(text) {
                None => {
                    emit(pointer, format!("private endpoint IP address {text:?} isn't a valid IPv4 or IPv6 address"))
                }
                Some(ip) => {
                    if !parse_cidr(subnet_cidr).is_some_and(|cidr| cidr.contains(ip)) {
                        emit(
                            pointer,
                            format!(
                                "private endpoint IP address {text:?} needs to be in the control plane subnet's range \
                                 {subnet_cidr:?}"
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// `resourceGroupName` left empty without the cluster-name label: CAPZ's defaulting fills it from the label only
/// at the first update, and `ValidateImmutable` then refuses the change (and the virtual network's resource group,
/// defaulted from it).
fn resource_group(doc: &Document, index: usize, spec: &serde_json::Map<String, Value>, sink: &mut Sink<'_>) {
    let labelled = doc.value.at("/metadata/labels").and_then(|labels| labels.get(CLUSTER_NAME_LABEL)).is_some();
    let empty = spec.get("resourceGroupName").and_then(Value::as_str).is_none_or(str::is_empty);
    if labelled || !empty {
        return;
    }
    let vnet_group_set = spec
        .get("virtualNetwork")
        .and_then(|vnet| vnet.get("resourceGroup"))
        .and_then(Value::as_str)
        .is_some_and(|group| !group.is_empty());
    let when = first_update(doc);
    sink.emit(
        RESOURCE_GROUP_UPDATE,
        index,
        "/spec/resourceGroupName",
        format!(
            "resourceGroupName is empty and there is no cluster-name label, so CAPZ's defaulting fills it from the \
             label only when CAPI adds it, changing an immutable field; {when}, \"field is immutable, unable to \
             assign a value if it was already empty\". Set spec.resourceGroupName"
        ),
    );
    if !vnet_group_set {
        sink.emit(
            RESOURCE_GROUP_UPDATE,
            index,
            "/spec/virtualNetwork/resourceGroup",
            format!(
                "virtualNetwork.resourceGroup is defaulted from resourceGroupName, which changes when CAPI adds the \
                 cluster-name label; {when}, \"Virtual Network Resource Group is immutable\". Set \
                 spec.resourceGroupName"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{amcp, findings_of, paths};
    use super::*;

    const RG: &str = "  resourceGroupName: rg\n";

    /// A Cluster `c1` whose controlPlaneRef names the control plane, then the control plane: CAPI's first update
    /// comes.
    fn referenced(fields: &str) -> String {
        format!("{CLUSTER}---\n{}", amcp(fields))
    }

    #[test]
    fn private_endpoints_checked_against_the_subnet() {
        let endpoints = |ip: &str, service_id: &str| {
            format!(
                "{RG}  virtualNetwork:\n    name: v\n    subnet:\n      name: s\n      cidrBlock: 10.1.0.0/16\n      \
                 privateEndpoints:\n      - name: pe1\n        privateLinkServiceConnections:\n        - privateLinkServiceID: \
                 {service_id}\n        privateIPAddresses: [{ip}]\n"
            )
        };
        let id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa";
        assert!(findings_of(&referenced(&endpoints("10.1.2.3", id)), PRIVATE_ENDPOINTS).is_empty());
        let found = findings_of(&referenced(&endpoints("10.2.0.1", id)), PRIVATE_ENDPOINTS);
        assert_eq!(paths(&found), ["/spec/virtualNetwork/subnet/privateEndpoints/0/privateIPAddresses/0"]);
        assert!(found[0].message.contains("rejected at CAPI's first update (label cluster.x-k8s.io/cluster-name)"));
        let found = findings_of(&referenced(&endpoints("10.1.2.3", "not-an-id")), PRIVATE_ENDPOINTS);
        assert_eq!(
            paths(&found),
            ["/spec/virtualNetwork/subnet/privateEndpoints/0/privateLinkServiceConnections/0/privateLinkServiceID"]
        );
        let labelled = amcp(&endpoints("10.2.0.1", id))
            .replace("metadata: {name: c1}", "metadata: {name: c1, labels: {cluster.x-k8s.io/cluster-name: c1}}");
        let found = findings_of(&labelled, PRIVATE_ENDPOINTS);
        assert!(found[0].message.contains("at create"), "{}", found[0].message);
    }

    #[test]
    fn empty_admin_groups_fail_at_first_update() {
        let found = findings_of(
            &referenced(&format!("{RG}  aadProfile: {{managed: true, adminGroupObjectIDs: []}}\n")),
            AAD_ADMIN_GROUPS,
        );
        assert_eq!(paths(&found), ["/spec/aadProfile/adminGroupObjectIDs"]);
        let ok = referenced(&format!("{RG}  aadProfile: {{managed: true, adminGroupObjectIDs: [g1]}}\n"));
        assert!(findings_of(&ok, AAD_ADMIN_GROUPS).is_empty());
    }

    #[test]
    fn any_extension_scope_fails_at_first_update() {
        let with_scope = format!(
            "{RG}  extensions:\n  - {{name: a, extensionType: t}}\n  - {{name: b, extensionType: t, scope: {{scopeType: \
             Cluster, releaseNamespace: x}}}}\n"
        );
        let found = findings_of(&referenced(&with_scope), EXTENSION_SCOPE_UPDATE);
        assert_eq!(paths(&found), ["/spec/extensions/1/scope"]);
    }

    #[test]
    fn extensions_sharing_a_name_differ_at_first_update() {
        let twins = format!(
            "{RG}  extensions:\n  - {{name: a, extensionType: t1}}\n  - {{name: a, extensionType: t2}}\n  - {{name: b, \
             extensionType: t}}\n"
        );
        let found = findings_of(&referenced(&twins), EXTENSION_DUPLICATE_NAME);
        assert_eq!(paths(&found), ["/spec/extensions/0/extensionType"]);
        let same = format!("{RG}  extensions:\n  - {{name: a, extensionType: t}}\n  - {{name: a, extensionType: t}}\n");
        assert!(findings_of(&referenced(&same), EXTENSION_DUPLICATE_NAME).is_empty());
    }

    #[test]
    fn templates_are_updated_only_when_a_cluster_class_names_them() {
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: cp}
spec:
  template:
    spec:
      version: v1.33.2
      aadProfile: {managed: true, adminGroupObjectIDs: []}
";
        let class = "apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: aks}
spec:
  controlPlane:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp}
";
        assert!(findings_of(template, AAD_ADMIN_GROUPS).is_empty(), "no ClusterClass: nothing updates it");
        let found = findings_of(&format!("{class}---\n{template}"), AAD_ADMIN_GROUPS);
        assert_eq!(paths(&found), ["/spec/template/spec/aadProfile/adminGroupObjectIDs"]);
    }

    #[test]
    fn empty_resource_group_without_label_fails_at_first_update() {
        assert_eq!(
            paths(&findings_of(&referenced(""), RESOURCE_GROUP_UPDATE)),
            ["/spec/resourceGroupName", "/spec/virtualNetwork/resourceGroup"]
        );
        let vnet_group = referenced("  virtualNetwork: {name: v, resourceGroup: net}\n");
        assert_eq!(paths(&findings_of(&vnet_group, RESOURCE_GROUP_UPDATE)), ["/spec/resourceGroupName"]);
        assert!(findings_of(&referenced(RG), RESOURCE_GROUP_UPDATE).is_empty());
        let labelled = amcp("")
            .replace("metadata: {name: c1}", "metadata: {name: c1, labels: {cluster.x-k8s.io/cluster-name: c1}}");
        assert!(findings_of(&labelled, RESOURCE_GROUP_UPDATE).is_empty(), "defaulted from the label at create");
        assert!(findings_of(&amcp(""), RESOURCE_GROUP_UPDATE).is_empty(), "no Cluster: nothing adds the label");
    }

    const CLUSTER: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}
";

    #[test]
    fn labelled_control_plane_needs_its_cluster_first() {
        let labelled = amcp(RG)
            .replace("metadata: {name: c1}", "metadata: {name: c1, labels: {cluster.x-k8s.io/cluster-name: c1}}");
        assert!(findings_of(&format!("{CLUSTER}---\n{labelled}"), LABELLED_CLUSTER_MISSING).is_empty());
        let found = findings_of(&format!("{labelled}---\n{CLUSTER}"), LABELLED_CLUSTER_MISSING);
        assert_eq!(paths(&found), ["/metadata/labels/cluster.x-k8s.io~1cluster-name"]);
        assert!(found[0].message.contains("after it in apply order"), "{}", found[0].message);
        assert_eq!(findings_of(&labelled, LABELLED_CLUSTER_MISSING).len(), 1);
    }

    #[test]
    fn fleets_member_name_defaults_to_the_cluster_name() {
        let member = amcp(&format!("{RG}  fleetsMember: {{managerName: m, managerResourceGroup: rg}}\n"));
        assert!(findings_of(&format!("{CLUSTER}---\n{member}"), FLEETS_MEMBER_NAME).is_empty());
        let odd = CLUSTER.replace("metadata: {name: c1}", "metadata: {name: C1}");
        let found = findings_of(&format!("{odd}---\n{member}"), FLEETS_MEMBER_NAME);
        assert_eq!(paths(&found), ["/spec/fleetsMember/name"]);
    }
}
