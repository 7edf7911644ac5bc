//! `render --out-dir`: one file per rendered object, written into a staging directory that then replaces
//! the output directory in one step, so the directory is never half-written.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// How each object's file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectFormat {
    /// `NN-<kind>-<name>.yaml`, one YAML document.
    Yaml,
    /// `NN-<kind>-<name>.json`, one pretty-printed JSON object.
    Json,
}

impl ObjectFormat {
    fn extension(self) -> &'static str {
        match self {
            ObjectFormat::Yaml => "yaml",
            ObjectFormat::Json => "json",
        }
    }

    fn text(self, value: &Value) -> String {
        match self {
            ObjectFormat::Yaml => crate::manifest::to_yaml_documents(std::iter::once(value)),
            ObjectFormat::Json => {
                let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }
}

/// Why the out-dir could not be written (the directory is left as it was).
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// The out-dir is a symbolic link, which the exchange would replace.
    #[error("--out-dir {}: is a symbolic link, which this render would replace; give the directory it points to", .0.display())]
    Symlink(PathBuf),
    /// The out-dir is a file.
    #[error("--out-dir {}: exists and is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// The out-dir holds something an earlier render did not write.
    #[error(
        "--out-dir {}: contains `{name}`, which is not a file an earlier render wrote; choose an empty or new directory",
        dir.display()
    )]
    ForeignEntry { dir: PathBuf, name: String },
    /// An I/O error, with what was being done.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

fn io(what: impl FnOnce() -> String) -> impl FnOnce(std::io::Error) -> OutDirError {
    move |source| OutDirError::Io { what: what(), source }
}

/// `NN-<kind>-<name>.<ext>`: NN is the 1-based position (2 digits, more when needed), kind lowercased.
pub fn file_name(index: usize, total: usize, value: &Value, ext: &str) -> String {
    let width = total.to_string().len().max(2);
    let kind = value.pointer("/kind").and_then(Value::as_str).unwrap_or("object").to_ascii_lowercase();
    let name = value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("unnamed");
    let safe = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect::<String>()
    };
    format!("{:0width$}-{}-{}.{ext}", index + 1, safe(&kind), safe(name))
}

fn is_our_file(name: &str) -> bool {
    let Some((number, rest)) = name.split_once('-') else { return false };
    !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && (rest.ends_with(".yaml") || rest.ends_with(".json"))
}

/// Writes one file per object into `dir`, atomically: the files go into a fresh directory beside `dir`
/// (`.<name>.new-*`), which is then exchanged with `dir` in one `renameat2(RENAME_EXCHANGE)`, so `dir` is
/// at every moment the old render or the new one. An existing `dir` may only hold files of an earlier
/// render and must be a real directory (a symbolic link there would be replaced). Runs on one parent
/// directory are serialised by a lock on that parent; staging directories a killed run left are removed
/// by the next one.
pub fn write_out_dir(dir: &Path, values: &[&Value], format: ObjectFormat) -> Result<(), OutDirError> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(|| format!("cannot create {}", parent.display())))?;
    let lock = std::fs::File::open(&parent).map_err(io(|| format!("cannot open {}", parent.display())))?;
    lock.lock().map_err(io(|| format!("cannot lock {}", parent.display())))?;
    let exists = existing_out_dir(dir)?;
    if exists && let Some(name) = foreign_entry(dir)? {
        return Err(OutDirError::ForeignEntry { dir: dir.to_path_buf(), name });
    }
    let base = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    remove_leftover_staging(&parent, &base)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{base}.new-"))
        .tempdir_in(&parent)
        .map_err(io(|| format!("cannot create a staging directory in {}", parent.display())))?;
    for (i, value) in values.iter().enumerate() {
        let name = file_name(i, values.len(), value, format.extension());
        std::fs::write(staging.path().join(&name), format.text(value))
            .map_err(io(|| format!("cannot write {name}")))?;
    }
    let moved = || format!("cannot move the output into {}", dir.display());
    if exists {
        // One step: `dir` now holds the new files and the staging directory the old ones, which it
        // takes away when dropped.
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            staging.path(),
            rustix::fs::CWD,
            dir,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .map_err(std::io::Error::from)
        .map_err(io(moved))?;
    } else {
        std::fs::rename(staging.path(), dir).map_err(io(moved))?;
        let _ = staging.keep();
    }
    Ok(())
}

/// Whether `dir` exists (as a real directory); a symbolic link or a file there is an error.
fn existing_out_dir(dir: &Path) -> Result<bool, OutDirError> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => Err(OutDirError::Symlink(dir.to_path_buf())),
        Ok(meta) if !meta.is_dir() => Err(OutDirError::NotADirectory(dir.to_path_buf())),
        Ok(_) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(io(|| format!("cannot read --out-dir {}", dir.display()))(err)),
    }
}

/// The first entry of `dir` that is not a regular file an earlier render wrote.
fn foreign_entry(dir: &Path) -> Result<Option<String>, OutDirError> {
    for entry in std::fs::read_dir(dir).map_err(io(|| format!("cannot read --out-dir {}", dir.display())))? {
        let entry = entry.map_err(io(|| format!("cannot list {}", dir.display())))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().map(|t| t.is_file()).unwrap_or(false) || !is_our_file(&name) {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Removes `.<base>.new-*` and `.<base>.old-*` directories beside the output that an interrupted render
/// left, when they hold nothing but files a render writes (anything else is left alone).
fn remove_leftover_staging(parent: &Path, base: &str) -> Result<(), OutDirError> {
    let prefixes = [format!(".{base}.new-"), format!(".{base}.old-")];
    for entry in std::fs::read_dir(parent).map_err(io(|| format!("cannot list {}", parent.display())))? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if !prefixes.iter().any(|p| name.starts_with(p.as_str())) || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if foreign_entry(&entry.path())?.is_none() {
            std::fs::remove_dir_all(entry.path())
                .map_err(io(|| format!("cannot remove the leftover {}", entry.path().display())))?;
        }
    }
    Ok(())
}
