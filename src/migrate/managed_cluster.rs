//! The ManagedCluster CAPZ's `managedclusters` service creates (`ManagedControlPlaneScope.ManagedClusterSpec`,
//! `ManagedClusterSpec.Parameters`), with `agentPoolProfiles` built from the patched agent pools as CAPZ sends
//! them when it creates the cluster.

use std::net::IpAddr;

use base64::Engine;
use serde_json::{Map, Value, json};

use super::agent_pool::{BuiltPool, PREVIEW, STABLE, preview};
use super::defaults::Defaulted;
use super::patches::apply_merge_patches;
use super::reconcile::{self, Owner, normalized_name};
use super::resource_group::{additional_tags, capz_tags};
use super::{TranslateError, aso_object};
use crate::json_pointer::{At, Fields};

/// ASO's enums, which the conversion from CAPZ's hub object matches case-insensitively (`genruntime.ToEnum`).
fn canonical(value: &str, options: &[&str]) -> String {
    options.iter().find(|o| o.eq_ignore_ascii_case(value)).map_or_else(|| value.to_string(), |o| o.to_string())
}

fn kebab(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `golang.org/x/mod/semver.Compare`: a version without the leading `v` is invalid and sorts below valid ones.
fn semver_greater(a: &str, b: &str) -> bool {
    let parse = |v: &str| v.strip_prefix('v').and_then(|rest| semver::Version::parse(rest).ok());
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => a > b,
        (Some(_), None) => true,
        _ => false,
    }
}

/// `calculateDNSServiceIP`: the service CIDR's address with its last byte set to 10.
fn dns_service_ip(cidr: &str) -> Option<String> {
    let (ip, _) = cidr.split_once('/')?;
    let ip: IpAddr = ip.parse().ok()?;
    Some(match ip {
        IpAddr::V4(v4) => {
            let mut octets = v4.octets();
            octets[3] = 10;
            std::net::Ipv4Addr::from(octets).to_string()
        }
        IpAddr::V6(v6) => {
            let mut octets = v6.octets();
            octets[15] = 10;
            std::net::Ipv6Addr::from(octets).to_string()
        }
    })
}

fn references(ids: Option<&Value>) -> Vec<Value> {
    ids.and_then(Value::as_array)
        .map(|ids| ids.iter().map(|id| json!({"reference": {"armId": id}})).collect())
        .unwrap_or_default()
}

fn invalid(defaulted: &Defaulted<'_>, pointer: &str, message: String) -> TranslateError {
    TranslateError::Invalid { location: defaulted.source.control_plane.location_of(pointer), message }
}

fn network_profile(defaulted: &Defaulted<'_>, spec: &Value) -> Result<Value, TranslateError> {
    let cluster = &defaulted.source.cluster.value;
    let mut network = Map::new();
    let s = |field: &str| spec.field(field).and_then(Value::as_str).filter(|v| !v.is_empty());
    if let Some(plugin) = s("networkPlugin") {
        network.insert("networkPlugin".into(), json!(canonical(plugin, &["azure", "kubenet", "none"])));
    }
    if let Some(sku) = s("loadBalancerSKU") {
        network.insert("loadBalancerSku".into(), json!(canonical(&sku.to_lowercase(), &["basic", "standard"])));
    }
    if let Some(policy) = s("networkPolicy") {
        network.insert("networkPolicy".into(), json!(canonical(policy, &["azure", "calico", "cilium", "none"])));
    }
    if let Some(dataplane) = spec.field("networkDataplane").and_then(Value::as_str) {
        network.insert("networkDataplane".into(), json!(canonical(dataplane, &["azure", "cilium"])));
    }
    if let Some(mode) = spec.field("networkPluginMode").and_then(Value::as_str) {
        network.insert("networkPluginMode".into(), json!(canonical(mode, &["overlay"])));
    }
    let single = |pointer: &str| cluster.array_at(pointer).filter(|a| a.len() == 1).and_then(|a| a[0].as_str());
    if let Some(pods) = single("/spec/clusterNetwork/pods/cidrBlocks").filter(|p| !p.is_empty()) {
        network.insert("podCidr".into(), json!(pods));
    }
    if let Some(services) = single("/spec/clusterNetwork/services/cidrBlocks").filter(|p| !p.is_empty()) {
        network.insert("serviceCidr".into(), json!(services));
        let ip = match spec.field("dnsServiceIP").and_then(Value::as_str) {
            Some(ip) => ip.to_string(),
            None => dns_service_ip(services).ok_or_else(|| TranslateError::Invalid {
                location: defaulted.source.cluster.location_of("/spec/clusterNetwork/services/cidrBlocks/0"),
                message: format!("failed to parse service cidr {services:?}"),
            })?,
        };
        network.insert("dnsServiceIP".into(), json!(ip));
    }
    if let Some(lb) = spec.field("loadBalancerProfile").filter(|v| v.is_object()) {
        let mut profile = Map::new();
        for field in ["allocatedOutboundPorts", "idleTimeoutInMinutes"] {
            if let Some(v) = lb.field(field).filter(|v| !v.is_null()) {
                profile.insert(field.into(), v.clone());
            }
        }
        if let Some(count) = lb.field("managedOutboundIPs").filter(|v| !v.is_null()) {
            profile.insert("managedOutboundIPs".into(), json!({"count": count}));
        }
        let prefixes = references(lb.field("outboundIPPrefixes"));
        if !prefixes.is_empty() {
            profile.insert("outboundIPPrefixes".into(), json!({"publicIPPrefixes": prefixes}));
        }
        let ips = references(lb.field("outboundIPs"));
        if !ips.is_empty() {
            profile.insert("outboundIPs".into(), json!({"publicIPs": ips}));
        }
        network.insert("loadBalancerProfile".into(), Value::Object(profile));
    }
    if let Some(outbound) = spec.field("outboundType").and_then(Value::as_str) {
        let options = ["loadBalancer", "managedNATGateway", "none", "userAssignedNATGateway", "userDefinedRouting"];
        network.insert("outboundType".into(), json!(canonical(outbound, &options)));
    }
    Ok(Value::Object(network))
}

