//! What can be wrong with the text of a manifest (YAML syntax, duplicate keys, documents that are
//! not objects), located at file:line:col and said in our words, never the YAML library's.

use std::borrow::Cow;
use std::sync::Arc;

use serde_saphyr::{Error as YamlError, MessageFormatter, UserMessageFormatter};

use super::budget::Exceeded;

/// Which kind of problem: each is its own rule id of `validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// The text is not YAML (or not UTF-8).
    Syntax,
    /// A mapping repeats a key.
    DuplicateKey,
    /// A document is a scalar or a list, not a mapping.
    NotAnObject,
    /// A document is larger than [`MAX_DOCUMENT_BYTES`], or its aliases expand it past the budget of its file or of
    /// the run ([`super::budget`]): it is not read.
    TooLarge,
}

/// The largest YAML document read, in bytes (16 MiB). The API server never stores a bigger object: etcd refuses
/// requests over 1.5 MiB by default (`--max-request-bytes`) and kube-apiserver refuses request bodies over 3 MiB
/// (`MaxRequestBodyBytes`), so 16 MiB leaves more than 5x room for YAML's indentation and comments over the same
/// object as JSON, while bounding what one document can cost us (its JSON values are ~8x its text).
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// `bytes` in MiB for messages (`16 MiB`, `16.5 MiB`).
pub(crate) fn mib(bytes: usize) -> String {
    let tenths = (bytes as u64 * 10).div_ceil(1024 * 1024);
    if tenths.is_multiple_of(10) {
        format!("{} MiB", tenths / 10)
    } else {
        format!("{}.{} MiB", tenths / 10, tenths % 10)
    }
}

impl ProblemKind {
    /// The rule id of findings of this kind.
    pub fn rule(self) -> &'static str {
        match self {
            ProblemKind::Syntax => "yaml-syntax",
            ProblemKind::DuplicateKey => "yaml-duplicate-key",
            ProblemKind::NotAnObject => "not-an-object",
            ProblemKind::TooLarge => "yaml-too-large",
        }
    }
}

/// Rule ids of the problems found while reading manifests, with what they mean.
pub const READ_RULES: &[(&str, &str)] = &[
    ("yaml-syntax", "the text is not valid YAML (or not UTF-8): the document around the error is not checked"),
    ("yaml-duplicate-key", "a mapping repeats a key (the API server rejects it): the document is not checked"),
    ("not-an-object", "a document is a scalar or a list, not a Kubernetes object"),
    (
        "yaml-too-large",
        "a document is larger than 16 MiB (5x what the API server accepts), or its aliases repeat more than a file's \
         or the run's budget allows: it is not read, the others are",
    ),
];

