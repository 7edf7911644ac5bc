//! `kubectl capz import-schemas`: not built yet.

use crate::exit::ExitStatus;

pub(crate) fn run(_args: crate::cli::ImportSchemasArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`import-schemas` is not built yet")
}
