//! Update rules of AzureManagedControlPlane and AzureManagedControlPlaneTemplate: `ValidateUpdate` of
//! internal/webhooks/azuremanagedcontrolplane_webhook.go and azuremanagedcontrolplanetemplate_webhook.go, with
//! their helpers in azuremanagedcontrolplane_validation.go and azuremanagedcontrolplanetemplate_validation.go.

use serde_json::{Value, json};

use super::{
    AAD_PROFILE_UPDATE, ADDON_PROFILE_REMOVED, AUTO_UPGRADE_CHANNEL_UNSET, EXTENSION_UPDATE, GoField, IMMUTABLE_FIELD,
    Issues, LOCAL_ACCOUNTS_UPDATE, NETWORK_PLUGIN_MODE_UPDATE, OIDC_ISSUER_DISABLED, SECURITY_PROFILE_UNSET,
    VERSION_DOWNGRADE, go_field, go_str, immutable_field, is_downgrade, validate_immutable,
};
use crate::json_pointer::{At, Fields};

/// `AzureManagedControlPlaneWebhook.ValidateUpdate`, in CAPZ's order.
pub(crate) fn control_plane(old: &Value, new: &Value, out: &mut Issues) {
    let (o, n) = (old.field("spec"), new.field("spec"));
    for (key, kind) in [
        ("subscriptionID", GoField::Value),
        ("resourceGroupName", GoField::Value),
        ("nodeResourceGroupName", GoField::Value),
        ("location", GoField::Value),
        ("sshPublicKey", GoField::Pointer),
        ("dnsServiceIP", GoField::Pointer),
        ("networkPlugin", GoField::Pointer),
        ("networkPolicy", GoField::Pointer),
        ("networkDataplane", GoField::Pointer),
        ("loadBalancerSKU", GoField::Pointer),
        ("httpProxyConfig", GoField::Pointer),
        ("azureEnvironment", GoField::Value),
    ] {
        immutable_field(out, "spec", o, n, key, kind);
    }
    // A stored object without dnsPrefix (CAPZ before 1.12) counts as its name.
    if let Some(new_prefix) = go_field(n, "dnsPrefix", GoField::Pointer) {
        let name = old.at("/metadata/name").cloned().unwrap_or(Value::String(String::new()));
        let old_prefix = go_field(o, "dnsPrefix", GoField::Pointer).cloned().unwrap_or(name);
        validate_immutable(out, IMMUTABLE_FIELD, "spec.dnsPrefix", Some(&old_prefix), Some(new_prefix));
    }
    immutable_field(out, "spec", o, n, "outboundType", GoField::Pointer);
    virtual_network(o, n, "spec", &["name", "cidrBlock", "subnet.name", "subnet.cidrBlock", "resourceGroup"], out);
    addon_profiles(o, n, out);
    api_server_access_profile(o, n, "spec", "fields (except for AuthorizedIPRanges) are immutable", out);
    network_plugin_mode(o, n, out);
    aad_profile(o, n, "spec", out);
    local_accounts(o, n, out);
    auto_upgrade_profile(o, n, out);
    version(o, n, "spec", out);
    oidc_issuer(o, n, out);
    fleets_member(o, n, out);
    extensions(o, n, out);
    security_profile(o, n, out);
}

