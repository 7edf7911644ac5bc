//! Helm charts of the repository rendered with `helm template` (local charts only), values traced to their file:line.
//!
//! A chart renders once with its `values.yaml` and once more per `ci/*-values.yaml` (on top of values.yaml), as
//! chart-testing does. A chart that cannot be rendered offline (no helm, dependencies absent or to be downloaded,
//! a template error) is one [`HelmProblem`], never a parse error per template.

mod chart;
mod release;
mod remote;
mod render;
mod required;
mod template_lines;
mod values;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::budget::Budget;

use crate::source::stage::Stage;

pub use chart::{CHART_FILE, Chart, Dependency, is_chart_dir};
pub use release::{
    ChartResolver, HELM_RELEASE_GROUP, ObjectLookup, helm_release_request, helm_release_request_with, in_repository,
    is_helm_release,
};
pub use remote::{ChartLocator, LocalChart, RemoteChart, is_exact_version, oci_chart};
pub use render::{
    HELM, HelmRender, InlineValues, RELEASE_NAMESPACE, RenderRequest, RenderedDocument, WrittenAt, source_name,
};
pub use values::{ValueOrigin, ValueTrace, attribute_values};

/// Why a chart was not rendered: one warning naming the chart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HelmProblem {
    #[error("chart {} was not rendered: `helm` is not on PATH (install helm v3 to validate what it renders)", chart.display())]
    HelmNotFound { chart: PathBuf },
    #[error("chart {} needs its dependencies: run `helm dependency build {}` (not in charts/: {})", chart.display(), chart.display(), names.join(", "))]
    MissingDependencies { chart: PathBuf, names: Vec<String> },
    #[error(
        "chart {} was not rendered: its dependency `{dependency}` would have to be downloaded from {repository}; \
         only local charts are rendered (vendor it into charts/ with `helm dependency build`)",
        chart.display()
    )]
    NeedsDownload { chart: PathBuf, dependency: String, repository: String },
    #[error("chart {} could not be rendered ({render}): {message}", chart.display())]
    TemplateError { chart: PathBuf, render: String, message: String },
    #[error(
        "chart {} could not be rendered ({render}): it needs {} that its values do not set ({template} calls \
         `required`: \"{message}\"); a ci/*-values.yaml in the chart that sets it (repository mode renders each, \
         as chart-testing does) or an Argo CD Application or Flux HelmRelease giving it values lets it render",
        chart.display(), value.as_deref().map_or_else(|| "a value".to_string(), |value| format!("the value `{value}`"))
    )]
    RequiredValue { chart: PathBuf, render: String, template: String, value: Option<String>, message: String },
    #[error("chart {} could not be rendered: {message}", chart.display())]
    Tool { chart: PathBuf, message: String },
    #[error("chart {}: Chart.yaml cannot be read: {reason}", chart.display())]
    ChartUnreadable { chart: PathBuf, reason: String },
    #[error("chart {} was not rendered: {} is a symlink out of the repository", chart.display(), link.display())]
    SymlinkOutOfRepository { chart: PathBuf, link: PathBuf },
    #[error("chart {} was not rendered: {reason}", chart.display())]
    ArchiveRefused { chart: PathBuf, reason: String },
}

impl HelmProblem {
    /// The chart directory the problem is about.
    pub fn chart(&self) -> &Path {
        match self {
            HelmProblem::HelmNotFound { chart }
            | HelmProblem::MissingDependencies { chart, .. }
            | HelmProblem::NeedsDownload { chart, .. }
            | HelmProblem::TemplateError { chart, .. }
            | HelmProblem::RequiredValue { chart, .. }
            | HelmProblem::Tool { chart, .. }
            | HelmProblem::ChartUnreadable { chart, .. }
            | HelmProblem::SymlinkOutOfRepository { chart, .. }
            | HelmProblem::ArchiveRefused { chart, .. } => chart,
        }
    }

