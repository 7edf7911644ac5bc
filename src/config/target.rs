//! Which target (CAPZ release) a run checks against: flag > environment > config file > cluster > default.

use std::fmt;

use super::file::RepoConfig;
use crate::versions::{self, Target, UnknownTarget};

/// The environment variable that pins the target.
pub const ENV_VAR: &str = "CAPZ_VERSION";

/// Where the chosen target came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSource {
    /// `--capz-version`.
    Flag,
    /// `CAPZ_VERSION`.
    Environment,
    /// `capzVersion` of a config file, at `FILE:LINE`.
    File { location: String },
    /// The CAPZ controller image running in the cluster.
    Cluster { image: String },
    /// Nothing picked one: the newest published release (never a provisional one).
    Default,
}

impl TargetSource {
    /// Whether the user pinned the target (flag, environment or file).
    pub fn is_pinned(&self) -> bool {
        matches!(self, TargetSource::Flag | TargetSource::Environment | TargetSource::File { .. })
    }
}

impl fmt::Display for TargetSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetSource::Flag => write!(f, "--capz-version"),
            TargetSource::Environment => write!(f, "{ENV_VAR}"),
            TargetSource::File { location } => write!(f, "capzVersion at {location}"),
            TargetSource::Cluster { image } => write!(f, "the cluster's CAPZ controller image {image}"),
            TargetSource::Default => write!(f, "the default: the newest published CAPZ release"),
        }
    }
}

/// The target of a run and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetChoice {
    pub target: &'static Target,
    pub source: TargetSource,
}

impl TargetChoice {
    /// `CAPZ v1.27 (v1.27.0, CAPI v1.14.0, ASO v2.19.0), from --capz-version`; a provisional target says so:
    /// `CAPZ v1.28 (v1.28.0 provisional, modelled on v1.27.0, CAPI v1.14.2, ASO v2.20.0), from ...`.
    pub fn describe(&self) -> String {
        let t = self.target;
        let release = match t.provisional {
            Some(_) => format!("{} provisional, modelled on {}", t.capz, t.capz_source),
            None => t.capz.to_string(),
        };
        format!("CAPZ {} ({release}, CAPI {}, ASO {}), from {}", t.name, t.capi, t.aso, self.source)
    }
}

/// A `--capz-version` or `CAPZ_VERSION` value that names no supported target.
#[derive(Debug, thiserror::Error)]
#[error("{setting}: {reason}")]
pub struct TargetError {
    /// `--capz-version v1.25` or `CAPZ_VERSION=v1.25`.
    pub setting: String,
    pub reason: UnknownTarget,
}

/// The pinned or default target: `flag`, else `env` (empty counts as unset), else the file's `capzVersion`,
/// else the default. A cluster, when there is one, is consulted afterwards ([`with_cluster`]).
pub fn choose_target(
    flag: Option<&str>,
    env: Option<&str>,
    file: Option<&RepoConfig>,
) -> Result<TargetChoice, TargetError> {
    if let Some(given) = flag {
        let target = versions::find_target(given)
            .map_err(|reason| TargetError { setting: format!("--capz-version {given}"), reason })?;
        return Ok(TargetChoice { target, source: TargetSource::Flag });
    }
    if let Some(given) = env.filter(|value| !value.trim().is_empty()) {
        let target = versions::find_target(given)
            .map_err(|reason| TargetError { setting: format!("{ENV_VAR}={given}"), reason })?;
        return Ok(TargetChoice { target, source: TargetSource::Environment });
    }
    if let Some((config, setting)) = file.and_then(|config| Some((config, config.capz_version.as_ref()?))) {
        let location = config.location(setting.line);
        return Ok(TargetChoice { target: setting.value, source: TargetSource::File { location } });
    }
    Ok(TargetChoice { target: versions::default_target(), source: TargetSource::Default })
}

/// The controller images found in a management cluster (absent: no such Deployment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControllerImages {
    /// Image of CAPZ's manager container (`registry.k8s.io/cluster-api-azure/cluster-api-azure-controller:v1.27.0`).
    pub capz: Option<String>,
    /// Image of ASO's manager container.
    pub aso: Option<String>,
}

