//! What `migrate` and `migrate --cluster` share: the migrated objects as printed, their validation and `--out-dir`.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::MigrateOutput;
use crate::exit::ExitStatus;
use crate::manifest;
use crate::migrate::{AsoBundle, ClusterFiles, bundle_tree, existing_cluster_dir};
use crate::out_tree::{self, Ownership};
use crate::schema::{ValidateOptions, Validator};
use crate::validate::{format_summary, format_text, validate_documents};

use super::target::RunTarget;
use super::validate::rule_filter;

/// The objects as `-o yaml` or `-o json` prints them.
pub(super) fn render(objects: &[Value], output: MigrateOutput) -> String {
    match output {
        MigrateOutput::Yaml => manifest::to_yaml_documents(objects),
        MigrateOutput::Json => {
            let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
            format!("{}\n", crate::escape::json::to_string_pretty(&list).expect("JSON values serialize"))
        }
    }
}

/// Validates the migrated objects as `kubectl capz validate` would (the run's target and the config file's rules);
/// prints findings on stderr.
pub(super) fn validate(bundles: &[AsoBundle], run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let text = manifest::to_yaml_documents(bundles.iter().flat_map(|b| b.objects.iter().chain(&b.adopt)));
    let documents = manifest::parse_documents(&text, "<migrated>").context("cannot re-read the migrated objects")?;
    let filter = rule_filter(run_target, &[], &[])?;
    let registry = run_target.registry()?;
    let validator = Validator::new(&registry, ValidateOptions::default());
    let report = validate_documents(&documents, &validator, &filter);
    if report.exit_status() != ExitStatus::Success {
        let mut stderr = anstream::stderr().lock();
        stderr.write_all(format_text(&report).as_bytes())?;
        stderr.write_all(format_summary(&report.summary).as_bytes())?;
        stderr.write_all(b"migrate: the migrated objects do not validate; nothing written\n")?;
    }
    Ok(report.exit_status())
}

/// Writes `<out_dir>/<cluster>/aso-managed.<ext>` and `adopt.<ext>` for every bundle with the output-tree writer
/// ([`crate::out_tree::write`]): a failure leaves no half-written output, an existing cluster directory is refused.
pub(super) fn write_bundles(out_dir: &Path, bundles: &[AsoBundle], output: MigrateOutput) -> anyhow::Result<()> {
    let extension = if output == MigrateOutput::Json { "json" } else { "yaml" };
    let clusters: Vec<ClusterFiles> = bundles
        .iter()
        .map(|bundle| ClusterFiles {
            cluster_name: bundle.cluster_name.clone(),
            files: vec![
                (format!("aso-managed.{extension}"), render(&bundle.objects, output)),
                (format!("adopt.{extension}"), render(&bundle.adopt, output)),
            ],
        })
        .collect();
    if let Some(existing) = existing_cluster_dir(out_dir, &clusters) {
        bail!("{} exists; migrate does not overwrite it", existing.display());
    }
    out_tree::write(out_dir, &bundle_tree(&clusters), Ownership::Marked)?;
    Ok(())
}
