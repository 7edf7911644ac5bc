//! Manifest files read in pieces of whole documents, so that a caller holds a few pieces at a time and never the
//! whole input: files are read line by line and cut at document markers (`---`), a document over
//! [`MAX_DOCUMENT_BYTES`] is skipped as it streams past (a `yaml-too-large` problem) without being held, not even
//! one long line of it. A piece is read ([`Piece::read`]) wherever the caller likes (on a worker thread), then
//! numbered in order ([`DocumentNumbering`]); what aliases expand counts against its file's and the run's
//! [`ReadBudget`].

use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::budget::{FileExpansion, ReadBudget};
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
    /// The run's expansion budget, and what aliases expanded in the pieces of this source so far.
    budget: ReadBudget,
    file: Arc<FileExpansion>,
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
                let text = &text[range.clone()];
                let mut outcome =
                    parse_documents_tolerant_on_one_core(text, source, *line_offset, &self.budget, &self.file);
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
    stream_pieces(paths, batch_bytes, &ReadBudget::default(), &mut |piece| {
        let mut outcome = piece.read();
        let offset = numbering.offset(piece.is_first_of_source(), outcome.documents.len());
        outcome.documents.iter_mut().for_each(|document| document.origin.index += offset);
        on_batch(Batch { outcome });
    })
}

/// Cuts the files, directories and `-` of `paths` into pieces of whole documents, handed to `on_piece` in order
/// without being read; returns every source, in reading order. Read and numbered in order, the pieces give the
/// documents, problems, lines and indexes [`super::read_paths_tolerant`] returns (aliases expanding within
/// `budget`, shared by the whole run).
pub fn stream_pieces(
    paths: &[String],
    batch_bytes: usize,
    budget: &ReadBudget,
    on_piece: &mut dyn FnMut(Piece),
) -> Result<Vec<Arc<str>>, ManifestError> {
    let mut sources = Vec::new();
    let mut walk = FileWalk::default();
    for path in paths {
        if path == "-" {
            let source: Arc<str> = Arc::from("<stdin>");
            let mut sink = Sink::new(budget, on_piece);
            let stdin = std::io::stdin().lock();
            stream_pipe(stdin, source.clone(), batch_bytes, &mut sink)
                .map_err(|source| ManifestError::Read { path: PathBuf::from("-"), source })?;
            sources.push(source);
            continue;
        }
        for file in walk.files(Path::new(path))? {
            sources.push(stream_file(&file, batch_bytes, &mut Sink::new(budget, on_piece))?);
        }
    }
    Ok(sources)
}

/// Where the pieces of one source go: to `on_piece`, each with the run's budget and the source's own count.
struct Sink<'s> {
    budget: &'s ReadBudget,
    file: Arc<FileExpansion>,
    on_piece: &'s mut dyn FnMut(Piece),
}

impl<'s> Sink<'s> {
    fn new(budget: &'s ReadBudget, on_piece: &'s mut dyn FnMut(Piece)) -> Self {
        Sink { budget, file: Arc::new(FileExpansion::new(0)), on_piece }
    }

    fn give(&mut self, content: PieceContent, first_of_source: bool) {
        let (budget, file) = (self.budget.clone(), self.file.clone());
        (self.on_piece)(Piece { content, first_of_source, budget, file });
    }
}

/// Whole text in memory (small files, files with directives): cut into pieces at markers.
fn stream_bytes(bytes: Vec<u8>, source: &Arc<str>, batch_bytes: usize, sink: &mut Sink<'_>) {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let problem = ReadProblem::not_utf8(source, err.as_bytes(), &err.utf8_error());
            sink.give(PieceContent::Problem(problem), true);
            return;
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
        sink.give(content, i == 0);
    }
}

/// Whether `line` is a document marker: `---` alone or followed by a space.
fn is_marker(line: &[u8]) -> bool {
    line.starts_with(b"---") && matches!(line.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
}

/// The longest line kept: one byte more than a document may have (a longer line makes its document too large).
const LINE_LIMIT: usize = MAX_DOCUMENT_BYTES + 1;

/// Reads one line (up to and with its `\n`) into `line`, keeping at most `max` bytes of it and reading past the
/// rest; returns the line's whole length (0 at the end).
fn read_line_bounded(reader: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
    let mut length = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(length);
        }
        let (taken, ends) = match available.iter().position(|byte| *byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let room = max.saturating_sub(line.len());
        line.extend_from_slice(&available[..taken.min(room)]);
        reader.consume(taken);
        length += taken;
        if ends {
            return Ok(length);
        }
    }
}

