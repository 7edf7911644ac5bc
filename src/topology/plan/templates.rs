//! CAPI's `external.GenerateTemplate` and `templateToTemplate`: objects and per-cluster copies made from templates.

use serde_json::{Map, Value, json};

use super::context::Ctx;
use super::fields::{group_kind, labels_of, sorted};
use super::types::{CLONED_FROM_GROUPKIND, CLONED_FROM_NAME, CLUSTER_NAME_LABEL, TOPOLOGY_OWNED_LABEL};
use crate::json_pointer::At;

/// `external.GenerateTemplate`: the object a template's `spec.template` describes.
pub(super) fn template_to_object(
    ctx: &Ctx,
    template: &Value,
    name: String,
    labels: &Map<String, Value>,
    annotations: &Map<String, Value>,
) -> Value {
    let inner = template.pointer("/spec/template").cloned().unwrap_or(json!({}));
    let mut obj = Map::new();
    let kind = template.str_at("/kind").unwrap_or("");
    obj.insert("apiVersion".into(), json!(template.str_at("/apiVersion").unwrap_or("")));
    obj.insert("kind".into(), json!(kind.strip_suffix("Template").unwrap_or(kind)));
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    let mut all_labels = labels_of(inner.pointer("/metadata/labels"));
    for (k, v) in labels {
        all_labels.insert(k.clone(), v.clone());
    }
    all_labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    all_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let mut all_annotations = labels_of(inner.pointer("/metadata/annotations"));
    for (k, v) in annotations {
        all_annotations.insert(k.clone(), v.clone());
    }
    all_annotations.insert(CLONED_FROM_NAME.into(), json!(template.str_at("/metadata/name").unwrap_or("")));
    all_annotations.insert(CLONED_FROM_GROUPKIND.into(), json!(group_kind(template)));
    meta.insert("labels".into(), Value::Object(sorted(all_labels)));
    meta.insert("annotations".into(), Value::Object(sorted(all_annotations)));
    obj.insert("metadata".into(), Value::Object(meta));
    // v1.14's external.GenerateTemplate copies `spec.template` as it is: an empty spec stays `spec: {}`.
    if let Some(spec) = inner.get("spec") {
        obj.insert("spec".into(), spec.clone());
    }
    Value::Object(obj)
}

/// `templateToTemplate`: a per-cluster copy of a template.
pub(super) fn template_to_template(ctx: &Ctx, template: &Value, name: String, labels: &Map<String, Value>) -> Value {
    let mut copy = template.clone();
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    let mut all_labels = labels_of(template.pointer("/metadata/labels"));
    for (k, v) in labels {
        all_labels.insert(k.clone(), v.clone());
    }
    all_labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    all_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let mut annotations = labels_of(template.pointer("/metadata/annotations"));
    annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    annotations.insert(CLONED_FROM_NAME.into(), json!(template.str_at("/metadata/name").unwrap_or("")));
    annotations.insert(CLONED_FROM_GROUPKIND.into(), json!(group_kind(template)));
    meta.insert("labels".into(), Value::Object(sorted(all_labels)));
    meta.insert("annotations".into(), Value::Object(sorted(annotations)));
    copy["metadata"] = Value::Object(meta);
    if let Some(obj) = copy.as_object_mut() {
        obj.remove("status");
    }
    copy
}
