//! The change review both `diff --base` and `validate --base` run: the base (a git revision written out, or a
//! directory) and the head built as repository mode builds them (the same target, config, excludes and budgets),
//! compared object by object, and the findings about the change: CAPZ's update rules on each changed object with
//! the base as the stored one, the CEL transition rules of the stored objects, and what the change deletes or
//! rolls. No cluster is read.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::change::{self, Applied, CompareOptions, ObjectChange};
use crate::escape;
use crate::lint::RuleSelection;
use crate::manifest::{self, Document, SecretMask};
use crate::report::{Finding, Severity};
use crate::schema::{Registry, Validator};
use crate::source::{self, RepositoryOptions};
use crate::validate::StoredPairs;

use super::interrupt;

/// What to review: the base as given (`REV` or a directory), the head directory, and how to build and compare.
pub(crate) struct ReviewRequest<'a> {
    pub base: &'a str,
    pub path: &'a str,
    pub options: &'a RepositoryOptions,
    pub compare: CompareOptions,
    /// Whether the CEL transition rules are judged (the `cel` rule is on).
    pub transition_rules: bool,
}

/// A change, reviewed.
pub(crate) struct Review {
    pub changes: Vec<ObjectChange>,
    /// CAPZ's update rules and the blast radius, as the rule selection allows them.
    pub findings: Vec<Finding>,
    /// The objects both sides define: updates of stored objects.
    pub stored: StoredPairs,
    /// `kubectl capz diff --base REV (commit) PATH`: what was compared.
    pub title: String,
    base_mask: SecretMask,
    head_mask: SecretMask,
}

impl Review {
    /// `text` with every value that came from a Secret of either side masked.
    pub fn mask(&self, text: &str) -> String {
        self.head_mask.mask(&self.base_mask.mask(text)).into_owned()
    }
}

/// Builds both sides and compares them; `registry` gives the kinds' schemas (list keys, scopes), `validator` what
/// the API server stores (CAPZ's update rules compare stored objects), `selection` the rules that report.
pub(crate) fn review(
    request: &ReviewRequest<'_>,
    registry: &Registry,
    validator: &Validator<'_>,
    selection: &RuleSelection,
) -> anyhow::Result<Review> {
    let (base, path) = (request.base, request.path);
    let head_root = Path::new(path);
    if !head_root.is_dir() {
        bail!("a change review compares repositories: `{path}` is not a directory");
    }
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
    let base_files = if snapshot.is_some() { path.to_string() } else { base.to_string() };
    // The two sides are built at once (each build is mostly one thread's work); what they say is printed after,
    // the base's first, so that the output does not depend on which finished first.
    let (old, new) = std::thread::scope(|scope| {
        let old =
            scope.spawn(|| build(&base_root, Shown { files: &base_files, clusters: path }, request.options, "base"));
        let new = build(head_root, Shown { files: path, clusters: path }, request.options, "head");
        let old = old.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (old, new)
    });
    let (old, new) = (old?, new?);
    let mut stderr = anstream::stderr().lock();
    for warning in old.warnings.iter().chain(&new.warnings) {
        writeln!(stderr, "{warning}")?;
    }
    drop(stderr);
    interrupt::check("while the two sides were built")?;
    let (changes, pairs) = change::compare_and_pair(&old.applied, &new.applied, registry, request.compare);
    let old_documents: Vec<Document> = old.applied.into_iter().map(|a| a.document).collect();
    let new_documents: Vec<Document> = new.applied.into_iter().map(|a| a.document).collect();
    let mut findings = crate::lint::update::check_update(
        crate::lint::update::UpdateBundles { old: &old_documents, new: &new_documents },
        validator,
        selection,
    );
    let stored = StoredPairs { old: old_documents, new: new_documents, pairs };
    if request.transition_rules {
        findings.extend(crate::validate::transition_findings(&stored, validator));
    }
    if !findings.is_empty() {
        // A finding on a built object (a chart's template) said where the change set the value (a values file).
        let changed = change::ChangedLines::between(&base_root, head_root, path);
        change::relocate(&mut findings, &stored.new, &changed);
    }
    drop(snapshot);
    findings.extend(change::blast_radius(&changes).into_iter().filter(|f| selection.is_enabled(&f.rule)));
    Ok(Review { changes, findings, stored, title, base_mask: old.mask, head_mask: new.mask })
}

/// One side, built: its objects, the mask of the values that came from its Secrets, and the warnings its build
/// gave (to print).
struct Built {
    applied: Vec<Applied>,
    mask: SecretMask,
    warnings: Vec<String>,
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
    let mut warnings = Vec::new();
    for note in &repository.notes {
        let source = relocate(&note.source, root, shown);
        let (source, message) = (escape::one_line(&source), escape::one_line(&note.message));
        if note.severity == Severity::Error {
            bail!("{side}: {source}:{}: {message}", note.line);
        }
        if note.severity == Severity::Warning {
            warnings.push(format!("warning: {side}: {source}:{}: {message}", note.line));
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
                application: None,
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
                application: built
                    .target
                    .as_ref()
                    .and_then(|target| target.application.as_ref())
                    .map(|app| change::ApplyingApplication { name: app.name.clone(), cascades: app.cascades }),
            });
        }
    }
    Ok(Built { applied, mask: repository.secret_mask.clone(), warnings })
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
