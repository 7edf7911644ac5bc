//! The staged copy of a repository that tools (kustomize, helm) run on: a temporary directory holding, at their
//! paths, only files the walk accepted, and of those only the ones a build names (the kustomization files and the
//! files they list, a chart's directory, values files), added build by build; hard-linked when the file system allows
//! it, else copied. Symlinks inside the tree to a walked directory become links to the staged directory; a symlink
//! inside the tree to a walked file is staged as that file. `.git`, a refused symlink, a FIFO, an excluded path or
//! anything outside the repository is never there for a tool to read. The user's files are never written: a file
//! edited in the stage is replaced, never written through its link.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use regex::Regex;

use super::boundary::{Boundary, Walked};

/// A staged copy of one repository, removed when dropped.
#[derive(Debug)]
pub struct Stage {
    _dir: tempfile::TempDir,
    /// Canonical path of the staged root.
    root: PathBuf,
    /// The repository root as the user gave it, for messages.
    display_root: PathBuf,
    state: Mutex<Staged>,
}

/// What is in the stage so far.
#[derive(Debug, Default)]
struct Staged {
    files: HashSet<String>,
    dirs: HashSet<String>,
    /// Directories whose whole walked subtree is staged.
    trees: HashSet<String>,
    /// Hard links failed once (another file system): copies from then on.
    copy: bool,
    linked: usize,
    copied: usize,
}

impl PartialEq for Stage {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

/// How many files a stage holds, and how they got there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageCount {
    pub linked: usize,
    pub copied: usize,
}

impl Stage {
    /// An empty stage for the repository of `boundary`, with its symlinked directories in place (as links to the
    /// staged directories they lead to, so a path a tool follows through one stays in the stage).
    pub fn new(boundary: &Boundary) -> std::io::Result<Stage> {
        let dir = tempfile::Builder::new().prefix("kubectl-capz-stage-").tempdir()?;
        let root = std::fs::canonicalize(dir.path())?;
        let stage = Stage {
            _dir: dir,
            root,
            display_root: boundary.display_root().to_path_buf(),
            state: Mutex::new(Staged::default()),
        };
        {
            let mut state = stage.lock();
            for (relative, target, is_dir) in boundary.aliases() {
                if is_dir {
                    stage.make_dir(&mut state, target)?;
                    stage.make_dir(&mut state, parent(relative))?;
                    std::os::unix::fs::symlink(stage.root.join(target), stage.root.join(relative))?;
                }
            }
        }
        Ok(stage)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Staged> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds the files `files` and every walked file below the directories `trees` (through symlinked directories
    /// too), repository-relative paths looked up in `boundary`, with the second paths (symlinks inside the tree) of
    /// each. Anything not walked is skipped: a tool looking for it finds nothing.
    pub fn add(&self, boundary: &Boundary, files: &[String], trees: &[String]) -> std::io::Result<()> {
        let mut state = self.lock();
        let mut pending: Vec<String> = trees
            .iter()
            .filter_map(|tree| match boundary.lookup(tree) {
                Walked::Dir(walked) => Some(walked),
                _ => None,
            })
            .collect();
        while let Some(tree) = pending.pop() {
            if !state.trees.insert(tree.clone()) {
                continue;
            }
            self.make_dir(&mut state, &tree)?;
            for dir in boundary.dirs_below(&tree) {
                self.make_dir(&mut state, dir)?;
            }
            for file in boundary.files_below(&tree) {
                self.add_file(&mut state, boundary, file)?;
            }
            // What symlinks below it lead to (the links themselves are in place, or staged with their file).
            for (_, target, is_dir) in boundary.aliases_below(&tree) {
                if is_dir {
                    pending.push(target.to_string());
                } else {
                    self.add_file(&mut state, boundary, target)?;
                }
            }
        }
        for file in files {
            if let Walked::File(walked) = boundary.lookup(file) {
                self.add_file(&mut state, boundary, &walked)?;
            }
        }
        Ok(())
    }

    /// Stages the walked file `walked` and its aliases.
    fn add_file(&self, state: &mut Staged, boundary: &Boundary, walked: &str) -> std::io::Result<()> {
        if !state.files.insert(walked.to_string()) {
            return Ok(());
        }
        let mut paths = vec![walked];
        paths.extend(boundary.file_aliases_of(walked));
        for relative in paths {
            self.make_dir(state, parent(relative))?;
            let source = boundary.display_root().join(walked);
            // A symlink inside the tree is staged as the file it leads to (checked to be inside by the walk).
            let source = match std::fs::symlink_metadata(&source) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    let canonical = std::fs::canonicalize(&source)?;
                    if !canonical.starts_with(boundary.canonical_root()) {
                        let message = format!("{} leads outside the repository", source.display());
                        return Err(std::io::Error::other(message));
                    }
                    canonical
                }
                _ => source,
            };
            let target = self.root.join(relative);
            if !state.copy {
                match std::fs::hard_link(&source, &target) {
                    Ok(()) => {
                        state.linked += 1;
                        continue;
                    }
                    // Another file system (or hard links refused): copies from here on.
                    Err(_) => state.copy = true,
                }
            }
            std::fs::copy(&source, &target)?;
            state.copied += 1;
        }
        Ok(())
    }

