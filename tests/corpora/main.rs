//! Validation and lint rules over corpora: the committed corpus (tests/corpus/), CAPZ's flavors, ASO's samples,
//! classic clusters, fuzz regressions, large bundles, and the fixture repositories of repository mode.
//!
//! One test binary; each file below is a module. To add one: put `tests/corpora/NAME.rs` here, add `mod NAME;`
//! below, and reach the shared helpers with `use crate::support;`.

#[path = "../support/mod.rs"]
mod support;

/// Before any test runs: stop with one message when what this harness runs is not built (helm renders the charts of the repository fixtures, kubectl builds their kustomizations).
#[ctor::ctor(unsafe)]
fn prerequisites_are_built() {
    use support::prerequisites::{Prerequisite, require};
    require("corpora", &[Prerequisite::Helm, Prerequisite::Kubectl]);
}

mod aso_samples; // ASO's own samples, held out
mod change_review; // diff --base: the change review of a repository against a git revision or a directory
mod classic_aso_objects; // classic clusters' ASO objects
mod classic_linear_work; // the classic path's work grows linearly
mod fuzz_regressions; // fuzz seeds and regressions on stable Rust
mod lint_corpus; // the rule part of tests/corpus/
mod lint_flavors; // CAPZ's own flavors lint clean
mod lint_scale; // rules on a large bundle equal rules on its parts
mod repo_apply_units; // repository mode: Fleet bundles, ApplicationSet clusters, remote charts
mod repo_argo_kustomize; // repository mode: Argo CD kustomize options
mod repo_field_trial; // repository mode: shapes met on public repositories
mod repo_field_trust; // repository mode: placeholders, apply units, suppressions, CAPI references, Secret names
mod repo_helm; // repository mode: Helm charts through the real helm
mod repo_hostile; // repository mode: a hostile pull request under strace
mod repo_hostile_budgets; // repository mode: hostile repositories (escaping, secrets, budgets)
mod repo_provider_kinds; // repository mode: other providers' kinds, the CAPI Operator, ADDITIONAL_ASO_CRDS
mod repo_sources; // repository mode: what is read before any tool runs
mod repository_mode; // repository mode: `validate DIR`
mod targets; // per CAPZ target: every embedded ASO version
mod validate_corpus; // tests/corpus/{valid,invalid}
