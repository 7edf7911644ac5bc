//! Which Kubernetes release's built-in schemas a run uses (the management cluster's): flag > config file >
//! the cluster's server version > the newest bundled.

use std::fmt;

use super::file::RepoConfig;
use super::target::Notice;
use crate::versions::{self, UnknownKubernetesVersion};

/// Where the chosen Kubernetes version came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubernetesSource {
    /// A flag: `--management-kubernetes-version` (or `validate --kubernetes-version`), named as given.
    Flag { flag: &'static str },
    /// `kubernetesVersion` of a config file, at `FILE:LINE`.
    File { location: String },
    /// The version the cluster's API server reports (`/version`).
    Cluster { server_version: String },
    /// Nothing picked one: the newest bundled release.
    Default,
}

impl KubernetesSource {
    /// Whether the user pinned the version (flag or file).
    pub fn is_pinned(&self) -> bool {
        matches!(self, KubernetesSource::Flag { .. } | KubernetesSource::File { .. })
    }
}

impl fmt::Display for KubernetesSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KubernetesSource::Flag { flag } => write!(f, "{flag}"),
            KubernetesSource::File { location } => write!(f, "kubernetesVersion at {location}"),
            KubernetesSource::Cluster { server_version } => write!(f, "the cluster's API server ({server_version})"),
            KubernetesSource::Default => write!(f, "the default: the newest bundled Kubernetes release"),
        }
    }
}

/// The management cluster's Kubernetes release of a run (a bundled minor line, `v1.36`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubernetesChoice {
    pub version: &'static str,
    pub source: KubernetesSource,
}

impl KubernetesChoice {
    /// `Kubernetes v1.35, from --management-kubernetes-version`.
    pub fn describe(&self) -> String {
        format!("Kubernetes {}, from {}", self.version, self.source)
    }
}

/// A Kubernetes version flag that names no bundled release.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {given}: {reason}")]
pub struct KubernetesVersionError {
    pub flag: &'static str,
    pub given: String,
    pub reason: UnknownKubernetesVersion,
}

/// The pinned or default Kubernetes release: `flag` (with the flag's name), else the file's `kubernetesVersion`,
/// else the newest bundled. A cluster, when there is one, is consulted afterwards ([`with_server_version`]).
pub fn choose_kubernetes(
    flag: Option<(&'static str, &str)>,
    file: Option<&RepoConfig>,
) -> Result<KubernetesChoice, KubernetesVersionError> {
    if let Some((name, given)) = flag {
        let version = versions::find_kubernetes_version(given).map_err(|reason| KubernetesVersionError {
            flag: name,
            given: given.to_string(),
            reason,
        })?;
        return Ok(KubernetesChoice { version, source: KubernetesSource::Flag { flag: name } });
    }
    if let Some((config, setting)) = file.and_then(|config| Some((config, config.kubernetes_version.as_ref()?))) {
        let location = config.location(setting.line);
        return Ok(KubernetesChoice { version: setting.value, source: KubernetesSource::File { location } });
    }
    Ok(KubernetesChoice { version: newest(), source: KubernetesSource::Default })
}

fn newest() -> &'static str {
    versions::KUBERNETES_VERSIONS[0]
}

/// The choice once the API server's version (`gitVersion` of `/version`, `v1.35.4`) is known, with what to tell the
/// user: a pinned version stays (another minor in the cluster is a warning naming both); else a bundled release the
/// cluster runs is used; else the newest bundled, with a note.
pub fn with_server_version(
    pinned_or_default: KubernetesChoice,
    server_version: &str,
) -> (KubernetesChoice, Vec<Notice>) {
    let running = versions::find_kubernetes_version(strip_build(server_version)).ok();
    let mut notices = Vec::new();
    let choice = match (running, pinned_or_default.source.is_pinned()) {
        (Some(running), true) if running != pinned_or_default.version => {
            notices.push(Notice::Warning(format!(
                "the cluster runs Kubernetes {server_version} but {} pins Kubernetes {}; checking against Kubernetes {}",
                pinned_or_default.source, pinned_or_default.version, pinned_or_default.version
            )));
            pinned_or_default
        }
        (None, true) => {
            notices.push(Notice::Warning(format!(
                "the cluster runs Kubernetes {server_version}, whose built-in schemas are not bundled ({}); {} pins \
                 Kubernetes {}",
                bundled(),
                pinned_or_default.source,
                pinned_or_default.version
            )));
            pinned_or_default
        }
        (_, true) => pinned_or_default,
        (Some(running), false) => KubernetesChoice {
            version: running,
            source: KubernetesSource::Cluster { server_version: server_version.to_string() },
        },
        (None, false) => {
            notices.push(Notice::Note(format!(
                "the cluster runs Kubernetes {server_version}, whose built-in schemas are not bundled ({}); checking \
                 against Kubernetes {} (the newest bundled)",
                bundled(),
                pinned_or_default.version
            )));
            pinned_or_default
        }
    };
    (choice, notices)
}

