//! The classic objects as CAPZ's controllers read them: the CRD defaults (applied by the API server before and
//! after the mutating webhooks) and CAPZ's defaulting webhooks (`AzureManagedControlPlaneWebhook.Default`,
//! `AzureManagedMachinePoolWebhook.Default`).

use serde_json::{Map, Value, json};

use crate::json_pointer::{At, Fields};
use crate::manifest::Document;
use crate::target_schemas::TargetSchemas;

use super::{ClassicCluster, crd_defaults};

/// A classic cluster after defaulting.
#[derive(Debug, Clone)]
pub(super) struct Defaulted<'a> {
    pub source: &'a ClassicCluster<'a>,
    /// The schemas of the CAPZ release whose CRDs defaulted it (and whose ASO schemas decode its patches).
    pub schemas: &'a TargetSchemas,
    pub cluster_name: String,
    pub namespace: String,
    /// The AzureManagedControlPlane.
    pub control_plane: Value,
    /// Each MachinePool with its AzureManagedMachinePool (defaulted) and the document it came from.
    pub pools: Vec<DefaultedPool<'a>>,
}

#[derive(Debug, Clone)]
pub(super) struct DefaultedPool<'a> {
    pub machine_pool: &'a Document,
    pub document: &'a Document,
    pub pool: Value,
}

fn spec_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.field("spec").is_some_and(Value::is_object) {
        object["spec"] = json!({});
    }
    object["spec"].as_object_mut().expect("spec is an object")
}

fn is_empty_str(value: Option<&Value>) -> bool {
    value.is_none_or(|v| v.is_null() || v.as_str() == Some(""))
}

/// `AzureManagedControlPlaneWebhook.Default` (internal/api/v1beta1/azuremanagedcontrolplane_default.go).
fn default_control_plane(cp: &mut Value) {
    let name = cp.str_at("/metadata/name").unwrap_or("").to_string();
    let cluster_label = cp.str_at("/metadata/labels/cluster.x-k8s.io~1cluster-name").map(str::to_string);
    let spec = spec_mut(cp);
    if let Some(version) = spec.field("version").and_then(Value::as_str)
        && !version.is_empty()
        && !version.starts_with('v')
    {
        spec.insert("version".into(), json!(format!("v{version}")));
    }
    match spec.field("sku").filter(|s| !s.is_null()) {
        None => {
            spec.insert("sku".into(), json!({"tier": "Free"}));
        }
        Some(sku) if sku.field("tier").and_then(Value::as_str) == Some("Paid") => {
            spec.insert("sku".into(), json!({"tier": "Standard"}));
        }
        Some(_) => {}
    }
    if let Some(fleets) = spec.get_mut("fleetsMember").and_then(Value::as_object_mut)
        && let Some(label) = &cluster_label
        && is_empty_str(fleets.field("name"))
    {
        fleets.insert("name".into(), json!(label));
    }
    if is_empty_str(spec.field("resourceGroupName"))
        && let Some(label) = &cluster_label
    {
        spec.insert("resourceGroupName".into(), json!(label));
    }
    let rg = spec.field("resourceGroupName").and_then(Value::as_str).unwrap_or("").to_string();
    let location = spec.field("location").and_then(Value::as_str).unwrap_or("").to_string();
    if is_empty_str(spec.field("nodeResourceGroupName")) {
        spec.insert("nodeResourceGroupName".into(), json!(format!("MC_{rg}_{name}_{location}")));
    }
    let overlay = spec.field("networkPluginMode").and_then(Value::as_str) == Some("overlay");
    if !spec.field("virtualNetwork").is_some_and(Value::is_object) {
        spec.insert("virtualNetwork".into(), json!({}));
    }
    let vnet = spec["virtualNetwork"].as_object_mut().expect("object");
    if is_empty_str(vnet.field("name")) {
        vnet.insert("name".into(), json!(name));
    }
    if is_empty_str(vnet.field("cidrBlock")) {
        vnet.insert("cidrBlock".into(), json!(if overlay { "10.224.0.0/12" } else { "10.0.0.0/8" }));
    }
    if is_empty_str(vnet.field("resourceGroup")) {
        vnet.insert("resourceGroup".into(), json!(rg));
    }
    if !vnet.field("subnet").is_some_and(Value::is_object) {
        vnet.insert("subnet".into(), json!({}));
    }
    let subnet = vnet["subnet"].as_object_mut().expect("object");
    if is_empty_str(subnet.field("name")) {
        subnet.insert("name".into(), json!(name));
    }
    if is_empty_str(subnet.field("cidrBlock")) {
        subnet.insert("cidrBlock".into(), json!(if overlay { "10.224.0.0/16" } else { "10.240.0.0/16" }));
    }
    if spec.field("oidcIssuerProfile").is_none_or(Value::is_null) {
        spec.insert("oidcIssuerProfile".into(), json!({}));
    }
    if spec.field("dnsPrefix").is_none_or(Value::is_null) {
        spec.insert("dnsPrefix".into(), json!(name));
    }
    if let Some(extensions) = spec.get_mut("extensions").and_then(Value::as_array_mut) {
        for extension in extensions {
            let product = extension.str_at("/plan/product").unwrap_or("").to_string();
            if let Some(plan) = extension.get_mut("plan").and_then(Value::as_object_mut)
                && is_empty_str(plan.field("name"))
            {
                plan.insert("name".into(), json!(format!("{name}-{product}")));
            }
        }
    }
}

/// `AzureManagedMachinePoolWebhook.Default`.
fn default_pool(pool: &mut Value) {
    let name = pool.str_at("/metadata/name").unwrap_or("").to_string();
    let mode = pool.str_at("/spec/mode").unwrap_or("").to_string();
    if !pool.field("metadata").is_some_and(Value::is_object) {
        pool["metadata"] = json!({});
    }
    let metadata = pool["metadata"].as_object_mut().expect("object");
    if !metadata.field("labels").is_some_and(Value::is_object) {
        metadata.insert("labels".into(), json!({}));
    }
    metadata["labels"]["azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode"] = json!(mode);
    let spec = spec_mut(pool);
    if is_empty_str(spec.field("name")) {
        spec.insert("name".into(), json!(name));
    }
    if spec.field("osType").is_none_or(Value::is_null) {
        spec.insert("osType".into(), json!("Linux"));
    }
}

fn defaulted(document: &Document, kind: &str, webhook: fn(&mut Value), schemas: &TargetSchemas) -> Value {
    let mut value = document.value.clone();
    crd_defaults::apply(kind, schemas, &mut value);
    webhook(&mut value);
    crd_defaults::apply(kind, schemas, &mut value);
    value
}

/// The classic objects as the API server stores them after creation.
pub(super) fn apply<'a>(cluster: &'a ClassicCluster<'a>, schemas: &'a TargetSchemas) -> Defaulted<'a> {
    Defaulted {
        source: cluster,
        schemas,
        cluster_name: cluster.name().to_string(),
        namespace: cluster.namespace().to_string(),
        control_plane: defaulted(&cluster.control_plane, "AzureManagedControlPlane", default_control_plane, schemas),
        pools: cluster
            .pools
            .iter()
            .map(|(machine_pool, document)| DefaultedPool {
                machine_pool,
                document,
                pool: defaulted(document, "AzureManagedMachinePool", default_pool, schemas),
            })
            .collect(),
    }
}
