//! Differences between desired and live objects: normalisation, ASO-aware matching, masking, output.
//!
//! The inputs are the live object and the object the server would store after a server-side
//! apply (computed elsewhere with a dry run); [`LiveReader`] reads the live objects, and nothing here writes to a
//! cluster.

mod changes;
mod live;
mod managers;
mod normalize;
mod output;

use serde_json::Value;

pub use changes::{Change, align, changes};
pub use live::LiveReader;
pub use managers::owners;
pub use normalize::{
    LAST_APPLIED, RECONCILE_POLICY, REPLICAS_MANAGED_BY, capz_managed_paths, is_aso_wrapper, mask_secrets, remove_path,
    strip_capz_managed, strip_server_fields,
};
pub use output::{external_command, file_name, header, json_report, push_unified, unified, write_external};

/// Which object a diff is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    /// `group/version` as requested.
    pub api_version: String,
    /// Kind.
    pub kind: String,
    /// Namespace (`None` for cluster-scoped objects).
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
}

/// What applying would do to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The object does not exist and would be created.
    Created,
    /// The object exists and would change.
    Changed,
    /// Nothing would change (after normalisation).
    Unchanged,
}

impl Status {
    /// `created`, `changed` or `unchanged`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Changed => "changed",
            Status::Unchanged => "unchanged",
        }
    }
}

/// What to leave out or show.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffOptions {
    /// Also compare the fields CAPZ's mutators own.
    pub include_capz_managed: bool,
    /// Show Secret values instead of `***`.
    pub show_secrets: bool,
}

/// The comparison of one object.
#[derive(Debug, Clone)]
pub struct ObjectDiff {
    /// The object.
    pub object: ObjectRef,
    /// For `--aso-live` entries: the AzureASOManaged* object that embeds this ASO object.
    pub aso_owner: Option<String>,
    /// Created, changed or unchanged.
    pub status: Status,
    /// Normalised live object (`None` when it does not exist).
    pub live: Option<Value>,
    /// Normalised merged object, its keys and identified list items in the live order.
    pub merged: Value,
    /// The structured changes (one entry with an empty path for a creation).
    pub changes: Vec<Change>,
}

/// Compares a live object (if any) with the merged result of applying the desired one.
/// `aso_owner` marks an `--aso-live` comparison of an ASO object that CAPZ created; `schema` is
/// the kind's structural schema when known (for `x-kubernetes-list-map-keys`).
pub fn diff_object(
    object: ObjectRef,
    aso_owner: Option<String>,
    live: Option<Value>,
    merged: Value,
    schema: Option<&Value>,
    options: &DiffOptions,
) -> ObjectDiff {
    let mut live = live;
    let mut merged = merged;
    if let Some(l) = live.as_mut() {
        strip_server_fields(l);
    }
    strip_server_fields(&mut merged);
    if !options.include_capz_managed {
        strip_capz_managed(live.as_mut(), &mut merged, aso_owner.is_some());
    }
    if !options.show_secrets {
        mask_secrets(live.as_mut(), &mut merged);
    }
    let (status, merged, changes) = match &live {
        None => {
            let change =
                Change { path: String::new(), before: None, after: Some(merged.clone()), managers: Vec::new() };
            (Status::Created, merged, vec![change])
        }
        Some(l) => {
            let aligned = align(l, &merged, schema);
            let changes = changes(l, &aligned, schema);
            let status = if changes.is_empty() { Status::Unchanged } else { Status::Changed };
            (status, aligned, changes)
        }
    };
    ObjectDiff { object, aso_owner, status, live, merged, changes }
}

/// Names, on each change, the field managers other than `ours` that own the changed field in the
/// live object (`managed_fields` is its `metadata.managedFields`, read before normalisation).
pub fn name_other_managers(diff: &mut ObjectDiff, managed_fields: &Value, ours: &str) {
    for change in &mut diff.changes {
        change.managers = owners(managed_fields, &change.path, ours);
    }
}

impl ObjectDiff {
    /// Every manager named on a change, sorted, once.
    pub fn other_managers(&self) -> Vec<String> {
        let all: std::collections::BTreeSet<&String> = self.changes.iter().flat_map(|c| &c.managers).collect();
        all.into_iter().cloned().collect()
    }
}

/// The body CAPZ would server-side apply for an ASO object embedded in `spec.resources`: the
/// embedded object in the owner's namespace, with what CAPZ adds that the embedded object lacks
/// copied from the live object (owner references, the fields its mutators own), so that a dry
/// run as CAPZ's field manager shows only what Git changes.
pub fn aso_apply_body(embedded: &Value, namespace: &str, live: Option<&Value>) -> Value {
    let mut body = embedded.clone();
    if !body.get("metadata").is_some_and(Value::is_object) {
        body["metadata"] = Value::Object(Default::default());
    }
    body["metadata"]["namespace"] = Value::from(namespace);
    let Some(live) = live else { return body };
    if body.pointer("/metadata/ownerReferences").is_none()
        && let Some(refs) = live.pointer("/metadata/ownerReferences")
    {
        body["metadata"]["ownerReferences"] = refs.clone();
    }
    let api_version = body.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let kind = body.get("kind").and_then(Value::as_str).unwrap_or("");
    for path in capz_managed_paths(group, kind, true) {
        let pointer: String = path.iter().map(|p| format!("/{}", crate::json_pointer::escape_token(p))).collect();
        if body.pointer(&pointer).is_none()
            && let Some(value) = live.pointer(&pointer)
        {
            set_path(&mut body, path, value.clone());
        }
    }
    body
}