fn security_profile(spec: &Value) -> Value {
    let mut profile = Map::new();
    if let Some(kms) = spec.field("azureKeyVaultKms").filter(|v| v.is_object()) {
        let mut out = Map::new();
        out.insert("enabled".into(), json!(kms.bool_at("/enabled").unwrap_or(false)));
        out.insert("keyId".into(), json!(kms.str_at("/keyID").unwrap_or("")));
        if let Some(access) = kms.str_at("/keyVaultNetworkAccess") {
            out.insert("keyVaultNetworkAccess".into(), json!(canonical(access, &["Private", "Public"])));
        }
        if let Some(id) = kms.str_at("/keyVaultResourceID") {
            out.insert("keyVaultResourceReference".into(), json!({"armId": id}));
        }
        profile.insert("azureKeyVaultKms".into(), Value::Object(out));
    }
    if let Some(defender) = spec.field("defender").filter(|v| v.is_object()) {
        profile.insert(
            "defender".into(),
            json!({
                "logAnalyticsWorkspaceResourceReference": {"armId": defender.str_at("/logAnalyticsWorkspaceResourceID").unwrap_or("")},
                "securityMonitoring": {"enabled": defender.bool_at("/securityMonitoring/enabled").unwrap_or(false)},
            }),
        );
    }
    if let Some(cleaner) = spec.field("imageCleaner").filter(|v| v.is_object()) {
        let mut out = Map::new();
        out.insert("enabled".into(), json!(cleaner.bool_at("/enabled").unwrap_or(false)));
        if let Some(hours) = cleaner.field("intervalHours").filter(|v| !v.is_null()) {
            out.insert("intervalHours".into(), hours.clone());
        }
        profile.insert("imageCleaner".into(), Value::Object(out));
    }
    if let Some(identity) = spec.field("workloadIdentity").filter(|v| v.is_object()) {
        profile.insert("workloadIdentity".into(), json!({"enabled": identity.bool_at("/enabled").unwrap_or(false)}));
    }
    Value::Object(profile)
}

/// The agent pool profile CAPZ derives from a patched agent pool (`AgentPoolToManagedClusterAgentPoolProfile`).
fn agent_pool_profile(pool: &BuiltPool) -> Value {
    let mut profile = pool.patched.field("spec").and_then(Value::as_object).cloned().unwrap_or_default();
    for field in ["azureName", "owner", "operatorSpec"] {
        profile.remove(field);
    }
    profile.insert("name".into(), json!(pool.azure_name));
    Value::Object(profile)
}

fn kubeconfig_secret(name: String) -> Value {
    json!({"name": name, "key": "value"})
}

