//! `kubectl capz render --fleet FLEET.yaml --out-dir DIR`: a fleet into a GitOps repository tree.

use std::io::{IsTerminal, Write};

use anyhow::{Context, bail};

use crate::cli::{CapiApi, GitopsKind, RenderArgs};
use crate::exit::ExitStatus;
use crate::fleet::record::{self, RenderRecord};
use crate::fleet::{self, Deletion, Fleet, FleetOptions, Validator};
use crate::out_tree::{self, Change, OutDir, Ownership, Plan, Recovery};
use crate::schema::{ValidateOptions, Validator as SchemaValidator};
use crate::target_schemas::TargetSchemas;

use super::target::RunTarget;
use super::validate::rule_filter;
use crate::render::{CapiVersion, Engine};
use crate::validate::validate_documents;

pub(crate) fn run(args: RenderArgs, run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let (Some(fleet_path), Some(out_dir)) = (&args.fleet, &args.out_dir) else {
        bail!("--fleet needs --out-dir");
    };
    if args.input.flavor.is_some()
        || args.input.name.is_some()
        || !args.input.values.is_empty()
        || !args.input.set.is_empty()
        || args.input.infrastructure.is_some()
        || args.input.worker_machine_count.is_some()
        || args.input.control_plane_machine_count.is_some()
    {
        bail!(
            "--fleet takes flavors, names and values from the fleet file; drop the FLAVOR, NAME, --values, --set and clusterctl's template flags"
        );
    }
    let fleet = Fleet::read(fleet_path)?;
    confirm_gitops_flag(&fleet, args.gitops)?;
    let engine = Engine::new(args.input.flavor_dir.as_deref());
    let total = fleet::unit_count(&fleet);
    let show_progress = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() && total >= 20;
    let progress = |done: usize| {
        if show_progress && (done == total || done.is_multiple_of(10)) {
            let width = 30;
            let filled = done * width / total.max(1);
            eprint!("\r[{}{}] {done}/{total} rendered", "#".repeat(filled), " ".repeat(width - filled));
            if done == total {
                eprintln!();
            }
        }
    };
    let schemas = run_target.schemas()?;
    let (validator, context) = if args.no_validate {
        (None, "not validated".to_string())
    } else {
        let (validator, context) = validator(run_target, schemas)?;
        (Some(validator), context)
    };
    // The render record of the output directory: None with --no-cache or without a cache directory.
    let record_file = match (args.no_cache, record::cache_dir(), record::tool_build(), std::path::absolute(out_dir)) {
        (false, Some(cache), Some(tool), Ok(absolute)) => {
            Some((record::record_file(&cache, &absolute), tool, absolute))
        }
        _ => None,
    };
    let previous = record_file.as_ref().map(|(file, tool, absolute)| RenderRecord::load(file, tool, absolute));
    let options = FleetOptions {
        capi: match args.input.capi_api {
            CapiApi::V1beta1 => CapiVersion::V1beta1,
            CapiApi::V1beta2 => CapiVersion::V1beta2,
        },
        validator: validator.as_deref(),
        progress: &progress,
        schemas,
        context: &context,
        reuse: previous.as_ref(),
    };
    let cannot = || format!("cannot update `{}`", out_dir.display());
    let mut stdout = super::output::stdout();
    if args.check {
        // An interrupted run is reported before rendering: the answer does not depend on the fleet.
        let (_lock, unfinished) = out_tree::inspect(out_dir).with_context(cannot)?;
        if let Some(state) = unfinished {
            eprintln!(
                "{} is not up to date: an earlier `render --fleet` was {} ({})",
                out_dir.display(),
                state.describe(),
                out_dir.join(out_tree::JOURNAL_NAME).display()
            );
            return Ok(ExitStatus::Findings);
        }
        let tree = fleet::render_fleet(&fleet, &engine, &options)?.tree;
        let plan = Plan::compute(out_dir, &tree, Ownership::Marked).with_context(cannot)?;
        let deletions = fleet::guard::deletions(out_dir, &plan, &tree);
        if plan.is_up_to_date() {
            eprintln!("{} is up to date ({} files)", out_dir.display(), tree.len());
            return Ok(ExitStatus::Success);
        }
        for change in plan.changes().iter().filter(|c| !matches!(c, Change::Delete(_))) {
            writeln!(stdout, "{} {}", change.verb(), out_dir.join(change.path()).display())?;
        }
        for deletion in &deletions {
            writeln!(stdout, "{}", deletion_line(out_dir, deletion))?;
        }
        for leftover in plan.leftovers() {
            writeln!(stdout, "leftover {}", out_dir.join(leftover).display())?;
        }
        let changed = plan.changes().iter().filter(|c| !matches!(c, Change::Delete(_))).count();
        eprintln!(
            "{} is not up to date: {changed} files would be written, {} deletions{}{}",
            out_dir.display(),
            deletions.len(),
            if deletions.is_empty() { "" } else { " (need --allow-deletions)" },
            match plan.leftovers().len() {
                0 => String::new(),
                n => format!(", {n} leftover files of an interrupted run would be removed"),
            }
        );
        return Ok(ExitStatus::Findings);
    }
    let rendered = fleet::render_fleet(&fleet, &engine, &options)?;
    let tree = &rendered.tree;
    let held = OutDir::open(out_dir, Ownership::Marked).with_context(cannot)?;
    match held.recovery() {
        Some(Recovery::Completed) => {
            eprintln!("{}: completed the switch of an interrupted earlier run", out_dir.display())
        }
        Some(Recovery::RolledBack(_)) => {
            eprintln!("{}: rolled back an interrupted earlier run (the tree is as it was before it)", out_dir.display())
        }
        None => {}
    }
    let plan = match Plan::compute(out_dir, tree, Ownership::Marked) {
        Ok(plan) => plan,
        Err(err) => {
            held.discard_if_created();
            return Err(err).with_context(cannot);
        }
    };
    let deletions = fleet::guard::deletions(out_dir, &plan, tree);
    if !deletions.is_empty() && !args.allow_deletions {
        held.discard_if_created();
        let listing: Vec<String> = deletions.iter().map(|d| format!("  {}", deletion_line(out_dir, d))).collect();
        let hint = if fleet.spec.gitops.kind.is_none() && deletions.iter().any(Deletion::is_gitops_object) {
            format!(
                "\n{} sets no `gitops.kind`, so this run writes no GitOps objects; if the tree should keep them, \
                 set `kind:` under `gitops:` in the fleet file",
                fleet.file.display()
            )
        } else {
            String::new()
        };
        bail!(
            "this run would delete from `{}` (GitOps tools prune what leaves Git); nothing was written. \
             Re-run with --allow-deletions to delete:\n{}{hint}",
            out_dir.display(),
            listing.join("\n")
        );
    }
    if let Err(err) = plan.apply() {
        held.discard_if_created();
        return Err(err).with_context(cannot);
    }
    if let Some((file, tool, absolute)) = &record_file {
        // Best effort: without a record the next run renders every unit, with the same result.
        let mut record = RenderRecord::new(tool, absolute);
        for (key, unit) in rendered.units {
            record.insert(key, unit);
        }
        if previous.as_ref() != Some(&record) {
            let _ = record.save(file);
        }
    }
    for change in plan.changes() {
        writeln!(stdout, "{} {}", change.verb(), out_dir.join(change.path()).display())?;
    }
    if !plan.leftovers().is_empty() {
        eprintln!(
            "{}: removed {} leftover files of an interrupted earlier run",
            out_dir.display(),
            plan.leftovers().len()
        );
    }
    eprintln!(
        "{}: {} clusters, {} files written, {} changed",
        out_dir.display(),
        fleet.spec.clusters.len(),
        tree.len(),
        plan.changes().len()
    );
    Ok(ExitStatus::Success)
}

