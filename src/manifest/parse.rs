//! YAML text to JSON values the way Kubernetes decodes it (YAML 1.1 booleans and octals,
//! duplicate keys rejected), keeping the line of every field.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{DuplicateKeyPolicy, Options, Spanned};

use super::budget::{FileExpansion, ReadBudget};
use super::lined::{LinedDocument, NodeLine};
use super::problem::{MAX_DOCUMENT_BYTES, ReadProblem, is_expansion_error};
use super::{Document, ManifestError, Origin};

use crate::fast_hash::HashMap;

/// Lines of fields in one document.
///
/// Documents read by [`parse_documents`] keep one compact record per node (see [`NodeLines`]),
/// resolved against the document's value; single values read by [`parse_value`] keep a map keyed
/// by JSON pointer (`/spec/resources/0/kind`).
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    inner: Lines,
}

#[derive(Debug, Clone, Default)]
enum Lines {
    #[default]
    Empty,
    Pointers(Arc<HashMap<String, usize>>),
    Nodes(Arc<[NodeLine]>),
}

impl LineIndex {
    /// The line of the field at `pointer`, or of the nearest parent that has one. `value` is the
    /// document these lines were read with (compact indexes walk it to find children).
    pub fn line_in(&self, value: &Value, pointer: &str) -> Option<usize> {
        match &self.inner {
            Lines::Empty => None,
            Lines::Pointers(_) => self.line_of(pointer),
            Lines::Nodes(nodes) => nodes_line_of(nodes, value, pointer),
        }
    }

    /// An index keyed by JSON pointer, for documents built from other text (a kustomize build mapped back to its
    /// source file): `lines` holds the fields that have a line, the others take their nearest parent's.
    pub fn from_pointers(lines: HashMap<String, usize>) -> Self {
        LineIndex { inner: Lines::Pointers(Arc::new(lines)) }
    }

    /// The same index with every line passed through `map` (lines of a rendered text moved to its source's).
    pub fn map_lines(&self, map: impl Fn(usize) -> usize) -> Self {
        let inner = match &self.inner {
            Lines::Empty => Lines::Empty,
            Lines::Pointers(lines) => {
                Lines::Pointers(Arc::new(lines.iter().map(|(pointer, line)| (pointer.clone(), map(*line))).collect()))
            }
            Lines::Nodes(nodes) => Lines::Nodes(
                nodes.iter().map(|node| NodeLine { line: map(node.line as usize) as u32, size: node.size }).collect(),
            ),
        };
        LineIndex { inner }
    }

    /// The line of the field at `pointer`, or of the nearest parent that has one (indexes keyed by
    /// pointer only: those of [`parse_value`]).
    pub fn line_of(&self, pointer: &str) -> Option<usize> {
        let Lines::Pointers(lines) = &self.inner else { return None };
        let mut current = pointer;
        loop {
            if let Some(line) = lines.get(current) {
                return Some(*line);
            }
            match current.rfind('/') {
                Some(cut) => current = &current[..cut],
                None => return None,
            }
        }
    }
}

/// The records of the children of the node whose record is at `end - 1` (its subtree starts at
/// `end - size`), as `(start, end)` ranges, first child first.
fn children(nodes: &[NodeLine], end: usize) -> Vec<(usize, usize)> {
    let start = end - nodes[end - 1].size as usize;
    let mut out = Vec::new();
    let mut cursor = end - 1;
    while cursor > start {
        let size = (nodes[cursor - 1].size as usize).clamp(1, cursor - start);
        out.push((cursor - size, cursor));
        cursor -= size;
    }
    out.reverse();
    out
}

fn nodes_line_of(nodes: &[NodeLine], value: &Value, pointer: &str) -> Option<usize> {
    let mut end = nodes.len();
    if end == 0 {
        return None;
    }
    let mut current = value;
    for token in pointer.split('/').skip(1) {
        let position = match current {
            Value::Object(map) => {
                let key = crate::json_pointer::unescape_token(token);
                map.keys().position(|k| *k == key)
            }
            Value::Array(items) => token.parse::<usize>().ok().filter(|i| *i < items.len()),
            _ => None,
        };
        let Some(position) = position else { break };
        let child_ranges = children(nodes, end);
        let Some(&(_, child_end)) = child_ranges.get(position) else { break };
        current = match current {
            Value::Object(map) => map.values().nth(position),
            Value::Array(items) => items.get(position),
            _ => None,
        }?;
        end = child_end;
    }
    Some(nodes[end - 1].line as usize)
}

/// The record of the node whose children's records are `nodes[start..]` (post-order: after them).
fn push_node_line(nodes: &mut Vec<NodeLine>, start: usize) {
    let size = (nodes.len() - start + 1) as u32;
    nodes.push(NodeLine { line: 0, size });
}

/// Sets the line of the last node read (its record is the last one).
fn set_last_line(nodes: &mut [NodeLine], line: usize) {
    if let Some(last) = nodes.last_mut() {
        last.line = line as u32;
    }
}

