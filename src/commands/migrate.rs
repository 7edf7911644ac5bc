//! `kubectl capz migrate`: classic (AzureManagedControlPlane) manifests -> AzureASOManaged* manifests whose
//! embedded ASO objects are what CAPZ created for the classic cluster. The input is validated first (as
//! `validate`) and the result before it is written; exit 0 written, 1 the input or the result has validation
//! errors, 2 usage or input error (or a bundle CAPZ cannot translate).

use std::io::Write;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::cli::MigrateArgs;
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};
use crate::migrate::{MigrateOptions, adaptations, find_classic_clusters, to_aso_bundle};
use crate::schema::{ValidateOptions, Validator};

use super::migrate_output::{render, validate, write_bundles};
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
                crate::escape::line_start(&problem.source),
                problem.line,
                crate::escape::one_line(&problem.message)
            )?;
        }
    }
    let documents: Vec<Document> =
        read.documents.into_iter().filter(|d| !skipped_sources.contains(&d.origin.source.as_ref())).collect();
    let registry = run_target.registry()?;
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
    let options = MigrateOptions { to_namespace: args.to_namespace.clone(), schemas: run_target.schemas()? };
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
            let location = crate::escape::line_start(&adaptation.location);
            writeln!(stderr, "{location}: note: {}", crate::escape::one_line(&adaptation.message))?;
        }
    }
    drop(stderr);
    match &args.out_dir {
        Some(dir) => write_bundles(dir, &bundles, args.output)?,
        None => {
            let objects: Vec<Value> = bundles.iter().flat_map(|b| b.objects.iter().cloned()).collect();
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(render(&objects, args.output).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}