    /// The file a warning about it points at: the chart's Chart.yaml (a packed chart itself).
    pub fn file(&self) -> PathBuf {
        if self.chart().is_file() { self.chart().to_path_buf() } else { self.chart().join(CHART_FILE) }
    }
}

/// Renders the chart in `chart_dir` (a path inside `repo_root`) once with its values.yaml and once per
/// `ci/*-values.yaml`, each run of helm within `budget`. The release is named after the chart.
pub fn render_chart(chart_dir: &Path, repo_root: &Path, budget: &Budget) -> Result<Vec<HelmRender>, HelmProblem> {
    render_chart_staged(chart_dir, repo_root, None, budget)
}

/// [`render_chart`], helm run on the repository's staged copy `stage` (see [`RenderRequest::stage`]).
pub fn render_chart_staged(
    chart_dir: &Path,
    repo_root: &Path,
    stage: Option<Arc<Stage>>,
    budget: &Budget,
) -> Result<Vec<HelmRender>, HelmProblem> {
    let chart = Chart::read(chart_dir)?;
    chart.check_renderable(repo_root)?;
    let default_values = chart_dir.join("values.yaml");
    let base: Vec<PathBuf> = if default_values.is_file() { vec![default_values] } else { Vec::new() };
    let mut value_sets = vec![base.clone()];
    for ci in chart.ci_values_files() {
        let mut set = base.clone();
        set.push(ci);
        value_sets.push(set);
    }
    value_sets
        .into_iter()
        .map(|values_files| {
            let shown = values_files.last().map_or_else(
                || "no values file".to_string(),
                |file| file.strip_prefix(chart_dir).unwrap_or(file).display().to_string(),
            );
            let request = RenderRequest {
                chart_dir: chart_dir.to_path_buf(),
                release: chart.name.clone(),
                namespace: RELEASE_NAMESPACE.to_string(),
                values_files,
                label: format!("{} with {shown}", chart_dir.display()),
                stage: stage.clone(),
                ..RenderRequest::default()
            };
            render::render_request(request, budget)
        })
        .collect()
}

/// Renders a chart of the repository for a GitOps object (an Argo CD helm source, a Flux HelmRelease): the
/// chart is checked as in [`render_chart`], then rendered as `request` says.
pub fn render_for(request: RenderRequest, repo_root: &Path, budget: &Budget) -> Result<HelmRender, HelmProblem> {
    let chart = Chart::read(&request.chart_dir)?;
    chart.check_renderable(repo_root)?;
    render::render_request(request, budget)
}

/// Renders a chart found for a remote reference ([`ChartLocator`]): a chart directory of the repository as
/// [`render_for`] does; a packed chart (`.tgz`) of the repository or of the helm cache the command line named,
/// after checking it is a regular file there (helm reads the archive itself, with the same clean environment,
/// time limit and output cap). `request.chart_dir` is replaced by the chart's path.
pub fn render_local(
    local: &LocalChart,
    mut request: RenderRequest,
    repo_root: &Path,
    budget: &Budget,
) -> Result<HelmRender, HelmProblem> {
    request.chart_dir = local.path().to_path_buf();
    let LocalChart::Archive { path, in_cache } = local else {
        return render_for(request, repo_root, budget);
    };
    let refused = |reason: String| HelmProblem::ArchiveRefused { chart: path.clone(), reason };
    let meta = std::fs::symlink_metadata(path).map_err(|err| refused(format!("it cannot be read: {err}")))?;
    if !meta.is_file() {
        return Err(refused("it is not a regular file".to_string()));
    }
    if !in_cache {
        let inside = match (path.canonicalize(), repo_root.canonicalize()) {
            (Ok(path), Ok(root)) => path.starts_with(root),
            _ => false,
        };
        if !inside {
            return Err(refused("it is not a file of the repository".to_string()));
        }
    }
    render::render_request(request, budget)
}
