//! What can go wrong planning a topology, with the `file:line` of the field at fault.

use crate::manifest::Document;
use crate::topology::admission::pointer_of;
use crate::topology::patches::PatchError;
use crate::topology::variables::VariableError;
use crate::topology::webhooks::{FieldError, v1beta2_path_hint};

/// Errors planning a topology; each names the Cluster or ClusterClass and the field.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("no Cluster with spec.topology among the inputs")]
    NoTopologyCluster,
    #[error("{location}: Cluster {cluster}: ClusterClass {namespace}/{name} not found among the inputs")]
    ClassNotFound { location: String, cluster: String, namespace: String, name: String },
    #[error("ClusterClass {class}: {field}: {kind} {namespace}/{name} not found among the inputs")]
    TemplateNotFound { class: String, field: String, kind: String, namespace: String, name: String },
    #[error("ClusterClass {class}: {field}: {message}")]
    InvalidClass { class: String, field: String, message: String },
    #[error("{location}: Cluster {cluster}: {field}: {message}")]
    InvalidCluster { location: String, cluster: String, field: String, message: String },
    #[error("{location}: Cluster {cluster}: invalid variables:\n{}", errors.iter().map(|(at, e)| format!("  {at}: {e}")).collect::<Vec<_>>().join("\n"))]
    Variables { location: String, cluster: String, errors: Vec<(String, VariableError)> },
    #[error("{location}: {object} is rejected by CAPI's webhook:\n{}", errors.iter().map(|(at, e)| format!("  {at}: {e}{}", v1beta2_path_hint(&e.path))).collect::<Vec<_>>().join("\n"))]
    Rejected { location: String, object: String, errors: Vec<(String, FieldError)> },
    #[error(transparent)]
    Patch(#[from] PatchError),
}

/// The JSON pointer of a variable error's field path (`spec.topology.variables[1].name`).
pub(super) fn field_pointer(error: &VariableError) -> String {
    let path = match error {
        VariableError::Undefined { path, .. }
        | VariableError::Duplicate { path, .. }
        | VariableError::Missing { path, .. }
        | VariableError::Invalid { path, .. }
        | VariableError::BadDefinition { path, .. }
        | VariableError::Lookup { path, .. } => path,
    };
    let mut pointer = String::new();
    for part in path.split('.') {
        let (name, rest) = part.split_once('[').unwrap_or((part, ""));
        pointer.push('/');
        pointer.push_str(&crate::json_pointer::escape_token(name));
        for index in rest.split('[').filter(|i| !i.is_empty()) {
            let index = index.trim_end_matches(']');
            if index.chars().all(|c| c.is_ascii_digit()) {
                pointer.push('/');
                pointer.push_str(index);
            }
        }
    }
    pointer
}

/// `file:line` of a CAPI field path (`spec.variables[name].schema`, `spec.patches[1].name`) in
/// `doc`: `[key]` is the list item with that `name` (or `class`); a field that is not written
/// (a default, a missing reference) points at the nearest one that is.
pub(super) fn locate(doc: &Document, path: &str) -> String {
    doc.location_of(&pointer_of(&doc.value, path))
}
