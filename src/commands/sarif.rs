//! `validate -o sarif`: the findings as a SARIF 2.1.0 log for code scanning, every rule id with its help, file
//! paths relative to the repository root.

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::manifest::READ_RULES;
use crate::report::{Finding, Severity};
use crate::schema::validate::RULES as SCHEMA_RULES;
use crate::source::{SOURCE_RULE, UNSUBSTITUTED_RULE};
use crate::validate::{PLACEHOLDER_RULE, REPOSITORY_RULES, SuppressedFinding};
use crate::versions::PLUGIN;

/// The base id result locations are relative to (the repository root).
const ROOT_ID: &str = "SRCROOT";

/// SARIF's `level` of a severity. A check that could not run is a warning: never a silent pass.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning | Severity::NotChecked => "warning",
        Severity::Info => "note",
    }
}

/// One `reportingDescriptor` per rule id we report: the reader's, the schema engine's and the CAPZ rules.
fn rule_descriptors() -> Vec<Value> {
    let sentence = |text: &str| format!("{}.", text.trim_end_matches('.'));
    let mut rules = Vec::new();
    for (id, description) in READ_RULES.iter().chain(SCHEMA_RULES).chain(REPOSITORY_RULES) {
        let level = match *id {
            "deprecated-api" | UNSUBSTITUTED_RULE | PLACEHOLDER_RULE => "note",
            SOURCE_RULE => "warning",
            _ => "error",
        };
        rules.push(json!({
            "id": id,
            "shortDescription": {"text": sentence(description)},
            "help": {"text": format!("{} See docs/rules.md.", sentence(description))},
            "defaultConfiguration": {"level": level},
        }));
    }
    for rule in crate::lint::rules() {
        let help = format!(
            "{} Rejected by: {}. Mirrors {}. Turn it {} with --{} {}; see docs/rules.md.",
            sentence(rule.summary),
            rule.rejected_by.describe(),
            rule.mirrors.trim_end_matches('.'),
            if rule.enabled_by_default { "off" } else { "on" },
            if rule.enabled_by_default { "disable" } else { "enable" },
            rule.id
        );
        rules.push(json!({
            "id": rule.id,
            "shortDescription": {"text": sentence(rule.summary)},
            "help": {"text": help},
            "defaultConfiguration": {"level": level(rule.severity), "enabled": rule.enabled_by_default},
        }));
    }
    rules
}

/// The SARIF 2.1.0 log of `findings` and of the `suppressed` ones (results with an `inSource` suppression whose
/// justification is the reason written beside it); file locations relative to `root` (an absolute path).
pub(super) fn sarif_log(findings: &[Finding], suppressed: &[SuppressedFinding], root: &Path) -> Value {
    let mut rules = rule_descriptors();
    let mut results = Vec::with_capacity(findings.len() + suppressed.len());
    let all = findings.iter().map(|finding| (finding, None)).chain(suppressed.iter().map(|s| (&s.finding, Some(s))));
    for (finding, suppression) in all {
        let index = match rules.iter().position(|rule| rule["id"] == finding.rule.as_str()) {
            Some(index) => index,
            None => {
                rules.push(json!({"id": finding.rule, "shortDescription": {"text": finding.rule}}));
                rules.len() - 1
            }
        };
        let mut result = result(finding, index, root);
        if let (Some(suppressed), Value::Object(map)) = (suppression, &mut result) {
            let mut entry = Map::new();
            entry.insert("kind".into(), json!(suppressed.suppression.kind));
            if !suppressed.suppression.justification.is_empty() {
                entry.insert("justification".into(), json!(suppressed.suppression.justification));
            }
            entry.insert("properties".into(), json!({"at": suppressed.suppression.at}));
            map.insert("suppressions".into(), json!([entry]));
        }
        results.push(result);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubectl-capz",
                "version": PLUGIN,
                "semanticVersion": PLUGIN,
                "rules": rules,
            }},
            "originalUriBaseIds": {ROOT_ID: {"uri": directory_uri(root)}},
            "results": results,
        }],
    })
}

/// With several targets: each result of a finding (the first `holds_on.len()`) gets the targets it holds on as the
/// property `targets`.
pub(super) fn add_targets(log: &mut Value, holds_on: &[Vec<&str>]) {
    let Some(Value::Array(results)) = log.pointer_mut("/runs/0/results") else { return };
    for (result, on) in results.iter_mut().zip(holds_on) {
        if let Value::Object(map) = result {
            let properties = map.entry("properties").or_insert_with(|| json!({}));
            properties["targets"] = json!(on);
        }
    }
}