    fn make_dir(&self, state: &mut Staged, relative: &str) -> std::io::Result<()> {
        if !relative.is_empty() && state.dirs.insert(relative.to_string()) {
            std::fs::create_dir_all(self.root.join(relative))?;
        }
        Ok(())
    }

    /// How many files are staged so far, hard-linked and copied.
    pub fn count(&self) -> StageCount {
        let state = self.lock();
        StageCount { linked: state.linked, copied: state.copied }
    }

    /// Canonical path of the staged root: the repository as tools see it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `path` (a path below the repository root as the user gave it, as findings show paths) is in the stage;
    /// `None` for a path elsewhere (a temporary values file).
    pub fn staged(&self, path: &Path) -> Option<PathBuf> {
        let inner = path.strip_prefix(&self.display_root).ok()?;
        let relative = super::relative::resolve("", &inner.display().to_string())?;
        Some(if relative.is_empty() { self.root.clone() } else { self.root.join(relative) })
    }

    /// A tool's message with the stage's paths shown as the repository's (`/tmp/kubectl-capz-stage-x/a/b` and
    /// `../kubectl-capz-stage-x/a/b` as `repo/a/b`), so the same input gives the same message.
    pub fn show(&self, text: &str) -> String {
        let Some(name) = self.root.file_name().and_then(|name| name.to_str()) else { return text.to_string() };
        if !text.contains(name) {
            return text.to_string();
        }
        let display = self.display_root.display().to_string();
        let pattern = format!(r#"(?:[^\s'"`=()\[\]]*/)?{}"#, regex::escape(name));
        match Regex::new(&pattern) {
            Ok(paths) => paths.replace_all(text, regex::NoExpand(&display)).into_owned(),
            Err(_) => text.replace(name, &display),
        }
    }

    /// Replaces the staged file `relative` by `text` (a new file: a hard link to the user's file is never written
    /// through).
    pub fn replace(&self, relative: &str, text: &str) -> std::io::Result<()> {
        let path = self.root.join(relative);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
        }
        std::fs::write(path, text)
    }
}

fn parent(relative: &str) -> &str {
    relative.rsplit_once('/').map_or("", |(dir, _)| dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::walk;

    #[test]
    fn only_the_walked_files_a_build_names_are_staged_and_edits_never_reach_the_repository() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "SECRETTOKEN").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "SECRETTOKEN").unwrap();
        std::fs::create_dir_all(root.join("base/empty")).unwrap();
        std::fs::write(root.join("base/kustomization.yaml"), "resources: []\n").unwrap();
        std::fs::write(root.join("base/other.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("base/out")).unwrap();
        std::os::unix::fs::symlink("base", root.join("shared")).unwrap();
        std::os::unix::fs::symlink("kustomization.yaml", root.join("base/k.yaml")).unwrap();
        std::fs::create_dir_all(root.join("unrelated")).unwrap();
        std::fs::write(root.join("unrelated/x.yaml"), "a: 1\n").unwrap();
        let tree = walk::walk(root, &[]).unwrap();
        let boundary = Boundary::new(root, &tree);
        let stage = Stage::new(&boundary).unwrap();
        let staged = stage.root().to_path_buf();
        assert!(std::fs::symlink_metadata(staged.join("shared")).unwrap().file_type().is_symlink());
        assert_eq!(stage.count(), StageCount { linked: 0, copied: 0 }, "nothing staged before a build asks");
        // `base/k.yaml` sorts first: the walked path, `base/kustomization.yaml` its alias; both are staged.
        stage.add(&boundary, &["base/k.yaml".to_string(), ".git/config".to_string()], &[]).unwrap();
        assert!(!staged.join(".git").exists());
        assert_eq!(std::fs::read_to_string(staged.join("shared/kustomization.yaml")).unwrap(), "resources: []\n");
        assert!(!std::fs::symlink_metadata(staged.join("base/k.yaml")).unwrap().file_type().is_symlink());
        assert!(!staged.join("base/other.yaml").exists());
        let count = stage.count();
        assert_eq!(count.linked + count.copied, 2);
        // A whole directory (a chart): its walked files, never the symlink out.
        stage.add(&boundary, &[], &["base".to_string()]).unwrap();
        assert!(staged.join("base/other.yaml").is_file() && staged.join("base/empty").is_dir());
        assert!(std::fs::symlink_metadata(staged.join("base/out")).is_err());
        assert!(!staged.join("unrelated").exists());
        stage.replace("base/kustomization.yaml", "edited\n").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("base/kustomization.yaml")).unwrap(), "resources: []\n");
        assert_eq!(stage.staged(&root.join("base/x")), Some(staged.join("base/x")));
        assert_eq!(stage.staged(Path::new("/elsewhere/x")), None);
        let name = staged.file_name().unwrap().to_str().unwrap();
        let message = format!("open {}/base/x: no such file; from '../{name}/base'", staged.display());
        assert_eq!(stage.show(&message), format!("open {0}/base/x: no such file; from '{0}/base'", root.display()));
        drop(stage);
        assert!(!staged.exists());
    }
}
