//! The one writer of output directories (`render --out-dir`, `render --fleet`, `migrate --out-dir`): what should be
//! on disk, what is, and applying the difference as one transaction, touching only files the tool owns and only
//! paths inside the output directory.
//!
//! Whose files are whose ([`Ownership`]), the same for every command:
//! - A file is ours when an earlier run wrote it: in a shared directory ([`Ownership::Marked`]: `render --fleet`,
//!   `migrate --out-dir`, whose trees sit in the user's repository) the directory's marker (`.kubectl-capz-owned`)
//!   lists it; in a directory owned whole ([`Ownership::Whole`]: `render --out-dir`, which holds one render's
//!   objects and nothing else, and so no marker) it is a regular file named as a run names its files. Every
//!   other file is foreign; a directory without a marker holds no file of ours.
//! - A foreign file is never overwritten, removed, read as ours or followed. One where a run must write refuses the
//!   run ([`TreeError::NotOwned`]); in a shared directory every other foreign file is left alone (the user's README,
//!   notes, `.git`); a directory owned whole that holds anything foreign refuses the run ([`TreeError::Foreign`]),
//!   so that it always holds exactly one run's files. `migrate` adds its own rule on top: it never writes into an
//!   existing cluster directory.
//! - Our files that a run no longer produces are removed (`render --fleet` asks for `--allow-deletions` first).
//! - Nothing is written or removed through a symbolic link, the output directory itself included; a marker or a
//!   journal on disk is untrusted input (plain names of its own directory only).
//! - One run at a time: a second run on a directory another run holds is refused ([`TreeError::Busy`]), not queued.
//!
//! Guarantee: a run that fails (a full disk, a read-only or immutable directory, a refused permission)
//! leaves the tree exactly as it was; a run killed at any point leaves a journal, and the next run (which
//! holds the directory's lock first) rolls it back or completes it before doing anything else, so every run
//! starts from the old tree or the new one, never a mix. What one rename cannot give: the output directory
//! also holds the user's files (and usually `.git`), so the whole tree cannot be swapped in one rename without
//! copying those into the new tree and replacing the directory under the user's shell and editor. So between
//! a kill during the switch (a few milliseconds of renames) and the next run, a person looking at the tree
//! can see part of it switched; `render --fleet --check` reports such an unfinished run. Files are not
//! `fsync`ed: the guarantee covers a process that dies or fails, not a machine that loses power.

mod desired;
mod journal;
mod legacy;
mod lock;
mod marker;
mod out_dir;
mod ownership;
mod plan;
mod safe_path;
mod transaction;

use std::path::{Path, PathBuf};

pub use desired::DesiredTree;
pub use journal::State as JournalState;
pub use lock::OutDirLock;
pub use marker::OWNER_MARKER;
pub use out_dir::{JOURNAL_NAME, OutDir, inspect, write};
pub use ownership::Ownership;
pub use plan::{Change, Plan};
pub use safe_path::RESERVED_PREFIX;
pub use transaction::Recovery;

use safe_path::ChainProblem;

/// Whether `file` is one `render --fleet` wrote: its directory's ownership marker lists it (a marker that cannot be
/// read counts as not listing it).
pub fn is_generated(file: &Path) -> bool {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else { return false };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    marker::read(dir).ok().flatten().is_some_and(|listed| listed.contains(name))
}

/// Errors planning or writing a tree.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The output directory is not a directory.
    #[error("output directory `{0}` exists and is not a directory")]
    NotADirectory(PathBuf),
    /// The output directory is a symbolic link.
    #[error(
        "output directory `{0}` is a symbolic link; kubectl-capz writes nothing through a symbolic link, give the directory it points to"
    )]
    SymlinkedRoot(PathBuf),
    /// An entry of a directory the tool owns whole that is not a file of an earlier run.
    #[error(
        "`{}` contains `{name}`, which is not a file kubectl-capz wrote there; choose an empty or new directory",
        dir.display()
    )]
    Foreign { dir: PathBuf, name: String },
    /// A file the tool must write exists in a directory the tool does not own.
    #[error(
        "`{0}` exists and was not written by kubectl-capz (its directory has no {OWNER_MARKER}); move it away or choose another --out-dir"
    )]
    NotOwned(PathBuf),
    /// A path the tool must create as a directory is a file.
    #[error("`{0}` is a file, but kubectl-capz needs a directory there")]
    FileInTheWay(PathBuf),
    /// A symbolic link on the way to a path the tool would create, change or remove.
    #[error(
        "`{0}` is a symbolic link; kubectl-capz does not write or remove anything through a symbolic link inside the output directory"
    )]
    Symlink(PathBuf),
    /// A marker entry that is not a plain file name of its own directory.
    #[error(
        "{}:{line}: `{entry}` {reason}; an ownership marker lists only file names of its own directory, so nothing was changed",
        marker.display()
    )]
    BadMarker { marker: PathBuf, line: usize, entry: String, reason: &'static str },
    /// A journal that is not one this tool wrote, or asks for something recovery must not do.
    #[error("{}:{line}: not a journal of an interrupted kubectl-capz run: {reason}", journal.display())]
    BadJournal { journal: PathBuf, line: usize, reason: String },
    /// A path of the desired tree that is not a relative path of plain names (a caller's name that cannot be a
    /// file name, such as one longer than 255 bytes).
    #[error("kubectl-capz would write `{}`, which {reason}; nothing was changed", path.display())]
    BadPath { path: PathBuf, reason: String },
    /// Another run holds the output directory.
    #[error("another kubectl-capz run is writing `{0}`; run again when it has finished")]
    Busy(PathBuf),
    /// A failed run whose rollback failed too: the journal stays for the next run.
    #[error(
        "{}; restoring the previous tree failed too ({}); the next run finishes restoring it",
        with_causes(first),
        with_causes(rollback)
    )]
    RollbackIncomplete { first: Box<TreeError>, rollback: Box<TreeError> },
    /// An I/O error on a path.
    #[error("cannot {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// An error and its causes on one line.
fn with_causes(err: &TreeError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> TreeError + 'a {
    move |source| TreeError::Io { action, path: path.to_path_buf(), source }
}

fn chain_error(problem: ChainProblem) -> TreeError {
    match problem {
        ChainProblem::Symlink(path) => TreeError::Symlink(path),
        ChainProblem::NotADirectory(path) => TreeError::FileInTheWay(path),
        ChainProblem::Io(path, source) => TreeError::Io { action: "inspect", path, source },
    }
}

#[cfg(test)]
mod tests;