/// The tag of an image reference (`v1.27.0` of `host:5000/path/name:v1.27.0@sha256:...`), if it has one.
pub fn image_tag(image: &str) -> Option<&str> {
    let without_digest = image.split('@').next().unwrap_or(image);
    let name_start = without_digest.rfind('/').map_or(0, |slash| slash + 1);
    let (_, tag) = without_digest[name_start..].split_once(':')?;
    Some(tag).filter(|tag| !tag.is_empty())
}

/// The choice once the cluster's controller images are known, with what to tell the user: a pinned target stays (a
/// different release in the cluster is a warning naming both); else a supported CAPZ release running in the cluster
/// is the target; else the default, with a note why. An ASO other than the target's is noted.
pub fn with_cluster(pinned_or_default: TargetChoice, images: &ControllerImages) -> (TargetChoice, Vec<Notice>) {
    let mut notices = Vec::new();
    let detected = images.capz.as_deref().map(|image| {
        let found = image_tag(image).and_then(|tag| versions::find_target(tag).ok());
        (image, found)
    });
    let choice = match (detected, pinned_or_default.source.is_pinned()) {
        (Some((image, Some(running))), true) if running.name != pinned_or_default.target.name => {
            notices.push(Notice::Warning(format!(
                "the cluster runs CAPZ {} ({image}) but {} pins CAPZ {}; checking against CAPZ {}",
                image_tag(image).unwrap_or(running.name),
                pinned_or_default.source,
                pinned_or_default.target.name,
                pinned_or_default.target.name
            )));
            pinned_or_default
        }
        (Some((image, None)), true) => {
            notices.push(Notice::Warning(format!(
                "the cluster's CAPZ controller image {image} is no supported CAPZ release ({}); {} pins CAPZ {}",
                supported(),
                pinned_or_default.source,
                pinned_or_default.target.name
            )));
            pinned_or_default
        }
        (_, true) => pinned_or_default,
        (Some((image, Some(running))), false) => {
            TargetChoice { target: running, source: TargetSource::Cluster { image: image.to_string() } }
        }
        (Some((image, None)), false) => {
            notices.push(Notice::Note(format!(
                "the cluster's CAPZ controller image {image} is no supported CAPZ release ({}); checking against \
                 CAPZ {} (the default)",
                supported(),
                pinned_or_default.target.name
            )));
            pinned_or_default
        }
        (None, false) => {
            notices.push(Notice::Note(format!(
                "no CAPZ controller found in the cluster (Deployment capz-system/capz-controller-manager, or one \
                 labelled cluster.x-k8s.io/provider=infrastructure-azure); checking against CAPZ {} (the default)",
                pinned_or_default.target.name
            )));
            pinned_or_default
        }
    };
    if let Some(aso_image) = &images.aso
        && let Some(tag) = image_tag(aso_image)
        && minor_of(tag) != minor_of(choice.target.aso)
    {
        notices.push(Notice::Note(format!(
            "the cluster runs ASO {tag} ({aso_image}); CAPZ {} pins ASO {}, whose schemas are used",
            choice.target.name, choice.target.aso
        )));
    }
    (choice, notices)
}

/// Something to tell the user about the cluster's versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Warning(String),
    Note(String),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Warning(text) => write!(f, "warning: {text}"),
            Notice::Note(text) => write!(f, "note: {text}"),
        }
    }
}

fn supported() -> String {
    format!("supported: {}", versions::supported_names())
}

