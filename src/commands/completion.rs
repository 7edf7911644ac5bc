//! `kubectl capz completion SHELL`: a completion script for bash, zsh, fish, elvish or PowerShell.

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionArgs};
use crate::exit::ExitStatus;

pub(crate) fn run(args: CompletionArgs) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    // Generated into memory first: clap_complete panics on a write error (e.g. a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "kubectl-capz", &mut script);
    let mut stdout = super::output::stdout();
    stdout.write_all(&script).context("cannot write to stdout")?;
    Ok(ExitStatus::Success)
}
