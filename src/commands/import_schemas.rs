//! `kubectl capz import-schemas`: regenerate `schemas/` from upstream CRDs (maintainers only).

use anyhow::Context;

use crate::exit::ExitStatus;
use crate::schema::import;

pub(crate) fn run(args: crate::cli::ImportSchemasArgs) -> anyhow::Result<ExitStatus> {
    let output =
        import::import_dir(&args.from).with_context(|| format!("cannot import CRDs from `{}`", args.from.display()))?;
    import::write_output(&output, &args.out).with_context(|| format!("cannot write `{}`", args.out.display()))?;
    eprintln!("wrote {} files into {}", output.files.len(), args.out.display());
    Ok(ExitStatus::Success)
}
