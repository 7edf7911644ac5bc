//! `kubectl capz validate`: not built yet.

use crate::exit::ExitStatus;

pub(crate) fn run(_args: crate::cli::ValidateArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`validate` is not built yet")
}
