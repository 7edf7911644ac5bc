//! Whole files through the conversion: documents split at `---`, each object converted, the
//! references of one run followed, and the text rewritten in place with [`super::edit`]. Files
//! that are not YAML (Helm-like templates) and Kustomize patches are reported and left alone.

use std::collections::BTreeSet;

use serde_json::Value;

use super::edit::edit_document;
use super::served::not_served;
use super::{Conversion, ConvertError, ConvertedTemplate, Mode, convert_object, follow_references};
use crate::manifest::{self, Document};

/// One input file's text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path as given (or `<stdin>`).
    pub name: String,
    pub text: String,
    /// Named as a patch by a kustomization.yaml next to it.
    pub kustomize_patch: bool,
    /// The bytes are not UTF-8 (`text` is empty).
    pub not_utf8: bool,
}

/// What happened to one file.
#[derive(Debug, Clone, Default)]
pub struct FileOutcome {
    pub name: String,
    /// The converted text, when it differs from the source.
    pub converted: Option<String>,
    /// Why the whole file was left alone, if it was.
    pub left_alone: Option<LeftAlone>,
    pub notes: Vec<Note>,
}

/// Why a whole file is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftAlone {
    /// Not YAML (a Helm-like template).
    NotYaml,
    /// Named as a patch by a kustomization.yaml.
    KustomizePatch,
    /// A `kind: List` or a document the splitter cannot place.
    Unsplittable,
    /// A kustomization.yaml itself (not an object).
    Kustomization,
}

impl FileOutcome {
    /// The file's text after the run (the source when nothing changed or it was left alone).
    pub fn text<'a>(&'a self, source: &'a SourceFile) -> &'a str {
        self.converted.as_deref().unwrap_or(&source.text)
    }
}

/// A message about a file, at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// What the conversion decided (`convert --aso`: the version an object moves to, and why).
    Note,
    /// The conversion dropped something or could not keep the formatting.
    Warning,
    /// The file (or a document) was left alone: a template, a patch, a List.
    Skipped,
    /// The object is in an API version the management cluster no longer serves: it cannot be
    /// converted offline; the file is left alone.
    NotServed,
    /// The object cannot be converted (CAPI would reject it); the file is left alone.
    Error,
}

/// One `---`-separated chunk of a file.
struct Chunk {
    /// The separator line (`---`, `--- # comment`), if the chunk has one.
    separator: Option<String>,
    /// 1-based line of the chunk's first content line.
    first_line: usize,
    text: String,
    /// The object read from it, if any.
    document: Option<Document>,
    /// The converted value, when the conversion or the reference pass changed it.
    new_value: Option<Value>,
}

fn split_chunks(text: &str) -> Vec<Chunk> {
    let mut chunks =
        vec![Chunk { separator: None, first_line: 1, text: String::new(), document: None, new_value: None }];
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let is_separator = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        if is_separator {
            chunks.push(Chunk {
                separator: Some(line.to_string()),
                first_line: index + 2,
                text: String::new(),
                document: None,
                new_value: None,
            });
        } else {
            chunks.last_mut().expect("one chunk at least").text.push_str(line);
        }
    }
    chunks
}

/// A file read into chunks, or why it is left alone.
enum Read {
    Chunks(Vec<Chunk>),
    Skipped(LeftAlone, Option<Note>),
}

fn read(file: &SourceFile) -> Read {
    let skipped = |why: LeftAlone, line: usize, message: String| {
        Read::Skipped(why, Some(Note { line, severity: Severity::Skipped, message }))
    };
    if file.not_utf8 {
        return skipped(LeftAlone::NotYaml, 1, "not UTF-8 text, left alone".into());
    }
    if let Err(err) = manifest::parse_plain_documents(&file.text, &file.name) {
        let template = if file.text.contains("{{") { " (a template?)" } else { "" };
        let (line, what) = match &err {
            manifest::ManifestError::Syntax { line, message, .. } => (*line, format!("not YAML{template}: {message}")),
            manifest::ManifestError::NotAnObject { location, message } => {
                let line = location.rsplit(':').next().and_then(|l| l.parse().ok()).unwrap_or(1);
                (line, format!("not Kubernetes objects: {message}"))
            }
            other => (1, format!("not YAML{template}: {other}")),
        };
        return skipped(LeftAlone::NotYaml, line, format!("{what}; left alone"));
    }
    let base_name = file.name.rsplit('/').next().unwrap_or(&file.name);
    if matches!(base_name, "kustomization.yaml" | "kustomization.yml" | "Kustomization") {
        return Read::Skipped(LeftAlone::Kustomization, None);
    }
    if file.kustomize_patch {
        return skipped(
            LeftAlone::KustomizePatch,
            1,
            "a Kustomize patch (named in kustomization.yaml), left alone: convert it by hand".into(),
        );
    }
    let mut chunks = split_chunks(&file.text);
    for chunk in &mut chunks {
        let Ok(mut documents) = manifest::parse_documents(&chunk.text, &file.name) else {
            return skipped(
                LeftAlone::Unsplittable,
                chunk.first_line,
                "a document this tool cannot split, left alone".into(),
            );
        };
        match documents.len() {
            0 => {}
            1 => chunk.document = documents.pop(),
            _ => {
                return skipped(
                    LeftAlone::Unsplittable,
                    chunk.first_line,
                    "a List, left alone: convert its items one by one".into(),
                );
            }
        }
    }
    Read::Chunks(chunks)
}

