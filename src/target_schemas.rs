//! A target's schemas as one value: the registry of its management cluster (the target's CRDs and a Kubernetes
//! release) and what the checks build from it once, which belongs to it (the validator of the ASO objects CAPZ
//! creates, with its compiled CEL rules and patterns, and tables derived from the schemas, such as the classic
//! CRDs' defaulting plans). A command picks its value once ([`TargetSchemas::of`]) and passes it to everything that
//! reads schemas besides validation: migrate's translation, the ASO patch rules, the fleet's validator.
//!
//! The values are interned, like the targets themselves: one per target and Kubernetes release, built on first
//! use and kept for the process (the validator and the rules borrow it from every thread of a run).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::schema::{Registry, SchemaError, ValidateOptions, Validator};
use crate::versions::Target;

/// Derived values by type and key.
type Derived = HashMap<(TypeId, String), Arc<dyn Any + Send + Sync>>;

/// The schemas of one target and Kubernetes release, with what is built from them.
pub struct TargetSchemas {
    target: &'static Target,
    registry: Registry,
    aso_validator: OnceLock<Validator<'static>>,
    derived: Mutex<Derived>,
}

impl std::fmt::Debug for TargetSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TargetSchemas")
            .field("target", &self.target)
            .field("kubernetes", &self.registry.kubernetes_version())
            .finish_non_exhaustive()
    }
}

/// Two values are the same when they are of the same target and Kubernetes release (there is one of each).
impl PartialEq for TargetSchemas {
    fn eq(&self, other: &Self) -> bool {
        self.target.name == other.target.name
            && self.registry.kubernetes_version() == other.registry.kubernetes_version()
    }
}

impl Eq for TargetSchemas {}

impl TargetSchemas {
    /// The schemas of `target` with the newest bundled Kubernetes release.
    pub fn builtin(target: &'static Target) -> &'static TargetSchemas {
        let newest = Registry::kubernetes_versions().first().copied().unwrap_or_default();
        Self::intern(target, newest, || Registry::for_target(target))
    }

    /// The schemas of `target` with the built-in kinds of Kubernetes `version` (`v1.36`, `1.36` or `v1.36.3`); an
    /// error names the bundled versions when it is not one of them.
    pub fn of(target: &'static Target, version: &str) -> Result<&'static TargetSchemas, SchemaError> {
        let registry = Registry::for_target_and_kubernetes(target, version)?;
        let kubernetes = registry.kubernetes_version();
        Ok(Self::intern(target, kubernetes, || registry))
    }

    /// The schemas of `registry`, made for `target` (with a Kubernetes release, and the ASO kinds that
    /// `ADDITIONAL_ASO_CRDS` adds, which are part of what is interned).
    pub fn of_registry(target: &'static Target, registry: Registry) -> &'static TargetSchemas {
        let kubernetes = registry.kubernetes_version();
        let added = added_pattern(&registry);
        Self::intern_with(target, kubernetes, added.as_deref(), || registry)
    }

    fn intern(target: &'static Target, kubernetes: &str, make: impl FnOnce() -> Registry) -> &'static TargetSchemas {
        Self::intern_with(target, kubernetes, None, make)
    }

    fn intern_with(
        target: &'static Target,
        kubernetes: &str,
        added: Option<&str>,
        make: impl FnOnce() -> Registry,
    ) -> &'static TargetSchemas {
        // A process-wide table, deliberately, not a cache a run owns and passes in: the `'static` is load-bearing.
        // - `aso_validator` is a `Validator<'static>` that borrows `registry` of the same value: a value that holds
        //   a borrow of itself, which only a leaked (`&'static self`) value can be without `unsafe` or an owning
        //   validator.
        // - `RuleSelection::default()` and `MigrateOptions::default()` (and the tests, through them) take the
        //   default target's schemas with no run to hold them; `RuleSelection` is `Clone + Eq` and keeps a plain
        //   `&'static TargetSchemas`, which the rules hand to every worker thread of a run.
        // - What it holds is a function of its key (target, Kubernetes release, ADDITIONAL_ASO_CRDS pattern): the
        //   bundled schemas read once, not state one run leaves for the next; interning keeps those defaults from
        //   building a registry (and a CEL validator) each time. Entries are never removed: at most one per
        //   bundled target and Kubernetes release, and the one of a repository's `ADDITIONAL_ASO_CRDS`.
        static INTERNED: Mutex<Vec<&'static TargetSchemas>> = Mutex::new(Vec::new());
        let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = interned.iter().find(|s| {
            s.target.name == target.name
                && s.registry.kubernetes_version() == kubernetes
                && added_pattern(&s.registry).as_deref() == added
        }) {
            return found;
        }
        let schemas: &'static TargetSchemas = Box::leak(Box::new(TargetSchemas {
            target,
            registry: make(),
            aso_validator: OnceLock::new(),
            derived: Mutex::new(HashMap::new()),
        }));
        interned.push(schemas);
        schemas
    }

