//! `kubectl capz import-schemas`: regenerate `schemas/` from upstream CRDs or Kubernetes' OpenAPI
//! spec (maintainers only).

use anyhow::Context;

use crate::cli::SchemaSet;
use crate::exit::ExitStatus;
use crate::schema::{import, openapi};

pub(crate) fn run(args: crate::cli::ImportSchemasArgs) -> anyhow::Result<ExitStatus> {
    let output = match args.set {
        SchemaSet::Main => import::import_dir(&args.from),
        SchemaSet::Gitops => import::import_gitops_dir(&args.from),
        SchemaSet::Kubernetes => openapi::import_openapi_dir(&args.from),
    }
    .with_context(|| format!("cannot import schemas from `{}`", args.from.display()))?;
    import::write_output(&output, &args.out).with_context(|| format!("cannot write `{}`", args.out.display()))?;
    eprintln!("wrote {} files into {}", output.files.len(), args.out.display());
    Ok(ExitStatus::Success)
}
