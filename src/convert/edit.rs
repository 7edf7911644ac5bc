//! Format-preserving rewriting of one YAML document: the converted value is applied to the
//! source text as minimal line edits, so comments, key order, quoting and every untouched line
//! stay byte for byte.
//!
//! Why our own editor over block-style lines rather than a lossless YAML crate: Kubernetes
//! manifests in Git are block style (flow only for `{}`/`[]` and short lists), so an edit is
//! always "keep these lines, replace that entry, insert this entry"; the only parser of the
//! project is serde-saphyr, which gives values and positions but no concrete syntax tree, and
//! `yaml-edit` would add a second YAML parser (rowan) with its own reading of YAML 1.1. Every
//! edited document is read back with the project's reader ([`crate::manifest`]) and must equal
//! the converted value, so a layout the editor does not understand is an [`EditError`] (the
//! caller then writes the document fresh and says so) and never a wrong file.

use serde_json::{Map, Value};

use crate::manifest;

/// The editor could not apply the conversion to this document's layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot edit line {line} in place: {message}")]
pub struct EditError {
    /// 1-based line within the document.
    pub line: usize,
    pub message: String,
}

type Result<T> = std::result::Result<T, EditError>;

/// Rewrites `text` (one YAML document, without its `---` line) that reads as `old` so that it
/// reads as `new`.
pub fn edit_document(text: &str, old: &Value, new: &Value) -> Result<String> {
    if old == new {
        return Ok(text.to_string());
    }
    let crlf = text.contains("\r\n");
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect();
    // A document end marker (`...`) and what follows it are not part of the mapping.
    let trailer = match lines.iter().position(|l| l == "..." || l.starts_with("... ")) {
        Some(at) => lines.split_off(at),
        None => Vec::new(),
    };
    let (Value::Object(old), Value::Object(new)) = (old, new) else {
        return Err(EditError { line: 1, message: "the document is not a mapping".into() });
    };
    let editor = Editor { indent_sequences: sequences_are_indented(&lines) };
    let mut out = Vec::new();
    editor.mapping(&lines, 0, 0, old, new, &mut out)?;
    let newline = if crlf { "\r\n" } else { "\n" };
    out.extend(trailer);
    let mut edited = out.join(newline);
    if text.ends_with('\n') || !edited.is_empty() {
        edited.push_str(newline);
    }
    let reread = manifest::parse_plain_documents(&edited, "<edited>")
        .map_err(|err| EditError { line: 1, message: format!("the edit does not read back: {err}") })?;
    match reread.as_slice() {
        [document] if document.value == Value::Object(new.clone()) => Ok(edited),
        _ => Err(EditError { line: 1, message: "the edit does not read back as the converted object".into() }),
    }
}