fn set_path(value: &mut Value, path: &[&str], new: Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut current = value;
    for key in parents {
        if !current.get(*key).is_some_and(Value::is_object) {
            current[*key] = Value::Object(Default::default());
        }
        current = &mut current[*key];
    }
    current[*last] = new;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cp(resources: Value) -> Value {
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureASOManagedControlPlane",
            "metadata": {"name": "c1", "namespace": "ns", "resourceVersion": "12", "uid": "x", "generation": 3,
                "managedFields": [{"manager": "kubectl"}]},
            "spec": {"version": "v1.33.2", "resources": resources}, "status": {"ready": false}})
    }
    fn mc(extra: Value) -> Value {
        let mut v = json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
            "metadata": {"name": "c1"}, "spec": {"dnsPrefix": "c1", "location": "westeurope"}});
        for (k, val) in extra.as_object().unwrap() {
            v["spec"][k] = val.clone();
        }
        v
    }
    fn rg() -> Value {
        json!({"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
            "metadata": {"name": "c1"}, "spec": {"location": "westeurope"}})
    }
    fn obj() -> ObjectRef {
        ObjectRef {
            api_version: "infrastructure.cluster.x-k8s.io/v1beta1".into(),
            kind: "AzureASOManagedControlPlane".into(),
            namespace: Some("ns".into()),
            name: "c1".into(),
        }
    }

    #[test]
    fn identical_apart_from_bookkeeping_and_order_is_unchanged() {
        let live = cp(json!([rg(), mc(json!({}))]));
        let mut merged = cp(json!([mc(json!({})), rg()]));
        merged["metadata"]["generation"] = json!(4);
        merged["metadata"]["resourceVersion"] = json!("13");
        let d = diff_object(obj(), None, Some(live), merged, None, &DiffOptions::default());
        assert_eq!(d.status, Status::Unchanged, "{:?}", d.changes);
        assert_eq!(unified(&d, false), "");
    }

    #[test]
    fn one_embedded_field_gives_exactly_that_path() {
        let live = cp(json!([rg(), mc(json!({}))]));
        let merged = cp(json!([rg(), mc(json!({"dnsPrefix": "other"}))]));
        let d = diff_object(obj(), None, Some(live), merged, None, &DiffOptions::default());
        assert_eq!(d.status, Status::Changed);
        let paths: Vec<&str> = d.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.dnsPrefix"]);
    }

    #[test]
    fn capz_managed_change_is_reported_only_on_request() {
        let live = cp(json!([rg(), mc(json!({"kubernetesVersion": "1.33.2"}))]));
        let merged = cp(json!([rg(), mc(json!({}))]));
        let d = diff_object(obj(), None, Some(live.clone()), merged.clone(), None, &DiffOptions::default());
        assert_eq!(d.status, Status::Unchanged);
        let options = DiffOptions { include_capz_managed: true, ..Default::default() };
        let d = diff_object(obj(), None, Some(live), merged, None, &options);
        let paths: Vec<&str> = d.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["spec.resources[ManagedCluster.containerservice.azure.com/c1].spec.kubernetesVersion"]);
    }

    #[test]
    fn missing_object_is_a_creation() {
        let d = diff_object(obj(), None, None, cp(json!([rg()])), None, &DiffOptions::default());
        assert_eq!(d.status, Status::Created);
        assert_eq!(d.changes.len(), 1);
        assert!(d.merged.pointer("/metadata/uid").is_none());
        let text = unified(&d, false);
        assert!(text.contains("--- /dev/null") && text.contains("+kind: AzureASOManagedControlPlane"), "{text}");
    }

    #[test]
    fn secret_change_is_masked_in_text_and_json() {
        let secret = |v: &str| {
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"},
                "type": "Opaque", "data": {"clientSecret": v}})
        };
        let object = ObjectRef {
            api_version: "v1".into(),
            kind: "Secret".into(),
            namespace: Some("ns".into()),
            name: "s".into(),
        };
        let d = diff_object(object.clone(), None, Some(secret("b2xk")), secret("bmV3"), None, &DiffOptions::default());
        assert_eq!(d.status, Status::Changed);
        let text = unified(&d, false) + &json_report(std::slice::from_ref(&d)).to_string();
        assert!(!text.contains("b2xk") && !text.contains("bmV3"), "{text}");
        assert!(text.contains("*** (before)") && text.contains("*** (after)"), "{text}");
        let shown = DiffOptions { show_secrets: true, ..Default::default() };
        let d = diff_object(object, None, Some(secret("b2xk")), secret("bmV3"), None, &shown);
        assert!(unified(&d, false).contains("+  clientSecret: bmV3"));
    }

    #[test]
    fn aso_apply_body_keeps_what_capz_adds() {
        let live = json!({"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
            "metadata": {"name": "c1", "namespace": "ns", "ownerReferences": [{"kind": "AzureASOManagedControlPlane", "name": "c1"}]},
            "spec": {"kubernetesVersion": "1.33.2", "networkProfile": {"podCidr": "192.168.0.0/16"}, "dnsPrefix": "c1"}});
        let body = aso_apply_body(&mc(json!({})), "ns", Some(&live));
        assert_eq!(body["metadata"]["namespace"], json!("ns"));
        assert_eq!(body["metadata"]["ownerReferences"], live["metadata"]["ownerReferences"]);
        assert_eq!(body["spec"]["kubernetesVersion"], json!("1.33.2"));
        assert_eq!(body["spec"]["networkProfile"], json!({"podCidr": "192.168.0.0/16"}));
        let own = aso_apply_body(&mc(json!({"kubernetesVersion": "1.34.0"})), "ns", Some(&live));
        assert_eq!(own["spec"]["kubernetesVersion"], json!("1.34.0"), "a value in Git wins");
    }
}
