//! CEL `x-kubernetes-validations` through kube's `cel` feature (kube-cel): rules compiled once per
//! GVK, evaluated on the object as the API server sees it on create (defaults applied, `oldSelf`
//! rules skipped). A rule kube-cel cannot evaluate becomes a "not checked" finding, never a pass.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use kube::core::cel::{CompiledSchema, ErrorKind, RootContext, Validator, compile_schema};
use serde_json::Value;

use super::validate::Issue;
use super::{Gvk, KindSchema};
use crate::report::Severity;

pub(crate) struct CelChecker {
    validator: Validator,
    compiled: RefCell<HashMap<Gvk, Rc<CompiledSchema>>>,
}

impl CelChecker {
    pub(crate) fn new() -> Self {
        CelChecker { validator: Validator::new(), compiled: RefCell::new(HashMap::new()) }
    }

    /// Evaluates every rule of `kind` on `object` (the whole object, at `prefix` in the document).
    pub(crate) fn check(&self, kind: &KindSchema, object: &Value, prefix: &str, out: &mut Vec<Issue>) {
        let gvk = kind.gvk();
        let compiled = self.compiled.borrow().get(&gvk).cloned();
        let compiled = match compiled {
            Some(compiled) => compiled,
            None => {
                let compiled = Rc::new(compile_schema(&kind.schema));
                self.compiled.borrow_mut().insert(gvk.clone(), compiled.clone());
                compiled
            }
        };
        let root = RootContext { api_version: gvk.api_version(), api_group: gvk.group.clone(), kind: gvk.kind.clone() };
        let Err(errors) = self.validator.validate_compiled_with_context(&compiled, object, None, Some(&root)) else {
            return;
        };
        for error in errors.iter() {
            let path = format!("{prefix}{}", existing_pointer(object, &field_path_to_pointer(&error.field_path)));
            let rule = error.rule.trim();
            match error.kind {
                ErrorKind::ValidationFailure | ErrorKind::InvalidResult => {
                    let message = if error.message.is_empty() { format!("failed rule: {rule}") } else { error.message.clone() };
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
            pointer.push_str(&super::meta::escape(name));
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

    #[test]
    fn field_paths_become_pointers() {
        assert_eq!(field_path_to_pointer("spec.items[0].name"), "/spec/items/0/name");
        assert_eq!(field_path_to_pointer(""), "");
        assert_eq!(field_path_to_pointer("[2]"), "/2");
    }

    #[test]
    fn pointers_fall_back_to_what_exists() {
        let object = serde_json::json!({"spec": {"labels": {"a.b": "x"}}});
        assert_eq!(existing_pointer(&object, "/spec/labels/a/b"), "/spec/labels");
    }
}