/// Whether the document writes list items indented below their key (`key:\n  - a`) rather than
/// at the key's column (`key:\n- a`); the first such list decides, indented by default.
fn sequences_are_indented(lines: &[String]) -> bool {
    for pair in lines.windows(2) {
        let (key, item) = (&pair[0], &pair[1]);
        let key_content = key.trim_start();
        if key_content.ends_with(':') && !key_content.starts_with('#') && item.trim_start().starts_with("- ") {
            let key_column = indent_of(key) + if key_content.starts_with("- ") { 2 } else { 0 };
            return indent_of(item) > key_column;
        }
    }
    true
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_filler(line: &str) -> bool {
    let content = line.trim_start();
    content.is_empty() || content.starts_with('#')
}

/// One `key: value` of a block mapping: `lead..key_line` are comments/blank lines before it,
/// `key_line..end` the entry itself.
struct Entry {
    key: String,
    lead: usize,
    key_line: usize,
    end: usize,
    /// Byte offset in the key line just after the `:`.
    after_colon: usize,
}

struct Editor {
    indent_sequences: bool,
}

impl Editor {
    /// Edits the block mapping whose keys are at column `indent` in `lines`; `base` is the
    /// line number of `lines[0]` in the document (for messages).
    fn mapping(
        &self,
        lines: &[String],
        base: usize,
        indent: usize,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let entries = entries(lines, base, indent)?;
        let parsed: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        let expected: Vec<&str> = old.keys().map(String::as_str).collect();
        if parsed != expected {
            return Err(EditError {
                line: base + 1,
                message: "keys written in a form the editor does not read".into(),
            });
        }
        // Comments above (and at the end of) an entry that goes are kept where it was: before
        // what is written in its place. An entry that goes with nothing in its place takes the comment lines
        // right above it (after the last blank line) with it: they spoke of it.
        let surviving: Vec<bool> = entries.iter().map(|e| new.contains_key(&e.key)).collect();
        let mut cursor = 0;
        let mut pending_comment = String::new();
        let flush_removed =
            |cursor: &mut usize, until: usize, replaced: bool, out: &mut Vec<String>, pending: &mut String| {
                while *cursor < until {
                    if !surviving[*cursor] {
                        let entry = &entries[*cursor];
                        let lead = &lines[entry.lead..entry.key_line];
                        let kept = if replaced {
                            lead.len()
                        } else {
                            lead.iter().rposition(|line| line.trim().is_empty()).map_or(0, |blank| blank + 1)
                        };
                        out.extend(lead[..kept].iter().cloned());
                        let (_, comment) = split_comment(&lines[entry.key_line][entry.after_colon..]);
                        if pending.is_empty() && replaced {
                            pending.push_str(comment);
                        }
                    }
                    *cursor += 1;
                }
            };
        for (key, new_value) in new {
            match entries.iter().position(|e| &e.key == key) {
                Some(index) => {
                    flush_removed(&mut cursor, index, false, out, &mut pending_comment);
                    pending_comment.clear();
                    cursor = index + 1;
                    let entry = &entries[index];
                    out.extend(lines[entry.lead..entry.key_line].iter().cloned());
                    let old_value = &old[key];
                    if old_value == new_value {
                        out.extend(lines[entry.key_line..entry.end].iter().cloned());
                    } else {
                        self.entry(lines, base, indent, entry, old_value, new_value, out)?;
                    }
                }
                None => {
                    let next_surviving = (cursor..entries.len()).find(|&i| surviving[i]).unwrap_or(entries.len());
                    flush_removed(&mut cursor, next_surviving, true, out, &mut pending_comment);
                    let mut rendered = self.render_entry(&render_key(key), new_value, indent);
                    if !pending_comment.is_empty() {
                        rendered[0].push_str(&pending_comment);
                        pending_comment.clear();
                    }
                    out.extend(rendered);
                }
            }
        }
        flush_removed(&mut cursor, entries.len(), false, out, &mut pending_comment);
        let tail = entries.last().map_or(0, |e| e.end);
        out.extend(lines[tail..].iter().cloned());
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn entry(
        &self,
        lines: &[String],
        base: usize,
        indent: usize,
        entry: &Entry,
        old: &Value,
        new: &Value,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let key_line = &lines[entry.key_line];
        let rest = &key_line[entry.after_colon..];
        let (inline, comment) = split_comment(rest);
        let block = inline.trim().is_empty();
        let body = &lines[entry.key_line + 1..entry.end];
        let body_indent = body.iter().find(|l| !is_filler(l)).map(|l| indent_of(l));
        match (old, new, block, body_indent) {
            (Value::Object(old), Value::Object(new), true, Some(child)) if !new.is_empty() && child > indent => {
                out.push(key_line.clone());
                self.mapping(body, base + entry.key_line + 1, child, old, new, out)
            }
            (Value::Array(old), Value::Array(new), true, Some(child)) if old.len() == new.len() && child >= indent => {
                out.push(key_line.clone());
                self.sequence(body, base + entry.key_line + 1, child, old, new, out)
            }
            (old, new, false, None) if is_scalar(old) && is_scalar(new) => {
                let prefix = &key_line[..entry.after_colon];
                out.push(format!("{prefix} {}{comment}", render_scalar_as(inline.trim(), new)));
                Ok(())
            }
            (Value::Object(old), Value::Array(items), true, Some(child))
                if child > indent && is_map_to_named_list(old, items) =>
            {
                out.push(key_line.clone());
                self.map_to_named_list(body, base + entry.key_line + 1, indent, child, items, out)
            }
            _ => {
                let key = key_line[indent..entry.after_colon - 1].to_string();
                let mut rendered = self.render_entry(&key, new, indent);
                rendered[0].push_str(comment);
                out.extend(rendered);
                Ok(())
            }
        }
    }

    /// Edits a block sequence whose `- ` are at column `indent`, item by item (same length).
    fn sequence(
        &self,
        lines: &[String],
        base: usize,
        indent: usize,
        old: &[Value],
        new: &[Value],
        out: &mut Vec<String>,
    ) -> Result<()> {
        let mut starts: Vec<usize> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            if indent_of(line) == indent && (line[indent..].starts_with("- ") || &line[indent..] == "-") {
                starts.push(index);
            } else if !is_filler(line) && indent_of(line) <= indent {
                return Err(EditError { line: base + index + 1, message: "unexpected line in a list".into() });
            }
        }
        if starts.len() != old.len() {
            return Err(EditError {
                line: base + 1,
                message: "list items written in a form the editor does not read".into(),
            });
        }
        out.extend(lines[..starts.first().copied().unwrap_or(lines.len())].iter().cloned());
        for (index, &start) in starts.iter().enumerate() {
            let mut end = starts.get(index + 1).copied().unwrap_or(lines.len());
            let item_lead_end = end;
            while end > start + 1 && is_filler(&lines[end - 1]) {
                end -= 1;
            }
            let item = &lines[start..end];
            if old[index] == new[index] {
                out.extend(item.iter().cloned());
            } else {
                self.item(item, base + start, indent, &old[index], &new[index], out)?;
            }
            out.extend(lines[end..item_lead_end].iter().cloned());
        }
        Ok(())
    }

    /// One list item: a mapping item (`- key: …`) is edited as a mapping, anything else rewritten.
    fn item(
        &self,
        item: &[String],
        base: usize,
        indent: usize,
        old: &Value,
        new: &Value,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let first = &item[0];
        let after_dash = first[indent + 1..].len() - first[indent + 1..].trim_start_matches(' ').len();
        let child = indent + 1 + after_dash;
        if let (Value::Object(old), Value::Object(new)) = (old, new) {
            let starts_mapping = child < first.len() && entry_key(&first[child..]).is_some();
            if starts_mapping && !new.is_empty() {
                let mut virtual_lines = item.to_vec();
                virtual_lines[0] = format!("{}{}", " ".repeat(child), &first[child..]);
                let mut edited = Vec::new();
                self.mapping(&virtual_lines, base, child, old, new, &mut edited)?;
                if let Some(line) = edited.iter_mut().find(|l| !is_filler(l)) {
                    line.replace_range(indent..indent + 2, "- ");
                }
                out.extend(edited);
                return Ok(());
            }
        }
        out.extend(self.render_item(new, indent));
        Ok(())
    }

    /// A block mapping (`body`, keys at column `child`) that became a list of `{name, …}` items
    /// (v1beta2's `extraArgs`, `kubeletExtraArgs`): each item is written fresh below the key at
    /// column `indent`, with the comments of its entry: the lines above it before the item, the
    /// trailing comment on the item's `value:` line (else its first line).
    fn map_to_named_list(
        &self,
        body: &[String],
        base: usize,
        indent: usize,
        child: usize,
        items: &[Value],
        out: &mut Vec<String>,
    ) -> Result<()> {
        let body_entries = entries(body, base, child)?;
        let item_indent = if self.indent_sequences { indent + 2 } else { indent };
        out.extend(body[..body_entries.first().map_or(0, |e| e.lead)].iter().cloned());
        for item in items {
            let name = item.get("name").and_then(Value::as_str);
            let entry = body_entries.iter().find(|e| Some(e.key.as_str()) == name);
            if let Some(entry) = entry {
                for line in &body[entry.lead..entry.key_line] {
                    let content = line.trim_start();
                    out.push(if content.is_empty() {
                        String::new()
                    } else {
                        format!("{}{content}", " ".repeat(item_indent))
                    });
                }
            }
            let mut rendered = self.render_item(item, item_indent);
            let comment = entry.map(|e| split_comment(&body[e.key_line][e.after_colon..]).1).unwrap_or("");
            if !comment.is_empty() {
                let value_line =
                    rendered.iter().position(|l| l.trim_start().trim_start_matches("- ").starts_with("value: "));
                let single_line = value_line.is_some_and(|at| {
                    rendered.get(at + 1).is_none_or(|next| indent_of(next) <= indent_of(&rendered[at]))
                });
                let at = if single_line { value_line.unwrap_or(0) } else { 0 };
                rendered[at].push_str(comment);
            }
            out.extend(rendered);
        }
        let tail = body_entries.last().map_or(0, |e| e.end);
        out.extend(body[tail..].iter().cloned());
        Ok(())
    }

    /// `key: value` written fresh at column `indent`.
    fn render_entry(&self, key: &str, value: &Value, indent: usize) -> Vec<String> {
        let pad = " ".repeat(indent);
        match value {
            Value::Object(map) if !map.is_empty() => {
                let mut lines = vec![format!("{pad}{key}:")];
                lines.extend(render_block(value, indent + 2));
                lines
            }
            Value::Array(items) if !items.is_empty() => {
                let mut lines = vec![format!("{pad}{key}:")];
                let child = if self.indent_sequences { indent + 2 } else { indent };
                lines.extend(render_block(value, child));
                lines
            }
            _ => {
                let rendered = render_block(value, indent);
                let mut lines = vec![format!("{pad}{key}: {}", rendered[0].trim_start())];
                lines.extend(rendered[1..].iter().cloned());
                lines
            }
        }
    }

    /// `- value` written fresh at column `indent`.
    fn render_item(&self, value: &Value, indent: usize) -> Vec<String> {
        render_block(&Value::Array(vec![value.clone()]), indent)
    }
}

/// A value as YAML lines indented by `indent` (the project's emitter, so quoting follows the
/// rest of the tool).
fn render_block(value: &Value, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    manifest::to_yaml(value)
        .lines()
        .map(|line| if line.is_empty() { String::new() } else { format!("{pad}{line}") })
        .collect()
}

/// `value` as a scalar in the quotes `written` (the value it replaces) uses, when it is a string they can hold on one
/// line; else as [`render_scalar`] writes it.
fn render_scalar_as(written: &str, value: &Value) -> String {
    match (written.chars().next(), value) {
        (Some('"'), Value::String(text)) => serde_json::to_string(text).unwrap_or_else(|_| render_scalar(value)),
        (Some('\''), Value::String(text)) if !text.contains(['\n', '\r']) => format!("'{}'", text.replace('\'', "''")),
        _ => render_scalar(value),
    }
}

fn render_scalar(value: &Value) -> String {
    manifest::to_yaml(value).trim_end().to_string()
}

fn render_key(key: &str) -> String {
    let mut map = Map::new();
    map.insert(key.to_string(), Value::Null);
    let line = manifest::to_yaml(&Value::Object(map));
    line.trim_end().trim_end_matches("null").trim_end().trim_end_matches(':').to_string()
}

/// Whether `items` is `map` turned into a list of `{name: KEY, …}` items, one per key.
fn is_map_to_named_list(map: &Map<String, Value>, items: &[Value]) -> bool {
    !map.is_empty()
        && items.len() == map.len()
        && items.iter().all(|item| item.get("name").and_then(Value::as_str).is_some_and(|name| map.contains_key(name)))
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Object(_) | Value::Array(_))
        || value.as_object().is_some_and(Map::is_empty)
        || value.as_array().is_some_and(Vec::is_empty)
}

