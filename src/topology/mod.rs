//! The ClusterClass topology engine: variables, patches and the objects a topology Cluster produces.

pub mod admission;
pub mod gotemplate;
pub mod live;
pub mod patches;
pub mod plan;
pub mod variables;
pub mod webhooks;

pub use plan::{Current, CurrentWorker, Planned, TopologyError, plan, plan_all};
