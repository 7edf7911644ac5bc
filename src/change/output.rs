//! What a change review looks like: unified text per object, structured JSON, and a pull-request comment in
//! Markdown (collapsible per cluster, destructive items first).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{Value, json};

use super::compare::{ChangeKind, ObjectChange, ObjectKey};
use crate::manifest::to_yaml;
use crate::report::{Finding, Severity};

/// How many objects the change removes, adds and changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub removed: usize,
    pub added: usize,
    pub changed: usize,
}

impl Counts {
    pub fn of<'a>(changes: impl IntoIterator<Item = &'a ObjectChange>) -> Counts {
        let mut counts = Counts::default();
        for change in changes {
            match change.kind {
                ChangeKind::Removed => counts.removed += 1,
                ChangeKind::Added => counts.added += 1,
                ChangeKind::Changed => counts.changed += 1,
            }
        }
        counts
    }

    /// `1 removed, 2 added, 0 changed`.
    pub fn sentence(&self) -> String {
        format!("{} removed, {} added, {} changed", self.removed, self.added, self.changed)
    }
}

/// kubectl diff's file name for an object: `[group.]version.Kind.namespace.name`.
fn file_name(key: &ObjectKey, api_version: &str) -> String {
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    let group = if key.group.is_empty() { String::new() } else { format!("{}.", key.group) };
    format!("{group}{version}.{}.{}.{}", key.kind, key.namespace.as_deref().unwrap_or(""), key.name)
}

/// Where an object is defined on each side and what applies it, in one line.
fn provenance(change: &ObjectChange) -> String {
    let mut text = String::new();
    if let Some(head) = &change.head {
        let _ = write!(text, "{} ({})", head.at, head.unit);
    }
    if let Some(base) = &change.base {
        let moved = change.head.as_ref().is_none_or(|head| head.at != base.at || head.unit != base.unit);
        if moved {
            let sep = if text.is_empty() { "" } else { "; " };
            let _ = write!(text, "{sep}was {} ({})", base.at, base.unit);
        }
    }
    text
}

/// The header line of one object: `removed: Kind ns/name on CLUSTER, at file:line (unit)`.
pub fn header(change: &ObjectChange) -> String {
    let cluster = if change.key.cluster.is_empty() { String::new() } else { format!(" on {}", change.key.cluster) };
    format!("{}: {}{cluster}, {}", change.kind.as_str(), change.key.display(), provenance(change))
}

/// The unified diff of one object: `base/NAME` against `head/NAME` (`/dev/null` for a side without it).
fn unified_body(out: &mut String, change: &ObjectChange, color: bool) {
    let api_version = change.head.as_ref().or(change.base.as_ref()).map_or("", |side| side.api_version.as_str());
    let name = crate::escape::one_line(&file_name(&change.key, api_version)).into_owned();
    let old = change.base.as_ref().map(|side| to_yaml(&side.value)).unwrap_or_default();
    let new = change.head.as_ref().map(|side| to_yaml(&side.value)).unwrap_or_default();
    let old_name = if change.base.is_some() { format!("base/{name}") } else { "/dev/null".to_string() };
    let new_name = if change.head.is_some() { format!("head/{name}") } else { "/dev/null".to_string() };
    crate::diff::push_unified(out, &old, &new, &old_name, &new_name, color);
}

/// `-o diff`: every object's header and unified diff.
pub fn text(changes: &[ObjectChange], color: bool) -> String {
    let mut out = String::new();
    for change in changes {
        let (bold, reset) = if color { ("\x1b[1m", "\x1b[0m") } else { ("", "") };
        let _ = writeln!(out, "{bold}{}{reset}", crate::escape::line_start(&header(change)));
        unified_body(&mut out, change, color);
    }
    out
}

