//! Suppressions written in the repository: a comment `# kubectl-capz: ignore RULE[,RULE] -- reason` on the line a
//! finding is reported at (after every mapping to source lines: a patch, a values file, a template) or in the
//! comment lines right above it, and an annotation `kubectl-capz.io/ignore: RULE[,RULE] [-- reason]` on an object
//! (or on an ASO object embedded in its `spec.resources`). A suppressed finding is kept in the report as
//! suppressed, with the reason, and counts for nothing (not for the exit code, not for the object's verdict). A
//! suppression naming a rule that does not exist, or one that cannot be suppressed, is an error at its line.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::manifest::{Document, READ_RULES};
use crate::report::{Finding, Severity};
use crate::source::{FLUX_SUBSTITUTE_RULE, SOURCE_RULE, UNSUBSTITUTED_RULE};

use super::placeholders::PLACEHOLDER_RULE;

/// The rule id of a suppression that names an unknown rule (or one that cannot be suppressed).
pub const SUPPRESSION_RULE: &str = "invalid-suppression";
/// The annotation that suppresses findings on an object.
pub const IGNORE_ANNOTATION: &str = "kubectl-capz.io/ignore";

/// The rules of repository mode and of suppressions (beside the CAPZ rules, the reader's and the schema checks').
pub const REPOSITORY_RULES: &[(&str, &str)] = &[
    (
        SOURCE_RULE,
        "a source that was not built (a remote base, a plugin, a symlink out of the tree, a tool failure; an info for a chart or path of another repository): its objects are not checked",
    ),
    (
        FLUX_SUBSTITUTE_RULE,
        "a Flux post-build substitution Flux would fail (an error at the Kustomization): nothing of it is checked",
    ),
    (
        UNSUBSTITUTED_RULE,
        "`${VAR}` nothing in the repository substitutes (an info per file): the fields holding them are not checked",
    ),
    (
        PLACEHOLDER_RULE,
        "placeholders (`__NAME__`, `<name>`, `REPLACE_ME`, `changeme`, `your-...`) in an example file (`*.example.*`, `*.sample.*`, `*.tmpl.*`, below `examples/`, `samples/`, `fixtures/`, `testdata/`) no GitOps object applies (an info per file): the fields holding them are not checked",
    ),
    (
        SUPPRESSION_RULE,
        "a `# kubectl-capz: ignore` comment or `kubectl-capz.io/ignore` annotation that names an unknown rule, one that cannot be suppressed, or none",
    ),
];

/// Where a suppression is written and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Suppression {
    /// SARIF's kind of suppression: `inSource` (a comment or annotation in the repository).
    pub kind: &'static str,
    /// The reason written after `--` ("" when none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub justification: String,
    /// `file:line` of the comment or annotation.
    pub at: String,
}

/// A finding a suppression in the repository silences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SuppressedFinding {
    #[serde(flatten)]
    pub finding: Finding,
    pub suppression: Suppression,
}

