//! `kubectl capz upgrade plan PATH...`: the clusters of files or repositories (read as `validate` reads them), each
//! with its versions, their AKS support on the run's day and the steps to the target (crate::upgrade::plan), as
//! text, JSON or a Markdown pull-request comment. Exit 0 when no cluster needs a step, 1 when some do.
//!
//! `kubectl capz upgrade --to VERSION PATH`: each cluster's next step as edits of the lines that set its versions
//! (crate::upgrade::edit), printed as a diff, written with `-w` (each file atomically), listed with `--check`.
//! Exit 0 nothing to do (or written), 1 edits pending or a step refused, 2 a usage or input error.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::aks_versions::Lifecycle;
use crate::cli::{UpgradeArgs, UpgradeCommand, UpgradeOutput, UpgradePlanArgs};
use crate::escape::{self, markdown_inline};
use crate::exit::ExitStatus;
use crate::lint::aks_versions::inventory::{self, ClusterVersions};
use crate::manifest;
use crate::report::Severity;
use crate::source::{Budget, Limits};
use crate::upgrade::edit::{Edit, FullVersion, parent_dir};
use crate::upgrade::{Plan, Target};

pub(crate) fn run(args: UpgradeArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        Some(UpgradeCommand::Plan(plan)) => run_plan(plan),
        None => run_step(args),
    }
}

fn run_step(args: UpgradeArgs) -> anyhow::Result<ExitStatus> {
    let (Some(to), Some(path)) = (args.to.as_deref(), args.path.as_deref()) else {
        anyhow::bail!("upgrade needs --to VERSION and a PATH (or `upgrade plan`)");
    };
    let version = FullVersion::parse(to).ok_or_else(|| {
        anyhow::anyhow!("--to: `{to}` is not a full version vX.Y.Z: give the patch AKS offers (az aks get-versions)")
    })?;
    let on = super::run_date::run_date(args.at)?;
    super::run_date::warn_if_stale(on);
    let paths = [path.to_string()];
    let region = region_of_run(args.aks_versions.as_deref(), &paths)?;
    Target::Minor(version.minor)
        .resolve(Lifecycle::bundled(), on, region)
        .map_err(|err| anyhow::anyhow!("--to: {err}"))?;
    if let Some(region) = region
        && region.get(version.minor).is_some()
        && let Some(crate::aks_versions::Offered::PatchNotOffered { offered }) = region.offers(&version.written, true)
    {
        anyhow::bail!(
            "--to {}: AKS in {} does not offer this patch (its patches of {}: {}; {})",
            escape::one_line(&version.written),
            region.describe(),
            version.minor,
            crate::aks_versions::list_versions(&offered),
            escape::one_line(&region.origin())
        );
    }
    let clusters = read_clusters(&paths)?;
    let root = if Path::new(path).is_dir() { PathBuf::from(path) } else { parent_dir(Path::new(path)) };
    let planned = crate::upgrade::edit::next_step(&clusters, &version, &root, args.fleet.as_deref(), region);
    for refusal in &planned.refusals {
        anstream::eprintln!("refused: {}: {}", escape::one_line(&refusal.cluster), escape::one_line(&refusal.reason));
    }
    let mut by_file: BTreeMap<&Path, Vec<&Edit>> = BTreeMap::new();
    for edit in &planned.edits {
        by_file.entry(edit.file.as_path()).or_default().push(edit);
    }
    let mut changed = Vec::new();
    for (file, edits) in &by_file {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        let edited = crate::upgrade::edit::apply(&text, edits)
            .with_context(|| format!("{} changed while it was read: nothing was written", file.display()))?;
        changed.push((*file, text, edited, edits.len()));
    }
    let mut stdout = super::output::stdout();
    if args.check {
        for (file, ..) in &changed {
            writeln!(stdout, "{}", escape::one_line(&file.display().to_string()))?;
        }
    } else if args.write {
        // A file is written only inside the directory named (or the fleet file's, for its edits).
        let fleet_dir = args.fleet.as_deref().map(crate::upgrade::edit::parent_dir);
        let targets: Vec<PathBuf> = changed
            .iter()
            .map(|(file, ..)| {
                let within = match &fleet_dir {
                    Some(dir) if !file.starts_with(&root) && file.starts_with(dir) => dir.as_path(),
                    _ => root.as_path(),
                };
                super::in_place::write_target(&file.display().to_string(), within)
            })
            .collect::<anyhow::Result<_>>()?;
        for ((file, _, edited, count), target) in changed.iter().zip(&targets) {
            super::in_place::write_atomically(target, edited)?;
            anstream::eprintln!("wrote {} ({count} line(s))", escape::one_line(&file.display().to_string()));
        }
    } else {
        for (file, text, edited, _) in &changed {
            let name = file.display().to_string();
            let diff = similar::TextDiff::from_lines(text, edited);
            let unified =
                diff.unified_diff().context_radius(2).header(&format!("a/{name}"), &format!("b/{name}")).to_string();
            stdout.write_all(escape::lines(&unified).as_bytes())?;
        }
    }
    stdout.flush()?;
    anstream::eprintln!(
        "{} clusters: {} line(s) in {} file(s) to {}, {} step(s) refused",
        clusters.len(),
        planned.edits.len(),
        changed.len(),
        version.written,
        planned.refusals.len()
    );
    let pending = !changed.is_empty() && !args.write;
    Ok(if pending || !planned.refusals.is_empty() { ExitStatus::Findings } else { ExitStatus::Success })
}