/// One part of a manifest that could not be read into objects. Reading goes on after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadProblem {
    pub kind: ProblemKind,
    /// File path or `<stdin>`.
    pub source: Arc<str>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl ReadProblem {
    /// A document that is not a mapping.
    pub(crate) fn not_an_object(source: &Arc<str>, line: usize, column: usize) -> Self {
        ReadProblem {
            kind: ProblemKind::NotAnObject,
            source: source.clone(),
            line,
            column,
            message: "a manifest document must be a mapping (a Kubernetes object)".into(),
        }
    }

    /// A document of `bytes` bytes starting at `line`, over [`MAX_DOCUMENT_BYTES`].
    pub(crate) fn too_large(source: &Arc<str>, line: usize, bytes: usize) -> Self {
        ReadProblem {
            kind: ProblemKind::TooLarge,
            source: source.clone(),
            line,
            column: 1,
            message: format!(
                "the document is {} of YAML, over the limit of {} per document (the API server accepts at most \
                 3 MiB per object); it is not read",
                mib(bytes),
                mib(MAX_DOCUMENT_BYTES)
            ),
        }
    }

    /// Text that is not UTF-8: located at its first invalid byte.
    pub(crate) fn not_utf8(source: &Arc<str>, bytes: &[u8], error: &std::str::Utf8Error) -> Self {
        let valid = &bytes[..error.valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..]).chars().count() + 1;
        ReadProblem::not_utf8_at(source, line, column, bytes[error.valid_up_to()])
    }

    /// Text that is not UTF-8, whose first invalid byte `byte` is at `line`, `column` (characters, 1-based).
    pub(crate) fn not_utf8_at(source: &Arc<str>, line: usize, column: usize, byte: u8) -> Self {
        ReadProblem {
            kind: ProblemKind::Syntax,
            source: source.clone(),
            line,
            column,
            message: format!("not UTF-8 text: invalid byte 0x{byte:02x}"),
        }
    }

    /// A document at `line` with aliases, not read since its file or the run used up what aliases may repeat.
    pub(crate) fn not_expanded(source: &Arc<str>, line: usize, exceeded: Exceeded) -> Self {
        let (limit, of) = match exceeded {
            Exceeded::File(limit) => (limit, "the documents of this file"),
            Exceeded::Run(limit) => (limit, "all the documents of this run"),
        };
        ReadProblem {
            kind: ProblemKind::TooLarge,
            source: source.clone(),
            line,
            column: 1,
            message: format!(
                "what aliases (*name) repeat in {of} reached the limit of {limit} nodes before this document; its \
                 aliases are not expanded, it is not read"
            ),
        }
    }

    /// A document at `line` whose aliases would take the expansion of its file or of the run past its limit
    /// ([`super::budget`]).
    pub(crate) fn too_expanded(source: &Arc<str>, line: usize, nodes: usize, exceeded: Exceeded) -> Self {
        let (limit, of) = match exceeded {
            Exceeded::File(limit) => (limit, "the documents of one file"),
            Exceeded::Run(limit) => (limit, "all the documents of this run"),
        };
        ReadProblem {
            kind: ProblemKind::TooLarge,
            source: source.clone(),
            line,
            column: 1,
            message: format!(
                "the document's aliases (*name) repeat {nodes} nodes, which takes what aliases repeat in {of} past \
                 the limit of {limit} nodes; it is not read"
            ),
        }
    }

    /// A YAML error of a part of `source` that starts after `line_offset` lines.
    pub(crate) fn from_yaml(error: &YamlError, source: &Arc<str>, line_offset: usize) -> Self {
        let (line, column) = error
            .location()
            .map(|location| (location.line() as usize, location.column() as usize))
            .filter(|(line, _)| *line > 0)
            .unwrap_or((1, 1));
        let kind = match innermost(error) {
            YamlError::DuplicateMappingKey { .. } => ProblemKind::DuplicateKey,
            _ => ProblemKind::Syntax,
        };
        ReadProblem { kind, source: source.clone(), line: line + line_offset, column, message: yaml_message(error) }
    }
}

/// Whether `error` is the YAML library's refusal of a document that expands too much (its budget, its limits on
/// alias replays): the expansion happened, up to those limits, before it.
pub(crate) fn is_expansion_error(error: &YamlError) -> bool {
    matches!(
        innermost(error),
        YamlError::Budget { .. }
            | YamlError::AliasReplayCounterOverflow { .. }
            | YamlError::AliasReplayLimitExceeded { .. }
            | YamlError::AliasExpansionLimitExceeded { .. }
            | YamlError::AliasReplayStackDepthExceeded { .. }
    )
}

/// The error itself, without the snippet and alias wrappers of the YAML library.
fn innermost(error: &YamlError) -> &YamlError {
    let mut error = error;
    loop {
        match error {
            YamlError::WithSnippet { error: inner, .. } | YamlError::AliasError { error: inner, .. } => error = inner,
            _ => return error,
        }
    }
}

/// Our words for the library's errors: no option names, no internals, one line.
struct KubernetesWording;

impl MessageFormatter for KubernetesWording {
    fn format_message<'a>(&self, error: &'a YamlError) -> Cow<'a, str> {
        match innermost(error) {
            YamlError::DuplicateMappingKey { key: Some(key), .. } => Cow::Owned(format!(
                "duplicate key `{key}`: a mapping may hold each key once (the API server rejects it)"
            )),
            YamlError::DuplicateMappingKey { key: None, .. } => {
                Cow::Borrowed("duplicate key: a mapping may hold each key once (the API server rejects it)")
            }
            YamlError::Budget { .. }
            | YamlError::AliasReplayCounterOverflow { .. }
            | YamlError::AliasReplayLimitExceeded { .. }
            | YamlError::AliasExpansionLimitExceeded { .. }
            | YamlError::AliasReplayStackDepthExceeded { .. } => {
                Cow::Borrowed("the document expands to too much data (aliases nested or repeated too often)")
            }
            YamlError::UnknownAnchor { .. } => {
                Cow::Borrowed("an alias (*name) refers to an anchor (&name) not defined before it")
            }
            YamlError::InvalidUtf8Input => Cow::Borrowed("not UTF-8 text"),
            YamlError::Eof { .. } => Cow::Borrowed("unexpected end of the text"),
            inner => UserMessageFormatter.format_message(inner),
        }
    }
}

/// One line of our wording for `error`, control characters replaced.
fn yaml_message(error: &YamlError) -> String {
    let message = KubernetesWording.format_message(error);
    let message: String = message.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let message = message.trim();
    if message.is_empty() { "invalid YAML".to_string() } else { message.to_string() }
}