/// What a rule id names for a suppression.
enum Known {
    Yes,
    /// A rule whose findings cannot be suppressed, and why.
    NotSuppressible(&'static str),
    No(Option<&'static str>),
}

/// Every rule id `validate` reports.
fn rule_ids() -> impl Iterator<Item = &'static str> {
    crate::lint::rules()
        .iter()
        .map(|rule| rule.id)
        .chain(crate::schema::validate::RULES.iter().map(|(id, _)| *id))
        .chain(READ_RULES.iter().map(|(id, _)| *id))
        .chain(REPOSITORY_RULES.iter().map(|(id, _)| *id))
}

fn known(id: &str) -> Known {
    if READ_RULES.iter().any(|(known, _)| *known == id) {
        return Known::NotSuppressible("text that cannot be read into objects is not checked at all");
    }
    if id == SUPPRESSION_RULE {
        return Known::NotSuppressible("a suppression cannot silence its own mistakes");
    }
    if rule_ids().any(|known| known == id) {
        return Known::Yes;
    }
    Known::No(crate::suggest::closest(id, rule_ids()))
}

/// One `ignore` directive: the rules it names (known ones only), the reason, where it is written.
#[derive(Debug, Clone)]
struct Directive {
    rules: Vec<String>,
    reason: String,
    at: String,
}

impl Directive {
    fn suppression(&self) -> Suppression {
        Suppression { kind: "inSource", justification: self.reason.clone(), at: self.at.clone() }
    }
}

/// `RULE[,RULE] [-- reason]`: the rule ids and the reason.
fn parse_rules(text: &str) -> (Vec<String>, String) {
    let (rules, reason) = match text.split_once("--") {
        Some((rules, reason)) => (rules, reason.trim()),
        None => (text, ""),
    };
    let rules = rules.split([',', ' ', '\t']).map(str::trim).filter(|id| !id.is_empty()).map(str::to_string);
    (rules.collect(), reason.to_string())
}

/// The error findings about the rule ids of a directive that do not name a suppressible rule; the ids kept.
fn check_rules(ids: Vec<String>, source: &str, line: usize, what: &str, errors: &mut Vec<Finding>) -> Vec<String> {
    let error = |message: String| Finding {
        rule: SUPPRESSION_RULE.to_string(),
        severity: Severity::Error,
        source: source.to_string(),
        line,
        column: None,
        object: String::new(),
        path: String::new(),
        message,
    };
    if ids.is_empty() {
        errors.push(error(format!(
            "{what} names no rule: write `{what} RULE[,RULE] -- reason` with the rule ids of docs/rules.md"
        )));
    }
    let mut kept = Vec::new();
    for id in ids {
        match known(&id) {
            Known::Yes => kept.push(id),
            Known::NotSuppressible(why) => {
                errors.push(error(format!("{what} names `{id}`, which cannot be suppressed: {why}")));
            }
            Known::No(suggestion) => {
                let hint = match suggestion {
                    Some(known) => format!(" (did you mean `{known}`?)"),
                    None => " (docs/rules.md lists the rules)".to_string(),
                };
                errors.push(error(format!("{what} names an unknown rule `{id}`{hint}: it suppresses nothing")));
            }
        }
    }
    kept
}

/// `# kubectl-capz: ignore ...` in a line (at its start, or after whitespace: a YAML comment).
static COMMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)#\s*kubectl-capz:\s*ignore(?:\s+(.*))?$").expect("suppression comment regex is valid")
});

/// The suppression comments of one file: the directives that apply at each 1-based line.
#[derive(Debug, Default)]
struct FileComments {
    directives: Vec<Directive>,
    /// Line -> the directives (indexes) that apply there: a trailing comment at its own line, a comment line at its
    /// own line and at the first line after the comment lines it is part of.
    at: HashMap<usize, Vec<usize>>,
}

impl FileComments {
    /// Reads the lines of `reader` one at a time (a large file is never held whole; only lines that mention
    /// `kubectl-capz:` are decoded). Bytes that are not UTF-8 are replaced: such a file is a finding of its own.
    fn read(source: &str, mut reader: impl std::io::BufRead, errors: &mut Vec<Finding>) -> Self {
        const MARKER: &[u8] = b"kubectl-capz:";
        let mut comments = FileComments::default();
        // Directives of the comment lines read since the last other line.
        let mut pending: Vec<usize> = Vec::new();
        let mut line = Vec::new();
        let mut number = 0;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => number += 1,
            }
            let comment_only = line.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'#');
            if !comment_only {
                for directive in pending.drain(..) {
                    comments.at.entry(number).or_default().push(directive);
                }
            }
            if !line.windows(MARKER.len()).any(|window| window == MARKER) {
                continue;
            }
            let text = String::from_utf8_lossy(&line);
            let Some(found) = COMMENT.captures(text.trim_end_matches(['\n', '\r'])) else { continue };
            let (ids, reason) = parse_rules(found.get(1).map_or("", |rest| rest.as_str()));
            let rules = check_rules(ids, source, number, "`# kubectl-capz: ignore`", errors);
            comments.directives.push(Directive { rules, reason, at: format!("{source}:{number}") });
            let directive = comments.directives.len() - 1;
            comments.at.entry(number).or_default().push(directive);
            if comment_only {
                pending.push(directive);
            }
        }
        comments
    }

    /// The directive that silences `rule` at `line`: on the line itself, or on the comment lines right above it.
    fn silencing(&self, rule: &str, line: usize) -> Option<&Directive> {
        let directives = self.at.get(&line)?;
        directives.iter().map(|&index| &self.directives[index]).find(|d| d.rules.iter().any(|id| id == rule))
    }
}

/// The suppressions of a run: the annotations of its objects (collected as documents stream by), then the comments
/// of its files (read at the end, once the findings are at their final lines).
#[derive(Debug, Default, Clone)]
pub(crate) struct Suppressions {
    /// (source, `Kind/name`) -> (JSON pointer prefix the annotation covers: "" for the whole object, directive).
    annotations: HashMap<(String, String), Vec<(String, Directive)>>,
    /// Errors about the suppressions themselves.
    errors: Vec<Finding>,
}

