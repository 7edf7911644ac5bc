//! What a diff looks like: unified text per object (optionally coloured), structured JSON, and
//! kubectl's LIVE/MERGED file layout for `KUBECTL_EXTERNAL_DIFF`.

use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};

use super::{ObjectDiff, Status};
use crate::manifest::to_yaml;

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// `Kind namespace/name` (or `Kind name`), plus the owning object for `--aso-live` entries.
pub fn header(diff: &ObjectDiff) -> String {
    let o = &diff.object;
    let mut text = match &o.namespace {
        Some(ns) => format!("{} {ns}/{}", o.kind, o.name),
        None => format!("{} {}", o.kind, o.name),
    };
    if let Some(owner) = &diff.aso_owner {
        let _ = write!(text, " (live ASO object of {owner})");
    }
    text
}

/// A unified diff of the YAML of live and merged, with a header; empty when nothing changed.
pub fn unified(diff: &ObjectDiff, color: bool) -> String {
    if diff.status == Status::Unchanged {
        return String::new();
    }
    let (bold, cyan, reset) = if color { (BOLD, CYAN, RESET) } else { ("", "", "") };
    let live = diff.live.as_ref().map(to_yaml).unwrap_or_default();
    let merged = to_yaml(&diff.merged);
    let mut out = String::new();
    // The object's kind and name came from the input: escaped, so that the header cannot be a CI command.
    let _ = writeln!(out, "{bold}{}{reset}", crate::escape::line_start(&header(diff)));
    for line in manager_notes(diff) {
        let _ = writeln!(out, "{cyan}{}{reset}", crate::escape::one_line(&line));
    }
    let name = crate::escape::one_line(&file_name(diff)).into_owned();
    let live_name = if diff.live.is_some() { format!("live/{name}") } else { "/dev/null".to_string() };
    push_unified(&mut out, &live, &merged, &live_name, &format!("merged/{name}"), color);
    out
}

/// Appends the unified diff (3 lines of context) of the texts `old` and `new` under `--- old_name` and
/// `+++ new_name` headers; each line escaped ([`crate::escape::one_line`]: the texts hold repository values).
pub fn push_unified(out: &mut String, old: &str, new: &str, old_name: &str, new_name: &str, color: bool) {
    let (bold, red, green, cyan, reset) = if color { (BOLD, RED, GREEN, CYAN, RESET) } else { ("", "", "", "", "") };
    let _ = writeln!(out, "{bold}--- {old_name}{reset}");
    let _ = writeln!(out, "{bold}+++ {new_name}{reset}");
    let text_diff = TextDiff::from_lines(old, new);
    let mut unified = text_diff.unified_diff();
    unified.context_radius(3);
    for hunk in unified.iter_hunks() {
        let _ = writeln!(out, "{cyan}{}{reset}", hunk.header());
        for change in hunk.iter_changes() {
            let line = crate::escape::one_line(change.value().trim_end_matches('\n'));
            match change.tag() {
                ChangeTag::Delete => {
                    let _ = writeln!(out, "{red}-{line}{reset}");
                }
                ChangeTag::Insert => {
                    let _ = writeln!(out, "{green}+{line}{reset}");
                }
                ChangeTag::Equal => {
                    let _ = writeln!(out, " {line}");
                }
            }
        }
    }
}

/// `# also managed by M: path, path` for each other field manager owning a changed field (an
/// apply for real would take these fields from it); information, not part of the unified diff.
pub fn manager_notes(diff: &ObjectDiff) -> Vec<String> {
    diff.other_managers()
        .iter()
        .map(|manager| {
            let paths: Vec<&str> = diff
                .changes
                .iter()
                .filter(|c| c.managers.contains(manager))
                .map(|c| if c.path.is_empty() { "(object)" } else { c.path.as_str() })
                .collect();
            format!("# also managed by {manager}: {}", paths.join(", "))
        })
        .collect()
}

/// kubectl diff's file name for an object: `[group.]version.Kind.namespace.name`.
pub fn file_name(diff: &ObjectDiff) -> String {
    let o = &diff.object;
    let (group, version) = o.api_version.rsplit_once('/').unwrap_or(("", &o.api_version));
    let group = if group.is_empty() { String::new() } else { format!("{group}.") };
    format!("{group}{version}.{}.{}.{}", o.kind, o.namespace.as_deref().unwrap_or(""), o.name)
}

