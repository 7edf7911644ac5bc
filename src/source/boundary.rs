//! What of a repository may be handed to a tool: the files and directories the walk accepted (and second paths to
//! them through symlinks inside the tree), and for any other path the reason it is not, to refuse a reference to it
//! at the line that names it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::walk::{self, Tree};

/// Why a path is not walked when nothing of the repository is at it.
pub const MISSING: &str = "does not exist in this repository";

/// What a repository-relative path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walked {
    /// A walked directory, by its walked path (aliases resolved).
    Dir(String),
    /// A walked regular file, by its walked path (aliases resolved).
    File(String),
    /// Not walked: why, as the end of a sentence that starts with the path (`is inside .git, which is never read`).
    Not(String),
}

/// The walked tree of one repository.
#[derive(Debug, Default)]
pub struct Boundary {
    /// The root as the user gave it (paths to open are joined to it).
    display_root: PathBuf,
    canonical_root: PathBuf,
    files: HashSet<String>,
    dirs: HashSet<String>,
    /// Second paths (symlinks inside the tree) to walked files and directories, that do not lead back to one of their
    /// own parents.
    aliases: HashMap<String, (String, bool)>,
    /// Symlinks that lead back to a directory above them: never followed (the tree would be infinite).
    cycles: HashSet<String>,
    /// Paths the walk did not take, and why (symlinks out, special files, --exclude).
    not_walked: HashMap<String, String>,
    /// Symlinks out of the repository (and entries that cannot be read).
    out_links: HashSet<String>,
}

impl Boundary {
    pub fn new(display_root: &Path, tree: &Tree) -> Self {
        let mut boundary = Boundary {
            display_root: display_root.to_path_buf(),
            canonical_root: tree.canonical_root.clone(),
            files: tree.files.iter().map(|file| file.relative.clone()).collect(),
            dirs: tree.dirs.iter().cloned().collect(),
            ..Boundary::default()
        };
        for alias in &tree.aliases {
            if alias.is_dir && is_below(&alias.relative, &alias.target) {
                boundary.cycles.insert(alias.relative.clone());
            } else {
                boundary.aliases.insert(alias.relative.clone(), (alias.target.clone(), alias.is_dir));
            }
        }
        for refused in tree.refused.iter().chain(&tree.special) {
            // The walk's reason without what it did about it (`: not read`): the refusal says that.
            let reason = refused.reason.trim_end_matches(": not read").trim_end_matches(": skipped, never opened");
            boundary.not_walked.insert(refused.relative.clone(), format!("is {reason}"));
        }
        boundary.out_links = tree.refused.iter().map(|refused| refused.relative.clone()).collect();
        for excluded in &tree.excluded {
            boundary.not_walked.insert(excluded.relative.clone(), "matches --exclude, so it is never read".to_string());
        }
        boundary
    }

    /// The root as the user gave it.
    pub fn display_root(&self) -> &Path {
        &self.display_root
    }

    pub fn canonical_root(&self) -> &Path {
        &self.canonical_root
    }

    /// Whether `relative` is a walked file (by its walked path, not an alias).
    pub fn is_file(&self, relative: &str) -> bool {
        self.files.contains(relative)
    }

    /// Whether `relative` is a walked directory (by its walked path, not an alias).
    pub fn is_dir(&self, relative: &str) -> bool {
        self.dirs.contains(relative)
    }

    /// What the repository-relative, normalized path `relative` is (`""` is the root).
    pub fn lookup(&self, relative: &str) -> Walked {
        if self.dirs.contains(relative) {
            return Walked::Dir(relative.to_string());
        }
        if self.files.contains(relative) {
            return Walked::File(relative.to_string());
        }
        // Component by component, each prefix replaced by the walked path an alias leads to.
        let mut current = String::new();
        let parts: Vec<&str> = relative.split('/').filter(|part| !part.is_empty()).collect();
        for (index, part) in parts.iter().enumerate() {
            let last = index + 1 == parts.len();
            let shown = parts[..=index].join("/");
            if walk::VCS_DIRS.contains(part) {
                return Walked::Not(format!(
                    "is inside `{shown}`, version control metadata that is never read (nor handed to a tool)"
                ));
            }
            let next = if current.is_empty() { part.to_string() } else { format!("{current}/{part}") };
            if self.cycles.contains(&next) {
                return Walked::Not(format!(
                    "goes through `{shown}`, a symlink to one of its own parent directories: never followed"
                ));
            }
            if let Some(reason) = self.not_walked.get(&next) {
                return Walked::Not(if last { reason.clone() } else { format!("is below `{shown}`, which {reason}") });
            }
            current = match self.aliases.get(&next) {
                Some((target, _)) => target.clone(),
                None => next,
            };
            if self.files.contains(&current) {
                if last {
                    return Walked::File(current);
                }
                return Walked::Not(format!("is below `{shown}`, which is a file"));
            }
            if !self.dirs.contains(&current) {
                return Walked::Not(MISSING.to_string());
            }
        }
        Walked::Dir(current)
    }

    /// The repository-relative path of `path` (a path below the display root, as the loader joins them), or `None`
    /// when it is not below it.
    pub fn relative_of(&self, path: &Path) -> Option<String> {
        let inner = path.strip_prefix(&self.display_root).ok()?;
        super::relative::resolve("", &inner.display().to_string())
    }

