//! The ManagedClustersAgentPools CAPZ's `agentpools` service creates (`buildAgentPoolSpec` in
//! azure/scope/managedmachinepool.go, `AgentPoolSpec.Parameters`), one per AzureManagedMachinePool.

use serde_json::{Map, Value, json};

use super::defaults::{Defaulted, DefaultedPool};
use super::patches::apply_merge_patches;
use super::reconcile::{self, Owner, normalized_name};
use super::{TranslateError, aso_object};
use crate::json_pointer::{At, Fields};

pub(super) const STABLE: &str = "containerservice.azure.com/v1api20250801";
pub(super) const PREVIEW: &str = "containerservice.azure.com/v20251002preview";

/// One agent pool: the patched parameters (which also feed the ManagedCluster's `agentPoolProfiles`) and the
/// object CAPZ creates.
pub(super) struct BuiltPool {
    pub azure_name: String,
    pub is_system: bool,
    pub patched: Value,
    pub object: Value,
}

pub(super) fn preview(defaulted: &Defaulted<'_>) -> bool {
    defaulted.control_plane.bool_at("/spec/enablePreviewFeatures").unwrap_or(false)
}

/// `resource.Quantity.AsApproximateFloat64` for the plain decimal forms a price takes.
fn quantity_to_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = s.trim();
            if let Some(milli) = s.strip_suffix('m') {
                milli.parse::<f64>().ok().map(|v| v / 1000.0)
            } else {
                s.parse::<f64>().ok()
            }
        }
        _ => None,
    }
}

/// CAPZ's sysctl field names to ASO's (`netIpv4IPLocalPortRange` → `netIpv4IpLocalPortRange`,
/// `netIpv4TCP…` → `netIpv4Tcp…`).
fn aso_sysctl_name(capz: &str) -> String {
    capz.replace("IPLocal", "IpLocal").replace("TCP", "Tcp")
}

fn copy_fields(from: Option<&Value>, fields: &[&str], to: &mut Map<String, Value>) {
    let Some(from) = from.and_then(Value::as_object) else { return };
    for field in fields {
        if let Some(value) = from.field(field).filter(|v| !v.is_null()) {
            to.insert((*field).to_string(), value.clone());
        }
    }
}

fn set_non_empty_str(spec: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value.filter(|v| !v.is_empty()) {
        spec.insert(key.into(), json!(value));
    }
}

/// `nodeTaints`: each taint as `key=value:effect`.
fn node_taints(taints: &[Value]) -> Value {
    let strings: Vec<String> = taints
        .iter()
        .map(|t| {
            format!(
                "{}={}:{}",
                t.str_at("/key").unwrap_or(""),
                t.str_at("/value").unwrap_or(""),
                t.str_at("/effect").unwrap_or("")
            )
        })
        .collect();
    json!(strings)
}

/// `kubeletConfig`: the fields ASO has, and the allowed unsafe sysctls when there are some.
fn kubelet_config(kubelet: &Value) -> Value {
    let mut config = Map::new();
    copy_fields(
        Some(kubelet),
        &[
            "cpuManagerPolicy",
            "cpuCfsQuota",
            "cpuCfsQuotaPeriod",
            "imageGcHighThreshold",
            "imageGcLowThreshold",
            "topologyManagerPolicy",
            "failSwapOn",
            "containerLogMaxSizeMB",
            "containerLogMaxFiles",
            "podMaxPids",
        ],
        &mut config,
    );
    if let Some(sysctls) = kubelet.field("allowedUnsafeSysctls").filter(|s| s.as_array().is_some_and(|a| !a.is_empty()))
    {
        config.insert("allowedUnsafeSysctls".into(), sysctls.clone());
    }
    Value::Object(config)
}