impl Suppressions {
    /// Records the `kubectl-capz.io/ignore` annotations of `documents` and of the ASO objects they embed.
    pub(crate) fn add(&mut self, documents: &[Document]) {
        for document in documents {
            let mut found = Vec::new();
            if let Some(text) = annotation(&document.value) {
                found.push((String::new(), text));
            }
            for root in ["/spec/resources", "/spec/template/spec/resources"] {
                if let Some(Value::Array(items)) = document.value.pointer(root) {
                    for (slot, item) in items.iter().enumerate() {
                        if let Some(text) = annotation(item) {
                            found.push((format!("{root}/{slot}"), text));
                        }
                    }
                }
            }
            for (prefix, text) in found {
                let pointer = format!("{prefix}/metadata/annotations/{}", IGNORE_ANNOTATION.replace('/', "~1"));
                let line = document.line_of(&pointer);
                let source = document.origin.source.to_string();
                let (ids, reason) = parse_rules(text);
                let what = format!("the annotation `{IGNORE_ANNOTATION}`");
                let rules = check_rules(ids, &source, line, &what, &mut self.errors);
                let directive = Directive { rules, reason, at: format!("{source}:{line}") };
                let key = (source, document.display_name());
                let entry = self.annotations.entry(key).or_default();
                if !entry.iter().any(|(known, _)| *known == prefix) {
                    entry.push((prefix, directive));
                }
            }
        }
    }

    /// Moves the findings an annotation silences from `findings` to `suppressed` (call it before findings move to
    /// patches or values files: annotations are matched by the object's own file).
    pub(crate) fn apply_annotations(&self, findings: &mut Vec<Finding>, suppressed: &mut Vec<SuppressedFinding>) {
        if self.annotations.is_empty() {
            return;
        }
        let silencing = |finding: &Finding| {
            let directives = self.annotations.get(&(finding.source.clone(), finding.object.clone()))?;
            directives
                .iter()
                .filter(|(prefix, directive)| {
                    (prefix.is_empty() || finding.path == *prefix || finding.path.starts_with(&format!("{prefix}/")))
                        && directive.rules.contains(&finding.rule)
                })
                .max_by_key(|(prefix, _)| prefix.len())
                .map(|(_, directive)| directive.suppression())
        };
        move_silenced(findings, suppressed, silencing);
    }

    /// Reads the suppression comments of `files` (those that are real files), then moves
    /// the findings a comment silences from `findings` to `suppressed`. Returns the errors about suppressions
    /// (annotations' and comments').
    pub(crate) fn apply_comments(
        mut self,
        files: impl IntoIterator<Item = Arc<str>>,
        findings: &mut Vec<Finding>,
        suppressed: &mut Vec<SuppressedFinding>,
    ) -> Vec<Finding> {
        let mut read: BTreeMap<Arc<str>, FileComments> = BTreeMap::new();
        let mut wanted: Vec<Arc<str>> = files.into_iter().collect();
        wanted.extend(findings.iter().map(|finding| Arc::from(finding.source.as_str())));
        wanted.sort();
        wanted.dedup();
        for source in wanted {
            if source.is_empty() || source.starts_with('<') {
                continue;
            }
            // Only a regular file is opened: opening a FIFO would block, and a symlink (one out of the repository is
            // a finding's source too) is not read through.
            if !std::fs::symlink_metadata(source.as_ref()).is_ok_and(|metadata| metadata.is_file()) {
                continue;
            }
            let Ok(file) = std::fs::File::open(source.as_ref()) else { continue };
            let comments = FileComments::read(&source, std::io::BufReader::new(file), &mut self.errors);
            if !comments.directives.is_empty() {
                read.insert(source, comments);
            }
        }
        if !read.is_empty() {
            let silencing = |finding: &Finding| {
                let comments = read.get(finding.source.as_str())?;
                comments.silencing(&finding.rule, finding.line).map(Directive::suppression)
            };
            move_silenced(findings, suppressed, silencing);
        }
        self.errors
    }
}

/// The text of an object's `kubectl-capz.io/ignore` annotation.
fn annotation(object: &Value) -> Option<&str> {
    object.pointer("/metadata/annotations")?.get(IGNORE_ANNOTATION)?.as_str()
}