/// `-o json`: the summary, every object with its sides and changed fields, and the findings about the change.
pub fn json(changes: &[ObjectChange], findings: &[Finding]) -> Value {
    let counts = Counts::of(changes);
    let side = |side: &Option<super::compare::Side>| {
        side.as_ref().map(|s| json!({"at": s.at, "unit": s.unit, "apiVersion": s.api_version}))
    };
    let objects: Vec<Value> = changes
        .iter()
        .map(|change| {
            json!({
                "change": change.kind.as_str(),
                "cluster": change.key.cluster,
                "group": change.key.group,
                "kind": change.key.kind,
                "namespace": change.key.namespace,
                "name": change.key.name,
                "base": side(&change.base),
                "head": side(&change.head),
                "changes": change.changes,
            })
        })
        .collect();
    json!({
        "summary": {"removed": counts.removed, "added": counts.added, "changed": counts.changed},
        "objects": objects,
        "findings": findings,
    })
}

/// Text for Markdown outside code: `<`, `>`, `&` and backticks cannot open HTML or code; one line.
fn inline(text: &str) -> String {
    crate::escape::markdown_inline(text)
}

/// A code fence longer than any run of `~` in `body`, so that no line of it can close the fence.
fn fence(body: &str) -> String {
    let longest =
        body.lines().map(|line| line.trim_start().chars().take_while(|&c| c == '~').count()).max().unwrap_or(0);
    "~".repeat(longest.max(2) + 1)
}

/// `-o markdown`: a pull-request comment. `title` is its first line (what was compared); then the findings about
/// the change, errors first; then one collapsible section per cluster, the objects removed first.
pub fn markdown(changes: &[ObjectChange], findings: &[Finding], title: &str) -> String {
    let counts = Counts::of(changes);
    let mut out = String::new();
    let _ = writeln!(out, "### {}: {}", inline(title), counts.sentence());
    let mut ordered: Vec<&Finding> = findings.iter().collect();
    ordered.sort_by_key(|f| std::cmp::Reverse(f.severity));
    if !ordered.is_empty() {
        let _ = writeln!(out);
    }
    for f in ordered {
        let severity = match f.severity {
            Severity::Error => "**error**",
            Severity::Warning => "**warning**",
            Severity::Info => "info",
            Severity::NotChecked => "not checked",
        };
        let _ = writeln!(
            out,
            "- {severity} `{}:{}` {} ({})",
            inline(&f.source),
            f.line,
            inline(&f.message),
            inline(&f.rule)
        );
    }
    if changes.is_empty() {
        let _ = writeln!(out, "\nNo object changes.");
        return out;
    }
    if counts.removed > 0 {
        let _ = writeln!(
            out,
            "\n**{} removed**: a GitOps controller that prunes deletes them from the cluster (and what they stand \
             for in Azure).",
            counts.removed
        );
    }
    let mut by_cluster: BTreeMap<&str, Vec<&ObjectChange>> = BTreeMap::new();
    for change in changes {
        by_cluster.entry(change.key.cluster.as_str()).or_default().push(change);
    }
    for (cluster, changes) in by_cluster {
        let name = if cluster.is_empty() { "objects whose cluster the repository does not name" } else { cluster };
        let counts = Counts::of(changes.iter().copied());
        let open = if counts.removed > 0 { " open" } else { "" };
        let _ = writeln!(out, "\n<details{open}><summary>{}: {}</summary>\n", inline(name), counts.sentence());
        for change in changes {
            let _ = writeln!(
                out,
                "**{}** `{}` at `{}`\n",
                change.kind.as_str(),
                inline(&change.key.display()),
                inline(&provenance(change))
            );
            let mut body = String::new();
            unified_body(&mut body, change, false);
            let fence = fence(&body);
            let _ = writeln!(out, "{fence}diff\n{body}{fence}\n");
        }
        let _ = writeln!(out, "</details>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_is_longer_than_any_tilde_run_inside() {
        assert_eq!(fence("a\nb"), "~~~");
        // Only a line that starts (after blanks) with tildes can close a fence: a context line of a diff can.
        assert_eq!(fence("  ~~~~ x\n"), "~~~~~");
        assert_eq!(fence("+~~~~~~\n"), "~~~");
    }

    #[test]
    fn inline_text_cannot_open_html_or_code() {
        assert_eq!(inline("a<b>`c`&"), "a&lt;b&gt;'c'&amp;");
    }
}