impl<'de> Deserialize<'de> for LinedDocument {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let root = Spanned::<LinedValue>::deserialize(deserializer)?;
        let line = root.referenced.line() as usize;
        let column = root.referenced.column() as usize;
        let LinedValue { value, mut nodes } = root.value;
        set_last_line(&mut nodes, line);
        Ok(LinedDocument { value, line, column, nodes })
    }
}

/// Reads a YAML value into JSON and appends its nodes' line records (post-order) to `nodes`, the records of the
/// document being read: the map values of a document are read through it, with the records of their mapping.
struct Lined<'n> {
    nodes: &'n mut Vec<NodeLine>,
}

impl<'de> DeserializeSeed<'de> for Lined<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        let start = self.nodes.len();
        let value = deserializer.deserialize_any(ValueVisitor { nodes: Some(&mut *self.nodes) })?;
        push_node_line(self.nodes, start);
        Ok(value)
    }
}

/// A YAML value read into JSON with the line records of its nodes: what a `Spanned` wraps (the root, the items of
/// a sequence), since serde-saphyr reads a `Spanned` only through `Deserialize`, which takes no seed.
struct LinedValue {
    value: Value,
    nodes: Vec<NodeLine>,
}

impl<'de> Deserialize<'de> for LinedValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut nodes = Vec::new();
        let value = Lined { nodes: &mut nodes }.deserialize(deserializer)?;
        Ok(LinedValue { value, nodes })
    }
}

/// A mapping key as Kubernetes' YAML-to-JSON conversion spells it.
struct KubeKey(String);

impl<'de> Deserialize<'de> for KubeKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyVisitor).map(KubeKey)
    }
}

/// Scalars as their text (`true`, `3`, `null`); a collection as a key is "".
struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }
    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok("null".to_string())
    }
    fn visit_none<E: de::Error>(self) -> Result<String, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<String, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<String, E> {
        self.visit_f64(v as f64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<String, E> {
        Ok(String::from_utf8_lossy(v).into_owned())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(String::new())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        while map.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
        Ok(String::new())
    }
}

/// A YAML value read into JSON, nothing else (rendered text, overlay blocks: no line is needed).
struct PlainValue(Value);

impl<'de> Deserialize<'de> for PlainValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor { nodes: None }).map(PlainValue)
    }
}

/// Builds JSON values; with `nodes`, also their line records (see [`Lined`]).
struct ValueVisitor<'n> {
    nodes: Option<&'n mut Vec<NodeLine>>,
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        self.visit_f64(v as f64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        if let Some(nodes) = self.nodes {
            while let Some(item) = seq.next_element::<Spanned<LinedValue>>()? {
                let LinedValue { value, nodes: mut item_nodes } = item.value;
                set_last_line(&mut item_nodes, item.referenced.line() as usize);
                nodes.append(&mut item_nodes);
                items.push(value);
            }
        } else {
            while let Some(PlainValue(item)) = seq.next_element::<PlainValue>()? {
                items.push(item);
            }
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        if let Some(nodes) = self.nodes {
            while let Some(key) = map.next_key::<Spanned<KubeKey>>()? {
                let value = map.next_value_seed(Lined { nodes: &mut *nodes })?;
                // A field is where its key is written, not where its (block) value starts.
                set_last_line(nodes, key.referenced.line() as usize);
                out.insert(key.value.0, value);
            }
        } else {
            while let Some((KubeKey(key), PlainValue(value))) = map.next_entry::<KubeKey, PlainValue>()? {
                out.insert(key, value);
            }
        }
        Ok(Value::Object(out))
    }
}

/// The options that make serde-saphyr read YAML as go-yaml v2 (Kubernetes) does.
pub(super) fn kubernetes_yaml_options() -> Options {
    let mut options = Options::default();
    options.legacy_octal_numbers = true;
    options.duplicate_keys = DuplicateKeyPolicy::Error;
    // Bundles of whole fleets are large: lift the size budgets, keep the alias-bomb protection.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_documents = usize::MAX;
    budget.max_events = usize::MAX;
    budget.max_nodes = usize::MAX;
    budget.max_reader_input_bytes = None;
    budget.max_total_scalar_bytes = usize::MAX;
    options.budget = Some(budget);
    options
}

/// The JSON-pointer lines of a value read by [`LinedDocument`]: every node under its pointer.
fn pointer_lines(
    value: &Value,
    nodes: &[NodeLine],
    end: usize,
    pointer: &mut String,
    out: &mut HashMap<String, usize>,
) {
    out.insert(pointer.clone(), nodes[end - 1].line as usize);
    let ranges = children(nodes, end);
    let mut visit = |token: &str, child: &Value, child_end: usize, pointer: &mut String| {
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(token);
        pointer_lines(child, nodes, child_end, pointer, out);
        pointer.truncate(len);
    };
    match value {
        Value::Object(map) => {
            for ((key, child), &(_, child_end)) in map.iter().zip(&ranges) {
                visit(&crate::json_pointer::escape_token(key), child, child_end, pointer);
            }
        }
        Value::Array(items) => {
            for (i, (child, &(_, child_end))) in items.iter().zip(&ranges).enumerate() {
                visit(&i.to_string(), child, child_end, pointer);
            }
        }
        _ => {}
    }
}

