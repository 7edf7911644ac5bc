//! `kubectl capz completion SHELL`: a completion script for bash, zsh, fish, elvish or PowerShell.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionArgs};
use crate::exit::ExitStatus;

pub(crate) fn run(args: CompletionArgs) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "kubectl-capz", &mut std::io::stdout());
    Ok(ExitStatus::Success)
}
