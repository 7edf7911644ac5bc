//! CEL `x-kubernetes-validations` through kube's `cel` feature (kube-cel): rules compiled once per
//! GVK, evaluated on the object as the API server sees it on create (defaults applied, `oldSelf`
//! rules skipped). A rule kube-cel cannot evaluate becomes a "not checked" finding, never a pass.
//! Rules are compiled only once an object has a value where one applies (compiling is the costly
//! part), and then once per GVK for every thread.

use std::sync::{Arc, PoisonError, RwLock};

use kube::core::cel::{CompiledSchema, ErrorKind, RootContext, Validator, compile_schema};
use serde_json::Value;

use super::issue::Issue;
use super::{Gvk, KindSchema};
use crate::fast_hash::HashMap;
use crate::report::Severity;

pub(crate) struct CelChecker {
    validator: Validator,
    /// Per GVK and whether the schema was read without `status` (the rules differ).
    kinds: RwLock<HashMap<(Gvk, bool), Arc<KindRules>>>,
}

/// What CEL needs of one kind: where its rules sit, and the rules compiled (on first need).
struct KindRules {
    /// Schema locations of the rules; `None` when some rule sits where the walk does not look (then
    /// every object is checked).
    locations: Option<Vec<Vec<Step>>>,
    compiled: std::sync::OnceLock<CompiledSchema>,
    /// Whether some rule reads `oldSelf` (a transition rule, judged on update only).
    transitions: std::sync::OnceLock<bool>,
}

/// One step from a schema to a sub-schema, as an object is walked.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Property(String),
    /// Any list item or map value (`items`, `additionalProperties`).
    Any,
}

/// A [`Step`] borrowed from the schema while it is walked.
#[derive(Clone, Copy)]
enum StepRef<'a> {
    Property(&'a str),
    Any,
}

/// Where the `x-kubernetes-validations` of `schema` sit, if the walk through `properties`, `items` and
/// `additionalProperties` reaches every one. The keys are found by going through each map's entries, not by
/// looking them up: a lookup hashes the key (SipHash), which made this walk ~16% of a one-bundle `validate`.
fn rule_locations(schema: &Value) -> Option<Vec<Vec<Step>>> {
    fn walk<'a>(schema: &'a Value, path: &mut Vec<StepRef<'a>>, out: &mut Vec<Vec<Step>>, found: &mut usize) {
        let Some(map) = schema.as_object() else { return };
        let (mut rules, mut properties, mut items, mut additional) = (None, None, None, None);
        for (key, value) in map {
            match key.as_str() {
                "x-kubernetes-validations" => rules = Some(value),
                "properties" => properties = Some(value),
                "items" => items = Some(value),
                "additionalProperties" => additional = Some(value),
                _ => {}
            }
        }
        if rules.and_then(Value::as_array).is_some_and(|rules| !rules.is_empty()) {
            let owned = |step: &StepRef| match step {
                StepRef::Property(name) => Step::Property((*name).to_string()),
                StepRef::Any => Step::Any,
            };
            out.push(path.iter().map(owned).collect());
            *found += 1;
        }
        if let Some(Value::Object(properties)) = properties {
            for (name, child) in properties {
                path.push(StepRef::Property(name));
                walk(child, path, out, found);
                path.pop();
            }
        }
        for child in [items, additional].into_iter().flatten().filter(|c| c.is_object()) {
            path.push(StepRef::Any);
            walk(child, path, out, found);
            path.pop();
        }
    }
    fn count_all(schema: &Value) -> usize {
        match schema {
            Value::Object(map) => map
                .iter()
                .map(|(key, value)| match key.as_str() {
                    "x-kubernetes-validations" => usize::from(value.as_array().is_some_and(|r| !r.is_empty())),
                    "default" | "enum" | "example" => 0,
                    _ => count_all(value),
                })
                .sum(),
            Value::Array(items) => items.iter().map(count_all).sum(),
            _ => 0,
        }
    }
    let mut out = Vec::new();
    let mut found = 0;
    walk(schema, &mut Vec::new(), &mut out, &mut found);
    (found == count_all(schema)).then_some(out)
}

