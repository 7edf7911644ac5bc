//! Repository mode: what a GitOps controller would apply from a directory (plain manifests, kustomize builds,
//! Helm charts, Flux Kustomizations, Argo CD Applications and Rancher Fleet bundles), each document traced back to
//! its source file:line.

pub mod argo;
mod boundary;
pub mod budget;
mod child;
mod classify;
pub mod fleet;
pub mod flux;
mod glob;
pub mod helm;
mod kustomization;
mod kustomize;
mod load;
mod origin;
mod relative;
mod remote;
pub mod stage;
pub mod tool;
mod variables;
mod walk;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::manifest::Document;
use crate::report::{Finding, Severity};

pub use budget::{Budget, Limits};
pub use glob::ExcludePattern;
pub use kustomize::ORIGIN_ANNOTATION;
pub use origin::PatchedField;
pub use variables::{UNSUBSTITUTED_RULE, VariableFields};

/// Rule id of the warnings about sources that were not built (remote bases, plugins, symlinks out of the tree,
/// tool failures).
pub const SOURCE_RULE: &str = "repository-source";
/// Rule id of Flux substitution failures (the controller would apply nothing of that Kustomization).
pub const FLUX_SUBSTITUTE_RULE: &str = "flux-substitute";

/// What repository mode made of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileClass {
    /// Validated as it is.
    Manifest,
    /// Read through a build (kustomize, Helm, Flux): its objects are validated in the built output.
    Built,
    /// Not a Kubernetes manifest: never validated.
    NotManifest,
    /// Matched by `--exclude`: never read.
    Excluded,
    /// Not read for safety (a symlink out of the repository).
    Refused,
}

/// One file of the repository and what was done with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEntry {
    pub path: String,
    pub class: FileClass,
    pub reason: String,
}

/// The objects of one build, traced back to their sources. A build is one apply unit: what one GitOps object (a
/// Flux Kustomization or HelmRelease, an Argo CD Application) applies together, or a kustomize root or chart
/// render nothing in the repository is known to apply.
#[derive(Debug, Default)]
pub struct BuiltSource {
    /// What was built, as the command a user would run (`kubectl kustomize infrastructure/prod`).
    pub label: String,
    pub documents: Vec<Document>,
    /// For each document, the fields patches set (empty when none).
    pub patched: Vec<Vec<PatchedField>>,
    /// For each document (empty when no Flux substitution ran), the fields Flux's post-build substitution wrote from
    /// one variable, each with where the variable's value is written: the entry of the Kustomization's
    /// `postBuild.substitute`, or the key of the substituteFrom ConfigMap or Secret of the repository that set it.
    pub substituted: Vec<Vec<PatchedField>>,
    /// Where the GitOps object that applies it puts its objects; `None` when nothing in the repository says (a
    /// kustomize root, a chart's own renders).
    pub target: Option<ApplyTarget>,
}

/// Where a GitOps object applies its objects: the cluster, as far as the repository tells, and the namespace that
/// objects without one land in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyTarget {
    /// Which cluster, in words that tell clusters apart: `Argo CD destination https://kubernetes.default.svc`,
    /// `the cluster whose Flux reads clusters/prod/`, `the cluster of kubeconfig Secret flux-system/prod`.
    pub cluster: String,
    /// The namespace objects without `metadata.namespace` land in, when the GitOps object sets one.
    pub namespace: Option<String>,
    /// Whether the GitOps object deletes what it no longer applies: a Flux Kustomization with `prune: true`, a
    /// HelmRelease (Helm deletes what a release no longer renders), an Argo CD Application with automated prune.
    pub prunes: bool,
    /// The Argo CD Application written in the repository that applies the objects, when one does.
    pub application: Option<argo::ArgoApplication>,
}

/// A source repository mode did not build (refused, a tool that failed or overran a budget, a download it would
/// need, another repository): the objects it would apply are not checked. Counted in the summary; an error under
/// `--strict`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotBuilt {
    /// The file that asks for the build (a kustomization, Chart.yaml, the Application or Kustomization object).
    pub source: String,
    pub line: usize,
    /// What was not built, in a few words (`kustomization clusters/prod`, `Helm chart charts/aks`).
    pub what: String,
    /// Why, as the finding at `source:line` says it.
    pub reason: String,
}

