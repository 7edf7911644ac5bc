//! JSON values to block-style YAML that reads back the same under YAML 1.1 (Kubernetes) and
//! YAML 1.2: strings that either would take for a boolean, number, null or timestamp are quoted.

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::escape;

/// Several objects as one multi-document YAML stream, `---` between documents.
pub fn to_yaml_documents<'a>(values: impl IntoIterator<Item = &'a Value>) -> String {
    let mut out = String::new();
    for (i, value) in values.into_iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        write_document(&mut out, value);
    }
    out
}

/// One value as a YAML document (no leading `---`), ending in a newline.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    write_document(&mut out, value);
    out
}

fn write_document(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) if !map.is_empty() => write_map(out, map, 0, false),
        Value::Array(items) if !items.is_empty() => write_seq(out, items, 0, false),
        scalar => {
            write_inline(out, scalar, 0);
            out.push('\n');
        }
    }
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let step = left.min(SPACES.len());
        out.push_str(&SPACES[..step]);
        left -= step;
    }
}

/// Longer keys are written as explicit keys (`? key` then `: value` on the next line).
const MAX_IMPLICIT_KEY_CHARS: usize = 1000;

/// Writes a mapping at `level`; with `first_inline`, the first key follows a `- ` already written.
fn write_map(out: &mut String, map: &Map<String, Value>, level: usize, first_inline: bool) {
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 || !first_inline {
            indent(out, level);
        }
        let start = out.len();
        write_scalar_string(out, key);
        // (A key's characters are at most its bytes: most keys are not counted.)
        if out.len() - start > MAX_IMPLICIT_KEY_CHARS && out[start..].chars().count() > MAX_IMPLICIT_KEY_CHARS {
            // YAML allows at most 1024 characters before the `:` of an implicit key.
            let key = out.split_off(start);
            out.push_str("? ");
            out.push_str(&key);
            out.push('\n');
            indent(out, level);
        }
        out.push(':');
        write_value_after_key(out, value, level);
    }
}

fn write_value_after_key(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(out, map, level + 2, false);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_seq(out, items, level, false);
        }
        other => {
            out.push(' ');
            write_inline(out, other, level + 2);
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, items: &[Value], level: usize, first_inline: bool) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !first_inline {
            indent(out, level);
        }
        out.push_str("- ");
        match item {
            Value::Object(map) if !map.is_empty() => write_map(out, map, level + 2, true),
            Value::Array(inner) if !inner.is_empty() => write_seq(out, inner, level + 2, true),
            other => {
                write_inline(out, other, level + 2);
                out.push('\n');
            }
        }
    }
}

/// A scalar or empty collection on the current line; multi-line strings become literal blocks
/// indented at `block_level`.
fn write_inline(out: &mut String, value: &Value, block_level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) if use_literal_block(s) => write_literal_block(out, s, block_level),
        Value::String(s) => write_scalar_string(out, s),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

/// A literal block (`|`) for multi-line text; not for text of line breaks only, which a block with clip chomping
/// reads back as "" (double quotes keep it).
///
/// Nor for text a CI log would act on (a line starting `::`, a `##[` anywhere): double quotes keep each of its lines
/// behind the key, so no line of the YAML is one of its lines.
fn use_literal_block(s: &str) -> bool {
    s.contains('\n')
        && !s.trim_end_matches('\n').is_empty()
        && !s.chars().any(|c| (c.is_control() && c != '\n') || is_special_unicode(c))
        && !s.lines().any(|line| line.ends_with(' ') || escape::starts_a_command(line))
        && !escape::has_command_prefix(s)
}

fn write_literal_block(out: &mut String, s: &str, level: usize) {
    out.push('|');
    if s.starts_with(' ') || s.starts_with('\n') {
        out.push('2');
    }
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    match trailing {
        0 => out.push('-'),
        1 => {}
        _ => out.push('+'),
    }
    for line in s.trim_end_matches('\n').split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, level);
            out.push_str(line);
        }
    }
    for _ in 1..trailing {
        out.push('\n');
    }
    // The final newline is written by the caller.
}

/// A string as a plain scalar when that reads back as the same string, else double-quoted.
fn write_scalar_string(out: &mut String, s: &str) {
    if needs_quotes(s) { write_double_quoted(out, s) } else { out.push_str(s) }
}

/// Characters outside the C0/C1 controls that must not appear raw: line breaks of YAML 1.1, the byte order mark,
/// the two non-characters YAML excludes from a stream, and the bidirectional formatting characters (which reorder
/// what a terminal shows, [`escape::is_unsafe_char`]).
fn is_special_unicode(c: char) -> bool {
    matches!(c, '\u{fffe}' | '\u{ffff}') || (!c.is_control() && escape::is_unsafe_char(c))
}

