//! `kubectl capz migrate`: classic (AzureManagedControlPlane) manifests -> AzureASOManaged* manifests whose
//! embedded ASO objects are what CAPZ created for the classic cluster. The input is validated first (as
//! `validate`) and the result before it is written; exit 0 written, 1 the input or the result has validation
//! errors, 2 usage or input error (or a bundle CAPZ cannot translate).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::{MigrateArgs, MigrateOutput};
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};
use crate::migrate::{AsoBundle, MigrateOptions, adaptations, find_classic_clusters, to_aso_bundle};
use crate::schema::{Registry, ValidateOptions, Validator};

use super::target::{RunTarget, search_start};
use super::validate::rule_filter;
use crate::validate::{format_summary, format_text, validate_documents};

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

/// Reads the input and runs `validate`'s checks on it first (schemas, CEL, CAPZ, CAPI and ASO
/// rules): with an error, prints the findings and returns `None` (nothing is translated). A file
/// of a directory that is not manifests (a Helm template) is reported and skipped; a file named
/// on the command line that is not is an error finding, as in `validate`.
fn validated_input(paths: &[String], run_target: &RunTarget) -> anyhow::Result<Option<Vec<Document>>> {
    let read = manifest::read_paths_tolerant(paths)?;
    let named = |source: &str| paths.iter().any(|p| p == source) || source == "<stdin>";
    let (problems, skipped): (Vec<_>, Vec<_>) = read.problems.into_iter().partition(|p| named(&p.source));
    let mut stderr = anstream::stderr().lock();
    let mut skipped_sources: Vec<&str> = Vec::new();
    for problem in &skipped {
        if !skipped_sources.contains(&problem.source.as_ref()) {
            skipped_sources.push(&problem.source);
            writeln!(
                stderr,
                "{}:{}: skipped: not Kubernetes manifests ({}); the other files are migrated",
                problem.source, problem.line, problem.message
            )?;
        }
    }
    let documents: Vec<Document> =
        read.documents.into_iter().filter(|d| !skipped_sources.contains(&d.origin.source.as_ref())).collect();
    let registry = Registry::for_target(run_target.target());
    let validator = Validator::new(&registry, ValidateOptions::default());
    let mut report = validate_documents(&documents, &validator, &rule_filter(run_target, &[], &[])?);
    report.add_read_problems(&problems, &read.sources);
    if report.exit_status() == ExitStatus::Success {
        return Ok(Some(documents));
    }
    stderr.write_all(format_text(&report).as_bytes())?;
    stderr.write_all(format_summary(&report.summary).as_bytes())?;
    stderr.write_all(
        b"migrate: the input does not validate (`kubectl capz validate` reports the same); fix it first: nothing translated\n",
    )?;
    Ok(None)
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
    let Some(documents) = validated_input(&args.files, &run_target)? else {
        return Ok(ExitStatus::Findings);
    };
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
    let mut stderr = anstream::stderr().lock();
    for (cluster, bundle) in clusters.iter().zip(&bundles) {
        for adaptation in adaptations(cluster, bundle) {
            writeln!(stderr, "{}: note: {}", adaptation.location, adaptation.message)?;
        }
    }
    drop(stderr);
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