/// Moves each finding `silencing` gives a suppression for to `suppressed`; never one about a suppression, nor a
/// source not built under `--strict` (an error of `repository-source`): the pull request being checked writes the
/// comments, and the strict gate must not pass because it silenced its own unbuildable input.
fn move_silenced(
    findings: &mut Vec<Finding>,
    suppressed: &mut Vec<SuppressedFinding>,
    silencing: impl Fn(&Finding) -> Option<Suppression>,
) {
    findings.retain(|finding| {
        if finding.rule == SUPPRESSION_RULE || (finding.rule == SOURCE_RULE && finding.severity == Severity::Error) {
            return true;
        }
        match silencing(finding) {
            Some(suppression) => {
                suppressed.push(SuppressedFinding { finding: finding.clone(), suppression });
                false
            }
            None => true,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, line: usize) -> Finding {
        Finding {
            rule: rule.to_string(),
            severity: Severity::Error,
            source: "f.yaml".to_string(),
            line,
            column: None,
            object: "AzureASOManagedControlPlane/c1".to_string(),
            path: "/spec/version".to_string(),
            message: "m".to_string(),
        }
    }

    #[test]
    fn comments_on_the_line_or_in_the_comment_lines_above() {
        let text = "a: 1 # kubectl-capz: ignore schema -- known\n\
                    # kubectl-capz: ignore capz-version-format, cel -- upstream bug\n\
                    # another comment\n\
                    b: 2\n\
                    c: 3\n\
                    #kubectl-capz:ignore schema\n\
                    d: 4 # kubectl-capz: ignore capz-nope,yaml-syntax\n\
                    e: 5 # kubectl-capz: ignore\n\
                    f: '#kubectl-capz: ignore schema'\n";
        let mut errors = Vec::new();
        let comments = FileComments::read("f.yaml", std::io::Cursor::new(text), &mut errors);
        let reason = |rule: &str, line: usize| comments.silencing(rule, line).map(|d| d.reason.as_str());
        assert_eq!(reason("schema", 1), Some("known"));
        assert_eq!(reason("cel", 4), Some("upstream bug"), "through the comment lines right above");
        assert_eq!(reason("capz-version-format", 4), Some("upstream bug"));
        assert_eq!(reason("schema", 4), None, "another rule");
        assert_eq!(reason("cel", 5), None, "not right above");
        assert_eq!(reason("schema", 7), Some(""), "no reason");
        let messages: Vec<(usize, &str)> = errors.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert_eq!(messages[0].0, 7);
        assert!(messages[0].1.contains("unknown rule `capz-nope`"), "{messages:?}");
        assert!(messages[1].1.contains("`yaml-syntax`, which cannot be suppressed"), "{messages:?}");
        assert_eq!(messages[2].0, 8, "a comment naming no rule");
        assert!(messages[2].1.contains("names no rule"), "{messages:?}");
    }

    #[test]
    fn unknown_rules_suggest_the_closest_id() {
        let mut errors = Vec::new();
        let kept = check_rules(vec!["capz-dns-prefx".into(), "schema".into()], "f.yaml", 3, "x", &mut errors);
        assert_eq!(kept, ["schema"]);
        assert!(errors[0].message.contains("(did you mean `capz-dns-prefix`?)"), "{}", errors[0].message);
        assert_eq!((errors[0].severity, errors[0].line), (Severity::Error, 3));
    }

    #[test]
    fn annotations_cover_their_object_or_embedded_object() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedControlPlane\nmetadata:\n  name: c1\n  annotations:\n    kubectl-capz.io/ignore: capz-version-format -- pinned by the platform\nspec:\n  resources:\n  - kind: ManagedCluster\n    metadata:\n      annotations:\n        kubectl-capz.io/ignore: schema\n";
        let documents = crate::manifest::parse_documents(yaml, "f.yaml").unwrap();
        let mut suppressions = Suppressions::default();
        suppressions.add(&documents);
        let mut embedded = finding("schema", 14);
        embedded.path = "/spec/resources/0/spec/location".into();
        let mut outside = finding("schema", 7);
        outside.path = "/spec/version".into();
        let mut findings = vec![finding("capz-version-format", 7), embedded, outside];
        let mut suppressed = Vec::new();
        suppressions.apply_annotations(&mut findings, &mut suppressed);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].path, "/spec/version");
        assert_eq!(suppressed[0].suppression.justification, "pinned by the platform");
        assert_eq!(suppressed[0].suppression.at, "f.yaml:6");
        assert_eq!(suppressed[1].suppression.at, "f.yaml:12");
    }
}
