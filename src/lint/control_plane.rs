//! Required and forbidden field combinations of AzureManagedControlPlane[Template] that CAPZ's webhook rejects:
//! mirrors `validateAzureManagedControlPlaneIdentity`, `validateAzureManagedControlPlaneClassSpecSecurityProfile`,
//! `validateAzureManagedControlPlaneDisableLocalAccounts`, `validateAMCPVirtualNetwork`, `validateFleetsMember`
//! and `validateAKSExtensions` (internal/webhooks/azuremanagedcontrolplane_validation.go; the template webhook,
//! azuremanagedcontrolplanetemplate_validation.go, runs the security profile, virtual network and extension checks).
//! The workload identity and local account rules are AKS API rules, so they also apply to ASO ManagedClusters.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::Sink;
use super::bundle::{At, Bundle, CONTAINERSERVICE_GROUP, spec_root};
use super::go_net::parse_cidr;
use super::network::TEMPLATE_INSTANCE;

pub(crate) const IDENTITY: &str = "capz-identity";
pub(crate) const SECURITY_PROFILE: &str = "capz-security-profile";
pub(crate) const DISABLE_LOCAL_ACCOUNTS: &str = "capz-disable-local-accounts";
pub(crate) const VIRTUAL_NETWORK: &str = "capz-virtual-network";
pub(crate) const FLEETS_MEMBER_NAME: &str = "capz-fleets-member-name";
pub(crate) const AKS_EXTENSIONS: &str = "capz-aks-extensions";

static FLEETS_MEMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").expect("valid regex"));

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[
        IDENTITY,
        SECURITY_PROFILE,
        DISABLE_LOCAL_ACCOUNTS,
        VIRTUAL_NETWORK,
        FLEETS_MEMBER_NAME,
        AKS_EXTENSIONS,
        TEMPLATE_INSTANCE,
    ]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        let root = spec_root(doc);
        let Some(spec) = doc.value.object_at(root) else {
            continue;
        };
        let is_template = root != "/spec";
        // validateAzureManagedControlPlaneTemplate skips the identity and local account checks: the
        // template is accepted and every AzureManagedControlPlane made from it is rejected.
        let mut emit = |rule: &'static str, field: &str, message: String| {
            let (rule, message) = if is_template && [IDENTITY, DISABLE_LOCAL_ACCOUNTS].contains(&rule) {
                let message = format!(
                    "{message}. CAPZ's template webhook accepts this, but rejects every AzureManagedControlPlane the \
                     topology controller creates from the template"
                );
                (TEMPLATE_INSTANCE, message)
            } else {
                (rule, message)
            };
            sink.emit(rule, index, &format!("{root}/{field}"), message);
        };
        {
            let emit = &mut emit;
            identity(spec, emit);
            if spec.get("disableLocalAccounts").is_some_and(|v| !v.is_null())
                && spec.get("aadProfile").is_none_or(Value::is_null)
            {
                emit(
                    DISABLE_LOCAL_ACCOUNTS,
                    "disableLocalAccounts",
                    "disableLocalAccounts is set but there is no aadProfile: CAPZ only accepts it on AAD-enabled \
                     clusters (even `false`). Add an aadProfile or remove disableLocalAccounts"
                        .to_string(),
                );
            }
            // The template's fleetsMember has no name field (FleetsMemberClassSpec): nothing to carry over.
            if let Some(name) = spec
                .get("fleetsMember")
                .filter(|_| !is_template)
                .and_then(|member| member.get("name"))
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty() && !FLEETS_MEMBER.is_match(name))
            {
                emit(
                    FLEETS_MEMBER_NAME,
                    "fleetsMember/name",
                    format!(
                        "fleetsMember.name {name:?} must be lowercase letters, digits and hyphens, starting and ending \
                         with a letter or digit (^[a-z0-9]([-a-z0-9]*[a-z0-9])?$)"
                    ),
                );
            }
        }
        security_profile(spec, &mut emit);
        virtual_network(spec, is_template, &mut emit);
        extensions(spec, &mut emit);
    }
    for object in bundle.aso_objects() {
        if object.is(CONTAINERSERVICE_GROUP, "ManagedCluster")
            && let Some(spec) = object.value.object_at("/spec")
        {
            let mut emit = |rule: &'static str, field: &str, message: String| {
                sink.emit(rule, object.doc, &object.pointer(&format!("/spec/{field}")), message);
            };
            aso_managed_cluster(spec, &mut emit);
        }
    }
}

