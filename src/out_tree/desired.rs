//! The desired content of a tree: the files a run writes, by path relative to the output directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::TreeError;
use super::safe_path::{self, RESERVED_PREFIX};

/// The desired content of a tree: relative file path -> bytes. Every file's directory becomes owned.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DesiredTree {
    pub(super) files: BTreeMap<PathBuf, Vec<u8>>,
}

impl DesiredTree {
    /// Adds a file at a path relative to the tree root.
    pub fn insert(&mut self, path: impl Into<PathBuf>, content: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), content.into());
    }
    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }
    /// Whether the tree has no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    /// The content of a file, if the tree has it.
    pub fn get(&self, path: &Path) -> Option<&Vec<u8>> {
        self.files.get(path)
    }
    /// The files, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&PathBuf, &Vec<u8>)> {
        self.files.iter()
    }
    /// The directories and the file names in each; every path must be relative, of plain names, none of
    /// them reserved.
    pub(super) fn owned_dirs(&self) -> Result<BTreeMap<PathBuf, BTreeSet<String>>, TreeError> {
        let mut dirs: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
        for path in self.files.keys() {
            let bad = |reason: String| TreeError::BadPath { path: path.clone(), reason };
            if let Some(problem) = safe_path::relative_path_problem(path) {
                return Err(bad(problem));
            }
            let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
                return Err(bad("is not a file path".into()));
            };
            if path.iter().any(|part| part.to_string_lossy().starts_with(RESERVED_PREFIX)) {
                return Err(bad(format!("uses a name kubectl-capz reserves ({RESERVED_PREFIX}*)")));
            }
            dirs.entry(dir.to_path_buf()).or_default().insert(name.to_string());
        }
        Ok(dirs)
    }
}
