//! CAPI's admission webhooks for a ClusterClass and a topology Cluster, run before planning as
//! `clusterctl alpha topology plan` and the API server run them: the ClusterClass checks
//! (patches, selectors, variables, worker classes, naming templates), the Cluster's defaulting
//! (version prefix, variable defaults, Go's canonical durations, the fields CAPI's typed objects
//! always write) and the Cluster checks (version, worker topologies, MachineHealthChecks).
//! Errors carry CAPI's field paths and texts (`internal/webhooks` of CAPI v1.10,
//! `core/webhooks/admission` of v1.14).
//!
//! One file per webhook concern: `cluster_class` (with `class_variables`, `class_naming`, `class_patches`,
//! `patch_selectors`), `defaulting` and `cluster`; the rules they share are in `field_error`, `names`,
//! `template_refs`, `machine_fields` and `durations`.

mod class_naming;
mod class_patches;
mod class_variables;
mod cluster;
mod cluster_class;
mod defaulting;
mod durations;
mod field_error;
mod machine_fields;
mod names;
mod patch_selectors;
mod template_refs;

pub use self::cluster::validate_cluster;
pub use self::cluster_class::validate_class;
pub use self::defaulting::default_cluster;
pub use self::durations::{canonical_duration, format_go_duration};
pub use self::field_error::{FieldError, v1beta2_path_hint};
