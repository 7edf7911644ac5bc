//! The project's tooling and generated files: shell completion, the krew manifest, the schema importer,
//! docs/rules.md, the README, and the module graph of src/ (no import circles).
//!
//! One test binary; each file below is a module. To add one: put `tests/tooling/NAME.rs` here, add `mod NAME;`
//! below, and reach the shared helpers with `use crate::support;`.

#[path = "../support/mod.rs"]
mod support;

/// Before any test runs: stop with one message when what this harness runs is not built (krew checks the manifest, real shells run the completion scripts).
#[ctor::ctor(unsafe)]
fn prerequisites_are_built() {
    use support::prerequisites::{Prerequisite, require};
    require("tooling", &[Prerequisite::Krew, Prerequisite::Shells]);
}

mod aks_versions; // the AKS version lifecycle data: generated from the calendar, cross-checked with endoflife.date
mod comments; // comments say why, not which issue
mod completion; // bash, zsh and fish completion in real shells
mod function_length; // no function in src/ over 100 lines without a reason written above it
mod import_cycles; // no import circle between the files of src/, nor between its folders
mod importer; // schemas/ equals a fresh import
mod krew; // the krew manifest and package
mod lint_rules_doc; // docs/rules.md is current
mod prerequisites; // each harness stops at once, with one message, when a tool it runs is missing
mod readme; // the README's first screen and its Layout
