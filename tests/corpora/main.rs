//! Validation and lint rules over corpora: the committed corpus (tests/corpus/), CAPZ's flavors, ASO's samples,
//! classic clusters, fuzz regressions, large bundles, and the fixture repositories of repository mode.
//!
//! One test binary; each file below is a module. To add one: put `tests/corpora/NAME.rs` here, add `mod NAME;`
//! below, and reach the shared helpers with `use crate::support;`.

#[path = "../support/mod.rs"]
mod support;

mod aso_samples; // ASO's own samples, held out
mod classic_aso_objects; // classic clusters' ASO objects
mod classic_linear_work; // the classic path's work grows linearly
mod fuzz_regressions; // fuzz seeds and regressions on stable Rust
mod lint_corpus; // the rule part of tests/corpus/
mod lint_flavors; // CAPZ's own flavors lint clean
mod lint_scale; // rules on a large bundle equal rules on its parts
mod repo_argo_kustomize; // repository mode: Argo CD kustomize options
mod repo_field_trial; // repository mode: shapes met on public repositories
mod repo_helm; // repository mode: Helm charts through the real helm
mod repo_hostile; // repository mode: hostile repositories (escaping, secrets, budgets)
mod repo_sources; // repository mode: what is read before any tool runs
mod repository_mode; // repository mode: `validate DIR`
mod targets; // per CAPZ target: every embedded ASO version
mod validate_corpus; // tests/corpus/{valid,invalid}