/// The entries of the block mapping at column `indent`.
fn entries(lines: &[String], base: usize, indent: usize) -> Result<Vec<Entry>> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut lead = 0;
    for (index, line) in lines.iter().enumerate() {
        if is_filler(line) {
            continue;
        }
        let line_indent = indent_of(line);
        if line_indent > indent || (line_indent == indent && line[indent..].starts_with("- ") && !entries.is_empty()) {
            continue;
        }
        if line_indent < indent {
            return Err(EditError { line: base + index + 1, message: "a line left of its mapping".into() });
        }
        let Some((key, after_colon)) = entry_key(&line[indent..]) else {
            return Err(EditError { line: base + index + 1, message: "not a `key: value` line".into() });
        };
        if let Some(previous) = entries.last_mut() {
            let mut end = index;
            while end > previous.key_line + 1 && is_filler(&lines[end - 1]) {
                end -= 1;
            }
            previous.end = end;
            lead = end;
        }
        entries.push(Entry { key, lead, key_line: index, end: lines.len(), after_colon: indent + after_colon });
    }
    if let Some(last) = entries.last_mut() {
        while last.end > last.key_line + 1 && is_filler(&lines[last.end - 1]) {
            last.end -= 1;
        }
    }
    Ok(entries)
}

/// The key of a `key: value` line (plain or quoted) and the offset just after its colon.
fn entry_key(content: &str) -> Option<(String, usize)> {
    let quote = content.chars().next()?;
    if quote == '"' || quote == '\'' {
        let close = content[1..].find(quote)? + 1;
        let key = &content[1..close];
        if key.contains('\\') || key.contains(quote) {
            return None;
        }
        let rest = &content[close + 1..];
        let colon = rest.find(|c: char| c != ' ')?;
        (rest[colon..].starts_with(':')).then(|| (key.to_string(), close + 1 + colon + 1))
    } else {
        if matches!(quote, '?' | '&' | '*' | '!' | '[' | '{' | '-' | '<') && !content.starts_with("-") {
            return None;
        }
        let colon = content.match_indices(':').find(|(i, _)| {
            let next = content[i + 1..].chars().next();
            next.is_none() || next == Some(' ')
        })?;
        let key = content[..colon.0].trim_end();
        (!key.is_empty() && !key.contains(" #")).then(|| (key.to_string(), colon.0 + 1))
    }
}