/// The first invalid UTF-8 byte of `line` (`line_number`, 1-based) as a problem; a line cut short may end inside a
/// character.
fn invalid_utf8(source: &Arc<str>, line: &[u8], line_number: usize, cut_short: bool) -> Option<ReadProblem> {
    let error = std::str::from_utf8(line).err()?;
    if cut_short && error.error_len().is_none() {
        return None;
    }
    let valid = &line[..error.valid_up_to()];
    let column = String::from_utf8_lossy(valid).chars().count() + 1;
    Some(ReadProblem::not_utf8_at(source, line_number, column, line[error.valid_up_to()]))
}

/// What a look through a regular file found, line by line (each line read bounded).
struct Scan {
    bytes: usize,
    /// A line starting with `%` (`%YAML`, `%TAG` bind to the next document only, so the text is read whole).
    directives: bool,
    not_utf8: Option<ReadProblem>,
    /// The first line is a document marker alone (the first document starts on line 2).
    starts_with_marker: bool,
}

fn scan_file(file: &Path, source: &Arc<str>) -> std::io::Result<Scan> {
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(file)?);
    let mut scan = Scan { bytes: 0, directives: false, not_utf8: None, starts_with_marker: false };
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = read_line_bounded(&mut reader, &mut line, LINE_LIMIT)?;
        if read == 0 {
            break;
        }
        scan.bytes += read;
        if number == 1 {
            scan.starts_with_marker = line.starts_with(b"---") && line[3..].trim_ascii().is_empty();
        }
        scan.directives |= line.first() == Some(&b'%');
        if let Some(problem) = invalid_utf8(source, &line, number, read > line.len()) {
            scan.not_utf8 = Some(problem);
            break;
        }
    }
    Ok(scan)
}

fn stream_file(file: &Path, batch_bytes: usize, sink: &mut Sink<'_>) -> Result<Arc<str>, ManifestError> {
    let read_error = |source| ManifestError::Read { path: file.to_path_buf(), source };
    let source: Arc<str> = Arc::from(file.display().to_string());
    // A pipe (`/dev/stdin`, `<(kustomize build)`) can be read only once: cut as it comes, without the look first.
    if !std::fs::metadata(file).map_err(read_error)?.is_file() {
        let reader = std::fs::File::open(file).map_err(read_error)?;
        stream_pipe(reader, source.clone(), batch_bytes, sink).map_err(read_error)?;
        return Ok(source);
    }
    let scan = scan_file(file, &source).map_err(read_error)?;
    if let Some(problem) = scan.not_utf8 {
        sink.give(PieceContent::Problem(problem), true);
    } else if scan.directives && scan.bytes > MAX_DOCUMENT_BYTES {
        // Read whole, the text would be one document: too large, so it is not read at all.
        let line = if scan.starts_with_marker { 2 } else { 1 };
        sink.give(PieceContent::Problem(ReadProblem::too_large(&source, line, scan.bytes)), true);
    } else if scan.directives || scan.bytes <= batch_bytes {
        let bytes = std::fs::read(file).map_err(read_error)?;
        stream_bytes(bytes, &source, batch_bytes, sink);
    } else {
        let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(file).map_err(read_error)?);
        let mut first = true;
        let mut give = |content| sink.give(content, std::mem::replace(&mut first, false));
        cut(&mut reader, &source, batch_bytes, &mut give, None).map_err(read_error)?;
    }
    Ok(source)
}

