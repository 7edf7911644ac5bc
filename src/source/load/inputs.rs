//! What the builds need from the whole tree: the Argo CD objects expanded once every file is read (an
//! ApplicationSet's clusters may be declared in a later file), the local copies of remote charts, and the one way
//! charts are rendered (a chart directory, or a packed chart found for a remote reference).

use std::path::PathBuf;

use super::Loader;
use crate::manifest::Document;
use crate::source::argo::{self, ArgoCluster, ArgoInputs};
use crate::source::boundary::Walked;
use crate::source::fleet::FLEET_GROUP;
use crate::source::helm::{self, ChartLocator, HelmProblem, HelmRender, LocalChart, RemoteChart, RenderRequest};

/// Whether the loader keeps `document` for later: an Argo CD Application or ApplicationSet, an Argo CD cluster
/// Secret, a Fleet GitRepo.
pub(super) fn is_gitops_input(document: &Document) -> bool {
    argo::is_application(document)
        || argo::is_application_set(document)
        || is_git_repo(document)
        || argo::cluster_of_secret(document).is_some()
}

/// Whether `document` is a Fleet GitRepo.
pub(super) fn is_git_repo(document: &Document) -> bool {
    document.group() == FLEET_GROUP && document.kind() == "GitRepo"
}

impl Loader<'_> {
    /// The chart copies of the tree (and of `--helm-cache`), then the sources of the Argo CD objects, their
    /// ApplicationSets' `clusters` generators evaluated against the cluster Secrets of the tree and the clusters
    /// `.kubectl-capz.yaml` declares.
    pub(super) fn read_gitops_inputs(&mut self) {
        let mut files: Vec<String> = self.tree_files.iter().cloned().collect();
        files.sort();
        self.chart_locator = ChartLocator::new(self.files.root(), &files, self.options.helm_cache.as_deref());
        let mut clusters: Vec<ArgoCluster> = self.options.argo_clusters.clone();
        clusters.extend(self.gitops_documents.iter().filter_map(argo::cluster_of_secret));
        let known = (!clusters.is_empty()).then_some(clusters.as_slice());
        let locator = &self.chart_locator;
        let resolve = |chart: &RemoteChart| locator.locate(chart);
        let inputs = ArgoInputs { clusters: known, charts: &resolve };
        let root = self.files.root().to_path_buf();
        let mut sources = Vec::new();
        for document in &self.gitops_documents {
            sources.extend(argo::argo_sources_with(document, &root, &inputs));
        }
        self.argo.extend(sources);
    }

    /// Renders `request` in the stage: a chart directory of the repository (the walked chart and its values files
    /// staged; a chart holding a symlink out of the repository is not rendered), or a packed chart found for a
    /// remote one (of the repository: staged; of the helm cache the command line names: read where it is).
    pub(super) fn render_request(&mut self, request: RenderRequest) -> Result<HelmRender, HelmProblem> {
        let local = request.chart_dir.is_file().then(|| {
            let in_cache = self.options.helm_cache.as_deref().is_some_and(|cache| request.chart_dir.starts_with(cache));
            LocalChart::Archive { path: request.chart_dir.clone(), in_cache }
        });
        self.render_located(local.as_ref(), request)
    }

    /// Renders `request` with the chart `local` (a directory or a packed chart; `None`: `request.chart_dir`), in
    /// the stage as [`Loader::render_request`] says.
    pub(super) fn render_located(
        &mut self,
        local: Option<&LocalChart>,
        mut request: RenderRequest,
    ) -> Result<HelmRender, HelmProblem> {
        if let Some(local) = local {
            request.chart_dir = local.path().to_path_buf();
        }
        match local {
            Some(archive @ LocalChart::Archive { path, in_cache }) => {
                let mut files = self.walked_files(&request.values_files);
                if !in_cache {
                    files.extend(self.walked_files(std::slice::from_ref(path)));
                }
                let stage = self
                    .stage_for(&files, &[])
                    .map_err(|message| HelmProblem::Tool { chart: path.clone(), message })?;
                request.stage = Some(stage);
                helm::render_local(archive, request, self.files.root(), &self.options.budget)
            }
            _ => {
                let chart = self.boundary.relative_of(&request.chart_dir).unwrap_or_default();
                let chart = match self.boundary.lookup(&chart) {
                    Walked::Dir(walked) => walked,
                    _ => chart,
                };
                request.stage = Some(self.chart_stage(&chart, &request.chart_dir, &request.values_files)?);
                helm::render_for(request, self.files.root(), &self.options.budget)
            }
        }
    }

    /// The walked files (repository-relative, symlinks inside the tree resolved) of `paths`.
    fn walked_files(&self, paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .filter_map(|file| self.boundary.relative_of(file))
            .filter_map(|relative| match self.boundary.lookup(&relative) {
                Walked::File(walked) => Some(walked),
                _ => None,
            })
            .collect()
    }
}