/// `v2.19` of `v2.19.0` (the text itself when it has no minor).
fn minor_of(version: &str) -> &str {
    match version.match_indices('.').nth(1) {
        Some((second_dot, _)) => &version[..second_dot],
        None => version,
    }
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
    fn flag_beats_environment_beats_file_beats_default() {
        let file = config("# pinned\ncapzVersion: v1.26\n");
        fn chosen(flag: Option<&str>, env: Option<&str>, file: Option<&RepoConfig>) -> TargetChoice {
            choose_target(flag, env, file).unwrap()
        }
        assert_eq!(chosen(Some("v1.27"), Some("v1.26"), Some(&file)).source, TargetSource::Flag);
        assert_eq!(chosen(Some("v1.27"), Some("v1.26"), Some(&file)).target.name, "v1.27");
        let from_env = chosen(None, Some("1.26.1"), Some(&config("capzVersion: v1.27\n")));
        assert_eq!((from_env.target.name, from_env.source), ("v1.26", TargetSource::Environment));
        let from_file = chosen(None, Some(""), Some(&file));
        assert_eq!(from_file.target.name, "v1.26");
        assert_eq!(
            from_file.describe(),
            "CAPZ v1.26 (v1.26.0, CAPI v1.13.3, ASO v2.18.0), from capzVersion at /repo/.kubectl-capz.yaml:2"
        );
        let default = chosen(None, None, Some(&config("crds: [x]\n")));
        assert_eq!((default.target, default.source), (versions::default_target(), TargetSource::Default));
        assert_eq!(
            choose_target(None, Some("v1.9"), None).unwrap_err().to_string(),
            "CAPZ_VERSION=v1.9: CAPZ version `v1.9` is not supported; supported: v1.28 (provisional), v1.27, v1.26"
        );
        assert_eq!(
            choose_target(Some("latest"), None, None).unwrap_err().to_string(),
            "--capz-version latest: CAPZ version `latest` is not supported; supported: v1.28 (provisional), v1.27, v1.26"
        );
    }

    #[test]
    fn image_tags_are_read_past_registry_ports_and_digests() {
        assert_eq!(
            image_tag("registry.k8s.io/cluster-api-azure/cluster-api-azure-controller:v1.27.0"),
            Some("v1.27.0")
        );
        assert_eq!(image_tag("localhost:5000/capz:v1.26.3@sha256:abc"), Some("v1.26.3"));
        assert_eq!(image_tag("localhost:5000/capz"), None);
        assert_eq!(image_tag("capz@sha256:abc"), None);
        assert_eq!(image_tag("capz:"), None);
    }

    #[test]
    fn the_cluster_decides_only_what_nobody_pinned() {
        let images = |capz: Option<&str>, aso: Option<&str>| ControllerImages {
            capz: capz.map(str::to_string),
            aso: aso.map(str::to_string),
        };
        let default = choose_target(None, None, None).unwrap();
        let pinned = choose_target(Some("v1.27"), None, None).unwrap();
        // Detected: the cluster's release.
        let (choice, notices) =
            with_cluster(default.clone(), &images(Some("reg/capz:v1.26.1"), Some("reg/aso:v2.18.0")));
        assert_eq!(choice.target.name, "v1.26");
        assert_eq!(choice.source, TargetSource::Cluster { image: "reg/capz:v1.26.1".into() });
        assert!(notices.is_empty(), "{notices:?}");
        // Pinned and different: a warning naming both.
        let (choice, notices) = with_cluster(pinned.clone(), &images(Some("reg/capz:v1.26.1"), None));
        assert_eq!(choice, pinned);
        assert_eq!(
            notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "warning: the cluster runs CAPZ v1.26.1 (reg/capz:v1.26.1) but --capz-version pins CAPZ v1.27; checking against CAPZ v1.27"
            ]
        );
        // Pinned and equal: nothing to say.
        assert!(with_cluster(pinned.clone(), &images(Some("reg/capz:v1.27.0"), Some("reg/aso:v2.19.0"))).1.is_empty());
        // Unknown or absent: a note, and the default.
        let (choice, notices) = with_cluster(default.clone(), &images(Some("reg/capz:v1.20.0"), None));
        assert_eq!(choice, default);
        assert!(notices[0].to_string().starts_with("note: the cluster's CAPZ controller image reg/capz:v1.20.0 is no supported CAPZ release (supported: v1.28 (provisional), v1.27, v1.26)"));
        let (choice, notices) = with_cluster(default.clone(), &images(None, None));
        assert_eq!(choice, default);
        assert!(notices[0].to_string().starts_with("note: no CAPZ controller found in the cluster"));
        // An ASO other than the one the target pins.
        let (_, notices) = with_cluster(pinned, &images(Some("reg/capz:v1.27.0"), Some("reg/aso:v2.17.1")));
        assert_eq!(
            notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "note: the cluster runs ASO v2.17.1 (reg/aso:v2.17.1); CAPZ v1.27 pins ASO v2.19.0, whose schemas are used"
            ]
        );
    }
}
