//! `kubectl capz version`: the plugin version and the API versions it targets.

use std::io::Write;

use crate::exit::ExitStatus;

pub(crate) fn run() -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "kubectl-capz v{}", env!("CARGO_PKG_VERSION"))?;
    Ok(ExitStatus::Success)
}
