//! Tests against a real kube-apiserver and etcd (tools/kube-testenv): ONE server for this whole binary, started
//! at the first `support::apiserver()`, each test in namespaces of its own (`ApiServer::namespace`).
//!
//! One test binary; each file below is a module. To add one: put `tests/live/NAME.rs` here, add `mod NAME;`
//! below, and use `crate::support::apiserver()` (`apiserver_with_crds(DIR)` installs more CRDs into the same
//! server; `apiserver_exclusive()` for a test that changes what every other test sees, such as controller
//! Deployments the plugin detects cluster-wide).

#[path = "../support/mod.rs"]
mod support;

/// Before any test runs: stop with one message when what this harness runs is not built (the real kube-apiserver and kubectl).
#[ctor::ctor(unsafe)]
fn prerequisites_are_built() {
    use support::prerequisites::{Prerequisite, require};
    require("live", &[Prerequisite::ApiServer, Prerequisite::Kubectl]);
}

mod classic_cluster; // the world of the live migration tests (used by live_migrate)

mod host_names; // a server named by host name, resolved through the restricted name service
mod live_apiserver; // the harness itself: the real server, the trimmed CRDs, the launcher
mod live_core_referee; // records kube-apiserver's verdicts on core objects
mod live_diff; // `diff`
mod live_migrate; // `migrate CLUSTER`
mod live_plan; // `plan` and `diff` of topology Clusters
mod live_ratcheting; // `validate --base` forgives and rejects on update what the server does (ratcheting, oldSelf)
mod live_repository_diff; // `diff -f DIR` on the Flux fixture repository (installs Flux's CRDs)
mod live_target_kinds; // every CAPI, CAPI Operator and extra ASO kind of each target: a sample the server accepts
mod live_validate; // `validate` agrees with the server
mod render_fleet_gitops; // fleet GitOps objects accepted by the server (installs the GitOps CRDs)
mod render_topology_live; // our ClusterClasses and topology Clusters accepted by the server
mod user_agent; // the User-Agent every request carries (the server's audit log)
