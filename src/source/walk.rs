//! The files of a repository: every file below the root once, hidden VCS directories and `--exclude` matches left
//! out, symlinks that lead outside the repository refused (never read).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::glob::ExcludePattern;

/// One file of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    /// Path from the repository root, `/`-separated (`clusters/prod/ks.yaml`).
    pub relative: String,
    /// The path to open (the root as given, joined with `relative`).
    pub path: PathBuf,
}

/// Something the walk did not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub relative: String,
    pub path: PathBuf,
    pub reason: String,
}

/// The walk over a repository.
#[derive(Debug, Default)]
pub struct Tree {
    /// Canonical path of the root.
    pub canonical_root: PathBuf,
    /// Regular files (also those reached through symlinks inside the tree), in sorted order.
    pub files: Vec<TreeFile>,
    /// Directories (relative, `""` for the root), in sorted order.
    pub dirs: Vec<String>,
    /// Paths excluded by a pattern (not entered).
    pub excluded: Vec<TreeFile>,
    /// Symlinks out of the tree and entries that cannot be read.
    pub refused: Vec<Refused>,
}

/// Directories never entered: version control metadata.
const VCS_DIRS: [&str; 3] = [".git", ".hg", ".svn"];

/// Walks `root` (a directory).
pub fn walk(root: &Path, excludes: &[ExcludePattern]) -> std::io::Result<Tree> {
    let canonical_root = std::fs::canonicalize(root)?;
    let mut tree = Tree { canonical_root: canonical_root.clone(), ..Tree::default() };
    let mut seen = HashSet::new();
    seen.insert(canonical_root);
    tree.dirs.push(String::new());
    visit(root, "", excludes, &mut tree, &mut seen)?;
    Ok(tree)
}

fn join_relative(parent: &str, name: &str) -> String {
    if parent.is_empty() { name.to_string() } else { format!("{parent}/{name}") }
}

fn visit(
    dir: &Path,
    relative: &str,
    excludes: &[ExcludePattern],
    tree: &mut Tree,
    seen: &mut HashSet<PathBuf>,
) -> std::io::Result<()> {
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), entry.path()))
        .collect();
    entries.sort();
    for (name, path) in entries {
        let child = join_relative(relative, &name);
        if VCS_DIRS.contains(&name.as_str()) {
            continue;
        }
        if excludes.iter().any(|pattern| pattern.matches(&child)) {
            tree.excluded.push(TreeFile { relative: child, path });
            continue;
        }
        let Ok(link) = std::fs::symlink_metadata(&path) else { continue };
        let canonical = match std::fs::canonicalize(&path) {
            Ok(canonical) => canonical,
            Err(err) => {
                let reason = if link.file_type().is_symlink() {
                    format!("a symlink whose target cannot be read ({err})")
                } else {
                    format!("cannot be read ({err})")
                };
                tree.refused.push(Refused { relative: child, path, reason });
                continue;
            }
        };
        if link.file_type().is_symlink() && !canonical.starts_with(&tree.canonical_root) {
            let reason = format!("a symlink to `{}`, outside the repository: not read", canonical.display());
            tree.refused.push(Refused { relative: child, path, reason });
            continue;
        }
        if !seen.insert(canonical) {
            continue;
        }
        if canonical_is_dir(&path) {
            tree.dirs.push(child.clone());
            visit(&path, &child, excludes, tree, seen)?;
        } else {
            tree.files.push(TreeFile { relative: child, path });
        }
    }
    Ok(())
}

fn canonical_is_dir(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_excluded_and_outside_links_are_left_out() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.yaml"), "kind: Secret\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join(".git/config"), "x").unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/a.yaml"), "a: 1").unwrap();
        std::fs::write(root.join("b.yaml"), "b: 1").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.yaml"), root.join("leak.yaml")).unwrap();
        std::os::unix::fs::symlink(root.join("b.yaml"), root.join("same.yaml")).unwrap();
        let tree = walk(root, &[ExcludePattern::new("docs")]).unwrap();
        let files: Vec<&str> = tree.files.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(files, ["b.yaml"]);
        assert_eq!(tree.excluded.len(), 1);
        assert_eq!(tree.refused.len(), 1);
        assert!(tree.refused[0].reason.contains("outside the repository"), "{:?}", tree.refused);
    }
}
