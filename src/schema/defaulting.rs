//! CAPZ's defaulting webhooks as the API server runs them for CAPZ kinds: after the CRD's structural defaults and
//! before the CRD schema. Mirrors the `Default()` of `AzureManagedControlPlaneWebhook`,
//! `AzureManagedControlPlaneTemplateWebhook`, `AzureManagedMachinePoolWebhook` and
//! `AzureManagedMachinePoolTemplateWebhook` (internal/webhooks/, internal/api/v1beta1/*_default.go), including what
//! the webhook's Go round trip writes back: a Go field without `omitempty` returns as its zero value (`""`,
//! `false`, `{}`) and controller-runtime keeps those additions in its patch (it drops only removals).

use serde_json::{Map, Value};

use crate::json_pointer::{At, Fields};

/// `infrav1.LabelAgentPoolMode`.
const LABEL_AGENT_POOL_MODE: &str = "azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode";
/// `clusterv1.ClusterNameLabel`.
const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// Whether CAPZ has a defaulting webhook for this kind (the kinds [`apply`] defaults).
pub fn has_webhook(group: &str, version: &str, kind: &str) -> bool {
    group == CAPZ_GROUP
        && version == "v1beta1"
        && matches!(
            kind,
            "AzureManagedControlPlane"
                | "AzureManagedControlPlaneTemplate"
                | "AzureManagedMachinePool"
                | "AzureManagedMachinePoolTemplate"
        )
}

/// Applies CAPZ's defaulting webhook of `kind` to `object` (a whole object, after the CRD's structural defaults).
/// Returns whether CAPZ has a defaulting webhook for the kind (nothing is changed otherwise).
pub fn apply(group: &str, version: &str, kind: &str, object: &mut Value) -> bool {
    if group != CAPZ_GROUP || version != "v1beta1" || !object.is_object() {
        return false;
    }
    match kind {
        "AzureManagedControlPlane" => {
            let root = ensure_path(object, &["spec"]);
            round_trip_control_plane(root);
            // clusterv1beta1.APIEndpoint, a struct: omitempty does not drop it.
            let endpoint = struct_at(root, "controlPlaneEndpoint");
            empty_string(endpoint, &["host"]);
            zero(endpoint, "port", Value::from(0));
            default_control_plane(object);
        }
        "AzureManagedControlPlaneTemplate" => {
            let root = ensure_path(object, &["spec", "template", "spec"]);
            round_trip_control_plane(root);
            default_control_plane_template(object);
        }
        "AzureManagedMachinePool" => {
            let root = ensure_path(object, &["spec"]);
            round_trip_machine_pool(root);
            default_machine_pool(object, &["spec"]);
        }
        "AzureManagedMachinePoolTemplate" => {
            let root = ensure_path(object, &["spec", "template", "spec"]);
            round_trip_machine_pool(root);
            default_machine_pool(object, &["spec", "template", "spec"]);
        }
        _ => return false,
    }
    true
}

/// The object at `path` under `value`, created as `{}` where missing or not an object (Go structs without a
/// pointer are always marshalled).
fn ensure_path<'v>(value: &'v mut Value, path: &[&str]) -> &'v mut Map<String, Value> {
    let mut current = value;
    for segment in path {
        let map = current.as_object_mut().expect("objects all the way down");
        let entry = map.entry(segment.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        current = entry;
    }
    current.as_object_mut().expect("just made an object")
}

/// Sets `key` to `zero` unless present with a non-null value.
fn zero(map: &mut Map<String, Value>, key: &str, zero: Value) {
    if map.field(key).is_none_or(Value::is_null) {
        map.insert(key.to_string(), zero);
    }
}

fn empty_string(map: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        zero(map, key, Value::String(String::new()));
    }
}

/// The object at `key` if it is one (a Go pointer to a struct: absent or null stays absent).
fn object_at<'m>(map: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Map<String, Value>> {
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// A non-pointer Go struct: always marshalled, `{}` when absent.
fn struct_at<'m>(map: &'m mut Map<String, Value>, key: &str) -> &'m mut Map<String, Value> {
    let entry = map.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    entry.as_object_mut().expect("just made an object")
}