/// `AzureManagedControlPlaneTemplateWebhook.ValidateUpdate`, in CAPZ's order. The security profile and extension
/// checks are the control plane's functions, so their paths lack `template.spec` as CAPZ's do.
pub(crate) fn template(old: &Value, new: &Value, out: &mut Issues) {
    let prefix = "spec.template.spec";
    let (o, n) = (old.at("/spec/template/spec"), new.at("/spec/template/spec"));
    for (key, kind) in [
        ("subscriptionID", GoField::Value),
        ("location", GoField::Value),
        ("dnsServiceIP", GoField::Pointer),
        ("networkPlugin", GoField::Pointer),
        ("networkPolicy", GoField::Pointer),
        ("networkDataplane", GoField::Pointer),
        ("loadBalancerSKU", GoField::Pointer),
    ] {
        immutable_field(out, prefix, o, n, key, kind);
    }
    aad_profile(o, n, prefix, out);
    immutable_field(out, prefix, o, n, "outboundType", GoField::Pointer);
    virtual_network(o, n, prefix, &["cidrBlock", "subnet.name", "subnet.cidrBlock"], out);
    security_profile(o, n, out);
    api_server_access_profile(o, n, prefix, "fields are immutable", out);
    extensions(o, n, out);
    version(o, n, prefix, out);
}

fn path_str<'v>(object: Option<&'v Value>, dotted: &str) -> &'v str {
    let mut current = object;
    for key in dotted.split('.') {
        current = current.and_then(|v| v.field(key));
    }
    current.and_then(Value::as_str).unwrap_or("")
}

/// `validateAzureManagedControlPlaneVirtualNetworkUpdate` / `...TemplateVirtualNetworkTemplateUpdate`: Go
/// strings compared.
fn virtual_network(o: Option<&Value>, n: Option<&Value>, prefix: &str, fields: &[&str], out: &mut Issues) {
    let (o, n) = (o.and_then(|s| s.field("virtualNetwork")), n.and_then(|s| s.field("virtualNetwork")));
    for field in fields {
        if path_str(o, field) != path_str(n, field) {
            let what = match *field {
                "name" => "Virtual Network Name",
                "cidrBlock" => "Virtual Network CIDRBlock",
                "subnet.name" => "Subnet Name",
                "subnet.cidrBlock" => "Subnet CIDRBlock",
                _ => "Virtual Network Resource Group",
            };
            out.push(IMMUTABLE_FIELD, &format!("{prefix}.virtualNetwork.{field}"), format!("{what} is immutable"));
        }
    }
}

fn items(object: Option<&Value>, key: &str) -> Vec<Value> {
    object.and_then(|o| o.field(key)).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// `validateAzureManagedControlPlaneAddonProfilesUpdate`: an addon profile may be disabled, not removed.
fn addon_profiles(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let old = items(o, "addonProfiles");
    let new: Vec<String> = items(n, "addonProfiles").iter().map(|p| go_str(Some(p), "name").to_string()).collect();
    for (i, profile) in old.iter().enumerate() {
        let name = go_str(Some(profile), "name");
        if !new.iter().any(|n| n == name) {
            out.push(
                ADDON_PROFILE_REMOVED,
                "spec.addonProfiles",
                format!(
                    "cannot remove addonProfile {name}, To disable this AddonProfile, update Spec.AddonProfiles[{i}].Enabled to false"
                ),
            );
        }
    }
}

/// `validateAzureManagedControlPlaneAPIServerAccessProfileUpdate` (and the template's): every field but
/// authorizedIPRanges compared, an absent profile as one with nothing set.
fn api_server_access_profile(o: Option<&Value>, n: Option<&Value>, prefix: &str, message: &str, out: &mut Issues) {
    let normalized = |spec: Option<&Value>| {
        let profile = spec.and_then(|s| s.field("apiServerAccessProfile"));
        ["enablePrivateCluster", "privateDNSZone", "enablePrivateClusterPublicFQDN"]
            .map(|key| go_field(profile, key, GoField::Pointer).cloned())
    };
    if normalized(o) != normalized(n) {
        out.push(IMMUTABLE_FIELD, &format!("{prefix}.apiServerAccessProfile"), message);
    }
}

/// `validateAzureManagedControlPlaneNetworkPluginModeUpdate`.
fn network_plugin_mode(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    if go_str(o, "networkPluginMode") != "overlay"
        && go_str(n, "networkPluginMode") == "overlay"
        && go_field(o, "networkPolicy", GoField::Pointer).is_some()
    {
        out.push(
            NETWORK_PLUGIN_MODE_UPDATE,
            "spec.networkPluginMode",
            "\"overlay\" NetworkPluginMode cannot be enabled when NetworkPolicy is set",
        );
    }
}

/// The aadProfile part of `validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts` (and the template's
/// copy of it).
fn aad_profile(o: Option<&Value>, n: Option<&Value>, prefix: &str, out: &mut Issues) {
    let Some(old) = go_field(o, "aadProfile", GoField::Pointer) else { return };
    let Some(new) = go_field(n, "aadProfile", GoField::Pointer) else {
        out.push(AAD_PROFILE_UPDATE, &format!("{prefix}.aadProfile"), "field cannot be nil, cannot disable AADProfile");
        return;
    };
    let managed = |p: &Value| p.field("managed").and_then(Value::as_bool).unwrap_or(false);
    if !managed(new) && managed(old) {
        out.push(AAD_PROFILE_UPDATE, &format!("{prefix}.aadProfile.managed"), "cannot set AADProfile.Managed to false");
    }
    if new.field("adminGroupObjectIDs").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        out.push(
            AAD_PROFILE_UPDATE,
            &format!("{prefix}.aadProfile.adminGroupObjectIDs"),
            "length of AADProfile.AdminGroupObjectIDs cannot be zero",
        );
    }
}

