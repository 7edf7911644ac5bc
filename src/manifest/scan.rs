//! Rendered manifests (block mappings and sequences of one-line plain and quoted scalars, ASCII only) read by a line
//! scanner of our own: the same values and line records as the event reader of direct.rs, at a fraction of its cost;
//! any other text (flow collections, block scalars, multi-line scalars, escapes, anchors, tags...) is left to it.

use serde_json::{Map, Value};
use serde_saphyr::granit_parser::ScalarStyle;

use super::direct::{MAX_DIRECT_BYTES, key_text, scalar_value};
use super::lined::{LinedDocument, NodeLine};

/// Deeper than this, the event reader reads the text (it has its own depth limit).
const MAX_SCAN_DEPTH: usize = 32;

/// Longer keys are left to the event reader (the parser looks at most so far ahead for a key's `:`).
const MAX_KEY_BYTES: usize = 200;

/// Every non-null document of `text` with its line records, as [`super::direct::lined_documents`] reads them; None
/// when the text holds anything outside the subset this scanner reads (then nothing read here is used).
pub(super) fn lined_documents(text: &str) -> Option<Vec<LinedDocument>> {
    if text.len() >= MAX_DIRECT_BYTES {
        return None;
    }
    let mut scanner = Scanner {
        lines: lines(text)?,
        position: 0,
        nodes: Vec::new(),
        entries: Vec::new(),
        items: Vec::new(),
        depth: 0,
    };
    let mut documents = Vec::new();
    while scanner.position < scanner.lines.len() {
        if scanner.lines[scanner.position].is_marker() {
            scanner.position += 1;
            continue;
        }
        documents.push(scanner.document()?);
    }
    Some(documents)
}

/// One line holding something: its number (1-based), its indentation and its text after the indentation, without
/// trailing spaces. Document markers are lines too; blank and comment lines are not.
#[derive(Clone, Copy)]
struct Line<'t> {
    number: u32,
    indent: usize,
    text: &'t str,
}

impl Line<'_> {
    fn is_marker(&self) -> bool {
        self.indent == 0 && self.text == "---"
    }

    /// Whether the line is a block sequence item (`- ...` or a lone `-`).
    fn is_item(&self) -> bool {
        self.text == "-" || self.text.starts_with("- ")
    }
}

/// The lines of `text` holding something; None when a line is one this scanner leaves to the event reader (markers
/// with content, document ends, directives) or the text holds anything but printable ASCII and line feeds.
fn lines(text: &str) -> Option<Vec<Line<'_>>> {
    let mut out = Vec::with_capacity(text.len() / 24);
    let bytes = text.as_bytes();
    let mut start = 0;
    for index in 0.. {
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |offset| start + offset);
        let raw = &bytes[start..end];
        if !raw.iter().all(|&b| (b' '..0x7f).contains(&b)) {
            return None;
        }
        // ASCII only: any cut is on a character boundary.
        let content = text[start..end].trim_end_matches(' ');
        let body = content.trim_start_matches(' ');
        if !body.is_empty() && !body.starts_with('#') {
            let indent = content.len() - body.len();
            if indent == 0
                && (body.starts_with("---") || body.starts_with("...") || body.starts_with('%'))
                && body != "---"
            {
                return None;
            }
            out.push(Line { number: u32::try_from(index + 1).ok()?, indent, text: body });
        }
        if end == bytes.len() {
            break;
        }
        start = end + 1;
    }
    Some(out)
}

struct Scanner<'t> {
    lines: Vec<Line<'t>>,
    position: usize,
    /// Line records of the document being read, post-order (see [`NodeLine`]).
    nodes: Vec<NodeLine>,
    /// Entries of the mappings being read, innermost last: a mapping is made once its size is known.
    entries: Vec<(String, Value)>,
    /// Items of the sequences being read, innermost last.
    items: Vec<Value>,
    depth: usize,
}