/// Whether `object` has a value at `location` (wildcards match any item or map value).
fn instantiated(object: &Value, location: &[Step]) -> bool {
    let Some((step, rest)) = location.split_first() else { return !object.is_null() };
    match (step, object) {
        (Step::Property(name), Value::Object(map)) => map.get(name).is_some_and(|child| instantiated(child, rest)),
        (Step::Any, Value::Object(map)) => map.values().any(|child| instantiated(child, rest)),
        (Step::Any, Value::Array(items)) => items.iter().any(|child| instantiated(child, rest)),
        _ => false,
    }
}

impl CelChecker {
    pub(crate) fn new() -> Self {
        CelChecker { validator: Validator::new(), kinds: RwLock::new(HashMap::default()) }
    }

    fn rules_of(&self, kind: &KindSchema) -> Arc<KindRules> {
        let gvk = (kind.gvk(), kind.status_omitted);
        if let Some(rules) = self.kinds.read().unwrap_or_else(PoisonError::into_inner).get(&gvk) {
            return rules.clone();
        }
        let rules = Arc::new(KindRules {
            locations: rule_locations(&kind.schema),
            compiled: std::sync::OnceLock::new(),
            transitions: std::sync::OnceLock::new(),
        });
        self.kinds.write().unwrap_or_else(PoisonError::into_inner).entry(gvk).or_insert(rules).clone()
    }

    /// Evaluates every rule of `kind` on `object` (the whole object, at `prefix` in the document).
    pub(crate) fn check(&self, kind: &KindSchema, object: &Value, prefix: &str, out: &mut Vec<Issue>) {
        let gvk = kind.gvk();
        let rules = self.rules_of(kind);
        if let Some(locations) = &rules.locations
            && !locations.iter().any(|location| instantiated(object, location))
        {
            // No rule applies to this object: nothing to compile or evaluate.
            return;
        }
        let compiled = rules.compiled.get_or_init(|| compile_schema(&kind.schema));
        let root = RootContext { api_version: gvk.api_version(), api_group: gvk.group.clone(), kind: gvk.kind.clone() };
        let Err(errors) = self.validator.validate_compiled_with_context(compiled, object, None, Some(&root)) else {
            return;
        };
        for error in errors.iter() {
            let path = format!("{prefix}{}", existing_pointer(object, &field_path_to_pointer(&error.field_path)));
            let rule = error.rule.trim();
            match error.kind {
                ErrorKind::ValidationFailure | ErrorKind::InvalidResult => {
                    let message =
                        if error.message.is_empty() { format!("failed rule: {rule}") } else { error.message.clone() };
                    out.push(Issue::new("cel", Severity::Error, path, message));
                }
                _ => out.push(Issue::new(
                    "cel",
                    Severity::NotChecked,
                    path,
                    format!("CEL rule `{rule}` could not be evaluated offline ({:?}): {}", error.kind, error.message),
                )),
            }
        }
    }
}

impl CelChecker {
    /// Whether some rule of `kind` reads `oldSelf` (worked out once per kind).
    pub(crate) fn has_transition_rules(&self, kind: &KindSchema) -> bool {
        *self.rules_of(kind).transitions.get_or_init(|| reads_old_self(&kind.schema))
    }