/// The disableLocalAccounts part of `validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts`. CAPZ passes
/// new and old to `ValidateImmutable` the other way round, so the messages for set and unset are swapped too.
fn local_accounts(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let (old, new) =
        (go_field(o, "disableLocalAccounts", GoField::Pointer), go_field(n, "disableLocalAccounts", GoField::Pointer));
    if old.is_none() && new.is_some() && go_field(n, "aadProfile", GoField::Pointer).is_none() {
        out.push(
            LOCAL_ACCOUNTS_UPDATE,
            "spec.disableLocalAccounts",
            "DisableLocalAccounts can be set only for AAD enabled clusters",
        );
    }
    if old.is_some() {
        validate_immutable(out, LOCAL_ACCOUNTS_UPDATE, "spec.disableLocalAccounts", new, old);
    }
}

/// `validateAzureManagedControlPlaneAutoUpgradeProfile`: the upgrade channel, once set, may not be unset.
fn auto_upgrade_profile(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let has_channel = |spec: Option<&Value>| {
        go_field(spec, "autoUpgradeProfile", GoField::Pointer)
            .and_then(|p| go_field(Some(p), "upgradeChannel", GoField::Pointer))
            .is_some()
    };
    if has_channel(o) && !has_channel(n) {
        out.push(
            AUTO_UPGRADE_CHANNEL_UNSET,
            "Spec.AutoUpgradeProfile.UpgradeChannel",
            "field cannot be set to nil, to disable auto upgrades set the channel to none.",
        );
    }
}

/// `validateAzureManagedControlPlaneK8sVersionUpdate` (without the status part) and the template's.
fn version(o: Option<&Value>, n: Option<&Value>, prefix: &str, out: &mut Issues) {
    let (old, new) = (go_str(o, "version"), go_str(n, "version"));
    if is_downgrade(old, new) {
        out.push(
            VERSION_DOWNGRADE,
            &format!("{prefix}.version"),
            format!("{new}: field version cannot be downgraded from {old}"),
        );
    }
}

/// `validateAzureManagedControlPlaneOIDCIssuerProfileUpdate`.
fn oidc_issuer(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let enabled = |spec: Option<&Value>| {
        go_field(spec, "oidcIssuerProfile", GoField::Pointer)
            .and_then(|p| go_field(Some(p), "enabled", GoField::Pointer))
            .and_then(Value::as_bool)
    };
    if enabled(n) == Some(false) && enabled(o) == Some(true) {
        out.push(OIDC_ISSUER_DISABLED, "spec.oidcIssuerProfile.enabled", "cannot be disabled");
    }
}

