//! The files a revision has in common with the working tree, found without reading them: a blob the index holds at
//! the same path, a file git sees unmodified (`git diff-files`, from file times and sizes, without refreshing the
//! index) of the blob's size. The snapshot links those instead of writing them out again.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};

/// What the index and the working tree of a repository hold.
#[derive(Debug, Default)]
pub(super) struct Clean {
    /// Path (from the repository's top) -> the index's blob.
    index: HashMap<String, String>,
    /// Paths whose working-tree file differs from the index (or git cannot tell without reading it).
    modified: HashSet<String>,
}

/// `-z` output split into its records.
fn records(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes.split(|&b| b == 0).filter_map(|record| std::str::from_utf8(record).ok()).filter(|r| !r.is_empty())
}

impl Clean {
    /// Reads the index and the unmodified files of the repository whose top is `toplevel` with `git` (a command
    /// set up as the snapshot's: no hooks, no locks taken); empty when git cannot say, so that every file is
    /// written from its blob.
    pub(super) fn read(git: impl Fn() -> Command, toplevel: &Path) -> Clean {
        let run = |args: &[&str]| {
            let mut command = git();
            command.current_dir(toplevel).args(args).stdout(Stdio::piped()).stderr(Stdio::null());
            command.output().ok().filter(|out| out.status.success()).map(|out| out.stdout)
        };
        let (Some(staged), Some(modified)) =
            (run(&["ls-files", "--stage", "-z"]), run(&["diff-files", "--name-only", "-z"]))
        else {
            return Clean::default();
        };
        let index = records(&staged)
            .filter_map(|record| {
                let (meta, path) = record.split_once('\t')?;
                let mut fields = meta.split(' ');
                let (_mode, object, stage) = (fields.next()?, fields.next()?, fields.next()?);
                (stage == "0").then(|| (path.to_string(), object.to_string()))
            })
            .collect();
        Clean { index, modified: records(&modified).map(str::to_string).collect() }
    }

    /// Whether the working tree's file at `path` holds blob `object` of `size` bytes as it is (`file` is that
    /// file: a regular file, not a symlink, of that size).
    pub(super) fn holds(&self, path: &str, object: &str, size: u64, file: &Path) -> bool {
        self.index.get(path).is_some_and(|staged| staged == object)
            && !self.modified.contains(path)
            && std::fs::symlink_metadata(file).is_ok_and(|meta| meta.file_type().is_file() && meta.len() == size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_z_output() {
        assert_eq!(records(b"a\0b c\0\0").collect::<Vec<_>>(), ["a", "b c"]);
    }
}