impl<'t> Scanner<'t> {
    /// The next line of the current document, if any.
    fn peek(&self) -> Option<Line<'t>> {
        self.lines.get(self.position).copied().filter(|line| !line.is_marker())
    }

    /// The document starting at the current line: a block mapping, ended by a marker or the end of the text.
    fn document(&mut self) -> Option<LinedDocument> {
        let first = self.peek()?;
        if first.is_item() {
            return None;
        }
        let value = self.mapping(first.indent)?;
        if self.peek().is_some() {
            return None;
        }
        let size = u32::try_from(self.nodes.len() + 1).ok()?;
        self.nodes.push(NodeLine { line: first.number, size });
        Some(LinedDocument {
            value: Value::Object(value),
            line: first.number as usize,
            column: first.indent + 1,
            nodes: std::mem::take(&mut self.nodes),
        })
    }

    /// The block mapping whose keys are at `indent`, from the current line on.
    fn mapping(&mut self, indent: usize) -> Option<Map<String, Value>> {
        self.enter()?;
        let base = self.entries.len();
        while let Some(line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || line.is_item() {
                return None;
            }
            let (key, rest) = split_key(line.text)?;
            self.position += 1;
            let first_record = self.nodes.len();
            let value = self.value_of_key(rest, indent)?;
            let size = u32::try_from(self.nodes.len() - first_record + 1).ok()?;
            self.nodes.push(NodeLine { line: line.number, size });
            self.entries.push((key, value));
        }
        let mut map = Map::with_capacity(self.entries.len() - base);
        for (key, value) in self.entries.drain(base..) {
            if map.insert(key, value).is_some() {
                return None;
            }
        }
        self.depth -= 1;
        Some(map)
    }

    /// The value of a key of the mapping at `indent`, written `rest` after the key's `:` on its line.
    fn value_of_key(&mut self, rest: &str, indent: usize) -> Option<Value> {
        if !rest.is_empty() && !rest.starts_with('#') {
            let value = scalar(rest)?;
            return self.ends_here(indent).then_some(value);
        }
        match self.peek() {
            Some(next) if next.indent > indent && next.is_item() => self.sequence(next.indent).map(Value::Array),
            Some(next) if next.indent > indent => self.mapping(next.indent).map(Value::Object),
            Some(next) if next.indent == indent && next.is_item() => self.sequence(indent).map(Value::Array),
            _ => Some(Value::Null),
        }
    }

    /// The block sequence whose items are at `indent`, from the current line on.
    fn sequence(&mut self, indent: usize) -> Option<Vec<Value>> {
        self.enter()?;
        let base = self.items.len();
        while let Some(line) = self.peek() {
            if line.indent < indent || (line.indent == indent && !line.is_item()) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            let rest = line.text.strip_prefix("- ")?.trim_start_matches(' ');
            if rest.is_empty() || rest.starts_with('#') || rest == "-" || rest.starts_with("- ") {
                return None;
            }
            let first_record = self.nodes.len();
            let value = if is_key(rest)? {
                // `- key: value`: a mapping whose keys are at the column of this one.
                let column = indent + (line.text.len() - rest.len());
                self.lines[self.position] = Line { number: line.number, indent: column, text: rest };
                Value::Object(self.mapping(column)?)
            } else {
                self.position += 1;
                let value = scalar(rest)?;
                if !self.ends_here(indent) {
                    return None;
                }
                value
            };
            let size = u32::try_from(self.nodes.len() - first_record + 1).ok()?;
            self.nodes.push(NodeLine { line: line.number, size });
            self.items.push(value);
        }
        self.depth -= 1;
        Some(self.items.drain(base..).collect())
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_SCAN_DEPTH).then_some(())
    }

    /// Whether a scalar of a node at `indent` ends on its line: the next line is not indented more (a continuation
    /// line, or a mistake the parser reports).
    fn ends_here(&self, indent: usize) -> bool {
        self.peek().is_none_or(|next| next.indent <= indent)
    }
}

/// Whether `text` (after a sequence item's `- `) starts with a mapping key; None when this scanner cannot say.
fn is_key(text: &str) -> Option<bool> {
    match text.as_bytes()[0] {
        b'"' | b'\'' => {
            let (_, after) = quoted(text)?;
            let after = after.trim_start_matches(' ');
            Some(after.starts_with(':') && (after.len() == 1 || after[1..].starts_with(' ')))
        }
        _ => Some(plain_key_end(text)?.is_some()),
    }
}

