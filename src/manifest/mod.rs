//! Multi-document Kubernetes manifests in and out: YAML read as Kubernetes reads it (YAML 1.1),
//! every document and every field traced back to its file:line.

mod budget;
mod direct;
mod emit;
mod files_below;
mod input;
mod line_scalar;
mod lined;
mod parse;
mod problem;
mod scan;
mod secret;
mod stream;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::json_pointer::At;

pub use budget::{FILE_EXPANSION_LIMIT, RUN_EXPANSION_LIMIT, ReadBudget};
pub use emit::{to_yaml, to_yaml_documents};
pub use files_below::FilesBelow;
pub use input::{MAX_INPUT_FILE_BYTES, read_input_file, read_input_stdin};
pub use line_scalar::scalar_of_line;
pub use parse::{
    LineIndex, ReadOutcome, parse_documents, parse_documents_tolerant, parse_documents_tolerant_within,
    parse_plain_documents, parse_plain_value, parse_value,
};
pub use problem::{MAX_DOCUMENT_BYTES, ProblemKind, READ_RULES, ReadProblem};
pub use secret::{SecretMask, SecretValues, is_secret_data_pointer, secret_provenance_values};
pub use stream::{BATCH_BYTES, Batch, DocumentNumbering, Piece, stream_paths, stream_pieces};

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

    /// `apiVersion`, or "" when missing.
    pub fn api_version(&self) -> &str {
        self.value.str_at("/apiVersion").unwrap_or("")
    }
    /// `kind`, or "" when missing.
    pub fn kind(&self) -> &str {
        self.value.str_at("/kind").unwrap_or("")
    }
    /// `metadata.name`, or "" when missing.
    pub fn name(&self) -> &str {
        self.value.str_at("/metadata/name").unwrap_or("")
    }
    /// `metadata.namespace`, if set.
    pub fn namespace(&self) -> Option<&str> {
        self.value.str_at("/metadata/namespace")
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
    /// A document is larger than [`MAX_DOCUMENT_BYTES`].
    #[error("{location}: {message}")]
    TooLarge { location: String, message: String },
}

impl From<ReadProblem> for ManifestError {
    fn from(problem: ReadProblem) -> Self {
        match problem.kind {
            ProblemKind::NotAnObject => ManifestError::NotAnObject {
                location: format!("{}:{}", problem.source, problem.line),
                message: problem.message,
            },
            ProblemKind::TooLarge => ManifestError::TooLarge {
                location: format!("{}:{}", problem.source, problem.line),
                message: problem.message,
            },
            ProblemKind::Syntax | ProblemKind::DuplicateKey => ManifestError::Syntax {
                source_name: problem.source.to_string(),
                line: problem.line,
                column: problem.column,
                message: problem.message,
            },
        }
    }
}

/// Reads every document of the given files, directories (recursively: *.yaml, *.yml, *.json,
/// in sorted order) and `-` (stdin). A `kind: List` is expanded into its items. The first problem
/// in the text is an error.
pub fn read_paths(paths: &[String]) -> Result<Vec<Document>, ManifestError> {
    let outcome = read_paths_tolerant(paths)?;
    match outcome.problems.into_iter().next() {
        Some(problem) => Err(problem.into()),
        None => Ok(outcome.documents),
    }
}

/// Like [`read_paths`], going on after problems in the text (syntax errors, duplicate keys,
/// documents that are not objects, files that are not UTF-8): each is recorded and every other
/// document of every file is still read. Errors are for paths that cannot be read at all.
pub fn read_paths_tolerant(paths: &[String]) -> Result<ReadOutcome, ManifestError> {
    let mut outcome = ReadOutcome::default();
    let mut add = |bytes: Vec<u8>, source_name: &str| match String::from_utf8(bytes) {
        Ok(text) => {
            let read = parse_documents_tolerant(&text, source_name);
            outcome.documents.extend(read.documents);
            outcome.problems.extend(read.problems);
            outcome.sources.extend(read.sources);
        }
        Err(err) => {
            let source: Arc<str> = Arc::from(source_name);
            outcome.problems.push(ReadProblem::not_utf8(&source, err.as_bytes(), &err.utf8_error()));
            outcome.sources.push(source);
        }
    };
    let mut walk = FileWalk::default();
    for path in paths {
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .map_err(|source| ManifestError::Read { path: PathBuf::from("-"), source })?;
            add(bytes, "<stdin>");
            continue;
        }
        for file in walk.files(Path::new(path))? {
            let bytes = std::fs::read(&file).map_err(|source| ManifestError::Read { path: file.clone(), source })?;
            add(bytes, &file.display().to_string());
        }
    }
    Ok(outcome)
}

/// The manifest files below `path` (itself if it is a file), sorted for determinism; each file
/// once, directory loops (symlinks to a parent) walked once.
pub fn manifest_files(path: &Path) -> Result<Vec<PathBuf>, ManifestError> {
    FileWalk::default().files(path)
}

