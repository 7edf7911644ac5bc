//! What CAPZ's ASO reconciler (`azure/services/aso` `CreateOrUpdateResource`) adds to an object it creates:
//! the normalized name, the owner's namespace, a controller owner reference, tags with the last-applied
//! annotation (for specs that manage tags), the cluster-name label, `reconcile-policy: skip` (a new object) and
//! the per-resource credential annotation.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// `azure.GetNormalizedKubernetesName`: lower case, runs of characters outside `[a-z0-9-]` become `-`,
/// leading and trailing `-` trimmed.
pub(super) fn normalized_name(name: &str) -> String {
    let lower = name.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut in_run = false;
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    out.trim_matches('-').to_string()
}

/// The object that owns an ASO object CAPZ creates.
pub(super) struct Owner<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
}

/// How tags are reconciled: `Some(additional)` for specs that implement CAPZ's `TagsGetterSetter`
/// (ResourceGroup, ManagedCluster), `None` otherwise (agent pools).
pub(super) type AdditionalTags = Option<BTreeMap<String, String>>;

/// Finishes `parameters` (the patched object) as CAPZ's reconciler does on create.
pub(super) fn finish(
    mut parameters: Value,
    name: &str,
    namespace: &str,
    cluster_name: &str,
    owner: &Owner<'_>,
    tags: AdditionalTags,
) -> Value {
    let object = parameters.as_object_mut().expect("ASO objects are JSON objects");
    let metadata = object.entry("metadata").or_insert_with(|| json!({}));
    if !metadata.is_object() {
        *metadata = json!({});
    }
    let metadata = metadata.as_object_mut().expect("object");
    metadata.insert("name".into(), json!(name));
    metadata.insert("namespace".into(), json!(namespace));
    let owner_reference = json!({
        "apiVersion": owner.api_version,
        "kind": owner.kind,
        "name": owner.name,
        "uid": owner.uid,
        "controller": true,
        "blockOwnerDeletion": true,
    });
    let references = metadata.entry("ownerReferences").or_insert_with(|| json!([]));
    if let Some(list) = references.as_array_mut() {
        list.retain(|r| r.get("controller") != Some(&Value::Bool(true)));
        list.push(owner_reference);
    }

    let mut annotations = take_object(metadata, "annotations");
    if let Some(additional) = tags {
        let spec = object.entry("spec").or_insert_with(|| json!({}));
        let mut merged = spec.as_object_mut().map(|spec| take_object(spec, "tags")).unwrap_or_default();
        for (key, value) in &additional {
            merged.insert(key.clone(), json!(value));
        }
        if let Some(spec) = spec.as_object_mut() {
            if merged.is_empty() {
                spec.remove("tags");
            } else {
                spec.insert("tags".into(), Value::Object(merged));
            }
        }
        // Go marshals the map with sorted keys.
        let applied = serde_json::to_string(&additional).expect("string map");
        annotations.insert("sigs.k8s.io/cluster-api-provider-azure-last-applied-tags".into(), json!(applied));
    }
    let metadata = object.get_mut("metadata").and_then(Value::as_object_mut).expect("object");
    let mut labels = take_object(metadata, "labels");
    labels.insert("cluster.x-k8s.io/cluster-name".into(), json!(cluster_name));
    metadata.insert("labels".into(), Value::Object(labels));
    if let Some(previous) = annotations.remove("sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy") {
        annotations.insert("serviceoperator.azure.com/reconcile-policy".into(), previous);
    }
    annotations.insert("serviceoperator.azure.com/reconcile-policy".into(), json!("skip"));
    annotations.insert("serviceoperator.azure.com/credential-from".into(), json!(format!("{cluster_name}-aso-secret")));
    metadata.insert("annotations".into(), Value::Object(annotations));
    parameters
}

/// The object at `key` of `map`, taken out (a null left in its place, so that inserting there again keeps the key's
/// position); an empty map where there is none or something else.
fn take_object(map: &mut Map<String, Value>, key: &str) -> Map<String, Value> {
    match map.get_mut(key).map(Value::take) {
        Some(Value::Object(object)) => object,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::normalized_name;

    #[test]
    fn names_are_normalized_as_capz_does() {
        assert_eq!(normalized_name("My_RG.Prod"), "my-rg-prod");
        assert_eq!(normalized_name("--a__b--"), "a-b");
        assert_eq!(normalized_name("rg1"), "rg1");
    }
}