    /// The first symlink out of the repository below the walked directory `dir`, at any depth and through symlinked
    /// directories inside the tree, as a path below `dir`, and why it was refused (a chart holding one is not
    /// rendered).
    pub fn first_refused_below(&self, dir: &str) -> Option<(String, String)> {
        // (walked directory, the path it is reached by below `dir`)
        let mut pending = vec![(dir.to_string(), dir.to_string())];
        let mut seen = HashSet::new();
        while let Some((current, shown)) = pending.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            let below = |path: &str| {
                let rest = if current.is_empty() { path } else { path[current.len()..].trim_start_matches('/') };
                if shown.is_empty() { rest.to_string() } else { format!("{shown}/{rest}") }
            };
            let mut refused: Vec<(&String, &String)> = self
                .not_walked
                .iter()
                .filter(|(path, _)| self.out_links.contains(*path) && is_below(path, &current))
                .collect();
            refused.sort();
            if let Some((path, reason)) = refused.first() {
                return Some((below(path), (*reason).clone()));
            }
            let mut aliases: Vec<(String, String)> = self
                .aliases
                .iter()
                .filter(|(path, (_, is_dir))| *is_dir && is_below(path, &current))
                .map(|(path, (target, _))| (target.clone(), below(path)))
                .collect();
            aliases.sort();
            pending.extend(aliases);
        }
        None
    }

    /// The walked files below the walked directory `dir` (at any depth, not through symlinks).
    pub fn files_below(&self, dir: &str) -> Vec<&str> {
        self.files.iter().filter(|file| is_below(file, dir)).map(String::as_str).collect()
    }

    /// The walked directories below `dir` (at any depth, not through symlinks).
    pub fn dirs_below(&self, dir: &str) -> Vec<&str> {
        self.dirs.iter().filter(|sub| is_below(sub, dir)).map(String::as_str).collect()
    }

    /// The aliases below `dir`: (path, walked path it leads to, is a directory).
    pub fn aliases_below(&self, dir: &str) -> Vec<(&str, &str, bool)> {
        self.aliases
            .iter()
            .filter(|(path, _)| is_below(path, dir))
            .map(|(path, (target, is_dir))| (path.as_str(), target.as_str(), *is_dir))
            .collect()
    }

    /// The second paths of the walked file `walked` (symlinks inside the tree that lead to it).
    pub fn file_aliases_of(&self, walked: &str) -> Vec<&str> {
        self.aliases
            .iter()
            .filter(|(_, (target, is_dir))| !is_dir && target == walked)
            .map(|(path, _)| path.as_str())
            .collect()
    }

    /// The aliases that are followed: (path, walked path it leads to, is a directory), sorted.
    pub fn aliases(&self) -> Vec<(&str, &str, bool)> {
        let mut aliases: Vec<(&str, &str, bool)> =
            self.aliases.iter().map(|(path, (target, is_dir))| (path.as_str(), target.as_str(), *is_dir)).collect();
        aliases.sort_unstable();
        aliases
    }
}

/// Whether `relative` is `dir` or below it (`""` is the root).
fn is_below(relative: &str, dir: &str) -> bool {
    dir.is_empty() || relative == dir || relative.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_through_aliases_and_say_why_they_are_not_walked() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "token").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "x").unwrap();
        std::fs::create_dir_all(root.join("base")).unwrap();
        std::fs::write(root.join("base/a.yaml"), "a: 1").unwrap();
        std::fs::write(root.join("docs.yaml"), "a: 1").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("base/out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("evil")).unwrap();
        std::os::unix::fs::symlink("base", root.join("shared")).unwrap();
        std::os::unix::fs::symlink("..", root.join("base/up")).unwrap();
        std::fs::create_dir_all(root.join("chart")).unwrap();
        std::os::unix::fs::symlink("../base", root.join("chart/lib")).unwrap();
        std::fs::create_dir_all(root.join("clean")).unwrap();
        std::fs::write(root.join("clean/a.yaml"), "a: 1").unwrap();
        let tree = walk::walk(root, &[crate::source::ExcludePattern::new("docs.yaml")]).unwrap();
        let boundary = Boundary::new(root, &tree);
        assert_eq!(boundary.lookup("base/a.yaml"), Walked::File("base/a.yaml".into()));
        assert_eq!(boundary.lookup("shared/a.yaml"), Walked::File("base/a.yaml".into()));
        assert_eq!(boundary.lookup("shared"), Walked::Dir("base".into()));
        assert_eq!(boundary.lookup(""), Walked::Dir(String::new()));
        let not = |path: &str| match boundary.lookup(path) {
            Walked::Not(reason) => reason,
            other => panic!("{path}: {other:?}"),
        };
        assert!(not(".git/config").starts_with("is inside `.git`, version control metadata"));
        assert!(not("shared/out").starts_with("is a symlink to `"), "{}", not("shared/out"));
        assert!(not("evil/secret").starts_with("is below `evil`, which is a symlink to `"), "{}", not("evil/secret"));
        assert_eq!(not("docs.yaml"), "matches --exclude, so it is never read");
        assert_eq!(not("base/missing.yaml"), "does not exist in this repository");
        assert!(not("base/up/base/a.yaml").contains("a symlink to one of its own parent directories"));
        assert_eq!(boundary.first_refused_below("base").map(|(path, _)| path), Some("base/out".into()));
        // `chart/lib` leads to `base`, walked first, which holds the symlink out.
        assert_eq!(boundary.first_refused_below("chart").map(|(path, _)| path), Some("chart/lib/out".into()));
        assert_eq!(boundary.first_refused_below("clean"), None);
    }
}
