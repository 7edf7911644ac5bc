//! What a management cluster serves beside its controllers: its Kubernetes version and the versions of CAPZ's and
//! ASO's CRDs.

use serde_json::Value;

use super::{Cluster, ClusterError, http_get};
use crate::config::ServedCrd;
use crate::json_pointer::At;
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
            let group = crd.str_at("/spec/group")?;
            if group != CAPZ_GROUP && !Target::is_aso_group(group) {
                return None;
            }
            let kind = crd.str_at("/spec/names/kind")?;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_capz_and_aso_crds_are_kept_with_their_served_versions() {
        let crd = |group: &str, kind: &str, versions: serde_json::Value| json!({"spec": {"group": group, "names": {"kind": kind}, "versions": versions}});
        let crds = [
            crd(
                "network.azure.com",
                "VirtualNetwork",
                json!([{"name": "v1api20201101", "served": false}, {"name": "v20250301", "served": true}]),
            ),
            crd("cluster.x-k8s.io", "Cluster", json!([{"name": "v1beta2", "served": true}])),
            crd(
                "infrastructure.cluster.x-k8s.io",
                "AzureASOManagedCluster",
                json!([{"name": "v1beta1", "served": true}]),
            ),
            crd("containerservice.azure.com", "ManagedCluster", json!([{"name": "v20251002preview", "served": true}])),
        ];
        let served: Vec<(String, String, Vec<String>)> =
            served_crds(&crds).into_iter().map(|c| (c.group, c.kind, c.versions)).collect();
        let row = |g: &str, k: &str, v: &str| (g.to_string(), k.to_string(), vec![v.to_string()]);
        assert_eq!(
            served,
            [
                row("containerservice.azure.com", "ManagedCluster", "v20251002preview"),
                row("infrastructure.cluster.x-k8s.io", "AzureASOManagedCluster", "v1beta1"),
                row("network.azure.com", "VirtualNetwork", "v20250301"),
            ]
        );
    }
}
