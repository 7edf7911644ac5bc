//! The line scanner against the event reader (and the serde path where that one declines): on every YAML file of the
//! repository, each of their documents, edited copies of two fixtures and snippets of each kind of scalar and
//! structure, it reads the same values, lines and columns, or leaves the text to them.

use std::path::Path;

use super::super::lined::LinedDocument;
use super::super::parse::{document_markers, kubernetes_yaml_options, split_at};
use super::lined_documents;

/// What the readers after the scanner make of `text`: the event reader's documents, or the serde path's.
fn reference(text: &str) -> Result<Vec<LinedDocument>, String> {
    if let Some(documents) = super::super::direct::lined_documents(text) {
        return Ok(documents);
    }
    serde_saphyr::from_multiple_with_options::<LinedDocument>(text, kubernetes_yaml_options())
        .map_err(|err| err.to_string())
}

/// Whether `text` was read by the scanner; panics when it reads it differently from the readers after it.
fn same_as_reference(text: &str, name: &str) -> bool {
    let Some(scanned) = lined_documents(text) else { return false };
    match reference(text) {
        Ok(expected) => {
            assert!(scanned == expected, "{name}: the scanner differs\nscanned: {scanned:?}\nexpected: {expected:?}")
        }
        Err(err) => panic!("{name}: scanned, but the parser refuses it: {err}\n{text}"),
    }
    true
}

#[test]
fn every_yaml_file_of_the_repository_reads_as_the_event_reader_reads_it() {
    let files = crate::test_files::repository_yaml_files();
    let (mut scanned, mut total) = (0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        total += 1;
        let name = file.display().to_string();
        if same_as_reference(&text, &name) {
            scanned += 1;
        }
        // Each document on its own too (the parts a stream is cut into).
        for (_, part) in split_at(&text, &document_markers(&text)) {
            same_as_reference(part, &name);
        }
    }
    assert!(total > 100, "{total} YAML files found");
    // Most manifests are in the subset (1168 of 1432 files when this was written; flow collections, block scalars,
    // multi-line strings, escapes and non-ASCII text are not).
    assert!(scanned * 10 > total * 7, "only {scanned} of {total} files scanned");
}

/// Copies of `text` with one line edited: removed, doubled, indented one and two spaces more or one less, with a
/// comment or trailing spaces after it, its value quoted, a blank or comment line before it.
fn edited_copies(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for i in 0..lines.len() {
        let line = lines[i];
        let quoted = |quote: char| match line.split_once(": ") {
            Some((key, value)) => format!("{key}: {quote}{value}{quote}"),
            None => line.to_string(),
        };
        let edits: Vec<Option<String>> = vec![
            None,
            Some(format!("{line}\n{line}")),
            Some(format!(" {line}")),
            Some(format!("  {line}")),
            line.strip_prefix(' ').map(str::to_string),
            Some(format!("{line} # note")),
            Some(format!("{line}#x")),
            Some(format!("{line}   ")),
            Some(quoted('\'')),
            Some(quoted('"')),
            Some(format!("\n{line}")),
            Some(format!("  # note\n{line}")),
            Some(format!("---\n{line}")),
            Some(line.replacen("- ", "-   ", 1)),
            Some(line.replacen(": ", ":   ", 1)),
            Some(line.replacen(": ", " : ", 1)),
        ];
        for edit in edits {
            let mut copy: Vec<&str> = lines.clone();
            let edited;
            match &edit {
                Some(text) => {
                    edited = text.clone();
                    copy[i] = &edited;
                }
                None => {
                    copy.remove(i);
                }
            }
            out.push(copy.join("\n") + "\n");
        }
    }
    out
}

#[test]
fn edited_copies_of_rendered_manifests_read_as_the_event_reader_reads_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint");
    let mut scanned = 0;
    let mut total = 0;
    for fixture in ["aks-aso.yaml", "aks.yaml"] {
        let text = std::fs::read_to_string(root.join(fixture)).unwrap();
        assert!(same_as_reference(&text, fixture), "{fixture} is not scanned");
        for (i, copy) in edited_copies(&text).iter().enumerate() {
            total += 1;
            if same_as_reference(copy, &format!("{fixture}, edit {i}")) {
                scanned += 1;
            }
        }
    }
    // 2945 of 4080 when this was written.
    assert!(scanned * 10 > total * 6, "{scanned} of {total} scanned");
}

