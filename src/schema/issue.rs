//! One problem found at a JSON pointer of an object, before it is tied to a document: what the
//! schema, metadata and CEL checks produce.

use crate::report::Severity;

/// One problem at a JSON pointer, before it is tied to a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue {
    pub rule: &'static str,
    pub severity: Severity,
    pub path: String,
    pub message: String,
}

impl Issue {
    pub(crate) fn new(rule: &'static str, severity: Severity, path: String, message: String) -> Self {
        Issue { rule, severity, path, message }
    }
    pub(crate) fn error(rule: &'static str, path: String, message: String) -> Self {
        Issue::new(rule, Severity::Error, path, message)
    }
}