fn each_item(map: &mut Map<String, Value>, key: &str, mut fill: impl FnMut(&mut Map<String, Value>)) {
    if let Some(Value::Array(items)) = map.get_mut(key) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            fill(item);
        }
    }
}

/// Zero values of the AzureManagedControlPlaneClassSpec (and AzureManagedControlPlaneSpec) fields without
/// `omitempty` (api/v1beta1/types_class.go, azuremanagedcontrolplane_types.go, types.go).
fn round_trip_control_plane(spec: &mut Map<String, Value>) {
    empty_string(spec, &["location", "resourceGroupName", "version"]);
    let vnet = struct_at(spec, "virtualNetwork");
    empty_string(vnet, &["name", "cidrBlock"]);
    let subnet = struct_at(vnet, "subnet");
    empty_string(subnet, &["name", "cidrBlock"]);
    each_item(subnet, "privateEndpoints", |endpoint| empty_string(endpoint, &["name"]));
    each_item(subnet, "serviceEndpoints", |endpoint| empty_string(endpoint, &["service"]));
    if let Some(aad) = object_at(spec, "aadProfile") {
        zero(aad, "managed", Value::Bool(false));
    }
    each_item(spec, "addonProfiles", |addon| {
        empty_string(addon, &["name"]);
        zero(addon, "enabled", Value::Bool(false));
    });
    each_item(spec, "extensions", |extension| {
        empty_string(extension, &["name"]);
        if let Some(scope) = object_at(extension, "scope") {
            empty_string(scope, &["scopeType"]);
        }
    });
    if let Some(member) = object_at(spec, "fleetsMember") {
        empty_string(member, &["managerName", "managerResourceGroup"]);
    }
    if let Some(profile) = object_at(spec, "securityProfile") {
        if let Some(kms) = object_at(profile, "azureKeyVaultKms") {
            zero(kms, "enabled", Value::Bool(false));
            empty_string(kms, &["keyID"]);
        }
        if let Some(defender) = object_at(profile, "defender") {
            empty_string(defender, &["logAnalyticsWorkspaceResourceID"]);
            zero(struct_at(defender, "securityMonitoring"), "enabled", Value::Bool(false));
        }
        for key in ["imageCleaner", "workloadIdentity"] {
            if let Some(feature) = object_at(profile, key) {
                zero(feature, "enabled", Value::Bool(false));
            }
        }
    }
}

/// Zero values of the AzureManagedMachinePoolClassSpec fields without `omitempty`.
fn round_trip_machine_pool(spec: &mut Map<String, Value>) {
    empty_string(spec, &["mode", "sku"]);
    each_item(spec, "taints", |taint| empty_string(taint, &["effect", "key", "value"]));
}

fn name_of(object: &Value) -> String {
    object.str_at("/metadata/name").unwrap_or("").to_string()
}

fn cluster_label(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/labels")
        .and_then(|labels| labels.field(CLUSTER_NAME_LABEL))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn text<'m>(map: &'m Map<String, Value>, key: &str) -> &'m str {
    map.field(key).and_then(Value::as_str).unwrap_or("")
}

fn set_if_empty(map: &mut Map<String, Value>, key: &str, value: impl FnOnce() -> String) {
    if text(map, key).is_empty() {
        map.insert(key.to_string(), Value::String(value()));
    }
}

/// `NormalizeVersion` (internal/api/v1beta1/util.go).
fn normalize_version(spec: &mut Map<String, Value>) {
    if let Some(Value::String(version)) = spec.get_mut("version")
        && !version.is_empty()
        && !version.starts_with('v')
    {
        version.insert(0, 'v');
    }
}

/// `DefaultSku`: Free when unset, Paid becomes Standard.
fn default_sku(spec: &mut Map<String, Value>) {
    match spec.get_mut("sku") {
        Some(Value::Object(sku)) => {
            if text(sku, "tier") == "Paid" {
                sku.insert("tier".into(), Value::String("Standard".into()));
            }
        }
        _ => {
            let mut sku = Map::new();
            sku.insert("tier".into(), Value::String("Free".into()));
            spec.insert("sku".into(), Value::Object(sku));
        }
    }
}

