//! The files of a repository: every file below the root once, hidden VCS directories and `--exclude` matches left
//! out, symlinks that lead outside the repository refused and files that are not regular files (FIFOs, sockets,
//! devices) skipped (never opened); a second path to something already walked (a symlink inside the tree) is an
//! alias of the first.

use std::collections::HashMap;
use std::os::unix::fs::FileTypeExt;
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

/// A second path to a file or directory the walk already took (a symlink inside the repository, or a path below
/// one): the same content, never walked twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    pub relative: String,
    /// The walked path it leads to (a member of [`Tree::files`] or [`Tree::dirs`]).
    pub target: String,
    pub is_dir: bool,
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
    /// FIFOs, sockets and devices: never opened (reading a FIFO blocks until something writes to it).
    pub special: Vec<Refused>,
    /// Symlinks inside the tree to what was walked under another path.
    pub aliases: Vec<Alias>,
}

/// Directories never entered: version control metadata.
pub const VCS_DIRS: [&str; 3] = [".git", ".hg", ".svn"];

/// Walks `root` (a directory).
pub fn walk(root: &Path, excludes: &[ExcludePattern]) -> std::io::Result<Tree> {
    let canonical_root = std::fs::canonicalize(root)?;
    let mut tree = Tree { canonical_root: canonical_root.clone(), ..Tree::default() };
    let mut seen = HashMap::new();
    seen.insert(canonical_root, String::new());
    tree.dirs.push(String::new());
    visit(root, "", excludes, &mut tree, &mut seen)?;
    Ok(tree)
}

fn join_relative(parent: &str, name: &str) -> String {
    if parent.is_empty() { name.to_string() } else { format!("{parent}/{name}") }
}

/// What a file that is neither a regular file nor a directory is, in a few words.
fn special_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_block_device() || file_type.is_char_device() {
        Some("a device")
    } else if file_type.is_file() || file_type.is_dir() {
        None
    } else {
        Some("not a regular file")
    }
}

fn visit(
    dir: &Path,
    relative: &str,
    excludes: &[ExcludePattern],
    tree: &mut Tree,
    seen: &mut HashMap<PathBuf, String>,
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
        // The file the path leads to (a symlink's target, checked above to be inside the tree).
        let Ok(target) = std::fs::metadata(&path) else { continue };
        if let Some(kind) = special_kind(target.file_type()) {
            let reason = format!("{kind}, not a regular file: skipped, never opened");
            tree.special.push(Refused { relative: child, path, reason });
            continue;
        }
        if let Some(first) = seen.get(&canonical) {
            tree.aliases.push(Alias { relative: child, target: first.clone(), is_dir: target.is_dir() });
            continue;
        }
        seen.insert(canonical, child.clone());
        if target.is_dir() {
            tree.dirs.push(child.clone());
            visit(&path, &child, excludes, tree, seen)?;
        } else {
            tree.files.push(TreeFile { relative: child, path });
        }
    }
    Ok(())
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

    #[test]
    fn special_files_are_skipped_and_second_paths_are_aliases() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "token").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("shared")).unwrap();
        std::fs::write(root.join("shared/a.yaml"), "a: 1").unwrap();
        // A symlinked directory inside the repository that holds a second symlink out.
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("shared/out")).unwrap();
        std::os::unix::fs::symlink("shared", root.join("z-link")).unwrap();
        std::os::unix::fs::symlink("shared/a.yaml", root.join("b.yaml")).unwrap();
        std::os::unix::fs::symlink(".", root.join("loop")).unwrap();
        let fifo = root.join("pipe.yaml");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let tree = walk(root, &[]).unwrap();
        let files: Vec<&str> = tree.files.iter().map(|f| f.relative.as_str()).collect();
        // `b.yaml` sorts first: it is the walked path, `shared/a.yaml` its alias.
        assert_eq!(files, ["b.yaml"]);
        assert_eq!(tree.dirs, ["", "shared"]);
        let aliases: Vec<(&str, &str, bool)> =
            tree.aliases.iter().map(|a| (a.relative.as_str(), a.target.as_str(), a.is_dir)).collect();
        assert_eq!(aliases, [("loop", "", true), ("shared/a.yaml", "b.yaml", false), ("z-link", "shared", true)]);
        let refused: Vec<&str> = tree.refused.iter().map(|r| r.relative.as_str()).collect();
        assert_eq!(refused, ["shared/out"]);
        assert_eq!(tree.special.len(), 1);
        assert_eq!(tree.special[0].relative, "pipe.yaml");
        assert_eq!(tree.special[0].reason, "a FIFO (named pipe), not a regular file: skipped, never opened");
    }
}
