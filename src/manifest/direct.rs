//! Plain Kubernetes YAML read straight from serde-saphyr's own event parser (granit-parser, configured as
//! serde-saphyr configures it): the same values and line records as the serde path, without its per-node wrappers;
//! anything outside the plain subset (anchors, aliases, tags, merge keys, duplicate keys, numbers other than
//! decimal integers, errors) is left to the serde path, which reads the text again.

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, Span, StrInput};

use super::lined::{LinedDocument, NodeLine};

/// Deeper than this, the serde path reads the text (serde-saphyr's budget refuses nodes 64 levels deep).
const MAX_DIRECT_DEPTH: usize = 48;

/// Texts this long or longer are left to the serde path (its budget counts 64 MiB of comments per read).
pub(super) const MAX_DIRECT_BYTES: usize = 48 * 1024 * 1024;

/// The parser options serde-saphyr derives from [`serde_saphyr::Budget`] (`Budget::parser_options`, with the
/// `comments` feature serde-saphyr builds with by default), so the parser accepts and refuses the same texts.
fn parser_options() -> Options {
    let budget = serde_saphyr::Budget::default();
    let mut options = Options::default();
    options.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    options.flow_nesting_limit = budget.flow_nesting_limit;
    options.block_nesting_limit = options.block_nesting_limit.max(budget.max_depth.saturating_add(1));
    options.emit_comments = true;
    options.max_buffered_comment_events = budget.max_buffered_comment_events;
    options.strict_indentation = false;
    options
}

/// A collection being read.
enum Open {
    Map { map: Map<String, Value>, key: Option<(String, u32)>, first_record: usize, line: u32, column: u32 },
    Seq { items: Vec<Value>, first_record: usize, line: u32, column: u32 },
}

/// The line (1-based) and column (1-based) of an event, as serde-saphyr's `Location` gives them.
fn position(span: &Span) -> (u32, u32) {
    (span.start.line() as u32, span.start.col() as u32 + 1)
}

/// Every non-null document of `text` with its line records, as `serde_saphyr::from_multiple_with_options` reads
/// them into [`LinedDocument`]s with the Kubernetes options; None when the text holds anything the serde path must
/// read (then nothing read here is used).
pub(super) fn lined_documents(text: &str) -> Option<Vec<LinedDocument>> {
    read(text).ok()
}

/// Why a text is left to the serde path (for tests and profiles).
type Left = &'static str;

fn read(text: &str) -> Result<Vec<LinedDocument>, Left> {
    if text.len() >= MAX_DIRECT_BYTES {
        return Err("long text");
    }
    let mut documents = Vec::new();
    let mut nodes: Vec<NodeLine> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    for event in Parser::with_options(StrInput::new(text), parser_options()) {
        let (event, span) = event.map_err(|_| "parse error")?;
        let (line, column) = position(&span);
        let (value, first_record, value_line, value_column) = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart(..) | Event::Comment(..) => continue,
            Event::DocumentEnd => {
                if !stack.is_empty() {
                    return Err("unclosed collection");
                }
                continue;
            }
            Event::MappingStart(_, anchor, tag) | Event::SequenceStart(_, anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return Err("anchor or tag");
            }
            Event::MappingStart(..) => {
                if in_key_position(&stack) || stack.len() >= MAX_DIRECT_DEPTH {
                    return Err("collection key or depth");
                }
                stack.push(Open::Map { map: Map::new(), key: None, first_record: nodes.len(), line, column });
                continue;
            }
            Event::SequenceStart(..) => {
                if in_key_position(&stack) || stack.len() >= MAX_DIRECT_DEPTH {
                    return Err("collection key or depth");
                }
                stack.push(Open::Seq { items: Vec::new(), first_record: nodes.len(), line, column });
                continue;
            }
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return Err("anchor or tag");
                }
                if in_key_position(&stack) {
                    let key = key_text(&text, style).ok_or("key")?;
                    let Some(Open::Map { key: slot, .. }) = stack.last_mut() else { return Err("key") };
                    *slot = Some((key, line));
                    continue;
                }
                (scalar_value(text.into_owned(), style).ok_or("scalar")?, nodes.len(), line, column)
            }
            Event::MappingEnd => match stack.pop() {
                Some(Open::Map { map, key: None, first_record, line, column }) => {
                    (Value::Object(map), first_record, line, column)
                }
                _ => return Err("unbalanced"),
            },
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Seq { items, first_record, line, column }) => {
                    (Value::Array(items), first_record, line, column)
                }
                _ => return Err("unbalanced"),
            },
            // Aliases, anchors met unresolved, anything newer: the serde path.
            _ => return Err("alias"),
        };
        // The node's record, after its children's (post-order); its line is its key's in a mapping.
        let size = (nodes.len() - first_record + 1) as u32;
        match stack.last_mut() {
            Some(Open::Map { map, key, .. }) => {
                let (key, key_line) = key.take().ok_or("unbalanced")?;
                nodes.push(NodeLine { line: key_line, size });
                if map.insert(key, value).is_some() {
                    return Err("duplicate key");
                }
            }
            Some(Open::Seq { items, .. }) => {
                nodes.push(NodeLine { line: value_line, size });
                items.push(value);
            }
            None => {
                nodes.push(NodeLine { line: value_line, size });
                match value {
                    // Null documents are skipped, as serde-saphyr skips them.
                    Value::Null => nodes.clear(),
                    Value::Object(_) => documents.push(LinedDocument {
                        value,
                        line: value_line as usize,
                        column: value_column as usize,
                        nodes: std::mem::take(&mut nodes),
                    }),
                    // A document that is not a mapping is a problem whose place the serde path reports.
                    _ => return Err("not a mapping"),
                }
            }
        }
    }
    if stack.is_empty() { Ok(documents) } else { Err("unclosed collection") }
}

