//! Built objects traced back to the repository: the document of the source file each one came from (same kind and
//! name), the line of every field that is in that file, and the patch file:line of fields a patch set.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::kustomization::PatchSource;
use super::kustomize::BuiltObject;
use crate::json_pointer::At;
use crate::manifest::{self, Document, LineIndex, Origin};

/// Source files read once each, by repository-relative path.
#[derive(Debug, Default)]
pub struct SourceFiles {
    /// The root as the user gave it (paths are shown joined to it, as plain mode shows them).
    display_root: PathBuf,
    cache: HashMap<String, Arc<Vec<Document>>>,
    /// Files whose text is not all objects (a syntax error, a document that is not an object).
    unreadable: std::collections::HashSet<String>,
    /// What YAML aliases may expand in the run's reads.
    budget: manifest::ReadBudget,
}

impl SourceFiles {
    /// Files below `display_root`, read within the run's `budget`.
    pub fn new(display_root: &Path, budget: &manifest::ReadBudget) -> Self {
        SourceFiles {
            display_root: display_root.to_path_buf(),
            cache: HashMap::new(),
            unreadable: Default::default(),
            budget: budget.clone(),
        }
    }

    /// What YAML aliases may expand in the run's reads.
    pub fn budget(&self) -> &manifest::ReadBudget {
        &self.budget
    }

    /// The root as the user gave it.
    pub fn root(&self) -> &Path {
        &self.display_root
    }

    /// Whether [`SourceFiles::documents`] of `relative` left something out (text that is not objects).
    pub fn is_unreadable(&self, relative: &str) -> bool {
        self.unreadable.contains(relative)
    }

    /// How `relative` is shown in findings.
    pub fn display(&self, relative: &str) -> String {
        if relative.is_empty() {
            return self.display_root.display().to_string();
        }
        self.display_root.join(relative).display().to_string()
    }

    /// The documents of `relative` (none when it cannot be read).
    pub fn documents(&mut self, relative: &str) -> Arc<Vec<Document>> {
        if let Some(documents) = self.cache.get(relative) {
            return documents.clone();
        }
        let shown = self.display(relative);
        let documents = match manifest::read_input_file(self.display_root.join(relative)) {
            Ok(text) => {
                let read = manifest::parse_documents_tolerant_within(&text, &shown, &self.budget);
                if !read.problems.is_empty() {
                    self.unreadable.insert(relative.to_string());
                }
                read.documents
            }
            Err(_) => {
                self.unreadable.insert(relative.to_string());
                Vec::new()
            }
        };
        let documents = Arc::new(documents);
        self.cache.insert(relative.to_string(), documents.clone());
        documents
    }
}

/// A field a patch set: findings at or below `pointer` of `object` are shown at the patch's file:line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchedField {
    pub pointer: String,
    pub source: String,
    pub line: usize,
}

/// The patches of a build, read once.
#[derive(Debug, Default)]
pub struct Patches {
    /// Outermost kustomization's patches first (they are applied last, so they win).
    entries: Vec<PatchEntry>,
}

#[derive(Debug)]
enum PatchEntry {
    /// A strategic-merge patch: an object; `lines` maps its pointers to lines of `source`.
    Merge { source: String, document: Document, line_offset: usize },
    /// JSON 6902 operations: the `path` of each and its line.
    Json { source: String, operations: Vec<(String, usize)> },
}

impl Patches {
    /// Reads `patches` (in application order, innermost kustomization first).
    pub fn read(patches: &[(String, PatchSource)], files: &mut SourceFiles) -> Self {
        let mut entries = Vec::new();
        for (kustomization_file, patch) in patches.iter().rev() {
            let (source, text, line_offset) = match patch {
                PatchSource::File(relative) => {
                    let Ok(text) = manifest::read_input_file(files.display_root.join(relative)) else { continue };
                    (files.display(relative), text, 0)
                }
                PatchSource::Inline { text, line } => (files.display(kustomization_file), text.clone(), *line),
            };
            let read = manifest::parse_documents_tolerant_within(&text, &source, &files.budget);
            if read.documents.is_empty() {
                // A JSON 6902 patch is a list of operations, which the manifest reader does not take as objects.
                if let Ok((Value::Array(operations), lines)) = manifest::parse_value(&text, &source) {
                    let operations = operations
                        .iter()
                        .enumerate()
                        .filter_map(|(i, op)| {
                            let path = op.get("path").and_then(Value::as_str)?;
                            Some((path.to_string(), lines.line_of(&format!("/{i}")).unwrap_or(1) + line_offset))
                        })
                        .collect();
                    entries.push(PatchEntry::Json { source, operations });
                }
                continue;
            }
            for document in read.documents {
                entries.push(PatchEntry::Merge { source: source.clone(), document, line_offset });
            }
        }
        Patches { entries }
    }

