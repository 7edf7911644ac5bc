//! Upgrades: the Kubernetes versions a repository pins, their AKS support, and the steps to a target version
//! ([`plan`]), and the next step of each as edits of the repository's text ([`edit`]).

pub mod edit;
pub mod plan;

pub use plan::{ClusterPlan, Plan, PlanError, Step, Target, VersionStatus};
