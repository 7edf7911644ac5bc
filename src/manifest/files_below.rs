//! The manifest files below a directory, found without following anything out of it: regular files with a
//! `.yaml`, `.yml` (and, when asked, `.json`) name, symlinks and `.git` left out, none larger than a limit, at most a
//! number of them; in path order. For the searches of a change review and `upgrade`, not for building.

use std::path::{Path, PathBuf};

/// What to list.
#[derive(Debug, Clone, Copy)]
pub struct FilesBelow {
    pub json: bool,
    /// Larger files are left out.
    pub max_bytes: u64,
    /// At most this many files are listed.
    pub max_files: usize,
}

impl FilesBelow {
    /// The files below `root`, sorted.
    pub fn list(self, root: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else { continue };
                let path = entry.path();
                if kind.is_dir() {
                    if entry.file_name() != ".git" {
                        stack.push(path);
                    }
                    continue;
                }
                let wanted = path.extension().is_some_and(|e| e == "yaml" || e == "yml" || (self.json && e == "json"));
                if kind.is_file() && wanted && entry.metadata().is_ok_and(|m| m.len() <= self.max_bytes) {
                    out.push(path);
                    if out.len() >= self.max_files {
                        out.sort();
                        return out;
                    }
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_manifest_files_only_and_not_through_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.yaml"), "a: 1\n").unwrap();
        std::fs::create_dir_all(dir.path().join("a/.git")).unwrap();
        std::fs::write(dir.path().join("a/one.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.path().join("a/.git/config.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.path().join("two.json"), "{}").unwrap();
        std::fs::write(dir.path().join("big.yml"), "x".repeat(100)).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.yaml"), dir.path().join("link.yaml")).unwrap();
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files.iter().map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string()).collect()
        };
        let yaml = FilesBelow { json: false, max_bytes: 50, max_files: 100 };
        assert_eq!(names(yaml.list(dir.path())), ["a/one.yaml"]);
        let all = FilesBelow { json: true, max_bytes: 1000, max_files: 100 };
        assert_eq!(names(all.list(dir.path())), ["a/one.yaml", "big.yml", "two.json"]);
    }
}
