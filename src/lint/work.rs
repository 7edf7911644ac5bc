//! What one run of the rules did, counted: the tests that the classic path's work grows linearly read it.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts of one run of the rules, owned by the caller and shared by the threads the run spreads over (counted,
/// never timed: the same on every machine). [`super::check`] and [`super::StreamedBundle::check`] count into one
/// they drop; [`super::check_counting`] and [`super::StreamedBundle::check_counting`] into the caller's.
#[derive(Debug, Default)]
pub struct Work {
    translations: AtomicUsize,
    documents_judged: AtomicUsize,
}

impl Work {
    /// Classic clusters translated (`migrate::translate`) for the ASO patch rules.
    pub fn translations(&self) -> usize {
        self.translations.load(Ordering::Relaxed)
    }

    /// Documents given to the rules, summed over the groups of [`super::StreamedBundle::check`].
    pub fn documents_judged(&self) -> usize {
        self.documents_judged.load(Ordering::Relaxed)
    }

    pub(super) fn count_translation(&self) {
        self.translations.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn count_judged(&self, documents: usize) {
        self.documents_judged.fetch_add(documents, Ordering::Relaxed);
    }
}