/// `ManagedClusterSpec.Parameters` on an empty cluster, before patches.
fn parameters(defaulted: &Defaulted<'_>, pools: &[BuiltPool]) -> Result<Value, TranslateError> {
    let cp = &defaulted.control_plane;
    let spec_in = cp.field("spec").unwrap_or(&Value::Null);
    let s = |field: &str| spec_in.field(field).filter(|v| !v.is_null());
    let cp_name = cp.str_at("/metadata/name").unwrap_or("");
    let cluster = &defaulted.cluster_name;
    let mut spec = Map::new();

    spec.insert("tags".into(), capz_tags(&Default::default(), cluster, cp_name));
    spec.insert("azureName".into(), json!(cp_name));
    let rg = cp.str_at("/spec/resourceGroupName").unwrap_or("");
    spec.insert("owner".into(), json!({"name": normalized_name(rg)}));
    spec.insert("identity".into(), json!({"type": "SystemAssigned"}));
    spec.insert("location".into(), json!(cp.str_at("/spec/location").unwrap_or("")));
    spec.insert("nodeResourceGroup".into(), json!(cp.str_at("/spec/nodeResourceGroupName").unwrap_or("")));
    spec.insert("enableRBAC".into(), json!(true));
    if let Some(prefix) = s("dnsPrefix") {
        spec.insert("dnsPrefix".into(), prefix.clone());
    }
    let version = cp.str_at("/spec/version").unwrap_or("").trim_start_matches('v');
    if !version.is_empty() {
        spec.insert("kubernetesVersion".into(), json!(version));
    }
    spec.insert("servicePrincipalProfile".into(), json!({"clientId": "msi"}));
    if let Some(autoscaler) = s("autoscalerProfile").and_then(Value::as_object) {
        spec.insert("autoScalerProfile".into(), autoscaler_profile(autoscaler));
    }
    spec.insert("networkProfile".into(), network_profile(defaulted, spec_in)?);

    if let Some(key) = s("sshPublicKey").and_then(Value::as_str).filter(|k| !k.is_empty()) {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(key)
            .map_err(|e| invalid(defaulted, "/spec/sshPublicKey", format!("failed to decode SSHPublicKey: {e}")))?;
        spec.insert(
            "linuxProfile".into(),
            json!({"adminUsername": "azureuser", "ssh": {"publicKeys": [{"keyData": String::from_utf8_lossy(&decoded)}]}}),
        );
    }

    let mut secrets = Map::new();
    secrets.insert("adminCredentials".into(), kubeconfig_secret(format!("{cluster}-aso-kubeconfig")));
    let mut operator = Map::new();

    if let Some(aad) = s("aadProfile").filter(|v| v.is_object()) {
        insert_aad_profile(aad, s("disableLocalAccounts"), cluster, &mut spec, &mut secrets);
    }
    if let Some(addons) = s("addonProfiles").and_then(Value::as_array).filter(|a| !a.is_empty()) {
        spec.insert("addonProfiles".into(), addon_profiles(addons));
    }
    if let Some(sku) = s("sku").filter(|v| v.is_object()) {
        let tier = canonical(sku.str_at("/tier").unwrap_or(""), &["Free", "Premium", "Standard"]);
        spec.insert("sku".into(), json!({"name": "Base", "tier": tier}));
    }
    if let Some(access) = s("apiServerAccessProfile").filter(|v| v.is_object()) {
        spec.insert("apiServerAccessProfile".into(), api_server_access_profile(access));
    }
    if let Some(identity) = s("identity").filter(|v| v.is_object())
        && let Some(identity) = identity_of(defaulted, identity)?
    {
        spec.insert("identity".into(), identity);
    }
    if let Some(kubelet) = s("kubeletUserAssignedIdentity").and_then(Value::as_str).filter(|k| !k.is_empty()) {
        spec.insert("identityProfile".into(), json!({"kubeletidentity": {"resourceReference": {"armId": kubelet}}}));
    }
    if let Some(proxy) = s("httpProxyConfig").filter(|v| v.is_object()) {
        spec.insert("httpProxyConfig".into(), http_proxy_config(proxy));
    }
    if let Some(oidc) = s("oidcIssuerProfile").filter(|v| v.is_object()) {
        insert_oidc_issuer_profile(oidc, cluster, &mut spec, &mut operator);
    }
    if let Some(upgrade) = s("autoUpgradeProfile").filter(|v| v.is_object()) {
        spec.insert("autoUpgradeProfile".into(), auto_upgrade_profile(upgrade));
    }
    if let Some(security) = s("securityProfile").filter(|v| v.is_object()) {
        spec.insert("securityProfile".into(), security_profile(security));
    }
    operator.insert("secrets".into(), Value::Object(secrets));
    spec.insert("operatorSpec".into(), Value::Object(operator));

    let mut profiles: Vec<Value> = pools.iter().map(agent_pool_profile).collect();
    profiles.sort_by(|a, b| a.str_at("/name").cmp(&b.str_at("/name")));
    if !profiles.is_empty() {
        spec.insert("agentPoolProfiles".into(), Value::Array(profiles));
    }
    let api_version = if preview(defaulted) { PREVIEW } else { STABLE };
    Ok(aso_object(api_version, "ManagedCluster", spec))
}

