//! The API server's schema verdict on an update of a stored object: which of the new object's schema and CEL errors
//! CRD validation ratcheting forgives ([`super::ratchet`]), and the CEL transition rules judged against the stored
//! object. ASO objects embedded in an AzureASOManaged* `spec.resources` are judged against their stored embedded
//! counterpart (same group, kind and name): CAPZ applies them to ASO's CRDs, which ratchet the same way.

use std::cell::OnceCell;
use std::sync::Arc;

use serde_json::Value;

use super::ratchet::{self, Raised};
use super::validate::embedded_resources_pointer;
use super::{Gvk, KindSchema, Validator};
use crate::json_pointer::{At, Fields};
use crate::manifest::split_api_version;
use crate::report::Severity;

/// One stored object and the object that replaces it, as the API server holds each (pruned and defaulted), with the
/// kind's schema: what ratcheting and the transition rules read.
pub struct StoredUpdate<'v> {
    validator: &'v Validator<'v>,
    schema: Arc<KindSchema>,
    old: Value,
    new: Value,
    /// Whether the stored object already has a duplicate in a set or map list (worked out on first need).
    old_duplicates: OnceCell<bool>,
    /// The embedded ASO objects' own updates, by index in the new `spec.resources` (`None`: no stored counterpart).
    embedded: OnceCell<Vec<Option<StoredUpdate<'v>>>>,
}

/// One error a transition rule raises on the update: its JSON pointer in the new object and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransitionError {
    pub pointer: String,
    pub message: String,
    /// `true` when the rule could not be evaluated offline (a not-checked finding, not an error).
    pub not_checked: bool,
}

impl<'v> Validator<'v> {
    /// Whether the kind of `value` has CEL transition rules (a rule reading `oldSelf`): only then has an update of
    /// it more to judge than its create.
    pub fn has_transition_rules(&self, value: &Value) -> bool {
        let (Some(api_version), Some(kind)) = (value.str_at("/apiVersion"), value.str_at("/kind")) else {
            return false;
        };
        let (group, version) = split_api_version(api_version);
        match self.registry.get(&Gvk::new(group, version, kind)) {
            Ok(Some(schema)) => schema.cel && self.cel.has_transition_rules(&schema),
            _ => false,
        }
    }

    /// The update of the stored `old` to `new`; `None` when they are not the same kind in the same API version (the
    /// API server would convert the stored object first, which is not modelled: nothing is forgiven then) or the
    /// kind has no schema.
    pub fn stored_update(&'v self, old: &Value, new: &Value) -> Option<StoredUpdate<'v>> {
        let api_version = new.str_at("/apiVersion")?;
        let kind = new.str_at("/kind")?;
        if old.str_at("/apiVersion") != Some(api_version) || old.str_at("/kind") != Some(kind) {
            return None;
        }
        let (group, version) = split_api_version(api_version);
        let schema = self.registry.get(&Gvk::new(group, version, kind)).ok()??;
        Some(StoredUpdate {
            validator: self,
            schema,
            old: self.admitted(old)?,
            new: self.admitted(new)?,
            old_duplicates: OnceCell::new(),
            embedded: OnceCell::new(),
        })
    }
}

impl<'v> StoredUpdate<'v> {
    /// Whether the API server forgives, on this update, the finding of `rule` at `pointer` (of the new object) that
    /// says `message`: a `schema` or `cel` error at a value the stored object already had.
    pub fn forgives(&self, rule: &str, pointer: &str, message: &str) -> bool {
        if !matches!(rule, "schema" | "cel") {
            return false;
        }
        if let Some((index, rest)) = self.embedded_part(pointer) {
            let message = message.strip_prefix("embedded ").and_then(|m| m.split_once(": ")).map_or(message, |m| m.1);
            return self
                .embedded_updates()
                .get(index)
                .and_then(Option::as_ref)
                .is_some_and(|e| e.forgives(rule, rest, message));
        }
        let raised = if rule == "schema" && message.starts_with("duplicate ") {
            Raised::ListUniqueness
        } else if rule == "schema" && message.starts_with("required field ") {
            Raised::At(pointer.rsplit_once('/').map_or("", |(parent, _)| parent))
        } else {
            Raised::At(pointer)
        };
        let old_duplicates = raised == Raised::ListUniqueness && self.old_has_duplicates();
        ratchet::forgiven(&self.schema.schema, &self.old, &self.new, raised, old_duplicates)
    }