/// Reads a stream that can be read only once (stdin, a pipe): cut as it comes, the pieces held until its end, since
/// text that is not UTF-8 anywhere is one problem and text with directives is read whole. Documents over the limit
/// are counted as they pass, never held.
fn stream_pipe(
    reader: impl std::io::Read,
    source: Arc<str>,
    batch_bytes: usize,
    sink: &mut Sink<'_>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, reader);
    let mut held = Vec::new();
    // The text itself while it is short enough to be read whole, should it hold directives.
    let mut whole = Some(Vec::new());
    let mut give = |content| held.push(content);
    match cut(&mut reader, &source, batch_bytes, &mut give, Some(&mut whole))? {
        Cut::Done => {
            for (i, content) in held.into_iter().enumerate() {
                sink.give(content, i == 0);
            }
        }
        Cut::NotUtf8(problem) => sink.give(PieceContent::Problem(problem), true),
        Cut::Directives { bytes, starts_with_marker } => {
            // The rest, kept while the whole text stays within the limit.
            let mut line = Vec::new();
            let mut total = bytes;
            loop {
                line.clear();
                let read = read_line_bounded(&mut reader, &mut line, LINE_LIMIT)?;
                if read == 0 {
                    break;
                }
                total += read;
                match &mut whole {
                    Some(text) if total <= MAX_DOCUMENT_BYTES => text.extend_from_slice(&line),
                    _ => whole = None,
                }
            }
            match whole {
                Some(text) if total <= MAX_DOCUMENT_BYTES => stream_bytes(text, &source, batch_bytes, sink),
                _ => {
                    let line = if starts_with_marker { 2 } else { 1 };
                    sink.give(PieceContent::Problem(ReadProblem::too_large(&source, line, total)), true);
                }
            }
        }
    }
    Ok(())
}

/// How [`cut`] ended.
enum Cut {
    /// At the end of the text.
    Done,
    /// At a line that is not UTF-8 (checked only when the text is not known to be UTF-8).
    NotUtf8(ReadProblem),
    /// At a directive (`%`), after `bytes` bytes (checked as [`Cut::NotUtf8`]).
    Directives { bytes: usize, starts_with_marker: bool },
}

