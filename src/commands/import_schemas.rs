//! `kubectl capz import-schemas`: regenerate `schemas/` from the committed upstream CRDs and the fetched
//! Kubernetes OpenAPI spec and GitOps CRDs (maintainers only).

use anyhow::Context;

use crate::exit::ExitStatus;
use crate::schema::import;

pub(crate) fn run(args: crate::cli::ImportSchemasArgs) -> anyhow::Result<ExitStatus> {
    let inputs = import::Inputs { committed: &args.from, fetched: &args.fetched };
    let output = import::import(inputs).with_context(|| {
        format!("cannot import schemas from `{}` and `{}`", args.from.display(), args.fetched.display())
    })?;
    import::write_output(&output, &args.out).with_context(|| format!("cannot write `{}`", args.out.display()))?;
    eprintln!("wrote {} files into {}", output.files.len(), args.out.display());
    Ok(ExitStatus::Success)
}
