//! The safety rules every write of the migration passes, checked against live state read right before the
//! write: no old ASO object is deleted or loses its finalizers unless it carries `reconcile-policy: skip`;
//! nothing old is deleted before the new Cluster is Available; the credential Secret is copied, never moved or
//! deleted; no write outside the old and new namespaces or to a kind the migration does not own.

use serde_json::{Value, json};

use super::kinds::{self, Kind, Target};
use super::objects::is_skipped;
use super::{MIGRATION, RECONCILE_POLICY};
use crate::json_pointer::At;

/// A write the migration wants to make.
#[derive(Debug, Clone)]
pub enum Write<'a> {
    /// Create `object` of `kind`.
    Create { kind: Kind, object: &'a Value },
    /// JSON merge patch of `target`.
    Patch { target: &'a Target, patch: &'a Value },
    /// `metadata.finalizers: null` on `target`.
    RemoveFinalizers { target: &'a Target },
    /// Delete `target`.
    Delete { target: &'a Target },
}

impl Write<'_> {
    fn describe(&self) -> String {
        match self {
            Write::Create { kind, object } => format!(
                "create {} {}/{}",
                kind.kind,
                object.str_at("/metadata/namespace").unwrap_or(""),
                object.str_at("/metadata/name").unwrap_or("")
            ),
            Write::Patch { target, .. } => format!("patch {target}"),
            Write::RemoveFinalizers { target } => format!("remove the finalizers of {target}"),
            Write::Delete { target } => format!("delete {target}"),
        }
    }
}

/// Where the migration may write.
#[derive(Debug, Clone)]
pub struct Scope {
    pub old_namespace: String,
    pub new_namespace: String,
}

/// What the guard knows of the live state, read right before the write.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The target as it is now (`None`: absent, or a creation).
    pub live_target: Option<Value>,
    /// Whether the new Cluster has condition Available True now.
    pub new_cluster_available: bool,
}

/// A write the guard refused, and the rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refused to {write}: {rule}")]
pub struct GuardError {
    pub write: String,
    pub rule: String,
}

/// Whether `patch` only sets the [`MIGRATION`] annotation (the patch of an existing, empty new namespace).
fn is_record_patch(patch: &Value) -> bool {
    patch.as_object().is_some_and(|p| p.len() == 1)
        && patch.object_at("/metadata").is_some_and(|m| m.len() == 1)
        && patch
            .object_at("/metadata/annotations")
            .is_some_and(|a| a.len() == 1 && a.get(MIGRATION).is_some_and(Value::is_string))
}

/// The only patch the migration sends to an old ASO object.
pub fn disarm_patch() -> Value {
    json!({"metadata": {"annotations": {RECONCILE_POLICY: "skip"}}})
}

/// The only patch the migration sends to the old Cluster.
pub fn pause_patch() -> Value {
    json!({"spec": {"paused": true}})
}

