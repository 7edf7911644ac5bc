//! `kubectl capz diff --base REV|DIR [PATH]`: the change review, offline. Both sides are built as repository mode
//! builds them (the same target, config, excludes and budgets), then compared object by object; no cluster is read.
//! A revision is written out from git's object store into a temporary directory, removed afterwards (also when the
//! run is interrupted), so the working tree and the index never change.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::change::{self, Applied, CompareOptions};
use crate::cli::{DiffArgs, DiffOutput};
use crate::escape;
use crate::exit::ExitStatus;
use crate::manifest::{self, Document, SecretMask};
use crate::report::Severity;
use crate::source::{self, Budget, RepositoryOptions};

use super::interrupt;
use super::target::{RunTarget, search_start};

/// One side, built: its objects and the mask of the values that came from its Secrets.
struct Built {
    applied: Vec<Applied>,
    mask: SecretMask,
}

pub(crate) fn run(args: &DiffArgs, base: &str) -> anyhow::Result<ExitStatus> {
    let path = head_path(args)?;
    let head_root = Path::new(&path);
    if !head_root.is_dir() {
        bail!("diff --base compares repositories: `{path}` is not a directory");
    }
    let run_target = RunTarget::resolve(&args.target, &search_start(std::slice::from_ref(&path)))?;
    let registry = run_target.registry()?;
    let budget = Budget::default();
    let options = crate::validate::repository_options(
        &path,
        true,
        &args.exclude,
        run_target.config.as_ref(),
        false,
        args.helm_cache.as_deref(),
        &budget,
    );
    interrupt::install();
    let (base_root, snapshot, title) = if Path::new(base).is_dir() {
        (PathBuf::from(base), None, format!("kubectl capz diff --base {base} {path}"))
    } else {
        let snapshot = change::materialise(head_root, base)?;
        let short = snapshot.commit.get(..12).unwrap_or(&snapshot.commit).to_string();
        let root = snapshot.root.clone();
        (root, Some(snapshot), format!("kubectl capz diff --base {base} ({short}) {path}"))
    };
    interrupt::check("while the base revision was written out")?;
    // A revision's files are shown where they are in the repository (PATH/...), not in the temporary copy; a base
    // directory's where they are. What the GitOps objects say of the cluster is said of PATH on both sides, so
    // that an object keeps its key.
    let base_files = if snapshot.is_some() { path.clone() } else { base.to_string() };
    let old = build(&base_root, Shown { files: &base_files, clusters: &path }, &options, "base")?;
    interrupt::check("while the base was built")?;
    let new = build(head_root, Shown { files: &path, clusters: &path }, &options, "head")?;
    interrupt::check("while the head was built")?;
    drop(snapshot);
    let compare_options =
        CompareOptions { include_capz_managed: args.include_capz_managed, show_secrets: args.show_secrets };
    let changes = change::compare(old.applied, new.applied, &registry, compare_options);
    let findings = change::blast_radius(&changes);
    let text = match args.output {
        DiffOutput::Json => escape::json::to_string_pretty(&change::json(&changes, &findings))? + "\n",
        DiffOutput::Yaml => manifest::to_yaml(&change::json(&changes, &findings)),
        DiffOutput::Markdown => change::markdown(&changes, &findings, &title),
        // Coloured; anstream leaves the colours out when stdout is not a terminal.
        DiffOutput::Diff => change::text(&changes, true),
    };
    let text = if args.show_secrets { text } else { new.mask.mask(&old.mask.mask(&text)).into_owned() };
    let mut stdout = super::output::QuietPipe::new(anstream::stdout().lock());
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    if matches!(args.output, DiffOutput::Diff) {
        // What the change deletes or rolls: messages, after the data.
        let mut stderr = anstream::stderr().lock();
        for finding in &findings {
            let line = crate::validate::format_finding(finding);
            let line = if args.show_secrets { line } else { new.mask.mask(&old.mask.mask(&line)).into_owned() };
            stderr.write_all(line.as_bytes())?;
        }
    }
    Ok(if changes.is_empty() { ExitStatus::Success } else { ExitStatus::Findings })
}