/// What a repository holds, ready to validate.
#[derive(Debug, Default)]
pub struct Repository {
    /// Every YAML and JSON file of the tree, with its class.
    pub files: Vec<FileEntry>,
    /// Files validated as they are (paths to open, in order).
    pub plain: Vec<String>,
    pub built: Vec<BuiltSource>,
    /// Warnings about sources not built, Flux substitution errors.
    pub notes: Vec<Finding>,
    /// The sources that were not built (each also one of `notes`).
    pub not_built: Vec<NotBuilt>,
    /// Fields set by patches, by (source, `Kind/name`): findings there are shown at the patch.
    pub patched: HashMap<(String, String), Vec<PatchedField>>,
    /// The Helm renders of the built sources, to trace findings to values files.
    pub helm_renders: Vec<helm::HelmRender>,
    /// The value traces of `helm_renders` made so far (one per render, once it is needed): a run that assembles
    /// several reports (one per target) renders each chart with markers once.
    pub helm_traces: std::sync::Mutex<Vec<Option<Option<helm::ValueTrace>>>>,
    /// The run's budget for tools (value tracing renders charts again).
    pub budget: Budget,
    /// Masks every value whose provenance is a Secret (the Secrets of the tree, what Flux substitutes from one, Helm
    /// values from one) in the report's findings; the notes are masked already.
    pub secret_mask: crate::manifest::SecretMask,
    /// The repository's directory as the user gave it: every source shown is below it.
    pub root: String,
    /// The deployments of Fleet bundles, validated as units of their own (see [`fleet::units`]).
    pub fleet: fleet::Units,
}

impl Repository {
    /// How many files are not manifests.
    pub fn not_manifests(&self) -> usize {
        self.files.iter().filter(|f| f.class == FileClass::NotManifest).count()
    }

    /// Moves findings about rendered fields whose value came from a Helm values file to that file:line (renders the
    /// charts with findings once more, with markers: call it once, on the report's findings).
    pub fn trace_values(&self, findings: &mut [Finding]) {
        if !self.helm_renders.is_empty() {
            let mut traces = self.helm_traces.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            helm::attribute_values(&self.helm_renders, findings, &self.budget, &mut traces);
        }
    }

    /// Says, on each finding about a field Flux's post-build substitution wrote from one variable, where that
    /// variable is set (`; the value is KUBERNETES_VERSION of clusters/mgmt/cluster-vars.yaml:8`): the finding stays at
    /// the field, the line to change is named. Nothing is said when the builds holding the object disagree.
    pub fn note_substitutions(&self, findings: &mut [Finding]) {
        if self.built.iter().all(|built| built.substituted.is_empty()) {
            return;
        }
        let mut origins: std::collections::HashMap<(&str, String), Vec<&PatchedField>> =
            std::collections::HashMap::new();
        for built in &self.built {
            for (document, fields) in built.documents.iter().zip(&built.substituted) {
                if !fields.is_empty() {
                    origins.entry((&document.origin.source, document.display_name())).or_default().extend(fields);
                }
            }
        }
        for finding in findings {
            let Some(fields) = origins.get(&(finding.source.as_str(), finding.object.clone())) else { continue };
            let at = |field: &PatchedField| {
                finding.path == field.pointer
                    || (finding.path.starts_with(&field.pointer)
                        && finding.path[field.pointer.len()..].starts_with('/'))
            };
            let mut places: Vec<String> = fields
                .iter()
                .filter(|field| at(field))
                .map(|field| format!("{}:{}", field.source, field.line))
                .collect();
            places.sort();
            places.dedup();
            if let [place] = places.as_slice() {
                finding.message = format!("{} (the value is set at {place}, which Flux substitutes)", finding.message);
            }
        }
    }