/// `AzureManagedControlPlaneWebhook.Default` (internal/webhooks/azuremanagedcontrolplane_webhook.go) and the
/// `SetDefaultAzureManagedControlPlane*` functions of internal/api/v1beta1/azuremanagedcontrolplane_default.go.
fn default_control_plane(object: &mut Value) {
    let name = name_of(object);
    let label = cluster_label(object);
    let spec = ensure_path(object, &["spec"]);
    normalize_version(spec);
    default_sku(spec);
    if let (Some(member), Some(label)) = (object_at(spec, "fleetsMember"), &label) {
        set_if_empty(member, "name", || label.clone());
    }
    // SetDefaultAzureManagedControlPlaneSSHPublicKey replaces "" by a generated key: any valid key will do here.
    if let Some(label) = &label {
        set_if_empty(spec, "resourceGroupName", || label.clone());
    }
    let resource_group = text(spec, "resourceGroupName").to_string();
    let location = text(spec, "location").to_string();
    set_if_empty(spec, "nodeResourceGroupName", || format!("MC_{resource_group}_{name}_{location}"));
    let overlay = text(spec, "networkPluginMode") == "overlay";
    let vnet = struct_at(spec, "virtualNetwork");
    set_if_empty(vnet, "name", || name.clone());
    set_if_empty(vnet, "cidrBlock", || if overlay { "10.224.0.0/12" } else { "10.0.0.0/8" }.to_string());
    set_if_empty(vnet, "resourceGroup", || resource_group.clone());
    let subnet = struct_at(vnet, "subnet");
    set_if_empty(subnet, "name", || name.clone());
    set_if_empty(subnet, "cidrBlock", || if overlay { "10.224.0.0/16" } else { "10.240.0.0/16" }.to_string());
    if spec.field("oidcIssuerProfile").is_none_or(Value::is_null) {
        spec.insert("oidcIssuerProfile".into(), Value::Object(Map::new()));
    }
    if spec.field("dnsPrefix").is_none_or(Value::is_null) {
        spec.insert("dnsPrefix".into(), Value::String(name.clone()));
    }
    each_item(spec, "extensions", |extension| {
        if let Some(plan) = object_at(extension, "plan") {
            let product = text(plan, "product").to_string();
            set_if_empty(plan, "name", || format!("{name}-{product}"));
        }
    });
}

/// `SetDefaultsAzureManagedControlPlaneTemplate` (internal/api/v1beta1/azuremanagedcontrolplanetemplate_default.go).
fn default_control_plane_template(object: &mut Value) {
    let name = name_of(object);
    let spec = ensure_path(object, &["spec", "template", "spec"]);
    set_if_empty(spec, "networkPlugin", || "azure".into());
    set_if_empty(spec, "loadBalancerSKU", || "Standard".into());
    if spec.field("enablePreviewFeatures").is_none_or(Value::is_null) {
        spec.insert("enablePreviewFeatures".into(), Value::Bool(false));
    }
    normalize_version(spec);
    let vnet = struct_at(spec, "virtualNetwork");
    set_if_empty(vnet, "cidrBlock", || "10.0.0.0/8".into());
    let subnet = struct_at(vnet, "subnet");
    set_if_empty(subnet, "name", || name.clone());
    set_if_empty(subnet, "cidrBlock", || "10.240.0.0/16".into());
    default_sku(spec);
}

