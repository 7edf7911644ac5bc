//! The direct reader against the serde path: on every YAML file of the repository and on snippets of each kind of
//! scalar and structure, it reads the same values, lines and columns, or leaves the text to the serde path.

use super::super::lined::LinedDocument;
use super::super::parse::kubernetes_yaml_options;
use super::{lined_documents, read};

fn serde_read(text: &str) -> Result<Vec<LinedDocument>, serde_saphyr::Error> {
    serde_saphyr::from_multiple_with_options::<LinedDocument>(text, kubernetes_yaml_options())
}

/// Whether `text` was read directly; panics when the direct reader reads it differently from the serde path.
fn same_as_serde(text: &str, name: &str) -> bool {
    let Some(direct) = lined_documents(text) else { return false };
    match serde_read(text) {
        Ok(serde) => {
            assert!(direct == serde, "{name}: the direct reader differs\ndirect: {direct:?}\nserde: {serde:?}")
        }
        Err(err) => panic!("{name}: read directly, but the serde path refuses it: {err}"),
    }
    true
}

#[test]
fn every_yaml_file_of_the_repository_reads_as_the_serde_path_reads_it() {
    let files = crate::test_files::repository_yaml_files();
    let (mut direct, mut total) = (0, 0);
    let mut left = std::collections::BTreeMap::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        total += 1;
        if same_as_serde(&text, &file.display().to_string()) {
            direct += 1;
        } else if let Err(why) = read(&text) {
            *left.entry(why).or_insert(0) += 1;
        }
        // Each document on its own too (the parts a stream is cut into).
        for (_, part) in super::super::parse::split_at(&text, &super::super::parse::document_markers(&text)) {
            same_as_serde(part, &file.display().to_string());
        }
    }
    assert!(total > 100, "{total} YAML files found");
    // Nearly every manifest is in the plain subset (1344 of 1432 files when this was written; the others hold
    // anchors, tags, broken documents, floats).
    assert!(direct * 10 > total * 9, "only {direct} of {total} files read directly; left to serde: {left:?}");
}

#[test]
fn scalars_read_as_the_serde_path_reads_them_or_are_left_to_it() {
    let scalars = [
        "yes",
        "Yes",
        "YES",
        "y",
        "Y",
        "n",
        "N",
        "no",
        "on",
        "Off",
        "true",
        "False",
        "TRUE",
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
        "nan",
        "infinity",
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
        "1__0",
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
        "é",
        "日本",
        "0xé",
        "1é",
    ];
    let mut direct = 0;
    for scalar in scalars {
        for text in [
            format!("a: {scalar}\n"),
            format!("a:\n- {scalar}\n- x\n"),
            format!("a: [{scalar}, 1]\n"),
            format!("{scalar}: 1\nb: 2\n"),
            format!("a: '{scalar}'\nb: \"{scalar}\"\n"),
            format!("a: |\n  {scalar}\nb: >-\n  {scalar}\n"),
        ] {
            if same_as_serde(&text, &format!("{text:?}")) {
                direct += 1;
            }
        }
    }
    assert!(direct > scalars.len() * 3, "{direct} read directly");
}

#[test]
fn structures_read_as_the_serde_path_reads_them_or_are_left_to_it() {
    let texts = [
        "",
        "---\n",
        "---\n---\n",
        "# only a comment\n",
        "a: 1\n---\n---\nb: 2\n...\n",
        "--- \nkind: A\n",
        "---\n  kind: A\n  x: 1\n",
        "just text\n",
        "- a\n- b\n",
        "42\n",
        "null\n",
        "{}\n",
        "a: {}\nb: []\nc: {d: [1, {e: f}]}\n",
        "a:\n  b:\n    c:\n    - d: 1\n      e:\n      - f\n",
        "a:\n- - 1\n  - 2\n-\n  b: 1\n",
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "a: &x 1\nb: *x\n",
        "a: &x {c: 1}\nb:\n  <<: *x\n  d: 2\n",
        "a: !!str 1\n",
        "a: !custom x\n",
        "? [a, b]\n: c\n",
        "? a\n: b\n",
        "a: b: c\n",
        "a: [1, 2\n",
        "a:\n\tb: 1\n",
        "a: 'unterminated\n",
        "a: x # comment\n# another\nb: y\n",
        "a: multi\n  line\n  plain\n",
        "a: \"esc\\n\\t\\u00e9\"\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n--- |\n  text\n",
        "kind: List\nitems:\n- kind: A\n  x: 1\n- kind: B\n",
    ];
    for text in texts {
        same_as_serde(text, &format!("{text:?}"));
    }
    let deep = (0..70).fold("x".to_string(), |inner, _| format!("{{a: {inner}}}"));
    assert!(lined_documents(&format!("a: {deep}\n")).is_none());
    assert!(same_as_serde("a: {b: [1, {c: d}]}\n", "flow"));
    assert!(same_as_serde("a:\n  b:\n  - c: 1\n    d:\n  - e\n", "block"));
}

#[test]
fn scalars_starting_with_any_letter_read_as_the_serde_path_reads_them() {
    let tails =
        ["", "1", "_1", "e5", "abc", "-x.y", ".5", "nf", "nfinity", "an", "ull", "rue", "es", "n", "ff", "alse"];
    let mut read = 0;
    for first in ('a'..='z').chain('A'..='Z') {
        for tail in tails {
            let text = format!("k: {first}{tail}\n");
            read += usize::from(same_as_serde(&text, &text));
        }
    }
    assert!(read > 52 * tails.len() / 2, "{read} read directly");
}