/// Whether a document is a full object (not a patch: it has apiVersion, kind and a name).
fn is_full_object(document: &Document) -> bool {
    !document.api_version().is_empty() && !document.kind().is_empty() && !document.name().is_empty()
}

/// Converts every file of one run as `mode` says.
pub fn convert_files(files: &[SourceFile], mode: &Mode<'_>) -> Vec<FileOutcome> {
    let mut outcomes: Vec<FileOutcome> =
        files.iter().map(|f| FileOutcome { name: f.name.clone(), ..FileOutcome::default() }).collect();
    let mut read_files: Vec<Option<Vec<Chunk>>> = Vec::new();
    for (file, outcome) in files.iter().zip(&mut outcomes) {
        match read(file) {
            Read::Chunks(chunks) => read_files.push(Some(chunks)),
            Read::Skipped(why, note) => {
                outcome.left_alone = Some(why);
                outcome.notes.extend(note);
                read_files.push(None);
            }
        }
    }
    // Pass 1: every object on its own, exactly as CAPI and CAPZ convert it.
    let mut templates = Vec::new();
    for (chunks, outcome) in read_files.iter_mut().zip(&mut outcomes) {
        let Some(chunks) = chunks else { continue };
        convert_chunks(chunks, mode, outcome, &mut templates);
    }
    // Pass 2: references follow the objects of this run; then the text.
    for ((chunks, outcome), file) in read_files.iter_mut().zip(&mut outcomes).zip(files) {
        let Some(chunks) = chunks else { continue };
        follow_and_rewrite(file, chunks, outcome, &templates, matches!(mode, Mode::Capi(_)));
    }
    for outcome in &mut outcomes {
        outcome.notes.sort_by_key(|note| note.line);
    }
    outcomes
}

/// Pass 1 for one file: each full object converted on its own, exactly as CAPI and CAPZ convert it (warnings
/// noted, its templates added to `templates`); a file with an object that fails or is not served is left alone.
fn convert_chunks(
    chunks: &mut [Chunk],
    mode: &Mode<'_>,
    outcome: &mut FileOutcome,
    templates: &mut Vec<ConvertedTemplate>,
) {
    let convert = |value: &Value| -> Result<Option<Conversion>, ConvertError> {
        match mode {
            Mode::Capi(target) => convert_object(value, *target),
            Mode::Aso(plan) => super::aso::convert_document(value, plan),
        }
    };
    let mut failed = false;
    for chunk in chunks.iter_mut() {
        let Some(document) = &chunk.document else { continue };
        let line = |pointer: &str| chunk.first_line + document.line_of(pointer) - 1;
        if !is_full_object(document) {
            let converts = convert(&document.value).ok().flatten().is_some()
                || (matches!(mode, Mode::Capi(_))
                    && (document.api_version().ends_with("/v1beta1") || document.api_version().ends_with("/v1alpha1")));
            if converts || document.value.get("apiVersion").is_none() {
                outcome.notes.push(Note {
                    line: line(""),
                    severity: Severity::Skipped,
                    message: "not a full object (no apiVersion, kind or name: a Kustomize patch?), left alone".into(),
                });
            }
            continue;
        }
        match convert(&document.value) {
            Ok(Some(conversion)) => {
                for note in &conversion.notes {
                    outcome.notes.push(Note {
                        line: line(&note.pointer),
                        severity: Severity::Note,
                        message: format!("{}: {}", document.display_name(), note.message),
                    });
                }
                for warning in &conversion.warnings {
                    outcome.notes.push(Note {
                        line: line(&warning.pointer),
                        severity: Severity::Warning,
                        message: format!(
                            "{}: {}: {}",
                            document.display_name(),
                            field_path(&warning.pointer),
                            warning.message
                        ),
                    });
                }
                templates.extend(ConvertedTemplate::of(&document.value, &conversion.value));
                chunk.new_value = Some(conversion.value);
            }
            Ok(None) => {
                if let Mode::Capi(_) = mode
                    && let Some(message) = not_served(document.api_version(), document.kind())
                {
                    failed = true;
                    outcome.notes.push(Note {
                        line: line("/apiVersion"),
                        severity: Severity::NotServed,
                        message: format!("{}: {message}; file left alone", document.display_name()),
                    });
                }
            }
            Err(err) => {
                failed = true;
                outcome.notes.push(Note {
                    line: line(&err.pointer),
                    severity: Severity::Error,
                    message: format!(
                        "{}: {}: {}; file left alone",
                        document.display_name(),
                        field_path(&err.pointer),
                        err.message
                    ),
                });
            }
        }
    }
    if failed {
        for chunk in chunks.iter_mut() {
            chunk.new_value = None;
        }
    }
}