/// `-o json`: every object with its status and changes (path, before, after).
pub fn json_report(diffs: &[ObjectDiff]) -> Value {
    let objects: Vec<Value> = diffs
        .iter()
        .map(|d| {
            let mut entry = json!({
                "apiVersion": d.object.api_version,
                "kind": d.object.kind,
                "namespace": d.object.namespace,
                "name": d.object.name,
                "status": d.status.as_str(),
                "changes": d.changes,
            });
            if let Some(owner) = &d.aso_owner {
                entry["asoOwner"] = json!(owner);
            }
            let managers = d.other_managers();
            if !managers.is_empty() {
                entry["alsoManagedBy"] = json!(managers);
            }
            entry
        })
        .collect();
    let changed = diffs.iter().filter(|d| d.status != Status::Unchanged).count();
    json!({"changed": changed, "objects": objects})
}

/// Writes each object's normalised live and merged YAML into `live_dir` and `merged_dir` with
/// kubectl's file names (no live file for an object that would be created).
pub fn write_external(diffs: &[ObjectDiff], live_dir: &Path, merged_dir: &Path) -> std::io::Result<()> {
    for diff in diffs {
        let name = file_name(diff);
        if let Some(live) = &diff.live {
            std::fs::write(live_dir.join(&name), to_yaml(live))?;
        }
        std::fs::write(merged_dir.join(&name), to_yaml(&diff.merged))?;
    }
    Ok(())
}

/// `KUBECTL_EXTERNAL_DIFF` as kubectl reads it: split on spaces; the first word is the program,
/// later words are kept only if they match `^[a-zA-Z0-9-=]+$`.
pub fn external_command(value: &str) -> Option<(String, Vec<String>)> {
    let mut words = value.split(' ').filter(|w| !w.is_empty());
    let program = words.next()?.to_string();
    let args = words
        .filter(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '='))
        .map(str::to_string)
        .collect();
    Some((program, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{DiffOptions, ObjectRef, diff_object};

    fn object(ns: Option<&str>) -> ObjectRef {
        ObjectRef {
            api_version: "cluster.x-k8s.io/v1beta1".into(),
            kind: "MachinePool".into(),
            namespace: ns.map(str::to_string),
            name: "p0".into(),
        }
    }

    #[test]
    fn kubectl_file_names() {
        let d = diff_object(
            object(Some("team")),
            None,
            None,
            json!({"kind": "MachinePool"}),
            None,
            &DiffOptions::default(),
        );
        assert_eq!(file_name(&d), "cluster.x-k8s.io.v1beta1.MachinePool.team.p0");
        let mut core = object(None);
        core.api_version = "v1".into();
        core.kind = "Namespace".into();
        let d = diff_object(core, None, None, json!({}), None, &DiffOptions::default());
        assert_eq!(file_name(&d), "v1.Namespace..p0");
    }

    #[test]
    fn external_command_drops_unsafe_arguments() {
        assert_eq!(
            external_command("dyff between --omit-header --set-exit-code"),
            Some(("dyff".into(), vec!["between".into(), "--omit-header".into(), "--set-exit-code".into()]))
        );
        assert_eq!(
            external_command("diff -u -N --label=a;rm /tmp/x"),
            Some(("diff".into(), vec!["-u".into(), "-N".into()]))
        );
        assert_eq!(external_command("  "), None);
    }

    #[test]
    fn unified_text_shows_only_the_changed_line() {
        let live = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
            "metadata": {"name": "p0", "namespace": "team"}, "spec": {"clusterName": "c", "replicas": 2}});
        let mut merged = live.clone();
        merged["spec"]["replicas"] = json!(3);
        let d = diff_object(object(Some("team")), None, Some(live), merged, None, &DiffOptions::default());
        let text = unified(&d, false);
        let changed: Vec<&str> = text
            .lines()
            .filter(|l| (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("--- ") && !l.starts_with("+++ "))
            .collect();
        assert_eq!(changed, ["-  replicas: 2", "+  replicas: 3"]);
        assert!(
            text.starts_with("MachinePool team/p0\n--- live/cluster.x-k8s.io.v1beta1.MachinePool.team.p0\n"),
            "{text}"
        );
        let mut owned = d.clone();
        crate::diff::name_other_managers(
            &mut owned,
            &json!([{"manager": "capz-manager", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
            "kubectl-capz",
        );
        let text = unified(&owned, false);
        assert!(
            text.starts_with("MachinePool team/p0\n# also managed by capz-manager: spec.replicas\n--- live/"),
            "{text}"
        );
        let report = json_report(std::slice::from_ref(&owned));
        assert_eq!(report["objects"][0]["alsoManagedBy"], json!(["capz-manager"]));
        assert_eq!(report["objects"][0]["changes"][0]["managers"], json!(["capz-manager"]));
        let colored = unified(&d, true);
        assert!(colored.contains("\x1b[31m-  replicas: 2\x1b[0m"), "{colored}");
    }
}