/// PATH: the first positional argument (where `diff FLAVOR NAME` has its flavor), else the one `-f`, else `.`.
fn head_path(args: &DiffArgs) -> anyhow::Result<String> {
    if args.input.from.is_some() || args.input.name.is_some() || args.input.flavor_flag.is_some() {
        bail!("diff --base REV|DIR [PATH] compares two builds of a repository: no flavor, NAME or --from");
    }
    if args.aso_live || args.no_build {
        bail!("diff --base reads no cluster and builds both sides: --aso-live and --no-build do not apply");
    }
    match (args.input.flavor.as_ref(), args.filenames.as_slice()) {
        (Some(_), [_, ..]) => bail!("give the repository once: PATH or -f PATH"),
        (None, [_, _, ..]) => bail!("diff --base compares one repository: give one PATH"),
        (Some(path), []) => Ok(path.clone()),
        (None, [path]) => Ok(path.clone()),
        (None, []) => Ok(".".to_string()),
    }
}

/// How a side's directory is written in what is shown: in file names, and in what the GitOps objects say of the
/// cluster they apply to.
#[derive(Clone, Copy)]
struct Shown<'a> {
    files: &'a str,
    clusters: &'a str,
}

/// Builds the repository at `root`; a side that cannot say what it applies stops the review.
fn build(root: &Path, shown: Shown<'_>, options: &RepositoryOptions, side: &str) -> anyhow::Result<Built> {
    let (clusters, shown) = (shown.clusters, shown.files);
    let repository = source::load(root, options).with_context(|| format!("cannot read the {side} of the change"))?;
    let mut stderr = anstream::stderr().lock();
    for note in &repository.notes {
        let source = relocate(&note.source, root, shown);
        let (source, message) = (escape::one_line(&source), escape::one_line(&note.message));
        if note.severity == Severity::Error {
            bail!("{side}: {source}:{}: {message}", note.line);
        }
        if note.severity == Severity::Warning {
            writeln!(stderr, "warning: {side}: {source}:{}: {message}", note.line)?;
        }
    }
    // In a repository whose GitOps objects say what they apply, a build nothing applies (a kustomize root no Flux
    // Kustomization points at any more, a plain file outside every path) reaches no cluster: leaving it out shows
    // what a change stops applying as removed, which is what pruning does.
    let builds = repository.applied_by_build();
    let declared = builds.iter().any(|(built, _)| built.target.is_some());
    let mut applied = Vec::new();
    if !declared {
        for document in manifest::read_paths(&repository.plain).with_context(|| format!("cannot read the {side}"))? {
            applied.push(Applied {
                document: relocated(document, root, shown),
                cluster: None,
                default_namespace: None,
                unit: "a plain file".to_string(),
                prunes: false,
            });
        }
    }
    for (built, documents) in builds {
        if declared && built.target.is_none() {
            continue;
        }
        for document in documents {
            applied.push(Applied {
                document: relocated(document, root, shown),
                cluster: built.target.as_ref().map(|target| relocate(&target.cluster, root, clusters)),
                default_namespace: built.target.as_ref().and_then(|target| target.namespace.clone()),
                unit: relocate(&built.label, root, shown),
                prunes: built.target.as_ref().is_some_and(|target| target.prunes),
            });
        }
    }
    Ok(Built { applied, mask: repository.secret_mask.clone() })
}

/// `text` with the side's directory as built (`root`) written as the user knows it (`shown`).
fn relocate(text: &str, root: &Path, shown: &str) -> String {
    let root = root.display().to_string();
    if root == shown { text.to_string() } else { text.replace(&root, shown) }
}

fn relocated(mut document: Document, root: &Path, shown: &str) -> Document {
    let source = relocate(&document.origin.source, root, shown);
    document.origin.source = std::sync::Arc::from(source.as_str());
    document
}
