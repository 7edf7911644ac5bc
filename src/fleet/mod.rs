//! Fleets: many clusters rendered into a GitOps repository tree, deterministically and atomically.

pub mod gitops;
pub mod guard;
mod names;
pub mod record;
pub mod render;
pub mod spec;

pub use guard::Deletion;
pub use record::RenderRecord;
pub use render::{FleetOptions, RenderedFleet, Validator, render_fleet, unit_count};
pub use spec::{Fleet, FleetError, GitopsKind};
