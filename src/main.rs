//! The `kubectl-capz` binary: parse the command line, run it, print the error chain once, exit.

use std::process::ExitCode;

/// mimalloc instead of glibc's malloc: validate and render build and drop many small JSON values, and more than a
/// quarter of their instructions went to glibc's malloc and free (BENCHMARKS.md). Listed with the other build and
/// start-up settings above the profiles in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = capz::cli::parse();
    match capz::commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => capz::commands::report_error(&err),
    }
}