fn result(finding: &Finding, rule_index: usize, root: &Path) -> Value {
    let object = if finding.object.is_empty() { String::new() } else { format!("{}: ", finding.object) };
    let path = if finding.path.is_empty() { String::new() } else { format!("{}: ", finding.path) };
    let mut result = Map::new();
    result.insert("ruleId".into(), json!(finding.rule));
    result.insert("ruleIndex".into(), json!(rule_index));
    result.insert("level".into(), json!(level(finding.severity)));
    result.insert("message".into(), json!({"text": format!("{object}{path}{}", finding.message)}));
    let mut location = Map::new();
    if is_file(&finding.source) {
        let mut region = Map::new();
        region.insert("startLine".into(), json!(finding.line.max(1)));
        if let Some(column) = finding.column {
            region.insert("startColumn".into(), json!(column.max(1)));
        }
        let artifact = match repository_path(&finding.source, root) {
            Some(relative) => json!({"uri": uri_escape(&relative), "uriBaseId": ROOT_ID}),
            None => json!({"uri": file_uri(&absolute(Path::new(&finding.source)))}),
        };
        location.insert("physicalLocation".into(), json!({"artifactLocation": artifact, "region": region}));
    }
    if !finding.object.is_empty() {
        location.insert("logicalLocations".into(), json!([{"fullyQualifiedName": finding.object, "kind": "object"}]));
    }
    if !location.is_empty() {
        result.insert("locations".into(), json!([location]));
    }
    if finding.severity == Severity::NotChecked {
        result.insert("properties".into(), json!({"severity": "not-checked"}));
    }
    Value::Object(result)
}

/// Whether a finding's source names a file (not `<stdin>`, `<rendered>`, ...).
pub(super) fn is_file(source: &str) -> bool {
    !source.is_empty() && !source.starts_with('<')
}

/// `source` relative to `root` with `/` separators, when it is a file below `root`.
pub(super) fn repository_path(source: &str, root: &Path) -> Option<String> {
    if !is_file(source) {
        return None;
    }
    let relative = absolute(Path::new(source)).strip_prefix(root).ok()?.to_path_buf();
    let parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The absolute path of `path` (against the current directory), `.` and `..` resolved lexically.
fn absolute(path: &Path) -> PathBuf {
    let joined = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Percent-encodes what may not stand in a URI path (RFC 3986 unreserved characters and `/` stay).
fn uri_escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(byte as char),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') { text } else { format!("/{text}") };
    format!("file://{}", uri_escape(&text))
}

/// A directory's `file:` URI, ending in `/` as SARIF asks of base URIs.
fn directory_uri(dir: &Path) -> String {
    let uri = file_uri(dir);
    if uri.ends_with('/') { uri } else { format!("{uri}/") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_root_and_escaped() {
        let root = Path::new("/repo");
        assert_eq!(repository_path("/repo/clusters/a b.yaml", root).as_deref(), Some("clusters/a b.yaml"));
        assert_eq!(repository_path("/repo/x/../y.yaml", root).as_deref(), Some("y.yaml"));
        assert_eq!(repository_path("/elsewhere/y.yaml", root), None);
        assert_eq!(repository_path("<stdin>", root), None);
        assert_eq!(uri_escape("clusters/a b#1%.yaml"), "clusters/a%20b%231%25.yaml");
        assert_eq!(directory_uri(Path::new("/repo dir")), "file:///repo%20dir/");
    }

    #[test]
    fn every_rule_has_help_and_unknown_rules_are_added() {
        let finding = Finding {
            rule: "made-up".into(),
            severity: Severity::NotChecked,
            source: "<stdin>".into(),
            line: 0,
            column: None,
            object: "Kind/x".into(),
            path: String::new(),
            message: "m".into(),
        };
        let log = sarif_log(std::slice::from_ref(&finding), &[], Path::new("/repo"));
        let rules = log.pointer("/runs/0/tool/driver/rules").unwrap().as_array().unwrap();
        assert!(rules.len() > 40, "{}", rules.len());
        assert!(rules[..rules.len() - 1].iter().all(|r| r["help"]["text"].as_str().is_some_and(|t| t.len() > 20)));
        let result = log.pointer("/runs/0/results/0").unwrap();
        assert_eq!(result["ruleIndex"], json!(rules.len() - 1));
        assert_eq!(result["level"], "warning");
        assert!(result["locations"][0].get("physicalLocation").is_none());
    }
}
