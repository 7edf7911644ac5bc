//! Whose files an output directory holds, which decides what a run may overwrite or remove (the rules are the
//! module documentation of [`crate::out_tree`]).

/// How the files of earlier runs are told from everything else in an output directory.
#[derive(Debug, Clone, Copy)]
pub enum Ownership {
    /// The directory is shared with the user's files (a GitOps repository: `render --fleet`, `migrate --out-dir`):
    /// every directory a run writes gets a marker (`.kubectl-capz-owned`) listing its files, and only listed files
    /// are ours.
    Marked,
    /// The whole directory is one run's files, directly in it, and nothing else (`render --out-dir`): no marker,
    /// so that it holds exactly those files; its regular files whose name `is_ours` accepts are an earlier run's,
    /// and any other entry makes the run refuse.
    Whole {
        /// Whether a file name is one a run writes (`render --out-dir`: `NN-<kind>-<name>.yaml|json`).
        is_ours: fn(&str) -> bool,
    },
}

impl Ownership {
    /// Whether directories carry a marker.
    pub fn is_marked(self) -> bool {
        matches!(self, Ownership::Marked)
    }
}
