//! Input files read whole (values files, templates, fleet files), refused above a size limit before any byte of
//! them is parsed.

use std::io::Read;
use std::path::Path;

use super::problem::{MAX_DOCUMENT_BYTES, mib};

/// The largest input file read whole: one YAML document's limit ([`MAX_DOCUMENT_BYTES`], 16 MiB). Values files,
/// fleet files and templates are a few KiB to ~1 MiB (a fleet of 10,000 clusters is 1.2 MiB).
pub const MAX_INPUT_FILE_BYTES: usize = MAX_DOCUMENT_BYTES;

fn too_large(bytes: Option<u64>) -> std::io::Error {
    let size = match bytes {
        Some(bytes) => format!("the file is {}", mib(bytes as usize)),
        None => "the input is larger".to_string(),
    };
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{size}, over the limit of {} for an input file (the API server accepts at most 3 MiB per object)",
            mib(MAX_INPUT_FILE_BYTES)
        ),
    )
}

/// Reads an input file as UTF-8 text; a file over [`MAX_INPUT_FILE_BYTES`] is an `InvalidData` error that says its
/// size and the limit (callers name the file).
pub fn read_input_file(path: impl AsRef<Path>) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let length = file.metadata()?.len();
    if length > MAX_INPUT_FILE_BYTES as u64 {
        return Err(too_large(Some(length)));
    }
    read_limited(file)
}

/// Reads standard input as UTF-8 text, up to [`MAX_INPUT_FILE_BYTES`] (more is an `InvalidData` error).
pub fn read_input_stdin() -> std::io::Result<String> {
    read_limited(std::io::stdin().lock())
}

/// Reads at most the limit (a file may grow, a pipe has no length), then refuses what is left.
fn read_limited(reader: impl Read) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    reader.take(MAX_INPUT_FILE_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_INPUT_FILE_BYTES {
        return Err(too_large(None));
    }
    String::from_utf8(bytes).map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidData, err.utf8_error()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_limit_are_refused_with_their_size_and_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_INPUT_FILE_BYTES as u64 + 1).unwrap();
        let err = read_input_file(&path).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "the file is 16.1 MiB, over the limit of 16 MiB for an input file (the API server accepts at most 3 MiB \
             per object)"
        );
        std::fs::write(&path, "a: 1\n").unwrap();
        assert_eq!(read_input_file(&path).unwrap(), "a: 1\n");
    }
}
