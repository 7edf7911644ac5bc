//! `kubectl capz params`: not built yet.

use crate::exit::ExitStatus;

pub(crate) fn run(_args: crate::cli::ParamsArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`params` is not built yet")
}
