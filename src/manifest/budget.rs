//! How much YAML aliases may make of what is read: for one file and for the whole run, not only for one document.
//! A document's aliases (`*name`) may repeat what its anchors (`&name`) hold up to serde-saphyr's budget of a
//! million events; a hundred such documents in one file, or ten such files, held together would cost gigabytes.
//!
//! What is counted is a document's expansion: the nodes it reads into beyond one per byte of its text. Text without
//! aliases has at most one node per byte (every node takes at least a character), so it is never counted; only
//! nodes that aliases repeat are.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The nodes aliases may add to the documents of one file.
pub const FILE_EXPANSION_LIMIT: usize = 2_000_000;
/// The nodes aliases may add to all documents a run reads.
pub const RUN_EXPANSION_LIMIT: usize = 8_000_000;

/// The expansion budget of a run; clones share it.
#[derive(Debug, Clone)]
pub struct ReadBudget {
    run: Arc<AtomicUsize>,
    /// Set once a document was refused for the run's limit: later documents with aliases are not expanded at all.
    run_spent: Arc<AtomicBool>,
    file_limit: usize,
    run_limit: usize,
}

impl Default for ReadBudget {
    fn default() -> Self {
        ReadBudget::new(FILE_EXPANSION_LIMIT, RUN_EXPANSION_LIMIT)
    }
}

/// Which limit a document's expansion went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exceeded {
    File(usize),
    Run(usize),
}

/// What aliases expanded in the documents of one file so far; [`FileExpansion::SPENT`] once one of its documents was
/// refused.
pub(crate) type FileExpansion = AtomicUsize;

impl ReadBudget {
    pub fn new(file_limit: usize, run_limit: usize) -> Self {
        ReadBudget {
            run: Arc::new(AtomicUsize::new(0)),
            run_spent: Arc::new(AtomicBool::new(false)),
            file_limit,
            run_limit,
        }
    }

    /// The nodes aliases added to the documents read so far.
    pub fn expanded(&self) -> usize {
        self.run.load(Ordering::Relaxed)
    }

    /// The limit a document with aliases of this file would be refused for without being read: a document of the
    /// file, or of the run, was refused already (so a file of a thousand alias bombs costs the reading of one past
    /// the limit, not of a thousand).
    pub(crate) fn spent(&self, file: &FileExpansion) -> Option<Exceeded> {
        if file.load(Ordering::Relaxed) == usize::MAX {
            return Some(Exceeded::File(self.file_limit));
        }
        self.run_spent.load(Ordering::Relaxed).then_some(Exceeded::Run(self.run_limit))
    }

    /// Counts `nodes` of expansion for a document of the file whose count is `file`; Err when that would take the
    /// file or the run past its limit: the document is not read (and not counted), and the file, or the run, is
    /// spent ([`ReadBudget::spent`]).
    pub(crate) fn charge(&self, file: &FileExpansion, nodes: usize) -> Result<(), Exceeded> {
        if nodes == 0 {
            return Ok(());
        }
        if let Some(exceeded) = self.spent(file) {
            return Err(exceeded);
        }
        let file_total = file.load(Ordering::Relaxed).saturating_add(nodes);
        if file_total > self.file_limit {
            file.store(usize::MAX, Ordering::Relaxed);
            return Err(Exceeded::File(self.file_limit));
        }
        let run_total = self.run.fetch_add(nodes, Ordering::Relaxed) + nodes;
        if run_total > self.run_limit {
            self.run.fetch_sub(nodes, Ordering::Relaxed);
            self.run_spent.store(true, Ordering::Relaxed);
            return Err(Exceeded::Run(self.run_limit));
        }
        file.store(file_total, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_the_run_have_their_own_limits_and_stay_spent() {
        let budget = ReadBudget::new(10, 25);
        let (first, second, third, fourth) =
            (FileExpansion::new(0), FileExpansion::new(0), FileExpansion::new(0), FileExpansion::new(0));
        assert_eq!(budget.charge(&first, 0), Ok(()));
        assert_eq!(budget.charge(&first, 10), Ok(()));
        assert_eq!(budget.charge(&first, 1), Err(Exceeded::File(10)));
        // Refused: not counted, and the file is spent even for what would fit.
        assert_eq!(budget.spent(&first), Some(Exceeded::File(10)));
        assert_eq!(budget.charge(&first, 0), Ok(()), "a document without aliases is never refused");
        assert_eq!(budget.expanded(), 10);
        assert_eq!(budget.charge(&second, 10), Ok(()));
        assert_eq!(budget.charge(&third, 6), Err(Exceeded::Run(25)));
        assert_eq!(budget.clone().expanded(), 20);
        assert_eq!(budget.spent(&fourth), Some(Exceeded::Run(25)));
        assert_eq!(budget.charge(&fourth, 1), Err(Exceeded::Run(25)));
    }
}
