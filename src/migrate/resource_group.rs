//! The ResourceGroups CAPZ's `groups` service creates (`ManagedControlPlaneScope.GroupSpecs`, `GroupSpec`):
//! the cluster's group, and the virtual network's when it names another group.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::aso_object;
use super::defaults::Defaulted;
use super::reconcile::{self, Owner, normalized_name};
use crate::json_pointer::At;

pub(super) const API_VERSION: &str = "resources.azure.com/v1api20200601";

/// The additional tags of the control plane (`spec.additionalTags`).
pub(super) fn additional_tags(control_plane: &Value) -> BTreeMap<String, String> {
    control_plane
        .object_at("/spec/additionalTags")
        .map(|tags| tags.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default()
}

/// `infrav1.Build`: the additional tags plus CAPZ's ownership tags.
pub(super) fn capz_tags(additional: &BTreeMap<String, String>, cluster_name: &str, name: &str) -> Value {
    let mut tags = serde_json::Map::new();
    for (key, value) in additional {
        tags.insert(key.clone(), json!(value));
    }
    tags.insert(format!("sigs.k8s.io_cluster-api-provider-azure_cluster_{cluster_name}"), json!("owned"));
    tags.insert("sigs.k8s.io_cluster-api-provider-azure_role".into(), json!("common"));
    tags.insert("Name".into(), json!(name));
    Value::Object(tags)
}

fn group(defaulted: &Defaulted<'_>, name: &str, azure_name: &str) -> Value {
    let cp = &defaulted.control_plane;
    let additional = additional_tags(cp);
    let location = cp.str_at("/spec/location").unwrap_or("");
    let mut spec = serde_json::Map::new();
    if !azure_name.is_empty() {
        spec.insert("azureName".into(), json!(azure_name));
    }
    spec.insert("location".into(), json!(location));
    spec.insert("tags".into(), capz_tags(&additional, &defaulted.cluster_name, name));
    let parameters = aso_object(API_VERSION, "ResourceGroup", spec);
    let owner = Owner {
        api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
        kind: "AzureManagedControlPlane",
        name: cp.str_at("/metadata/name").unwrap_or(""),
        uid: cp.str_at("/metadata/uid").unwrap_or(""),
    };
    reconcile::finish(
        parameters,
        &normalized_name(name),
        &defaulted.namespace,
        &defaulted.cluster_name,
        &owner,
        Some(additional),
    )
}

/// The ResourceGroup objects, in CAPZ's order.
pub(super) fn build_all(defaulted: &Defaulted<'_>) -> Vec<Value> {
    let cp = &defaulted.control_plane;
    let rg = cp.str_at("/spec/resourceGroupName").unwrap_or("");
    let mut groups = vec![group(defaulted, rg, rg)];
    let vnet_rg = cp.str_at("/spec/virtualNetwork/resourceGroup").unwrap_or("");
    if !vnet_rg.is_empty() && vnet_rg != rg {
        groups.push(group(defaulted, &normalized_name(vnet_rg), vnet_rg));
    }
    groups
}
