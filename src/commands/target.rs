//! The target of a run for every command that checks: `--capz-version`, `CAPZ_VERSION`, `.kubectl-capz.yaml`,
//! the cluster's CAPZ controller, the default; `-v` says which and why.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::TargetArgs;
use crate::cluster::Cluster;
use crate::config::{self, ControllerImages, RepoConfig, TargetChoice};
use crate::versions::{self, Target};

/// The target chosen for a run, the config file it read (if any), and whether to say so.
#[derive(Debug)]
pub(crate) struct RunTarget {
    pub choice: TargetChoice,
    pub config: Option<RepoConfig>,
    verbose: bool,
}

/// The target and its source as `-o json` reports show them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetReport {
    /// `v1.27`.
    pub capz_version: &'static str,
    pub capz: &'static str,
    pub capi: &'static str,
    pub aso: &'static str,
    /// The management cluster's Kubernetes whose core schemas are used.
    pub kubernetes_version: &'static str,
    /// Where the CAPZ version came from.
    pub source: String,
    /// The config file read, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
}

/// Where the config file search starts: the first input that is a path, else the current directory (stdin,
/// flavors).
pub(crate) fn search_start<S: AsRef<str>>(inputs: &[S]) -> PathBuf {
    inputs
        .iter()
        .map(AsRef::as_ref)
        .find(|input| *input != "-" && !input.is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
}

impl RunTarget {
    /// The pinned (or default) target for inputs starting at `start` ([`search_start`]).
    pub(crate) fn resolve(args: &TargetArgs, start: &Path) -> anyhow::Result<RunTarget> {
        let config = config::discover(start)?;
        let env = std::env::var(config::ENV_VAR).ok();
        let choice = config::choose_target(args.capz_version.as_deref(), env.as_deref(), config.as_ref())?;
        Ok(RunTarget { choice, config, verbose: args.verbose })
    }

    /// The target release.
    pub(crate) fn target(&self) -> &'static Target {
        self.choice.target
    }

    /// The management cluster's Kubernetes version: the config file's, else the newest bundled.
    pub(crate) fn kubernetes_version(&self) -> &'static str {
        self.config
            .as_ref()
            .and_then(|config| config.kubernetes_version.as_ref())
            .map_or(versions::KUBERNETES_VERSIONS[0], |setting| setting.value)
    }

    /// Reads the CAPZ and ASO controller images of `cluster` and applies them to the choice ([`config::with_cluster`]);
    /// warnings and notes go to stderr. A cluster that does not let us read them is a note, not an error.
    pub(crate) async fn detect(&mut self, cluster: &Cluster) {
        let images = match cluster.controller_images().await {
            Ok(images) => images,
            Err(err) => {
                eprintln!(
                    "note: cannot read the CAPZ controller's Deployment ({err}); the cluster's CAPZ release is unknown"
                );
                ControllerImages::default()
            }
        };
        if self.verbose {
            let shown = |image: &Option<String>| image.clone().unwrap_or_else(|| "not found".into());
            eprintln!("cluster: CAPZ controller {}, ASO controller {}", shown(&images.capz), shown(&images.aso));
        }
        let (choice, notices) = config::with_cluster(self.choice.clone(), &images);
        for notice in notices {
            eprintln!("{notice}");
        }
        self.choice = choice;
    }

    /// At `-v`: the target, its source and the config file, on stderr.
    pub(crate) fn announce(&self) {
        if !self.verbose {
            return;
        }
        eprintln!("target: {}", self.choice.describe());
        match &self.config {
            Some(config) => eprintln!("config: {}", config.path.display()),
            None => eprintln!("config: no {} found", config::FILE_NAME),
        }
    }

    /// For `-o json`/`-o yaml` reports.
    pub(crate) fn report(&self) -> TargetReport {
        let target = self.target();
        TargetReport {
            capz_version: target.name,
            capz: target.capz,
            capi: target.capi,
            aso: target.aso,
            kubernetes_version: self.kubernetes_version(),
            source: self.choice.source.to_string(),
            config: self.config.as_ref().map(|config| config.path.display().to_string()),
        }
    }

    /// The CRD folders of the config file (relative to it), each checked to exist.
    pub(crate) fn config_crd_dirs(&self) -> anyhow::Result<Vec<PathBuf>> {
        let Some(config) = &self.config else { return Ok(Vec::new()) };
        config
            .crds
            .iter()
            .map(|dir| {
                if dir.value.is_dir() {
                    Ok(dir.value.clone())
                } else {
                    Err(anyhow::anyhow!(
                        "{}: crds: `{}` is not a directory",
                        config.location(dir.line),
                        dir.value.display()
                    ))
                }
            })
            .collect()
    }
}
