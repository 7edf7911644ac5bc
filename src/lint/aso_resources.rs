//! Shape of `spec.resources` in the AzureASOManaged* kinds: mirrors `SetManagedClusterDefaults`,
//! `setManagedClusterAgentPoolProfiles` (pkg/mutators/azureasomanagedcontrolplane.go), `SetAgentPoolDefaults`
//! (pkg/mutators/azureasomanagedmachinepool.go) and `Pause` (pkg/mutators/mutator.go).

use serde_json::Value;

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CONTAINERSERVICE_GROUP, RECONCILE_POLICY as POLICY_ANNOTATION, spec_root};
use crate::json_pointer::escape_token;

pub(crate) const MANAGED_CLUSTER_COUNT: &str = "capz-managed-cluster-count";
pub(crate) const AGENT_POOL_RESOURCE_COUNT: &str = "capz-agent-pool-resource-count";
pub(crate) const AGENT_POOL_PROFILES: &str = "capz-agent-pool-profiles";
pub(crate) const RECONCILE_POLICY: &str = "capz-reconcile-policy";

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[MANAGED_CLUSTER_COUNT, AGENT_POOL_RESOURCE_COUNT, AGENT_POOL_PROFILES, RECONCILE_POLICY]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureASOManagedControlPlane", "AzureASOManagedControlPlaneTemplate"]) {
        let objects = bundle.embedded(index);
        let clusters: Vec<_> = objects.iter().filter(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedCluster")).collect();
        count_rule(
            sink,
            MANAGED_CLUSTER_COUNT,
            index,
            doc,
            &clusters,
            "ManagedCluster",
            "CAPZ stops with \"no containerservice.azure.com ManagedCluster defined in AzureASOManagedControlPlane spec.resources\"",
        );
        for cluster in clusters {
            if cluster.value.at("/spec/agentPoolProfiles").is_some() {
                sink.emit(
                    AGENT_POOL_PROFILES,
                    index,
                    &cluster.pointer("/spec/agentPoolProfiles"),
                    "spec.agentPoolProfiles must not be set in the ManagedCluster: CAPZ builds it from the \
                     AzureASOManagedMachinePools and fails with an Incompatible error otherwise. Remove it and define \
                     each pool as an AzureASOManagedMachinePool"
                        .to_string(),
                );
            }
        }
    }
    for (index, doc) in bundle.capz(&["AzureASOManagedMachinePool", "AzureASOManagedMachinePoolTemplate"]) {
        let objects = bundle.embedded(index);
        let pools: Vec<_> =
            objects.iter().filter(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool")).collect();
        count_rule(
            sink,
            AGENT_POOL_RESOURCE_COUNT,
            index,
            doc,
            &pools,
            "ManagedClustersAgentPool",
            "CAPZ stops with \"no containerservice.azure.com ManagedClustersAgentPools defined in AzureASOManagedMachinePool spec.resources\"",
        );
    }
    for (index, _) in bundle.docs.iter().enumerate() {
        for object in bundle.embedded(index) {
            check_reconcile_policy(object, sink);
        }
    }
}

