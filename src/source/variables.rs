//! `${VAR}` left in objects that nothing substitutes: the fields holding them are not checked (their value is not
//! known yet), and each file gets one info finding naming the variables and how to give them values.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
    /// source -> (first line, variable names).
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
                entry.1.extend(variables_in(text));
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
            if finding.message.contains("${") {
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
                let names: Vec<String> = names.iter().map(|name| format!("${{{name}}}")).collect();
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

/// Pointers (and texts) of the strings and keys of `value` that hold `${`.
fn holding_variables(value: &Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    let len = pointer.len();
    match value {
        Value::String(text) if text.contains("${") => out.push((pointer.clone(), text.clone())),
        Value::Object(map) => {
            for (key, child) in map {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                if key.contains("${") {
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
