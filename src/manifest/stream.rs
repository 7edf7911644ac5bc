//! Manifest files read in pieces of whole documents, so that a caller holds a few pieces at a time and never the
//! whole input: files are read line by line and cut at document markers (`---`), a document over
//! [`MAX_DOCUMENT_BYTES`] is skipped as it streams past (a `yaml-too-large` problem) without being held. A piece is
//! read ([`Piece::read`]) wherever the caller likes (on a worker thread), then numbered in order
//! ([`DocumentNumbering`]).

use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::parse::{document_markers, document_start_line, parse_documents_tolerant_on_one_core, split_at};
use super::problem::{MAX_DOCUMENT_BYTES, ReadProblem};
use super::{FileWalk, ManifestError, ReadOutcome};

/// Pieces are cut at the first document marker after this many bytes (64 KiB, ~20 objects: a unit of work for one
/// core, small enough that a bundle of a few hundred KiB keeps every core busy to its end, large enough that handing
/// it over costs nothing next to reading it; a few of them in flight cost little next to the input).
pub const BATCH_BYTES: usize = 64 * 1024;

/// Documents read from one piece of one source.
#[derive(Debug, Default)]
pub struct Batch {
    /// The documents and problems of this piece (`sources` is empty: see [`stream_paths`]).
    pub outcome: ReadOutcome,
}

/// Whole documents of one source, not read yet (or a problem found while cutting, such as a document too large).
#[derive(Debug)]
pub struct Piece {
    content: PieceContent,
    /// Whether this is the first piece of its source (document numbers start again at 0).
    first_of_source: bool,
}

#[derive(Debug)]
enum PieceContent {
    /// `text[range]`: lines `line_offset + 1..` of `source`.
    Text {
        text: Arc<str>,
        range: Range<usize>,
        source: Arc<str>,
        line_offset: usize,
    },
    Problem(ReadProblem),
}

impl Piece {
    /// Reads the documents and problems of this piece on the calling thread; documents are numbered from 0 within
    /// the piece (see [`DocumentNumbering`]), `sources` is empty.
    pub fn read(&self) -> ReadOutcome {
        match &self.content {
            PieceContent::Text { text, range, source, line_offset } => {
                let mut outcome = parse_documents_tolerant_on_one_core(&text[range.clone()], source, *line_offset);
                outcome.sources.clear();
                outcome
            }
            PieceContent::Problem(problem) => ReadOutcome { problems: vec![problem.clone()], ..Default::default() },
        }
    }
}

/// Numbers the documents of pieces read in order as their source numbers them ([`super::Origin::index`]).
#[derive(Debug, Default)]
pub struct DocumentNumbering {
    next: usize,
}

impl DocumentNumbering {
    /// What to add to the indexes of the `documents` documents of a piece (numbered from 0 within it), which comes
    /// after every piece numbered so far.
    pub fn offset(&mut self, piece_was_first: bool, documents: usize) -> usize {
        if piece_was_first {
            self.next = 0;
        }
        let offset = self.next;
        self.next += documents;
        offset
    }
}

impl Piece {
    /// Whether this is the first piece of its source (give it to [`DocumentNumbering::number`]).
    pub fn is_first_of_source(&self) -> bool {
        self.first_of_source
    }
}

/// Reads the files, directories and `-` of `paths` as [`super::read_paths_tolerant`] does, handing the documents to
/// `on_batch` a batch at a time, in order; returns every source read, in reading order. The documents, problems,
/// lines and indexes of all batches together are those [`super::read_paths_tolerant`] returns.
pub fn stream_paths(
    paths: &[String],
    batch_bytes: usize,
    on_batch: &mut dyn FnMut(Batch),
) -> Result<Vec<Arc<str>>, ManifestError> {
    let mut numbering = DocumentNumbering::default();
    stream_pieces(paths, batch_bytes, &mut |piece| {
        let mut outcome = piece.read();
        let offset = numbering.offset(piece.is_first_of_source(), outcome.documents.len());
        outcome.documents.iter_mut().for_each(|document| document.origin.index += offset);
        on_batch(Batch { outcome });
    })
}