    /// The errors of the kind's CEL transition rules on this update, where the new value has a stored counterpart.
    pub fn transition_errors(&self) -> Vec<TransitionError> {
        if !self.schema.cel {
            return Vec::new();
        }
        self.validator
            .cel
            .transition_issues(&self.schema, &self.old, &self.new)
            .into_iter()
            .map(|issue| TransitionError {
                pointer: issue.path,
                message: issue.message,
                not_checked: issue.severity == Severity::NotChecked,
            })
            .collect()
    }

    fn old_has_duplicates(&self) -> bool {
        *self.old_duplicates.get_or_init(|| {
            self.validator.errors_of(&self.old).iter().any(|(_, message)| message.starts_with("duplicate "))
        })
    }

    /// `(index, pointer inside the embedded object)` of a pointer into `spec.resources`.
    fn embedded_part<'p>(&self, pointer: &'p str) -> Option<(usize, &'p str)> {
        let base = embedded_resources_pointer(&self.schema.gvk()).filter(|p| *p == "/spec/resources")?;
        let rest = pointer.strip_prefix(base)?.strip_prefix('/')?;
        let (index, inner) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, ""),
        };
        Some((index.parse().ok()?, inner))
    }

    fn embedded_updates(&self) -> &[Option<StoredUpdate<'v>>] {
        self.embedded.get_or_init(|| {
            let items =
                |value: &Value| value.at("/spec/resources").and_then(Value::as_array).cloned().unwrap_or_default();
            let (old_items, new_items) = (items(&self.old), items(&self.new));
            new_items
                .iter()
                .map(|new_item| {
                    let old_item = old_items.iter().find(|old_item| same_embedded(old_item, new_item))?;
                    self.validator.stored_update(old_item, new_item)
                })
                .collect()
        })
    }
}

/// The same ASO object: group, kind and name.
fn same_embedded(a: &Value, b: &Value) -> bool {
    let group = |v: &Value| v.str_at("/apiVersion").map(|api| split_api_version(api).0.to_string());
    let name = |v: &Value| v.field("metadata").and_then(|m| m.str_at("/name")).map(str::to_string);
    group(a) == group(b) && a.str_at("/kind") == b.str_at("/kind") && name(a).is_some() && name(a) == name(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Registry, ValidateOptions};
    use serde_json::json;

    fn control_plane(plugin: &str, dns_prefix: &str) -> Value {
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "AzureASOManagedControlPlane",
            "metadata": {"name": "c", "namespace": "n"},
            "spec": {"version": "v1.33.2", "resources": [{
                "apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedCluster",
                "metadata": {"name": "c"},
                "spec": {"location": "westeurope", "owner": {"name": "rg"}, "dnsPrefix": dns_prefix,
                    "networkProfile": {"networkPlugin": plugin}}}]}})
    }

    #[test]
    fn an_embedded_objects_unchanged_error_is_forgiven_against_its_stored_counterpart() {
        let registry = Registry::for_target(crate::versions::default_target());
        let validator = Validator::new(&registry, ValidateOptions::default());
        let old = control_plane("bogus", "a");
        for (new, forgiven) in [(control_plane("bogus", "b"), true), (control_plane("worse", "a"), false)] {
            let errors = validator.errors_of(&new);
            let plugin: Vec<_> = errors.iter().filter(|(path, _)| path.ends_with("/networkPlugin")).collect();
            assert_eq!(plugin.len(), 1, "{errors:?}");
            let (path, message) = plugin[0];
            assert!(path.starts_with("/spec/resources/0/"), "{path}");
            let update = validator.stored_update(&old, &new).expect("same kind and version");
            assert_eq!(update.forgives("schema", path, message), forgiven, "{new}");
            assert!(!update.forgives("metadata", path, message));
        }
        // Another API version on the base: the server converts first, nothing is forgiven.
        let mut other = old.clone();
        other["apiVersion"] = json!("infrastructure.cluster.x-k8s.io/v1beta1");
        assert!(validator.stored_update(&other, &old).is_none());
    }
}
