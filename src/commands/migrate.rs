//! `kubectl capz migrate`: classic (AzureManagedControlPlane) manifests -> AzureASOManaged* manifests whose
//! embedded ASO objects are what CAPZ created for the classic cluster, validated before they are written;
//! exit 0 written, 1 the result has validation errors, 2 usage or input error (or a bundle CAPZ cannot translate).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::{MigrateArgs, MigrateOutput};
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};
use crate::migrate::{AsoBundle, MigrateOptions, find_classic_clusters, to_aso_bundle};
use crate::schema::{Registry, ValidateOptions, Validator};

use super::target::{RunTarget, search_start};
use super::validate::{format_summary, format_text, rule_filter, validate_documents};

/// Refuses ClusterClass-based classic clusters, which this version does not translate.
fn refuse_topologies(documents: &[Document]) -> anyhow::Result<()> {
    let classic_templates = ["AzureManagedControlPlaneTemplate", "AzureManagedMachinePoolTemplate"];
    if let Some(template) = documents.iter().find(|d| classic_templates.contains(&d.kind())) {
        bail!(
            "{}: {} is part of a ClusterClass-based classic cluster; migrate translates flat classic clusters \
             (Cluster + AzureManagedControlPlane + AzureManagedMachinePools) only, not ClusterClasses or their templates",
            template.origin,
            template.display_name()
        );
    }
    if let Some(cluster) = documents
        .iter()
        .find(|d| d.kind() == "Cluster" && d.value.pointer("/spec/topology").is_some_and(|t| !t.is_null()))
    {
        bail!(
            "{}: Cluster {} is drawn from a ClusterClass (spec.topology); migrate translates flat classic clusters only",
            cluster.origin,
            cluster.name()
        );
    }
    Ok(())
}

fn render(objects: &[Value], output: MigrateOutput) -> String {
    match output {
        MigrateOutput::Yaml => manifest::to_yaml_documents(objects),
        MigrateOutput::Json => {
            let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
            format!("{}\n", serde_json::to_string_pretty(&list).expect("JSON values serialize"))
        }
    }
}

/// Validates the migrated objects as `kubectl capz validate` would (the run's target and the config file's rules);
/// prints findings on stderr.
pub(super) fn validate(bundles: &[AsoBundle], run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let text = manifest::to_yaml_documents(bundles.iter().flat_map(|b| b.objects.iter().chain(&b.adopt)));
    let documents = manifest::parse_documents(&text, "<migrated>").context("cannot re-read the migrated objects")?;
    let filter = rule_filter(run_target, &[], &[])?;
    let registry = Registry::for_target(run_target.target());
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

/// Writes every file into a fresh temporary directory next to `out_dir`, then moves each cluster's directory
/// into place, so a failure leaves no half-written output.
pub(super) fn write_out_dir(out_dir: &Path, bundles: &[AsoBundle], output: MigrateOutput) -> anyhow::Result<()> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let extension = if output == MigrateOutput::Json { "json" } else { "yaml" };
    for bundle in bundles {
        let target = out_dir.join(&bundle.cluster_name);
        if target.exists() {
            bail!("{} exists; migrate does not overwrite it", target.display());
        }
    }
    let staging = tempfile::Builder::new()
        .prefix(".migrate-")
        .tempdir_in(out_dir)
        .with_context(|| format!("cannot write in {}", out_dir.display()))?;
    for bundle in bundles {
        let dir = staging.path().join(&bundle.cluster_name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("aso-managed.{extension}")), render(&bundle.objects, output))?;
        std::fs::write(dir.join(format!("adopt.{extension}")), render(&bundle.adopt, output))?;
    }
    for bundle in bundles {
        std::fs::rename(staging.path().join(&bundle.cluster_name), out_dir.join(&bundle.cluster_name))
            .with_context(|| format!("cannot move the output into {}", out_dir.display()))?;
    }
    Ok(())
}

pub(crate) fn run(args: MigrateArgs) -> anyhow::Result<ExitStatus> {
    // The config file is looked for from the first -f path, else (a live cluster) from the current directory.
    let run_target = RunTarget::resolve(&args.target, &search_start(&args.files))?;
    if args.cluster.is_some() {
        return super::migrate_live::run(args, run_target);
    }
    run_target.announce();
    let documents = manifest::read_paths(&args.files)?;
    refuse_topologies(&documents)?;
    let clusters = find_classic_clusters(&documents)?;
    if clusters.is_empty() {
        bail!(
            "no classic cluster in the input: a Cluster whose spec.controlPlaneRef is an AzureManagedControlPlane \
             (with its AzureManagedMachinePools)"
        );
    }
    let options = MigrateOptions { to_namespace: args.to_namespace.clone(), target: run_target.target() };
    let mut bundles = Vec::new();
    for cluster in &clusters {
        let bundle = to_aso_bundle(cluster, &options)
            .with_context(|| format!("CAPZ cannot translate Cluster {}/{}", cluster.namespace(), cluster.name()))?;
        bundles.push(bundle);
    }
    let status = validate(&bundles, &run_target)?;
    if status != ExitStatus::Success {
        return Ok(status);
    }
    match &args.out_dir {
        Some(dir) => write_out_dir(dir, &bundles, args.output)?,
        None => {
            let objects: Vec<Value> = bundles.iter().flat_map(|b| b.objects.iter().cloned()).collect();
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(render(&objects, args.output).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}