/// The ARM ID of the pool's subnet: its own, or the control plane's, in the control plane's virtual network.
fn subnet_id(cp: &Value, ammp: &Value) -> String {
    let subnet = ammp.str_at("/spec/subnetName").or_else(|| cp.str_at("/spec/virtualNetwork/subnet/name"));
    format!(
        "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/virtualNetworks/{}/subnets/{}",
        cp.str_at("/spec/subscriptionID").unwrap_or(""),
        cp.str_at("/spec/virtualNetwork/resourceGroup").unwrap_or(""),
        cp.str_at("/spec/virtualNetwork/name").unwrap_or(""),
        subnet.unwrap_or(""),
    )
}

/// `linuxOSConfig`: swap and transparent huge pages, and the sysctls under their ASO names.
fn linux_os_config(linux: &Value) -> Value {
    let mut config = Map::new();
    copy_fields(
        Some(linux),
        &["swapFileSizeMB", "transparentHugePageEnabled", "transparentHugePageDefrag"],
        &mut config,
    );
    if let Some(sysctls) = linux.field("sysctls").and_then(Value::as_object) {
        let renamed: Map<String, Value> =
            sysctls.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (aso_sysctl_name(k), v.clone())).collect();
        config.insert("sysctls".into(), Value::Object(renamed));
    }
    Value::Object(config)
}

/// `AgentPoolSpec.Parameters` on an empty cluster (no existing object).
fn parameters(defaulted: &Defaulted<'_>, pool: &DefaultedPool<'_>) -> Value {
    let cp = &defaulted.control_plane;
    let ammp = &pool.pool;
    let mp = &pool.machine_pool.value;
    // `/spec/<field>` without formatting a pointer per field (44 per pool).
    let ammp_spec = ammp.field("spec");
    let p = |field: &str| ammp_spec.and_then(|spec| spec.field(field)).filter(|v| !v.is_null());

    let mut spec = Map::new();
    spec.insert("azureName".into(), json!(ammp.str_at("/spec/name").unwrap_or("")));
    spec.insert("owner".into(), json!({"name": cp.str_at("/metadata/name").unwrap_or("")}));
    if let Some(zones) = p("availabilityZones").filter(|z| z.as_array().is_some_and(|a| !a.is_empty())) {
        spec.insert("availabilityZones".into(), zones.clone());
    }
    let replicas = mp.i64_at("/spec/replicas").unwrap_or(1);
    spec.insert("count".into(), json!(replicas));
    let scaling = p("scaling");
    spec.insert("enableAutoScaling".into(), json!(scaling.is_some()));
    if let Some(v) = p("enableUltraSSD") {
        spec.insert("enableUltraSSD".into(), v.clone());
    }
    set_non_empty_str(&mut spec, "kubeletDiskType", p("kubeletDiskType").and_then(Value::as_str));
    if let Some(max) = scaling.and_then(|s| s.field("maxSize")).filter(|v| !v.is_null()) {
        spec.insert("maxCount".into(), max.clone());
    }
    if let Some(v) = p("maxPods") {
        spec.insert("maxPods".into(), v.clone());
    }
    if let Some(min) = scaling.and_then(|s| s.field("minSize")).filter(|v| !v.is_null()) {
        spec.insert("minCount".into(), min.clone());
    }
    spec.insert("mode".into(), json!(ammp.str_at("/spec/mode").unwrap_or("")));
    if let Some(labels) = p("nodeLabels").filter(|l| l.as_object().is_some_and(|m| !m.is_empty())) {
        spec.insert("nodeLabels".into(), labels.clone());
    }
    if let Some(taints) = p("taints").and_then(Value::as_array).filter(|t| !t.is_empty()) {
        spec.insert("nodeTaints".into(), node_taints(taints));
    }
    spec.insert("osDiskSizeGB".into(), json!(p("osDiskSizeGB").and_then(Value::as_i64).unwrap_or(0)));
    set_non_empty_str(&mut spec, "osDiskType", p("osDiskType").and_then(Value::as_str));
    set_non_empty_str(&mut spec, "osType", p("osType").and_then(Value::as_str));
    set_non_empty_str(&mut spec, "scaleSetPriority", p("scaleSetPriority").and_then(Value::as_str));
    set_non_empty_str(&mut spec, "scaleDownMode", p("scaleDownMode").and_then(Value::as_str));
    spec.insert("type".into(), json!("VirtualMachineScaleSets"));
    for field in ["enableNodePublicIP", "enableFIPS", "enableEncryptionAtHost"] {
        if let Some(v) = p(field) {
            spec.insert(field.into(), v.clone());
        }
    }
    if let Some(tags) = p("additionalTags").filter(|t| t.as_object().is_some_and(|m| !m.is_empty())) {
        spec.insert("tags".into(), tags.clone());
    }
    if let Some(version) = mp.str_at("/spec/template/spec/version").filter(|v| !v.is_empty()) {
        spec.insert("orchestratorVersion".into(), json!(version.trim_start_matches('v')));
    }
    if let Some(kubelet) = p("kubeletConfig") {
        spec.insert("kubeletConfig".into(), kubelet_config(kubelet));
    }
    set_non_empty_str(&mut spec, "vmSize", p("sku").and_then(Value::as_str));
    if let Some(price) = p("spotMaxPrice").and_then(quantity_to_f64) {
        spec.insert("spotMaxPrice".into(), json!(price));
    }
    spec.insert("vnetSubnetReference".into(), json!({"armId": subnet_id(cp, ammp)}));
    if let Some(prefix) = p("nodePublicIPPrefixID").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        spec.insert("nodePublicIPPrefixReference".into(), json!({"armId": prefix}));
    }
    if let Some(linux) = p("linuxOSConfig") {
        spec.insert("linuxOSConfig".into(), linux_os_config(linux));
    }
    let api_version = if preview(defaulted) { PREVIEW } else { STABLE };
    aso_object(api_version, "ManagedClustersAgentPool", spec)
}

