//! `kubectl capz render --fleet FLEET.yaml --out-dir DIR`: a fleet into a GitOps repository tree.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::cli::{CapiApi, GitopsKind, RenderArgs};
use crate::exit::ExitStatus;
use crate::fleet::record::{self, RenderRecord};
use crate::fleet::{self, Deletion, Fleet, FleetOptions, Validator};
use crate::out_tree::{self, Change, DesiredTree, OutDir, Ownership, Plan, Recovery};
use crate::schema::{ValidateOptions, Validator as SchemaValidator};
use crate::target_schemas::TargetSchemas;

use super::target::RunTarget;
use super::validate::rule_filter;
use crate::render::{CapiVersion, Engine};
use crate::validate::validate_documents;

pub(crate) fn run(args: RenderArgs, run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let (fleet_path, out_dir) = fleet_and_out_dir(&args)?;
    let fleet = Fleet::read(fleet_path)?;
    confirm_gitops_flag(&fleet, args.gitops)?;
    let engine = Engine::new(args.input.flavor_dir.as_deref());
    let progress = progress_bar(fleet::unit_count(&fleet));
    let schemas = run_target.schemas()?;
    let (validator, context) = if args.no_validate {
        (None, "not validated".to_string())
    } else {
        let (validator, context) = validator(run_target, schemas)?;
        (Some(validator), context)
    };
    let record = RecordFile::of(&args, out_dir);
    let previous = record.as_ref().map(RecordFile::load);
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
    if args.check {
        return check(&fleet, &engine, &options, out_dir);
    }
    let rendered = fleet::render_fleet(&fleet, &engine, &options)?;
    let plan = write(&fleet, &rendered.tree, out_dir, args.allow_deletions)?;
    if let Some(record) = &record {
        record.save(rendered.units, previous.as_ref());
    }
    report_written(&fleet, &rendered.tree, &plan, out_dir)?;
    Ok(ExitStatus::Success)
}

/// The fleet file and the output directory; the flags of a single render are errors with `--fleet`.
fn fleet_and_out_dir(args: &RenderArgs) -> anyhow::Result<(&Path, &Path)> {
    let (Some(fleet_path), Some(out_dir)) = (&args.fleet, &args.out_dir) else {
        bail!("--fleet needs --out-dir");
    };
    let input = &args.input;
    if input.flavor.is_some()
        || input.name.is_some()
        || !input.values.is_empty()
        || !input.set.is_empty()
        || input.infrastructure.is_some()
        || input.worker_machine_count.is_some()
        || input.control_plane_machine_count.is_some()
    {
        bail!(
            "--fleet takes flavors, names and values from the fleet file; drop the FLAVOR, NAME, --values, --set and clusterctl's template flags"
        );
    }
    Ok((fleet_path, out_dir))
}

/// A progress bar on a terminal (stderr, not with `NO_COLOR`) for fleets of 20 units or more, redrawn every 10.
fn progress_bar(total: usize) -> impl Fn(usize) + Sync {
    let show = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() && total >= 20;
    move |done: usize| {
        if show && (done == total || done.is_multiple_of(10)) {
            let width = 30;
            let filled = done * width / total.max(1);
            eprint!("\r[{}{}] {done}/{total} rendered", "#".repeat(filled), " ".repeat(width - filled));
            if done == total {
                eprintln!();
            }
        }
    }
}

/// Where the render record of the output directory is kept: none with `--no-cache` or without a cache directory.
struct RecordFile {
    file: PathBuf,
    tool: String,
    out_dir: PathBuf,
}

impl RecordFile {
    fn of(args: &RenderArgs, out_dir: &Path) -> Option<RecordFile> {
        match (args.no_cache, record::cache_dir(), record::tool_build(), std::path::absolute(out_dir)) {
            (false, Some(cache), Some(tool), Ok(absolute)) => {
                Some(RecordFile { file: record::record_file(&cache, &absolute), tool, out_dir: absolute })
            }
            _ => None,
        }
    }

    fn load(&self) -> RenderRecord {
        RenderRecord::load(&self.file, &self.tool, &self.out_dir)
    }

    /// Saves the record of this run's units when it differs from the one read. Best effort: without a record the
    /// next run renders every unit, with the same result.
    fn save(&self, units: Vec<(String, record::UnitRecord)>, previous: Option<&RenderRecord>) {
        let mut record = RenderRecord::new(&self.tool, &self.out_dir);
        for (key, unit) in units {
            record.insert(key, unit);
        }
        if previous != Some(&record) {
            let _ = record.save(&self.file);
        }
    }
}

fn cannot_update(out_dir: &Path) -> String {
    format!("cannot update `{}`", out_dir.display())
}

