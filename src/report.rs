//! Findings of `validate` (schema, CEL and CAPZ rules), shared by every checker and printer.

use serde::Serialize;

/// How serious a finding is. Only `Error` makes `validate` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing (deprecations, migration targets).
    Info,
    /// Probably a mistake, but the API server and CAPZ would accept it.
    Warning,
    /// The API server, CAPZ or Azure would reject it.
    Error,
    /// A check that could not run (e.g. a CEL rule we cannot evaluate): never a silent pass.
    NotChecked,
}

/// One problem found in one object.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    /// Stable id of the rule: `schema`, `cel`, or a CAPZ rule id such as `capz-system-pool`.
    pub rule: String,
    pub severity: Severity,
    /// File (or `<stdin>`, `<rendered ...>`) the object came from.
    pub source: String,
    /// 1-based line of the offending field (or of the document).
    pub line: usize,
    /// 1-based column, where the problem is in the text itself (a YAML syntax error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// `Kind/name` of the object ("" for text that could not be read into an object).
    pub object: String,
    /// JSON pointer of the offending field inside the object (`/spec/resources/0/spec/location`).
    pub path: String,
    /// What is wrong, in one sentence.
    pub message: String,
}