/// `autoScalerProfile`: the non-null fields in kebab case, `expander` canonical.
fn autoscaler_profile(autoscaler: &Map<String, Value>) -> Value {
    let mut profile = Map::new();
    for (key, value) in autoscaler.iter().filter(|(_, v)| !v.is_null()) {
        let value = if key == "expander" {
            json!(canonical(value.as_str().unwrap_or(""), &["least-waste", "most-pods", "priority", "random"]))
        } else {
            value.clone()
        };
        profile.insert(kebab(key), value);
    }
    Value::Object(profile)
}

/// `aadProfile` and `disableLocalAccounts`, with the kubeconfig Secrets they call for: no admin credentials when
/// local accounts are off, user credentials for managed AAD.
fn insert_aad_profile(
    aad: &Value,
    disable_local_accounts: Option<&Value>,
    cluster: &str,
    spec: &mut Map<String, Value>,
    secrets: &mut Map<String, Value>,
) {
    let managed = aad.bool_at("/managed").unwrap_or(false);
    let mut profile = Map::new();
    profile.insert("managed".into(), json!(managed));
    profile.insert("enableAzureRBAC".into(), json!(managed));
    if let Some(groups) = aad.field("adminGroupObjectIDs").filter(|g| g.as_array().is_some_and(|a| !a.is_empty())) {
        profile.insert("adminGroupObjectIDs".into(), groups.clone());
    }
    spec.insert("aadProfile".into(), Value::Object(profile));
    if let Some(disable) = disable_local_accounts {
        spec.insert("disableLocalAccounts".into(), disable.clone());
        if disable.as_bool() == Some(true) {
            secrets.remove("adminCredentials");
        }
    }
    if managed {
        secrets.insert("userCredentials".into(), kubeconfig_secret(format!("{cluster}-user-aso-kubeconfig")));
    }
}

/// `addonProfiles`, keyed by name.
fn addon_profiles(addons: &[Value]) -> Value {
    let mut profiles = Map::new();
    for addon in addons {
        let mut profile = Map::new();
        profile.insert("enabled".into(), json!(addon.bool_at("/enabled").unwrap_or(false)));
        if let Some(config) = addon.field("config").filter(|c| c.as_object().is_some_and(|m| !m.is_empty())) {
            profile.insert("config".into(), config.clone());
        }
        profiles.insert(addon.str_at("/name").unwrap_or("").to_string(), Value::Object(profile));
    }
    Value::Object(profiles)
}

/// `apiServerAccessProfile`: its non-null fields, and the authorized IP ranges when there are some.
fn api_server_access_profile(access: &Value) -> Value {
    let mut profile = Map::new();
    for field in ["enablePrivateCluster", "privateDNSZone", "enablePrivateClusterPublicFQDN"] {
        if let Some(v) = access.field(field).filter(|v| !v.is_null()) {
            profile.insert(field.into(), v.clone());
        }
    }
    if let Some(ranges) = access.field("authorizedIPRanges").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) {
        profile.insert("authorizedIPRanges".into(), ranges.clone());
    }
    Value::Object(profile)
}

/// The cluster's `identity` when the control plane names a type; a user-assigned one needs its resource ID.
fn identity_of(defaulted: &Defaulted<'_>, identity: &Value) -> Result<Option<Value>, TranslateError> {
    let kind = identity.str_at("/type").unwrap_or("");
    if kind.is_empty() {
        return Ok(None);
    }
    let kind = canonical(kind, &["None", "SystemAssigned", "UserAssigned"]);
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    if kind == "UserAssigned" {
        let id = identity.str_at("/userAssignedIdentityResourceID").unwrap_or("");
        if id.is_empty() {
            return Err(invalid(
                defaulted,
                "/spec/identity",
                "Identity is not valid: Identity is set to \"UserAssigned\" but no UserAssignedIdentityResourceID is present".into(),
            ));
        }
        out.insert("userAssignedIdentities".into(), json!([{"reference": {"armId": id}}]));
    }
    Ok(Some(Value::Object(out)))
}

