//! Multi-document Kubernetes manifests in and out: YAML read as Kubernetes reads it (YAML 1.1),
//! every document and every field traced back to its file:line.

mod emit;
mod parse;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

pub use emit::{to_yaml, to_yaml_documents};
pub use parse::{LineIndex, parse_documents, parse_plain_documents, parse_plain_value, parse_value};

/// Where a document came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// File path, `<stdin>`, or a label such as `<rendered aks-aso>`.
    pub source: Arc<str>,
    /// 0-based index of the document within its source.
    pub index: usize,
    /// 1-based line where the document starts.
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.source, self.line)
    }
}

/// One Kubernetes object read from a manifest.
#[derive(Debug, Clone)]
pub struct Document {
    /// The object, as JSON (what the API server sees after YAML 1.1 decoding).
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
    /// Lines of the fields, keyed by JSON pointer (empty for objects that were not parsed).
    pub lines: LineIndex,
}

impl Document {
    /// Wraps a value that was built in memory (rendered, fetched), not read from text.
    pub fn from_value(value: Value, source: &Arc<str>, index: usize) -> Self {
        Document { value, origin: Origin { source: source.clone(), index, line: 1 }, lines: LineIndex::default() }
    }

    fn str_at(&self, pointer: &str) -> Option<&str> {
        self.value.pointer(pointer).and_then(Value::as_str)
    }
    /// `apiVersion`, or "" when missing.
    pub fn api_version(&self) -> &str {
        self.str_at("/apiVersion").unwrap_or("")
    }
    /// `kind`, or "" when missing.
    pub fn kind(&self) -> &str {
        self.str_at("/kind").unwrap_or("")
    }
    /// `metadata.name`, or "" when missing.
    pub fn name(&self) -> &str {
        self.str_at("/metadata/name").unwrap_or("")
    }
    /// `metadata.namespace`, if set.
    pub fn namespace(&self) -> Option<&str> {
        self.str_at("/metadata/namespace")
    }
    /// API group (empty for the core group).
    pub fn group(&self) -> &str {
        split_api_version(self.api_version()).0
    }
    /// API version without the group.
    pub fn version(&self) -> &str {
        split_api_version(self.api_version()).1
    }
    /// `Kind/name`, as used in messages.
    pub fn display_name(&self) -> String {
        format!("{}/{}", self.kind(), self.name())
    }
    /// The 1-based line of the field at `pointer`, or of its nearest parent that has one.
    pub fn line_of(&self, pointer: &str) -> usize {
        self.lines.line_in(&self.value, pointer).unwrap_or(self.origin.line)
    }
    /// `source:line` of the field at `pointer`.
    pub fn location_of(&self, pointer: &str) -> String {
        format!("{}:{}", self.origin.source, self.line_of(pointer))
    }
}

/// Splits `group/version` (or a core `version`) into its parts.
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

/// Errors reading manifests.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// A file or directory could not be read.
    #[error("cannot read `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The text is not valid YAML (or has duplicate keys).
    #[error("{source_name}:{line}:{column}: {message}")]
    Syntax { source_name: String, line: usize, column: usize, message: String },
    /// A document is not a Kubernetes object.
    #[error("{location}: {message}")]
    NotAnObject { location: String, message: String },
}

/// Reads every document of the given files, directories (recursively: *.yaml, *.yml, *.json,
/// in sorted order) and `-` (stdin). A `kind: List` is expanded into its items.
pub fn read_paths(paths: &[String]) -> Result<Vec<Document>, ManifestError> {
    let mut documents = Vec::new();
    for path in paths {
        if path == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|source| ManifestError::Read { path: PathBuf::from("-"), source })?;
            documents.extend(parse_documents(&text, "<stdin>")?);
            continue;
        }
        for file in manifest_files(Path::new(path))? {
            let text =
                std::fs::read_to_string(&file).map_err(|source| ManifestError::Read { path: file.clone(), source })?;
            documents.extend(parse_documents(&text, &file.display().to_string())?);
        }
    }
    Ok(documents)
}

/// The manifest files below `path` (itself if it is a file), sorted for determinism.
pub fn manifest_files(path: &Path) -> Result<Vec<PathBuf>, ManifestError> {
    let metadata =
        std::fs::metadata(path).map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?;
    if !metadata.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            files.extend(manifest_files(&entry)?);
        } else if matches!(entry.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
            files.push(entry);
        }
    }
    Ok(files)
}