    /// Findings on the objects of Fleet bundles back at the user's files, saying which bundle and target they are
    /// about (values traced to the target's values lines when `trace`); call it after [`Repository::trace_values`]
    /// and [`Repository::remap`].
    pub fn resolve_units(&self, findings: &mut Vec<Finding>, trace: bool) {
        self.fleet.resolve(findings, trace);
    }

    /// A source as shown to the user (a Fleet unit's file is the real file).
    pub fn shown_source(source: &str) -> String {
        fleet::units::strip(source).into_owned()
    }

    /// The objects `diff` compares with the cluster: every build but the Fleet bundles' target customizations
    /// (which cluster gets which one is Fleet's choice), with the sources of the user's files.
    pub fn applied_documents(&self) -> Vec<Document> {
        fleet::Units::real_documents(self.applied_builds().flat_map(|built| built.documents.iter()))
    }

    /// The builds whose objects [`Repository::applied_documents`] gives (each with what applies it and where), and
    /// each build's documents with the sources of the user's files.
    pub fn applied_by_build(&self) -> Vec<(&BuiltSource, Vec<Document>)> {
        self.applied_builds().map(|built| (built, fleet::Units::real_documents(built.documents.iter()))).collect()
    }

    fn applied_builds(&self) -> impl Iterator<Item = &BuiltSource> {
        self.built.iter().enumerate().filter(|(index, _)| !self.fleet.is_variant_build(*index)).map(|(_, built)| built)
    }

    /// Moves findings about fields a patch set to the patch's file:line.
    pub fn remap(&self, findings: &mut [Finding]) {
        if self.patched.is_empty() {
            return;
        }
        for finding in findings {
            let Some(fields) = self.patched.get(&(finding.source.clone(), finding.object.clone())) else { continue };
            let best = fields
                .iter()
                .filter(|field| {
                    finding.path == field.pointer
                        || (finding.path.starts_with(field.pointer.as_str())
                            && finding.path[field.pointer.len()..].starts_with('/'))
                })
                .max_by_key(|field| field.pointer.len());
            if let Some(field) = best {
                finding.source = field.source.clone();
                finding.line = field.line;
            }
        }
    }
}

/// How to read a repository.
#[derive(Debug, Clone, Default)]
pub struct RepositoryOptions {
    pub excludes: Vec<ExcludePattern>,
    /// What the tools may use: shared by every repository of a run (clones of one budget).
    pub budget: Budget,
    /// A source that is not built is an error finding instead of a warning (`--strict`, `strict: true`), so a
    /// gate cannot pass by making its own input unbuildable.
    pub strict: bool,
    /// Clusters Argo CD knows besides the cluster Secrets of the repository (`argocd.clusters` of
    /// `.kubectl-capz.yaml`), for ApplicationSets' `clusters` generators.
    pub argo_clusters: Vec<argo::ArgoCluster>,
    /// A helm repository cache (`--helm-cache DIR`) whose `<name>-<version>.tgz` stand for remote charts.
    pub helm_cache: Option<PathBuf>,
}

/// Why a repository could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read the repository `{path}`: {source}")]
    Walk {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Reads the repository at `root` (a directory): classifies every file, builds kustomizations, Flux paths and charts.
pub fn load(root: &Path, options: &RepositoryOptions) -> Result<Repository, SourceError> {
    load::Loader::run(root, options)
}

/// The YAML and JSON files below `root` as `--no-build` reads them, without those `excludes` match.
pub fn plain_files(root: &Path, excludes: &[ExcludePattern]) -> Result<Vec<String>, SourceError> {
    let tree =
        walk::walk(root, excludes).map_err(|source| SourceError::Walk { path: root.display().to_string(), source })?;
    Ok(tree
        .files
        .iter()
        .filter(|file| matches!(file.path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")))
        .map(|file| file.path.display().to_string())
        .collect())
}

/// A warning or error about a source, at `source:line`.
fn note(severity: Severity, rule: &str, source: String, line: usize, message: String) -> Finding {
    Finding {
        rule: rule.to_string(),
        severity,
        source,
        line,
        column: None,
        object: String::new(),
        path: String::new(),
        message,
    }
}
