//! `kubectl capz upgrade plan PATH...`: the clusters of files or repositories (read as `validate` reads them), each
//! with its versions, their AKS support on the run's day and the steps to the target (crate::upgrade::plan), as
//! text, JSON or a Markdown pull-request comment. Exit 0 when no cluster needs a step, 1 when some do.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::Context;

use crate::aks_versions::Lifecycle;
use crate::cli::{UpgradeArgs, UpgradeCommand, UpgradeOutput, UpgradePlanArgs};
use crate::escape::{self, markdown_inline};
use crate::exit::ExitStatus;
use crate::lint::aks_versions::inventory::{self, ClusterVersions};
use crate::manifest;
use crate::report::Severity;
use crate::source::{Budget, Limits};
use crate::upgrade::{Plan, Target};

pub(crate) fn run(args: UpgradeArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        UpgradeCommand::Plan(args) => run_plan(args),
    }
}

fn run_plan(args: UpgradePlanArgs) -> anyhow::Result<ExitStatus> {
    let on = super::run_date::run_date(args.at)?;
    super::run_date::warn_if_stale(on);
    let lifecycle = Lifecycle::bundled();
    let target = Target::parse(&args.to)
        .and_then(|target| target.resolve(lifecycle, on))
        .map_err(|err| anyhow::anyhow!("--to: {err}"))?;
    let clusters = read_clusters(&args.paths)?;
    let plan = crate::upgrade::plan::plan(&clusters, lifecycle, on, target);
    let mut stdout = super::output::stdout();
    match args.output {
        UpgradeOutput::Text => stdout.write_all(text(&plan).as_bytes())?,
        UpgradeOutput::Json => {
            escape::json::to_writer_pretty(&mut stdout, &plan)?;
            stdout.write_all(b"\n")?;
        }
        UpgradeOutput::Markdown => stdout.write_all(markdown(&plan).as_bytes())?,
    }
    stdout.flush()?;
    let needing = plan.clusters.iter().filter(|cluster| !cluster.steps.is_empty()).count();
    anstream::eprintln!(
        "{} clusters, {needing} with steps to Kubernetes {} ({} steps; AKS support judged on {})",
        plan.clusters.len(),
        plan.target,
        plan.steps(),
        plan.on
    );
    Ok(if plan.steps() == 0 { ExitStatus::Success } else { ExitStatus::Findings })
}

/// The clusters of every path: each unit a repository applies is one bundle, every file given or left plain one
/// more; a cluster two units both apply is listed once.
fn read_clusters(paths: &[String]) -> anyhow::Result<Vec<ClusterVersions>> {
    let budget = Budget::new(Limits::default());
    let (plain, repositories) = crate::validate::read_sources(paths, false, &[], None, false, None, &budget)?;
    let mut clusters: Vec<ClusterVersions> = Vec::new();
    let mut add = |found: Vec<ClusterVersions>| {
        for cluster in found {
            if !clusters.iter().any(|c| c.name == cluster.name && c.control_plane.at == cluster.control_plane.at) {
                clusters.push(cluster);
            }
        }
    };
    for repository in &repositories {
        // What could not be built is said (its clusters are not in the plan); an error stops the run.
        for note in &repository.notes {
            let (source, message) = (escape::one_line(&note.source), escape::one_line(&note.message));
            match note.severity {
                Severity::Error => anyhow::bail!("{source}:{}: {message}", note.line),
                Severity::Warning => anstream::eprintln!("warning: {source}:{}: {message}", note.line),
                _ => {}
            }
        }
        // A plan without the clusters of a source that was not built would look complete: refuse it.
        if let Some(first) = repository.not_built.first() {
            anyhow::bail!(
                "{} source(s) not built, so their clusters cannot be planned; the first: {} at {}:{} ({})",
                repository.not_built.len(),
                escape::one_line(&first.what),
                escape::one_line(&first.source),
                first.line,
                escape::one_line(&first.reason)
            );
        }
        for (_, documents) in repository.applied_by_build() {
            add(inventory::clusters(&documents));
        }
    }
    let documents = manifest::read_paths(&plain).context("cannot read the manifests")?;
    add(inventory::clusters(&documents));
    Ok(clusters)
}

fn text(plan: &Plan) -> String {
    let mut out = String::new();
    for cluster in &plan.clusters {
        let cp = &cluster.control_plane;
        let kind = if cluster.topology { "topology Cluster" } else { "Cluster" };
        let _ = writeln!(out, "{kind} {}", escape::one_line(&cluster.cluster));
        let _ = writeln!(
            out,
            "  control plane {} {} ({}): {}",
            escape::one_line(&cp.object),
            escape::one_line(&cp.version),
            escape::one_line(&cp.at),
            cp.detail
        );
        for pool in &cluster.pools {
            let _ = writeln!(
                out,
                "  pool {} {} ({}): {}",
                escape::one_line(&pool.object),
                escape::one_line(&pool.version),
                escape::one_line(&pool.at),
                pool.detail
            );
        }
        if let Some(note) = &cluster.note {
            let _ = writeln!(out, "  no steps: {}", escape::one_line(note));
        } else if cluster.steps.is_empty() {
            let _ = writeln!(out, "  no steps: on Kubernetes {}", plan.target);
        }
        for (number, step) in cluster.steps.iter().enumerate() {
            let edits: Vec<String> = step
                .objects
                .iter()
                .zip(&step.edit)
                .map(|(object, at)| format!("{} at {}", escape::one_line(object), escape::one_line(at)))
                .collect();
            let _ = writeln!(out, "  {}. {} to {}: {}", number + 1, step.what, step.to, edits.join(", "));
        }
    }
    out
}

fn markdown(plan: &Plan) -> String {
    let mut out = String::new();
    let needing = plan.clusters.iter().filter(|cluster| !cluster.steps.is_empty()).count();
    let _ = writeln!(
        out,
        "### Upgrade plan to Kubernetes {}: {needing} of {} clusters need steps (AKS support on {})\n",
        plan.target,
        plan.clusters.len(),
        plan.on
    );
    if plan.clusters.is_empty() {
        return out;
    }
    let _ = writeln!(out, "| cluster | control plane | AKS support | steps |\n|---|---|---|---|");
    for cluster in &plan.clusters {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            markdown_inline(&cluster.cluster),
            markdown_inline(&cluster.control_plane.version),
            markdown_inline(&cluster.control_plane.detail),
            cluster.steps.len()
        );
    }
    for cluster in plan.clusters.iter().filter(|cluster| !cluster.steps.is_empty()) {
        let _ = writeln!(
            out,
            "\n<details><summary>{}: {} steps</summary>\n",
            markdown_inline(&cluster.cluster),
            cluster.steps.len()
        );
        for (number, step) in cluster.steps.iter().enumerate() {
            let edits: Vec<String> = step
                .objects
                .iter()
                .zip(&step.edit)
                .map(|(object, at)| format!("{} at {}", markdown_inline(object), markdown_inline(at)))
                .collect();
            let _ = writeln!(out, "{}. {} to {}: {}", number + 1, step.what, step.to, edits.join(", "));
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}
