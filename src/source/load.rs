//! The steps of reading a repository: walk and classify, find kustomization roots and Flux Kustomizations, build
//! each once (refusing unsafe ones before anything runs), substitute Flux variables, trace objects to their files.

mod fleet;
mod inputs;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::argo::{self, ArgoBuild, ArgoSource};
use super::boundary::{Boundary, Walked};
use super::flux::{self, FluxKustomization};
use super::helm;
use super::kustomization::{self, KUSTOMIZATION_FILES, Kustomization, PatchSource};
use super::kustomize::{self, BuildRequest};
use super::origin::{self, Patches, SourceFiles};
use super::stage::Stage;
use super::{
    ApplyTarget, BuiltSource, FLUX_SUBSTITUTE_RULE, FileClass, FileEntry, NotBuilt, Repository, RepositoryOptions,
    SOURCE_RULE, SourceError, classify, note, walk,
};
use crate::json_pointer::At;
use crate::manifest::{self, Document};
use crate::report::Severity;

/// State of one read.
pub(super) struct Loader<'a> {
    options: &'a RepositoryOptions,
    canonical_root: PathBuf,
    files: SourceFiles,
    tree_files: HashSet<String>,
    /// Repository-relative path -> class and reason (YAML/JSON files only).
    classes: BTreeMap<String, (FileClass, String)>,
    /// Directories of Helm charts.
    charts: Vec<String>,
    /// By directory.
    kustomizations: BTreeMap<String, Kustomization>,
    /// Kustomizations in chart or hidden directories: never built on their own, checked when a build includes them.
    included_only: BTreeMap<String, Kustomization>,
    /// Manifest files (repository-relative), for Flux variables and generated kustomizations.
    manifests: Vec<String>,
    flux: Vec<FluxKustomization>,
    /// Sources of Argo CD Applications (and ApplicationSets) of the tree.
    argo: Vec<ArgoSource>,
    /// Flux HelmReleases of the tree.
    helm_releases: Vec<Document>,
    repository: Repository,
    /// Refusals already reported (file, line).
    reported: HashSet<(String, usize)>,
    /// Argo CD Applications, ApplicationSets and cluster Secrets, Fleet GitRepos, in the order read (expanded
    /// once every file is classified: an ApplicationSet's clusters may be declared in a later file).
    gitops_documents: Vec<Document>,
    /// Local copies of remote charts (vendored, or in `--helm-cache`).
    chart_locator: helm::ChartLocator,
    /// The Fleet bundles of the tree and what each of their targets builds.
    fleet: fleet::FleetPlan,
    /// What of the tree may be handed to a tool.
    boundary: Boundary,
    /// The staged copy of the walked files every tool runs on (made when a tool first runs, filled build by build).
    stage: Option<Arc<Stage>>,
    /// Manifest files (repository-relative) that may hold a Secret: their values are masked everywhere.
    secret_files: Vec<String>,
    /// Values whose provenance is a Secret that no Secret object of the tree shows as such: what Flux substitutes
    /// from one (its newlines removed), the Helm values a HelmRelease takes from one.
    secret_values: Vec<String>,
}

/// The class of a file of the Helm chart shown as `chart`: a template or values file helm template reads, or not a
/// manifest.
fn chart_file_class(chart: &str, relative: &str) -> (FileClass, String) {
    let inner = relative.strip_prefix(&format!("{chart}/")).unwrap_or(relative);
    if let Some(reason) = classify::by_path(relative) {
        (FileClass::NotManifest, format!("{reason}, chart {chart}"))
    } else if inner.starts_with("templates/") || inner.starts_with("charts/") || inner.starts_with("crds/") {
        (FileClass::Built, format!("template of the Helm chart {chart}, rendered with helm template"))
    } else if inner.ends_with(".yaml") || inner.ends_with(".yml") {
        // Read by helm template; findings on the values it gives are shown at its lines.
        (FileClass::Built, format!("values of the Helm chart {chart}, read by helm template"))
    } else {
        (FileClass::NotManifest, format!("a file of the Helm chart {chart}"))
    }
}

impl<'a> Loader<'a> {
    pub(super) fn run(root: &Path, options: &'a RepositoryOptions) -> Result<Repository, SourceError> {
        let tree = walk::walk(root, &options.excludes)
            .map_err(|source| SourceError::Walk { path: root.display().to_string(), source })?;
        let mut loader = Loader {
            options,
            canonical_root: tree.canonical_root.clone(),
            files: SourceFiles::new(root, options.budget.read()),
            tree_files: tree.files.iter().map(|f| f.relative.clone()).collect(),
            classes: BTreeMap::new(),
            charts: Vec::new(),
            kustomizations: BTreeMap::new(),
            included_only: BTreeMap::new(),
            manifests: Vec::new(),
            flux: Vec::new(),
            argo: Vec::new(),
            helm_releases: Vec::new(),
            repository: Repository {
                budget: options.budget.clone(),
                root: root.display().to_string(),
                fleet: super::fleet::Units::new(options.budget.clone()),
                ..Repository::default()
            },
            reported: HashSet::new(),
            gitops_documents: Vec::new(),
            chart_locator: helm::ChartLocator::default(),
            fleet: fleet::FleetPlan::default(),
            boundary: Boundary::new(root, &tree),
            stage: None,
            secret_files: Vec::new(),
            secret_values: Vec::new(),
        };
        for excluded in &tree.excluded {
            loader.classes.insert(excluded.relative.clone(), (FileClass::Excluded, "matches --exclude".to_string()));
        }
        for refused in &tree.refused {
            loader.classes.insert(refused.relative.clone(), (FileClass::Refused, refused.reason.clone()));
            let message = format!("`{}` is {}", refused.relative, refused.reason);
            let shown = loader.files.display(&refused.relative);
            let what = format!("file {}", refused.relative);
            loader.not_built(Severity::Warning, shown, 1, what, message);
        }
        for special in &tree.special {
            loader.classes.insert(special.relative.clone(), (FileClass::Refused, special.reason.clone()));
            let message = format!("`{}` is {}", special.relative, special.reason);
            let shown = loader.files.display(&special.relative);
            if classify::is_candidate(&special.relative) {
                let what = format!("file {}", special.relative);
                loader.not_built(Severity::Warning, shown, 1, what, message);
            } else {
                loader.repository.notes.push(note(Severity::Info, SOURCE_RULE, shown, 1, message));
            }
        }
        loader.classify(&tree);
        loader.read_gitops_inputs();
        loader.plan_fleet();
        loader.build_charts();
        loader.build_kustomize_roots();
        loader.build_argo();
        loader.build_flux();
        loader.build_helm_releases();
        loader.build_fleet();
        loader.finish();
        Ok(loader.repository)
    }