/// Cuts the files, directories and `-` of `paths` into pieces of whole documents, handed to `on_piece` in order
/// without being read; returns every source, in reading order. Read and numbered in order, the pieces give the
/// documents, problems, lines and indexes [`super::read_paths_tolerant`] returns.
pub fn stream_pieces(
    paths: &[String],
    batch_bytes: usize,
    on_piece: &mut dyn FnMut(Piece),
) -> Result<Vec<Arc<str>>, ManifestError> {
    let mut sources = Vec::new();
    let mut walk = FileWalk::default();
    for path in paths {
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|source| ManifestError::Read { path: PathBuf::from("-"), source })?;
            sources.push(stream_bytes(bytes, Arc::from("<stdin>"), batch_bytes, on_piece));
            continue;
        }
        for file in walk.files(Path::new(path))? {
            sources.push(stream_file(&file, batch_bytes, on_piece)?);
        }
    }
    Ok(sources)
}

/// Whole text in memory (stdin, small files, files that cannot be streamed): cut into pieces at markers.
fn stream_bytes(bytes: Vec<u8>, source: Arc<str>, batch_bytes: usize, on_piece: &mut dyn FnMut(Piece)) -> Arc<str> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let problem = ReadProblem::not_utf8(&source, err.as_bytes(), &err.utf8_error());
            on_piece(Piece { content: PieceContent::Problem(problem), first_of_source: true });
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
    let text: Arc<str> = Arc::from(text);
    let mut start = 0;
    for (i, (line_offset, piece)) in split_at(&text, &cuts).into_iter().enumerate() {
        let range = start..start + piece.len();
        start = range.end;
        let content = PieceContent::Text { text: text.clone(), range, source: source.clone(), line_offset };
        on_piece(Piece { content, first_of_source: i == 0 });
    }
    source
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

/// Pieces of one file being cut: hands them on, the first one marked as such.
struct Cutter<'c> {
    source: Arc<str>,
    first: bool,
    on_piece: &'c mut dyn FnMut(Piece),
}

impl Cutter<'_> {
    fn hand_on(&mut self, content: PieceContent) {
        let first = std::mem::replace(&mut self.first, false);
        (self.on_piece)(Piece { content, first_of_source: first });
    }

    /// Hands on `text` (lines `line_offset + 1..` of the source) as one piece, unless it is empty.
    fn flush(&mut self, text: &mut String, line_offset: usize) {
        if !text.is_empty() {
            let taken: Arc<str> = Arc::from(std::mem::take(text));
            let range = 0..taken.len();
            let source = self.source.clone();
            self.hand_on(PieceContent::Text { text: taken, range, source, line_offset });
        }
    }
}

fn stream_file(file: &Path, batch_bytes: usize, on_piece: &mut dyn FnMut(Piece)) -> Result<Arc<str>, ManifestError> {
    let read_error = |source| ManifestError::Read { path: file.to_path_buf(), source };
    let source: Arc<str> = Arc::from(file.display().to_string());
    // A pipe (`/dev/stdin`, `<(kustomize build)`) can be read only once: whole, without the streaming probe.
    let regular = std::fs::metadata(file).map_err(read_error)?.is_file();
    if !regular || !can_stream(file, batch_bytes).map_err(read_error)? {
        let bytes = std::fs::read(file).map_err(read_error)?;
        return Ok(stream_bytes(bytes, source, batch_bytes, on_piece));
    }
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(file).map_err(read_error)?);
    let mut cutter = Cutter { source: source.clone(), first: true, on_piece };
    let mut text = String::new();
    let mut line = Vec::new();
    // Lines read so far, lines before `text`.
    let (mut file_line, mut batch_start_line) = (0usize, 0usize);
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
                cutter.hand_on(PieceContent::Problem(ReadProblem::too_large(&source, part_line, bytes)));
                batch_start_line = file_line;
            } else if text.len() >= batch_bytes || read == 0 {
                cutter.flush(&mut text, batch_start_line);
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
        if text.capacity() == 0 {
            text.reserve(batch_bytes.min(MAX_DOCUMENT_BYTES) + (batch_bytes / 4).min(1 << 16));
        }
        // `can_stream` checked that every line is UTF-8.
        text.push_str(std::str::from_utf8(&line).unwrap_or_default());
        if text.len() - part_start > MAX_DOCUMENT_BYTES {
            // The document is too large: what came before it is a piece, it is skipped.
            let part = text.split_off(part_start);
            part_line = document_start_line(&part, part_line - 1);
            cutter.flush(&mut text, batch_start_line);
            skipped = Some(part.len());
        }
    }
    Ok(source)
}
