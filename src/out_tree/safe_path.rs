//! Paths inside the output directory: names read from it are checked to be plain file names, and every
//! directory on the way to a path the tool touches is checked to be a real directory, never a symbolic link.
//!
//! Why `symlink_metadata` checks rather than `openat(O_NOFOLLOW)`: the adversary this guards against is the
//! content of the repository (a marker, a journal or a symbolic link committed by a pull request), which does
//! not change while a run holds the output directory's lock; the checks run on the plan's paths before any
//! write and again, per directory, before the switch. A local user racing the tool with write access to the
//! output directory can already change its files; an fd-based walk would close that window too, at the cost
//! of a new dependency and a rewrite of every file operation around directory handles.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::TreeError;

/// The prefix of every name the tool keeps for itself inside the output directory (marker, journal,
/// temporary and backup files).
pub const RESERVED_PREFIX: &str = ".kubectl-capz-";

/// Why a name read from the output directory is not a plain file name, or `None` when it is one.
pub fn plain_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.starts_with('/') {
        Some("is an absolute path")
    } else if name == "." || name == ".." {
        Some("is `.` or `..`")
    } else if name.contains('/') || name.contains('\\') {
        Some("contains a path separator")
    } else if name.contains('\0') {
        Some("contains a NUL byte")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else if name.len() > 255 {
        Some("is longer than 255 bytes")
    } else {
        None
    }
}

/// Why a relative path (the tool's own, or read from a journal) is not made of plain names only.
pub fn relative_path_problem(path: &Path) -> Option<String> {
    if path.as_os_str().is_empty() {
        return None;
    }
    for component in path.components() {
        match component {
            Component::Normal(part) => {
                let Some(part) = part.to_str() else { return Some("is not UTF-8".into()) };
                if let Some(problem) = plain_name_problem(part) {
                    return Some(format!("has a part that {problem}"));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Some("is an absolute path".into()),
            Component::ParentDir => return Some("contains `..`".into()),
            Component::CurDir => return Some("contains `.`".into()),
        }
    }
    None
}

/// What is at a path, without following a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing.
    Absent,
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link (never followed).
    Symlink,
    /// A socket, device, FIFO.
    Other,
}

/// What is at `path`, not following a final symbolic link.
pub fn kind_of(path: &Path) -> std::io::Result<Kind> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            let t = meta.file_type();
            Ok(if t.is_symlink() {
                Kind::Symlink
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Kind::Absent),
        Err(e) => Err(e),
    }
}

/// Whether the output directory `root` exists; a file or a symbolic link there is an error (the directory a user
/// names is written as it is, never through a link, which a repository's content may have put there).
pub(super) fn existing_root(root: &Path) -> Result<bool, TreeError> {
    match kind_of(root).map_err(|source| TreeError::Io { action: "inspect", path: root.to_path_buf(), source })? {
        Kind::Dir => Ok(true),
        Kind::Absent => Ok(false),
        Kind::Symlink => Err(TreeError::SymlinkedRoot(root.to_path_buf())),
        Kind::File | Kind::Other => Err(TreeError::NotADirectory(root.to_path_buf())),
    }
}

/// A problem on the way from the root to a directory.
#[derive(Debug)]
pub enum ChainProblem {
    /// This path (absolute) is a symbolic link.
    Symlink(PathBuf),
    /// This path (absolute) is a file or another non-directory.
    NotADirectory(PathBuf),
    /// Inspecting this path failed.
    Io(PathBuf, std::io::Error),
}

/// Checks the directories below one root, caching what each path is: thousands of cluster directories
/// share their parents.
pub struct DirChain<'r> {
    root: &'r Path,
    kinds: HashMap<PathBuf, Kind>,
}

impl<'r> DirChain<'r> {
    /// A checker for directories below `root` (the root itself is the user's choice and may be a link).
    pub fn new(root: &'r Path) -> Self {
        DirChain { root, kinds: HashMap::new() }
    }

    fn kind(&mut self, rel: &Path) -> Result<Kind, ChainProblem> {
        if let Some(kind) = self.kinds.get(rel) {
            return Ok(*kind);
        }
        let abs = self.root.join(rel);
        let kind = kind_of(&abs).map_err(|e| ChainProblem::Io(abs, e))?;
        self.kinds.insert(rel.to_path_buf(), kind);
        Ok(kind)
    }

    /// The parts of the directory `rel` that do not exist yet (parents first; empty when it exists), every
    /// existing part below the root being a real directory.
    pub fn missing(&mut self, rel: &Path) -> Result<Vec<PathBuf>, ChainProblem> {
        let mut current = PathBuf::new();
        let mut missing = Vec::new();
        for component in rel.components() {
            current.push(component);
            if !missing.is_empty() {
                missing.push(current.clone());
                continue;
            }
            match self.kind(&current)? {
                Kind::Dir => {}
                Kind::Absent => missing.push(current.clone()),
                Kind::Symlink => return Err(ChainProblem::Symlink(self.root.join(&current))),
                Kind::File | Kind::Other => return Err(ChainProblem::NotADirectory(self.root.join(&current))),
            }
        }
        Ok(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names() {
        assert_eq!(plain_name_problem("cluster.yaml"), None);
        assert_eq!(plain_name_problem("../../victim"), Some("contains a path separator"));
        assert_eq!(plain_name_problem("/etc/passwd"), Some("is an absolute path"));
        assert_eq!(plain_name_problem(".."), Some("is `.` or `..`"));
        assert_eq!(plain_name_problem("a\0b"), Some("contains a NUL byte"));
        assert_eq!(plain_name_problem("a\\b"), Some("contains a path separator"));
        assert_eq!(plain_name_problem("a\nb"), Some("contains a control character"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative_path_problem(Path::new("clusters/ns/a")), None);
        assert!(relative_path_problem(Path::new("clusters/../../x")).is_some());
        assert!(relative_path_problem(Path::new("/abs")).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("real/x")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let mut chain = DirChain::new(dir.path());
        assert!(chain.missing(Path::new("real/x")).unwrap().is_empty());
        assert_eq!(chain.missing(Path::new("real/y/z")).unwrap(), vec![PathBuf::from("real/y"), "real/y/z".into()]);
        assert!(matches!(chain.missing(Path::new("link/x")), Err(ChainProblem::Symlink(_))));
    }
}