/// How many overflowing float scalars one read may turn into strings before giving up (each costs a re-read).
const MAX_OVERFLOWING_FLOATS: usize = 64;

/// Reads `text` with `read`; go-yaml v2 (Kubernetes) reads a plain scalar that looks like a float but overflows
/// f64 (`1e1000`) as the string it spells, where serde-saphyr refuses it as a non-finite number. Each such
/// scalar is quoted where the parser reports it and the text read again, so lines stay where they were.
/// `.inf` and `.nan` stay errors: Kubernetes cannot turn them into JSON either.
fn read_overflowing_floats_as_strings<T>(
    text: &str,
    read: impl Fn(&str) -> Result<T, serde_saphyr::Error>,
) -> Result<T, serde_saphyr::Error> {
    let mut error = match read(text) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let mut current = text.to_string();
    for _ in 0..MAX_OVERFLOWING_FLOATS {
        let Some(quoted) = quote_overflowing_float(&current, &error) else { break };
        current = quoted;
        match read(&current) {
            Ok(value) => return Ok(value),
            Err(next) => error = next,
        }
    }
    Err(error)
}

/// `text` with the overflowing decimal scalar `error` reports put in double quotes, or None when `error` is
/// something else or the scalar is not where it says.
fn quote_overflowing_float(text: &str, error: &serde_saphyr::Error) -> Option<String> {
    let serde_saphyr::Error::NonFiniteFloat { value, location } = error.without_snippet() else { return None };
    let unsigned = value.trim_start_matches(['+', '-']);
    if !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') || !unsigned.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let line_index = usize::try_from(location.line()).ok()?.checked_sub(1)?;
    let line_start = text.split_inclusive('\n').take(line_index).map(str::len).sum::<usize>();
    let line = text[line_start..].split('\n').next()?;
    let column = usize::try_from(location.column()).ok()?.checked_sub(1)?;
    let at =
        line.char_indices().nth(column).map(|(byte, _)| byte).filter(|&byte| line[byte..].starts_with(value.as_str()));
    let at = at.or_else(|| {
        line.match_indices(value.as_str()).map(|(byte, _)| byte).find(|&byte| {
            let before = line[..byte].chars().next_back();
            let after = line[byte + value.len()..].chars().next();
            before.is_none_or(|c| c.is_whitespace() || matches!(c, ':' | '-' | '[' | '{' | ','))
                && after.is_none_or(|c| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
        })
    })?;
    let start = line_start + at;
    let end = start + value.len();
    Some(format!("{}\"{}\"{}", &text[..start], &text[start..end], &text[end..]))
}

fn syntax_error(err: serde_saphyr::Error, source_name: &str) -> ManifestError {
    ReadProblem::from_yaml(&err, &Arc::from(source_name), 0).into()
}

/// Parses one YAML (or JSON) document into a value, without lines (for text the tool wrote
/// itself: rendered templates, overlay blocks).
pub fn parse_plain_value(text: &str, source_name: &str) -> Result<Value, ManifestError> {
    match one_mapping_read_directly(text) {
        Some(value) => Ok(value),
        None => parse_plain_value_with_serde(text, source_name),
    }
}

/// [`parse_plain_value`] through serde-saphyr alone.
fn parse_plain_value_with_serde(text: &str, source_name: &str) -> Result<Value, ManifestError> {
    let PlainValue(value) = read_overflowing_floats_as_strings(text, |text| {
        serde_saphyr::from_str_with_options(text, kubernetes_yaml_options())
    })
    .map_err(|err| syntax_error(err, source_name))?;
    Ok(value)
}

/// The mapping of a one-document `text` through the readers `validate` reads files with first (the same value as
/// the serde path; a render reads back every overlay block): None for anything else (no mapping, several documents
/// or markers that could make several, directives, or text those readers leave to the serde path).
fn one_mapping_read_directly(text: &str) -> Option<Value> {
    let one_document = document_markers(text).is_empty()
        && !text.starts_with(['%', '.'])
        && !text.contains("\n%")
        && !text.contains("\n...");
    if !one_document {
        return None;
    }
    let mut documents = lined_documents_read_directly(text)?;
    (documents.len() == 1).then(|| documents.remove(0).value)
}

/// Parses a multi-document stream the tool rendered itself into documents without field lines:
/// empty documents dropped, every other one must be a mapping.
pub fn parse_plain_documents(text: &str, source_name: &str) -> Result<Vec<Document>, ManifestError> {
    if let Some(documents) = plain_documents_read_directly(text, source_name) {
        return Ok(documents);
    }
    parse_plain_documents_with_serde(text, source_name)
}

/// [`parse_plain_documents`] through the readers `validate` reads files with first (scan.rs, direct.rs: the same
/// values as the serde path): a fleet's render reads back every cluster's text. None when they leave the text to
/// the serde path or a document is not a mapping (the serde path then gives the error and its line).
fn plain_documents_read_directly(text: &str, source_name: &str) -> Option<Vec<Document>> {
    let lined = lined_documents_read_directly(text)?;
    let source: Arc<str> = Arc::from(source_name);
    let mut documents = Vec::with_capacity(lined.len());
    for LinedDocument { value, .. } in lined {
        match &value {
            Value::Null => {}
            Value::Object(map) if map.is_empty() => {}
            Value::Object(_) => documents.push(Document::from_value(value, &source, documents.len())),
            _ => return None,
        }
    }
    Some(documents)
}

/// [`parse_plain_documents`] through serde-saphyr alone.
fn parse_plain_documents_with_serde(text: &str, source_name: &str) -> Result<Vec<Document>, ManifestError> {
    let values: Vec<Spanned<PlainValue>> = read_overflowing_floats_as_strings(text, |text| {
        serde_saphyr::from_multiple_with_options(text, kubernetes_yaml_options())
    })
    .map_err(|err| syntax_error(err, source_name))?;
    let source: Arc<str> = Arc::from(source_name);
    let mut documents = Vec::new();
    for spanned in values {
        let line = spanned.referenced.line() as usize;
        let value = spanned.value.0;
        match &value {
            Value::Null => continue,
            Value::Object(map) if map.is_empty() => continue,
            Value::Object(_) => documents.push(Document::from_value(value, &source, documents.len())),
            _ => {
                return Err(ManifestError::NotAnObject {
                    location: format!("{source_name}:{line}"),
                    message: "a manifest document must be a mapping (a Kubernetes object)".into(),
                });
            }
        }
    }
    Ok(documents)
}

/// Parses one YAML (or JSON) document into a value and the lines of its fields.
pub fn parse_value(text: &str, source_name: &str) -> Result<(Value, LineIndex), ManifestError> {
    let LinedDocument { value, nodes, .. } = read_overflowing_floats_as_strings(text, |text| {
        serde_saphyr::from_str_with_options(text, kubernetes_yaml_options())
    })
    .map_err(|err| syntax_error(err, source_name))?;
    let mut lines = HashMap::default();
    pointer_lines(&value, &nodes, nodes.len(), &mut String::new(), &mut lines);
    Ok((value, LineIndex { inner: Lines::Pointers(Arc::new(lines)) }))
}

/// Streams at least this long are read on every core, in chunks of whole documents.
const PARALLEL_PARSE_MIN_BYTES: usize = 256 * 1024;

/// Byte offsets where `text` can be cut into independent streams: starts of lines that are a
/// document marker (`---` alone or followed by a space), about `parts` of them, evenly spaced.
/// None when the text has directives (`%YAML`, `%TAG`: they bind to the next document only).
fn document_cuts(text: &str, parts: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b'%') || text.contains("\n%") {
        return Vec::new();
    }
    let mut cuts = Vec::new();
    for part in 1..parts {
        let target = text.len() * part / parts;
        let mut from = cuts.last().copied().unwrap_or(0).max(target);
        while let Some(found) = text[from..].find("\n---") {
            let start = from + found + 1;
            let after = bytes.get(start + 3).copied();
            if matches!(after, None | Some(b'\n' | b'\r' | b' ' | b'\t')) {
                cuts.push(start);
                break;
            }
            from = start;
        }
    }
    cuts.dedup();
    cuts
}

