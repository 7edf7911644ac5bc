//! `validate -o github`: one GitHub Actions workflow command per finding (`::error file=...,line=...::message`), so
//! findings show as annotations on the pull request's lines.

use std::path::Path;

use crate::report::{Finding, Severity};

use super::sarif::{is_file, repository_path};

/// The workflow command of one finding, newline-terminated. Paths are relative to `root` (the repository root,
/// absolute), as GitHub resolves them against the checkout.
pub(super) fn workflow_command(finding: &Finding, root: &Path) -> String {
    let command = match finding.severity {
        Severity::Error => "error",
        Severity::Warning | Severity::NotChecked => "warning",
        Severity::Info => "notice",
    };
    let mut properties = Vec::new();
    if is_file(&finding.source) {
        let file = repository_path(&finding.source, root).unwrap_or_else(|| finding.source.clone());
        properties.push(format!("file={}", escape_property(&file)));
        properties.push(format!("line={}", finding.line.max(1)));
        if let Some(column) = finding.column {
            properties.push(format!("col={column}"));
        }
    }
    properties.push(format!("title={}", escape_property(&format!("kubectl-capz {}", finding.rule))));
    let object = if finding.object.is_empty() { String::new() } else { format!("{}: ", finding.object) };
    let path = if finding.path.is_empty() { String::new() } else { format!("{}: ", finding.path) };
    let not_checked = if finding.severity == Severity::NotChecked { "not checked: " } else { "" };
    let message = format!("{not_checked}{object}{path}{}", finding.message);
    format!("::{command} {}::{}\n", properties.join(","), escape_data(&message))
}

/// GitHub's escaping of a command's message (the runner's `UnescapeData`: `%`, `\r`, `\n`), then every other
/// character that must not reach the log raw as [`crate::escape`] writes it (ESC, the other controls, bidirectional
/// overrides).
fn escape_data(text: &str) -> String {
    let encoded = text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    crate::escape::one_line(&encoded).into_owned()
}

/// GitHub's escaping of a property value (the runner's `UnescapeProperty`): the message's, plus `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(severity: Severity, source: &str, column: Option<usize>, message: &str) -> Finding {
        Finding {
            rule: "schema".into(),
            severity,
            source: source.into(),
            line: 7,
            column,
            object: "ManagedCluster/a,b".into(),
            path: "/spec/x".into(),
            message: message.into(),
        }
    }

    #[test]
    fn data_and_properties_are_escaped_as_github_reads_them() {
        let root = Path::new("/repo");
        let line = workflow_command(
            &finding(Severity::Error, "/repo/dir,1/a:b.yaml", Some(3), "100% wrong:\r\nsecond, line"),
            root,
        );
        assert_eq!(
            line,
            "::error file=dir%2C1/a%3Ab.yaml,line=7,col=3,title=kubectl-capz schema::ManagedCluster/a,b: /spec/x: \
             100%25 wrong:%0D%0Asecond, line\n"
        );
        let line = workflow_command(&finding(Severity::NotChecked, "<stdin>", None, "cel"), root);
        assert_eq!(line, "::warning title=kubectl-capz schema::not checked: ManagedCluster/a,b: /spec/x: cel\n");
        let line = workflow_command(
            &finding(Severity::Warning, "/repo/a\u{1b}[2J.yaml", None, "x\u{1b}]0;t\u{7} ##[add-mask]y \u{202e}"),
            root,
        );
        assert_eq!(
            line,
            "::warning file=a\\u{1b}[2J.yaml,line=7,title=kubectl-capz schema::ManagedCluster/a,b: /spec/x: \
             x\\u{1b}]0;t\\u{7} #\\u{23}[add-mask]y \\u{202e}\n"
        );
        let line = workflow_command(&finding(Severity::Info, "/elsewhere/x.yaml", None, "m"), root);
        assert!(line.starts_with("::notice file=/elsewhere/x.yaml,line=7,"), "{line}");
    }
}