    /// A source that is not built: its note (an error under `--strict`, else `severity`) and its entry in the
    /// repository's `not_built`.
    fn not_built(&mut self, severity: Severity, source: String, line: usize, what: String, message: String) {
        let (severity, message) = if self.options.strict {
            (Severity::Error, format!("{message} (--strict: a source that is not built fails the run)"))
        } else {
            (severity, message)
        };
        // One entry per source, however many of its lines are refused.
        if !self.repository.not_built.iter().any(|entry| entry.what == what) {
            self.repository.not_built.push(NotBuilt { source: source.clone(), line, what, reason: message.clone() });
        }
        self.repository.notes.push(note(severity, SOURCE_RULE, source, line, message));
    }

    /// The staged copy of the repository, made on first use and shared by every build, with the walked `files` and
    /// the walked directories `trees` (each with everything below it) added: what the next tool run reads.
    fn stage_for(&mut self, files: &[String], trees: &[String]) -> Result<Arc<Stage>, String> {
        let stage = match &self.stage {
            Some(stage) => Arc::clone(stage),
            None => {
                let stage = Stage::new(&self.boundary)
                    .map(Arc::new)
                    .map_err(|err| format!("the repository's files cannot be staged for the tools: {err}"))?;
                self.stage = Some(Arc::clone(&stage));
                stage
            }
        };
        stage
            .add(&self.boundary, files, trees)
            .map_err(|err| format!("the repository's files cannot be staged for the tools: {err}"))?;
        Ok(stage)
    }

    /// What kustomize reads to build `resources` (directories and files): the kustomization files of every
    /// kustomization reachable from them and the files each names.
    fn kustomize_inputs(&self, resources: &[String]) -> Vec<String> {
        let kustomization_files = |dir: &str| -> Vec<String> {
            KUSTOMIZATION_FILES
                .iter()
                .map(|name| join(dir, name))
                .filter(|file| self.tree_files.contains(file))
                .collect()
        };
        let mut files = Vec::new();
        let mut dirs: Vec<&str> = resources.iter().map(String::as_str).collect();
        for kustomization in self.reachable(resources) {
            files.extend(kustomization.files.iter().cloned());
            dirs.extend(kustomization.dirs.iter().map(String::as_str));
        }
        for dir in dirs {
            if self.tree_files.contains(dir) {
                files.push(dir.to_string());
            } else {
                files.extend(kustomization_files(dir));
            }
        }
        files
    }

    fn chart_of(&self, relative: &str) -> Option<&str> {
        self.charts.iter().find(|chart| is_below(relative, chart)).map(String::as_str)
    }

    /// Sorts the tree's files: the charts and kustomizations found, then each file's class (built by a chart or
    /// a kustomization, a manifest, or not one).
    fn classify(&mut self, tree: &walk::Tree) {
        self.find_charts(tree);
        self.read_kustomizations(tree);
        let mut included_files: HashMap<String, String> = HashMap::new();
        for kustomization in self.kustomizations.values() {
            for file in &kustomization.files {
                included_files.entry(file.clone()).or_insert_with(|| kustomization.file.clone());
            }
        }
        for file in &tree.files {
            self.classify_file(file, &included_files);
        }
    }

    /// The directories with a `Chart.yaml`, subcharts left to their parent chart.
    fn find_charts(&mut self, tree: &walk::Tree) {
        let mut charts: Vec<String> =
            tree.dirs.iter().filter(|dir| self.tree_files.contains(&join(dir, "Chart.yaml"))).cloned().collect();
        // Subcharts belong to their parent chart.
        charts.sort();
        let mut outer: Vec<String> = Vec::new();
        for chart in charts {
            if !outer.iter().any(|parent| is_below(&chart, parent)) {
                outer.push(chart);
            }
        }
        self.charts = outer;
    }

    /// Reads each directory's kustomization: built on its own, or (inside a chart or a hidden directory) only
    /// as part of a build that includes it.
    fn read_kustomizations(&mut self, tree: &walk::Tree) {
        for dir in &tree.dirs {
            let skipped =
                self.chart_of(dir).is_some() || classify::by_path(&format!("{dir}/")).is_some() && !dir.is_empty();
            let Some(name) = KUSTOMIZATION_FILES.iter().find(|name| self.tree_files.contains(&join(dir, name))) else {
                continue;
            };
            let file = join(dir, name);
            if skipped {
                // Not built on its own (inside a chart or a hidden directory), but a build that includes it reads what
                // it names: checked all the same.
                if let Ok(read) = kustomization::read(&self.canonical_root, dir, &file, &self.boundary) {
                    self.included_only.insert(dir.clone(), read);
                }
                continue;
            }
            match kustomization::read(&self.canonical_root, dir, &file, &self.boundary) {
                Ok(read) => {
                    self.kustomizations.insert(dir.clone(), read);
                }
                Err(message) => {
                    let shown = self.files.display(&file);
                    self.not_built(Severity::Warning, shown, 1, format!("kustomization {}", shown_dir(dir)), message);
                }
            }
        }
    }

    /// One file's class; a manifest (GitOps objects noted) is added to those to validate. `included_files`: the
    /// files a kustomization reads, with that kustomization.
    fn classify_file(&mut self, file: &walk::TreeFile, included_files: &HashMap<String, String>) {
        let relative = &file.relative;
        let name = relative.rsplit('/').next().unwrap_or(relative);
        if let Some(chart) = self.chart_of(relative) {
            if classify::is_candidate(relative) {
                let class = chart_file_class(&shown_dir(chart), relative);
                self.classes.insert(relative.clone(), class);
            }
            return;
        }
        if KUSTOMIZATION_FILES.contains(&name) {
            let dir = parent(relative);
            if let Some(kustomization) = self.kustomizations.get(dir) {
                let reason = if kustomization.is_component {
                    "kustomize component: built as part of the kustomizations (or Argo CD kustomize options) \
                     that add it"
                        .to_string()
                } else {
                    format!("kustomization: built with `kubectl kustomize {}`", shown_dir(dir))
                };
                self.classes.insert(relative.clone(), (FileClass::Built, reason));
                return;
            }
        }
        if !classify::is_candidate(relative) {
            return;
        }
        if let Some(reason) = classify::by_path(relative) {
            self.classes.insert(relative.clone(), (FileClass::NotManifest, reason));
            return;
        }
        let text = match manifest::read_input_file(&file.path) {
            Ok(text) => text,
            Err(_) => {
                // Not UTF-8 or unreadable: validated as a file, which reports it.
                self.classes.insert(relative.clone(), (FileClass::Manifest, String::new()));
                self.manifests.push(relative.clone());
                return;
            }
        };
        let shown = self.files.display(relative);
        if text.contains("Secret") {
            self.secret_files.push(relative.clone());
        }
        if let Some(reason) = classify::by_content(&text, &shown) {
            let class = match included_files.get(relative) {
                Some(kustomization) if reason.starts_with("no apiVersion") => {
                    (FileClass::Built, format!("patch or generator input of {kustomization}"))
                }
                _ => (FileClass::NotManifest, reason),
            };
            self.classes.insert(relative.clone(), class);
            return;
        }
        let gitops = text.contains(flux::FLUX_KUSTOMIZE_GROUP)
            || text.contains(argo::ARGO_GROUP)
            || text.contains(helm::HELM_RELEASE_GROUP)
            || text.contains(super::fleet::FLEET_GROUP);
        // A manifest beside a kustomization that does not list it: kustomize, Flux and Argo CD build the
        // directory from its kustomization, so nothing applies the file (a leftover or a patch never wired in).
        let parent = relative.rsplit_once('/').map_or("", |(dir, _)| dir);
        if !gitops
            && !included_files.contains_key(relative)
            && let Some(kustomization) = self.kustomizations.get(parent)
        {
            let reason = format!(
                "beside {} but not listed by it: nothing that builds this directory applies it",
                kustomization.file
            );
            self.classes.insert(relative.clone(), (FileClass::NotManifest, reason));
            return;
        }
        if gitops {
            let read = manifest::parse_documents_tolerant_within(&text, &shown, self.files.budget());
            self.flux.extend(read.documents.iter().filter_map(flux::flux_kustomization));
            self.gitops_documents.extend(read.documents.iter().filter(|d| inputs::is_gitops_input(d)).cloned());
            self.helm_releases.extend(read.documents.iter().filter(|d| helm::is_helm_release(d)).cloned());
        }
        self.manifests.push(relative.clone());
        let class = match included_files.get(relative) {
            Some(kustomization) => (FileClass::Built, format!("read by the build of {kustomization}")),
            None => (FileClass::Manifest, String::new()),
        };
        self.classes.insert(relative.clone(), class);
    }

