//! Comments say why, not which issue: no comment in the code, the build files or the scripts names an issue
//! number ("issue 22", "issues 14 and 21", "#22" after "issue"). The reasons an issue gave belong in the comment itself.

use std::path::{Path, PathBuf};

/// The comment part of a line: after `//` in Rust, after `#` in TOML and shell (a rough cut: a `#` or `//` inside a
/// string counts too, which only makes the check stricter).
fn comment(line: &str, rust: bool) -> Option<&str> {
    let at = if rust { line.find("//") } else { line.find('#') }?;
    Some(&line[at..])
}

/// Whether the text names an issue by number: `issue` or `issues`, then optional `#` and spaces, then a digit.
fn names_an_issue(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let before_ok = lower[..at].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
        let rest = lower[at + "issue".len()..].trim_start_matches('s');
        let rest = rest.trim_start_matches([' ', '#', '-']);
        before_ok && rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml" || e == "sh") {
            out.push(path);
        }
    }
}

#[test]
fn the_matcher_finds_issue_numbers_and_nothing_else() {
    for named in ["// start-up (issue 22)", "# see issues 14 and 21", "// Issue #7", "//! issue-3"] {
        assert!(names_an_issue(named), "{named}");
    }
    for plain in ["// the issue is the key order", "// reissue 2 tokens", "// issues: none", "// tissue 4"] {
        assert!(!names_an_issue(plain), "{plain}");
    }
}

#[test]
fn no_comment_names_an_issue_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in ["src", "scripts", "fuzz/fuzz_targets", ".cargo", "tests"] {
        if root.join(dir).is_dir() {
            files(&root.join(dir), &mut all);
        }
    }
    all.extend(["build.rs", "Cargo.toml", "fuzz/harness.rs", "fuzz/Cargo.toml"].map(|f| root.join(f)));
    // This file's own examples are the matcher's test data.
    all.retain(|path| !path.ends_with("tests/tooling/comments.rs") && path.is_file());
    let mut found = Vec::new();
    for path in &all {
        let rust = path.extension().is_some_and(|e| e == "rs");
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if comment(line, rust).is_some_and(names_an_issue) {
                found.push(format!("{}:{}: {}", path.strip_prefix(root).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "comments naming an issue number (say the reason instead):\n{}", found.join("\n"));
}
