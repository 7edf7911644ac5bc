//! Update rules of AzureManagedMachinePool and AzureManagedMachinePoolTemplate: `ValidateUpdate` of
//! internal/webhooks/azuremanagedmachinepool_webhook.go and azuremanagedmachinepooltemplate_webhook.go, with
//! `validateLastSystemNodePool` and `validateNodeLabels` (azuremanagedmachinepool_validation.go).

use serde_json::Value;

use super::{
    CLUSTER_NAME_LABEL, Context, GoField, IMMUTABLE_FIELD, Issues, LAST_SYSTEM_POOL, NODE_LABELS_UPDATE, go_field,
    go_str, immutable_field, validate_immutable,
};
use crate::json_pointer::{At, Fields};

/// `clusterctlv1alpha3.DeleteForMoveAnnotation`: the pool is deleted by `clusterctl move`.
const DELETE_FOR_MOVE: &str = "clusterctl.cluster.x-k8s.io/delete-for-move";
/// `azureutil.AzureSystemNodeLabelPrefix`.
const AZURE_SYSTEM_NODE_LABEL_PREFIX: &str = "kubernetes.azure.com";

/// Which pool webhook: the object's or the template's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pool {
    Object,
    Template,
}

/// `AzureManagedMachinePoolWebhook.ValidateUpdate`, in CAPZ's order.
pub(crate) fn machine_pool(old: &Value, new: &Value, context: &Context<'_>, out: &mut Issues) {
    pool(old, new, Pool::Object, context, out);
}

/// `AzureManagedMachinePoolTemplateWebhook.ValidateUpdate`, in CAPZ's order.
pub(crate) fn template(old: &Value, new: &Value, context: &Context<'_>, out: &mut Issues) {
    pool(old, new, Pool::Template, context, out);
}

fn pool(old: &Value, new: &Value, which: Pool, context: &Context<'_>, out: &mut Issues) {
    let (prefix, root) = match which {
        Pool::Object => ("spec", "/spec"),
        Pool::Template => ("spec.template.spec", "/spec/template/spec"),
    };
    let (o, n) = (old.at(root), new.at(root));
    let immutable = |out: &mut Issues, key: &str, kind: GoField| immutable_field(out, prefix, o, n, key, kind);
    // Checked only when the stored object has the field: setting it is allowed.
    let immutable_once_set = |out: &mut Issues, key: &str| {
        if let Some(stored) = go_field(o, key, GoField::Pointer) {
            validate_immutable(
                out,
                IMMUTABLE_FIELD,
                &format!("{prefix}.{key}"),
                Some(stored),
                go_field(n, key, GoField::Pointer),
            );
        }
    };
    immutable(out, "name", GoField::Pointer);
    let labels = n.and_then(|s| s.field("nodeLabels")).and_then(Value::as_object);
    if let Some(key) = labels.and_then(|l| l.keys().find(|k| k.starts_with(AZURE_SYSTEM_NODE_LABEL_PREFIX))) {
        out.push(
            NODE_LABELS_UPDATE,
            &format!("{prefix}.nodeLabels"),
            format!("{key}: Node pool label key must not start with {AZURE_SYSTEM_NODE_LABEL_PREFIX}"),
        );
    }
    immutable(out, "osType", GoField::Pointer);
    immutable(out, "sku", GoField::Value);
    immutable(out, "osDiskSizeGB", GoField::Pointer);
    immutable_once_set(out, "subnetName");
    immutable_once_set(out, "enableFIPS");
    if which == Pool::Object {
        immutable_once_set(out, "enableEncryptionAtHost");
    }
    let zones = |spec: Option<&Value>| {
        let mut zones: Vec<String> = spec
            .and_then(|s| s.field("availabilityZones"))
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|z| z.as_str().unwrap_or("").to_string()).collect())
            .unwrap_or_default();
        zones.sort();
        zones
    };
    if zones(o) != zones(n) {
        out.push(IMMUTABLE_FIELD, &format!("{prefix}.availabilityZones"), "field is immutable");
    }
    if go_str(n, "mode") != "System" && go_str(o, "mode") == "System" {
        // The template's webhook passes the template's nodeLabels where the pool's passes its labels.
        let labels = match which {
            Pool::Object => new.at("/metadata/labels"),
            Pool::Template => n.and_then(|s| s.field("nodeLabels")),
        };
        let namespace = new.at("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
        let moving = new.at("/metadata/annotations").and_then(|a| a.field(DELETE_FOR_MOVE)).is_some();
        if let Some(cluster) = labels.and_then(|l| l.field(CLUSTER_NAME_LABEL)).and_then(Value::as_str)
            && !moving
        {
            let (cluster_exists, system_pools) = context.stored_system_pools(namespace, cluster);
            if !cluster_exists || system_pools <= 1 {
                out.push(
                    LAST_SYSTEM_POOL,
                    &format!("{prefix}.mode"),
                    "Cannot change node pool mode to User, you must have at least one System node pool in your cluster",
                );
            }
        }
    }
    for key in [
        "maxPods",
        "osDiskType",
        "scaleSetPriority",
        "enableUltraSSD",
        "enableNodePublicIP",
        "nodePublicIPPrefixID",
        "kubeletConfig",
        "kubeletDiskType",
        "linuxOSConfig",
    ] {
        immutable(out, key, GoField::Pointer);
    }
}