    /// The errors of `kind`'s transition rules (those reading `oldSelf`) on updating the stored `old` to `new` (both
    /// as admitted), each at a node of `new` with a stored counterpart ([`super::ratchet::correlates`]): the API
    /// server runs a transition rule only there. Rules without `oldSelf` are [`CelChecker::check`]'s.
    pub(crate) fn transition_issues(&self, kind: &KindSchema, old: &Value, new: &Value) -> Vec<Issue> {
        if !self.has_transition_rules(kind) {
            return Vec::new();
        }
        let rules = self.rules_of(kind);
        let compiled = rules.compiled.get_or_init(|| compile_schema(&kind.schema));
        let gvk = kind.gvk();
        let root = RootContext { api_version: gvk.api_version(), api_group: gvk.group.clone(), kind: gvk.kind.clone() };
        let aligned = super::ratchet::aligned_old(&kind.schema, old, new);
        let Err(errors) = self.validator.validate_compiled_with_context(compiled, new, Some(&aligned), Some(&root))
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for error in errors.iter().filter(|error| error.rule.contains("oldSelf")) {
            let pointer = field_path_to_pointer(&error.field_path);
            if !super::ratchet::correlates(&kind.schema, old, new, &pointer) {
                continue;
            }
            let path = existing_pointer(new, &pointer);
            let rule = error.rule.trim();
            out.push(match error.kind {
                ErrorKind::ValidationFailure | ErrorKind::InvalidResult => {
                    let message =
                        if error.message.is_empty() { format!("failed rule: {rule}") } else { error.message.clone() };
                    Issue::new("cel", Severity::Error, path, format!("{message} (a transition rule, on update)"))
                }
                _ => Issue::new(
                    "cel",
                    Severity::NotChecked,
                    path,
                    format!(
                        "transition rule `{rule}` could not be evaluated offline ({:?}): {}",
                        error.kind, error.message
                    ),
                ),
            });
        }
        out
    }
}

/// Whether some `x-kubernetes-validations` rule of `schema` reads `oldSelf`.
fn reads_old_self(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| match (key.as_str(), value) {
            ("x-kubernetes-validations", Value::Array(rules)) => rules
                .iter()
                .any(|rule| rule.get("rule").and_then(Value::as_str).is_some_and(|text| text.contains("oldSelf"))),
            ("default" | "enum" | "example", _) => false,
            _ => reads_old_self(value),
        }),
        Value::Array(items) => items.iter().any(reads_old_self),
        _ => false,
    }
}

/// kube-cel's `spec.items[0].name` as a JSON pointer `/spec/items/0/name`.
fn field_path_to_pointer(field_path: &str) -> String {
    let mut pointer = String::new();
    for segment in field_path.split('.').filter(|s| !s.is_empty()) {
        let (name, rest) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !name.is_empty() {
            pointer.push('/');
            pointer.push_str(&crate::json_pointer::escape_token(name));
        }
        for index in rest.split(['[', ']']).filter(|s| !s.is_empty()) {
            pointer.push('/');
            pointer.push_str(index);
        }
    }
    pointer
}

