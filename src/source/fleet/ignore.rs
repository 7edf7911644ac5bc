//! `.fleetignore` files (rancher/fleet internal/bundlereader/loaddirectory.go `ignoreTree`, `readFleetIgnore`):
//! each line is a pattern matched against the base name of the files and directories below the `.fleetignore`'s
//! directory (Go's `filepath.Match`), or `dir/*`, which leaves out a directory of that name; empty lines and `#`
//! comments are skipped, trailing blanks trimmed unless escaped.

/// The patterns of one `.fleetignore`, from its text.
pub fn patterns(text: &str) -> Vec<String> {
    text.lines()
        .map(trim_trailing_blanks)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Fleet trims trailing whitespace unless it follows a backslash (`([^\\])\s+$` -> `$1`).
fn trim_trailing_blanks(line: &str) -> &str {
    let trimmed = line.trim_end();
    if trimmed.len() < line.len() && trimmed.ends_with('\\') {
        // `a\ ` keeps its escaped blank.
        let keep = trimmed.len() + line[trimmed.len()..].chars().next().map_or(0, char::len_utf8);
        return &line[..keep];
    }
    trimmed
}

/// Whether `name` (a base name) of an entry that `is_dir` or not is left out by `patterns`.
pub fn is_ignored(patterns: &[String], name: &str, is_dir: bool) -> bool {
    patterns.iter().any(|pattern| match pattern.strip_suffix("/*").filter(|dir| !dir.is_empty()) {
        Some(dir) => is_dir && dir == name,
        None => go_match(pattern.as_bytes(), name.as_bytes()).unwrap_or(false),
    })
}

/// Go's `filepath.Match` on a name without separators: `*`, `?`, `[class]` (ranges, `^` negation), `\` escapes;
/// `None` for a malformed pattern (Go's `ErrBadPattern`, which makes Fleet fail).
fn go_match(pattern: &[u8], name: &[u8]) -> Option<bool> {
    match pattern.split_first() {
        None => Some(name.is_empty()),
        Some((b'*', rest)) => {
            for start in 0..=name.len() {
                if name[..start].contains(&b'/') {
                    break;
                }
                if go_match(rest, &name[start..])? {
                    return Some(true);
                }
            }
            Some(false)
        }
        Some((b'?', rest)) => match name.split_first() {
            Some((c, tail)) if *c != b'/' => go_match(rest, tail),
            _ => Some(false),
        },
        Some((b'[', rest)) => {
            let (negated, mut class) = match rest.first() {
                Some(b'^') => (true, &rest[1..]),
                _ => (false, rest),
            };
            let Some((c, tail)) = name.split_first() else { return Some(false) };
            let mut matched = false;
            let mut first = true;
            loop {
                match class.first() {
                    None => return None,
                    Some(b']') if !first => {
                        class = &class[1..];
                        break;
                    }
                    _ => {}
                }
                first = false;
                let (low, after) = class_char(class)?;
                let (high, after) = match after.first() {
                    Some(b'-') if after.get(1).is_some_and(|next| *next != b']') => class_char(&after[1..])?,
                    _ => (low, after),
                };
                matched |= low <= *c && *c <= high;
                class = after;
            }
            if matched != negated && *c != b'/' { go_match(class, tail) } else { Some(false) }
        }
        Some((b'\\', rest)) => match (rest.split_first(), name.split_first()) {
            (Some((escaped, rest)), Some((c, tail))) if escaped == c => go_match(rest, tail),
            (Some(_), _) => Some(false),
            (None, _) => None,
        },
        Some((p, rest)) => match name.split_first() {
            Some((c, tail)) if c == p => go_match(rest, tail),
            _ => Some(false),
        },
    }
}

fn class_char(class: &[u8]) -> Option<(u8, &[u8])> {
    match class.split_first()? {
        (b'\\', rest) => rest.split_first().map(|(c, rest)| (*c, rest)),
        (c, rest) => Some((*c, rest)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_skip_comments_and_trim_unescaped_blanks() {
        assert_eq!(patterns("# docs\n\n*.md  \nsecret\\ \ntests/*\n"), ["*.md", "secret\\ ", "tests/*"]);
    }

    #[test]
    fn base_names_match_as_go_filepath_match_does_and_dir_star_leaves_out_directories() {
        let ignore = patterns("*.md\nvalues-?.yaml\n[a-c]*.json\ntests/*\n");
        assert!(is_ignored(&ignore, "README.md", false));
        assert!(is_ignored(&ignore, "values-a.yaml", false));
        assert!(!is_ignored(&ignore, "values-ab.yaml", false));
        assert!(is_ignored(&ignore, "b.json", false));
        assert!(!is_ignored(&ignore, "d.json", false));
        assert!(is_ignored(&ignore, "tests", true));
        assert!(!is_ignored(&ignore, "tests", false));
        assert_eq!(go_match(b"[", b"a"), None);
        assert_eq!(go_match(b"[^x]y", b"ay"), Some(true));
        assert_eq!(go_match(b"\\*", b"*"), Some(true));
    }
}
