//! An Argo CD directory source: its manifest files (`recurse`, `include` and `exclude` globs).

use std::path::{Path, PathBuf};

/// Extensions Argo CD reads from a directory source.
const MANIFEST_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// The manifest files of directory `dir` as Argo CD's directory source reads them: `*.yaml`, `*.yml`, `*.json`,
/// below `dir` too when `recurse`, kept when their path relative to `dir` matches `include` (when set) and not
/// `exclude`; both are globs where `*` also crosses `/`, with `{a,b}` alternatives. Symlinks are not followed.
pub fn directory_manifests(dir: &Path, recurse: bool, include: &str, exclude: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            if file_type.is_dir() {
                if recurse && !name.starts_with('.') {
                    pending.push(path);
                }
                continue;
            }
            if !file_type.is_file() {
                continue;
            }
            let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
            if !MANIFEST_EXTENSIONS.contains(&extension) {
                continue;
            }
            let relative = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if !include.is_empty() && !glob_match(include, &relative, true) {
                continue;
            }
            if !exclude.is_empty() && glob_match(exclude, &relative, true) {
                continue;
            }
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Glob matching with `*`, `?` and `{a,b}` alternatives; `*` crosses `/` only when `star_crosses_slash`
/// (Argo CD's directory include/exclude) and stays within a segment otherwise (Go's `path.Match`, used by the
/// git directories generator).
pub fn glob_match(pattern: &str, text: &str, star_crosses_slash: bool) -> bool {
    expand_braces(pattern)
        .iter()
        .any(|alternative| matches(alternative.as_bytes(), text.as_bytes(), star_crosses_slash))
}

fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else { return vec![pattern.to_string()] };
    let Some(close) = pattern[open..].find('}').map(|at| open + at) else { return vec![pattern.to_string()] };
    let (head, body, tail) = (&pattern[..open], &pattern[open + 1..close], &pattern[close + 1..]);
    body.split(',').flat_map(|choice| expand_braces(&format!("{head}{choice}{tail}"))).collect()
}

fn matches(pattern: &[u8], text: &[u8], star_crosses_slash: bool) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => {
            let mut at = 0;
            loop {
                if matches(rest, &text[at..], star_crosses_slash) {
                    return true;
                }
                if at == text.len() || (!star_crosses_slash && text[at] == b'/') {
                    return false;
                }
                at += 1;
            }
        }
        Some((b'?', rest)) => {
            text.first().is_some_and(|c| star_crosses_slash || *c != b'/')
                && matches(rest, &text[1..], star_crosses_slash)
        }
        Some((c, rest)) => text.first() == Some(c) && matches(rest, &text[1..], star_crosses_slash),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_as_argo_cd_and_go_path_match_read_them() {
        assert!(glob_match("*.yaml", "a/b.yaml", true));
        assert!(!glob_match("*.yaml", "a/b.yaml", false));
        assert!(glob_match("clusters/*", "clusters/prod", false));
        assert!(!glob_match("clusters/*", "clusters/prod/x", false));
        assert!(glob_match("{config.json,deploy.yaml}", "deploy.yaml", true));
        assert!(!glob_match("{config.json,deploy.yaml}", "other.yaml", true));
        assert!(glob_match("pool-?.yaml", "pool-1.yaml", false));
    }

    #[test]
    fn directory_sources_keep_manifests_matching_their_globs() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["a.yaml", "b.yml", "c.json", "notes.txt", "sub/d.yaml", "sub/skip.yaml"] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files.iter().map(|file| file.strip_prefix(dir.path()).unwrap().display().to_string()).collect()
        };
        assert_eq!(names(directory_manifests(dir.path(), false, "", "")), ["a.yaml", "b.yml", "c.json"]);
        assert_eq!(names(directory_manifests(dir.path(), true, "*.yaml", "*skip*")), ["a.yaml", "sub/d.yaml"]);
    }
}
