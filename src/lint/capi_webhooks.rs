//! CAPI's ClusterClass and Cluster admission webhooks, the checks `plan` runs before planning
//! ([`crate::topology::admission`]): a class or topology Cluster CAPI rejects is never valid.

use super::Sink;
use super::bundle::{Bundle, CAPI_GROUP};
use crate::json_pointer::At;
use crate::topology::admission::{class_rejections, cluster_rejections, pointer_of};

pub(crate) const CLUSTERCLASS_WEBHOOK: &str = "capi-clusterclass-webhook";
pub(crate) const CLUSTER_WEBHOOK: &str = "capi-cluster-webhook";

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if sink.wants(&[CLUSTERCLASS_WEBHOOK]) {
        for (index, doc) in bundle.of_kind(CAPI_GROUP, &["ClusterClass"]) {
            for rejection in class_rejections(&doc.value) {
                let pointer = pointer_of(&doc.value, &rejection.path);
                sink.emit(
                    CLUSTERCLASS_WEBHOOK,
                    index,
                    &pointer,
                    format!("CAPI rejects the ClusterClass: {}", rejection.message),
                );
            }
        }
    }
    if sink.wants(&[CLUSTER_WEBHOOK]) {
        for (index, doc) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
            if doc.value.at("/spec/topology").is_none() {
                continue;
            }
            let (class_ns, class_name) = crate::topology::plan::class_ref(&doc.value);
            let class = bundle
                .of_kind(CAPI_GROUP, &["ClusterClass"])
                .find(|(_, c)| c.name() == class_name && c.namespace().is_none_or(|ns| ns == class_ns));
            let Some((_, class)) = class else { continue };
            for rejection in cluster_rejections(&doc.value, &class.value) {
                let pointer = pointer_of(&doc.value, &rejection.path);
                sink.emit(
                    CLUSTER_WEBHOOK,
                    index,
                    &pointer,
                    format!("CAPI rejects the Cluster (ClusterClass {class_ns}/{class_name}): {}", rejection.message),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::test_support::findings_of as findings;

    const CLASS: &str = r#"
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: demo, namespace: default}
spec:
  controlPlane:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp}
  infrastructure:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedClusterTemplate, name: c}
  workers:
    machinePools:
    - class: default
      template:
        bootstrap:
          ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta2, kind: KubeadmConfigTemplate, name: b}
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: p}
  variables:
  - name: location
    required: true
    schema: {openAPIV3Schema: {type: string}}
  patches:
  - name: files
    definitions:
    - selector:
        apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
        kind: KubeadmConfigTemplate
        matchResources: {machinePoolClass: {names: [default]}}
      jsonPatches:
      - {op: add, path: /spec/template/spec/files, value: []}
"#;

    #[test]
    fn a_selector_left_behind_its_reference_is_rejected() {
        let found = findings(CLASS, CLUSTERCLASS_WEBHOOK);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("matches neither the bootstrap ref nor the infrastructure ref"), "{found:?}");
        assert_eq!(found[0].path, "/spec/patches/0/definitions/0/selector/matchResources/machinePoolClass/names/0");
        let fixed = CLASS.replace("bootstrap.cluster.x-k8s.io/v1beta1", "bootstrap.cluster.x-k8s.io/v1beta2");
        assert!(findings(&fixed, CLUSTERCLASS_WEBHOOK).is_empty());
    }

    #[test]
    fn a_topology_cluster_is_checked_against_its_class() {
        let fixed = CLASS.replace("bootstrap.cluster.x-k8s.io/v1beta1", "bootstrap.cluster.x-k8s.io/v1beta2");
        let cluster = r#"
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  topology:
    class: demo
    version: not-a-version
    workers:
      machinePools:
      - {class: default, name: mp0}
"#;
        let found = findings(&format!("{fixed}{cluster}"), CLUSTER_WEBHOOK);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert!(messages.iter().any(|m| m.contains("required variable \"location\" must be set")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("version must be a valid semantic version")), "{messages:?}");
        let valid = cluster
            .replace("not-a-version", "v1.33.1")
            .replace("    workers:", "    variables: [{name: location, value: westeurope}]\n    workers:");
        assert!(findings(&format!("{fixed}{valid}"), CLUSTER_WEBHOOK).is_empty());
    }
}
