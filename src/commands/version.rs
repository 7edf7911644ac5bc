//! `kubectl capz version`: the plugin version and the CAPI, CAPZ and ASO versions it targets.

use std::io::Write;

use crate::exit::ExitStatus;
use crate::versions::{PLUGIN, UPSTREAMS};

pub(crate) fn run() -> anyhow::Result<ExitStatus> {
    let mut out = super::output::stdout();
    writeln!(out, "kubectl-capz v{PLUGIN}")?;
    for upstream in UPSTREAMS {
        writeln!(out, "{}: {} (revision {})", upstream.project, upstream.version, upstream.revision)?;
        writeln!(out, "  used for: {}", upstream.used_for)?;
    }
    Ok(ExitStatus::Success)
}
