//! The `kubectl-capz` binary: parse the command line, run it, print the error chain once, exit.

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = capz::cli::parse();
    match capz::commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => capz::commands::report_error(&err),
    }
}
