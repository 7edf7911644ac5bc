//! Placeholders of example files (`subscriptionID: <subscription-id>`, `name: __CLUSTER_NAME__`, `REPLACE_ME`,
//! `changeme`) in files meant to be copied and edited, not applied: files named `*.example.*`, `*.sample.*`,
//! `*.tmpl.*`, or below an `examples/`, `samples/`, `fixtures/` or `testdata/` directory of the repository. Like
//! `${VAR}` that nothing substitutes, the fields holding them are not judged (their value is not known yet) and
//! each file gets one info finding naming them; every other field is judged. Objects a GitOps object of the
//! repository applies (a Flux Kustomization's, an Argo CD Application's) are applied as they are: a placeholder there
//! is judged like any value.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::manifest::Document;
use crate::report::{Finding, Severity};

/// The rule id of the info finding.
pub const PLACEHOLDER_RULE: &str = "example-placeholders";

/// Directories whose files are examples, samples or test inputs (a segment of the path below the repository root).
const EXAMPLE_DIRECTORIES: &[&str] = &["examples", "example", "samples", "sample", "fixtures", "testdata"];
/// File name parts that say a file is an example or a template to fill in (`cluster.example.yaml`).
const EXAMPLE_NAME_PARTS: &[&str] = &["example", "sample", "tmpl"];

/// The placeholder styles of example files: `__NAME__`, `<name>`, `replace_…`/`REPLACE_ME`, `changeme`,
/// `your-…`/`YOUR_…`, and a GUID of x's.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"__[A-Za-z][A-Za-z0-9_]*__\b",
        r"|<[A-Za-z][A-Za-z0-9 _.:/-]*>",
        r"|(?i:\breplace(?:[_-]?me\b|[_-][a-z0-9][a-z0-9_-]*))",
        r"|(?i:\bchange[_-]?me\b)",
        r"|(?i:\byour[_-][a-z0-9][a-z0-9_-]*)",
        r"|(?i:\bx{8}-x{4}-x{4}-x{4}-x{12}\b)",
    ))
    .expect("placeholder regex is valid")
});

/// Whether `source` (a path shown as `root/...`) is an example file of the repository at `root`.
pub(crate) fn is_example_file(source: &str, root: &str) -> bool {
    let relative = match source.strip_prefix(root) {
        Some(rest) if root.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/'),
        _ => return false,
    };
    let mut parts: Vec<&str> = relative.split('/').collect();
    let Some(name) = parts.pop() else { return false };
    parts.iter().any(|dir| EXAMPLE_DIRECTORIES.contains(dir))
        || name.split('.').skip(1).any(|part| EXAMPLE_NAME_PARTS.contains(&part))
}

/// The placeholders in a one-line value (a multi-line value is a script or a document of its own: `<html>`).
fn placeholders_in(text: &str) -> Vec<&str> {
    if text.trim_end().contains('\n') {
        return Vec::new();
    }
    PLACEHOLDER.find_iter(text).map(|found| found.as_str()).collect()
}

/// Fields holding placeholders, by object, and the placeholders of each example file.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    /// (source, `Kind/name`) -> pointers of fields whose value (or key) holds a placeholder.
    fields: HashMap<(String, String), HashSet<String>>,
    /// source -> (first line, placeholders).
    by_source: BTreeMap<String, (usize, BTreeSet<String>)>,
    /// Every placeholder seen, to leave out findings whose message shows one.
    all: BTreeSet<String>,
}

