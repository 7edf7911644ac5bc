//! What the writer of earlier versions left: `render --out-dir` staged its files in a directory beside the output
//! directory (`.<name>.new-*`, and `.<name>.old-*` before that) and swapped the two in one rename, so a run killed
//! there left that directory behind. The next run removes such a directory when it holds nothing but files a
//! render writes; one holding anything else is left alone.

use std::path::{Path, PathBuf};

use super::{TreeError, io_err};

/// The staging directories beside `root` that an interrupted render of an earlier version left, holding only
/// regular files `is_ours` accepts.
pub(super) fn exchange_leftovers(root: &Path, is_ours: fn(&str) -> bool) -> Result<Vec<PathBuf>, TreeError> {
    let parent = match root.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = root.file_name().map_or_else(|| "out".into(), |name| name.to_string_lossy().into_owned());
    let prefixes = [format!(".{base}.new-"), format!(".{base}.old-")];
    let mut found = Vec::new();
    let entries = match std::fs::read_dir(&parent) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(io_err("list", &parent)(e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !prefixes.iter().any(|prefix| name.starts_with(prefix.as_str()))
            || !entry.file_type().is_ok_and(|t| t.is_dir())
        {
            continue;
        }
        if only_our_files(&entry.path(), is_ours)? {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// Whether every entry of `dir` is a regular file `is_ours` accepts.
fn only_our_files(dir: &Path, is_ours: fn(&str) -> bool) -> Result<bool, TreeError> {
    for entry in std::fs::read_dir(dir).map_err(io_err("list", dir))? {
        let entry = entry.map_err(io_err("list", dir))?;
        let ours = entry.file_type().is_ok_and(|t| t.is_file()) && entry.file_name().to_str().is_some_and(is_ours);
        if !ours {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Removes the directories [`exchange_leftovers`] found.
pub(super) fn remove(dirs: &[PathBuf]) -> Result<(), TreeError> {
    for dir in dirs {
        std::fs::remove_dir_all(dir).map_err(io_err("remove the leftover", dir))?;
    }
    Ok(())
}