/// The longest prefix of `pointer` that exists in `object` (map keys with dots make kube-cel's
/// path ambiguous; never point at something that is not there).
fn existing_pointer(object: &Value, pointer: &str) -> String {
    let mut candidate = pointer.to_string();
    while !candidate.is_empty() && object.pointer(&candidate).is_none() {
        match candidate.rfind('/') {
            Some(i) => candidate.truncate(i),
            None => candidate.clear(),
        }
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk as it was written first, with map lookups: the reference for [`rule_locations`].
    fn rule_locations_by_lookup(schema: &Value) -> Option<Vec<Vec<Step>>> {
        fn walk(schema: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>, found: &mut usize) {
            let Some(map) = schema.as_object() else { return };
            if map.get("x-kubernetes-validations").and_then(Value::as_array).is_some_and(|rules| !rules.is_empty()) {
                out.push(path.clone());
                *found += 1;
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (name, child) in properties {
                    path.push(Step::Property(name.clone()));
                    walk(child, path, out, found);
                    path.pop();
                }
            }
            for key in ["items", "additionalProperties"] {
                if let Some(child) = map.get(key).filter(|c| c.is_object()) {
                    path.push(Step::Any);
                    walk(child, path, out, found);
                    path.pop();
                }
            }
        }
        fn count_all(schema: &Value) -> usize {
            match schema {
                Value::Object(map) => {
                    let own =
                        map.get("x-kubernetes-validations").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
                    usize::from(own)
                        + map
                            .iter()
                            .filter(|(k, _)| {
                                *k != "x-kubernetes-validations" && *k != "default" && *k != "enum" && *k != "example"
                            })
                            .map(|(_, v)| count_all(v))
                            .sum::<usize>()
                }
                Value::Array(items) => items.iter().map(count_all).sum(),
                _ => 0,
            }
        }
        let mut out = Vec::new();
        let mut found = 0;
        walk(schema, &mut Vec::new(), &mut out, &mut found);
        (found == count_all(schema)).then_some(out)
    }

    #[test]
    fn rules_are_located_as_the_lookup_walk_locates_them_in_every_embedded_schema() {
        let (mut kinds, mut located) = (0, 0);
        for (path, _) in super::super::embedded::sizes() {
            let kind = super::super::packed::read_kind(super::super::embedded::tree(path).unwrap()).unwrap();
            let locations = rule_locations(&kind.schema);
            assert_eq!(locations, rule_locations_by_lookup(&kind.schema), "{path}");
            kinds += 1;
            located += usize::from(locations.is_some_and(|l| !l.is_empty()));
        }
        assert!(kinds >= 204 && located >= 10, "{kinds} kinds, {located} with located rules");
        // Rules out of the walk's reach, and a property named like a keyword.
        for schema in [
            serde_json::json!({"allOf": [{"x-kubernetes-validations": [{"rule": "true"}]}]}),
            serde_json::json!({"properties": {"default": {"x-kubernetes-validations": [{"rule": "true"}]}}}),
            serde_json::json!({"properties": {"a": {"x-kubernetes-validations": []}}, "items": {"properties": {}}}),
            serde_json::json!({"additionalProperties": {"x-kubernetes-validations": [{"rule": "true"}]}}),
        ] {
            assert_eq!(rule_locations(&schema), rule_locations_by_lookup(&schema), "{schema}");
        }
    }

    #[test]
    fn field_paths_become_pointers() {
        assert_eq!(field_path_to_pointer("spec.items[0].name"), "/spec/items/0/name");
        assert_eq!(field_path_to_pointer(""), "");
        assert_eq!(field_path_to_pointer("[2]"), "/2");
    }

    #[test]
    fn rules_apply_only_where_the_object_has_values() {
        let schema = serde_json::json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self != 'x'"}]}}}}}}}});
        let locations = rule_locations(&schema).expect("every rule is on the walked path");
        assert_eq!(
            locations,
            vec![vec![
                Step::Property("spec".into()),
                Step::Property("items".into()),
                Step::Any,
                Step::Property("name".into())
            ]]
        );
        let applies = |object: Value| locations.iter().any(|l| instantiated(&object, l));
        assert!(!applies(serde_json::json!({"spec": {}})));
        assert!(!applies(serde_json::json!({"spec": {"items": [{"other": 1}]}})));
        assert!(applies(serde_json::json!({"spec": {"items": [{"other": 1}, {"name": "y"}]}})));
        // A rule inside allOf is not on the walked path: every object is then checked.
        let odd = serde_json::json!({"type": "object", "allOf": [{"x-kubernetes-validations": [{"rule": "true"}]}]});
        assert_eq!(rule_locations(&odd), None);
    }

    #[test]
    fn capi_cluster_rules_are_located() {
        let registry = super::super::Registry::embedded();
        for version in ["v1beta1", "v1beta2"] {
            let kind = registry.get(&Gvk::new("cluster.x-k8s.io", version, "Cluster")).unwrap().unwrap();
            let locations = rule_locations(&kind.schema).expect("CAPI's Cluster rules sit under properties and items");
            assert_eq!(locations.len(), 2, "{version}");
            assert!(
                !locations.iter().any(|l| instantiated(&serde_json::json!({"spec": {"topology": {"class": "c"}}}), l))
            );
        }
    }

    #[test]
    fn pointers_fall_back_to_what_exists() {
        let object = serde_json::json!({"spec": {"labels": {"a.b": "x"}}});
        assert_eq!(existing_pointer(&object, "/spec/labels/a/b"), "/spec/labels");
    }
}
