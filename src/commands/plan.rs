//! `kubectl capz plan`: not built yet.

use crate::exit::ExitStatus;

pub(crate) fn run(_args: crate::cli::PlanArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`plan` is not built yet")
}