/// Every document of the stream with its line records; large streams are cut at document markers
/// and the parts read in parallel (lines shifted back to the whole text's).
fn parse_lined_documents(text: &str) -> Result<Vec<LinedDocument>, serde_saphyr::Error> {
    let serial = || parse_lined_documents_serially(text);
    if text.len() < PARALLEL_PARSE_MIN_BYTES {
        return serial();
    }
    let threads = crate::cores::available();
    let cuts = document_cuts(text, threads);
    if cuts.is_empty() {
        return serial();
    }
    let results: Vec<Option<Vec<LinedDocument>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = split_at(text, &cuts)
            .into_iter()
            .map(|(line_offset, part)| scope.spawn(move || parse_part(part, line_offset).ok()))
            .collect();
        workers.into_iter().map(|worker| worker.join().ok().flatten()).collect()
    });
    // Any part that fails: read the whole text again, so the error and its position are exactly
    // those of a serial read.
    if results.iter().any(Option::is_none) {
        return serial();
    }
    Ok(results.into_iter().flatten().flatten().collect())
}

/// The documents of the readers tried before the serde path (each gives exactly its documents and line records):
/// the line scanner (scan.rs), then the event reader (direct.rs); None when both leave the text to the serde path.
fn lined_documents_read_directly(text: &str) -> Option<Vec<LinedDocument>> {
    super::scan::lined_documents(text).or_else(|| super::direct::lined_documents(text))
}

/// Every document of the stream with its line records, read on the calling thread.
fn parse_lined_documents_serially(text: &str) -> Result<Vec<LinedDocument>, serde_saphyr::Error> {
    if let Some(documents) = lined_documents_read_directly(text) {
        return Ok(documents);
    }
    read_overflowing_floats_as_strings(text, |text| {
        serde_saphyr::from_multiple_with_options::<LinedDocument>(text, kubernetes_yaml_options())
    })
}

