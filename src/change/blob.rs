//! The files a revision has in common with the working tree: a working tree file whose git blob id (the hash git
//! gives its content, `blob <size>\0` then the bytes; SHA-1, or SHA-256 in a repository of that object format) is
//! the revision's blob at the same path. The snapshot links those instead of writing them out again. Hashing the
//! file, rather than trusting the index's file times as `git diff-files` does, also finds the files git "smudged"
//! in its index because they were written in the second the index was (every file of a fresh checkout, often).

use std::path::Path;

use sha1::Digest;

/// Files larger than this are written out from the revision instead (reading one to hash it costs as much).
const MAX_HASHED: u64 = 16 << 20;

/// Whether `file` (not followed if it is a symlink) is a regular file of `size` bytes whose blob id is `object`.
pub(super) fn holds_blob(file: &Path, object: &str, size: u64) -> bool {
    let is_candidate = std::fs::symlink_metadata(file)
        .is_ok_and(|meta| meta.file_type().is_file() && meta.len() == size && size <= MAX_HASHED);
    is_candidate && std::fs::read(file).is_ok_and(|content| blob_id(&content, object.len()).as_deref() == Some(object))
}

/// The blob id of `content` as `hex_len` hex digits (40: SHA-1, 64: SHA-256); `None` for another length.
fn blob_id(content: &[u8], hex_len: usize) -> Option<String> {
    let header = format!("blob {}\0", content.len());
    let digest: Vec<u8> = match hex_len {
        40 => sha1::Sha1::new().chain_update(header.as_bytes()).chain_update(content).finalize().to_vec(),
        64 => sha2::Sha256::new().chain_update(header.as_bytes()).chain_update(content).finalize().to_vec(),
        _ => return None,
    };
    Some(digest.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`; SHA-256 of `blob 6\0hello\n` (a sha256 repository's id).
        assert_eq!(blob_id(b"hello\n", 40).as_deref(), Some("ce013625030ba8dba906f756967f9e9ca394464a"));
        assert_eq!(
            blob_id(b"hello\n", 64).as_deref(),
            Some("2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4")
        );
        assert_eq!(blob_id(b"", 40).as_deref(), Some("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"));
        assert_eq!(blob_id(b"x", 12), None);
    }

    #[test]
    fn only_a_regular_file_of_the_blobs_content_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, "hello\n").unwrap();
        assert!(holds_blob(&file, "ce013625030ba8dba906f756967f9e9ca394464a", 6));
        assert!(!holds_blob(&file, "ce013625030ba8dba906f756967f9e9ca394464a", 7));
        std::fs::write(&file, "hellO\n").unwrap();
        assert!(!holds_blob(&file, "ce013625030ba8dba906f756967f9e9ca394464a", 6));
        let link = dir.path().join("link.yaml");
        std::fs::write(&file, "hello\n").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(!holds_blob(&link, "ce013625030ba8dba906f756967f9e9ca394464a", 6));
    }
}