/// The fleet file decides the GitOps kind; `--gitops` may only repeat it.
fn confirm_gitops_flag(fleet: &Fleet, flag: Option<GitopsKind>) -> anyhow::Result<()> {
    let Some(flag) = flag else { return Ok(()) };
    let wanted = match flag {
        GitopsKind::Flux => fleet::GitopsKind::Flux,
        GitopsKind::Argocd => fleet::GitopsKind::Argocd,
    };
    match fleet.spec.gitops.kind {
        Some(kind) if kind == wanted => Ok(()),
        Some(kind) => bail!(
            "--gitops {} contradicts {}: gitops.kind: {} (the fleet file decides; drop --gitops or change the file)",
            wanted.name(),
            fleet.location_of_setting("/gitops/kind"),
            kind.name()
        ),
        None => bail!(
            "--gitops {} but {} sets no gitops.kind: the fleet file decides the GitOps objects, so every run \
             writes the same tree; add `kind: {}` under `gitops:` there",
            wanted.name(),
            fleet.location_of_setting("/gitops"),
            wanted.name()
        ),
    }
}

/// `delete PATH (objects)` or `remove OBJECT from PATH`.
fn deletion_line(out_dir: &std::path::Path, deletion: &Deletion) -> String {
    match deletion {
        Deletion::File { path, objects } if objects.is_empty() => format!("delete {}", out_dir.join(path).display()),
        Deletion::File { path, objects } => {
            format!("delete {} ({})", out_dir.join(path).display(), objects.join(", "))
        }
        Deletion::Object { path, object } => format!("remove {object} from {}", out_dir.join(path).display()),
    }
}

/// The checks run on every rendered cluster: the `validate` engine (schemas, CEL, CAPZ's rules).
/// One validator serves every rendering thread, so each schema, pattern and CEL program is
/// compiled once per run, not once per cluster.
/// Also returns what the findings depend on besides the objects (target, Kubernetes release, rule selection),
/// for the render record.
fn validator(
    run_target: &RunTarget,
    schemas: &'static TargetSchemas,
) -> anyhow::Result<(Box<Validator<'static>>, String)> {
    // One registry for the run: the schema checks' and the patch rules' (through the rule selection).
    let engine = SchemaValidator::new(schemas.registry(), ValidateOptions::default());
    let mut filter = rule_filter(run_target, &[], &[])?;
    filter.lint = filter.lint.with_schemas(schemas);
    let context = format!(
        "validated: target {:?}, Kubernetes {}, rules {filter:?}",
        run_target.target(),
        run_target.kubernetes_version()
    );
    Ok((Box::new(move |documents| validate_documents(documents, &engine, &filter).findings), context))
}