/// Two of CAPZ's checks on an ASO ManagedCluster: workload identity needs the OIDC issuer (what AKS does is in
/// the twin's note), and local accounts can only be disabled with Entra ID (AAD) integration (the AKS API rule).
fn aso_managed_cluster(spec: &serde_json::Map<String, Value>, emit: &mut Emit<'_>) {
    let workload_identity = spec
        .get("securityProfile")
        .and_then(|profile| profile.get("workloadIdentity"))
        .and_then(|wi| wi.get("enabled"))
        .and_then(Value::as_bool)
        == Some(true);
    let oidc =
        spec.get("oidcIssuerProfile").and_then(|oidc| oidc.get("enabled")).and_then(Value::as_bool) == Some(true);
    if workload_identity && !oidc {
        emit(
            SECURITY_PROFILE,
            "securityProfile/workloadIdentity/enabled",
            "securityProfile.workloadIdentity.enabled needs oidcIssuerProfile.enabled: true".to_string(),
        );
    }
    if spec.get("disableLocalAccounts").and_then(Value::as_bool) == Some(true)
        && spec.get("aadProfile").is_none_or(Value::is_null)
    {
        emit(
            DISABLE_LOCAL_ACCOUNTS,
            "disableLocalAccounts",
            "disableLocalAccounts is true but there is no aadProfile; AKS can only disable local accounts on Entra ID \
             (AAD) integrated clusters. Add an aadProfile (managed: true) or remove disableLocalAccounts"
                .to_string(),
        );
    }
}

type Emit<'e> = dyn FnMut(&'static str, &str, String) + 'e;

fn identity(spec: &serde_json::Map<String, Value>, emit: &mut Emit<'_>) {
    let Some(identity) = spec.get("identity").and_then(Value::as_object) else {
        return;
    };
    let kind = identity.get("type").and_then(Value::as_str).unwrap_or("SystemAssigned");
    let id = identity.get("userAssignedIdentityResourceID").and_then(Value::as_str).unwrap_or("");
    if kind == "UserAssigned" && id.is_empty() {
        emit(
            IDENTITY,
            "identity/userAssignedIdentityResourceID",
            "identity.type is UserAssigned but userAssignedIdentityResourceID is empty; set the resource id of the \
             user-assigned identity"
                .to_string(),
        );
    } else if kind != "UserAssigned" && !id.is_empty() {
        emit(
            IDENTITY,
            "identity/userAssignedIdentityResourceID",
            format!(
                "userAssignedIdentityResourceID is set but identity.type is {kind}; set type: UserAssigned or remove \
                 the resource id"
            ),
        );
    }
}

fn security_profile(spec: &serde_json::Map<String, Value>, emit: &mut Emit<'_>) {
    let Some(profile) = spec.get("securityProfile").and_then(Value::as_object) else {
        return;
    };
    if let Some(kms) = profile.get("azureKeyVaultKms").and_then(Value::as_object) {
        let user_assigned = spec.get("identity").and_then(|identity| identity.get("type")).and_then(Value::as_str)
            == Some("UserAssigned");
        let access = kms.get("keyVaultNetworkAccess").and_then(Value::as_str).unwrap_or("Public");
        let resource_id = kms.get("keyVaultResourceID").and_then(Value::as_str).unwrap_or("");
        let field = "securityProfile/azureKeyVaultKms/keyVaultResourceID";
        // CAPZ reports only the first of these.
        if !user_assigned {
            emit(
                SECURITY_PROFILE,
                field,
                "securityProfile.azureKeyVaultKms needs identity.type UserAssigned (KMS uses the cluster's user-assigned \
                 identity); set identity or remove azureKeyVaultKms"
                    .to_string(),
            );
        } else if access == "Private" && resource_id.is_empty() {
            emit(
                SECURITY_PROFILE,
                field,
                "azureKeyVaultKms.keyVaultNetworkAccess is Private, so keyVaultResourceID must name the key vault"
                    .to_string(),
            );
        } else if access == "Public" && !resource_id.is_empty() {
            emit(
                SECURITY_PROFILE,
                field,
                "azureKeyVaultKms.keyVaultResourceID must be empty when keyVaultNetworkAccess is Public (the default); \
                 remove it or set keyVaultNetworkAccess: Private"
                    .to_string(),
            );
        }
    }
    let oidc =
        spec.get("oidcIssuerProfile").and_then(|oidc| oidc.get("enabled")).and_then(Value::as_bool) == Some(true);
    if profile.get("workloadIdentity").is_some_and(|v| !v.is_null()) && !oidc {
        emit(
            SECURITY_PROFILE,
            "securityProfile/workloadIdentity",
            "securityProfile.workloadIdentity needs oidcIssuerProfile.enabled: true; enable the OIDC issuer or remove \
             workloadIdentity"
                .to_string(),
        );
    }
}

