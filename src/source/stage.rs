//! The staged copy of a repository that tools (kustomize, helm) run on: in a temporary directory, only the files
//! and directories the walk accepted, at their paths, hard-linked when the file system allows it (else copied);
//! symlinks inside the tree become links to the staged directory they lead to. `.git`, a refused symlink, a FIFO, an
//! excluded path or anything outside the repository is not there for a tool to read. The user's files are never
//! written: a file edited in the stage is replaced, never written through its link.

use std::path::{Path, PathBuf};

use regex::Regex;

use super::boundary::Boundary;

/// A staged copy of one repository, removed when dropped.
#[derive(Debug)]
pub struct Stage {
    _dir: tempfile::TempDir,
    /// Canonical path of the staged root.
    root: PathBuf,
    /// The repository root as the user gave it, for messages.
    display_root: PathBuf,
    /// How the files were staged, for measurements and `-v`.
    pub linked: usize,
    pub copied: usize,
}

impl PartialEq for Stage {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Stage {
    /// Stages every walked file and directory of `boundary`.
    pub fn new(boundary: &Boundary) -> std::io::Result<Stage> {
        let dir = tempfile::Builder::new().prefix("kubectl-capz-stage-").tempdir()?;
        let root = std::fs::canonicalize(dir.path())?;
        let mut stage =
            Stage { _dir: dir, root, display_root: boundary.display_root().to_path_buf(), linked: 0, copied: 0 };
        for relative in boundary.dirs() {
            if !relative.is_empty() {
                std::fs::create_dir_all(stage.root.join(relative))?;
            }
        }
        let mut try_links = true;
        let mut stage_file = |stage: &mut Stage, relative: &str, walked: &str| -> std::io::Result<()> {
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
            let target = stage.root.join(relative);
            if try_links {
                match std::fs::hard_link(&source, &target) {
                    Ok(()) => {
                        stage.linked += 1;
                        return Ok(());
                    }
                    // Another file system (or hard links refused): copies from here on.
                    Err(_) => try_links = false,
                }
            }
            std::fs::copy(&source, &target)?;
            stage.copied += 1;
            Ok(())
        };
        for relative in boundary.files() {
            stage_file(&mut stage, relative, relative)?;
        }
        for (relative, target, is_dir) in boundary.aliases() {
            if is_dir {
                std::os::unix::fs::symlink(stage.root.join(target), stage.root.join(relative))?;
            } else {
                stage_file(&mut stage, relative, target)?;
            }
        }
        Ok(stage)
    }

    /// Canonical path of the staged root: the repository as tools see it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `path` (a path below the repository root as the user gave it, as findings show paths) is in the stage;
    /// `None` for a path elsewhere (a temporary values file).
    pub fn staged(&self, path: &Path) -> Option<PathBuf> {
        let inner = path.strip_prefix(&self.display_root).ok()?;
        let relative = super::kustomization::resolve("", &inner.display().to_string())?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::walk;

    #[test]
    fn only_walked_files_are_staged_and_edits_never_reach_the_repository() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "SECRETTOKEN").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "SECRETTOKEN").unwrap();
        std::fs::create_dir_all(root.join("base/empty")).unwrap();
        std::fs::write(root.join("base/kustomization.yaml"), "resources: []\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("base/out")).unwrap();
        std::os::unix::fs::symlink("base", root.join("shared")).unwrap();
        std::os::unix::fs::symlink("kustomization.yaml", root.join("base/k.yaml")).unwrap();
        let tree = walk::walk(root, &[]).unwrap();
        let boundary = Boundary::new(root, &tree);
        let stage = Stage::new(&boundary).unwrap();
        let staged = stage.root().to_path_buf();
        assert!(!staged.join(".git").exists());
        assert!(std::fs::symlink_metadata(staged.join("base/out")).is_err());
        assert!(staged.join("base/empty").is_dir());
        assert_eq!(std::fs::read_to_string(staged.join("shared/kustomization.yaml")).unwrap(), "resources: []\n");
        assert!(!std::fs::symlink_metadata(staged.join("base/k.yaml")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(staged.join("base/k.yaml")).unwrap(), "resources: []\n");
        assert_eq!(stage.linked + stage.copied, 2);
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
