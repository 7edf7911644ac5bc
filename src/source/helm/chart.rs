//! A Helm chart directory: its Chart.yaml, its values files, and whether it can be rendered offline.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::HelmProblem;
use crate::manifest::parse_plain_value;

/// The file that makes a directory a Helm chart.
pub const CHART_FILE: &str = "Chart.yaml";

/// Whether `dir` is a Helm chart (holds a `Chart.yaml`).
pub fn is_chart_dir(dir: &Path) -> bool {
    dir.join(CHART_FILE).is_file()
}

/// What we need of a chart's `Chart.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    /// The chart directory, as given.
    pub dir: PathBuf,
    /// `name` of Chart.yaml (the directory name when missing).
    pub name: String,
    /// `dependencies` of Chart.yaml.
    pub dependencies: Vec<Dependency>,
}

/// One entry of `dependencies` in Chart.yaml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    /// `repository`: "" or `file://...` for a chart of this tree, else a Helm or OCI repository.
    pub repository: String,
}

impl Dependency {
    /// Whether helm would have to download it (`helm dependency build` from a Helm or OCI repository).
    pub fn is_remote(&self) -> bool {
        let repository = self.repository.trim();
        !(repository.is_empty() || repository.starts_with("file://"))
    }
}

impl Chart {
    /// Reads `dir/Chart.yaml`.
    pub fn read(dir: &Path) -> Result<Chart, HelmProblem> {
        let file = dir.join(CHART_FILE);
        let unreadable = |reason: String| HelmProblem::ChartUnreadable { chart: dir.to_path_buf(), reason };
        let text = std::fs::read_to_string(&file).map_err(|err| unreadable(err.to_string()))?;
        let value = parse_plain_value(&text, &file.display().to_string()).map_err(|err| unreadable(err.to_string()))?;
        let dir_name = dir.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let name = value.get("name").and_then(Value::as_str).filter(|name| !name.is_empty());
        let dependencies = value
            .get("dependencies")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|dependency| {
                        let name = dependency.get("name")?.as_str()?.to_string();
                        let repository = dependency.get("repository").and_then(Value::as_str).unwrap_or("").to_string();
                        Some(Dependency { name, repository })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Chart { dir: dir.to_path_buf(), name: name.map(str::to_string).unwrap_or(dir_name), dependencies })
    }

    /// The dependencies that are not in `charts/` (neither as a directory nor as a `.tgz`).
    pub fn absent_dependencies(&self) -> Vec<&Dependency> {
        let vendored = vendored_charts(&self.dir.join("charts"));
        self.dependencies.iter().filter(|dependency| !vendored.contains(&dependency.name)).collect()
    }

    /// Refuses a chart that cannot be rendered offline: absent dependencies, a symlink out of the repository.
    pub fn check_renderable(&self, repo_root: &Path) -> Result<(), HelmProblem> {
        let absent = self.absent_dependencies();
        if let Some(remote) = absent.iter().find(|dependency| dependency.is_remote()) {
            return Err(HelmProblem::NeedsDownload {
                chart: self.dir.clone(),
                dependency: remote.name.clone(),
                repository: remote.repository.clone(),
            });
        }
        if !absent.is_empty() {
            return Err(HelmProblem::MissingDependencies {
                chart: self.dir.clone(),
                names: absent.iter().map(|dependency| dependency.name.clone()).collect(),
            });
        }
        let inside = match (self.dir.canonicalize(), repo_root.canonicalize()) {
            (Ok(dir), Ok(root)) => dir.starts_with(root),
            _ => false,
        };
        if !inside {
            return Err(HelmProblem::SymlinkOutOfRepository { chart: self.dir.clone(), link: self.dir.clone() });
        }
        if let Some(link) = symlink_out_of(&self.dir, repo_root) {
            return Err(HelmProblem::SymlinkOutOfRepository { chart: self.dir.clone(), link });
        }
        Ok(())
    }

    /// `ci/*-values.yaml`, sorted: chart-testing renders the chart once with each (on top of values.yaml).
    pub fn ci_values_files(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.dir.join("ci")) else { return Vec::new() };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.is_file()
                    && path
                        .file_name()
                        .and_then(|name| name.to_str())
                        .is_some_and(|name| name.ends_with("-values.yaml") || name.ends_with("-values.yml"))
            })
            .collect();
        files.sort();
        files
    }
}

/// Names of the charts in a `charts/` directory: subdirectories with a Chart.yaml (their `name`) and
/// `<name>-<version>.tgz` archives.
fn vendored_charts(charts: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(charts) else { return Vec::new() };
    let mut names = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if is_chart_dir(&path) {
            if let Ok(chart) = Chart::read(&path) {
                names.push(chart.name);
            }
            if let Some(name) = path.file_name() {
                names.push(name.to_string_lossy().into_owned());
            }
        } else if let Some(stem) = path.file_name().and_then(|name| name.to_str()).and_then(|n| n.strip_suffix(".tgz"))
        {
            // `name-1.2.3.tgz`: the name is everything before the last dash that starts a version.
            let name =
                stem.rmatch_indices('-').find(|(at, _)| stem[at + 1..].starts_with(|c: char| c.is_ascii_digit()));
            names.push(name.map_or(stem, |(at, _)| &stem[..at]).to_string());
        }
    }
    names
}

/// The first symlink below `dir` whose target lies outside `repo_root` (or cannot be resolved), at any depth:
/// symlinked directories inside the repository are entered too (each once), since helm follows them.
fn symlink_out_of(dir: &Path, repo_root: &Path) -> Option<PathBuf> {
    let root = repo_root.canonicalize().ok()?;
    let mut pending = vec![dir.to_path_buf()];
    let mut entered = std::collections::HashSet::new();
    while let Some(current) = pending.pop() {
        let Ok(canonical) = current.canonicalize() else { return Some(current) };
        if !canonical.starts_with(&root) {
            return Some(current);
        }
        if !entered.insert(canonical) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&current) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else { continue };
            if file_type.is_symlink() {
                match path.canonicalize() {
                    Ok(target) if target.starts_with(&root) => {
                        if target.is_dir() {
                            pending.push(path);
                        }
                    }
                    _ => return Some(path),
                }
            } else if file_type.is_dir() {
                pending.push(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_is_found_through_a_symlinked_directory_inside_the_repository() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "token").unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir_all(root.join("shared")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("shared/values.yaml")).unwrap();
        std::fs::create_dir_all(root.join("chart/templates")).unwrap();
        std::os::unix::fs::symlink("../../shared", root.join("chart/templates/lib")).unwrap();
        std::os::unix::fs::symlink("..", root.join("chart/templates/loop")).unwrap();
        assert_eq!(symlink_out_of(&root.join("chart"), root), Some(root.join("chart/templates/lib/values.yaml")));
        std::fs::remove_file(root.join("shared/values.yaml")).unwrap();
        assert_eq!(symlink_out_of(&root.join("chart"), root), None);
    }
}
