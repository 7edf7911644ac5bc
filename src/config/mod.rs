//! Repository settings: the `.kubectl-capz.yaml` config file and the choice of the target CAPZ release.

mod file;
mod target;

pub use file::{ConfigError, FILE_NAME, RepoConfig, Setting, discover, find, load, parse};
pub use target::{
    ControllerImages, ENV_VAR, Notice, TargetChoice, TargetError, TargetSource, choose_target, image_tag, with_cluster,
};
