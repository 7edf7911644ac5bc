//! Repository settings: the `.kubectl-capz.yaml` config file, the choice of the target CAPZ release and of the
//! management cluster's Kubernetes release, how a cluster's versions compare with them, the ASO kinds the
//! repository adds to CAPZ's (`ADDITIONAL_ASO_CRDS`) and the Argo CD clusters it declares.

pub mod argo_cluster;
pub mod aso_crds;
mod file;
mod kubernetes;
mod served;
mod target;

pub use file::{ConfigError, FILE_NAME, RepoConfig, Setting, discover, find, load, load_with_root, parse};
pub use kubernetes::{
    KubernetesChoice, KubernetesSource, KubernetesVersionError, choose_kubernetes, with_server_version,
};
pub use served::{ServedCrd, served_version_mismatches};
pub use target::{
    ControllerImages, ENV_VAR, Notice, TargetChoice, TargetError, TargetSource, choose_target, image_tag, with_cluster,
};
