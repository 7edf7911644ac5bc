//! A cluster Argo CD knows, as an ApplicationSet's `clusters` generator sees it: declared by a cluster Secret of the
//! repository or under `argocd.clusters` of `.kubectl-capz.yaml` (which is why the type lives here, below both).

use std::collections::BTreeMap;

/// The label that makes a Secret an Argo CD cluster Secret, and its value.
pub const SECRET_TYPE_LABEL: &str = "argocd.argoproj.io/secret-type";
pub const SECRET_TYPE_CLUSTER: &str = "cluster";

/// One cluster Argo CD knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgoCluster {
    pub name: String,
    pub server: String,
    /// `project` of the Secret's data, when set.
    pub project: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// Where it is declared (`file:line`), for messages.
    pub declared_at: String,
}