fn virtual_network(spec: &serde_json::Map<String, Value>, is_template: bool, emit: &mut Emit<'_>) {
    let Some(vnet) = spec.get("virtualNetwork").and_then(Value::as_object).filter(|vnet| !vnet.is_empty()) else {
        return;
    };
    // The CRD defaults cidrBlock of each object that is present; a missing subnet is filled by CAPZ's defaulting
    // (SetDefaultAzureManagedControlPlaneSubnet), which picks 10.224.0.0/16 for overlay on AzureManagedControlPlane.
    let vnet_cidr = vnet.get("cidrBlock").and_then(Value::as_str).unwrap_or("10.0.0.0/8");
    let overlay = !is_template && spec.get("networkPluginMode").and_then(Value::as_str) == Some("overlay");
    let subnet_default = match vnet.get("subnet") {
        Some(subnet) if subnet.is_object() => "10.240.0.0/16",
        _ if overlay => "10.224.0.0/16",
        _ => "10.240.0.0/16",
    };
    let subnet_cidr =
        vnet.get("subnet").and_then(|subnet| subnet.get("cidrBlock")).and_then(Value::as_str).unwrap_or(subnet_default);
    let parent = parse_cidr(vnet_cidr);
    if parent.is_none() {
        emit(
            VIRTUAL_NETWORK,
            "virtualNetwork/cidrBlock",
            format!("virtualNetwork.cidrBlock {vnet_cidr:?} is not a valid CIDR"),
        );
    }
    let subnet = parse_cidr(subnet_cidr);
    if subnet.is_none() {
        emit(
            VIRTUAL_NETWORK,
            "virtualNetwork/subnet/cidrBlock",
            format!("virtualNetwork.subnet.cidrBlock {subnet_cidr:?} is not a valid CIDR"),
        );
    }
    if let (Some(parent), Some(subnet)) = (parent, subnet)
        && !parent.contains(subnet.ip())
    {
        emit(
            VIRTUAL_NETWORK,
            "virtualNetwork/cidrBlock",
            format!(
                "virtualNetwork.cidrBlock {vnet_cidr:?} does not contain the subnet's cidrBlock {subnet_cidr:?}; put the \
                 subnet inside the virtual network"
            ),
        );
    }
}