/// `s` as a YAML double-quoted scalar: JSON's escapes (which YAML shares) for quotes, backslashes and C0 controls,
/// and `\uXXXX` for every other character YAML does not allow raw in a stream (DEL, the C1 controls, U+FFFE and
/// U+FFFF) or reads as a line break in YAML 1.1 (U+0085, U+2028, U+2029), and for a byte order mark.
fn write_double_quoted(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    for (at, c) in s.char_indices() {
        match c {
            // The second `#` of a logging command's prefix.
            '#' if escape::is_command_hash(s, at) => out.push_str("\\u0023"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() || is_special_unicode(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Plain scalars some reader takes for something else than a string: YAML 1.1's booleans (compared without case:
/// Kubernetes' reader takes only `no`, `No` and `NO` for false, serde-saphyr takes `nO` too), its nulls, the merge key
/// and the value key.
const AMBIGUOUS_WORDS: &[&str] = &["y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "<<", "="];

fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return true };
    if s.len() <= 5 && AMBIGUOUS_WORDS.iter().any(|word| s.eq_ignore_ascii_case(word)) {
        return true;
    }
    if matches!(
        first,
        '-' | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
    ) || first.is_whitespace()
    {
        return true;
    }
    // `...` at the start of a line ends the document (a plain key or list item written there would too).
    if s.starts_with("...") || s.ends_with(char::is_whitespace) || s.ends_with(':') || escape::has_command_prefix(s) {
        return true;
    }
    // One pass for `: `, `:\t`, ` #` and the characters that must not appear raw.
    let mut previous = first;
    for c in s.chars() {
        if (previous == ':' && (c == ' ' || c == '\t')) || (previous == ' ' && c == '#') {
            return true;
        }
        if c.is_control() || is_special_unicode(c) {
            return true;
        }
        previous = c;
    }
    // Anything that could be a number, a float special, a sexagesimal or a timestamp.
    if first.is_ascii_digit() || first == '+' || first == '.' {
        let numeric_alphabet = |c: char| {
            c.is_ascii_hexdigit()
                || matches!(
                    c,
                    'x' | 'X' | 'o' | 'O' | '_' | '.' | ':' | '+' | '-' | 'e' | 'E' | 'T' | 't' | 'Z' | 'z' | ' '
                )
        };
        if s.chars().all(numeric_alphabet) {
            return true;
        }
        let lower = s.to_ascii_lowercase();
        if matches!(lower.as_str(), ".inf" | "+.inf" | ".nan") {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_value;

    fn roundtrip(value: &Value) -> Value {
        parse_value(&to_yaml(value), "test").expect("emitted YAML parses").0
    }

    #[test]
    fn ambiguous_strings_are_quoted_and_read_back_as_strings() {
        for s in [
            "yes",
            "on",
            "Off",
            "y",
            "N",
            "~",
            "null",
            "0755",
            "1_000",
            "1.5",
            "1e3",
            "0x1F",
            "1:20",
            "2001-12-14",
            ".inf",
            "-1",
            "",
            " lead",
            "trail ",
            "a: b",
            "#x",
            "*x",
            "true",
            "12345678901234567890",
        ] {
            let value = Value::String(s.to_string());
            assert_eq!(roundtrip(&value), value, "string {s:?} did not survive");
        }
    }

    #[test]
    fn multi_line_strings_read_back_whatever_their_line_breaks() {
        for s in ["\n", "\n\n", "\n\n\n", "a\n", "a\n\n", "a", "a\nb", "\na", "\n\na\n", " a\nb\n", "a\n\nb"] {
            let value = serde_json::json!({ "key": s, "list": [s] });
            assert_eq!(roundtrip(&value), value, "{s:?} as {}", to_yaml(&value));
        }
    }

    #[test]
    fn every_character_reads_back_as_value_and_as_key() {
        // Each code point of the C0 and C1 ranges and DEL, and the characters YAML 1.1 or a stream treats specially,
        // alone and between letters, as a value, a list item and a key.
        let specials = ['\u{85}', '\u{a0}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{fffe}', '\u{ffff}', '\u{10ffff}'];
        for c in (0..=0xa0u32).filter_map(char::from_u32).chain(specials) {
            for s in [c.to_string(), format!("a{c}b"), format!("a{c}\nb\n")] {
                let value = serde_json::json!({ "key": s, "list": [s], s.clone(): 1 });
                assert_eq!(roundtrip(&value), value, "{s:?} as {}", to_yaml(&value));
            }
        }
    }

    #[test]
    fn document_markers_at_a_line_start_are_quoted() {
        // Found by the `escape` fuzz target: a plain `... x` key or item at the start of a line ended the document.
        for s in ["... ~\u{fffd}..", "...", "... x", "...x", "--- x", "---"] {
            let value = serde_json::json!({ s: [s, {"k": s}], "v": s });
            assert_eq!(roundtrip(&value), value, "{s:?} as {}", to_yaml(&value));
        }
        assert_eq!(to_yaml(&Value::String("..config/x".into())), "..config/x\n");
    }

    #[test]
    fn boolean_words_in_any_case_are_quoted() {
        // Found by the `escape` fuzz target: `nO` was written plain, and serde-saphyr reads every case of YAML 1.1's
        // boolean words as a boolean (Kubernetes' reader only `no`, `No` and `NO`); quoted, both read the string.
        for s in ["nO", "yEs", "tRUE", "oN", "oFF", "fALSE", "nULL", "Y", "off"] {
            let value = serde_json::json!({ s: [s, {"k": s}], "v": s });
            assert_eq!(roundtrip(&value), value, "{s:?} as {}", to_yaml(&value));
            assert_eq!(to_yaml(&Value::String(s.into())), format!("\"{s}\"\n"));
        }
        assert_eq!(to_yaml(&Value::String("nOt".into())), "nOt\n");
    }

    #[test]
    fn plain_strings_stay_plain() {
        assert_eq!(to_yaml(&Value::String("v1.33.2".into())), "v1.33.2\n");
        assert_eq!(to_yaml(&Value::String("10.0.0.0/16".into())), "10.0.0.0/16\n");
        assert_eq!(to_yaml(&Value::String("Standard_D2s_v3".into())), "Standard_D2s_v3\n");
    }

    #[test]
    fn nested_structures_roundtrip() {
        let value = serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "x", "labels": {"a/b": "yes"}, "annotations": {}},
            "data": {"script": "#!/bin/sh\necho hi\n", "nolf": "a\nb", "lead": "  x\ny\n", "many": "a\n\n\n"},
            "list": [1, "two", {"a": 1, "b": [true, null]}, [], {}, [[1, 2], [3]]],
            "empty": ""
        });
        assert_eq!(roundtrip(&value), value);
    }

    #[test]
    fn keys_of_any_length_read_back() {
        for length in [999, 1000, 1001, 1023, 1024, 1025, 2000, 5000] {
            let plain = "k".repeat(length);
            let quoted = format!("yes{}", "\"x\n".repeat(length / 3));
            let value = serde_json::json!({
                "a": {plain.clone(): "v", quoted.clone(): {"nested": [1, {plain.clone(): [quoted.clone()]}]}},
                "list": [{plain.clone(): "first", "b": "second"}, {quoted.clone(): "multi\nline\n"}],
                quoted.clone(): [1, 2],
                "empty": {plain.clone(): {}}
            });
            assert_eq!(roundtrip(&value), value, "keys of {length} characters");
        }
        let long = "k".repeat(2000);
        let text = to_yaml(&serde_json::json!({ long.clone(): "v" }));
        assert_eq!(text, format!("? {long}\n: v\n"));
    }

    #[test]
    fn layout_matches_kubectl_style() {
        let value = serde_json::json!({"spec": {"items": [{"name": "a", "x": 1}, "b"], "empty": {}}});
        assert_eq!(to_yaml(&value), "spec:\n  items:\n  - name: a\n    x: 1\n  - b\n  empty: {}\n");
    }

    #[test]
    fn no_line_of_the_yaml_is_a_ci_command_and_the_values_read_back() {
        let script = "echo start\n  ::add-mask::secret\n::stop-commands::x\n";
        let value = serde_json::json!({
            "script": script,
            "inline": "a ##[add-mask]b ##vso[task.setvariable variable=x]y",
            "::error file=a::key": "\u{202e}reversed\u{2066}",
            "plain multi-line": "a\nb\n",
        });
        let text = to_yaml(&value);
        assert_eq!(roundtrip(&value), value);
        for line in text.lines() {
            assert!(!escape::starts_a_command(line) && !escape::has_command_prefix(line), "{line:?} in\n{text}");
            assert!(!line.chars().any(escape::is_unsafe_char), "{line:?}");
        }
        // Ordinary multi-line text stays a literal block.
        assert!(text.contains("plain multi-line: |\n  a\n  b\n"), "{text}");
        assert!(text.contains("inline: \"a #\\u0023[add-mask]b #\\u0023vso[task"), "{text}");
    }
}