/// `text` cut at byte offsets `cuts`, each part with the number of lines before it.
pub(crate) fn split_at<'t>(text: &'t str, cuts: &[usize]) -> Vec<(usize, &'t str)> {
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(text.len());
    let mut line_offset = 0;
    bounds
        .windows(2)
        .map(|w| {
            let part = &text[w[0]..w[1]];
            let offset = line_offset;
            line_offset += part.bytes().filter(|b| *b == b'\n').count();
            (offset, part)
        })
        .collect()
}

/// The documents of one part of a stream, lines shifted by the `line_offset` lines before it.
fn parse_part(part: &str, line_offset: usize) -> Result<Vec<LinedDocument>, serde_saphyr::Error> {
    let mut documents = parse_lined_documents_serially(part)?;
    for document in &mut documents {
        document.shift_lines(line_offset);
    }
    Ok(documents)
}

/// Byte offsets of every document marker line (`---` alone or followed by a space) after the
/// first line. A marker at the start of a line always ends the document before it, even inside a
/// block or quoted scalar, so the parts between them are documents that read on their own. None
/// when the text has directives (`%YAML`, `%TAG`: they bind to the next document only).
pub(crate) fn document_markers(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b'%') || text.contains("\n%") {
        return Vec::new();
    }
    let mut markers = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("\n---") {
        let start = from + found + 1;
        if matches!(bytes.get(start + 3).copied(), None | Some(b'\n' | b'\r' | b' ' | b'\t')) {
            markers.push(start);
        }
        from = start;
    }
    markers
}

/// Documents and problems of a stream, each document read on its own: one broken document
/// (a syntax error, a duplicate key) costs only itself.
fn parse_lined_documents_one_by_one(text: &str, source: &Arc<str>) -> (Vec<LinedDocument>, Vec<ReadProblem>) {
    let mut documents = Vec::new();
    let mut problems = Vec::new();
    for (line_offset, part) in split_at(text, &document_markers(text)) {
        if part.len() > MAX_DOCUMENT_BYTES {
            problems.push(ReadProblem::too_large(source, document_start_line(part, line_offset), part.len()));
            continue;
        }
        match parse_part(part, line_offset) {
            Ok(parsed) => documents.extend(parsed),
            Err(err) => problems.push(ReadProblem::from_yaml(&err, source, line_offset)),
        }
    }
    (documents, problems)
}

/// Documents and problems of a stream that may use aliases, each document read on its own and its expansion (the
/// nodes it has beyond one per byte of its text) charged to `file` and to the run's `budget`: a document past
/// either limit is a problem and is dropped, so what aliases repeat is never held beyond the budget and one document.
fn parse_charged_one_by_one(
    text: &str,
    source: &Arc<str>,
    budget: &ReadBudget,
    file: &FileExpansion,
) -> (Vec<LinedDocument>, Vec<ReadProblem>) {
    let mut documents = Vec::new();
    let mut problems = Vec::new();
    for (line_offset, part) in split_at(text, &document_markers(text)) {
        if part.len() > MAX_DOCUMENT_BYTES {
            problems.push(ReadProblem::too_large(source, document_start_line(part, line_offset), part.len()));
            continue;
        }
        if may_use_aliases(part)
            && let Some(exceeded) = budget.spent(file)
        {
            problems.push(ReadProblem::not_expanded(source, document_start_line(part, line_offset), exceeded));
            continue;
        }
        match parse_part(part, line_offset) {
            Ok(parsed) => {
                let nodes: usize = parsed.iter().map(|document| document.nodes.len()).sum();
                let expansion = nodes.saturating_sub(part.len());
                match budget.charge(file, expansion) {
                    Ok(()) => documents.extend(parsed),
                    Err(exceeded) => {
                        let line = document_start_line(part, line_offset);
                        problems.push(ReadProblem::too_expanded(source, line, expansion, exceeded));
                    }
                }
            }
            Err(err) => {
                // Refused by the YAML library after expanding up to its own limit: that work counts too, so a file
                // of such documents costs the reading of a few.
                if is_expansion_error(&err) {
                    let _ = budget.charge(file, EXPANSION_PER_DOCUMENT);
                }
                problems.push(ReadProblem::from_yaml(&err, source, line_offset));
            }
        }
    }
    (documents, problems)
}

/// What the YAML library expands of one document at most before it refuses it (serde-saphyr's default alias
/// replay budget, events).
const EXPANSION_PER_DOCUMENT: usize = 1_000_000;

/// Whether `text` may use aliases: it holds both an anchor's `&` and an alias's `*` (text without either reads the
/// same however it is cut).
fn may_use_aliases(text: &str) -> bool {
    text.contains('*') && text.contains('&')
}

/// The documents of a stream and the problems of the parts that could not be read.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    /// Every object read, in order (`kind: List` expanded).
    pub documents: Vec<Document>,
    /// Syntax errors, duplicate keys, documents that are not mappings: reading went on after each.
    pub problems: Vec<ReadProblem>,
    /// Every source read, in reading order (also those without any object).
    pub sources: Vec<Arc<str>>,
}

