//! What commands print and write: stdout that a closed pipe does not turn into an error, and the
//! rendered objects as one stream or, as [`crate::render::out_dir`] names them, one file per object in an out-dir.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::RenderOutput;
use crate::manifest;
use crate::out_tree::{self, TreeError};
use crate::render::out_dir::{self, ObjectFormat};

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
            let mut text = crate::escape::json::to_string_pretty(&list).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// One file per object into `dir` ([`out_dir::object_tree`]), in `output`'s format, written by the output-tree
/// writer ([`out_tree::write`]) in a directory it owns whole.
pub(crate) fn write_objects(dir: &Path, values: &[&Value], output: RenderOutput) -> anyhow::Result<()> {
    let format = match output {
        RenderOutput::Yaml => ObjectFormat::Yaml,
        RenderOutput::Json => ObjectFormat::Json,
    };
    match out_tree::write(dir, &out_dir::object_tree(values, format), out_dir::OWNERSHIP) {
        Ok(_) => Ok(()),
        // The objects name the files: a kind and name too long for a file name are the input's problem.
        Err(TreeError::BadPath { path, reason }) => {
            bail!("cannot write {}: the file name, made of the object's kind and name, {reason}", path.display())
        }
        Err(err) => Err(err.into()),
    }
}