/// A walk over several paths that yields every file and enters every directory once, whatever
/// symlinks lead to them again.
#[derive(Debug, Default)]
struct FileWalk {
    /// Canonical paths of the files and directories met so far.
    seen: std::collections::HashSet<PathBuf>,
}

impl FileWalk {
    /// The files of `path` not yielded before (`path` itself if it is a file).
    fn files(&mut self, path: &Path) -> Result<Vec<PathBuf>, ManifestError> {
        let read_error = |source| ManifestError::Read { path: path.to_path_buf(), source };
        let metadata = std::fs::metadata(path).map_err(read_error)?;
        // A pipe (`validate <(kustomize build)`, `/dev/stdin`) has no canonical path (`/proc/self/fd/N` links to
        // `pipe:[…]`): it is read once under the name it was given.
        let canonical = match std::fs::canonicalize(path) {
            Ok(canonical) => canonical,
            Err(_) if !metadata.is_dir() => path.to_path_buf(),
            Err(source) => return Err(read_error(source)),
        };
        if !self.seen.insert(canonical) {
            return Ok(Vec::new());
        }
        if !metadata.is_dir() {
            return Ok(vec![path.to_path_buf()]);
        }
        let mut files = Vec::new();
        let mut entries: Vec<_> =
            std::fs::read_dir(path).map_err(read_error)?.filter_map(Result::ok).map(|entry| entry.path()).collect();
        entries.sort();
        for entry in entries {
            let is_manifest = matches!(entry.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"));
            // Inside a directory only regular files are read: a FIFO, socket or device there would block or never
            // end (one given by name, such as `<(kustomize build)`, is read above).
            let kind = std::fs::metadata(&entry).map(|metadata| metadata.file_type());
            if kind.as_ref().is_ok_and(|kind| kind.is_dir()) || (is_manifest && kind.is_ok_and(|kind| kind.is_file())) {
                files.extend(self.files(&entry)?);
            }
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";

    #[test]
    fn directory_loops_and_links_are_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.yaml"), CONFIG_MAP).unwrap();
        // A loop back to the root, a second name for the same directory and for the same file.
        std::os::unix::fs::symlink(root, root.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("again")).unwrap();
        std::os::unix::fs::symlink(root.join("sub/a.yaml"), root.join("b.yaml")).unwrap();
        let files = manifest_files(root).unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        let root_text = root.display().to_string();
        let read = read_paths_tolerant(&[root_text.clone(), root_text, root.join("sub/a.yaml").display().to_string()])
            .unwrap();
        assert_eq!(read.documents.len(), 1);
        assert!(read.problems.is_empty());
    }

    #[test]
    fn a_fifo_in_a_directory_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), CONFIG_MAP).unwrap();
        let fifo = dir.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // Opening the FIFO would block this test forever; it is left out of the walk.
        assert_eq!(manifest_files(dir.path()).unwrap(), [dir.path().join("a.yaml")]);
    }

    #[test]
    fn problems_of_one_file_leave_the_rest_and_the_strict_reader_reports_the_first() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.yaml"), format!("{CONFIG_MAP}---\nkey: [\n---\n{CONFIG_MAP}")).unwrap();
        std::fs::write(dir.path().join("2.yaml"), b"kind: \xff\n").unwrap();
        std::fs::write(dir.path().join("3.yaml"), CONFIG_MAP).unwrap();
        let path = dir.path().display().to_string();
        let read = read_paths_tolerant(std::slice::from_ref(&path)).unwrap();
        assert_eq!(read.documents.len(), 3);
        let kinds: Vec<(ProblemKind, usize, usize)> =
            read.problems.iter().map(|p| (p.kind, p.line, p.column)).collect();
        assert_eq!(kinds, [(ProblemKind::Syntax, 6, 6), (ProblemKind::Syntax, 1, 7)]);
        assert_eq!(read.sources.len(), 3);
        let err = read_paths(&[path]).unwrap_err().to_string();
        assert!(err.contains("1.yaml:6:6: "), "{err}");
    }

    #[test]
    fn a_document_over_the_limit_is_a_problem_at_its_line_and_the_others_are_read() {
        let big = format!("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: {}\n", "x".repeat(MAX_DOCUMENT_BYTES));
        let text = format!("{CONFIG_MAP}---\n{big}---\n{CONFIG_MAP}");
        let read = parse_documents_tolerant(&text, "big.yaml");
        assert_eq!(read.documents.len(), 2);
        assert_eq!(read.documents[1].origin.line, 11);
        let problems: Vec<(ProblemKind, usize)> = read.problems.iter().map(|p| (p.kind, p.line)).collect();
        assert_eq!(problems, [(ProblemKind::TooLarge, 6)]);
        // Strict readers (migrate, plan, diff) stop there, naming the file, the line and the limit.
        let err = parse_documents(&text, "big.yaml").unwrap_err().to_string();
        assert!(err.starts_with("big.yaml:6: the document is 16.1 MiB of YAML, over the limit of 16 MiB"), "{err}");
    }
}