/// Parses a multi-document manifest, going on after a broken document: its problem is recorded
/// and every other document is still read. Empty documents are dropped; `kind: List` is expanded.
/// Aliases may expand the documents of `text` up to [`super::FILE_EXPANSION_LIMIT`] nodes
/// ([`parse_documents_tolerant_within`] counts them against a run's budget too).
pub fn parse_documents_tolerant(text: &str, source_name: &str) -> ReadOutcome {
    parse_documents_tolerant_within(text, source_name, &ReadBudget::default())
}

/// [`parse_documents_tolerant`] of one file of a run: what its aliases expand counts against the file's limit and
/// against `budget`, shared by the run's files.
pub fn parse_documents_tolerant_within(text: &str, source_name: &str, budget: &ReadBudget) -> ReadOutcome {
    parse_documents_tolerant_at(text, &Arc::from(source_name), 0, true, budget, &FileExpansion::new(0))
}

/// Like [`parse_documents_tolerant`] for a piece of a larger stream read on the calling thread only (the caller
/// reads pieces on every core): `text` starts after `line_offset` lines of its source; documents are numbered from
/// 0 within the piece; `file` counts what aliases expand in the pieces of the source.
pub(crate) fn parse_documents_tolerant_on_one_core(
    text: &str,
    source: &Arc<str>,
    line_offset: usize,
    budget: &ReadBudget,
    file: &FileExpansion,
) -> ReadOutcome {
    parse_documents_tolerant_at(text, source, line_offset, false, budget, file)
}

/// [`parse_documents_tolerant`] of `text`, which starts after `line_offset` lines of `source`; a large text on every
/// core when `every_core`.
fn parse_documents_tolerant_at(
    text: &str,
    source: &Arc<str>,
    line_offset: usize,
    every_core: bool,
    budget: &ReadBudget,
    file: &FileExpansion,
) -> ReadOutcome {
    let source = source.clone();
    let oversized = text.len() > MAX_DOCUMENT_BYTES
        && split_at(text, &document_markers(text)).iter().any(|(_, part)| part.len() > MAX_DOCUMENT_BYTES);
    let read = |text: &str| match every_core {
        true => parse_lined_documents(text),
        false => parse_lined_documents_serially(text),
    };
    let (mut parsed, mut problems) = match (oversized, may_use_aliases(text)) {
        // Document by document, so that no more than one is read past the budget.
        (_, true) => parse_charged_one_by_one(text, &source, budget, file),
        (false, false) => match read(text) {
            Ok(parsed) => (parsed, Vec::new()),
            Err(_) => parse_lined_documents_one_by_one(text, &source),
        },
        (true, false) => parse_lined_documents_one_by_one(text, &source),
    };
    if line_offset > 0 {
        for document in &mut parsed {
            document.shift_lines(line_offset);
        }
        for problem in &mut problems {
            problem.line += line_offset;
        }
    }
    let mut outcome = ReadOutcome { sources: vec![source.clone()], ..ReadOutcome::default() };
    for document in parsed {
        push_document(document, &source, &mut outcome.documents, &mut problems);
    }
    problems.sort_by_key(|p| (p.line, p.column));
    outcome.problems = problems;
    outcome
}

/// The line where the document of `part` (a piece of a stream starting at a document marker or at the start)
/// begins: the line after a marker that stands alone, else its first line.
pub(crate) fn document_start_line(part: &str, line_offset: usize) -> usize {
    let first_line = part.split('\n').next().unwrap_or("");
    let marker_alone = first_line.starts_with("---") && first_line[3..].trim().is_empty();
    line_offset + if marker_alone && part.len() > first_line.len() { 2 } else { 1 }
}

/// Parses a multi-document manifest; the first problem is an error. Empty documents are
/// dropped; `kind: List` is expanded.
pub fn parse_documents(text: &str, source_name: &str) -> Result<Vec<Document>, ManifestError> {
    let outcome = parse_documents_tolerant(text, source_name);
    match outcome.problems.into_iter().next() {
        Some(problem) => Err(problem.into()),
        None => Ok(outcome.documents),
    }
}

/// Adds one read document to `documents` (its items, for a `kind: List`), or a problem when it is
/// not a mapping.
fn push_document(
    document: LinedDocument,
    source: &Arc<str>,
    documents: &mut Vec<Document>,
    problems: &mut Vec<ReadProblem>,
) {
    let LinedDocument { value, line, column, nodes } = document;
    match &value {
        Value::Null => return,
        Value::Object(map) if map.is_empty() => return,
        Value::Object(_) => {}
        _ => {
            problems.push(ReadProblem::not_an_object(source, line, column));
            return;
        }
    }
    let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
        && value.get("items").is_some_and(Value::is_array);
    if is_list {
        // The records of `items` and of each item are contiguous subtrees of the document's.
        let items_position = value.as_object().and_then(|m| m.keys().position(|k| k == "items"));
        let item_ranges = items_position
            .and_then(|position| children(&nodes, nodes.len()).get(position).copied())
            .map(|(_, items_end)| children(&nodes, items_end))
            .unwrap_or_default();
        let Value::Object(mut map) = value else { return };
        let items = match map.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        for (i, item) in items.into_iter().enumerate() {
            let (item_nodes, item_line) = match item_ranges.get(i) {
                Some(&(start, end)) => (Arc::from(&nodes[start..end]), nodes[end - 1].line as usize),
                None => (Arc::from(Vec::new()), line),
            };
            let index = documents.len();
            documents.push(Document {
                value: item,
                origin: Origin { source: source.clone(), index, line: item_line },
                lines: LineIndex { inner: Lines::Nodes(item_nodes) },
            });
        }
        return;
    }
    let index = documents.len();
    let lines = LineIndex { inner: Lines::Nodes(Arc::from(nodes)) };
    documents.push(Document { value, origin: Origin { source: source.clone(), index, line }, lines });
}