fn patch_list(object: &Value, pointer: &str) -> Vec<String> {
    object
        .array_at(pointer)
        .map(|items| items.iter().map(|p| p.as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}

/// The agent pools as CAPZ generates them, before patches.
pub(super) fn build_unpatched(defaulted: &Defaulted<'_>) -> Result<Vec<Value>, TranslateError> {
    Ok(defaulted.pools.iter().map(|pool| parameters(defaulted, pool)).collect())
}

/// Every agent pool of the cluster, patched and finished, in MachinePool order.
pub(super) fn build_all(defaulted: &Defaulted<'_>) -> Result<Vec<BuiltPool>, TranslateError> {
    let mut built = Vec::new();
    for pool in &defaulted.pools {
        let patches = patch_list(&pool.pool, "/spec/asoManagedClustersAgentPoolPatches");
        let mut patched =
            apply_merge_patches(parameters(defaulted, pool), &patches, defaulted.schemas).map_err(|error| {
                let location =
                    pool.document.location_of(&format!("/spec/asoManagedClustersAgentPoolPatches/{}", error.index()));
                TranslateError::Patch { location, error }
            })?;
        let azure_name = pool.pool.str_at("/spec/name").unwrap_or("").to_string();
        let owner = Owner {
            api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
            kind: "AzureManagedMachinePool",
            name: pool.document.name(),
            uid: pool.document.value.str_at("/metadata/uid").unwrap_or(""),
        };
        let object = reconcile::finish(
            patched.clone(),
            &normalized_name(pool.document.name()),
            &defaulted.namespace,
            &defaulted.cluster_name,
            &owner,
            None,
        );
        if let Some(spec) = patched.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("azureName".into(), json!(azure_name));
        }
        built.push(BuiltPool {
            is_system: pool.pool.str_at("/spec/mode") == Some("System"),
            azure_name,
            patched,
            object,
        });
    }
    Ok(built)
}