fn run_plan(args: UpgradePlanArgs) -> anyhow::Result<ExitStatus> {
    let on = super::run_date::run_date(args.at)?;
    super::run_date::warn_if_stale(on);
    let lifecycle = Lifecycle::bundled();
    let region = region_of_run(args.aks_versions.as_deref(), &args.paths)?;
    let target = Target::parse(&args.to)
        .and_then(|target| target.resolve(lifecycle, on, region))
        .map_err(|err| anyhow::anyhow!("--to: {err}"))?;
    let clusters = read_clusters(&args.paths)?;
    let knowledge = crate::upgrade::plan::Knowledge { lifecycle, on, region };
    let plan = crate::upgrade::plan::plan(&clusters, knowledge, target);
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

/// ` (v1.34.3 in westeurope)`: the patch a step takes in the region, with `--aks-versions`.
fn patch_of(step: &crate::upgrade::plan::Step) -> String {
    step.patch.as_deref().map(|patch| format!(" ({})", escape::one_line(patch))).unwrap_or_default()
}

/// `--aks-versions FILE`, else the `aksVersions` of the `.kubectl-capz.yaml` nearest above the first path.
fn region_of_run(
    flag: Option<&Path>,
    paths: &[String],
) -> anyhow::Result<Option<&'static crate::aks_versions::RegionVersions>> {
    let config = match flag {
        Some(_) => None,
        None => crate::config::discover(&super::target::search_start(paths))?,
    };
    super::aks_data::region_versions(flag, config.as_ref())
}

