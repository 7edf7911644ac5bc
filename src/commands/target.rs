//! The target of a run for every command that checks: `--capz-version`, `CAPZ_VERSION`, `.kubectl-capz.yaml`,
//! the cluster's CAPZ controller, the default; the management cluster's Kubernetes release likewise
//! (`--management-kubernetes-version`, the file, the cluster's API server, the newest bundled); `-v` says which
//! and why.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::TargetArgs;
use crate::cluster::Cluster;
use crate::config::aso_crds::{Declaration, Declarations};
use crate::config::{self, ControllerImages, KubernetesChoice, RepoConfig, TargetChoice};
use crate::escape;
use crate::schema::{AdditionalAsoCrds, Registry};
use crate::target_schemas::TargetSchemas;
use crate::versions::Target;

/// The target chosen for a run, the config file it read (if any), and whether to say so.
#[derive(Debug)]
pub(crate) struct RunTarget {
    pub choice: TargetChoice,
    pub config: Option<RepoConfig>,
    /// The management cluster's Kubernetes release and why.
    pub kubernetes: KubernetesChoice,
    /// Where `ADDITIONAL_ASO_CRDS` was set (the config file's `additionalAsoCrds`, or what `validate` read).
    aso_crds: Vec<Declaration>,
    verbose: bool,
    /// `--no-config`: no config file was looked for.
    no_config: bool,
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
    /// Why the target is provisional (its CAPZ release is not published), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional: Option<&'static str>,
    /// The management cluster's Kubernetes whose core schemas are used.
    pub kubernetes_version: &'static str,
    /// Where the CAPZ version came from.
    pub source: String,
    /// The config file read, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// What `ADDITIONAL_ASO_CRDS` adds to CAPZ's ASO crd-pattern, and where each value was set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_aso_crds: Vec<AsoCrdsReport>,
}

/// One place that sets `ADDITIONAL_ASO_CRDS`, as reports show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AsoCrdsReport {
    pub value: String,
    /// `FILE:LINE`.
    pub location: String,
    /// What holds it.
    pub holder: String,
}

