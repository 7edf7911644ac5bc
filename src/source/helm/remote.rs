//! Charts that a GitOps object takes from a Helm repository or an OCI registry (an Argo CD `chart:` source, a Flux
//! HelmRelease of a HelmRepository or OCIRepository, a Fleet `helm.repo`/`helm.chart` URL), found without a
//! download: vendored in the repository, or in a helm repository cache the user names with `--helm-cache DIR`.
//!
//! A vendored copy is a chart directory of the tree whose Chart.yaml has the chart's name and version, or a
//! `<name>-<version>.tgz` file of the tree (what `helm pull` and `helm dependency build` write). The cache is
//! helm's own layout (`$HELM_CACHE_HOME/repository/<name>-<version>.tgz`, where `helm install repo/chart` keeps
//! what it downloaded); it is outside the repository, so it is read only when the command line names it: a pull
//! request cannot make the run read files of the machine it runs on, and a run without the flag gives the same
//! answer on every machine. Only an exact version is looked up: a range (`^1.2`, `1.x`, `*`) is resolved by the
//! controller against the repository's index, which is not known here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::manifest::parse_plain_value;

/// A chart to be downloaded: its name, the exact version asked for, and where it would come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteChart {
    pub name: String,
    /// As written (a leading `v` is kept; the lookup also tries without it).
    pub version: String,
    /// The Helm repository URL or OCI reference, for messages.
    pub from: String,
}

/// Where a copy of a remote chart was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalChart {
    /// A chart directory of the repository.
    Directory(PathBuf),
    /// A packed chart: in the repository, or in the helm cache.
    Archive { path: PathBuf, in_cache: bool },
}

impl LocalChart {
    pub fn path(&self) -> &Path {
        match self {
            LocalChart::Directory(path) | LocalChart::Archive { path, .. } => path,
        }
    }
}

/// Finds the copies of remote charts available without a download.
#[derive(Debug, Clone, Default)]
pub struct ChartLocator {
    /// (name, version) -> the first chart directory of the tree (sorted by path) with that Chart.yaml.
    directories: BTreeMap<(String, String), PathBuf>,
    /// `<name>-<version>.tgz` file name -> its first path in the tree.
    archives: BTreeMap<String, PathBuf>,
    /// `--helm-cache DIR`.
    cache: Option<PathBuf>,
}

impl ChartLocator {
    /// The locator of the repository at `root` (display path) whose files are `files` (repository-relative,
    /// sorted), with the helm cache directory the command line gave.
    pub fn new(root: &Path, files: &[String], cache: Option<&Path>) -> Self {
        let mut locator = ChartLocator { cache: cache.map(Path::to_path_buf), ..ChartLocator::default() };
        for relative in files {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            if name == super::CHART_FILE {
                let dir = relative.rsplit_once('/').map_or("", |(dir, _)| dir);
                let Ok(text) = std::fs::read_to_string(root.join(relative)) else { continue };
                let Ok(value) = parse_plain_value(&text, relative) else { continue };
                let field = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
                if let (Some(chart), Some(version)) = (field("name"), field("version")) {
                    let path = if dir.is_empty() { root.to_path_buf() } else { root.join(dir) };
                    locator.directories.entry((chart, version)).or_insert(path);
                }
            } else if name.ends_with(".tgz") {
                locator.archives.entry(name.to_string()).or_insert_with(|| root.join(relative));
            }
        }
        locator
    }

    /// The local copy of `chart`, or why there is none (a clause for a message saying it is not built: "it would
    /// need a download: ...").
    pub fn locate(&self, chart: &RemoteChart) -> Result<LocalChart, String> {
        let RemoteChart { name, version, .. } = chart;
        if version.trim().is_empty() {
            return Err("it has no version, so the controller takes the newest in the repository's index, which is \
                        not known here"
                .to_string());
        }
        if !is_exact_version(version) {
            return Err(format!(
                "its version `{version}` is a range: which release the controller picks depends on the repository's \
                 index, which is not known here"
            ));
        }
        if !is_safe_name(name) {
            return Err(format!("`{name}` is not a chart name that can be looked up"));
        }
        let bare = version.strip_prefix('v').unwrap_or(version);
        for candidate in [version.as_str(), bare] {
            if let Some(dir) = self.directories.get(&(name.clone(), candidate.to_string())) {
                return Ok(LocalChart::Directory(dir.clone()));
            }
            if let Some(path) = self.archives.get(&format!("{name}-{candidate}.tgz")) {
                return Ok(LocalChart::Archive { path: path.clone(), in_cache: false });
            }
        }
        if let Some(cache) = &self.cache {
            for candidate in [version.as_str(), bare] {
                let path = cache.join(format!("{name}-{candidate}.tgz"));
                // A regular file directly in the cache, not a link to elsewhere.
                if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
                    return Ok(LocalChart::Archive { path, in_cache: true });
                }
            }
        }
        let cache = match &self.cache {
            Some(dir) => format!(", nor in the helm cache {}", dir.display()),
            None => String::new(),
        };
        Err(format!(
            "it would need a download, and no copy of {name} {version} is in this repository (a chart directory with \
             that name and version in its Chart.yaml, or {name}-{bare}.tgz){cache}"
        ))
    }

    /// Whether a helm cache directory was given.
    pub fn has_cache(&self) -> bool {
        self.cache.is_some()
    }
}

