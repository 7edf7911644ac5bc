//! Where a changed value was written, when the object holding it was built from elsewhere: a Helm values file, a
//! Flux `postBuild.substitute` entry, a kustomize patch. A finding about a changed value of a built object points at
//! the object's template; if the one line the change added that sets that value can be found among the lines the
//! change altered in the repository's YAML and JSON files, the finding is better said there.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::manifest::Document;
use crate::report::Finding;

/// Files larger than this are not read for changed lines.
const MAX_FILE: u64 = 1 << 20;
/// At most this many files are compared.
const MAX_FILES: usize = 20_000;

/// The lines a change added or altered, per file of the head (as shown: `head_shown` joined with the file's path
/// below the head's root).
#[derive(Debug, Default)]
pub struct ChangedLines {
    files: BTreeMap<String, Vec<(usize, String)>>,
}

impl ChangedLines {
    /// The YAML and JSON files below `head` (symlinks and `.git` left out) compared with the same paths below
    /// `base`: a file only the head has counts as all added.
    pub fn between(base: &Path, head: &Path, head_shown: &str) -> ChangedLines {
        let mut files = BTreeMap::new();
        let below = crate::manifest::FilesBelow { json: true, max_bytes: MAX_FILE, max_files: MAX_FILES };
        for path in below.list(head) {
            let Ok(relative) = path.strip_prefix(head) else { continue };
            let Ok(new) = std::fs::read_to_string(&path) else { continue };
            let old = read_regular(&base.join(relative)).unwrap_or_default();
            if old == new {
                continue;
            }
            let added: Vec<(usize, String)> = TextDiff::from_lines(&old, &new)
                .iter_all_changes()
                .filter(|change| change.tag() == ChangeTag::Insert)
                .filter_map(|change| Some((change.new_index()? + 1, change.value().to_string())))
                .collect();
            if !added.is_empty() {
                let shown = Path::new(head_shown).join(relative).display().to_string();
                files.insert(shown, added);
            }
        }
        ChangedLines { files }
    }

    /// Whether the change added or altered line `line` of `file`.
    pub fn touches(&self, file: &str, line: usize) -> bool {
        self.files.get(file).is_some_and(|lines| lines.iter().any(|(number, _)| *number == line))
    }

    /// The one added line that sets a scalar to `value` (`key: value`, `- value`, quoted or not), as `(file, line)`;
    /// `None` when no line or more than one does.
    pub fn setting(&self, value: &str) -> Option<(String, usize)> {
        let mut found = None;
        for (file, lines) in &self.files {
            for (number, text) in lines {
                if crate::manifest::scalar_of_line(text).is_some_and(|scalar| scalar == value) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((file.clone(), *number));
                }
            }
        }
        found
    }
}

/// Each finding about a value of a head object (from `documents`) that is not at a line the change touched, moved to
/// the one added line that sets that value, the object's own place kept in the message.
pub fn relocate(findings: &mut [Finding], documents: &[Document], changed: &ChangedLines) {
    for finding in findings.iter_mut() {
        if changed.touches(&finding.source, finding.line) {
            continue;
        }
        // The object itself, or the holder of the embedded object the finding is about, at the finding's line.
        let Some(document) = documents.iter().find(|d| {
            *d.origin.source == *finding.source
                && d.value.pointer(&finding.path).is_some()
                && d.line_of(&finding.path) == finding.line
        }) else {
            continue;
        };
        let value = match document.value.pointer(&finding.path) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            Some(Value::Bool(flag)) => flag.to_string(),
            _ => continue,
        };
        if let Some((file, line)) = changed.setting(&value) {
            finding.message =
                format!("{} (set here for the object built at {}:{})", finding.message, finding.source, finding.line);
            finding.source = file;
            finding.line = line;
        }
    }
}

fn read_regular(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    (meta.file_type().is_file() && meta.len() <= MAX_FILE).then(|| std::fs::read_to_string(path).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_added_line_setting_a_value_is_found() {
        let (base, head) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (root, plugin) in [(base.path(), "azure"), (head.path(), "kubenet")] {
            std::fs::create_dir_all(root.join("chart/templates")).unwrap();
            std::fs::write(root.join("chart/values.yaml"), format!("network:\n  plugin: {plugin}\n")).unwrap();
            std::fs::write(root.join("chart/templates/a.yaml"), "kind: X\n").unwrap();
        }
        let changed = ChangedLines::between(base.path(), head.path(), ".");
        assert_eq!(changed.setting("kubenet"), Some(("./chart/values.yaml".to_string(), 2)));
        assert_eq!(changed.setting("azure"), None);
        assert!(changed.touches("./chart/values.yaml", 2) && !changed.touches("./chart/templates/a.yaml", 1));
        // A second line setting the same value: it is not said which.
        std::fs::write(head.path().join("other.yaml"), "a: kubenet\n").unwrap();
        assert_eq!(ChangedLines::between(base.path(), head.path(), ".").setting("kubenet"), None);
    }
}
