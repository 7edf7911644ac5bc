//! Change review: what a change to a GitOps repository does to what its controllers apply — the objects it adds,
//! removes and changes between two builds of the repository (a git revision written out by [`snapshot`], or a
//! second directory), compared object by object as the live diff normalises them.

mod blast;
mod blob;
mod compare;
mod output;
mod relocate;
mod snapshot;

pub use blast::{DELETES_RULE, DETACHED_RULE, NOT_PRUNED_RULE, ROLLING_RULE, blast_radius};
pub use compare::{
    Applied, ApplyingApplication, ChangeKind, CompareOptions, ObjectChange, ObjectKey, Side, compare, compare_and_pair,
};
pub use output::{Counts, header, json, markdown, text};
pub use relocate::{ChangedLines, relocate};
pub use snapshot::{Snapshot, SnapshotError, materialise};
