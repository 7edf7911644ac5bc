//! Value provenance: which values file line a rendered field got its value from.
//!
//! The chart is rendered once more with every string and number of its values files replaced by a unique
//! marker (`zzcapz17zz`); the marker found at a finding's field names the values key, whose line the values
//! file's own line index gives. Booleans are kept (they choose what is rendered); when the markers change
//! what is rendered anyway, numbers are kept too, and if that still differs there is no trace.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

use super::HelmProblem;
use super::render::{HelmRender, WrittenAt, helm_template, split_output};
use crate::json_pointer::At;
use crate::json_pointer::leaf_pointers;
use crate::manifest::{Document, SecretValues, parse_value};
use crate::report::Finding;
use crate::source::budget::Budget;

/// Where a value of the rendered objects was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueOrigin {
    /// The values file.
    pub file: PathBuf,
    /// 1-based line of the key in it.
    pub line: usize,
    /// The key, dotted (`controlPlane.networkPluginMode`, `pools[0].name`).
    pub key: String,
    /// Whether the value is a Secret's (findings on it never show it).
    pub secret: bool,
}

/// A render of the chart with markers for values, aligned document by document with the real render.
#[derive(Debug, Clone)]
pub struct ValueTrace {
    /// Documents of the real render (source, `Kind/name`), in order.
    real: Vec<(String, String)>,
    /// The same documents rendered with markers.
    marked: Vec<Document>,
    origins: HashMap<u64, ValueOrigin>,
}

fn marker(id: u64) -> String {
    format!("zzcapz{id}zz")
}

fn marker_pattern() -> Regex {
    Regex::new(r"zzcapz(\d+)zz").expect("valid regex")
}

impl HelmRender {
    /// Renders the chart again with markers in place of the values (see the module doc). Only worth it for
    /// renders with findings.
    pub fn trace_values(&self, budget: &Budget) -> Result<ValueTrace, HelmProblem> {
        let chart = self.request.chart_dir.clone();
        let real: Vec<(String, String)> = self
            .read()
            .documents
            .iter()
            .map(|document| (document.origin.source.to_string(), document.display_name()))
            .collect();
        let mut last_problem = None;
        for mark_numbers in [true, false] {
            let mut origins = HashMap::new();
            let mut files = Vec::new();
            // The chart's own values.yaml gives defaults even when not named; named first, it still gives the same.
            let defaults = chart.join("values.yaml");
            let mut values_files = self.request.values_files.clone();
            if defaults.is_file() && !values_files.contains(&defaults) {
                values_files.insert(0, defaults);
            }
            for file in &values_files {
                let marked =
                    marked_values_file(file, mark_numbers, &mut origins).map_err(|reason| HelmProblem::Tool {
                        chart: chart.clone(),
                        message: format!("values file {} cannot be traced: {reason}", file.display()),
                    })?;
                files.push(marked);
            }
            for inline in &self.request.inline_values {
                let marked = match &inline.written_at {
                    Some((file, lines)) => {
                        let at = Origins { file, lines, secret: inline.secret };
                        marked_values(inline.value.clone(), &at, mark_numbers, &mut origins)
                    }
                    None => write_values(&inline.value),
                };
                files.push(marked.map_err(|reason| HelmProblem::Tool {
                    chart: chart.clone(),
                    message: format!("values of {} cannot be traced: {reason}", inline.label),
                })?);
            }
            let paths: Vec<PathBuf> = files.iter().map(|file| file.path().to_path_buf()).collect();
            let mut request = self.request.clone();
            request.set = marked_assignments(&request.set, &request.set_written_at, mark_numbers, &mut origins);
            request.set_string =
                marked_assignments(&request.set_string, &request.set_written_at, mark_numbers, &mut origins);
            match helm_template(&request, &paths, &["--skip-schema-validation"], budget) {
                Ok(text) => {
                    let marked_render =
                        HelmRender { documents: split_output(&text, &chart), text, request: self.request.clone() };
                    let marked = marked_render.read().documents;
                    let aligned = marked.len() == real.len()
                        && marked
                            .iter()
                            .zip(&real)
                            .all(|(document, (source, _))| document.origin.source.as_ref() == source.as_str());
                    if aligned {
                        return Ok(ValueTrace { real, marked, origins });
                    }
                    last_problem = Some(HelmProblem::Tool {
                        chart: chart.clone(),
                        message: "values cannot be traced: the chart renders other objects when they change".into(),
                    });
                }
                Err(problem) => last_problem = Some(problem),
            }
        }
        Err(last_problem.expect("two attempts made"))
    }
}

impl ValueTrace {
    /// The values file line that the field at `pointer` of object `object` (`Kind/name`) of template `source`
    /// got its value from, when it is one value of a values file (alone or within a longer string).
    pub fn locate(&self, source: &str, object: &str, pointer: &str) -> Option<&ValueOrigin> {
        let index = self.real.iter().position(|(real_source, name)| real_source == source && name == object)?;
        let text = self.marked.get(index)?.value.str_at(pointer)?;
        let ids: Vec<u64> =
            marker_pattern().captures_iter(text).filter_map(|captures| captures[1].parse().ok()).collect();
        match ids.as_slice() {
            [id] => self.origins.get(id),
            _ => None,
        }
    }