/// A line (or a few) on stderr, escaped: config paths, controller images and versions came from the repository and
/// the cluster.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", crate::escape::lines(&format!($($arg)*)))
    };
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
        let config = match (&args.config_file, args.no_config) {
            (_, true) => None,
            // Kept outside the tree it configures (the base branch's, for a pull request): its paths start at the
            // current directory, the checkout's root in CI.
            (Some(file), false) => Some(config::load_with_root(file, Path::new("."))?),
            (None, false) => config::discover(start)?,
        };
        let env = std::env::var(config::ENV_VAR).ok();
        fn several(value: &Option<String>) -> Option<&str> {
            value.as_deref().filter(|value| value.contains(','))
        }
        if let Some(list) = several(&args.capz_version) {
            anyhow::bail!(
                "--capz-version {}: this command checks against one CAPZ target; only `kubectl capz validate` \
                 judges a run against several",
                escape::one_line(list)
            );
        }
        if let Some(list) = several(&env).filter(|_| args.capz_version.is_none()) {
            anyhow::bail!(
                "{}={}: this command checks against one CAPZ target; only `kubectl capz validate --capz-version` \
                 judges a run against several",
                config::ENV_VAR,
                escape::one_line(list)
            );
        }
        let choice = config::choose_target(args.capz_version.as_deref(), env.as_deref(), config.as_ref())?;
        let kubernetes = config::choose_kubernetes(args.kubernetes_flag(), config.as_ref())?;
        let aso_crds = Declarations::default().with_config(config.as_ref()).found;
        Ok(RunTarget { choice, config, kubernetes, aso_crds, verbose: args.verbose, no_config: args.no_config })
    }

    /// The target release.
    pub(crate) fn target(&self) -> &'static Target {
        self.choice.target
    }

    /// The management cluster's Kubernetes release (`v1.36`).
    pub(crate) fn kubernetes_version(&self) -> &'static str {
        self.kubernetes.version
    }

    /// The built-in schemas of the target and of the management cluster's Kubernetes release, the target's ASO
    /// crd-pattern widened by the config file's `additionalAsoCrds`.
    pub(crate) fn registry(&self) -> anyhow::Result<Registry> {
        let mut registry = Registry::for_target_and_kubernetes(self.target(), self.kubernetes_version())?;
        let declared = Declarations { found: self.aso_crds.clone(), notes: Vec::new() };
        if let Some(decided) = declared.decided() {
            registry.set_additional_aso_crds(AdditionalAsoCrds { pattern: decided.pattern, origin: decided.origin });
        }
        Ok(registry)
    }

    /// Widens the ASO crd-pattern of `registry` with what the inputs declare (the config file's `additionalAsoCrds`
    /// decides when it is set), says where each value came from at `-v`, and warns (on stderr) about entries that
    /// make ASO refuse to start.
    pub(crate) fn widen_aso_crd_pattern(&mut self, registry: &mut Registry, declared: Declarations) {
        let declared = declared.with_config(self.config.as_ref());
        if self.verbose {
            for declaration in &declared.found {
                let (value, from) = (declaration.shown_value(), declaration.describe());
                eprintln!("additional ASO CRDs: {}, from {}", escape::one_line(value), escape::one_line(&from));
            }
            for note in &declared.notes {
                eprintln!("note: {note}");
            }
        }
        for refused in declared.refused_entries() {
            eprintln!("warning: {refused}");
        }
        if let Some(decided) = declared.decided() {
            registry.set_additional_aso_crds(AdditionalAsoCrds { pattern: decided.pattern, origin: decided.origin });
        }
        self.aso_crds = declared.found;
    }

    /// The same schemas ([`RunTarget::registry`]) as one value for the run, with what the checks build from them
    /// (the fleet's validator, migrate's translation and the patch rules share it).
    pub(crate) fn schemas(&self) -> anyhow::Result<&'static TargetSchemas> {
        Ok(TargetSchemas::of_registry(self.target(), self.registry()?))
    }

    /// Reads what `cluster` runs and serves and applies it to the choices, warnings and notes on stderr: the CAPZ
    /// and ASO controller images ([`config::with_cluster`]), the API server's version
    /// ([`config::with_server_version`]) and the versions its CAPZ and ASO CRDs serve, compared with the target's
    /// ([`config::served_version_mismatches`]). What the cluster does not let us read is a note, not an error.
    pub(crate) async fn detect(&mut self, cluster: &Cluster) {
        self.detect_controllers(cluster).await;
        match cluster.server_version().await {
            Ok(server_version) => {
                if self.verbose {
                    say!("cluster: Kubernetes {server_version}");
                }
                let (kubernetes, notices) = config::with_server_version(self.kubernetes.clone(), &server_version);
                notices.iter().for_each(|notice| say!("{notice}"));
                self.kubernetes = kubernetes;
            }
            Err(err) => say!("note: cannot read the cluster's Kubernetes version ({err})"),
        }
        match cluster.served_capz_and_aso_crds().await {
            Ok(served) => {
                let schemas = Registry::for_target(self.target());
                let notices = config::served_version_mismatches(&self.choice, &served, |group, kind| {
                    schemas.versions_of(group, kind)
                });
                notices.iter().for_each(|notice| say!("{notice}"));
            }
            Err(err) => {
                say!("note: cannot read the cluster's CRDs ({err}); their served versions are not compared")
            }
        }
    }

    /// The controller images part of [`RunTarget::detect`].
    async fn detect_controllers(&mut self, cluster: &Cluster) {
        let images = match cluster.controller_images().await {
            Ok(images) => images,
            Err(err) => {
                say!(
                    "note: cannot read the CAPZ controller's Deployment ({err}); the cluster's CAPZ release is unknown"
                );
                ControllerImages::default()
            }
        };
        if self.verbose {
            let shown = |image: &Option<String>| image.clone().unwrap_or_else(|| "not found".into());
            say!("cluster: CAPZ controller {}, ASO controller {}", shown(&images.capz), shown(&images.aso));
        }
        let (choice, notices) = config::with_cluster(self.choice.clone(), &images);
        for notice in notices {
            say!("{notice}");
        }
        self.choice = choice;
    }

    /// A provisional target, always: a note saying why; at `-v`: the target, its source and the config file, on
    /// stderr.
    pub(crate) fn announce(&self) {
        if let Some(reason) = self.target().provisional {
            say!("note: CAPZ {} is a provisional target: {reason}", self.target().name);
        }
        if !self.verbose {
            return;
        }
        say!("target: {}", self.choice.describe());
        say!("kubernetes: {}", self.kubernetes.describe());
        match &self.config {
            Some(config) => say!("config: {}", config.path.display()),
            None if self.no_config => say!("config: none read (--no-config)"),
            None => say!("config: no {} found", config::FILE_NAME),
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
            provisional: target.provisional,
            kubernetes_version: self.kubernetes_version(),
            source: self.choice.source.to_string(),
            config: self.config.as_ref().map(|config| config.path.display().to_string()),
            additional_aso_crds: self
                .aso_crds
                .iter()
                .map(|d| AsoCrdsReport {
                    value: d.shown_value().to_string(),
                    location: d.location.clone(),
                    holder: d.holder.clone(),
                })
                .collect(),
        }
    }

    /// The CRD folders of the config file (relative to its root), each checked to exist and, symlinks resolved, to
    /// be inside that root: the file may come with a pull request.
    pub(crate) fn config_crd_dirs(&self) -> anyhow::Result<Vec<PathBuf>> {
        let Some(config) = &self.config else { return Ok(Vec::new()) };
        let root = std::fs::canonicalize(config.root())
            .map_err(|err| anyhow::anyhow!("cannot read the folder of {}: {err}", config.path.display()))?;
        config
            .crds
            .iter()
            .map(|dir| {
                if !dir.value.is_dir() {
                    return Err(anyhow::anyhow!(
                        "{}: crds: `{}` is not a directory",
                        config.location(dir.line),
                        dir.value.display()
                    ));
                }
                match std::fs::canonicalize(&dir.value) {
                    Ok(real) if real.starts_with(&root) => Ok(dir.value.clone()),
                    _ => Err(anyhow::anyhow!(
                        "{}: crds: `{}` leads outside the repository (the folder of {}) through a symlink; only its \
                         own folders are read, give others with --crds DIR",
                        config.location(dir.line),
                        dir.value.display(),
                        config::FILE_NAME
                    )),
                }
            })
            .collect()
    }
}
