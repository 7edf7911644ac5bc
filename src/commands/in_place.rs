//! Writing a user's file in place, as `convert -w` and `upgrade -w` do: only files inside the directory named on the
//! command line (a symlink's target too), each replaced atomically with its permissions kept.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Where `-w` writes the file `name` found below `root` (the directory named on the command line, or the directory
/// of a file named there): the file itself, or for a symlink (or a path through a symlinked directory) the file it
/// leads to when that is inside `root`, so the link is kept and its target converted. A target outside `root` is
/// refused: writing there would convert a file the user did not name, replacing the link would leave it
/// unconverted.
pub(super) fn write_target(name: &str, root: &Path) -> anyhow::Result<PathBuf> {
    let path = Path::new(name);
    let canonical = std::fs::canonicalize(path).with_context(|| format!("cannot read {name}"))?;
    let root = std::fs::canonicalize(root).with_context(|| format!("cannot read {}", root.display()))?;
    if canonical.starts_with(&root) {
        return Ok(canonical);
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let what = if is_link { "a symlink to" } else { "reached through a symlink, the file" };
    bail!(
        "{name} is {what} {}, outside {}: --write does not write through it (nothing was written); convert {} itself",
        canonical.display(),
        root.display(),
        canonical.display()
    )
}

/// Replaces `path` by `text` through a temporary file in the same directory, keeping the
/// file's permissions.
pub(super) fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let permissions = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".capz-edit-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    std::fs::set_permissions(temp.path(), permissions)?;
    temp.persist(path).map_err(|err| err.error).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