/// Pass 2 for one file that converted: references follow the objects of this run (`templates`); then the text
/// of a changed file is rewritten.
fn follow_and_rewrite(
    file: &SourceFile,
    chunks: &mut [Chunk],
    outcome: &mut FileOutcome,
    templates: &[ConvertedTemplate],
    follow: bool,
) {
    if outcome.notes.iter().any(|n| matches!(n.severity, Severity::Error | Severity::NotServed)) {
        return;
    }
    for chunk in chunks.iter_mut().filter(|_| follow) {
        let Some(document) = chunk.document.as_ref().filter(|d| is_full_object(d)) else { continue };
        let mut value = chunk.new_value.clone().unwrap_or_else(|| document.value.clone());
        let (followed, warnings) = follow_references(&mut value, templates);
        for warning in warnings {
            outcome.notes.push(Note {
                line: chunk.first_line + document.line_of(&warning.pointer) - 1,
                severity: Severity::Warning,
                message: format!("{}: {}: {}", document.display_name(), field_path(&warning.pointer), warning.message),
            });
        }
        if followed || chunk.new_value.is_some() {
            chunk.new_value = Some(value);
        }
    }
    let changed =
        chunks.iter().any(|c| c.new_value.as_ref().is_some_and(|v| c.document.as_ref().is_some_and(|d| d.value != *v)));
    if !changed {
        return;
    }
    let text = rewrite(file, chunks, outcome);
    if text != file.text {
        outcome.converted = Some(text);
    }
}

/// The file's text with every changed document edited in place.
fn rewrite(file: &SourceFile, chunks: &[Chunk], outcome: &mut FileOutcome) -> String {
    let json = file.name.ends_with(".json") || file.text.trim_start().starts_with('{');
    let mut out = String::new();
    for chunk in chunks {
        if let Some(separator) = &chunk.separator {
            out.push_str(separator);
        }
        let (Some(document), Some(new)) = (&chunk.document, &chunk.new_value) else {
            out.push_str(&chunk.text);
            continue;
        };
        if document.value == *new {
            out.push_str(&chunk.text);
            continue;
        }
        if json {
            out.push_str(&serde_json::to_string_pretty(new).expect("JSON values serialize"));
            out.push('\n');
            continue;
        }
        match edit_document(&chunk.text, &document.value, new) {
            Ok(text) => out.push_str(&text),
            Err(err) => {
                outcome.notes.push(Note {
                    line: chunk.first_line + err.line - 1,
                    severity: Severity::Warning,
                    message: format!("{}: {err}; the document is written fresh", document.display_name()),
                });
                out.push_str(&manifest::to_yaml(new));
            }
        }
    }
    out
}

/// A JSON pointer as a dotted field path (`/spec/topology/variables/0/value` →
/// `spec.topology.variables[0].value`).
pub fn field_path(pointer: &str) -> String {
    let mut out = String::new();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.parse::<usize>().is_ok() {
            out.push_str(&format!("[{token}]"));
        } else if token.contains('.') || token.contains('/') {
            out.push_str(&format!("[{token:?}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    if out.is_empty() { "(object)".into() } else { out }
}

/// The files a kustomization.yaml in `dir` names as patches (`patchesStrategicMerge`,
/// `patches[].path`, `patchesJson6902[].path`), as paths joined to `dir`.
pub fn kustomize_patches(dir: &std::path::Path) -> BTreeSet<std::path::PathBuf> {
    let mut out = BTreeSet::new();
    for name in ["kustomization.yaml", "kustomization.yml", "Kustomization"] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else { continue };
        let Ok(values) = manifest::parse_plain_documents(&text, name) else { continue };
        for document in values {
            let value = &document.value;
            let strategic = value.get("patchesStrategicMerge").and_then(Value::as_array).into_iter().flatten();
            out.extend(strategic.filter_map(Value::as_str).map(|p| dir.join(p)));
            for key in ["patches", "patchesJson6902"] {
                let entries = value.get(key).and_then(Value::as_array).into_iter().flatten();
                out.extend(entries.filter_map(|e| e.get("path")).filter_map(Value::as_str).map(|p| dir.join(p)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_read_like_kubectl_explain() {
        assert_eq!(field_path("/spec/topology/variables/0/value"), "spec.topology.variables[0].value");
        assert_eq!(field_path("/metadata/annotations/a.b~1c"), "metadata.annotations[\"a.b/c\"]");
        assert_eq!(field_path(""), "(object)");
    }
}
