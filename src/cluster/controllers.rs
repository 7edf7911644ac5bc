//! The CAPZ and ASO controllers a management cluster runs: the images of their Deployments' manager containers.

use serde_json::Value;

use super::{Cluster, ClusterError, Resource};
use crate::config::ControllerImages;
use crate::json_pointer::At;

/// Where `clusterctl init --infrastructure azure` puts CAPZ (and, with it, ASO).
const CAPZ_NAMESPACE: &str = "capz-system";
const CAPZ_DEPLOYMENT: &str = "capz-controller-manager";
const ASO_DEPLOYMENT: &str = "azureserviceoperator-controller-manager";
/// The label clusterctl puts on every object of the provider's components, ASO's included.
const PROVIDER_LABEL: &str = "cluster.x-k8s.io/provider=infrastructure-azure";

fn deployments() -> Resource {
    Resource {
        api_version: "apps/v1".into(),
        group: "apps".into(),
        version: "v1".into(),
        kind: "Deployment".into(),
        plural: "deployments".into(),
        namespaced: true,
    }
}

impl Cluster {
    /// The images of CAPZ's and ASO's controllers: the Deployments `capz-controller-manager` and
    /// `azureserviceoperator-controller-manager` in `capz-system`, else those names among the Deployments labelled
    /// `cluster.x-k8s.io/provider=infrastructure-azure` in any namespace.
    pub async fn controller_images(&self) -> Result<ControllerImages, ClusterError> {
        let resource = deployments();
        let capz = self.get(&resource, Some(CAPZ_NAMESPACE), CAPZ_DEPLOYMENT).await?;
        let aso = self.get(&resource, Some(CAPZ_NAMESPACE), ASO_DEPLOYMENT).await?;
        let mut images =
            ControllerImages { capz: capz.as_ref().and_then(manager_image), aso: aso.as_ref().and_then(manager_image) };
        if images.capz.is_none() || images.aso.is_none() {
            let labelled = self.list_selected(&resource, None, Some(PROVIDER_LABEL)).await?;
            let named = |name: &str| {
                let mut found: Vec<&Value> =
                    labelled.iter().filter(|d| d.str_at("/metadata/name") == Some(name)).collect();
                // Deterministic when several namespaces hold one: the first by namespace.
                found.sort_by_key(|d| d.str_at("/metadata/namespace").map(str::to_string));
                found.first().and_then(|d| manager_image(d))
            };
            images.capz = images.capz.or_else(|| named(CAPZ_DEPLOYMENT));
            images.aso = images.aso.or_else(|| named(ASO_DEPLOYMENT));
        }
        Ok(images)
    }
}

/// The image of the container named `manager` (as in CAPZ's and ASO's manifests), else of the first container.
fn manager_image(deployment: &Value) -> Option<String> {
    let containers = deployment.array_at("/spec/template/spec/containers")?;
    let manager = containers
        .iter()
        .find(|c| c.get("name").and_then(Value::as_str) == Some("manager"))
        .or_else(|| containers.first())?;
    manager.get("image").and_then(Value::as_str).map(str::to_string)
}