#[cfg(test)]
mod tests {

    #[test]
    fn plain_documents_read_directly_equal_the_serde_path_on_every_yaml_file_of_the_repository() {
        let files = crate::test_files::repository_yaml_files();
        let mut direct = 0;
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let name = path.display().to_string();
            let serde = parse_plain_documents_with_serde(&text, &name);
            if plain_documents_read_directly(&text, &name).is_some() {
                direct += 1;
            }
            match (parse_plain_documents(&text, &name), serde) {
                (Ok(ours), Ok(theirs)) => {
                    let values = |docs: &[Document]| docs.iter().map(|d| d.value.clone()).collect::<Vec<_>>();
                    assert_eq!(values(&ours), values(&theirs), "{name}");
                    let indexes = |docs: &[Document]| docs.iter().map(|d| d.origin.index).collect::<Vec<_>>();
                    assert_eq!(indexes(&ours), indexes(&theirs), "{name}");
                }
                (Err(ours), Err(theirs)) => assert_eq!(ours.to_string(), theirs.to_string(), "{name}"),
                (ours, theirs) => panic!("{name}: {:?} against {:?}", ours.map(|d| d.len()), theirs.map(|d| d.len())),
            }
        }
        assert!(files.len() > 100 && direct * 2 > files.len(), "{direct} of {} files read directly", files.len());
    }

    #[test]
    fn plain_values_read_directly_equal_the_serde_path() {
        let mut texts: Vec<String> = [
            "",
            "---\n",
            "a: 1\n",
            "---\na: 1\n",
            "a: 1\n---\nb: 2\n",
            "---\n---\na: 1\n",
            "a: 1\n...\n",
            "%YAML 1.1\n---\na: 1\n",
            "x\n",
            "- 1\n",
            "{a: 1, b: [x, y]}\n",
            "a: 1\na: 2\n",
            "a: [\n",
            "a: yes\nb: 0x1f\n",
            "  a: 1\n  b:\n    c: d\n",
            ".a: 1\n",
            "a: |\n  ---\n  x\n",
        ]
        .iter()
        .map(|text| text.to_string())
        .collect();
        for path in crate::test_files::repository_yaml_files() {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            texts.extend(split_at(&text, &document_markers(&text)).into_iter().map(|(_, part)| part.to_string()));
            texts.push(text);
        }
        let mut direct = 0;
        for text in &texts {
            direct += usize::from(one_mapping_read_directly(text).is_some());
            match (parse_plain_value(text, "t"), parse_plain_value_with_serde(text, "t")) {
                // As text: the keys in the same order too.
                (Ok(ours), Ok(theirs)) => assert_eq!(ours.to_string(), theirs.to_string(), "{text}"),
                (Err(ours), Err(theirs)) => assert_eq!(ours.to_string(), theirs.to_string(), "{text}"),
                (ours, theirs) => panic!("{text}: {ours:?} against {theirs:?}"),
            }
        }
        assert!(direct * 2 > texts.len(), "{direct} of {} texts read directly", texts.len());
    }

    #[test]
    fn overflowing_float_scalars_read_as_the_strings_they_spell_as_go_yaml_v2_does() {
        let text = "a: 1e1000\nb: [1e999, -1.5E+400]\nc: {d: 2e400}\n1e500: key\ne: 1.5\n";
        let (value, lines) = parse_value(text, "f.yaml").unwrap();
        assert_eq!(value["a"], "1e1000");
        assert_eq!(value["b"], serde_json::json!(["1e999", "-1.5E+400"]));
        assert_eq!(value["c"]["d"], "2e400");
        assert_eq!(value["1e500"], "key");
        assert_eq!(value["e"], 1.5);
        assert_eq!(lines.line_of("/c/d"), Some(3));
        let documents = parse_documents("kind: A\nx: 1e1000\n---\nkind: B\nz: 7e7777\n", "s.yaml").unwrap();
        assert_eq!(documents[1].value["z"], "7e7777");
        assert_eq!(parse_plain_value("v: 9e999", "p").unwrap()["v"], "9e999");
    }

    #[test]
    fn infinity_and_nan_spellings_stay_errors() {
        for text in ["a: .inf\n", "a: -.inf\n", "a: .nan\n"] {
            assert!(parse_value(text, "f.yaml").is_err(), "{text}");
        }
    }
    use super::*;

    #[test]
    fn yaml_1_1_scalars_decode_as_kubernetes_does() {
        let (value, _) = parse_value("a: yes\nb: on\nc: 0755\nd: 1_000\ne: NO\nf: '0755'\ng: ~\n", "t").unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": true, "b": true, "c": 493, "d": 1000, "e": false, "f": "0755", "g": null})
        );
    }

    #[test]
    fn duplicate_keys_are_rejected_with_their_line() {
        let err = parse_documents("kind: A\nmetadata:\n  name: x\n  name: y\n", "dup.yaml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("dup.yaml:4:"), "{text}");
    }

    #[test]
    fn documents_know_their_lines_and_fields() {
        let text = "# c\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\ndata:\n  k: dg==\n";
        let docs = parse_documents(text, "f.yaml").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].display_name(), "ConfigMap/a");
        assert_eq!(docs[1].origin.line, 8);
        assert_eq!(docs[1].origin.index, 1);
        assert_eq!(docs[1].line_of("/data/k"), 13);
        assert_eq!(docs[1].line_of("/data/missing"), 12);
    }

    #[test]
    fn lines_of_nested_fields_escaped_keys_and_missing_ones() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    a/b: x\n    c~d: y\nspec:\n  items:\n  - name: one\n    value: 1\n  -\n    name: two\n  - [1, 2]\n  flow: {k: v,\n    m: n}\n";
        let docs = parse_documents(text, "n.yaml").unwrap();
        let doc = &docs[0];
        assert_eq!(doc.line_of(""), 1);
        assert_eq!(doc.line_of("/metadata"), 3);
        assert_eq!(doc.line_of("/metadata/annotations/a~1b"), 6);
        assert_eq!(doc.line_of("/metadata/annotations/c~0d"), 7);
        assert_eq!(doc.line_of("/spec/items/0"), 10);
        assert_eq!(doc.line_of("/spec/items/0/value"), 11);
        assert_eq!(doc.line_of("/spec/items/1/name"), 13);
        assert_eq!(doc.line_of("/spec/items/2/1"), 14);
        assert_eq!(doc.line_of("/spec/flow/m"), 16);
        // Missing fields and indexes fall back to the nearest parent that exists.
        assert_eq!(doc.line_of("/spec/items/7/name"), 9);
        assert_eq!(doc.line_of("/metadata/labels/x"), 3);
        assert_eq!(doc.line_of("/metadata/name/too/deep"), 4);
    }

    #[test]
    fn lists_are_expanded() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n";
        let docs = parse_documents(text, "l.yaml").unwrap();
        assert_eq!(docs.iter().map(Document::name).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(docs[1].origin.line, 8);
        assert_eq!(docs[1].line_of("/metadata/name"), 11);
    }

    #[test]
    fn thousands_of_documents_are_read() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n".repeat(5000);
        assert_eq!(parse_documents(&text, "big.yaml").unwrap().len(), 5000);
    }

    #[test]
    fn large_streams_read_in_parallel_keep_lines_and_errors() {
        let one = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  key: |\n    ---\n    text\n";
        let text: String = (0..6000).map(|i| format!("---\n{}", one.replace("NAME", &format!("c{i}")))).collect();
        assert!(text.len() > PARALLEL_PARSE_MIN_BYTES);
        let docs = parse_documents(&text, "big.yaml").unwrap();
        assert_eq!(docs.len(), 6000);
        for (i, doc) in docs.iter().enumerate() {
            assert_eq!(doc.name(), format!("c{i}"));
            assert_eq!(doc.origin.index, i);
            assert_eq!(doc.origin.line, 9 * i + 2, "document {i}");
            assert_eq!(doc.line_of("/data/key"), 9 * i + 7);
            assert_eq!(doc.value["data"]["key"], "---\ntext\n");
        }
        // A syntax error deep inside is reported where it is, as a serial read reports it.
        let broken = format!("{text}---\nkind: A\nmetadata:\n  name: x\n  name: y\n");
        let serial_error =
            serde_saphyr::from_multiple_with_options::<LinedDocument>(&broken, kubernetes_yaml_options())
                .err()
                .map(|err| syntax_error(err, "big.yaml").to_string());
        let error = parse_documents(&broken, "big.yaml").unwrap_err().to_string();
        assert_eq!(Some(error.clone()), serial_error);
        assert!(error.starts_with(&format!("big.yaml:{}:", 9 * 6000 + 5)), "{error}");
    }

    #[test]
    fn document_cuts_are_at_markers_only() {
        let text = "a: 1\n---\nb: |\n  ---\n---x: 1\n--- \nc: 2\n";
        assert_eq!(document_cuts(text, 4), vec![28]);
        assert_eq!(document_cuts(text, 8), vec![5, 28]);
        assert!(document_cuts("%YAML 1.1\n---\na: 1\n", 2).is_empty());
    }

    #[test]
    fn scalars_at_top_level_are_rejected() {
        assert!(parse_documents("just text\n", "s.yaml").is_err());
    }
}