    /// The target.
    pub fn target(&self) -> &'static Target {
        self.target
    }

    /// The registry: the target's kinds and versions and those of its Kubernetes release.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// A validator (default options) of the objects CAPZ creates from a classic cluster, kept with its compiled CEL
    /// rules and patterns for every check of the run.
    pub fn aso_validator(&'static self) -> &'static Validator<'static> {
        self.aso_validator.get_or_init(|| Validator::new(&self.registry, ValidateOptions::default()))
    }

    /// The value `make` derives from the registry for `key`, made on first use and kept (`T` and `key` name it).
    pub fn derived<T: Send + Sync + 'static>(&self, key: &str, make: impl FnOnce(&Registry) -> T) -> Arc<T> {
        let id = (TypeId::of::<T>(), key.to_string());
        let kept = |derived: &Derived| derived.get(&id).cloned().and_then(|found| found.downcast::<T>().ok());
        if let Some(found) = kept(&self.derived.lock().unwrap_or_else(PoisonError::into_inner)) {
            return found;
        }
        // Made without the lock: two threads may both make it, the first one kept.
        let made = Arc::new(make(&self.registry));
        let mut derived = self.derived.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(first) = kept(&derived) {
            return first;
        }
        derived.insert(id.clone(), made.clone());
        made
    }
}

/// The `ADDITIONAL_ASO_CRDS` pattern a registry was widened with, as text.
fn added_pattern(registry: &Registry) -> Option<String> {
    registry.additional_aso_crds().map(|added| added.pattern.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::versions::TARGETS;

    #[test]
    fn one_value_per_target_and_kubernetes_release() {
        let newest = TargetSchemas::builtin(&TARGETS[0]);
        assert!(std::ptr::eq(newest, TargetSchemas::builtin(&TARGETS[0])));
        assert!(std::ptr::eq(newest, TargetSchemas::of(&TARGETS[0], newest.registry().kubernetes_version()).unwrap()));
        assert!(!std::ptr::eq(newest, TargetSchemas::builtin(&TARGETS[1])));
        let older = Registry::kubernetes_versions().last().unwrap();
        let other = TargetSchemas::of(&TARGETS[0], older).unwrap();
        assert_eq!(other.registry().kubernetes_version(), *older);
        assert_ne!(other, newest);
        assert!(TargetSchemas::of(&TARGETS[0], "v1.20").unwrap_err().to_string().contains("v1.20"));
    }

    #[test]
    fn derived_values_are_made_once_per_key() {
        let schemas = TargetSchemas::builtin(&TARGETS[0]);
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = |_: &Registry| made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let first = schemas.derived::<usize>("derived_values_are_made_once_per_key", make);
        let again = schemas.derived::<usize>("derived_values_are_made_once_per_key", make);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(made.into_inner(), 1);
    }
}