    /// How many values were marked (for tests).
    pub fn marked_values(&self) -> usize {
        self.origins.len()
    }
}

/// Writes a copy of the values file `file` with its values replaced by markers, recording their origins.
fn marked_values_file(
    file: &Path,
    mark_numbers: bool,
    origins: &mut HashMap<u64, ValueOrigin>,
) -> Result<tempfile::NamedTempFile, String> {
    let text = std::fs::read_to_string(file).map_err(|err| err.to_string())?;
    let (value, lines) = parse_value(&text, &file.display().to_string()).map_err(|err| err.to_string())?;
    let mut by_pointer = HashMap::new();
    leaf_pointers(&value, &mut String::new(), &mut |leaf| {
        by_pointer.insert(leaf.to_string(), lines.line_of(leaf).unwrap_or(1));
    });
    marked_values(value, &Origins { file, lines: &by_pointer, secret: false }, mark_numbers, origins)
}

/// Where the values being marked were written: a file and the line of each (by JSON pointer).
struct Origins<'a> {
    file: &'a Path,
    lines: &'a HashMap<String, usize>,
    secret: bool,
}

/// Writes `value` with its values replaced by markers, each origin at its line of `at`.
fn marked_values(
    mut value: Value,
    at: &Origins<'_>,
    mark_numbers: bool,
    origins: &mut HashMap<u64, ValueOrigin>,
) -> Result<tempfile::NamedTempFile, String> {
    let mut mark = |pointer: &str, key: &str| {
        let id = 1 + origins.len() as u64;
        let line = at.lines.get(pointer).copied().unwrap_or(1);
        origins.insert(id, ValueOrigin { file: at.file.to_path_buf(), line, key: key.to_string(), secret: at.secret });
        marker(id)
    };
    replace_leaves(&mut value, &mut String::new(), &mut String::new(), mark_numbers, &mut mark);
    write_values(&value)
}

/// `--set` assignments (`key=value`) with the value of each one whose origin is known replaced by a marker; booleans,
/// numbers unless `mark_numbers`, empty values and values helm reads as several (`,`, `{...}`, escapes) stay.
fn marked_assignments(
    assignments: &[String],
    written_at: &HashMap<String, WrittenAt>,
    mark_numbers: bool,
    origins: &mut HashMap<u64, ValueOrigin>,
) -> Vec<String> {
    assignments
        .iter()
        .map(|assignment| {
            let (Some(at), Some((key, value))) = (written_at.get(assignment), assignment.split_once('=')) else {
                return assignment.clone();
            };
            let plain = !value.is_empty()
                && !matches!(value, "true" | "false" | "null")
                && !value.contains([',', '{', '\\'])
                && (mark_numbers || value.parse::<f64>().is_err());
            if !plain {
                return assignment.clone();
            }
            let id = 1 + origins.len() as u64;
            let origin = ValueOrigin { file: at.file.clone(), line: at.line, key: key.to_string(), secret: at.secret };
            origins.insert(id, origin);
            format!("{key}={}", marker(id))
        })
        .collect()
}

/// Writes values to a temporary file for helm's `--values`.
fn write_values(value: &Value) -> Result<tempfile::NamedTempFile, String> {
    let mut out = tempfile::Builder::new()
        .prefix("kubectl-capz-values-")
        .suffix(".yaml")
        .tempfile()
        .map_err(|err| err.to_string())?;
    let json = serde_json::to_string(value).map_err(|err| err.to_string())?;
    out.write_all(json.as_bytes()).map_err(|err| err.to_string())?;
    out.flush().map_err(|err| err.to_string())?;
    Ok(out)
}

fn replace_leaves(
    value: &mut Value,
    pointer: &mut String,
    key: &mut String,
    mark_numbers: bool,
    mark: &mut impl FnMut(&str, &str) -> String,
) {
    match value {
        Value::Object(map) => {
            for (name, child) in map.iter_mut() {
                let (pointer_len, key_len) = (pointer.len(), key.len());
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(name));
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(name);
                replace_leaves(child, pointer, key, mark_numbers, mark);
                pointer.truncate(pointer_len);
                key.truncate(key_len);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter_mut().enumerate() {
                let (pointer_len, key_len) = (pointer.len(), key.len());
                pointer.push_str(&format!("/{index}"));
                key.push_str(&format!("[{index}]"));
                replace_leaves(child, pointer, key, mark_numbers, mark);
                pointer.truncate(pointer_len);
                key.truncate(key_len);
            }
        }
        Value::String(text) if !text.is_empty() => *value = Value::String(mark(pointer, key)),
        Value::Number(_) if mark_numbers => *value = Value::String(mark(pointer, key)),
        _ => {}
    }
}

