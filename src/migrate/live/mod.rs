//! The live migration of a classic cluster to the ASO API (`kubectl capz migrate CLUSTER`): CAPZ's documented
//! manual procedure as an ordered plan of steps with real names, run through a guard that re-reads live state
//! before every write. Talks to the management cluster only (never to Azure); never prints.

mod api;
mod guard;
mod kinds;
mod names;
mod objects;
mod plan;
mod state;
mod step_id;
mod steps;

pub use api::Api;
pub use guard::{GuardError, Scope, Write, check as guard_check};
pub use kinds::{Kind, Target};
pub use names::Names;
pub use plan::{Action, Plan, Step};
pub use state::{LiveState, StepStatus, classic_documents, missing_kinds, preconditions};
pub use step_id::StepId;
pub use steps::{Observer, RunOptions, run_plan};

/// Annotation that disarms an ASO object: ASO neither updates nor deletes the Azure resource.
pub const RECONCILE_POLICY: &str = "serviceoperator.azure.com/reconcile-policy";
/// Annotation naming the Secret an ASO object takes its Azure credentials from.
pub const CREDENTIAL_FROM: &str = "serviceoperator.azure.com/credential-from";
/// Annotation that makes CAPZ adopt an ASO ManagedCluster / ManagedClustersAgentPool.
pub const ADOPT: &str = "sigs.k8s.io/cluster-api-provider-azure-adopt";
/// Annotation clusterctl's move waits on; CAPZ removes it from paused objects.
pub const BLOCK_MOVE: &str = "clusterctl.cluster.x-k8s.io/block-move";
/// Annotation of the new namespace recording the migration (the names of the plan), so a re-run resumes.
pub const MIGRATION: &str = "kubectl-capz.io/migration";

/// Why a live migration cannot go on. Every message names the object (kind namespace/name).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// A request to the management cluster failed.
    #[error(transparent)]
    Cluster(#[from] crate::cluster::ClusterError),
    /// A write failed.
    #[error("{what}: {message}")]
    Write { what: String, message: String },
    /// A precondition of the migration does not hold.
    #[error("precondition not met: {0}")]
    Precondition(String),
    /// The live state is not one the plan expects (someone changed objects, or another tool ran).
    #[error("unexpected state, stopping without changes: {0}")]
    Unexpected(String),
    /// The guard refused a write.
    #[error(transparent)]
    Refused(#[from] GuardError),
    /// A wait did not end within `--timeout`.
    #[error("timed out after {timeout:?} waiting for {what}")]
    Timeout { what: String, timeout: std::time::Duration },
    /// The user declined a step.
    #[error("step {0} not confirmed; stopped (re-run to continue from there)")]
    Declined(String),
}
