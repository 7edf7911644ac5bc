//! Upgrades: the Kubernetes versions a repository pins, their AKS support, and the steps to a target version
//! ([`plan`]).

pub mod plan;

pub use plan::{ClusterPlan, Plan, PlanError, Step, Target, VersionStatus};
