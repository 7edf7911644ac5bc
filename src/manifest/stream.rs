//! Manifest files read in batches of whole documents, so that a caller holds one batch at a time and never the
//! whole input: files are read line by line and cut at document markers (`---`), a document over
//! [`MAX_DOCUMENT_BYTES`] is skipped as it streams past (a `yaml-too-large` problem) without being held.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::parse::{document_markers, document_start_line, parse_documents_tolerant_at, split_at};
use super::problem::{MAX_DOCUMENT_BYTES, ReadProblem};
use super::{FileWalk, ManifestError, ReadOutcome};

/// Batches are cut at the first document marker after this many bytes (1 MiB: big enough to be read and checked on
/// every core, small next to what its objects cost, ~8x their text).
pub const BATCH_BYTES: usize = 1024 * 1024;

/// Documents read from one piece of one source.
#[derive(Debug, Default)]
pub struct Batch {
    /// The documents and problems of this piece (`sources` is empty: see [`stream_paths`]).
    pub outcome: ReadOutcome,
}

/// Reads the files, directories and `-` of `paths` as [`super::read_paths_tolerant`] does, handing the documents to
/// `on_batch` a batch at a time, in order; returns every source read, in reading order. The documents, problems,
/// lines and indexes of all batches together are those [`super::read_paths_tolerant`] returns.
pub fn stream_paths(
    paths: &[String],
    batch_bytes: usize,
    on_batch: &mut dyn FnMut(Batch),
) -> Result<Vec<Arc<str>>, ManifestError> {
    let mut sources = Vec::new();
    let mut walk = FileWalk::default();
    for path in paths {
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|source| ManifestError::Read { path: PathBuf::from("-"), source })?;
            sources.push(stream_bytes(bytes, Arc::from("<stdin>"), batch_bytes, on_batch));
            continue;
        }
        for file in walk.files(Path::new(path))? {
            sources.push(stream_file(&file, batch_bytes, on_batch)?);
        }
    }
    Ok(sources)
}

/// Whole text in memory (stdin, small files, files that cannot be streamed): cut into batches at markers.
fn stream_bytes(bytes: Vec<u8>, source: Arc<str>, batch_bytes: usize, on_batch: &mut dyn FnMut(Batch)) -> Arc<str> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let problem = ReadProblem::not_utf8(&source, err.as_bytes(), &err.utf8_error());
            on_batch(problem_batch(problem));
            return source;
        }
    };
    let mut cuts = Vec::new();
    let mut start = 0;
    for marker in document_markers(&text) {
        if marker - start >= batch_bytes {
            cuts.push(marker);
            start = marker;
        }
    }
    let mut first_index = 0;
    for (line_offset, piece) in split_at(&text, &cuts) {
        let batch = read_batch(piece, &source, line_offset, first_index);
        first_index += batch.outcome.documents.len();
        on_batch(batch);
    }
    source
}

fn read_batch(text: &str, source: &Arc<str>, line_offset: usize, first_index: usize) -> Batch {
    let mut outcome = parse_documents_tolerant_at(text, source, line_offset, first_index);
    outcome.sources.clear();
    Batch { outcome }
}

/// Whether `line` is a document marker: `---` alone or followed by a space.
fn is_marker(line: &[u8]) -> bool {
    line.starts_with(b"---") && matches!(line.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
}

/// A file is streamed when it is UTF-8 without directives (`%YAML`, `%TAG` bind to the next document only, so such
/// text is read whole) and longer than one batch.
fn can_stream(file: &Path, batch_bytes: usize) -> std::io::Result<bool> {
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(file)?);
    let (mut total, mut line) = (0usize, Vec::new());
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(total > batch_bytes);
        }
        total += line.len();
        if line.first() == Some(&b'%') || std::str::from_utf8(&line).is_err() {
            return Ok(false);
        }
    }
}

fn problem_batch(problem: ReadProblem) -> Batch {
    Batch { outcome: ReadOutcome { problems: vec![problem], ..Default::default() } }
}

/// Reads `text` (lines `line_offset + 1..` of `source`) as one batch, unless it is empty.
fn flush(
    text: &mut String,
    source: &Arc<str>,
    line_offset: usize,
    first_index: &mut usize,
    on_batch: &mut dyn FnMut(Batch),
) {
    if !text.is_empty() {
        let batch = read_batch(text, source, line_offset, *first_index);
        text.clear();
        *first_index += batch.outcome.documents.len();
        on_batch(batch);
    }
}

fn stream_file(file: &Path, batch_bytes: usize, on_batch: &mut dyn FnMut(Batch)) -> Result<Arc<str>, ManifestError> {
    let read_error = |source| ManifestError::Read { path: file.to_path_buf(), source };
    let source: Arc<str> = Arc::from(file.display().to_string());
    // A pipe (`/dev/stdin`, `<(kustomize build)`) can be read only once: whole, without the streaming probe.
    let regular = std::fs::metadata(file).map_err(read_error)?.is_file();
    if !regular || !can_stream(file, batch_bytes).map_err(read_error)? {
        let bytes = std::fs::read(file).map_err(read_error)?;
        return Ok(stream_bytes(bytes, source, batch_bytes, on_batch));
    }
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(file).map_err(read_error)?);
    let mut text = String::new();
    let mut line = Vec::new();
    // Lines read so far, lines before `text`, documents handed on so far.
    let (mut file_line, mut batch_start_line, mut first_index) = (0usize, 0usize, 0usize);
    // Start of the document being read (byte in `text`, 1-based line); once it is over the limit, its bytes are
    // counted and dropped until the next marker.
    let (mut part_start, mut part_line) = (0usize, 1usize);
    let mut skipped: Option<usize> = None;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(read_error)?;
        let marker = read > 0 && file_line > 0 && is_marker(&line);
        if read == 0 || marker {
            if let Some(bytes) = skipped.take() {
                on_batch(problem_batch(ReadProblem::too_large(&source, part_line, bytes)));
                batch_start_line = file_line;
            } else if text.len() >= batch_bytes || read == 0 {
                flush(&mut text, &source, batch_start_line, &mut first_index, on_batch);
                batch_start_line = file_line;
            }
            if read == 0 {
                break;
            }
            part_start = text.len();
            part_line = file_line + 1;
        }
        file_line += 1;
        if let Some(bytes) = &mut skipped {
            *bytes += line.len();
            continue;
        }
        // `can_stream` checked that every line is UTF-8.
        text.push_str(std::str::from_utf8(&line).unwrap_or_default());
        if text.len() - part_start > MAX_DOCUMENT_BYTES {
            // The document is too large: what came before it is a batch, it is skipped.
            let part = text.split_off(part_start);
            part_line = document_start_line(&part, part_line - 1);
            flush(&mut text, &source, batch_start_line, &mut first_index, on_batch);
            skipped = Some(part.len());
        }
    }
    Ok(source)
}
