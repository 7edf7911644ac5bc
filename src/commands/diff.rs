//! `kubectl capz diff`: not built yet.

use crate::exit::ExitStatus;

pub(crate) fn run(_args: crate::cli::DiffArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`diff` is not built yet")
}
