//! What commands print and write: stdout that a closed pipe does not turn into an error, and the
//! rendered objects as one stream or as one file per object in an out-dir (`render`, `render --from`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::RenderOutput;
use crate::manifest;

/// A writer that ends quietly when its reader goes away: after a broken pipe (`... | head -1`)
/// every write succeeds and is dropped, so the command finishes its work and ends with the exit
/// code it would have had.
pub(crate) struct QuietPipe<W: Write> {
    inner: W,
    closed: bool,
}

impl<W: Write> QuietPipe<W> {
    pub(crate) fn new(inner: W) -> Self {
        QuietPipe { inner, closed: false }
    }

    fn swallow(&mut self, result: io::Result<()>) -> io::Result<()> {
        match result {
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

impl<W: Write> Write for QuietPipe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.swallow(result)
    }
}

/// The process's stdout, locked, quiet on a closed pipe.
pub(crate) fn stdout() -> QuietPipe<io::StdoutLock<'static>> {
    QuietPipe::new(io::stdout().lock())
}

/// Writes `text` to stdout and flushes it.
pub(crate) fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = stdout();
    stdout.write_all(text.as_bytes()).context("cannot write to stdout")?;
    stdout.flush().context("cannot write to stdout")
}

/// Multi-document YAML, or a `v1` List as JSON.
pub(crate) fn format_documents(values: &[&Value], output: RenderOutput) -> String {
    match output {
        RenderOutput::Yaml => manifest::to_yaml_documents(values.iter().copied()),
        RenderOutput::Json => {
            let list = json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": values});
            let mut text = serde_json::to_string_pretty(&list).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// `NN-<kind>-<name>.<ext>`: NN is the 1-based position (2 digits, more when needed), kind lowercased.
fn file_name(index: usize, total: usize, value: &Value, ext: &str) -> String {
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
pub(crate) fn write_out_dir(dir: &Path, values: &[&Value], output: RenderOutput) -> anyhow::Result<()> {
    let ext = match output {
        RenderOutput::Yaml => "yaml",
        RenderOutput::Json => "json",
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let lock = std::fs::File::open(&parent).with_context(|| format!("cannot open {}", parent.display()))?;
    lock.lock().with_context(|| format!("cannot lock {}", parent.display()))?;
    let exists = match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => bail!(
            "--out-dir {}: is a symbolic link, which this render would replace; give the directory it points to",
            dir.display()
        ),
        Ok(meta) if !meta.is_dir() => bail!("--out-dir {}: exists and is not a directory", dir.display()),
        Ok(_) => true,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => false,
        Err(err) => return Err(err).with_context(|| format!("cannot read --out-dir {}", dir.display())),
    };
    if exists && let Some(name) = foreign_entry(dir)? {
        bail!(
            "--out-dir {}: contains `{name}`, which is not a file an earlier render wrote; choose an empty or new directory",
            dir.display()
        );
    }
    let base = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    remove_leftover_staging(&parent, &base)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{base}.new-"))
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a staging directory in {}", parent.display()))?;
    for (i, value) in values.iter().enumerate() {
        let name = file_name(i, values.len(), value, ext);
        let text = match output {
            // One object per file, not a List.
            RenderOutput::Json => {
                let mut t = serde_json::to_string_pretty(value).unwrap_or_default();
                t.push('\n');
                t
            }
            RenderOutput::Yaml => format_documents(&[value], output),
        };
        std::fs::write(staging.path().join(&name), text).with_context(|| format!("cannot write {name}"))?;
    }
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
        .with_context(|| format!("cannot move the output into {}", dir.display()))?;
    } else {
        std::fs::rename(staging.path(), dir)
            .with_context(|| format!("cannot move the output into {}", dir.display()))?;
        let _ = staging.keep();
    }
    Ok(())
}

/// The first entry of `dir` that is not a regular file an earlier render wrote.
fn foreign_entry(dir: &Path) -> anyhow::Result<Option<String>> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read --out-dir {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().map(|t| t.is_file()).unwrap_or(false) || !is_our_file(&name) {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Removes `.<base>.new-*` and `.<base>.old-*` directories beside the output that an interrupted render
/// left, when they hold nothing but files a render writes (anything else is left alone).
fn remove_leftover_staging(parent: &Path, base: &str) -> anyhow::Result<()> {
    let prefixes = [format!(".{base}.new-"), format!(".{base}.old-")];
    for entry in std::fs::read_dir(parent).with_context(|| format!("cannot list {}", parent.display()))? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if !prefixes.iter().any(|p| name.starts_with(p.as_str())) || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if foreign_entry(&entry.path())?.is_none() {
            std::fs::remove_dir_all(entry.path())
                .with_context(|| format!("cannot remove the leftover {}", entry.path().display()))?;
        }
    }
    Ok(())
}
