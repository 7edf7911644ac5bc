//! `kubectl capz render --from FILE`: a clusterctl template rendered with clusterctl's semantics.

use crate::cli::RenderArgs;
use crate::exit::ExitStatus;

pub(crate) fn run(_args: RenderArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`render --from` is not built yet")
}