/// `AzureManagedMachinePoolWebhook.Default` / `AzureManagedMachinePoolTemplateWebhook.Default`: the agent pool
/// mode label, `spec.name` from metadata.name, `osType` Linux.
fn default_machine_pool(object: &mut Value, root: &[&str]) {
    let name = name_of(object);
    let spec = ensure_path(object, root);
    let mode = text(spec, "mode").to_string();
    set_if_empty(spec, "name", || name.clone());
    set_if_empty(spec, "osType", || "Linux".into());
    let labels = ensure_path(object, &["metadata", "labels"]);
    labels.insert(LABEL_AGENT_POOL_MODE.into(), Value::String(mode));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn control_plane_gets_network_names_version_prefix_and_zero_values() {
        let mut object = json!({
            "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureManagedControlPlane",
            "metadata": {"name": "c1"},
            "spec": {"version": "1.33.2", "networkPluginMode": "overlay", "aadProfile": {"adminGroupObjectIDs": []}}
        });
        assert!(apply(CAPZ_GROUP, "v1beta1", "AzureManagedControlPlane", &mut object));
        let spec = &object["spec"];
        assert_eq!(spec["version"], "v1.33.2");
        assert_eq!(spec["location"], "");
        assert_eq!(spec["resourceGroupName"], "");
        assert_eq!(spec["nodeResourceGroupName"], "MC__c1_");
        assert_eq!(spec["virtualNetwork"]["name"], "c1");
        assert_eq!(spec["virtualNetwork"]["cidrBlock"], "10.224.0.0/12");
        assert_eq!(spec["virtualNetwork"]["subnet"]["name"], "c1");
        assert_eq!(spec["virtualNetwork"]["subnet"]["cidrBlock"], "10.224.0.0/16");
        assert_eq!(spec["sku"]["tier"], "Free");
        assert_eq!(spec["dnsPrefix"], "c1");
        assert_eq!(spec["aadProfile"]["managed"], false);
        assert!(spec.field("identityRef").is_none(), "a nil pointer is not made up");
        assert_eq!(spec["controlPlaneEndpoint"], json!({"host": "", "port": 0}));
    }

    #[test]
    fn cluster_name_label_fills_the_resource_group() {
        let mut object = json!({
            "metadata": {"name": "c1", "labels": {"cluster.x-k8s.io/cluster-name": "prod"}},
            "spec": {"location": "westeurope", "fleetsMember": {}}
        });
        apply(CAPZ_GROUP, "v1beta1", "AzureManagedControlPlane", &mut object);
        assert_eq!(object["spec"]["resourceGroupName"], "prod");
        assert_eq!(object["spec"]["nodeResourceGroupName"], "MC_prod_c1_westeurope");
        assert_eq!(object["spec"]["virtualNetwork"]["resourceGroup"], "prod");
        assert_eq!(object["spec"]["fleetsMember"]["name"], "prod");
    }

    #[test]
    fn machine_pool_name_os_type_and_mode_label() {
        let mut object = json!({"metadata": {"name": "pool0"}, "spec": {"mode": "System"}});
        apply(CAPZ_GROUP, "v1beta1", "AzureManagedMachinePool", &mut object);
        assert_eq!(object["spec"]["name"], "pool0");
        assert_eq!(object["spec"]["osType"], "Linux");
        assert_eq!(object["spec"]["sku"], "");
        assert_eq!(object["metadata"]["labels"][LABEL_AGENT_POOL_MODE], "System");
    }

    #[test]
    fn template_defaults_and_other_kinds_untouched() {
        let mut object = json!({"metadata": {"name": "t"}, "spec": {"template": {"spec": {"version": "1.2.3"}}}});
        apply(CAPZ_GROUP, "v1beta1", "AzureManagedControlPlaneTemplate", &mut object);
        let spec = &object["spec"]["template"]["spec"];
        assert_eq!(spec["version"], "v1.2.3");
        assert_eq!(spec["networkPlugin"], "azure");
        assert_eq!(spec["virtualNetwork"]["name"], "", "the template leaves the name to each Cluster");
        assert_eq!(spec["virtualNetwork"]["subnet"]["name"], "t");
        let mut other = json!({"spec": {}});
        assert!(!apply(CAPZ_GROUP, "v1beta1", "AzureManagedCluster", &mut other));
        assert!(!apply("cluster.x-k8s.io", "v1beta1", "AzureManagedControlPlane", &mut other));
        assert_eq!(other, json!({"spec": {}}));
    }
}
