//! The ClusterClass topology engine: variables, patches and the objects a topology Cluster produces.

pub mod gotemplate;
pub mod patches;
pub mod variables;
pub mod live;
pub mod plan;

pub use plan::{Current, CurrentWorker, Planned, TopologyError, plan, plan_all};