/// Where the `:` ending a plain key is in `text` (the first one followed by a space or the end of the line), None
/// when there is none; the outer None when the text holds a comment first.
fn plain_key_end(text: &str) -> Option<Option<usize>> {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'#' if i > 0 && bytes[i - 1] == b' ' => return None,
            b':' if matches!(bytes.get(i + 1), None | Some(b' ')) => return Some(Some(i)),
            _ => {}
        }
    }
    Some(None)
}

/// A mapping entry's key (as [`key_text`] spells it) and what follows its `:`, leading spaces removed.
fn split_key(text: &str) -> Option<(String, &str)> {
    let (key, style, after) = match text.as_bytes()[0] {
        b'"' | b'\'' => {
            let (key, after) = quoted(text)?;
            let style = if text.starts_with('"') { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted };
            (key, style, after.trim_start_matches(' ').strip_prefix(':')?)
        }
        first => {
            if is_indicator(first) {
                return None;
            }
            let end = plain_key_end(text)??;
            let key = text[..end].trim_end_matches(' ');
            if key.bytes().any(|b| matches!(b, b'[' | b']' | b'{' | b'}')) {
                return None;
            }
            (key.to_string(), ScalarStyle::Plain, &text[end + 1..])
        }
    };
    if key.len() > MAX_KEY_BYTES || !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((key_text(&key, style)?, after.trim_start_matches(' ')))
}

/// Characters a plain scalar this scanner reads cannot start with.
fn is_indicator(b: u8) -> bool {
    matches!(
        b,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// A quoted scalar at the start of `text` (single quotes with `''` for a quote; double quotes without escapes) and
/// the text after its closing quote.
fn quoted(text: &str) -> Option<(String, &str)> {
    let body = &text[1..];
    if text.starts_with('"') {
        let end = body.find(['"', '\\'])?;
        return (body.as_bytes()[end] == b'"').then(|| (body[..end].to_string(), &body[end + 1..]));
    }
    let mut value = String::new();
    let mut rest = body;
    loop {
        let end = rest.find('\'')?;
        value.push_str(&rest[..end]);
        if rest[end + 1..].starts_with('\'') {
            value.push('\'');
            rest = &rest[end + 2..];
        } else {
            return Some((value, &rest[end + 1..]));
        }
    }
}

/// Whether `rest` (what follows a value on its line, trailing spaces removed) is nothing or a comment.
fn nothing_or_comment(rest: &str) -> bool {
    rest.is_empty() || (rest.starts_with(' ') && rest.trim_start_matches(' ').starts_with('#'))
}

/// The value of a scalar written `text` to the end of its line (a comment may follow).
fn scalar(text: &str) -> Option<Value> {
    match text.as_bytes()[0] {
        b'"' | b'\'' => {
            let (value, rest) = quoted(text)?;
            nothing_or_comment(rest).then_some(Value::String(value))
        }
        b'{' | b'[' => match (text.get(..2)?, nothing_or_comment(&text[2..])) {
            ("{}", true) => Some(Value::Object(Map::new())),
            ("[]", true) => Some(Value::Array(Vec::new())),
            _ => None,
        },
        b'-' if text.len() > 1 && text.as_bytes()[1] != b' ' => plain(text),
        first if is_indicator(first) => None,
        _ => plain(text),
    }
}

/// A plain scalar to the end of its line or to a comment.
fn plain(text: &str) -> Option<Value> {
    let value = match text.find(" #") {
        Some(cut) => text[..cut].trim_end_matches(' '),
        None => text,
    };
    let bytes = value.as_bytes();
    if bytes.last() == Some(&b':')
        || value.contains(": ")
        || bytes.iter().any(|b| matches!(b, b'[' | b']' | b'{' | b'}'))
    {
        return None;
    }
    scalar_value(value.to_string(), ScalarStyle::Plain)
}

#[cfg(test)]
mod tests;