fn count_rule(
    sink: &mut Sink<'_>,
    rule: &'static str,
    index: usize,
    doc: &crate::manifest::Document,
    found: &[&AsoObject<'_>],
    kind: &str,
    consequence: &str,
) {
    let root = spec_root(doc);
    let is_template = doc.kind().ends_with("Template");
    match found {
        // A template's resources are usually filled in by ClusterClass patches, so only a
        // non-empty list without the object says something.
        [] if is_template && doc.value.array_at(&format!("{root}/resources")).is_none_or(Vec::is_empty) => {}
        [] => sink.emit(
            rule,
            index,
            &format!("{root}/resources"),
            format!("{root}/resources has no containerservice.azure.com {kind}; {consequence}. Add exactly one"),
        ),
        [_] => {}
        [first, rest @ ..] => {
            for extra in rest {
                sink.emit(
                    rule,
                    index,
                    &extra.pointer(""),
                    format!(
                        "a second {kind} {:?} in {root}/resources: CAPZ only manages the first ({:?}); move it to \
                         its own {}",
                        extra.name(),
                        first.name(),
                        if kind == "ManagedCluster" {
                            "AzureASOManagedControlPlane"
                        } else {
                            "AzureASOManagedMachinePool"
                        }
                    ),
                );
            }
        }
    }
}

fn check_reconcile_policy(object: &AsoObject<'_>, sink: &mut Sink<'_>) {
    let Some(value) = object.annotation(POLICY_ANNOTATION) else {
        return;
    };
    if value.as_str() == Some("skip") {
        return;
    }
    let shown = match value {
        Value::String(text) => format!("{text:?}"),
        other => other.to_string(),
    };
    sink.emit(
        RECONCILE_POLICY,
        object.doc,
        &object.pointer(&format!("/metadata/annotations/{}", escape_token(POLICY_ANNOTATION))),
        format!(
            "{POLICY_ANNOTATION} is {shown}: when the Cluster is paused (e.g. by clusterctl move) CAPZ must set it to \
             \"skip\" and fails with an Incompatible error. Remove the annotation (or set \"skip\")"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, ids};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(yaml, &[MANAGED_CLUSTER_COUNT, AGENT_POOL_RESOURCE_COUNT, AGENT_POOL_PROFILES, RECONCILE_POLICY])
    }

    const ACP: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata:
      name: c1
      ANNOTATIONS
    spec:
      dnsPrefix: c1
      EXTRA
";

    #[test]
    fn one_clean_managed_cluster_passes() {
        assert!(findings(&ACP.replace("ANNOTATIONS", "").replace("EXTRA", "")).is_empty());
    }

    #[test]
    fn no_managed_cluster_fires() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1}
spec:
  version: v1.33.2
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata: {name: c1}
";
        let found = findings(yaml);
        assert_eq!(ids(&found), [MANAGED_CLUSTER_COUNT]);
        assert_eq!(found[0].path, "/spec/resources");
    }

    #[test]
    fn two_managed_clusters_fire_on_the_second() {
        let one = ACP.replace("ANNOTATIONS", "").replace("EXTRA", "");
        let second = "  - apiVersion: containerservice.azure.com/v1api20240901\n    kind: ManagedCluster\n    metadata: {name: c2}\n";
        let found = findings(&format!("{one}{second}"));
        assert_eq!(ids(&found), [MANAGED_CLUSTER_COUNT]);
        assert_eq!(found[0].path, "/spec/resources/1");
    }

    #[test]
    fn empty_template_resources_are_fine_but_machine_pool_needs_its_pool() {
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlaneTemplate
metadata: {name: t}
spec: {template: {spec: {}}}
";
        assert!(findings(template).is_empty());
        let pool = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: p}
spec: {resources: []}
";
        assert_eq!(ids(&findings(pool)), [AGENT_POOL_RESOURCE_COUNT]);
    }

    #[test]
    fn agent_pool_profiles_fire_even_when_empty() {
        for extra in ["agentPoolProfiles: []", "agentPoolProfiles: [{name: pool0, count: 1}]"] {
            let found = findings(&ACP.replace("ANNOTATIONS", "").replace("EXTRA", extra));
            assert_eq!(ids(&found), [AGENT_POOL_PROFILES], "{extra}");
            assert_eq!(found[0].path, "/spec/resources/0/spec/agentPoolProfiles");
            assert_eq!(found[0].line, 14);
        }
    }

    #[test]
    fn reconcile_policy_other_than_skip_fires() {
        let with = |policy: &str| {
            ACP.replace(
                "ANNOTATIONS",
                &format!("annotations: {{serviceoperator.azure.com/reconcile-policy: {policy}}}"),
            )
            .replace("EXTRA", "")
        };
        assert!(findings(&with("skip")).is_empty());
        let found = findings(&with("detach-on-delete"));
        assert_eq!(ids(&found), [RECONCILE_POLICY]);
        assert_eq!(found[0].path, "/spec/resources/0/metadata/annotations/serviceoperator.azure.com~1reconcile-policy");
        assert_eq!(found[0].line, 11);
    }
}