fn extensions(spec: &serde_json::Map<String, Value>, emit: &mut Emit<'_>) {
    let Some(extensions) = spec.get("extensions").and_then(Value::as_array) else {
        return;
    };
    for (index, extension) in extensions.iter().enumerate() {
        let name = extension.get("name").and_then(Value::as_str).unwrap_or("");
        let auto_upgrade = extension.get("autoUpgradeMinorVersion").and_then(Value::as_bool).unwrap_or(true);
        if extension.get("version").is_some_and(|v| !v.is_null()) && auto_upgrade {
            emit(
                AKS_EXTENSIONS,
                &format!("extensions/{index}/version"),
                format!(
                    "extension {name:?} pins version while autoUpgradeMinorVersion is true (the default); set \
                     autoUpgradeMinorVersion: false or remove version"
                ),
            );
        }
        let Some(scope) = extension.get("scope").and_then(Value::as_object) else {
            continue;
        };
        let text = |field: &str| scope.get(field).and_then(Value::as_str).unwrap_or("");
        let (required, forbidden) = match text("scopeType") {
            "Cluster" => ("releaseNamespace", "targetNamespace"),
            "Namespace" => ("targetNamespace", "releaseNamespace"),
            _ => continue,
        };
        let scope_type = text("scopeType");
        if text(required).is_empty() {
            emit(
                AKS_EXTENSIONS,
                &format!("extensions/{index}/scope/{required}"),
                format!("extension {name:?} with scopeType {scope_type} needs scope.{required}"),
            );
        }
        if !text(forbidden).is_empty() {
            emit(
                AKS_EXTENSIONS,
                &format!("extensions/{index}/scope/{forbidden}"),
                format!("extension {name:?} with scopeType {scope_type} must not set scope.{forbidden}"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{amcp, aso_control_plane, findings_among, ids, paths};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(
            yaml,
            &[
                IDENTITY,
                SECURITY_PROFILE,
                DISABLE_LOCAL_ACCOUNTS,
                VIRTUAL_NETWORK,
                FLEETS_MEMBER_NAME,
                AKS_EXTENSIONS,
                super::super::rules::twins::AKS_SECURITY_PROFILE,
                super::super::rules::twins::AKS_DISABLE_LOCAL_ACCOUNTS,
            ],
        )
    }

    #[test]
    fn identity_type_and_resource_id_go_together() {
        assert!(findings(&amcp("  identity: {type: UserAssigned, userAssignedIdentityResourceID: /x}\n")).is_empty());
        assert!(findings(&amcp("  identity: {type: SystemAssigned}\n")).is_empty());
        let missing = findings(&amcp("  identity: {type: UserAssigned}\n"));
        assert_eq!(ids(&missing), [IDENTITY]);
        assert_eq!(missing[0].path, "/spec/identity/userAssignedIdentityResourceID");
        let extra = findings(&amcp("  identity: {userAssignedIdentityResourceID: /x}\n"));
        assert!(extra[0].message.contains("identity.type is SystemAssigned"), "{}", extra[0].message);
    }

    #[test]
    fn security_profile_combinations() {
        let user = "  identity: {type: UserAssigned, userAssignedIdentityResourceID: /x}\n";
        let kms =
            |fields: &str| format!("  securityProfile:\n    azureKeyVaultKms: {{enabled: true, keyID: k{fields}}}\n");
        assert!(findings(&amcp(&format!("{user}{}", kms("")))).is_empty());
        assert!(
            findings(&amcp(&format!("{user}{}", kms(", keyVaultNetworkAccess: Private, keyVaultResourceID: /kv"))))
                .is_empty()
        );
        let no_identity = findings(&amcp(&kms("")));
        assert_eq!(ids(&no_identity), [SECURITY_PROFILE]);
        assert!(no_identity[0].message.contains("UserAssigned"));
        let private = findings(&amcp(&format!("{user}{}", kms(", keyVaultNetworkAccess: Private"))));
        assert!(private[0].message.contains("must name the key vault"), "{}", private[0].message);
        let public = findings(&amcp(&format!("{user}{}", kms(", keyVaultResourceID: /kv"))));
        assert!(public[0].message.contains("must be empty"), "{}", public[0].message);

        let wi = "  securityProfile: {workloadIdentity: {enabled: true}}\n";
        assert!(findings(&amcp(&format!("{wi}  oidcIssuerProfile: {{enabled: true}}\n"))).is_empty());
        let found = findings(&amcp(wi));
        assert_eq!(paths(&found), ["/spec/securityProfile/workloadIdentity"]);
    }

    #[test]
    fn disable_local_accounts_needs_aad() {
        assert!(
            findings(&amcp("  disableLocalAccounts: true\n  aadProfile: {managed: true, adminGroupObjectIDs: [g]}\n"))
                .is_empty()
        );
        for value in ["true", "false"] {
            let found = findings(&amcp(&format!("  disableLocalAccounts: {value}\n")));
            assert_eq!(ids(&found), [DISABLE_LOCAL_ACCOUNTS], "{value}");
        }
    }

    #[test]
    fn virtual_network_cidrs() {
        let vnet = |cidr: &str, subnet: &str| {
            findings(&amcp(&format!(
                "  virtualNetwork: {{name: v, cidrBlock: \"{cidr}\", subnet: {{name: s, cidrBlock: \"{subnet}\"}}}}\n"
            )))
        };
        assert!(vnet("10.0.0.0/8", "10.240.0.0/16").is_empty());
        assert_eq!(paths(&vnet("10.0.0.0/16", "10.240.0.0/16")), ["/spec/virtualNetwork/cidrBlock"]);
        assert_eq!(paths(&vnet("10.0.0.0/8", "10.240.0.0")), ["/spec/virtualNetwork/subnet/cidrBlock"]);
        assert_eq!(paths(&vnet("big", "10.240.0.0/16")), ["/spec/virtualNetwork/cidrBlock"]);
        // A subnet outside the CRD's default 10.0.0.0/8 when cidrBlock is left out.
        let defaulted = findings(&amcp("  virtualNetwork: {name: v, subnet: {name: s, cidrBlock: 192.168.0.0/24}}\n"));
        assert_eq!(ids(&defaulted), [VIRTUAL_NETWORK]);
    }

    #[test]
    fn fleets_member_name_pattern() {
        let member = |name: &str| {
            findings(&amcp(&format!("  fleetsMember: {{managerName: m, managerResourceGroup: rg, name: {name}}}\n")))
        };
        assert!(member("team-a1").is_empty());
        assert_eq!(paths(&member("Team_A")), ["/spec/fleetsMember/name"]);
        assert_eq!(ids(&member("-a")), [FLEETS_MEMBER_NAME]);
    }

    #[test]
    fn extensions_version_and_scope() {
        let ext = |fields: &str| {
            findings(&amcp(&format!("  extensions:\n  - {{name: flux, extensionType: microsoft.flux{fields}}}\n")))
        };
        assert!(ext("").is_empty());
        assert!(ext(", version: 1.2.3, autoUpgradeMinorVersion: false").is_empty());
        assert_eq!(paths(&ext(", version: 1.2.3")), ["/spec/extensions/0/version"]);
        assert!(ext(", scope: {scopeType: Cluster, releaseNamespace: flux-system}").is_empty());
        assert_eq!(
            paths(&ext(", scope: {scopeType: Namespace, releaseNamespace: x}")),
            ["/spec/extensions/0/scope/releaseNamespace", "/spec/extensions/0/scope/targetNamespace"]
        );
    }

    #[test]
    fn templates_get_the_class_checks_only() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: t}
spec:
  template:
    spec:
      version: v1.33.2
      identity: {type: UserAssigned}
      securityProfile: {workloadIdentity: {enabled: true}}
";
        assert_eq!(paths(&findings(yaml)), ["/spec/template/spec/securityProfile/workloadIdentity"]);
    }

    #[test]
    fn aso_managed_cluster_workload_identity_and_local_accounts() {
        let aso = |fields: &str| findings(&aso_control_plane(fields));
        let wi = "      securityProfile: {workloadIdentity: {enabled: true}}\n";
        assert!(aso(&format!("{wi}      oidcIssuerProfile: {{enabled: true}}\n")).is_empty());
        assert!(aso("      securityProfile: {workloadIdentity: {enabled: false}}\n").is_empty());
        let workload_identity = aso(wi);
        assert_eq!(paths(&workload_identity), ["/spec/resources/0/spec/securityProfile/workloadIdentity/enabled"]);
        // No AKS document says AKS rejects it: a warning that says what AKS does.
        assert_eq!(workload_identity[0].severity, crate::report::Severity::Warning);
        let message = &workload_identity[0].message;
        assert!(message.starts_with("securityProfile.workloadIdentity.enabled needs oidcIssuerProfile.enabled: true"));
        assert!(message.contains("federates through the cluster's OIDC issuer"), "{message}");
        assert!(message.contains("no AKS document says AKS rejects"), "{message}");
        let local = "      disableLocalAccounts: true\n";
        assert!(aso(&format!("{local}      aadProfile: {{managed: true, enableAzureRBAC: true}}\n")).is_empty());
        assert!(aso("      disableLocalAccounts: false\n").is_empty());
        let local_accounts = aso(local);
        assert_eq!(ids(&local_accounts), [super::super::rules::twins::AKS_DISABLE_LOCAL_ACCOUNTS]);
        // Documented in the AKS REST API: stays an error, without a note.
        assert_eq!(local_accounts[0].severity, crate::report::Severity::Error);
        assert!(!local_accounts[0].message.contains("AKS document"), "{}", local_accounts[0].message);
    }
}

#[cfg(test)]
mod template_instance_tests {
    use super::super::test_support::{findings_of, paths};
    use super::*;

    #[test]
    fn template_identity_and_local_accounts_fail_on_the_instance() {
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: t}
spec:
  template:
    spec:
      version: v1.33.2
      identity: {type: UserAssigned}
      disableLocalAccounts: true
";
        let mut found =
            paths(&findings_of(template, TEMPLATE_INSTANCE)).into_iter().map(String::from).collect::<Vec<_>>();
        found.sort();
        assert_eq!(
            found,
            ["/spec/template/spec/disableLocalAccounts", "/spec/template/spec/identity/userAssignedIdentityResourceID",]
        );
        for rule in [IDENTITY, DISABLE_LOCAL_ACCOUNTS, FLEETS_MEMBER_NAME] {
            assert!(findings_of(template, rule).is_empty(), "{rule}: the template webhook does not check it");
        }
    }
}
