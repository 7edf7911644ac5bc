//! What a management cluster serves beside its controllers: its Kubernetes version and the versions of CAPZ's and
//! ASO's CRDs.

use serde_json::Value;

use super::{Cluster, ClusterError, http_get};
use crate::config::ServedCrd;
use crate::versions::Target;

/// CAPZ's API group.
const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";

impl Cluster {
    /// The API server's `gitVersion` (`/version`): `v1.36.3`.
    pub async fn server_version(&self) -> Result<String, ClusterError> {
        let version = self.send_json("read the server version", || http_get("/version")).await?;
        version.get("gitVersion").and_then(Value::as_str).map(str::to_string).ok_or_else(|| ClusterError::Other {
            what: "read the server version".into(),
            message: "the answer has no gitVersion".into(),
        })
    }

    /// The served versions of every CRD of CAPZ's group and of ASO's groups, sorted by group and kind.
    pub async fn served_capz_and_aso_crds(&self) -> Result<Vec<ServedCrd>, ClusterError> {
        Ok(served_crds(&self.custom_resource_definitions().await?))
    }
}

/// The CRDs of CAPZ's and ASO's groups among `crds`, with the versions they serve, sorted by group and kind.
fn served_crds(crds: &[Value]) -> Vec<ServedCrd> {
    let mut served: Vec<ServedCrd> = crds
        .iter()
        .filter_map(|crd| {
            let group = crd.pointer("/spec/group")?.as_str()?;
            if group != CAPZ_GROUP && !Target::is_aso_group(group) {
                return None;
            }
            let kind = crd.pointer("/spec/names/kind")?.as_str()?;
            let versions = crd
                .pointer("/spec/versions")?
                .as_array()?
                .iter()
                .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
                .filter_map(|v| v.get("name")?.as_str().map(str::to_string))
                .collect();
            Some(ServedCrd { group: group.to_string(), kind: kind.to_string(), versions })
        })
        .collect();
    served.sort_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
    served
}
