//! One module per subcommand: each resolves its flags, calls the domain modules and prints.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod aks_data;
mod change_review;
mod completion;
mod convert;
mod diff;
mod diff_base;
mod github;
mod import_schemas;
mod in_place;
mod interrupt;
mod migrate;
mod migrate_live;
mod migrate_output;
mod output;
mod params;
mod plan;
mod render;
mod render_fleet;
mod render_from;
mod run_date;
mod sarif;
mod target;
mod upgrade;
mod validate;
mod version;

use std::io::Write;
use std::process::ExitCode;

use anyhow::anyhow;

use crate::cli::{Cli, ClusterArgs, Command};
use crate::cluster::{ClusterOptions, parse_duration};
use crate::exit::ExitStatus;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Render(args) => render::run(args),
        Command::Params(args) => params::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Migrate(args) => migrate::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Upgrade(args) => upgrade::run(args),
        Command::Version => version::run(),
        Command::Completion(args) => completion::run(args),
        Command::Complete(args) => completion::complete(args),
        Command::ImportSchemas(args) => import_schemas::run(args),
    }
}

/// The connection options of kubectl's cluster flags (`--kubeconfig`, `--context`, `--request-timeout`).
pub(crate) fn cluster_options(args: &ClusterArgs) -> anyhow::Result<ClusterOptions> {
    let request_timeout = match &args.request_timeout {
        Some(text) => Some(parse_duration(text).map_err(|e| anyhow!("--request-timeout: {e}"))?),
        None => None,
    };
    Ok(ClusterOptions {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        request_timeout,
        ..ClusterOptions::default()
    })
}

/// Prints an error and its causes once on stderr and returns exit code 2.
///
/// A broken pipe on stdout (`kubectl capz render ... | head`) is not an error: exit 0.
pub fn report_error(err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    {
        return ExitCode::SUCCESS;
    }
    // Errors quote their input (file names, values, tools' messages): no line of them may be a CI command.
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "error: {}", crate::escape::lines(&err.to_string()));
    for cause in err.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {}", crate::escape::lines(&cause.to_string()));
    }
    ExitStatus::Error.into()
}