/// Cuts `reader` into pieces of whole documents of about `batch_bytes`, handed to `give` in order; a document over
/// [`MAX_DOCUMENT_BYTES`] is a problem piece, its bytes counted and dropped as they are read. With `whole` (a text
/// not looked through first), every line is checked to be UTF-8 and not a directive, and the text is kept in
/// `whole` while it is no longer than a document may be.
fn cut(
    reader: &mut impl BufRead,
    source: &Arc<str>,
    batch_bytes: usize,
    give: &mut dyn FnMut(PieceContent),
    mut whole: Option<&mut Option<Vec<u8>>>,
) -> std::io::Result<Cut> {
    let flush = |give: &mut dyn FnMut(PieceContent), text: &mut String, line_offset: usize| {
        if !text.is_empty() {
            let taken: Arc<str> = Arc::from(std::mem::take(text));
            let range = 0..taken.len();
            give(PieceContent::Text { text: taken, range, source: source.clone(), line_offset });
        }
    };
    let mut text = String::new();
    let mut line = Vec::new();
    // Lines read so far, lines before `text`, bytes read so far.
    let (mut file_line, mut batch_start_line, mut bytes) = (0usize, 0usize, 0usize);
    let mut starts_with_marker = false;
    // Start of the document being read (byte in `text`, 1-based line); once it is over the limit, its bytes are
    // counted and dropped until the next marker.
    let (mut part_start, mut part_line) = (0usize, 1usize);
    let mut skipped: Option<usize> = None;
    loop {
        line.clear();
        let read = read_line_bounded(reader, &mut line, LINE_LIMIT)?;
        let cut_short = read > line.len();
        let marker = read > 0 && file_line > 0 && is_marker(&line);
        if read == 0 || marker {
            if let Some(skipped_bytes) = skipped.take() {
                give(PieceContent::Problem(ReadProblem::too_large(source, part_line, skipped_bytes)));
                batch_start_line = file_line;
            } else if text.len() >= batch_bytes || read == 0 {
                flush(give, &mut text, batch_start_line);
                batch_start_line = file_line;
            }
            if read == 0 {
                return Ok(Cut::Done);
            }
            part_start = text.len();
            part_line = file_line + 1;
        }
        file_line += 1;
        bytes += read;
        if let Some(whole) = whole.as_deref_mut() {
            if file_line == 1 {
                starts_with_marker = line.starts_with(b"---") && line[3..].trim_ascii().is_empty();
            }
            if let Some(problem) = invalid_utf8(source, &line, file_line, cut_short) {
                return Ok(Cut::NotUtf8(problem));
            }
            match whole {
                Some(text) if bytes <= MAX_DOCUMENT_BYTES => text.extend_from_slice(&line),
                _ => *whole = None,
            }
            if line.first() == Some(&b'%') {
                return Ok(Cut::Directives { bytes, starts_with_marker });
            }
        }
        if let Some(skipped_bytes) = &mut skipped {
            *skipped_bytes += read;
            continue;
        }
        if cut_short {
            // One line over the limit: its document is too large.
            let part = text.split_off(part_start);
            part_line = document_start_line(&part, part_line - 1);
            flush(give, &mut text, batch_start_line);
            skipped = Some(part.len() + read);
            continue;
        }
        if text.capacity() == 0 {
            text.reserve(batch_bytes.min(MAX_DOCUMENT_BYTES) + (batch_bytes / 4).min(1 << 16));
        }
        // Every line was checked to be UTF-8 (here or by `scan_file`).
        text.push_str(std::str::from_utf8(&line).unwrap_or_default());
        if text.len() - part_start > MAX_DOCUMENT_BYTES {
            // The document is too large: what came before it is a piece, it is skipped.
            let part = text.split_off(part_start);
            part_line = document_start_line(&part, part_line - 1);
            flush(give, &mut text, batch_start_line);
            skipped = Some(part.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documents (kind/name) and problems (rule, line, message) of `paths` streamed in pieces within `budget`.
    fn streamed(paths: &[String], budget: &ReadBudget) -> (Vec<String>, Vec<(usize, String)>) {
        let (mut documents, mut problems) = (Vec::new(), Vec::new());
        stream_pieces(paths, 1, budget, &mut |piece| {
            let outcome = piece.read();
            documents.extend(outcome.documents.iter().map(|d| format!("{}/{}", d.origin.source, d.name())));
            problems.extend(outcome.problems.iter().map(|p| (p.line, p.message.clone())));
        })
        .unwrap();
        (documents, problems)
    }

    /// A document of "laughs": lists of ten aliases of the list before, `levels` deep, the last one with `last`
    /// aliases (few aliases per anchor, as serde-saphyr's own budget allows).
    pub(crate) fn laughs(name: &str, levels: usize, last: usize) -> String {
        let mut text = format!("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: {name}\nspec:\n");
        text.push_str(&format!("  l0: &l0 [{}]\n", ["x"; 10].join(", ")));
        for level in 1..levels {
            let refs = vec![format!("*l{}", level - 1); 10].join(", ");
            text.push_str(&format!("  l{level}: &l{level} [{refs}]\n"));
        }
        let refs = vec![format!("*l{}", levels - 1); last].join(", ");
        text.push_str(&format!("  bomb: [{refs}]\n"));
        text
    }

    #[test]
    fn aliases_expand_within_the_budget_of_each_file_and_of_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for file in 0..4 {
            // Ten documents of ~11,000 nodes of expansion each (and one without aliases) per file.
            let mut text: Vec<String> = (0..10).map(|i| laughs(&format!("b{i}"), 3, 9)).collect();
            text.insert(5, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n".to_string());
            let path = dir.path().join(format!("{file}.yaml"));
            std::fs::write(&path, text.join("---\n")).unwrap();
            paths.push(path.display().to_string());
        }
        // Each document adds ~11,000 nodes: two fit a file's 30,000, two files' four the run's 50,000.
        let budget = ReadBudget::new(30_000, 50_000);
        let (documents, problems) = streamed(&paths, &budget);
        let names: Vec<&str> = documents.iter().map(|d| d.rsplit_once('/').unwrap().1).collect();
        assert_eq!(names, ["b0", "b1", "plain", "b0", "b1", "plain", "plain", "plain"], "{documents:?}");
        assert!(budget.expanded() <= 50_000 && budget.expanded() > 40_000, "{}", budget.expanded());
        assert_eq!(problems.len(), 40 - 4);
        let first = &problems[0];
        assert!(
            first.1.starts_with("the document's aliases (*name) repeat ")
                && first.1.ends_with("which takes what aliases repeat in the documents of one file past the limit of 30000 nodes; it is not read"),
            "{first:?}"
        );
        assert_eq!(
            problems[1].1,
            "what aliases (*name) repeat in the documents of this file reached the limit of 30000 nodes before this \
             document; its aliases are not expanded, it is not read"
        );
        let run: Vec<&String> =
            problems.iter().map(|(_, m)| m).filter(|m| m.contains("all the documents of this run")).collect();
        assert_eq!(run.len(), 20, "the third and fourth files: nothing with aliases is read");
        // Without a shared budget each file has its own run: files are read as far as their own limit.
        let (alone, _) = streamed(&paths[..1], &ReadBudget::new(30_000, 50_000));
        assert_eq!(alone.len(), 3);
    }

    #[test]
    fn documents_the_yaml_library_refuses_for_their_aliases_count_too() {
        // A hundred aliases of one anchor: serde-saphyr refuses the document (too many aliases per anchor), after
        // reading it. Two such documents are what a file may expand; the others are not read at all.
        let refs = vec!["*a"; 100].join(", ");
        let document = format!("apiVersion: v1\nkind: Bomb\nmetadata: {{name: b}}\nspec: {{a: &a [x], b: [{refs}]}}\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ratio.yaml");
        std::fs::write(&path, vec![document; 5].join("---\n")).unwrap();
        let budget = ReadBudget::new(2_000_000, 10_000_000);
        let (documents, problems) = streamed(&[path.display().to_string()], &budget);
        assert!(documents.is_empty());
        let messages: Vec<&str> = problems.iter().map(|(_, message)| message.as_str()).collect();
        let expands = "the document expands to too much data (aliases nested or repeated too often)";
        assert_eq!(&messages[..3], [expands, expands, expands]);
        assert!(
            messages[3..].iter().all(|m| m.starts_with("what aliases (*name) repeat in the documents of this file"))
        );
        assert_eq!(budget.expanded(), 2_000_000);
    }

    #[test]
    fn a_document_past_the_limit_is_not_held_even_as_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.yaml");
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        use std::io::Write as _;
        write!(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  a: ").unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..17 {
            file.write_all(&chunk).unwrap();
        }
        write!(file, "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n").unwrap();
        drop(file);
        let paths = [path.display().to_string()];
        let (documents, problems) = streamed(&paths, &ReadBudget::default());
        assert_eq!(documents.len(), 2, "{documents:?}");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, 6);
        assert!(
            problems[0].1.starts_with("the document is 17.1 MiB of YAML, over the limit of 16 MiB"),
            "{:?}",
            problems[0]
        );
        // The same through a pipe (read once, cut as it comes).
        let (mut documents, mut problems) = (Vec::new(), Vec::new());
        let budget = ReadBudget::default();
        let mut on_piece = |piece: Piece| {
            let outcome = piece.read();
            documents.extend(outcome.documents.iter().map(|d| d.name().to_string()));
            problems.extend(outcome.problems.iter().map(|p| p.line));
        };
        let mut sink = Sink::new(&budget, &mut on_piece);
        stream_pipe(std::fs::File::open(&path).unwrap(), Arc::from("<stdin>"), 1, &mut sink).unwrap();
        assert_eq!((documents, problems), (vec!["a".to_string(), "after".to_string()], vec![6]));
    }

    #[test]
    fn pipes_read_as_files_do() {
        let cases: [&[u8]; 4] = [
            b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
            b"%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: directive}\n",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: \xff\n",
            b"---\napiVersion: v1\nkind: [\n",
        ];
        for bytes in cases {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("in.yaml");
            std::fs::write(&path, bytes).unwrap();
            let read = crate::manifest::read_paths_tolerant(&[path.display().to_string()]).unwrap();
            let expected: (Vec<String>, Vec<(usize, usize, String)>) = (
                read.documents.iter().map(|d| d.name().to_string()).collect(),
                read.problems.iter().map(|p| (p.line, p.column, p.message.clone())).collect(),
            );
            let budget = ReadBudget::default();
            let (mut documents, mut problems) = (Vec::new(), Vec::new());
            let mut on_piece = |piece: Piece| {
                let outcome = piece.read();
                documents.extend(outcome.documents.iter().map(|d| d.name().to_string()));
                problems.extend(outcome.problems.iter().map(|p| (p.line, p.column, p.message.clone())));
            };
            let mut sink = Sink::new(&budget, &mut on_piece);
            stream_pipe(bytes, Arc::from(path.display().to_string()), 1, &mut sink).unwrap();
            assert_eq!((documents, problems), expected, "{}", String::from_utf8_lossy(bytes));
        }
    }
}