/// Splits the text after a colon into the value and its trailing ` # comment` (kept with its
/// leading spaces).
fn split_comment(rest: &str) -> (&str, &str) {
    let mut quote = None;
    let bytes = rest.as_bytes();
    for (index, c) in rest.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') if rest[..index].trim().is_empty() => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if index == 0 || bytes[index - 1] == b' ' => {
                let start = rest[..index].trim_end().len();
                return (&rest[..start], &rest[start..]);
            }
            _ => {}
        }
    }
    (rest, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Value {
        manifest::parse_plain_documents(text, "t").unwrap().remove(0).value
    }

    #[test]
    fn only_changed_lines_change() {
        let text = "# head\napiVersion: a/v1 # the version\nkind: K\nspec:\n  # keep\n  x: 1\n  old: 10m\n  list:\n  - name: a\n    v: 1\n  - name: b\n    v: 2\n";
        let old = read(text);
        let new = json!({"apiVersion": "a/v2", "kind": "K", "spec": {"x": 1, "deletion": {"seconds": 600},
            "list": [{"name": "a", "v": 1}, {"name": "b", "v": 3}]}});
        let edited = edit_document(text, &old, &new).unwrap();
        assert_eq!(
            edited,
            "# head\napiVersion: a/v2 # the version\nkind: K\nspec:\n  # keep\n  x: 1\n  deletion:\n    seconds: 600\n  list:\n  - name: a\n    v: 1\n  - name: b\n    v: 3\n"
        );
    }

    #[test]
    fn comments_of_map_entries_stay_on_the_list_items_they_became() {
        let text = "spec:\n  extraArgs: # the flags\n    # the cloud\n    cloud-provider: external # why\n    v: '2'\n  other: 1\n";
        let new = json!({"spec": {"extraArgs": [{"name": "cloud-provider", "value": "external"}, {"name": "v", "value": "2"}], "other": 1}});
        let edited = edit_document(text, &read(text), &new).unwrap();
        assert_eq!(
            edited,
            "spec:\n  extraArgs: # the flags\n    # the cloud\n    - name: cloud-provider\n      value: external # why\n    - name: v\n      value: \"2\"\n  other: 1\n"
        );
        // A flow mapping is written fresh; its trailing comment stays on the key.
        let text = "spec:\n  extraArgs: {cloud-provider: external} # why\n";
        let new = json!({"spec": {"extraArgs": [{"name": "cloud-provider", "value": "external"}]}});
        let edited = edit_document(text, &read(text), &new).unwrap();
        assert_eq!(edited, "spec:\n  extraArgs: # why\n    - name: cloud-provider\n      value: external\n");
    }

    #[test]
    fn quoted_scalars_and_unchanged_documents_stay() {
        let text = "a: \"x\"\nb: 'y'\n";
        assert_eq!(edit_document(text, &read(text), &read(text)).unwrap(), text);
        let edited = edit_document(text, &read(text), &json!({"a": "x", "b": "z"})).unwrap();
        assert_eq!(edited, "a: \"x\"\nb: 'z'\n");
        // A changed scalar keeps its quotes: double-quoted with escapes, single-quoted with `''`.
        let edited = edit_document(text, &read(text), &json!({"a": "x\"1", "b": "it's"})).unwrap();
        assert_eq!(edited, "a: \"x\\\"1\"\nb: 'it''s'\n");
        assert_eq!(read(&edited), json!({"a": "x\"1", "b": "it's"}));
        // Unquoted stays unquoted; a number replacing a quoted string is written as a number.
        let text = "a: x # c\nb: \"1\"\n";
        let edited = edit_document(text, &read(text), &json!({"a": "z2", "b": 2})).unwrap();
        assert_eq!(edited, "a: z2 # c\nb: 2\n");
    }

    #[test]
    fn the_comment_right_above_an_entry_that_goes_goes_with_it() {
        let text = "spec:\n  # the section\n\n  # about gone\n  gone: 1\n  kept: 2\n  # about last\n  last: 3\n";
        let edited = edit_document(text, &read(text), &json!({"spec": {"kept": 2}})).unwrap();
        assert_eq!(edited, "spec:\n  # the section\n\n  kept: 2\n");
    }
}
