//! `--aks-versions FILE` and `aksVersions:` in `.kubectl-capz.yaml`: what AKS offers in the clusters' region
//! (`az aks get-versions --location L -o json`), read once for the run.

use std::path::Path;

use anyhow::{anyhow, bail};

use crate::aks_versions::RegionVersions;
use crate::config::{self, RepoConfig};
use crate::escape;

/// The region's versions of the run: `--aks-versions FILE` (the command line's: a file anywhere), else the config
/// file's `aksVersions` (a file of the repository: it may come with a pull request, so it must stay inside the
/// config file's folder, symlinks resolved). Kept for the whole run.
pub(crate) fn region_versions(
    flag: Option<&Path>,
    config: Option<&RepoConfig>,
) -> anyhow::Result<Option<&'static RegionVersions>> {
    let (path, place) = match (flag, config.and_then(|config| Some((config, config.aks_versions.as_ref()?)))) {
        (Some(path), _) => (path.to_path_buf(), format!("--aks-versions {}", path.display())),
        (None, Some((config, setting))) => {
            let place = format!("{}: aksVersions", config.location(setting.line));
            let root = std::fs::canonicalize(config.root())
                .map_err(|err| anyhow!("cannot read the folder of {}: {err}", config.path.display()))?;
            match std::fs::canonicalize(&setting.value) {
                Ok(real) if real.starts_with(&root) => {}
                Ok(_) => bail!(
                    "{}: `{}` leads outside the repository (the folder of {}) through a symlink; only its own files \
                     are read, give others with --aks-versions FILE",
                    escape::one_line(&place),
                    escape::one_line(&setting.value.display().to_string()),
                    config::FILE_NAME
                ),
                Err(err) => bail!(
                    "{}: cannot read `{}`: {err}",
                    escape::one_line(&place),
                    escape::one_line(&setting.value.display().to_string())
                ),
            }
            (setting.value.clone(), place)
        }
        (None, None) => return Ok(None),
    };
    let shown = path.display().to_string();
    let shown = escape::one_line(&shown);
    let text = crate::manifest::read_input_file(&path)
        .map_err(|err| anyhow!("{}: cannot read `{shown}`: {err}", escape::one_line(&place)))?;
    let mut region = RegionVersions::from_json(&text).map_err(|err| anyhow!("{}: {err}", escape::one_line(&place)))?;
    region.source = path.display().to_string();
    Ok(Some(Box::leak(Box::new(region))))
}
