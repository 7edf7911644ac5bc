//! Fleets: many clusters rendered into a GitOps repository tree, deterministically and atomically.

mod names;
pub mod render;
pub mod spec;
pub mod tree;

pub use render::{FleetOptions, Gitops, Validator, render_fleet, unit_count};
pub use spec::{Fleet, FleetError};
pub use tree::{Change, DesiredTree, OutDir, Plan, Recovery, TreeError};
