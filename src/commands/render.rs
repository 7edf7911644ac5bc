//! `kubectl capz render`: flavors, ClusterClasses and topology Clusters from typed parameters.

use crate::cli::RenderArgs;
use crate::exit::ExitStatus;

use super::render_from;

pub(crate) fn run(args: RenderArgs) -> anyhow::Result<ExitStatus> {
    if args.input.from.is_some() {
        return render_from::run(args);
    }
    anyhow::bail!("`render` is not built yet")
}
