//! kubectl-capz: render, validate and diff Cluster API Provider Azure (CAPZ) AKS manifests.
//!
//! The binary (`src/main.rs`) is a thin shell over [`commands`]; every other module is a domain
//! module that neither prints nor knows about clap.

// Domain modules return data; only `commands` (and `main.rs`) print.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod aks_versions;
pub mod change;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod config;
pub mod controller_fields;
pub mod convert;
pub mod cores;
pub mod diff;
pub mod escape;
pub mod exit;
pub mod fast_hash;
pub mod fleet;
pub mod go_duration;
pub mod json_pointer;
pub mod lint;
pub mod manifest;
pub mod migrate;
pub mod out_tree;
pub mod params;
pub mod render;
pub mod report;
pub mod schema;
pub mod source;
pub mod suggest;
pub mod target_schemas;
#[cfg(test)]
mod test_files;
pub mod topology;
pub mod upgrade;
pub mod validate;
pub mod versions;