/// `httpProxyConfig`: its non-null fields, and `noProxy` when it lists some.
fn http_proxy_config(proxy: &Value) -> Value {
    let mut out = Map::new();
    for (from, to) in [("httpProxy", "httpProxy"), ("httpsProxy", "httpsProxy"), ("trustedCa", "trustedCa")] {
        if let Some(v) = proxy.field(from).filter(|v| !v.is_null()) {
            out.insert(to.into(), v.clone());
        }
    }
    if let Some(no_proxy) = proxy.field("noProxy").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) {
        out.insert("noProxy".into(), no_proxy.clone());
    }
    Value::Object(out)
}

/// `oidcIssuerProfile`, and the ConfigMap of its issuer URL when it is enabled.
fn insert_oidc_issuer_profile(
    oidc: &Value,
    cluster: &str,
    spec: &mut Map<String, Value>,
    operator: &mut Map<String, Value>,
) {
    let mut out = Map::new();
    if let Some(enabled) = oidc.field("enabled").filter(|v| !v.is_null()) {
        out.insert("enabled".into(), enabled.clone());
    }
    spec.insert("oidcIssuerProfile".into(), Value::Object(out));
    if oidc.bool_at("/enabled") == Some(true) {
        operator.insert(
            "configMaps".into(),
            json!({"oidcIssuerProfile": {"name": format!("{cluster}-aso-oidc-issuer-profile"), "key": "oidc-issuer-profile-url"}}),
        );
    }
}

/// `autoUpgradeProfile`, its channel canonical.
fn auto_upgrade_profile(upgrade: &Value) -> Value {
    let mut out = Map::new();
    if let Some(channel) = upgrade.str_at("/upgradeChannel") {
        out.insert(
            "upgradeChannel".into(),
            json!(canonical(channel, &["node-image", "none", "patch", "rapid", "stable"])),
        );
    }
    Value::Object(out)
}

/// `GetAllAgentPools`: no MachinePool above the control plane's version, at least one System pool.
fn check_pools(defaulted: &Defaulted<'_>, pools: &[BuiltPool]) -> Result<(), TranslateError> {
    let cp_version = defaulted.control_plane.str_at("/spec/version").unwrap_or("");
    for pool in &defaulted.pools {
        let version = pool.machine_pool.value.str_at("/spec/template/spec/version").unwrap_or("");
        if !version.is_empty() && semver_greater(version, cp_version) {
            return Err(TranslateError::Invalid {
                location: pool.machine_pool.location_of("/spec/template/spec/version"),
                message: "MachinePool version cannot be greater than the AzureManagedControlPlane version".into(),
            });
        }
    }
    if !pools.iter().any(|p| p.is_system) {
        return Err(TranslateError::NoSystemPool { location: defaulted.source.control_plane.location_of("") });
    }
    Ok(())
}

/// The ManagedCluster as CAPZ generates it, before its own patches (the pools' patches are in its
/// `agentPoolProfiles`).
pub(super) fn build_unpatched(defaulted: &Defaulted<'_>) -> Result<Value, TranslateError> {
    let pools = super::agent_pool::build_all(defaulted)?;
    check_pools(defaulted, &pools)?;
    parameters(defaulted, &pools)
}

/// The ManagedCluster, patched and finished.
pub(super) fn build(defaulted: &Defaulted<'_>, pools: &[BuiltPool]) -> Result<Value, TranslateError> {
    check_pools(defaulted, pools)?;
    let cp = &defaulted.control_plane;
    let patches: Vec<String> = cp
        .array_at("/spec/asoManagedClusterPatches")
        .map(|items| items.iter().map(|p| p.as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default();
    let patched = apply_merge_patches(parameters(defaulted, pools)?, &patches, defaulted.schemas).map_err(|error| {
        let location =
            defaulted.source.control_plane.location_of(&format!("/spec/asoManagedClusterPatches/{}", error.index()));
        TranslateError::Patch { location, error }
    })?;
    let cp_name = cp.str_at("/metadata/name").unwrap_or("");
    let owner = Owner {
        api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
        kind: "AzureManagedControlPlane",
        name: cp_name,
        uid: cp.str_at("/metadata/uid").unwrap_or(""),
    };
    Ok(reconcile::finish(
        patched,
        &normalized_name(cp_name),
        &defaulted.namespace,
        &defaulted.cluster_name,
        &owner,
        Some(additional_tags(cp)),
    ))
}
