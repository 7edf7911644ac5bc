//! Recorded upstream referees replayed: what the real upstream code (CAPI, CAPZ, Flux, Argo CD, kustomize, Go,
//! kube-apiserver) answered, recorded by the programs in tools/, compared with ours.
//!
//! One test binary; each file below is a module. To add one: put `tests/referee/NAME.rs` here, add `mod NAME;`
//! below, and reach the shared helpers with `use crate::support;`.

#[path = "../support/mod.rs"]
mod support;

/// Before any test runs: stop with one message when what this harness runs is not built (kubectl kustomize replays the Argo CD kustomize cases).
#[ctor::ctor(unsafe)]
fn prerequisites_are_built() {
    use support::prerequisites::{Prerequisite, require};
    require("referee", &[Prerequisite::Kubectl]);
}

mod plan_referee; // shared by the two `plan` referees: one recorded CAPI case against `capz::topology`

mod argo_kustomize_referee; // Argo CD kustomize options against the real kustomize
mod aso_conversion_referee; // ASO's generated API-version conversions (ConvertTo / ConvertFrom through the hub)
mod aso_update_referee; // ASO's update admission (write-once properties on old, new pairs)
mod capi_update_referee; // CAPI's update admission (Cluster, ClusterClass, MachinePool on old, new pairs)
mod capz_update_referee; // CAPZ's update admission (ValidateUpdate on old, new pairs)
mod capz_webhook_referee; // CAPZ's admission webhooks
mod convert_capi_referee; // CAPI's conversion functions
mod convert_plan_differential; // `convert` against CAPI's admission as `plan` runs it
mod core_referee; // kube-apiserver's verdicts on core objects
mod envsubst_conformance; // drone/envsubst
mod fleet_values_referee; // Fleet's values merge (wrangler data.MergeMaps) through the real helm
mod flux_substitute_referee; // Flux's variable substitution
mod go_duration_referee; // Go's time.ParseDuration
mod migrate_translation; // CAPZ's own classic-to-ASO translation
mod migrate_validate_differential; // `migrate -f` against `validate`
mod plan_acceptance; // CAPZ's upstream ClusterClass planned
mod plan_capi_referee; // CAPI v1.10's topology controller
mod plan_capi_v114_referee; // CAPI v1.14's topology controller
mod plan_gotemplate; // Go text/template + sprig
