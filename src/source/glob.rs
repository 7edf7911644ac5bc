//! `--exclude` patterns: shell globs over repository-relative paths (`*`, `?`, `**` across directories).

/// One exclude pattern. A pattern without `/` matches a file or directory name at any depth (as in .gitignore);
/// one with `/` matches the path from the repository root. A directory that matches is not entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcludePattern {
    pattern: String,
    anchored: bool,
}

impl ExcludePattern {
    pub fn new(pattern: &str) -> Self {
        let trimmed = pattern.trim_start_matches("./").trim_end_matches('/');
        let anchored = trimmed.contains('/');
        ExcludePattern { pattern: trimmed.trim_start_matches('/').to_string(), anchored }
    }

    /// The pattern as given (without a leading `./` or trailing `/`).
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether `relative` (a repository-relative path with `/` separators) is excluded.
    pub fn matches(&self, relative: &str) -> bool {
        if self.anchored {
            return glob_match(self.pattern.as_bytes(), relative.as_bytes());
        }
        relative.rsplit('/').next().is_some_and(|name| glob_match(self.pattern.as_bytes(), name.as_bytes()))
            || glob_match(self.pattern.as_bytes(), relative.as_bytes())
    }
}

/// Glob matching: `*` and `?` stay within one path segment, `**` crosses segments (`a/**/b` also matches `a/b`).
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) if rest.first() == Some(&b'*') => {
            let rest = &rest[1..];
            // `**/` also matches no directory at all.
            let after_slash = rest.strip_prefix(b"/").unwrap_or(rest);
            if glob_match(after_slash, text) {
                return true;
            }
            (0..text.len()).any(|i| glob_match(rest, &text[i + 1..]) || glob_match(after_slash, &text[i + 1..]))
        }
        Some((b'*', rest)) => {
            for i in 0..=text.len() {
                if glob_match(rest, &text[i..]) {
                    return true;
                }
                if text.get(i) == Some(&b'/') {
                    return false;
                }
            }
            false
        }
        Some((b'?', rest)) => text.first().is_some_and(|c| *c != b'/') && glob_match(rest, &text[1..]),
        Some((c, rest)) => text.first() == Some(c) && glob_match(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_at_any_depth_and_paths_from_the_root() {
        let docs = ExcludePattern::new("docs");
        assert!(docs.matches("docs") && docs.matches("a/docs") && !docs.matches("docsite"));
        let yaml = ExcludePattern::new("*.yaml");
        assert!(yaml.matches("a/b/c.yaml") && !yaml.matches("a/b/c.yml"));
        let anchored = ExcludePattern::new("./clusters/*/secrets/");
        assert!(anchored.matches("clusters/prod/secrets") && !anchored.matches("x/clusters/prod/secrets"));
        assert!(!anchored.matches("clusters/a/b/secrets"));
        let deep = ExcludePattern::new("apps/**/test-*.yaml");
        assert!(deep.matches("apps/test-1.yaml") && deep.matches("apps/a/b/test-1.yaml"));
        assert!(!deep.matches("apps/a/b/prod.yaml") && !deep.matches("other/test-1.yaml"));
        assert!(
            ExcludePattern::new("c?.yaml").matches("c1.yaml") && !ExcludePattern::new("c?.yaml").matches("c/.yaml")
        );
    }
}