/// Moves findings on rendered fields whose value came from a values file to that file's line. A render is
/// traced ([`HelmRender::trace_values`]) only when one of its objects has a finding; a render that cannot be
/// traced leaves its findings at the template.
///
/// Findings do not say which render they came from, and renders of one chart (values.yaml and a ci file, the
/// chart itself and an Application of it) share template names and may share object names: the finding goes to
/// the render holding its object; among several, to the one whose value there the message quotes when their
/// values differ, and it stays at the template when that does not decide.
pub fn attribute_values(
    renders: &[HelmRender],
    findings: &mut [Finding],
    budget: &Budget,
    traces: &mut Vec<Option<Option<ValueTrace>>>,
) {
    let documents: Vec<Vec<Document>> = renders.iter().map(|render| render.read().documents).collect();
    traces.resize(renders.len(), None);
    for finding in findings.iter_mut().filter(|finding| !finding.path.is_empty()) {
        let candidates: Vec<(usize, Option<&Value>)> = documents
            .iter()
            .enumerate()
            .filter_map(|(index, objects)| {
                let object = objects.iter().find(|document| {
                    document.origin.source.as_ref() == finding.source && document.display_name() == finding.object
                })?;
                Some((index, object.value.pointer(&finding.path)))
            })
            .collect();
        let Some(chosen) = choose_render(&candidates, &finding.message) else { continue };
        let trace = traces[chosen].get_or_insert_with(|| renders[chosen].trace_values(budget).ok());
        if let Some(origin) =
            trace.as_ref().and_then(|trace| trace.locate(&finding.source, &finding.object, &finding.path))
        {
            finding.source = origin.file.display().to_string();
            finding.line = origin.line;
            let value = candidates.iter().find(|(index, _)| *index == chosen).and_then(|(_, value)| *value);
            if let (true, Some(value)) = (origin.secret, value) {
                let secret = serde_json::json!({"kind": "Secret", "stringData": {"value": value}});
                if let Some(values) = SecretValues::of(&secret) {
                    let name = finding.object.split_once('/').map_or("", |(_, name)| name).to_string();
                    finding.message = values.mask_keeping(&finding.message, false, &[&name]);
                }
            }
        }
    }
}

/// The render a finding came from, among those holding its object (with their value at the finding's field):
/// the only one, or the first when all have the same value there, else the one whose value the message quotes
/// first (messages name the offending value before the allowed ones).
fn choose_render(candidates: &[(usize, Option<&Value>)], message: &str) -> Option<usize> {
    let (first, first_value) = *candidates.first()?;
    if candidates.iter().all(|(_, value)| *value == first_value) {
        return Some(first);
    }
    let position = |value: Option<&Value>| match value {
        Some(Value::String(text)) if !text.is_empty() => message.find(&format!("\"{text}\"")),
        Some(other @ (Value::Number(_) | Value::Bool(_))) => message.find(&other.to_string()),
        _ => None,
    };
    let earliest = candidates.iter().filter_map(|(_, value)| position(*value)).min()?;
    let quoted: Vec<&(usize, Option<&Value>)> =
        candidates.iter().filter(|(_, value)| position(*value) == Some(earliest)).collect();
    match quoted.as_slice() {
        [(index, value), rest @ ..] if rest.iter().all(|(_, other)| other == value) => Some(*index),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_become_markers_with_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("values.yaml");
        std::fs::write(&file, "cluster:\n  name: one\n  enabled: true\n  pools:\n    - size: 3\n      sku: B2s\n")
            .unwrap();
        let mut origins = HashMap::new();
        let marked = marked_values_file(&file, true, &mut origins).unwrap();
        let written: Value = serde_json::from_str(&std::fs::read_to_string(marked.path()).unwrap()).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"cluster": {"name": "zzcapz1zz", "enabled": true, "pools": [{"size": "zzcapz2zz", "sku": "zzcapz3zz"}]}})
        );
        assert_eq!(origins[&1], ValueOrigin { file: file.clone(), line: 2, key: "cluster.name".into(), secret: false });
        assert_eq!(origins[&3], ValueOrigin { file, line: 6, key: "cluster.pools[0].sku".into(), secret: false });
    }

    #[test]
    fn a_finding_goes_to_the_render_whose_value_its_message_quotes() {
        let overlay = serde_json::json!("Overlay");
        let lower = serde_json::json!("overlay");
        let message = "unsupported value \"Overlay\": supported values: \"overlay\"";
        // One render: that one. Same values everywhere: the first.
        assert_eq!(choose_render(&[(3, Some(&overlay))], message), Some(3));
        assert_eq!(choose_render(&[(0, Some(&lower)), (2, Some(&lower))], "required"), Some(0));
        // Different values: the one the message quotes first (the offending value, before the allowed one).
        assert_eq!(choose_render(&[(0, Some(&lower)), (1, Some(&overlay))], message), Some(1));
        assert_eq!(choose_render(&[(0, Some(&overlay)), (1, Some(&lower))], message), Some(0));
        // Nothing decides: no render.
        assert_eq!(choose_render(&[(0, Some(&lower)), (1, Some(&overlay))], "too long"), None);
        assert_eq!(choose_render(&[], message), None);
    }
}
