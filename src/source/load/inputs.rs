//! What the builds need from the whole tree: the Argo CD objects expanded once every file is read (an
//! ApplicationSet's clusters may be declared in a later file), the local copies of remote charts, and the one way
//! charts are rendered (a chart directory, or a packed chart found for a remote reference).

use super::Loader;
use crate::manifest::Document;
use crate::source::argo::{self, ArgoCluster, ArgoInputs};
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

    /// Renders `request`: a chart directory of the repository, or a packed chart (of the repository or of the helm
    /// cache) found for a remote chart.
    pub(super) fn render_request(&self, request: RenderRequest) -> Result<HelmRender, HelmProblem> {
        if request.chart_dir.is_file() {
            let in_cache = self.options.helm_cache.as_deref().is_some_and(|cache| request.chart_dir.starts_with(cache));
            let local = LocalChart::Archive { path: request.chart_dir.clone(), in_cache };
            return helm::render_local(&local, request, self.files.root(), self.options.timeout);
        }
        helm::render_for(request, self.files.root(), self.options.timeout)
    }
}