/// The clusters of every path: each unit a repository applies is one bundle, every file given or left plain one
/// more; a cluster two units both apply is listed once.
fn read_clusters(paths: &[String]) -> anyhow::Result<Vec<ClusterVersions>> {
    let budget = Budget::new(Limits::default());
    let (plain, repositories) = crate::validate::read_sources(paths, false, &[], None, false, None, &budget)?;
    let mut clusters: Vec<ClusterVersions> = Vec::new();
    let mut add = |found: Vec<ClusterVersions>| {
        for cluster in found {
            let cp = &cluster.control_plane;
            if !clusters.iter().any(|c| c.name == cluster.name && c.control_plane.edit_at() == cp.edit_at()) {
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
        let mut found = Vec::new();
        for (built, documents) in repository.applied_by_build() {
            let mut clusters = inventory::clusters(&documents);
            substitution_sites(built, &documents, &mut clusters);
            found.extend(clusters);
        }
        trace_settings(repository, &mut found);
        add(found);
    }
    let documents = manifest::read_paths(&plain).context("cannot read the manifests")?;
    add(inventory::clusters(&documents));
    Ok(clusters)
}

/// For the clusters of one build that Flux substituted: where the variable each version was written with is set
/// (a `postBuild.substitute` entry, a key of a substituteFrom ConfigMap), as `Pinned::set_at`.
fn substitution_sites(
    built: &crate::source::BuiltSource,
    documents: &[crate::manifest::Document],
    clusters: &mut [ClusterVersions],
) {
    if built.substituted.is_empty() {
        return;
    }
    for cluster in clusters {
        for pinned in std::iter::once(&mut cluster.control_plane).chain(&mut cluster.pools) {
            let Some(index) = documents
                .iter()
                .position(|d| d.display_name() == pinned.object && d.location_of(&pinned.pointer) == pinned.at)
            else {
                continue;
            };
            let fields = built.substituted.get(index).map_or(&[][..], Vec::as_slice);
            if let Some(field) = fields.iter().find(|field| field.pointer == pinned.pointer) {
                pinned.set_at = Some(format!("{}:{}", field.source, field.line));
            }
        }
    }
}

/// Where each version's value is set, by repository mode's provenance: the Helm values file or Argo CD `valuesObject`
/// line a chart's render took it from, the kustomize patch that set it (`Pinned::set_at`).
fn trace_settings(repository: &crate::source::Repository, clusters: &mut [ClusterVersions]) {
    let mut findings = Vec::new();
    for cluster in clusters.iter() {
        for pinned in std::iter::once(&cluster.control_plane).chain(&cluster.pools) {
            let Some((source, line)) = pinned.at.rsplit_once(':') else { continue };
            findings.push(crate::report::Finding {
                rule: "upgrade".into(),
                severity: Severity::Info,
                source: source.to_string(),
                line: line.parse().unwrap_or(0),
                column: None,
                object: pinned.object.clone(),
                path: pinned.pointer.clone(),
                // The render whose value this is, among several holding the object: the one quoting it.
                message: serde_json::Value::String(pinned.version.clone()).to_string(),
            });
        }
    }
    let before: Vec<(String, usize)> = findings.iter().map(|f| (f.source.clone(), f.line)).collect();
    repository.trace_values(&mut findings);
    repository.remap(&mut findings);
    // The same object with the same version from several builds (two Argo CD Applications rendering one chart to
    // one destination) has its value set in each of them, which one trace does not tell apart: such a version is
    // left to the search of the lines that set it, which names them all.
    let mut builds_of: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for pinned in clusters.iter().flat_map(|cluster| std::iter::once(&cluster.control_plane).chain(&cluster.pools)) {
        *builds_of.entry((pinned.object.as_str(), pinned.at.as_str(), pinned.version.as_str())).or_default() += 1;
    }
    let shared: Vec<(String, String, String)> = builds_of
        .into_iter()
        .filter(|(_, count)| *count > 1)
        .map(|((object, at, version), _)| (object.to_string(), at.to_string(), version.to_string()))
        .collect();
    let mut traced = findings.iter().zip(before);
    for cluster in clusters.iter_mut() {
        for pinned in std::iter::once(&mut cluster.control_plane).chain(&mut cluster.pools) {
            if !pinned.at.contains(':') {
                continue;
            }
            let Some((finding, (source, line))) = traced.next() else { return };
            let key = (pinned.object.clone(), pinned.at.clone(), pinned.version.clone());
            if (finding.source.as_str(), finding.line) != (source.as_str(), line) && !shared.contains(&key) {
                pinned.set_at = Some(format!("{}:{}", finding.source, finding.line));
            }
        }
    }
}

fn text(plan: &Plan) -> String {
    let mut out = String::new();
    for cluster in &plan.clusters {
        let cp = &cluster.control_plane;
        let kind = if cluster.topology { "topology Cluster" } else { "Cluster" };
        let _ = writeln!(out, "{kind} {}", escape::one_line(&cluster.cluster));
        for (role, status) in std::iter::once(("control plane", cp)).chain(cluster.pools.iter().map(|p| ("pool", p))) {
            let _ = writeln!(
                out,
                "  {role} {} {} ({}): {}",
                escape::one_line(&status.object),
                escape::one_line(&status.version),
                escape::one_line(&status.at),
                status.detail
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
            let _ =
                writeln!(out, "  {}. {} to {}{}: {}", number + 1, step.what, step.to, patch_of(step), edits.join(", "));
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
            let _ =
                writeln!(out, "{}. {} to {}{}: {}", number + 1, step.what, step.to, patch_of(step), edits.join(", "));
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}