/// Whether `version` names one release (semver, optionally with a leading `v`), not a range.
pub fn is_exact_version(version: &str) -> bool {
    let version = version.trim();
    semver::Version::parse(version.strip_prefix('v').unwrap_or(version)).is_ok()
}

/// A name that is a file name, nothing that climbs or crosses directories.
fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The chart an OCI reference names (`oci://registry/path/chart`, with an optional `:tag`): its last segment, and
/// the tag when there is one.
pub fn oci_chart(reference: &str) -> Option<(String, Option<String>)> {
    let rest = reference.strip_prefix("oci://")?;
    let last = rest.rsplit('/').next().filter(|last| !last.is_empty() && rest.contains('/'))?;
    match last.split_once(':') {
        Some((name, tag)) => Some((name.to_string(), Some(tag.to_string()))),
        None => Some((last.to_string(), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_directories_and_archives_by_name_and_exact_version_then_the_cache() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir_all(root.join("vendor/aks")).unwrap();
        std::fs::write(root.join("vendor/aks/Chart.yaml"), "apiVersion: v2\nname: aks\nversion: 1.2.3\n").unwrap();
        std::fs::create_dir_all(root.join("charts")).unwrap();
        std::fs::write(root.join("charts/cert-manager-v1.16.0.tgz"), "packed").unwrap();
        let cache = tempfile::tempdir().unwrap();
        std::fs::write(cache.path().join("ingress-nginx-4.11.3.tgz"), "packed").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", cache.path().join("linked-1.0.0.tgz")).unwrap();
        let files: Vec<String> = ["charts/cert-manager-v1.16.0.tgz", "vendor/aks/Chart.yaml"].map(String::from).into();
        let chart = |name: &str, version: &str| RemoteChart {
            name: name.into(),
            version: version.into(),
            from: "https://charts.example.com".into(),
        };
        let without_cache = ChartLocator::new(root, &files, None);
        assert_eq!(without_cache.locate(&chart("aks", "1.2.3")), Ok(LocalChart::Directory(root.join("vendor/aks"))));
        assert_eq!(without_cache.locate(&chart("aks", "v1.2.3")), Ok(LocalChart::Directory(root.join("vendor/aks"))));
        assert_eq!(
            without_cache.locate(&chart("cert-manager", "v1.16.0")),
            Ok(LocalChart::Archive { path: root.join("charts/cert-manager-v1.16.0.tgz"), in_cache: false })
        );
        let missing = without_cache.locate(&chart("ingress-nginx", "4.11.3")).unwrap_err();
        assert!(missing.starts_with("it would need a download, and no copy of ingress-nginx 4.11.3"), "{missing}");
        // The cache only when named; a link in it is not followed.
        let with_cache = ChartLocator::new(root, &files, Some(cache.path()));
        assert_eq!(
            with_cache.locate(&chart("ingress-nginx", "4.11.3")),
            Ok(LocalChart::Archive { path: cache.path().join("ingress-nginx-4.11.3.tgz"), in_cache: true })
        );
        assert!(with_cache.locate(&chart("linked", "1.0.0")).is_err());
        // Ranges and missing versions are resolved against an index we do not have; names cannot climb.
        assert!(with_cache.locate(&chart("aks", "^1.2.0")).unwrap_err().contains("version `^1.2.0` is a range"));
        assert!(with_cache.locate(&chart("aks", "")).unwrap_err().contains("has no version"));
        let missing = with_cache.locate(&chart("absent", "1.0.0")).unwrap_err();
        assert!(missing.ends_with(&format!("absent-1.0.0.tgz), nor in the helm cache {}", cache.path().display())));
        assert!(with_cache.locate(&chart("../etc", "1.0.0")).unwrap_err().contains("not a chart name"));
    }

    #[test]
    fn oci_references_name_their_last_segment() {
        assert_eq!(oci_chart("oci://ghcr.io/org/charts/aks"), Some(("aks".into(), None)));
        assert_eq!(oci_chart("oci://ghcr.io/org/aks:1.0.0"), Some(("aks".into(), Some("1.0.0".into()))));
        assert_eq!(oci_chart("https://example.com/aks"), None);
        assert_eq!(oci_chart("oci://aks"), None);
    }
}
