//! The template references of a ClusterClass and its worker classes, in either API shape.

use serde_json::Value;

use crate::json_pointer::At;

/// A class template reference in either API shape: (apiVersion or apiGroup, kind).
pub(super) fn template_ref(class: &Value, base: &str) -> Option<(String, String)> {
    for suffix in ["/templateRef", "/ref"] {
        if let Some(r) = class.pointer(&format!("{base}{suffix}")).filter(|r| r.is_object()) {
            return Some((
                r.str_at("/apiVersion").unwrap_or("").to_string(),
                r.str_at("/kind").unwrap_or("").to_string(),
            ));
        }
    }
    None
}

/// The (bootstrap, infrastructure) template refs of a worker class (v1beta1 `template:` or v1beta2).
pub(super) fn worker_refs(worker: &Value) -> Vec<(String, String)> {
    let base = if worker.get("template").is_some() { "/template" } else { "" };
    ["bootstrap", "infrastructure"].iter().filter_map(|part| template_ref(worker, &format!("{base}/{part}"))).collect()
}