    /// Kustomizations reachable from `dirs` (through resources, bases and components), bases before the
    /// kustomizations that include them.
    fn reachable(&self, dirs: &[String]) -> Vec<&Kustomization> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        fn visit<'k>(
            dir: &str,
            all: [&'k BTreeMap<String, Kustomization>; 2],
            seen: &mut HashSet<String>,
            out: &mut Vec<&'k Kustomization>,
        ) {
            if !seen.insert(dir.to_string()) {
                return;
            }
            let Some(kustomization) = all.iter().find_map(|map| map.get(dir)) else { return };
            for child in &kustomization.dirs {
                visit(child, all, seen, out);
            }
            out.push(kustomization);
        }
        for dir in dirs {
            visit(dir, [&self.kustomizations, &self.included_only], &mut seen, &mut out);
        }
        out
    }

    /// Reports the refusals of the kustomizations of a build (each once) and says whether there were any.
    fn refused(&mut self, dirs: &[String]) -> bool {
        let refusals: Vec<(String, usize, String)> = self
            .reachable(dirs)
            .iter()
            .flat_map(|k| k.refusals.iter().map(|(line, message)| (k.file.clone(), *line, message.clone())))
            .collect();
        for (file, line, message) in &refusals {
            if self.reported.insert((file.clone(), *line)) {
                let shown = self.files.display(file);
                let what = format!("kustomization {}", shown_dir(parent(file)));
                self.not_built(Severity::Warning, shown, *line, what, message.clone());
            }
        }
        !refusals.is_empty()
    }

    /// Whether a kustomization reachable from `dirs` reads a file from outside its own directory, which kustomize's
    /// default load restrictions refuse (`kubectl kustomize` fails with "security; file ... is not in or below ...");
    /// one warning, at the first such line, says so and how the build is done by hand.
    fn reads_outside_root(&mut self, dirs: &[String], anchor: &str) -> bool {
        let outside: Vec<(String, usize, String)> = self
            .reachable(dirs)
            .iter()
            .flat_map(|k| k.outside_dir.iter().map(|(line, reference)| (k.file.clone(), *line, reference.clone())))
            .collect();
        let Some((file, line, reference)) = outside.first() else {
            return false;
        };
        if self.reported.insert((file.clone(), *line)) {
            let shown = self.files.display(file);
            let more = match outside.len() - 1 {
                0 => String::new(),
                1 => " (and 1 more such file)".to_string(),
                n => format!(" (and {n} more such files)"),
            };
            let dir = shown_dir(anchor);
            let message = format!(
                "`{reference}`{more} is not in or below the directory of the kustomization that reads it: kustomize's \
                 default load restrictions refuse it, so `kubectl kustomize {dir}` fails; not built. Flux builds with \
                 `--load-restrictor LoadRestrictionsNone` (so does repository mode for the paths a Flux Kustomization \
                 points at); by hand: `kubectl kustomize {dir} --load-restrictor LoadRestrictionsNone`"
            );
            self.not_built(Severity::Warning, shown, *line, format!("kustomization {dir}"), message);
        }
        true
    }

    /// Directories Flux Kustomizations and Argo CD Applications build: not kustomize roots of their own.
    fn flux_target_dirs(&self) -> HashSet<String> {
        let argo = self.argo.iter().filter_map(|source| match &source.build {
            ArgoBuild::Kustomize { relative, .. } => Some(relative.clone()),
            _ => None,
        });
        self.flux.iter().filter_map(|ks| ks.path.clone()).chain(argo).collect()
    }

    /// Every chart of the tree, with its values.yaml and once more per ci/*-values.yaml (as chart-testing does).
    fn build_charts(&mut self) {
        for chart in self.charts.clone() {
            // A Fleet bundle's chart is rendered as the bundle deploys it.
            if self.fleet.owns_chart(&chart) {
                continue;
            }
            let dir = self.files.root().join(&chart);
            let stage = match self.chart_stage(&chart, &dir, &[]) {
                Ok(stage) => stage,
                Err(problem) => {
                    self.helm_problem(&problem, None);
                    continue;
                }
            };
            match helm::render_chart_staged(&dir, self.files.root(), Some(stage), &self.options.budget) {
                Ok(renders) => {
                    for render in renders {
                        self.push_render(render, None);
                    }
                }
                Err(problem) => self.helm_problem(&problem, None),
            }
        }
    }

    /// The stage helm renders the walked chart directory `chart` (shown as `dir`) in, with the chart and the values
    /// files `values` staged, unless the chart holds a symlink out of the repository (at any depth, through symlinked
    /// directories too): then it is not rendered.
    fn chart_stage(&mut self, chart: &str, dir: &Path, values: &[PathBuf]) -> Result<Arc<Stage>, helm::HelmProblem> {
        if let Some((link, _)) = self.boundary.first_refused_below(chart) {
            let link = self.files.root().join(link);
            return Err(helm::HelmProblem::SymlinkOutOfRepository { chart: dir.to_path_buf(), link });
        }
        let files: Vec<String> = values
            .iter()
            .filter_map(|file| self.boundary.relative_of(file))
            .filter_map(|relative| match self.boundary.lookup(&relative) {
                Walked::File(walked) => Some(walked),
                _ => None,
            })
            .collect();
        self.stage_for(&files, &[chart.to_string()])
            .map_err(|message| helm::HelmProblem::Tool { chart: dir.to_path_buf(), message })
    }

    fn push_render(&mut self, render: helm::HelmRender, target: Option<ApplyTarget>) {
        let documents = render.read_within(self.options.budget.read()).documents;
        let patched = vec![Vec::new(); documents.len()];
        let label = format!("helm template {}", render.request.label);
        self.repository.built.push(BuiltSource { label, documents, patched, target, ..BuiltSource::default() });
        self.repository.helm_renders.push(render);
    }

    /// One warning per chart that was not rendered (at its Chart.yaml, or at the object that asked for it).
    fn helm_problem(&mut self, problem: &helm::HelmProblem, at: Option<(&str, usize)>) {
        let (source, line) = match at {
            Some((file, line)) => (file.to_string(), line),
            None => (problem.file().display().to_string(), 1),
        };
        if self.reported.insert((source.clone(), line)) {
            let what = format!("Helm chart {}", problem.chart().display());
            self.not_built(Severity::Warning, source, line, what, problem.to_string());
        }
    }

    /// The sources of Argo CD Applications: directories of manifests, kustomizations, charts with the
    /// application's values.
    fn build_argo(&mut self) {
        let sources = std::mem::take(&mut self.argo);
        for source in &sources {
            let target = source.destination_cluster.as_ref().map(|server| ApplyTarget {
                cluster: format!("Argo CD destination {server}"),
                namespace: source.destination_namespace.clone(),
                prunes: source.prune,
                application: source.application.clone(),
            });
            let relative = match &source.build {
                ArgoBuild::Directory { relative, .. }
                | ArgoBuild::Kustomize { relative, .. }
                | ArgoBuild::Helm { relative, .. } => relative,
                ArgoBuild::NotBuilt { reason } => {
                    let message = format!("{}: {reason}", source.owner);
                    let what = format!("Argo CD {}", source.owner);
                    self.not_built(Severity::Info, source.file.clone(), source.line, what, message);
                    continue;
                }
            };
            // A packed chart found for a remote one is staged (or refused) where it is rendered.
            let packed = matches!(&source.build, ArgoBuild::Helm { request, .. } if request.chart_dir.is_file());
            // The path as walked (a symlink inside the tree resolved), or one warning saying why it is not built.
            let relative = match self.boundary.lookup(relative) {
                _ if packed => relative.clone(),
                Walked::Dir(walked) => walked,
                Walked::File(_) => continue,
                Walked::Not(why) => {
                    let message = format!("{}: path `{relative}` {why}; not built", source.owner);
                    let what = format!("Argo CD {}", source.owner);
                    self.not_built(Severity::Warning, source.file.clone(), source.line, what, message);
                    continue;
                }
            };
            match &source.build {
                ArgoBuild::Directory { recurse, include, exclude, .. } => {
                    let reason = format!("read by Argo CD {} ({}:{})", source.owner, source.file, source.line);
                    let path = self.files.root().join(&relative);
                    let mut documents = Vec::new();
                    for file in argo::directory_manifests(&path, *recurse, include, exclude) {
                        let Ok(inner) = file.strip_prefix(&path) else { continue };
                        let file_relative = join(&relative, &inner.display().to_string());
                        if !self.manifests.contains(&file_relative) {
                            continue;
                        }
                        self.classes.insert(file_relative.clone(), (FileClass::Built, reason.clone()));
                        documents.extend(self.files.documents(&file_relative).iter().cloned());
                    }
                    let patched = vec![Vec::new(); documents.len()];
                    let label = format!("Argo CD {} (directory ./{relative})", source.owner);
                    self.repository.built.push(BuiltSource {
                        label,
                        documents,
                        patched,
                        target,
                        ..BuiltSource::default()
                    });
                }
                ArgoBuild::Kustomize { edits: Some(edits), .. } => {
                    if let Some(built) = self.build_argo_edited(source, &relative, edits) {
                        self.repository.built.push(BuiltSource { target, ..built });
                    }
                }
                ArgoBuild::Kustomize { edits: None, .. } => {
                    if let Some(mut built) =
                        self.build_dirs(std::slice::from_ref(&relative), &Map::new(), &[], false, &relative)
                    {
                        built.label = format!("Argo CD {} (kustomize ./{relative})", source.owner);
                        built.target = target;
                        self.repository.built.push(built);
                    }
                }
                ArgoBuild::Helm { request, .. } => {
                    let mut refused = false;
                    for file in &request.values_files {
                        if let Some(why) = self.not_a_walked_file(file) {
                            let line = self.argo_value_file_line(source, file);
                            let shown = file.display();
                            let message = format!("{}: value file `{shown}` {why}; not rendered", source.owner);
                            let what = format!("Argo CD {}", source.owner);
                            self.not_built(Severity::Warning, source.file.clone(), line, what, message);
                            refused = true;
                        }
                    }
                    if refused {
                        continue;
                    }
                    match self.render_request(request.clone()) {
                        Ok(render) => self.push_render(render, target),
                        Err(problem) => self.helm_problem(&problem, Some((&source.file, source.line))),
                    }
                }
                ArgoBuild::NotBuilt { .. } => {}
            }
        }
        self.argo = sources;
    }

    /// Why `path` (below the repository root as given) is not a walked file, or `None` when it is one.
    fn not_a_walked_file(&self, path: &Path) -> Option<String> {
        let Some(relative) = self.boundary.relative_of(path) else {
            return Some("is outside the repository: nothing outside it is read".to_string());
        };
        match self.boundary.lookup(&relative) {
            Walked::File(_) => None,
            Walked::Dir(_) => Some("is a directory, not a file".to_string()),
            Walked::Not(why) => Some(why),
        }
    }

    /// The line of the Application that names the value file `file` of a helm source (the Application's own line
    /// when it is generated by an ApplicationSet).
    fn argo_value_file_line(&mut self, source: &ArgoSource, file: &Path) -> usize {
        let Some((_, document)) = self.application_document(source) else { return source.line };
        let root = self.files.root().to_path_buf();
        let count = document.value.array_at("/spec/sources").map_or(0, Vec::len);
        let prefixes =
            std::iter::once("/spec/source".to_string()).chain((0..count).map(|k| format!("/spec/sources/{k}")));
        for prefix in prefixes {
            let path = document.value.str_at(&format!("{prefix}/path")).unwrap_or("");
            let chart = root.join(path.trim_start_matches("./").trim_end_matches('/'));
            let files = document.value.array_at(&format!("{prefix}/helm/valueFiles"));
            for (index, written) in files.into_iter().flatten().enumerate() {
                let Some(written) = written.as_str() else { continue };
                let resolved = match written.strip_prefix('$') {
                    Some(reference) => root.join(reference.split_once('/').map_or("", |(_, rest)| rest)),
                    None => chart.join(written),
                };
                if resolved == file {
                    return document.line_of(&format!("{prefix}/helm/valueFiles/{index}"));
                }
            }
        }
        source.line
    }

    fn build_kustomize_roots(&mut self) {
        let included: HashSet<&String> = self.kustomizations.values().flat_map(|k| k.dirs.iter()).collect();
        let flux_targets = self.flux_target_dirs();
        // Below a Flux path without a kustomization, Flux's generated kustomization includes them.
        let generated: Vec<&String> =
            flux_targets.iter().filter(|path| !self.kustomizations.contains_key(*path)).collect();
        let roots: Vec<String> = self
            .kustomizations
            .iter()
            .filter(|(_, kustomization)| !kustomization.is_component)
            .map(|(dir, _)| dir)
            .filter(|dir| {
                !included.contains(dir)
                    && !flux_targets.contains(*dir)
                    && !generated.iter().any(|path| is_below(dir, path))
                    && !self.fleet.owns_kustomization(dir)
            })
            .cloned()
            .collect();
        for root in roots {
            if let Some(built) = self.build_dirs(std::slice::from_ref(&root), &Map::new(), &[], false, &root) {
                self.repository.built.push(built);
            }
        }
    }

    /// Builds `resources` (directories or files) with `overlay` and `components` laid over them, in the stage; `None`
    /// when refused or failed (a warning says why, at `anchor`'s kustomization file).
    fn build_dirs(
        &mut self,
        resources: &[String],
        overlay: &Map<String, Value>,
        components: &[String],
        load_restrictor_none: bool,
        anchor: &str,
    ) -> Option<BuiltSource> {
        let mut reached = resources.to_vec();
        reached.extend(components.iter().cloned());
        if self.refused(&reached) || (!load_restrictor_none && self.reads_outside_root(&reached, anchor)) {
            return None;
        }
        let label = format!("kubectl kustomize {}", shown_dir(anchor));
        if components.is_empty()
            && let Some(built) = self.read_resources_only(resources, overlay, &label)
        {
            return Some(built);
        }
        let request = BuildRequest {
            resources: resources.to_vec(),
            overlay: overlay.clone(),
            components: components.to_vec(),
            load_restrictor_none,
        };
        let file = self.kustomizations.get(anchor).map_or_else(|| anchor.to_string(), |k| k.file.clone());
        let shown = self.files.display(&file);
        let what = format!("kustomization {}", shown_dir(anchor));
        let inputs = self.kustomize_inputs(&reached);
        let stage = match self.stage_for(&inputs, &[]) {
            Ok(stage) => stage,
            Err(message) => {
                self.not_built(Severity::Warning, shown, 1, what, format!("`{label}` is not run: {message}"));
                return None;
            }
        };
        let objects = match kustomize::build(stage.root(), &request, &self.options.budget) {
            Ok(objects) => objects,
            Err(err) => {
                let message = format!(
                    "`{label}` failed, so its objects are not checked: {}",
                    one_paragraph(&stage.show(&err.to_string()))
                );
                self.not_built(Severity::Warning, shown, 1, what, message);
                return None;
            }
        };
        Some(self.trace_build(objects, &reached, label, Vec::new()))
    }

    /// An Argo CD kustomize source with options: Argo CD's `kustomize edit` commands applied to a staged copy of
    /// the tree, built there; objects traced to the user's files. Options not applied are one warning each, at
    /// the Application.
    fn build_argo_edited(
        &mut self,
        source: &ArgoSource,
        relative: &str,
        edits: &argo::ArgoKustomize,
    ) -> Option<BuiltSource> {
        let application = self.application_document(source);
        let line_of = |option: &str| {
            application
                .as_ref()
                .map_or(source.line, |(_, document)| document.line_of(&format!("{}/kustomize{option}", edits.pointer)))
        };
        let what = format!("Argo CD {} (kustomize ./{relative})", source.owner);
        // The components and patch files the options add: walked directories and files, or refused at their line.
        let mut resources = vec![relative.to_string()];
        let mut refusals = Vec::new();
        let list = |name: &str| edits.options.get(name).and_then(Value::as_array).cloned().unwrap_or_default();
        for (index, component) in list("components").iter().enumerate() {
            let Some(component) = component.as_str() else { continue };
            if component.contains("://") || component.contains(['*', '?', '[']) {
                continue;
            }
            match kustomization::resolve(relative, component).map(|resolved| self.boundary.lookup(&resolved)) {
                Some(Walked::Dir(walked)) => resources.push(walked),
                Some(Walked::Not(why)) if why != crate::source::boundary::MISSING => {
                    refusals.push((line_of(&format!("/components/{index}")), format!("component `{component}` {why}")));
                }
                _ => {}
            }
        }
        for (index, patch) in list("patches").iter().enumerate() {
            let Some(path) = patch.get("path").and_then(Value::as_str) else { continue };
            let why = match kustomization::resolve(relative, path).map(|resolved| self.boundary.lookup(&resolved)) {
                Some(Walked::File(_)) => continue,
                Some(Walked::Dir(_)) => "is a directory, not a file".to_string(),
                Some(Walked::Not(why)) => why,
                None => "is outside the repository: nothing outside it is read".to_string(),
            };
            refusals.push((line_of(&format!("/patches/{index}/path")), format!("patch `{path}` {why}")));
        }
        if !refusals.is_empty() {
            for (line, refusal) in refusals {
                let message = format!("{}: kustomize option: {refusal}; not built", source.owner);
                self.not_built(Severity::Warning, source.file.clone(), line, what.clone(), message);
            }
            return None;
        }
        if self.refused(&resources) {
            return None;
        }
        let label = format!("Argo CD {} (kustomize ./{relative}, with its kustomize options)", source.owner);
        let mut inputs = self.kustomize_inputs(&resources);
        inputs.extend(argo::kustomize::added_patches(edits, relative).into_iter().filter_map(|patch| match patch {
            argo::kustomize::AddedPatch::File(file) => Some(file),
            argo::kustomize::AddedPatch::Inline { .. } => None,
        }));
        let stage = match self.stage_for(&inputs, &[]) {
            Ok(stage) => stage,
            Err(err) => {
                let message = format!("{}: ./{relative} is not built: {err}", source.owner);
                self.not_built(Severity::Warning, source.file.clone(), source.line, what, message);
                return None;
            }
        };
        let built = argo::kustomize::build_edited(&stage, relative, edits, &self.options.budget);
        match built {
            Ok((objects, not_applied)) => {
                for skipped in not_applied {
                    let line = line_of(&skipped.option);
                    let message = format!("{}: {}", source.owner, skipped.message);
                    let note = note(Severity::Warning, SOURCE_RULE, source.file.clone(), line, message);
                    self.repository.notes.push(note);
                }
                let added = self.argo_patches(source, relative, edits);
                Some(self.trace_build(objects, &resources, label, added))
            }
            Err(err) => {
                let message = format!(
                    "{}: the kustomize source ./{relative} is not built, so its objects are not checked: {}",
                    source.owner,
                    one_paragraph(&stage.show(&err.to_string()))
                );
                self.not_built(Severity::Warning, source.file.clone(), source.line, what, message);
                None
            }
        }
    }

    /// The Application document of `source` and its repository-relative file, when it is written in a file of the
    /// tree (not generated by an ApplicationSet).
    fn application_document(&mut self, source: &ArgoSource) -> Option<(String, Document)> {
        let name = source.owner.strip_prefix("Application/")?;
        let file = Path::new(&source.file)
            .strip_prefix(self.files.root())
            .ok()
            .map(|path| path.display().to_string())
            .filter(|relative| self.tree_files.contains(relative))?;
        let documents = self.files.documents(&file);
        let document = documents.iter().find(|d| argo::is_application(d) && d.name() == name).cloned()?;
        Some((file, document))
    }

    /// The patches an Argo CD source's options append, as patch sources: a file as such, an inline patch at its
    /// line in the Application (when the Application is written in a file of the tree, not generated).
    fn argo_patches(
        &mut self,
        source: &ArgoSource,
        relative: &str,
        edits: &argo::ArgoKustomize,
    ) -> Vec<(String, PatchSource)> {
        let kustomization = self.kustomizations.get(relative).map(|k| k.file.clone()).unwrap_or_default();
        let application = self.application_document(source);
        let mut out = Vec::new();
        for patch in argo::kustomize::added_patches(edits, relative) {
            match patch {
                argo::kustomize::AddedPatch::File(file) => out.push((kustomization.clone(), PatchSource::File(file))),
                argo::kustomize::AddedPatch::Inline { text, pointer } => {
                    if let Some((file, document)) = &application {
                        let line = document.line_of(&pointer);
                        out.push((file.clone(), PatchSource::Inline { text, line }));
                    }
                }
            }
        }
        out
    }

    /// Built objects traced to their source files and the patches of the kustomizations reachable from
    /// `resources` (then `added`, applied after them).
    fn trace_build(
        &mut self,
        objects: Vec<kustomize::BuiltObject>,
        resources: &[String],
        label: String,
        added: Vec<(String, PatchSource)>,
    ) -> BuiltSource {
        let mut patch_sources: Vec<(String, PatchSource)> = self
            .reachable(resources)
            .iter()
            .flat_map(|k| k.patches.iter().map(|p| (k.file.clone(), p.clone())))
            .collect();
        patch_sources.extend(added);
        let patches = Patches::read(&patch_sources, &mut self.files);
        let mut documents = Vec::with_capacity(objects.len());
        let mut patched = Vec::with_capacity(objects.len());
        for (index, object) in objects.into_iter().enumerate() {
            let (document, fields) = origin::trace(object, index, &mut self.files, &patches, &label);
            documents.push(document);
            patched.push(fields);
        }
        BuiltSource { label, documents, patched, target: None, ..BuiltSource::default() }
    }

    /// A build of kustomizations that list nothing but local resources (a fleet tree's directories) is the objects
    /// of those files: read directly, without running kustomize (a thousand clusters are a thousand directories).
    fn read_resources_only(
        &mut self,
        resources: &[String],
        overlay: &Map<String, Value>,
        label: &str,
    ) -> Option<BuiltSource> {
        if !overlay.is_empty() || !resources.iter().all(|dir| self.kustomizations.contains_key(dir)) {
            return None;
        }
        let reachable = self.reachable(resources);
        let trivial = reachable
            .iter()
            .all(|k| k.only_resources && k.dirs.iter().all(|dir| self.kustomizations.contains_key(dir)));
        if !trivial {
            return None;
        }
        let files: Vec<String> = reachable.iter().flat_map(|k| k.files.iter().cloned()).collect();
        let mut documents = Vec::new();
        for file in &files {
            documents.extend(self.files.documents(file).iter().cloned());
            if self.files.is_unreadable(file) {
                // kustomize says what is wrong with it.
                return None;
            }
        }
        let patched = vec![Vec::new(); documents.len()];
        Some(BuiltSource { label: label.to_string(), documents, patched, target: None, ..BuiltSource::default() })
    }

    fn build_flux(&mut self) {
        let flux = std::mem::take(&mut self.flux);
        let mut done: HashSet<(Option<String>, String)> = HashSet::new();
        for ks in &flux {
            // The same Kustomization read twice (a file and a build that includes it) is built once.
            if !done.insert((ks.path.clone(), ks.object.clone())) {
                continue;
            }
            let Some(path) = ks.path.clone() else {
                let message = format!("{}: spec.path leaves the repository; not built", ks.object);
                let what = format!("Flux Kustomization {}", ks.name());
                self.not_built(Severity::Warning, ks.source.clone(), ks.path_line, what, message);
                continue;
            };
            let path = match self.boundary.lookup(&path) {
                Walked::Dir(walked) => walked,
                Walked::Not(why) if why != crate::source::boundary::MISSING => {
                    let message = format!("{}: spec.path `./{path}` {why}; not built", ks.object);
                    let what = format!("Flux Kustomization {}", ks.name());
                    self.not_built(Severity::Warning, ks.source.clone(), ks.path_line, what, message);
                    continue;
                }
                _ => {
                    let message = format!(
                        "{}: spec.path `./{path}` is not a directory of this repository (source {}); not built",
                        ks.object, ks.source_ref
                    );
                    let what = format!("Flux Kustomization {}", ks.name());
                    self.not_built(Severity::Info, ks.source.clone(), ks.path_line, what, message);
                    continue;
                }
            };
            let Some(components) = self.flux_components(ks, &path) else { continue };
            let built = if self.kustomizations.contains_key(&path) {
                // Flux's kustomize-controller builds with LoadRestrictionsNone (fluxcd/pkg/kustomize `Build`); every
                // file a reachable kustomization reads was checked to be inside the repository. When none reads a
                // file outside its own directory, the default restrictions build the same, and kustomize itself then
                // refuses a path this reading missed.
                let mut reached = vec![path.clone()];
                reached.extend(components.iter().cloned());
                let reads_outside = self.reachable(&reached).iter().any(|k| !k.outside_dir.is_empty());
                self.build_dirs(std::slice::from_ref(&path), &ks.overlay, &components, reads_outside, &path)
            } else {
                self.build_generated(ks, &path, &components)
            };
            let Some(mut built) = built else { continue };
            built.label = format!("Flux Kustomization {} (./{path})", ks.name());
            let namespace = ks.overlay.get("namespace").and_then(Value::as_str).map(str::to_string);
            built.target =
                Some(ApplyTarget { cluster: ks.cluster.clone(), namespace, prunes: ks.prune, application: None });
            if let Some(built) = self.substitute(ks, built) {
                self.repository.built.push(built);
            }
        }
        self.flux = flux;
    }

    /// A Flux path without a kustomization: Flux generates one with every manifest below it (a subdirectory with its
    /// own kustomization is included as a whole). Read directly when nothing is laid over it.
    fn build_generated(&mut self, ks: &FluxKustomization, path: &str, components: &[String]) -> Option<BuiltSource> {
        let mut resources: Vec<String> = Vec::new();
        let mut sub_kustomizations: Vec<String> = Vec::new();
        let covered_by_sub = |relative: &str, subs: &[String]| subs.iter().any(|sub| is_below(relative, sub));
        for dir in self.kustomizations.keys() {
            if is_below(dir, path) && dir != path && !covered_by_sub(dir, &sub_kustomizations) {
                sub_kustomizations.push(dir.clone());
            }
        }
        for relative in &self.manifests {
            if is_below(relative, path)
                && !covered_by_sub(relative, &sub_kustomizations)
                && self.chart_of(relative).is_none()
            {
                resources.push(relative.clone());
            }
        }
        let reason = format!("read by Flux Kustomization {} ({}:{})", ks.name(), ks.source, ks.line);
        for relative in &resources {
            self.classes.insert(relative.clone(), (FileClass::Built, reason.clone()));
        }
        if ks.overlay.is_empty() && components.is_empty() && sub_kustomizations.is_empty() {
            let mut documents = Vec::new();
            for relative in &resources {
                documents.extend(self.files.documents(relative).iter().cloned());
            }
            let patched = vec![Vec::new(); documents.len()];
            return Some(BuiltSource {
                label: String::new(),
                documents,
                patched,
                target: None,
                ..BuiltSource::default()
            });
        }
        let mut all = sub_kustomizations;
        all.extend(resources);
        self.build_dirs(&all, &ks.overlay, components, true, path)
    }

    /// A Flux Kustomization's `spec.components`, resolved against its path: each a walked directory of the
    /// repository, else one warning at its line and `None` (not built).
    fn flux_components(&mut self, ks: &FluxKustomization, path: &str) -> Option<Vec<String>> {
        let mut components = Vec::new();
        for (component, line) in &ks.components {
            let why = if let Some(reason) = super::remote::remote_reason(component) {
                format!("is a remote component ({reason}): nothing is fetched")
            } else {
                match kustomization::resolve(path, component).map(|resolved| self.boundary.lookup(&resolved)) {
                    Some(Walked::Dir(walked)) => {
                        components.push(walked);
                        continue;
                    }
                    Some(Walked::File(_)) => "is a file, not a component's directory".to_string(),
                    Some(Walked::Not(why)) => why,
                    None => "is outside the repository: nothing outside it is read".to_string(),
                }
            };
            let message = format!("{}: spec.components entry `{component}` {why}; not built", ks.object);
            let what = format!("Flux Kustomization {}", ks.name());
            self.not_built(Severity::Warning, ks.source.clone(), *line, what, message);
            return None;
        }
        Some(components)
    }

    /// Flux's post-build substitution over a build; `None` when Flux would fail (an error finding says why).
    fn substitute(&mut self, ks: &FluxKustomization, mut built: BuiltSource) -> Option<BuiltSource> {
        if !ks.post_build {
            return Some(built);
        }
        let mut vars = BTreeMap::new();
        // Where each variable's value is written (the last source that sets it, as for its value).
        let mut written_at: BTreeMap<String, (String, usize)> = BTreeMap::new();
        let mut unknown_sources = false;
        for reference in &ks.substitute_from {
            match self.find_document(&reference.kind, &reference.name, &ks.namespace) {
                Some(document) => {
                    let from = flux::variables_of(&document.value);
                    if reference.kind == "Secret" {
                        self.secret_values.extend(from.values().cloned());
                    }
                    for name in from.keys() {
                        let key = crate::json_pointer::escape_token(name);
                        let line = ["data", "stringData"]
                            .iter()
                            .find(|field| document.value.pointer(&format!("/{field}/{key}")).is_some())
                            .map_or(document.origin.line, |field| document.line_of(&format!("/{field}/{key}")));
                        written_at.insert(name.clone(), (document.origin.source.to_string(), line));
                    }
                    vars.extend(from);
                }
                None if reference.optional => {}
                None => {
                    unknown_sources = true;
                    let message = format!(
                        "{}: substituteFrom {}/{} is not in this repository, so its variables are not known here (the \
                         controller reads it from the cluster); fields that use them are not checked",
                        ks.object, reference.kind, reference.name
                    );
                    self.repository.notes.push(note(
                        Severity::Info,
                        SOURCE_RULE,
                        ks.source.clone(),
                        reference.line,
                        message,
                    ));
                }
            }
        }
        vars.extend(ks.substitute.clone());
        for (name, line) in &ks.substitute_lines {
            written_at.insert(name.clone(), (ks.source.clone(), *line));
        }
        if vars.is_empty() {
            return Some(built);
        }
        built.substituted = vec![Vec::new(); built.documents.len()];
        for (index, document) in built.documents.iter_mut().enumerate() {
            let fields = flux::single_variable_fields(&document.value);
            match flux::substitute(&document.value, &vars, false, unknown_sources) {
                Ok(Some(value)) => {
                    document.value = value;
                    built.substituted[index] = fields
                        .into_iter()
                        .filter_map(|(pointer, name)| {
                            let (source, line) = written_at.get(&name)?.clone();
                            Some(super::PatchedField { pointer, source, line })
                        })
                        .collect();
                }
                Ok(None) => {}
                Err(err) => {
                    let message = format!(
                        "{}: Flux would apply nothing of ./{}: {} (in {} of {})",
                        ks.object,
                        ks.path.as_deref().unwrap_or(""),
                        err,
                        document.display_name(),
                        document.origin
                    );
                    self.repository.notes.push(note(
                        Severity::Error,
                        FLUX_SUBSTITUTE_RULE,
                        ks.source.clone(),
                        ks.line,
                        message,
                    ));
                    return None;
                }
            }
        }
        Some(built)
    }

    /// Flux HelmReleases whose chart is a directory of this repository, rendered with their values (valuesFrom
    /// ConfigMaps and Secrets of the tree); the others are one info finding saying why they are not rendered.
    fn build_helm_releases(&mut self) {
        let releases = std::mem::take(&mut self.helm_releases);
        if releases.is_empty() {
            return;
        }
        // The ConfigMaps and Secrets of the tree, for valuesFrom.
        let mut objects: Vec<Document> = Vec::new();
        for relative in self.manifests.clone() {
            for document in self.files.documents(&relative).iter() {
                if matches!(document.kind(), "ConfigMap" | "Secret" | "OCIRepository") {
                    objects.push(document.clone());
                }
            }
        }
        for built in &self.repository.built {
            objects.extend(built.documents.iter().filter(|d| matches!(d.kind(), "ConfigMap" | "Secret")).cloned());
        }
        let lookup = |kind: &str, namespace: &str, name: &str| -> Option<Document> {
            objects
                .iter()
                .find(|object| {
                    object.kind() == kind
                        && object.name() == name
                        && object.namespace().is_none_or(|ns| ns == namespace)
                })
                .cloned()
        };
        let root = self.files.root().to_path_buf();
        let locator = self.chart_locator.clone();
        let resolve = |chart: &helm::RemoteChart| locator.locate(chart);
        for release in &releases {
            let at = (release.origin.source.to_string(), release.origin.line);
            if self.release_refused(release) {
                continue;
            }
            match helm::helm_release_request_with(release, &root, &lookup, &resolve) {
                Ok(request) => {
                    self.secret_values.extend(request.secret_values());
                    match self.render_request(request) {
                        Ok(render) => {
                            let cluster = flux::flux_cluster(release);
                            let namespace = Some(render.request.namespace.clone());
                            self.push_render(
                                render,
                                Some(ApplyTarget { cluster, namespace, prunes: true, application: None }),
                            )
                        }
                        Err(problem) => self.helm_problem(&problem, Some((&at.0, at.1))),
                    }
                }
                Err(reason) => {
                    let message = format!("{}: {reason}; not rendered", release.display_name());
                    let what = format!("Flux {}", release.display_name());
                    self.not_built(Severity::Info, at.0, at.1, what, message);
                }
            }
        }
        self.helm_releases = releases;
    }

    /// Whether a HelmRelease whose chart is a path of this repository names a chart directory or a values file that
    /// is not walked (`.git`, a symlink out, a FIFO, an excluded path): one warning at the line naming it. A path that
    /// simply is not there is left to [`helm::helm_release_request`], which says so.
    fn release_refused(&mut self, release: &Document) -> bool {
        let spec = release.value.pointer("/spec/chart/spec").cloned().unwrap_or(Value::Null);
        if !matches!(spec.str_at("/sourceRef/kind"), Some("GitRepository" | "Bucket")) {
            return false;
        }
        let mut refusals = Vec::new();
        let mut check = |written: &str, pointer: String, is_dir: bool| {
            let Some(relative) = kustomization::resolve("", written.trim_start_matches("./")) else { return };
            match self.boundary.lookup(&relative) {
                Walked::Not(why) if why != crate::source::boundary::MISSING => {
                    refusals.push((release.line_of(&pointer), format!("`{written}` {why}")));
                }
                Walked::Dir(walked)
                    if is_dir
                        && !self.boundary.is_file(&join(&walked, helm::CHART_FILE))
                        && std::fs::symlink_metadata(self.files.root().join(&walked).join(helm::CHART_FILE))
                            .is_ok() =>
                {
                    refusals.push((release.line_of(&pointer), format!("`{written}` has no walked Chart.yaml")));
                }
                _ => {}
            }
        };
        if let Some(chart) = spec.get("chart").and_then(Value::as_str) {
            check(chart, "/spec/chart/spec/chart".to_string(), true);
        }
        for (index, file) in spec.get("valuesFiles").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if let Some(file) = file.as_str() {
                check(file, format!("/spec/chart/spec/valuesFiles/{index}"), false);
            }
        }
        let what = format!("Flux {}", release.display_name());
        for (line, refusal) in &refusals {
            let message = format!("{}: {refusal}; not rendered", release.display_name());
            self.not_built(Severity::Warning, release.origin.source.to_string(), *line, what.clone(), message);
        }
        !refusals.is_empty()
    }

    /// A ConfigMap or Secret of the repository (in a manifest file or a build), in `namespace` or without one.
    fn find_document(&mut self, kind: &str, name: &str, namespace: &str) -> Option<Document> {
        let matches = |document: &Document| {
            document.kind() == kind
                && document.name() == name
                && document.namespace().is_none_or(|ns| ns == namespace || namespace.is_empty())
        };
        for built in &self.repository.built {
            if let Some(document) = built.documents.iter().find(|d| matches(d)) {
                return Some(document.clone());
            }
        }
        let candidates: Vec<String> = self.manifests.clone();
        for relative in candidates {
            let Ok(text) = std::fs::read_to_string(self.canonical_root.join(&relative)) else { continue };
            if !text.contains(name) {
                continue;
            }
            let documents: Arc<Vec<Document>> = self.files.documents(&relative);
            if let Some(document) = documents.iter().find(|d| matches(d)) {
                return Some(document.clone());
            }
        }
        None
    }

    fn finish(&mut self) {
        let mut plain = Vec::new();
        for (relative, (class, reason)) in &self.classes {
            if *class == FileClass::Manifest {
                plain.push(self.files.display(relative));
            }
            self.repository.files.push(FileEntry {
                path: self.files.display(relative),
                class: *class,
                reason: reason.clone(),
            });
        }
        self.repository.plain = plain;
        self.mask_secrets();
        // Keyed once every name is final (after Flux substitution).
        for built in &self.repository.built {
            for (document, fields) in built.documents.iter().zip(&built.patched) {
                if !fields.is_empty() {
                    self.repository
                        .patched
                        .entry((document.origin.source.to_string(), document.display_name()))
                        .or_default()
                        .extend(fields.iter().cloned());
                }
            }
        }
    }
}

