//! Text that came from a repository (file names, object names, kinds, field names, values quoted in messages, tool
//! errors), made safe to print where a CI system or a terminal reads it: every printer of a text-like format goes
//! through here, so a pull request cannot start a line of the log with a workflow command (GitHub Actions' `::error`,
//! `::add-mask::`, `::stop-commands::`), write one anywhere in a line in the older `##[command]` form (GitHub Actions)
//! or `##vso[...]` (Azure Pipelines), move the cursor or recolour the terminal (ESC, CSI), or reorder what is shown
//! (bidirectional overrides).
//!
//! Characters that must not appear raw are written as Rust writes them in a string literal: `\n`, `\r`, `\t`, `\0`,
//! and `\u{1b}` for the others. The second `#` of `##[` and of `##vso[` is written `\u{23}`; a line whose first
//! non-blank characters would be `::` gets its first `:` written `\u{3a}`. A backslash is left as it is: the
//! escapes are for the eye, not to be read back. JSON printers use [`json`], which keeps the data exact.

pub mod json;

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not be printed raw: the C0 and C1 control characters and DEL, the Unicode line and paragraph
/// separators, the bidirectional formatting characters (the "Trojan Source" ones: embeddings, overrides, isolates
/// and the marks) and the byte order mark.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// Whether `text` needs no escaping at all (the common case, checked byte by byte): printable ASCII without `#`.
fn is_plain(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'#')
}

/// Whether the `#` at byte `at` of `text` follows another `#` and starts `#[` or `#vso[`: the second `#` of a
/// logging command's prefix.
pub(crate) fn is_command_hash(text: &str, at: usize) -> bool {
    at > 0 && text.as_bytes()[at - 1] == b'#' && {
        let rest = &text[at + 1..];
        rest.starts_with('[') || rest.starts_with("vso[")
    }
}

/// Appends `c` as an escape.
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c => {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Appends `text` on one line: every unsafe character escaped ([`is_unsafe_char`], line breaks included), logging
/// command prefixes broken.
pub fn push_one_line(out: &mut String, text: &str) {
    if is_plain(text) {
        out.push_str(text);
        return;
    }
    out.reserve(text.len());
    for (at, c) in text.char_indices() {
        if is_unsafe_char(c) || (c == '#' && is_command_hash(text, at)) {
            push_escape(out, c);
        } else {
            out.push(c);
        }
    }
}

/// `text` on one line ([`push_one_line`]).
pub fn one_line(text: &str) -> Cow<'_, str> {
    if is_plain(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_one_line(&mut out, text);
    Cow::Owned(out)
}

/// `text` on one line for Markdown: no HTML tag or entity can open, no code span, no table cell can end.
pub fn markdown_inline(text: &str) -> String {
    one_line(text).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('`', "'").replace('|', "\\|")
}

/// Appends `text` as [`push_one_line`] does, at the start of a line: when its first non-blank characters would be
/// `::` (what GitHub Actions reads as a workflow command, leading white space trimmed), the first `:` is escaped.
pub fn push_line_start(out: &mut String, text: &str) {
    let start = out.len();
    push_one_line(out, text);
    guard_line_start(out, start);
}

/// `text` at the start of a line ([`push_line_start`]).
pub fn line_start(text: &str) -> Cow<'_, str> {
    let escaped = one_line(text);
    if starts_a_command(&escaped) {
        let mut out = String::with_capacity(escaped.len() + 8);
        push_line_start(&mut out, text);
        return Cow::Owned(out);
    }
    escaped
}

/// Several lines of text (a message of ours that quotes repository text, an error and its causes): each line as
/// [`push_line_start`] writes it, the line breaks kept (`\r` is escaped: a bare `\r` ends a line for some CI log
/// readers).
pub fn lines(text: &str) -> Cow<'_, str> {
    if text.split('\n').all(|line| is_plain(line) && !starts_a_command(line)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_line_start(&mut out, line);
    }
    Cow::Owned(out)
}

/// Whether a line starting with `text` would be a workflow command (`::` after leading white space).
pub(crate) fn starts_a_command(text: &str) -> bool {
    text.trim_start_matches(char::is_whitespace).starts_with("::")
}

/// Escapes the first `:` of `out[start..]` when that text would start a workflow command.
fn guard_line_start(out: &mut String, start: usize) {
    if !starts_a_command(&out[start..]) {
        return;
    }
    let blank = out[start..].len() - out[start..].trim_start_matches(char::is_whitespace).len();
    let colon = start + blank;
    out.replace_range(colon..colon + 1, "\\u{3a}");
}

/// Whether `text` holds the prefix of a logging command (`##[`, `##vso[`), which CI runners act on anywhere in a line.
pub(crate) fn has_command_prefix(text: &str) -> bool {
    text.contains("##[") || text.contains("##vso[")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character that is not allowed raw, and the markers of logging commands.
    pub(crate) fn hostile_text() -> String {
        let mut text = String::new();
        for c in (0u32..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            text.push(c);
            text.push('.');
        }
        text.push_str("\u{2028}\u{2029}\u{202e}\u{2066}\u{feff}\n::error::x ##[add-mask]y ##vso[task.setvariable]z");
        text
    }

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        for text in ["", "clusters/prod/cluster.yaml", "AzureASOManagedControlPlane/a-b", "/spec/x~1y: must be < 3"] {
            assert!(matches!(one_line(text), Cow::Borrowed(t) if t == text));
            assert!(matches!(line_start(text), Cow::Borrowed(t) if t == text));
            assert!(matches!(lines(text), Cow::Borrowed(t) if t == text));
        }
        assert_eq!(one_line("ünïcode # one hash, ## two"), "ünïcode # one hash, ## two");
        assert_eq!(lines("two\nlines"), "two\nlines");
    }

    #[test]
    fn every_unsafe_character_is_escaped() {
        let escaped = one_line(&hostile_text()).into_owned();
        assert!(!escaped.chars().any(is_unsafe_char), "{escaped:?}");
        assert!(!escaped.contains("##[") && !escaped.contains("##vso["), "{escaped}");
        assert!(escaped.starts_with("\\0.\\u{1}.\\u{2}."), "{escaped}");
        assert!(escaped.contains("\\t.\\n.\\u{b}.\\u{c}.\\r.") && escaped.contains("\\u{1e}.\\u{1f}.\\u{7f}.\\u{80}."));
        assert!(escaped.contains("\\u{9f}.\\u{2028}\\u{2029}\\u{202e}\\u{2066}\\u{feff}\\n::error::x"), "{escaped}");
        assert!(escaped.ends_with("#\\u{23}[add-mask]y #\\u{23}vso[task.setvariable]z"), "{escaped}");
    }

    #[test]
    fn no_line_starts_a_workflow_command() {
        assert_eq!(line_start("::error::x"), "\\u{3a}:error::x");
        assert_eq!(line_start("  \u{3000}::warning file=a::b"), "  \u{3000}\\u{3a}:warning file=a::b");
        assert_eq!(line_start(":x"), ":x");
        assert_eq!(line_start("a::b"), "a::b");
        let mut out = String::from("line\n");
        push_line_start(&mut out, "::x");
        assert_eq!(out, "line\n\\u{3a}:x", "the text's own start is guarded, not what was there before");
        assert_eq!(
            lines("first\n ::add-mask::s\r\n::stop-commands::t"),
            "first\n \\u{3a}:add-mask::s\\r\n\\u{3a}:stop-commands::t"
        );
        for line in lines(&hostile_text()).split('\n') {
            assert!(!starts_a_command(line), "{line:?}");
            assert!(!line.chars().any(is_unsafe_char), "{line:?}");
        }
    }
}