    /// The fields of `object` (a built object) that a patch set, with the patch's file:line. JSON 6902 patches are
    /// matched by kind and name only through their target, which the caller does not know: they apply to any object
    /// whose pointers they name.
    /// `in_source` says whether the source document has a field: fields the patch brought (not in the source) are
    /// the patch's whole, with what is missing inside them; fields the source has are the patch's where it set a
    /// value.
    pub fn fields_of(&self, object: &Value, in_source: &dyn Fn(&str) -> bool) -> Vec<PatchedField> {
        let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = object.str_at("/metadata/name").unwrap_or("");
        let mut out: Vec<PatchedField> = Vec::new();
        let taken = |pointer: &str, out: &Vec<PatchedField>| out.iter().any(|f| f.pointer == pointer);
        for entry in &self.entries {
            match entry {
                PatchEntry::Merge { source, document, line_offset } => {
                    let patch_name = document.name();
                    if document.kind() != kind || patch_name.is_empty() || !name.contains(patch_name) {
                        continue;
                    }
                    let mut pointers = Vec::new();
                    all_pointers(&document.value, &mut String::new(), &mut pointers);
                    let pointers = pointers.into_iter().filter(|pointer| {
                        !pointer.is_empty()
                            && (!in_source(pointer)
                                || document.value.pointer(pointer).is_some_and(|v| !v.is_object() && !v.is_array()))
                    });
                    for pointer in pointers {
                        if matches!(
                            pointer.as_str(),
                            "/apiVersion" | "/kind" | "/metadata/name" | "/metadata/namespace"
                        ) || object.pointer(&pointer).is_none()
                            || taken(&pointer, &out)
                        {
                            continue;
                        }
                        let line = document.line_of(&pointer) + line_offset;
                        out.push(PatchedField { pointer, source: source.clone(), line });
                    }
                }
                PatchEntry::Json { source, operations } => {
                    for (pointer, line) in operations {
                        if object.pointer(pointer).is_some() && !taken(pointer, &out) {
                            out.push(PatchedField { pointer: pointer.clone(), source: source.clone(), line: *line });
                        }
                    }
                }
            }
        }
        out
    }
}

/// Every JSON pointer of `value` (itself first).
fn all_pointers(value: &Value, pointer: &mut String, out: &mut Vec<String>) {
    out.push(pointer.clone());
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                all_pointers(child, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                all_pointers(child, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// The source document `value` was built from: same kind and name, else same kind with the name inside the built
/// one (a prefix or suffix added), else the only document of the file.
fn source_document<'a>(documents: &'a [Document], value: &Value) -> Option<&'a Document> {
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    let name = value.str_at("/metadata/name").unwrap_or("");
    documents
        .iter()
        .find(|d| d.kind() == kind && d.name() == name)
        .or_else(|| documents.iter().find(|d| d.kind() == kind && !d.name().is_empty() && name.contains(d.name())))
        .or_else(|| (documents.len() == 1).then(|| &documents[0]))
        .or_else(|| documents.iter().find(|d| d.kind() == kind))
}

/// The line of the generator entry of `kustomization` that made the object named `name` (`name-<hash>`).
fn generator_line(documents: &[Document], name: &str) -> usize {
    let Some(document) = documents.first() else { return 1 };
    for field in ["configMapGenerator", "secretGenerator"] {
        let entries = document.value.get(field).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, entry) in entries.iter().enumerate() {
            let entry_name = entry.get("name").and_then(Value::as_str).unwrap_or("");
            if !entry_name.is_empty() && name.contains(entry_name) {
                return document.line_of(&format!("/{field}/{i}"));
            }
        }
    }
    1
}

/// A built object as a document of its source file: `origin` names the file and the document's line, `lines` the line
/// of every field that is in the source document (the others take their nearest parent's). `fallback` names the
/// object when kustomize did not say where it came from.
pub fn trace(
    object: BuiltObject,
    index: usize,
    files: &mut SourceFiles,
    patches: &Patches,
    fallback: &str,
) -> (Document, Vec<PatchedField>) {
    let value = object.value;
    if let Some(file) = &object.file {
        let documents = files.documents(file);
        if let Some(source) = source_document(&documents, &value) {
            let patched = patches.fields_of(&value, &|pointer| source.value.pointer(pointer).is_some());
            let mut pointers = Vec::new();
            all_pointers(&value, &mut String::new(), &mut pointers);
            let lines: crate::fast_hash::HashMap<String, usize> = pointers
                .into_iter()
                .filter(|pointer| source.value.pointer(pointer).is_some())
                .map(|pointer| {
                    let line = source.line_of(&pointer);
                    (pointer, line)
                })
                .collect();
            let document = Document {
                value,
                origin: Origin {
                    source: source.origin.source.clone(),
                    index: source.origin.index,
                    line: source.origin.line,
                },
                lines: LineIndex::from_pointers(lines),
            };
            return (document, patched);
        }
        let patched = patches.fields_of(&value, &|_| true);
        let shown: Arc<str> = Arc::from(files.display(file));
        return (Document::from_value(value, &shown, index), patched);
    }
    if let Some(kustomization) = &object.configured_in {
        let documents = files.documents(kustomization);
        let name = value.str_at("/metadata/name").unwrap_or("").to_string();
        let line = generator_line(&documents, &name);
        let shown: Arc<str> = Arc::from(files.display(kustomization));
        let mut document = Document::from_value(value, &shown, index);
        document.origin.line = line;
        return (document, Vec::new());
    }
    let shown: Arc<str> = Arc::from(fallback);
    (Document::from_value(value, &shown, index), Vec::new())
}