/// `validateAzureManagedControlPlaneFleetsMemberUpdate`: a named member keeps its name.
fn fleets_member(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let (Some(old), Some(new)) =
        (go_field(o, "fleetsMember", GoField::Pointer), go_field(n, "fleetsMember", GoField::Pointer))
    else {
        return;
    };
    let old_name = go_str(Some(old), "name");
    if !old_name.is_empty() && old_name != go_str(Some(new), "name") {
        out.push(IMMUTABLE_FIELD, "spec.fleetsMember.name", "Name is immutable");
    }
}

/// An `ExtensionPlan` as Go compares it: every field a string, absent is "".
fn plan(value: &Value) -> Value {
    json!(["name", "product", "promotionCode", "publisher", "version"].map(|k| go_str(Some(value), k)))
}

/// `validateAKSExtensionsUpdate`: each new extension against the last old one of its name. `scope` is a pointer
/// compared as a pointer, so any extension with a scope on either side is reported.
fn extensions(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let old = items(o, "extensions");
    for (i, extension) in items(n, "extensions").iter().enumerate() {
        let name = go_str(Some(extension), "name");
        let Some(previous) = old.iter().rev().find(|e| go_str(Some(e), "name") == name) else { continue };
        let field = |key: &str| format!("spec.extensions.[{i}].{key}");
        let both = |key: &str| match (
            go_field(Some(previous), key, GoField::Pointer),
            go_field(Some(extension), key, GoField::Pointer),
        ) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        if both("extensionType").is_some_and(|(a, b)| a != b) {
            out.push(EXTENSION_UPDATE, &field("extensionType"), "field is immutable");
        }
        if both("plan").is_some_and(|(a, b)| plan(a) != plan(b)) {
            out.push(EXTENSION_UPDATE, &field("plan"), "field is immutable");
        }
        if go_field(Some(previous), "scope", GoField::Pointer).is_some()
            || go_field(Some(extension), "scope", GoField::Pointer).is_some()
        {
            out.push(
                EXTENSION_UPDATE,
                &field("scope"),
                "field is immutable (CAPZ compares the scope pointers, so any scope reads as changed)",
            );
        }
        if both("releaseTrain").is_some_and(|(a, b)| a != b) {
            out.push(EXTENSION_UPDATE, &field("releaseTrain"), "field is immutable");
        }
        if both("version").is_some_and(|(a, b)| a != b) {
            out.push(EXTENSION_UPDATE, &field("version"), "field is immutable");
        }
        if go_str(Some(previous), "identity") != go_str(Some(extension), "identity") {
            out.push(EXTENSION_UPDATE, &field("identity"), "field is immutable");
        }
    }
}

/// `validateAzureManagedControlPlaneClassSpecSecurityProfileUpdate`: a profile once set may be disabled, not
/// removed.
fn security_profile(o: Option<&Value>, n: Option<&Value>, out: &mut Issues) {
    let Some(old) = go_field(o, "securityProfile", GoField::Pointer) else { return };
    let new = go_field(n, "securityProfile", GoField::Pointer);
    for (key, how) in [
        ("azureKeyVaultKms", "Spec.SecurityProfile.AzureKeyVaultKms.Enabled to false"),
        ("workloadIdentity", "Spec.SecurityProfile.WorkloadIdentity.Enabled to false"),
        ("imageCleaner", "Spec.SecurityProfile.ImageCleaner.Enabled to false"),
        ("defender", "Spec.SecurityProfile.Defender.SecurityMonitoring.Enabled to false"),
    ] {
        if go_field(Some(old), key, GoField::Pointer).is_some() && go_field(new, key, GoField::Pointer).is_none() {
            out.push(
                SECURITY_PROFILE_UNSET,
                &format!("spec.securityProfile.{key}"),
                format!("cannot unset Spec.SecurityProfile.{key}, to disable it set {how}"),
            );
        }
    }
}
