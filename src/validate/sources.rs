//! The paths of a run -> the files to stream and the repositories to build (kustomize, Helm, Flux, Argo CD).

use crate::config::RepoConfig;
use crate::source::{self, Budget, ExcludePattern, Repository, RepositoryOptions, SourceError};

/// The files to stream and the repositories to build: a directory is a repository (unless `no_build`), files and
/// `-` are read as they are. With `--exclude`, a directory read plainly lists its files without the excluded ones.
/// The `exclude` globs of the config file (relative to its folder) join `--exclude` for each directory below it.
/// With `strict`, a source that cannot be built is an error finding. The config file's Argo CD clusters and the
/// `helm_cache` directory (`--helm-cache`) are what the builds may use besides the repository; the tools of every
/// repository share `budget`.
pub(crate) fn read_sources(
    paths: &[String],
    no_build: bool,
    exclude: &[String],
    config: Option<&RepoConfig>,
    strict: bool,
    helm_cache: Option<&std::path::Path>,
    budget: &Budget,
) -> Result<(Vec<String>, Vec<Repository>), SourceError> {
    let mut plain = Vec::new();
    let mut repositories = Vec::new();
    for path in paths {
        let is_dir = path != "-" && std::path::Path::new(path).is_dir();
        let options = repository_options(path, is_dir, exclude, config, strict, helm_cache, budget);
        if !is_dir || (no_build && options.excludes.is_empty()) {
            plain.push(path.clone());
        } else if no_build {
            plain.extend(source::plain_files(std::path::Path::new(path), &options.excludes)?);
        } else {
            let repository = source::load(std::path::Path::new(path), &options)?;
            plain.extend(repository.plain.iter().cloned());
            repositories.push(repository);
        }
    }
    Ok((plain, repositories))
}

/// How to read the repository at `path`: `--exclude` and the config file's globs that apply inside it, `--strict`,
/// the config file's Argo CD clusters, `--helm-cache` and the run's budget.
pub(crate) fn repository_options(
    path: &str,
    is_dir: bool,
    exclude: &[String],
    config: Option<&RepoConfig>,
    strict: bool,
    helm_cache: Option<&std::path::Path>,
    budget: &Budget,
) -> RepositoryOptions {
    let mut patterns = exclude.to_vec();
    if is_dir && let Some(config) = config {
        patterns.extend(config_excludes_for(config, std::path::Path::new(path)));
    }
    RepositoryOptions {
        excludes: patterns.iter().map(|pattern| ExcludePattern::new(pattern)).collect(),
        strict,
        argo_clusters: config
            .map(|config| config.argo_clusters.iter().map(|c| c.value.clone()).collect())
            .unwrap_or_default(),
        helm_cache: helm_cache.map(std::path::Path::to_path_buf),
        budget: budget.clone(),
    }
}

/// The config file's `exclude` globs that apply inside `dir`, made relative to it: a glob without `/` applies
/// everywhere; an anchored one (relative to the config file's folder) only below `dir`, with `dir`'s part cut off.
fn config_excludes_for(config: &RepoConfig, dir: &std::path::Path) -> Vec<String> {
    let (Ok(root), Ok(dir)) = (std::fs::canonicalize(config.root()), std::fs::canonicalize(dir)) else {
        return Vec::new();
    };
    let Ok(below) = dir.strip_prefix(&root) else { return Vec::new() };
    let below = below.to_string_lossy().replace('\\', "/");
    let mut patterns = Vec::new();
    for glob in config.exclude_globs() {
        let trimmed = glob.trim_start_matches("./").trim_start_matches('/').trim_end_matches('/');
        if !trimmed.contains('/') || below.is_empty() {
            patterns.push(trimmed.to_string());
        } else if let Some(rest) = trimmed.strip_prefix(&format!("{below}/")) {
            patterns.push(rest.to_string());
        }
    }
    patterns
}
