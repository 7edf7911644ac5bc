//! Holding an output directory for a run: created when missing, locked against other runs, an interrupted run
//! finished first; and inspecting one for `--check`.

use std::path::{Path, PathBuf};

use super::journal::{JOURNAL, Journal};
use super::lock::{self, OutDirLock};
use super::plan::Plan;
use super::safe_path::existing_root;
use super::transaction::{self, Recovery};
use super::{DesiredTree, JournalState, Ownership, TreeError, io_err};

/// An output directory held by a run: created when missing, locked against other runs, and any run
/// interrupted there finished first.
#[derive(Debug)]
pub struct OutDir {
    root: PathBuf,
    created: bool,
    recovery: Option<Recovery>,
    _lock: OutDirLock,
}

impl OutDir {
    /// Opens `root` for writing files owned as `ownership` says: creates it when missing, takes its lock
    /// (another run holding it is [`TreeError::Busy`]), then rolls back or completes an interrupted run found
    /// there.
    pub fn open(root: &Path, ownership: Ownership) -> Result<OutDir, TreeError> {
        let created = !existing_root(root)?;
        if created {
            std::fs::create_dir_all(root).map_err(io_err("create directory", root))?;
        }
        let lock = lock::lock(root, true)?;
        let recovery = transaction::recover(root, ownership)?;
        Ok(OutDir { root: root.to_path_buf(), created, recovery, _lock: lock })
    }

    /// What was done about an interrupted run found in the directory.
    pub fn recovery(&self) -> Option<Recovery> {
        self.recovery
    }

    /// After a run that wrote nothing (it failed): removes the output directory again if this run created
    /// it and it is still empty.
    pub fn discard_if_created(self) {
        if self.created {
            let _ = std::fs::remove_dir(&self.root);
        }
    }
}

/// For `--check`: takes the shared lock of an existing `root` (another run writing it is
/// [`TreeError::Busy`]) and tells whether an interrupted run's journal is there, and in which state.
pub fn inspect(root: &Path) -> Result<(Option<OutDirLock>, Option<JournalState>), TreeError> {
    if !existing_root(root)? {
        return Ok((None, None));
    }
    let lock = lock::lock(root, false)?;
    let state = Journal::read(root)?.map(|journal| journal.state);
    Ok((Some(lock), state))
}

/// The journal's file name (for messages).
pub const JOURNAL_NAME: &str = JOURNAL;

/// Writes `desired` into `root` as one run ([`OutDir::open`], [`Plan::compute`], [`Plan::apply`]) and returns
/// what it changed. A run that fails leaves `root` as it was, and no `root` when it had to create it.
pub fn write(root: &Path, desired: &DesiredTree, ownership: Ownership) -> Result<Plan, TreeError> {
    let held = OutDir::open(root, ownership)?;
    let written = Plan::compute(root, desired, ownership).and_then(|plan| plan.apply().map(|()| plan));
    if written.is_err() {
        held.discard_if_created();
    }
    written
}