impl Placeholders {
    /// Records the fields of `documents` of example files of the repository at `root` that hold placeholders.
    pub(crate) fn add(&mut self, documents: &[Document], root: &str) {
        for document in documents.iter().filter(|document| is_example_file(&document.origin.source, root)) {
            let mut found = Vec::new();
            holding(&document.value, &mut String::new(), &mut found);
            if found.is_empty() {
                continue;
            }
            let source = document.origin.source.to_string();
            let entry = self.by_source.entry(source.clone()).or_insert((usize::MAX, BTreeSet::new()));
            for (pointer, names) in &found {
                entry.0 = entry.0.min(document.line_of(pointer));
                entry.1.extend(names.iter().cloned());
                self.all.extend(names.iter().cloned());
            }
            self.fields
                .entry((source, document.display_name()))
                .or_default()
                .extend(found.into_iter().map(|(pointer, _)| pointer));
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_source.is_empty()
    }

    /// Drops the findings about fields that hold a placeholder (at or below them), or whose message shows one.
    pub(crate) fn suppress(&self, findings: &mut Vec<Finding>) {
        if self.fields.is_empty() {
            return;
        }
        findings.retain(|finding| {
            let Some(pointers) = self.fields.get(&(finding.source.clone(), finding.object.clone())) else {
                return true;
            };
            // A message about an embedded object starts with its name: that is not the value the finding is about.
            let message = match finding.message.strip_prefix("embedded ") {
                Some(rest) => rest.split_once(": ").map_or(rest, |(_, rest)| rest),
                None => &finding.message,
            };
            if self.all.iter().any(|placeholder| message.contains(placeholder.as_str())) {
                return false;
            }
            !pointers.iter().any(|pointer| {
                finding.path == *pointer
                    || (finding.path.starts_with(pointer.as_str()) && finding.path[pointer.len()..].starts_with('/'))
            })
        });
    }

    /// One info finding per example file: its placeholders, and that the fields holding them are not checked.
    pub(crate) fn notes(&self) -> Vec<Finding> {
        self.by_source
            .iter()
            .map(|(source, (line, names))| {
                let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
                let (are, them) =
                    if names.len() == 1 { ("is a placeholder", "it") } else { ("are placeholders", "them") };
                Finding {
                    rule: PLACEHOLDER_RULE.to_string(),
                    severity: Severity::Info,
                    source: source.clone(),
                    line: *line,
                    column: None,
                    object: String::new(),
                    path: String::new(),
                    message: format!(
                        "{} {are} of an example file (to copy and fill in, not to apply), so the fields holding {them} \
                         are not checked; everything else is. A Flux Kustomization or Argo CD Application that \
                         applies this file gets it checked as it is",
                        names.join(", "),
                    ),
                }
            })
            .collect()
    }
}

/// Pointers (and placeholders) of the strings and keys of `value` that hold a placeholder.
fn holding(value: &Value, pointer: &mut String, out: &mut Vec<(String, Vec<String>)>) {
    let len = pointer.len();
    match value {
        Value::String(text) => {
            let found = placeholders_in(text);
            if !found.is_empty() {
                out.push((pointer.clone(), found.into_iter().map(str::to_string).collect()));
            }
        }
        Value::Object(map) => {
            for (key, child) in map {
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                let found = placeholders_in(key);
                if !found.is_empty() {
                    out.push((pointer.clone(), found.into_iter().map(str::to_string).collect()));
                }
                holding(child, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                holding(child, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_files_by_name_or_directory_below_the_root() {
        for example in [
            "repo/clusters/prod.example.yaml",
            "repo/cluster.sample.yml",
            "repo/aks.tmpl.yaml",
            "repo/examples/aks/cluster.yaml",
            "repo/test/fixtures/cluster.yaml",
            "repo/pkg/testdata/cluster.yaml",
        ] {
            assert!(is_example_file(example, "repo"), "{example}");
        }
        for real in [
            "repo/clusters/prod.yaml",
            "repo/examples.yaml",
            "repo/example-cluster.yaml",
            "repo-examples/cluster.yaml",
            "other/examples/cluster.yaml",
        ] {
            assert!(!is_example_file(real, "repo"), "{real}");
        }
        // The directories above the repository do not count.
        assert!(!is_example_file("tests/fixtures/repos/x/clusters/a.yaml", "tests/fixtures/repos/x"));
        assert!(is_example_file("./examples/a.yaml", "."));
    }

    #[test]
    fn placeholder_styles() {
        for (text, found) in [
            ("__CLUSTER_NAME__", vec!["__CLUSTER_NAME__"]),
            ("__cluster__-pool0", vec!["__cluster__"]),
            ("/subscriptions/<subscription-id>/resourceGroups/<rg>", vec!["<subscription-id>", "<rg>"]),
            ("REPLACE_ME", vec!["REPLACE_ME"]),
            ("replace_x", vec!["replace_x"]),
            ("replace-with-your-tenant", vec!["replace-with-your-tenant"]),
            ("CHANGEME", vec!["CHANGEME"]),
            ("change-me", vec!["change-me"]),
            ("your-subscription-id", vec!["your-subscription-id"]),
            ("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", vec!["xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"]),
        ] {
            assert_eq!(placeholders_in(text), found, "{text}");
        }
        for real in [
            "westeurope",
            "my_cluster",
            "replaced",
            "__init__py",
            "a < b",
            "00000000-0000-0000-0000-000000000000",
            "<html>\n<body>\n",
            "changemeter",
        ] {
            assert!(placeholders_in(real).is_empty(), "{real}: {:?}", placeholders_in(real));
        }
    }
}