/// Checks `write` against every rule; `Ok` only when none refuses it.
pub fn check(scope: &Scope, write: &Write, facts: &Facts) -> Result<(), GuardError> {
    let refuse = |rule: String| Err(GuardError { write: write.describe(), rule });
    let (kind, namespace, name) = match write {
        Write::Create { kind, object } => (
            *kind,
            object.str_at("/metadata/namespace").map(str::to_string),
            object.str_at("/metadata/name").unwrap_or("").to_string(),
        ),
        Write::Patch { target, .. } | Write::RemoveFinalizers { target } | Write::Delete { target } => {
            (target.kind, target.namespace.clone(), target.name.clone())
        }
    };
    // Only the management cluster's objects of the kinds the migration owns, in its two namespaces.
    if kind == kinds::NAMESPACE {
        let allowed = match write {
            Write::Create { .. } => true,
            Write::Patch { patch, .. } => is_record_patch(patch),
            _ => false,
        };
        if name != scope.new_namespace || !allowed {
            return refuse(format!(
                "the only namespace the migration writes is {}: it creates it, or adds its {MIGRATION} annotation",
                scope.new_namespace
            ));
        }
        return Ok(());
    }
    if !kinds::NAMESPACED_KINDS.contains(&kind) {
        return refuse(format!("{} is not a kind the migration writes", kind.kind));
    }
    let is_old = namespace.as_deref() == Some(scope.old_namespace.as_str());
    let is_new = namespace.as_deref() == Some(scope.new_namespace.as_str());
    if !is_old && !is_new {
        return refuse(format!(
            "namespace {} is neither the cluster's ({}) nor the new one ({})",
            namespace.as_deref().unwrap_or("<none>"),
            scope.old_namespace,
            scope.new_namespace
        ));
    }
    // Secrets: copied, never moved or deleted; the old one is never written.
    if kind == kinds::SECRET && (matches!(write, Write::Delete { .. }) || is_old) {
        return refuse("the credential Secret is copied, never moved, changed or deleted".into());
    }
    if is_new {
        return match write {
            Write::Create { .. } => Ok(()),
            _ => refuse("the migration only creates objects in the new namespace".into()),
        };
    }
    // Old namespace from here on: nothing new is created there.
    match write {
        Write::Create { .. } => refuse("the migration creates nothing in the cluster's old namespace".into()),
        Write::Patch { patch, .. } if kind.is_aso() => {
            if **patch == disarm_patch() {
                Ok(())
            } else {
                refuse(format!("the only change to an old ASO object is {RECONCILE_POLICY}: skip"))
            }
        }
        Write::Patch { patch, .. } => {
            if kind == kinds::CLUSTER && **patch == pause_patch() {
                Ok(())
            } else {
                refuse("the only patch to an old CAPI/CAPZ object is the Cluster's spec.paused: true".into())
            }
        }
        Write::RemoveFinalizers { .. } | Write::Delete { .. } if kind.is_aso() => {
            let armed = facts.live_target.as_ref().is_some_and(|live| !is_skipped(live));
            if armed {
                refuse(format!(
                    "it does not carry {RECONCILE_POLICY}: skip, so ASO would delete the Azure resource behind it"
                ))
            } else if matches!(write, Write::Delete { .. }) && !facts.new_cluster_available {
                refuse("nothing old is deleted before the new Cluster is Available".into())
            } else {
                Ok(())
            }
        }
        Write::RemoveFinalizers { .. } | Write::Delete { .. } => {
            if facts.new_cluster_available {
                Ok(())
            } else {
                refuse("nothing old is deleted (or loses its finalizers) before the new Cluster is Available".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> Scope {
        Scope { old_namespace: "old".into(), new_namespace: "new".into() }
    }
    fn armed() -> Value {
        json!({"metadata": {"name": "mc", "finalizers": ["serviceoperator.azure.com/finalizer"]}})
    }
    fn skipped() -> Value {
        json!({"metadata": {"name": "mc", "annotations": {RECONCILE_POLICY: "skip"}}})
    }
    fn facts(live: Value, available: bool) -> Facts {
        Facts { live_target: Some(live), new_cluster_available: available }
    }

    #[test]
    fn an_armed_old_aso_object_keeps_its_finalizers_and_is_not_deleted() {
        for kind in kinds::ASO_KINDS {
            let target = Target::new(kind, "old", "mc");
            let err = check(&scope(), &Write::RemoveFinalizers { target: &target }, &facts(armed(), true)).unwrap_err();
            assert!(err.rule.contains("reconcile-policy: skip"), "{err}");
            let err = check(&scope(), &Write::Delete { target: &target }, &facts(armed(), true)).unwrap_err();
            assert!(err.rule.contains("reconcile-policy: skip"), "{err}");
            // Another policy value is armed too.
            let mut manage = skipped();
            manage["metadata"]["annotations"][RECONCILE_POLICY] = json!("manage");
            assert!(check(&scope(), &Write::RemoveFinalizers { target: &target }, &facts(manage, true)).is_err());
            assert!(check(&scope(), &Write::RemoveFinalizers { target: &target }, &facts(skipped(), false)).is_ok());
            assert!(check(&scope(), &Write::Delete { target: &target }, &facts(skipped(), true)).is_ok());
        }
    }

    #[test]
    fn nothing_old_is_deleted_before_the_new_cluster_is_available() {
        for kind in [kinds::CLUSTER, kinds::AZURE_MANAGED_CONTROL_PLANE, kinds::MACHINE_POOL, kinds::MANAGED_CLUSTER] {
            let target = Target::new(kind, "old", "x");
            let err = check(&scope(), &Write::Delete { target: &target }, &facts(skipped(), false)).unwrap_err();
            assert!(err.rule.contains("before the new Cluster is Available"), "{err}");
        }
        let target = Target::new(kinds::AZURE_MANAGED_MACHINE_POOL, "old", "p");
        let err = check(&scope(), &Write::RemoveFinalizers { target: &target }, &facts(json!({}), false)).unwrap_err();
        assert!(err.rule.contains("before the new Cluster is Available"), "{err}");
        assert!(check(&scope(), &Write::RemoveFinalizers { target: &target }, &facts(json!({}), true)).is_ok());
    }

    #[test]
    fn the_credential_secret_is_never_deleted_or_changed() {
        for ns in ["old", "new"] {
            let target = Target::new(kinds::SECRET, ns, "aso-credentials");
            let err = check(&scope(), &Write::Delete { target: &target }, &facts(json!({}), true)).unwrap_err();
            assert!(err.rule.contains("never moved"), "{err}");
        }
        let target = Target::new(kinds::SECRET, "old", "aso-credentials");
        let patch = json!({"metadata": {"annotations": {"a": "b"}}});
        assert!(check(&scope(), &Write::Patch { target: &target, patch: &patch }, &Facts::default()).is_err());
        let copy = json!({"metadata": {"name": "aso-credentials", "namespace": "new"}});
        assert!(check(&scope(), &Write::Create { kind: kinds::SECRET, object: &copy }, &Facts::default()).is_ok());
    }

    #[test]
    fn no_write_outside_the_two_namespaces_or_the_owned_kinds() {
        let target = Target::new(kinds::CLUSTER, "kube-system", "x");
        let err =
            check(&scope(), &Write::Patch { target: &target, patch: &pause_patch() }, &Facts::default()).unwrap_err();
        assert!(err.rule.contains("neither"), "{err}");
        let other = Target::namespace("old");
        assert!(check(&scope(), &Write::Delete { target: &other }, &Facts::default()).is_err());
        let new = Target::namespace("new");
        let record = json!({"metadata": {"annotations": {MIGRATION: "{}"}}});
        assert!(check(&scope(), &Write::Patch { target: &new, patch: &record }, &Facts::default()).is_ok());
        let labels = json!({"metadata": {"labels": {"x": "y"}}});
        assert!(check(&scope(), &Write::Patch { target: &new, patch: &labels }, &Facts::default()).is_err());
        assert!(check(&scope(), &Write::Delete { target: &new }, &Facts::default()).is_err());
        let deployment = Kind { api_version: "apps/v1", kind: "Deployment" };
        let target = Target::new(deployment, "old", "capz-controller-manager");
        assert!(check(&scope(), &Write::Delete { target: &target }, &facts(json!({}), true)).is_err());
    }

    #[test]
    fn old_objects_take_only_the_planned_patches_and_new_ones_are_never_deleted() {
        let mc = Target::new(kinds::MANAGED_CLUSTER, "old", "mc");
        let spec_change = json!({"spec": {"location": "elsewhere"}});
        assert!(check(&scope(), &Write::Patch { target: &mc, patch: &spec_change }, &Facts::default()).is_err());
        assert!(check(&scope(), &Write::Patch { target: &mc, patch: &disarm_patch() }, &Facts::default()).is_ok());
        let cp = Target::new(kinds::AZURE_MANAGED_CONTROL_PLANE, "old", "cp");
        assert!(check(&scope(), &Write::Patch { target: &cp, patch: &pause_patch() }, &Facts::default()).is_err());
        let new_cluster = Target::new(kinds::CLUSTER, "new", "c");
        assert!(check(&scope(), &Write::Delete { target: &new_cluster }, &facts(json!({}), true)).is_err());
        let object = json!({"metadata": {"name": "rg", "namespace": "old"}});
        let create = Write::Create { kind: kinds::RESOURCE_GROUP, object: &object };
        assert!(check(&scope(), &create, &Facts::default()).is_err());
    }
}
