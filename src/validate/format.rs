//! A report as text (one finding a line, the summary line) and as JUnit XML. Everything that came from the input
//! (file names, object names, field paths, messages) goes through [`crate::escape`]: one finding is one line, and no
//! line can be read as a CI workflow command or carry a terminal escape.

use std::io::Write;

use crate::escape;
use crate::report::{Finding, Severity};
use crate::schema::ObjectStatus;

use super::report::{Report, ResourceResult, Summary};

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
        Severity::NotChecked => "not-checked",
    }
}

/// `file:line[:column]`, the place of a finding.
fn location(f: &Finding) -> String {
    let mut out = String::new();
    push_location(&mut out, f);
    out
}

/// [`location`] appended to `out` (it starts the lines of the text format).
fn push_location(out: &mut String, f: &Finding) {
    use std::fmt::Write as _;
    escape::push_line_start(out, &f.source);
    // Writing to a String cannot fail.
    let _ = write!(out, ":{}", f.line);
    if let Some(column) = f.column {
        let _ = write!(out, ":{column}");
    }
}

/// `file:line: severity: Kind/name: /json/path: message [rule]`, one finding per line (without
/// the object and path for text that could not be read into an object).
pub(crate) fn format_text(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        push_text_line(&mut out, f);
    }
    out
}

/// One finding as [`format_text`] prints it, appended to `out` piece by piece (a `format!` per line and per piece
/// cost a tenth of the main thread's work when validating 1000 clusters).
fn push_text_line(out: &mut String, f: &Finding) {
    push_location(out, f);
    out.push_str(": ");
    out.push_str(severity_name(f.severity));
    out.push_str(": ");
    for part in [&f.object, &f.path] {
        if !part.is_empty() {
            escape::push_one_line(out, part);
            out.push_str(": ");
        }
    }
    escape::push_one_line(out, &f.message);
    out.push_str(" [");
    escape::push_one_line(out, &f.rule);
    out.push_str("]\n");
}

/// One finding on one line, as the text report prints it.
pub(crate) fn format_finding(f: &Finding) -> String {
    let mut out = String::new();
    push_text_line(&mut out, f);
    out
}

/// [`format_text`] written line by line (a large report is never held twice).
pub(crate) fn write_text(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    let mut line = String::new();
    for f in &report.findings {
        line.clear();
        push_text_line(&mut line, f);
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// The summary line (stderr).
pub(crate) fn format_summary(summary: &Summary) -> String {
    let not_manifests = match summary.not_manifests {
        Some(1) => "; 1 file is not a manifest".to_string(),
        Some(count) if count > 1 => format!("; {count} files are not manifests"),
        _ => String::new(),
    };
    let suppressed = match summary.suppressed {
        0 => String::new(),
        1 => "; 1 finding suppressed in the repository".to_string(),
        count => format!("; {count} findings suppressed in the repository"),
    };
    format!(
        "{} objects: {} valid, {} invalid, {} skipped ({} errors, {} warnings, {} not checked){suppressed}{not_manifests}\n",
        summary.resources,
        summary.valid,
        summary.invalid,
        summary.skipped,
        summary.errors,
        summary.warnings,
        summary.not_checked
    )
}

/// The line after the summary naming the sources of a repository that were not built (none: `None`).
pub(crate) fn format_not_built(report: &Report) -> Option<String> {
    let not_built = report.not_built.as_deref().filter(|list| !list.is_empty())?;
    const SHOWN: usize = 5;
    let names: Vec<String> =
        not_built.iter().map(|entry| escape::one_line(&entry.what).into_owned()).take(SHOWN).collect();
    let more = not_built.len().saturating_sub(SHOWN);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    let count = match not_built.len() {
        1 => "1 source not built".to_string(),
        n => format!("{n} sources not built"),
    };
    Some(format!("{count}, so what they would apply is not checked: {}{more}\n", names.join(", ")))
}

/// `text` on one line ([`escape::one_line`]: no control character is left, so the XML is well-formed too), with
/// XML's escapes.
fn xml_escape(text: &str) -> String {
    let text = escape::one_line(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one test suite per file, one test case per object, one failure per error finding.
pub(crate) fn format_junit(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"kubectl-capz validate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
        s.resources, s.invalid, s.skipped
    ));
    let mut sources: Vec<&str> = Vec::new();
    for resource in &report.resources {
        if !sources.contains(&resource.source.as_str()) {
            sources.push(&resource.source);
        }
    }
    for source in sources {
        let resources: Vec<&ResourceResult> = report.resources.iter().filter(|r| r.source == source).collect();
        let failures = resources.iter().filter(|r| r.status == ObjectStatus::Invalid).count();
        let skipped = resources.iter().filter(|r| r.status == ObjectStatus::Skipped).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            xml_escape(source),
            resources.len()
        ));
        for resource in &resources {
            let object = if resource.object.is_empty() { "unreadable document" } else { &resource.object };
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{} (line {})\">",
                xml_escape(source),
                xml_escape(object),
                resource.line
            ));
            let errors = &resource.errors;
            match resource.status {
                ObjectStatus::Skipped => out.push_str("\n      <skipped message=\"no schema for this kind\"/>\n    "),
                ObjectStatus::Invalid => {
                    out.push('\n');
                    for f in errors {
                        let path = if f.path.is_empty() { String::new() } else { format!("{}: ", xml_escape(&f.path)) };
                        out.push_str(&format!(
                            "      <failure type=\"{}\" message=\"{}\">{}: {path}{}</failure>\n",
                            xml_escape(&f.rule),
                            xml_escape(&f.message),
                            xml_escape(&location(f)),
                            xml_escape(&f.message)
                        ));
                    }
                    out.push_str("    ");
                }
                ObjectStatus::Valid => {}
            }
            out.push_str("</testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
