//! Fleets: many clusters rendered into a GitOps repository tree, deterministically and atomically.

pub mod spec;
pub mod tree;