/// Whether the next node is a mapping key (the innermost open collection is a mapping waiting for one).
fn in_key_position(stack: &[Open]) -> bool {
    matches!(stack.last(), Some(Open::Map { key: None, .. }))
}

/// A plain scalar that serde-saphyr reads as a YAML 1.1 boolean (`parse_yaml11_bool`).
fn yaml11_bool(text: &str) -> Option<bool> {
    let is = |words: &[&str]| words.iter().any(|word| text.eq_ignore_ascii_case(word));
    if is(&["true", "yes", "y", "on"]) {
        Some(true)
    } else if is(&["false", "no", "n", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// Plain scalars serde-saphyr reads as null.
fn is_null_word(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// Whether a plain scalar is certainly read as the string it spells: not null, not a boolean, not something
/// Rust's `f64` parser reads (serde-saphyr's float syntax), not a YAML `.inf`/`.nan`, and not made of an integer's
/// characters only (a sign, then a digit and digits, `_`, `0x`/`0o`/`0b` prefixes, hexadecimal digits).
fn is_plain_string(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else { return false };
    if matches!(first, b' ' | b'\t' | b'\r' | b'\n') || matches!(last, b' ' | b'\t' | b'\r' | b'\n') {
        return false;
    }
    // Most strings of a manifest start with a letter no null, boolean (any case), `inf` or `nan` starts with, and
    // nothing else below starts with a letter: they are strings without the word comparisons and the float parse
    // (a tenth of reading a rendered manifest).
    if first.is_ascii_alphabetic() && !matches!(first.to_ascii_lowercase(), b't' | b'y' | b'o' | b'f' | b'n' | b'i') {
        return true;
    }
    if is_null_word(text) || yaml11_bool(text).is_some() || text.parse::<f64>().is_ok() {
        return false;
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let Some(&start) = unsigned.as_bytes().first() else { return false };
    let non_finite_float = start == b'.' && unsigned[1..].bytes().all(|b| b.is_ascii_alphabetic());
    let integer_characters_only = start.is_ascii_digit()
        && unsigned
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || matches!(b, b'_' | b'x' | b'X' | b'o' | b'O' | b'b' | b'B'));
    !non_finite_float && !integer_characters_only
}

/// A plain decimal integer without a redundant leading zero (`0`, `42`, `-7`), as serde-saphyr reads it.
fn decimal_integer(text: &str) -> Option<Number> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let simple =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    if !simple {
        return None;
    }
    match text.starts_with('-') {
        true => text.parse::<i64>().ok().map(Number::from),
        false => text.parse::<u64>().ok().map(Number::from),
    }
}

/// The JSON value of a scalar, or None when only the serde path can say (floats, radix and legacy-octal integers,
/// integers out of range, anything unusual).
pub(super) fn scalar_value(text: String, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(text));
    }
    if is_null_word(&text) {
        return Some(Value::Null);
    }
    if let Some(flag) = yaml11_bool(&text) {
        return Some(Value::Bool(flag));
    }
    if let Some(number) = decimal_integer(&text) {
        return Some(Value::Number(number));
    }
    is_plain_string(&text).then_some(Value::String(text))
}

/// A mapping key as [`super::parse`]'s `KubeKey` spells it, for keys that are strings as written; None for the rest
/// (numbers, booleans, null and merge keys: the serde path).
pub(super) fn key_text(text: &str, style: ScalarStyle) -> Option<String> {
    if text == "<<" {
        return None;
    }
    match style {
        ScalarStyle::Plain => is_plain_string(text).then(|| text.to_string()),
        _ => Some(text.to_string()),
    }
}

#[cfg(test)]
mod tests;
