//! Command-line behaviour of each subcommand through the built binary: exit codes, stdout and stderr,
//! snapshots of what it prints (tests/cli/snapshots/), files it writes, and the docs' commands.
//!
//! One test binary; each file below is a module. To add one: put `tests/cli/NAME.rs` here, add `mod NAME;`
//! below, and reach the shared helpers with `use crate::support;` (or `use crate::support::cli_runner;`).

#[path = "../support/mod.rs"]
mod support;

mod aks_versions_cli; // `--aks-versions FILE`: what AKS offers in a region
mod cli_help; // usage text, examples, `--help` of every subcommand
mod closed_stdout; // `... | head -1` ends quietly
mod convert_aso_cli; // `convert --aso`
mod convert_cli; // `convert`
mod diff_cli; // `diff` failures before any API server is reached
mod docs_commands; // every command shown in README.md and docs/ runs as documented
mod migrate_cli; // `migrate -f`
mod migrate_patch_lint; // `validate` on ASO patch lists
mod out_dir_safety; // `--out-dir` trees: atomic, never touching a user's files
mod output_formats; // one `-o` vocabulary
mod plan_cli; // `plan`
mod readme; // README.md's generated parameter table
mod render_bad_input; // every bad input of `render`/`params`
mod render_class; // ClusterClass flavors
mod render_cli; // `render` and `params`
mod render_fleet; // `render --fleet`
mod render_from; // `render --from`
mod render_from_clusterctl; // `render --from` against clusterctl's recordings
mod render_topology; // topology flavors
mod render_topology_plan; // our ClusterClasses planned
mod render_upstream; // `render` equals CAPZ's own templates
mod startup_fixed_address; // the binary's start-up
mod target_cli; // choosing the CAPZ release of a run
mod upgrade_cli; // `upgrade plan`
mod validate_cli; // `validate`
mod validate_render; // `render --validate`
mod validate_targets_cli; // `validate --capz-version v1.27,v1.28`