#[test]
fn scalars_read_as_the_event_reader_reads_them_or_are_left_to_it() {
    let scalars = [
        "yes",
        "Yes",
        "y",
        "N",
        "no",
        "on",
        "Off",
        "true",
        "False",
        "tRuE",
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "nil",
        "",
        "0",
        "-0",
        "7",
        "-7",
        "42",
        "0755",
        "0o17",
        "0x1F",
        "0b101",
        "1_000",
        "+1",
        "-",
        "--",
        "---",
        "-x",
        "+x",
        ".",
        ".5",
        "5.",
        "1.5",
        "1e3",
        "1e1000",
        ".inf",
        "-.Inf",
        ".nan",
        "inf",
        "NaN",
        "e5",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "192.168.0.0/16",
        "10:30",
        "1:2:3",
        "1.29.5",
        "v1.29.5",
        "0.0.0.0",
        "12Gi",
        "500m",
        "2e",
        "0x",
        "0_1",
        "_1",
        "a b",
        "a  b",
        "-1 2",
        "/path",
        "${VAR}",
        "$(x)",
        "@",
        "`x`",
        "%x",
        "!x",
        "x!",
        "a#b",
        "a #b",
        "a:b",
        "a: b",
        "a:",
        "http://x:80/y",
        "it's",
        "say \"x\"",
        "'q'",
        "\"q\"",
        "''",
        "\"\"",
        "'a''b'",
        "\"a\\\"b\"",
        "{}",
        "[]",
        "{ }",
        "[a]",
        "{a: b}",
        "a,b",
        "?x",
        "? x",
        ":x",
        "*x",
        "&x y",
        "|",
        ">",
        "- x",
        "a\\b",
        "é",
    ];
    let mut scanned = 0;
    for scalar in scalars {
        for text in [
            format!("a: {scalar}\n"),
            format!("a: {scalar}\nb: 1\n"),
            format!("a: {scalar} # c\n"),
            format!("a:\n- {scalar}\n- x\n"),
            format!("a:\n  - {scalar}\n  - b: {scalar}\n    c: 1\n"),
            format!("{scalar}: 1\nb: 2\n"),
            format!("b:\n  {scalar}: 1\n"),
            format!("- {scalar}: 1\n"),
            format!("a: '{scalar}'\nb: \"{scalar}\"\n"),
            format!("'{scalar}': 1\n\"{scalar}\": 2\n"),
        ] {
            if same_as_reference(&text, &format!("{text:?}")) {
                scanned += 1;
            }
        }
    }
    // 450 of 1020 when this was written.
    assert!(scanned > scalars.len() * 4, "{scanned} scanned");
}

#[test]
fn structures_read_as_the_event_reader_reads_them_or_are_left_to_it() {
    let texts = [
        "",
        "\n\n",
        "---\n",
        "---\n---\n",
        "# only a comment\n",
        "a: 1\n---\n---\nb: 2\n...\n",
        "a: 1\n---\n---\nb: 2\n",
        "--- \nkind: A\n",
        "---\nkind: A\n--- # c\nkind: B\n",
        "---\n  kind: A\n  x: 1\n",
        "  kind: A\nx: 1\n",
        "just text\n",
        "- a\n- b\n",
        "42\n",
        "null\n",
        "{}\n",
        "a: {}\nb: []\nc: {d: [1, {e: f}]}\n",
        "a:\n  b:\n    c:\n    - d: 1\n      e:\n      - f\n",
        "a:\n- - 1\n  - 2\n-\n  b: 1\n",
        "a:\n-\n  b: 1\n",
        "a:\n- # c\n  b: 1\n",
        "a:\n- b: 1\n   c: 2\n",
        "a:\n- b: 1\n c: 2\n",
        "a:\n  - b: 1\n  c: 2\n",
        "a:\n- b: 1\nc: 2\n",
        "a:\n- b:\n  - 1\n  c: 2\n",
        "a:\n  - 1\n - 2\n",
        "a:\n  b: 1\n c: 2\n",
        "a:\n    b: 1\n  c: 2\n",
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "? a\n: b\n",
        "a: b: c\n",
        "a: [1, 2\n",
        "a:\n\tb: 1\n",
        "a: 'unterminated\n",
        "a: \"unterminated\nb: 1\n",
        "a: 'two\n  lines'\n",
        "a: x # comment\n# another\nb: y\n",
        "a: x # comment\n  # indented comment\nb: y\n",
        "a: multi\n  line\n  plain\n",
        "a:\n  multi\n  line\n",
        "a: \"esc\\n\\t\"\n",
        "a: 'x' y\n",
        "a: \"x\"y\n",
        "a: 'x' # c\n",
        "a: \"x\"  # c\n",
        "\"a\" : 1\n'b'  : 2\n",
        "\"a\":1\n",
        "a : 1\n",
        "a:1\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n--- |\n  text\n",
        "a: 1\n----\n",
        "a: 1\n  ---\n",
        "kind: List\nitems:\n- kind: A\n  x: 1\n- kind: B\n",
        "a:\n- b\n-   c: 1\n    d: 2\n",
        "a:   \n  b: 1\n",
        "a:\n\n  b: 1\n\n",
        "a: 1\r\nb: 2\r\n",
        "a: b\u{0}\n",
        "\u{feff}a: 1\n",
        "a: 1\n#c\n---\n#d\n",
        "a: {} # c\nb: [] #c\n",
        "a: {}x\n",
        "a: []]\n",
        "-a: 1\n",
        "a b: 1\nc  d: 2\n",
        "a #b: 1\n",
        "a: #b\n  c: 1\n",
    ];
    for text in texts {
        same_as_reference(text, &format!("{text:?}"));
    }
    let deep = (0..70).fold("x: 1".to_string(), |inner, _| format!("a:\n{}", indent(&inner)));
    assert!(lined_documents(&deep).is_none());
    assert!(same_as_reference("a:\n  b:\n  - c: 1\n    d:\n  - e\n", "block"));
    assert!(same_as_reference("a: 1\n---\nb:\n- 'x'\n- \"y\" # c\n", "two documents"));
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}
