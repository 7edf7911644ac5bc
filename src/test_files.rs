//! Unit tests' inputs: the repository's files of some extensions under a directory.

use std::path::{Path, PathBuf};

/// Every file under `dir` (recursively, in name order) whose extension is one of `extensions`; none when `dir`
/// cannot be read.
pub(crate) fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect(dir, extensions, &mut found);
    found
}

fn collect(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, extensions, out);
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
            out.push(path);
        }
    }
}

/// Every YAML file (`.yaml`, `.yml`) of the repository's tests, flavors, ClusterClasses and examples.
pub(crate) fn repository_yaml_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["tests", "flavors", "clusterclasses", "examples"]
        .iter()
        .flat_map(|dir| files_under(&root.join(dir), &["yaml", "yml"]))
        .collect()
}
