//! No function in src/ over 100 lines without a reason: every `fn` (free, method or nested) outside test code is
//! measured from its `fn` line to its closing brace, and each one over the limit must be listed in
//! `function_length_allowed.md` with a reason that is also written in the comment directly above it in src/. An entry
//! whose function is gone or now short fails too, so the list stays honest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The longest a function may be, in lines from its `fn` line to its closing brace.
const LIMIT: usize = 100;

const ALLOWED: &str = include_str!("function_length_allowed.md");

/// `code` with the contents of comments, strings (raw ones too) and char literals turned into spaces, newlines
/// kept: same length in chars and same lines, so braces and `fn` found in it are code.
fn mask(code: &str) -> Vec<char> {
    let src: Vec<char> = code.chars().collect();
    let mut out = src.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        let next = src.get(i + 1).copied();
        let after_ident = i > 0 && ident(src[i - 1]);
        if c == '/' && next == Some('/') {
            let end = src[i..].iter().position(|&c| c == '\n').map_or(src.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let (mut depth, mut j) = (0usize, i);
            while j < src.len() {
                if src[j] == '/' && src.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if src[j] == '*' && src.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (c == 'r' || (c == 'b' && next == Some('r'))) && !after_ident {
            // `r"…"`, `r#"…"#`, `br##"…"##`; `r#ident` is a raw identifier.
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = src[start..].iter().take_while(|&&c| c == '#').count();
            if src.get(start + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let body = start + hashes + 1;
            let mut j = body;
            while j < src.len()
                && !(src[j] == '"' && src[j + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes)
            {
                j += 1;
            }
            blank(&mut out, body, j);
            i = j + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != '"' {
                j += if src[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if c == '\'' {
            // A char literal (`'x'`, `'\n'`, `'\u{7b}'`, `'"'`), or a lifetime or label (`'a`), left as it is.
            let end = if next == Some('\\') {
                src[i + 2..].iter().position(|&c| c == '\'').map(|n| i + 2 + n)
            } else if src.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut out, i + 1, end);
                    i = end + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The index of the brace closing the one at `open` in masked code.
fn closing_brace(code: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first `{` (or `;`, for a body-less trait method or a `mod x;`) from `from` on outside parentheses and
/// brackets: where an item's body starts.
fn body_start(code: &[char], from: usize) -> Option<(usize, char)> {
    let mut depth = 0i32;
    for (at, &c) in code.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' | ';' if depth == 0 => return Some((at, c)),
            _ => {}
        }
    }
    None
}

/// A function found in a file.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    /// 1-based line of its `fn` keyword.
    line: usize,
    /// Lines from the `fn` line to the closing brace, both counted.
    lines: usize,
}

/// Every function with a body in `code`, outside items marked `#[cfg(test)]` (the unit tests module, test helpers).
fn functions(code: &str) -> Vec<Function> {
    let masked = mask(code);
    let text: String = masked.iter().collect();
    // Char index -> line.
    let mut line_of = Vec::with_capacity(masked.len());
    let mut line = 1;
    for &c in &masked {
        line_of.push(line);
        if c == '\n' {
            line += 1;
        }
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let index_of = |byte: usize| chars.partition_point(|&(b, _)| b < byte);
    let mut test_ranges = Vec::new();
    for (byte, _) in text.match_indices("#[cfg(test)]") {
        let at = index_of(byte);
        if let Some((open, '{')) = body_start(&masked, at + "#[cfg(test)]".len())
            && let Some(close) = closing_brace(&masked, open)
        {
            test_ranges.push(at..close);
        }
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (byte, _) in text.match_indices("fn") {
        let at = index_of(byte);
        if (at > 0 && ident(masked[at - 1])) || !masked.get(at + 2).is_some_and(|c| c.is_whitespace()) {
            continue;
        }
        let name_start = at + 2 + masked[at + 2..].iter().take_while(|c| c.is_whitespace()).count();
        let name: String = masked[name_start..].iter().take_while(|&&c| ident(c)).collect();
        if name.is_empty() || test_ranges.iter().any(|range| range.contains(&at)) {
            continue;
        }
        let Some((open, '{')) = body_start(&masked, name_start) else { continue };
        let close = closing_brace(&masked, open).unwrap_or_else(|| panic!("no closing brace for fn {name}"));
        found.push(Function { name, line: line_of[at], lines: line_of[close] - line_of[at] + 1 });
    }
    found
}

/// Whether `code` declares its submodule `name` under `#[cfg(test)]` (`#[cfg(test)]\nmod tests;`).
fn declares_test_module(code: &str, name: &str) -> bool {
    let lines: Vec<&str> = code.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    lines.windows(2).any(|pair| {
        pair[0] == "#[cfg(test)]"
            && pair[1].trim_start_matches("pub(crate) ").trim_start_matches("pub ") == format!("mod {name};")
    })
}

/// The files of src/ that are not test modules, by path relative to the crate (`src/schema/validate.rs`), with
/// their text.
fn sources(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut all = BTreeMap::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                all.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    // `a/b.rs` and `a/b/mod.rs` are declared by `a.rs` or `a/mod.rs`; a test module's own children are tests too.
    let parent_files = |rel: &Path| -> Vec<PathBuf> {
        let dir = rel.parent().unwrap();
        let dir = if rel.file_name().unwrap() == "mod.rs" { dir.parent().unwrap() } else { dir };
        vec![dir.with_extension("rs"), dir.join("mod.rs")]
    };
    let module_name = |rel: &Path| -> String {
        let stem = rel.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" { rel.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned() } else { stem }
    };
    let is_test = |rel: &Path| {
        let mut rel = rel.to_path_buf();
        loop {
            if rel.parent() == Some(Path::new("src")) {
                return false;
            }
            let name = module_name(&rel);
            let parents = parent_files(&rel);
            if parents.iter().any(|parent| all.get(parent).is_some_and(|code| declares_test_module(code, &name))) {
                return true;
            }
            match parents.into_iter().find(|parent| all.contains_key(parent)) {
                Some(parent) => rel = parent,
                None => return false,
            }
        }
    };
    all.iter().filter(|(rel, _)| !is_test(rel)).map(|(rel, code)| (rel.clone(), code.clone())).collect()
}

/// The allow-list: `src/path.rs::name` -> reason, from the list's `- `src/a.rs::f`: reason` lines.
fn allowed() -> BTreeMap<String, String> {
    ALLOWED
        .lines()
        .filter_map(|line| line.strip_prefix("- `"))
        .map(|entry| {
            let (key, reason) = entry.split_once("`: ").unwrap_or_else(|| panic!("no reason in `{entry}`"));
            (key.to_string(), reason.trim().to_string())
        })
        .collect()
}

/// The comment lines and attributes directly above line `line` (1-based), comment markers dropped and joined by
/// spaces.
fn comment_above(code: &str, line: usize) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut comment = Vec::new();
    for above in lines[..line - 1].iter().rev().map(|l| l.trim()) {
        if let Some(text) = above.strip_prefix("///").or_else(|| above.strip_prefix("//")) {
            comment.push(text.trim());
        } else if !above.starts_with("#[") {
            break;
        }
    }
    comment.reverse();
    comment.join(" ")
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn no_function_in_src_is_over_100_lines_without_a_reason() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let allowed = allowed();
    let mut problems = Vec::new();
    let mut long: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    let mut count = 0;
    let sources = sources(root);
    for (rel, code) in &sources {
        for function in functions(code) {
            count += 1;
            if function.lines > LIMIT {
                let key = format!("{}::{}", rel.display(), function.name);
                long.entry(key).or_default().push((function.line, function.lines));
            }
        }
    }
    assert!(count > 2000, "only {count} functions found: the scanner misses some");
    for (key, places) in &long {
        let (path, _) = key.split_once("::").unwrap();
        for (line, lines) in places {
            let Some(reason) = allowed.get(key) else {
                problems.push(format!("{path}:{line}: {key} is {lines} lines: split it, or list it with a reason"));
                continue;
            };
            if !squash(&comment_above(&sources[Path::new(path)], *line)).contains(&squash(reason)) {
                problems.push(format!("{path}:{line}: the comment above {key} does not give its reason: {reason}"));
            }
        }
    }
    for key in allowed.keys().filter(|key| !long.contains_key(*key)) {
        problems.push(format!("{key} is listed but no longer exists or is at most {LIMIT} lines: drop the entry"));
    }
    assert!(
        problems.is_empty(),
        "functions over {LIMIT} lines (tests/tooling/function_length_allowed.md):\n{}",
        problems.join("\n")
    );
}

#[test]
fn braces_in_strings_chars_and_comments_do_not_count() {
    let code = r####"
fn one() {
    let a = "}";
    let b = '}';
    let c = r##"} "# still a string }"##;
    let d = br##"}"##;
    // }
    /* } /* nested } */ } */
    let e = '\'';
    let f = "\"}";
    let _: &'static str = "";
}
fn two<'a>(x: &'a str) -> [u8; 2] where 'a: 'a {
    let r#type = 1;
    [0; 2]
}
trait T { fn declared(&self); }
#[cfg(test)]
mod tests {
    fn hidden() {}
}
"####;
    let found = functions(code);
    assert_eq!(
        found,
        [Function { name: "one".into(), line: 2, lines: 11 }, Function { name: "two".into(), line: 13, lines: 4 }]
    );
}

#[test]
fn nested_functions_and_methods_are_measured_too() {
    let code = "impl X {\n    pub fn outer(&self) {\n        fn inner() {\n            let _ = \"{\";\n        }\n    }\n}\nlet f: fn(u8) = g;\n";
    let found = functions(code);
    assert_eq!(
        found,
        [Function { name: "outer".into(), line: 2, lines: 5 }, Function { name: "inner".into(), line: 3, lines: 3 }]
    );
}

#[test]
fn the_reason_is_read_from_the_comment_above() {
    let code = "/// Does things.\n// Long: one arm per name.\n#[allow(x)]\nfn f() {}\n";
    assert_eq!(comment_above(code, 4), "Does things. Long: one arm per name.");
}