/// `--check`: writes nothing; exit 0 when the tree is up to date, 1 (listing what a run would write, delete and
/// clean up) when it is not or an earlier run was interrupted.
fn check(fleet: &Fleet, engine: &Engine, options: &FleetOptions, out_dir: &Path) -> anyhow::Result<ExitStatus> {
    // An interrupted run is reported before rendering: the answer does not depend on the fleet.
    let (_lock, unfinished) = out_tree::inspect(out_dir).with_context(|| cannot_update(out_dir))?;
    if let Some(state) = unfinished {
        eprintln!(
            "{} is not up to date: an earlier `render --fleet` was {} ({})",
            out_dir.display(),
            state.describe(),
            out_dir.join(out_tree::JOURNAL_NAME).display()
        );
        return Ok(ExitStatus::Findings);
    }
    let tree = fleet::render_fleet(fleet, engine, options)?.tree;
    let plan = Plan::compute(out_dir, &tree, Ownership::Marked).with_context(|| cannot_update(out_dir))?;
    let deletions = fleet::guard::deletions(out_dir, &plan, &tree);
    if plan.is_up_to_date() {
        eprintln!("{} is up to date ({} files)", out_dir.display(), tree.len());
        return Ok(ExitStatus::Success);
    }
    let mut stdout = super::output::stdout();
    let written: Vec<&Change> = plan.changes().iter().filter(|c| !matches!(c, Change::Delete(_))).collect();
    for change in &written {
        writeln!(stdout, "{} {}", change.verb(), out_dir.join(change.path()).display())?;
    }
    for deletion in &deletions {
        writeln!(stdout, "{}", deletion_line(out_dir, deletion))?;
    }
    for leftover in plan.leftovers() {
        writeln!(stdout, "leftover {}", out_dir.join(leftover).display())?;
    }
    eprintln!(
        "{} is not up to date: {} files would be written, {} deletions{}{}",
        out_dir.display(),
        written.len(),
        deletions.len(),
        if deletions.is_empty() { "" } else { " (need --allow-deletions)" },
        match plan.leftovers().len() {
            0 => String::new(),
            n => format!(", {n} leftover files of an interrupted run would be removed"),
        }
    );
    Ok(ExitStatus::Findings)
}

/// Writes `tree` into `out_dir` as one transaction, after finishing an interrupted earlier run there; refuses
/// (writing nothing) when the run would delete anything and `--allow-deletions` was not given.
fn write(fleet: &Fleet, tree: &DesiredTree, out_dir: &Path, allow_deletions: bool) -> anyhow::Result<Plan> {
    let held = OutDir::open(out_dir, Ownership::Marked).with_context(|| cannot_update(out_dir))?;
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
            return Err(err).with_context(|| cannot_update(out_dir));
        }
    };
    let deletions = fleet::guard::deletions(out_dir, &plan, tree);
    if !deletions.is_empty() && !allow_deletions {
        held.discard_if_created();
        return Err(deletions_refused(fleet, out_dir, &deletions));
    }
    if let Err(err) = plan.apply() {
        held.discard_if_created();
        return Err(err).with_context(|| cannot_update(out_dir));
    }
    Ok(plan)
}

/// The error of a run that would delete without `--allow-deletions`: every deletion, and a hint when they are the
/// GitOps objects of a fleet file that sets no `gitops.kind`.
fn deletions_refused(fleet: &Fleet, out_dir: &Path, deletions: &[Deletion]) -> anyhow::Error {
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
    anyhow::anyhow!(
        "this run would delete from `{}` (GitOps tools prune what leaves Git); nothing was written. \
         Re-run with --allow-deletions to delete:\n{}{hint}",
        out_dir.display(),
        listing.join("\n")
    )
}

/// Each change on stdout, the leftovers removed and a summary on stderr.
fn report_written(fleet: &Fleet, tree: &DesiredTree, plan: &Plan, out_dir: &Path) -> anyhow::Result<()> {
    let mut stdout = super::output::stdout();
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
    Ok(())
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
fn deletion_line(out_dir: &Path, deletion: &Deletion) -> String {
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
/// Also returns what the findings depend on besides the objects (target, Kubernetes release, rule selection, the
/// ASO kinds `additionalAsoCrds` adds), for the render record.
fn validator(
    run_target: &RunTarget,
    schemas: &'static TargetSchemas,
) -> anyhow::Result<(Box<Validator<'static>>, String)> {
    // One registry for the run: the schema checks' and the patch rules' (through the rule selection).
    let engine = SchemaValidator::new(schemas.registry(), ValidateOptions::default());
    let mut filter = rule_filter(run_target, &[], &[])?;
    filter.lint = filter.lint.with_schemas(schemas);
    let context = format!(
        "validated: target {:?}, Kubernetes {}, rules {filter:?}, ADDITIONAL_ASO_CRDS {:?}",
        run_target.target(),
        run_target.kubernetes_version(),
        schemas.registry().additional_aso_crds().map(|added| added.pattern.to_string())
    );
    Ok((Box::new(move |documents| validate_documents(documents, &engine, &filter).findings), context))
}