impl Loader<'_> {
    /// Every value whose provenance is a Secret (the Secrets of the tree and of its builds, what Flux substituted
    /// from one, Helm values taken from one), masked out of the notes (tools' messages quote values) and kept in the
    /// repository to mask the report's findings.
    fn mask_secrets(&mut self) {
        let mut values = std::mem::take(&mut self.secret_values);
        // Names are never masked: a value within the name or namespace of an object of the tree is left there (one
        // that reaches beyond the name is masked whole).
        let mut names = HashSet::new();
        let mut gather = |document: &Document, values: &mut Vec<String>| {
            values.extend(manifest::secret_provenance_values(&document.value));
            names.insert(document.name().to_string());
            if let Some(namespace) = document.namespace() {
                names.insert(namespace.to_string());
            }
        };
        for relative in std::mem::take(&mut self.secret_files) {
            for document in self.files.documents(&relative).iter() {
                gather(document, &mut values);
            }
        }
        for built in &self.repository.built {
            for document in &built.documents {
                gather(document, &mut values);
            }
        }
        let mask = manifest::SecretMask::new(values, names);
        if mask.is_empty() {
            return;
        }
        for note in &mut self.repository.notes {
            mask.mask_in_place(&mut note.message);
        }
        for entry in &mut self.repository.not_built {
            mask.mask_in_place(&mut entry.reason);
        }
        self.repository.secret_mask = mask;
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

fn parent(relative: &str) -> &str {
    relative.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Whether `relative` is `dir` or below it (`""` is the root).
fn is_below(relative: &str, dir: &str) -> bool {
    dir.is_empty() || relative == dir || relative.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

fn shown_dir(dir: &str) -> String {
    if dir.is_empty() { ".".to_string() } else { dir.to_string() }
}

/// A tool's message on one line, shortened.
fn one_paragraph(text: &str) -> String {
    let joined: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > 600 { format!("{}...", joined.chars().take(600).collect::<String>()) } else { joined }
}