/// `v1.35.4` of `v1.35.4-gke.100` or `v1.35.4+k3s1` (providers' builds of a release).
fn strip_build(version: &str) -> &str {
    version.split(['-', '+']).next().unwrap_or(version)
}

fn bundled() -> String {
    format!("bundled: {}", versions::KUBERNETES_VERSIONS.join(", "))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::file;

    fn config(text: &str) -> RepoConfig {
        file::parse(text, Path::new("/repo/.kubectl-capz.yaml")).unwrap()
    }

    #[test]
    fn flag_beats_file_beats_default() {
        let file = config("capzVersion: v1.26\nkubernetesVersion: v1.35\n");
        let flag = choose_kubernetes(Some(("--management-kubernetes-version", "1.36.2")), Some(&file)).unwrap();
        assert_eq!(flag.version, "v1.36");
        assert_eq!(flag.describe(), "Kubernetes v1.36, from --management-kubernetes-version");
        let from_file = choose_kubernetes(None, Some(&file)).unwrap();
        assert_eq!(from_file.version, "v1.35");
        assert_eq!(from_file.source, KubernetesSource::File { location: "/repo/.kubectl-capz.yaml:2".into() });
        let default = choose_kubernetes(None, Some(&config("capzVersion: v1.26\n"))).unwrap();
        assert_eq!((default.version, default.source), ("v1.36", KubernetesSource::Default));
        assert_eq!(
            choose_kubernetes(Some(("--kubernetes-version", "v1.20")), None).unwrap_err().to_string(),
            "--kubernetes-version v1.20: Kubernetes version `v1.20` is not bundled; bundled: v1.36, v1.35"
        );
    }

    #[test]
    fn the_server_version_decides_only_what_nobody_pinned() {
        let default = choose_kubernetes(None, None).unwrap();
        let (choice, notices) = with_server_version(default.clone(), "v1.35.4");
        assert_eq!(choice.version, "v1.35");
        assert_eq!(choice.source, KubernetesSource::Cluster { server_version: "v1.35.4".into() });
        assert!(notices.is_empty());
        // A provider's build of a release.
        assert_eq!(with_server_version(default.clone(), "v1.35.1-gke.1200").0.version, "v1.35");
        // Not bundled: the newest, with a note.
        let (choice, notices) = with_server_version(default.clone(), "v1.31.0");
        assert_eq!(choice, default);
        assert_eq!(
            notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "note: the cluster runs Kubernetes v1.31.0, whose built-in schemas are not bundled (bundled: v1.36, v1.35); checking against Kubernetes v1.36 (the newest bundled)"
            ]
        );
        // Pinned and different: a warning naming both.
        let pinned = choose_kubernetes(Some(("--management-kubernetes-version", "v1.35")), None).unwrap();
        let (choice, notices) = with_server_version(pinned.clone(), "v1.36.3");
        assert_eq!(choice, pinned);
        assert_eq!(
            notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "warning: the cluster runs Kubernetes v1.36.3 but --management-kubernetes-version pins Kubernetes v1.35; checking against Kubernetes v1.35"
            ]
        );
        // Pinned and equal: nothing to say.
        assert!(with_server_version(pinned, "v1.35.0").1.is_empty());
    }
}
