//! `${VAR}` (and clusterctl's bare `$VAR`) left in objects that nothing substitutes: the fields holding them are not
//! checked (their value is not known yet), and each file gets one info finding naming the variables and how to give
//! them values.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::flux::variables_in;
use crate::manifest::Document;
use crate::report::{Finding, Severity};

/// The rule id of the info finding.
pub const UNSUBSTITUTED_RULE: &str = "unsubstituted-variables";

/// Fields holding `${...}`, by object, and the variables of each file.
#[derive(Debug, Default)]
pub struct VariableFields {
    /// (source, `Kind/name`) -> pointers of fields whose value (or key) holds `${`.
    fields: HashMap<(String, String), HashSet<String>>,
    /// source -> (first line, variables as written: `${NAME}` or `$NAME`).
    by_source: BTreeMap<String, (usize, BTreeSet<String>)>,
}

impl VariableFields {
    /// Records the fields of `documents` that hold `${...}`.
    pub fn add(&mut self, documents: &[Document]) {
        for document in documents {
            let mut pointers = Vec::new();
            holding_variables(&document.value, &mut String::new(), &mut pointers);
            if document.group() == crate::source::argo::ARGO_GROUP {
                // Argo CD substitutes its own `$ARGOCD_APP_*` variables into kustomize options.
                pointers.retain(|(pointer, _)| !pointer.contains("/kustomize/"));
            }
            if pointers.is_empty() {
                continue;
            }
            let source = document.origin.source.to_string();
            let entry = self.by_source.entry(source.clone()).or_insert((usize::MAX, BTreeSet::new()));
            for (pointer, text) in &pointers {
                entry.0 = entry.0.min(document.line_of(pointer));
                entry.1.extend(variables_in(text).into_iter().map(|name| format!("${{{name}}}")));
                entry.1.extend(bare_variables_in(text).into_iter().map(|name| format!("${name}")));
            }
            self.fields
                .entry((source, document.display_name()))
                .or_default()
                .extend(pointers.into_iter().map(|(pointer, _)| pointer));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_source.is_empty()
    }

    /// Drops the findings about fields that hold a variable (at or below them), or whose message shows one.
    pub fn suppress(&self, findings: &mut Vec<Finding>) {
        if self.fields.is_empty() {
            return;
        }
        findings.retain(|finding| {
            let Some(pointers) = self.fields.get(&(finding.source.clone(), finding.object.clone())) else {
                return true;
            };
            if finding.message.contains("${") || !bare_variables_in(&finding.message).is_empty() {
                return false;
            }
            !pointers.iter().any(|pointer| {
                finding.path == *pointer
                    || (finding.path.starts_with(pointer.as_str()) && finding.path[pointer.len()..].starts_with('/'))
            })
        });
    }

    /// One info finding per file: its variables and how to provide them.
    pub fn notes(&self) -> Vec<Finding> {
        self.by_source
            .iter()
            .filter(|(_, (_, names))| !names.is_empty())
            .map(|(source, (line, names))| {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                Finding {
                    rule: UNSUBSTITUTED_RULE.to_string(),
                    severity: Severity::Info,
                    source: source.clone(),
                    line: *line,
                    column: None,
                    object: String::new(),
                    path: String::new(),
                    message: format!(
                        "{} {} not substituted by any Flux Kustomization of this repository, so the fields holding \
                         {} are not checked; give values with `kubectl capz render --from FILE` (clusterctl \
                         variables) or a Flux Kustomization's postBuild.substitute / substituteFrom",
                        names.join(", "),
                        if names.len() == 1 { "is" } else { "are" },
                        if names.len() == 1 { "it" } else { "them" },
                    ),
                }
            })
            .collect()
    }
}

/// Whether `text` holds a variable: `${...}`, or a bare `$NAME` of clusterctl's templates (see [`bare_variables_in`]).
/// A multi-line value is a script or a document of its own (a ConfigMap's shell script with `${HOSTNAME}`, a k6
/// test with `${__ENV.URL}`): its `${...}` are the script's, not a template's.
fn holds_variable(text: &str) -> bool {
    !text.trim_end().contains('\n') && (text.contains("${") || !bare_variables_in(text).is_empty())
}

/// The bare `$NAME` variables of a one-word value (`namespace: $AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE`,
/// `name: $CLUSTER_NAME-md-0`): clusterctl's envsubst (drone/envsubst) fills them as it fills `${NAME}`, Flux's fork
/// does not. Only upper-case names in values without whitespace count, so a shell script in a ConfigMap (`$PATH`,
/// `$1`) or a password hash (`$2a$10$...`) is not taken for a template.
fn bare_variables_in(text: &str) -> Vec<String> {
    static BARE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$([A-Z_][A-Z0-9_]*)").expect("bare variable regex is valid"));
    if text.chars().any(char::is_whitespace) {
        return Vec::new();
    }
    let mut names: Vec<String> = BARE
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|name| name.len() > 1 && name.chars().any(|c| c.is_ascii_uppercase()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Pointers (and texts) of the strings and keys of `value` that hold a variable.
fn holding_variables(value: &Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    let len = pointer.len();
    match value {
        Value::String(text) if holds_variable(text) => out.push((pointer.clone(), text.clone())),
        Value::Object(map) => {
            for (key, child) in map {
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                if holds_variable(key) {
                    out.push((pointer.clone(), key.clone()));
                }
                holding_variables(child, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                holding_variables(child, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}
