//! References that must resolve inside the bundle: CAPI's lookups of controlPlaneRef, infrastructureRef, configRef
//! and ClusterClass template refs (`external.GetObjectFromContractVersionedRef` / `external.Get` of CAPI v1.14: by
//! API group, kind and name, in the referencing object's namespace), references CAPI can never look up (no kind, no
//! API group, no name), and ASO's `spec.owner` of the resources CAPZ applies (controllers/resource_reconciler.go
//! `reconcile` puts them in the CAPZ object's namespace).

use serde_json::Value;

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CAPI_GROUP, CLUSTER_NAME_LABEL, CONTAINERSERVICE_GROUP, ObjRef};

pub(crate) const UNRESOLVED_REF: &str = "capi-unresolved-ref";
pub(crate) const INCOMPLETE_REF: &str = "capi-incomplete-ref";
pub(crate) const UNRESOLVED_OWNER: &str = "aso-unresolved-owner";
pub(crate) const MISNAMED_OWNER: &str = "aso-misnamed-owner";

/// Reference fields per CAPI kind (v1beta1 and v1beta2 shapes); `*` stands for every list item.
const CLUSTER_REFS: &[&str] = &["/spec/controlPlaneRef", "/spec/infrastructureRef"];
const MACHINE_POOL_REFS: &[&str] =
    &["/spec/template/spec/infrastructureRef", "/spec/template/spec/bootstrap/configRef"];
const MACHINE_REFS: &[&str] = &["/spec/infrastructureRef", "/spec/bootstrap/configRef"];
const CLUSTER_CLASS_REFS: &[&str] = &[
    "/spec/controlPlane/ref",
    "/spec/controlPlane/templateRef",
    "/spec/controlPlane/machineInfrastructure/ref",
    "/spec/controlPlane/machineInfrastructure/templateRef",
    "/spec/infrastructure/ref",
    "/spec/infrastructure/templateRef",
    "/spec/workers/machinePools/*/template/bootstrap/ref",
    "/spec/workers/machinePools/*/template/infrastructure/ref",
    "/spec/workers/machinePools/*/bootstrap/templateRef",
    "/spec/workers/machinePools/*/infrastructure/templateRef",
    "/spec/workers/machineDeployments/*/template/bootstrap/ref",
    "/spec/workers/machineDeployments/*/template/infrastructure/ref",
    "/spec/workers/machineDeployments/*/bootstrap/templateRef",
    "/spec/workers/machineDeployments/*/infrastructure/templateRef",
];

/// Expands `*` in a pointer pattern against the document.
fn expand(value: &Value, pattern: &str) -> Vec<String> {
    let mut pointers = vec![String::new()];
    for segment in pattern.split('/').skip(1) {
        let mut next = Vec::new();
        for pointer in pointers {
            if segment == "*" {
                if let Some(Value::Array(items)) = value.at(&pointer) {
                    next.extend((0..items.len()).map(|index| format!("{pointer}/{index}")));
                }
            } else {
                next.push(format!("{pointer}/{segment}"));
            }
        }
        pointers = next;
    }
    pointers.into_iter().filter(|pointer| value.at(pointer).is_some()).collect()
}

/// The kinds whose references CAPI's controllers look up, and where the references are.
fn ref_patterns(kind: &str) -> &'static [&'static str] {
    match kind {
        "Cluster" => CLUSTER_REFS,
        "MachinePool" | "MachineDeployment" | "MachineSet" => MACHINE_POOL_REFS,
        "Machine" => MACHINE_REFS,
        _ => CLUSTER_CLASS_REFS,
    }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if sink.wants(&[UNRESOLVED_REF, INCOMPLETE_REF]) {
        let kinds = ["Cluster", "MachinePool", "MachineDeployment", "MachineSet", "Machine", "ClusterClass"];
        for (index, doc) in bundle.of_kind(CAPI_GROUP, &kinds) {
            for pattern in ref_patterns(doc.kind()) {
                for pointer in expand(&doc.value, pattern) {
                    let Some(value) = doc.value.at(&pointer) else { continue };
                    if incomplete(bundle, index, &pointer, value, sink) {
                        continue;
                    }
                    let Some(reference) = ObjRef::parse(value) else {
                        continue;
                    };
                    if bundle.resolve_capi(index, &reference).is_some() {
                        continue;
                    }
                    let namespace = doc.namespace();
                    let where_ = namespace.map(|ns| format!(" in namespace {ns:?}")).unwrap_or_default();
                    let shown = match reference.group.as_deref() {
                        Some(group) if !group.is_empty() => {
                            format!("{} ({group})", reference.display())
                        }
                        _ => reference.display(),
                    };
                    // A v1beta1 reference's namespace is dropped by the conversion to v1beta2 (CAPI's storage
                    // version): CAPI looks in the object's own namespace.
                    let ignored = match (reference.namespace.as_deref(), namespace) {
                        (Some(written), Some(own)) if written != own => format!(
                            " (CAPI looks it up in the {}'s own namespace: the reference's `namespace: {written}` is \
                             dropped when CAPI converts it to v1beta2, whose references have no namespace)",
                            doc.kind()
                        ),
                        _ => String::new(),
                    };
                    sink.emit(
                        UNRESOLVED_REF,
                        index,
                        &format!("{pointer}/name"),
                        format!(
                            "{shown}{where_} is not in the bundle{ignored}; CAPI waits for it forever. Add it or fix \
                             the reference"
                        ),
                    );
                }
            }
        }
    }
    if sink.wants(&[UNRESOLVED_OWNER, MISNAMED_OWNER]) {
        for object in bundle.aso_objects() {
            check_owner(bundle, object, sink);
        }
    }
}

/// Reports a v1beta1 reference (an ObjectReference, whose fields the CRD leaves optional) that CAPI can never look
/// up: set, but without a kind, an API group (`apiVersion` with a group) or a name. CAPI v1.14 converts it to a
/// v1beta2 reference (`convertToContractVersionedObjectReference`, core/webhooks/conversion/common.go) and looks it
/// up through the CRD of its group and kind (`contract.GetGKMetadata`, named `<plural>.<group>`): none exists for an
/// empty kind or group. (A v1beta2 reference without them is rejected at admission: its CRD requires all three.)
/// Says whether it reported.
fn incomplete(bundle: &Bundle<'_>, index: usize, pointer: &str, value: &Value, sink: &mut Sink<'_>) -> bool {
    let doc = &bundle.docs[index];
    if doc.version() == "v1beta2" {
        return false;
    }
    let Some(map) = value.as_object() else { return false };
    let text = |key: &str| map.get(key).and_then(Value::as_str).filter(|text| !text.is_empty());
    let (kind, name, api_version) = (text("kind"), text("name"), text("apiVersion"));
    let group = api_version.and_then(|api_version| api_version.rsplit_once('/')).map(|(group, _)| group);
    if kind.is_none() && name.is_none() && api_version.is_none() {
        // Not set: CAPI's `IsDefined` is false (a Cluster may leave a reference out).
        return false;
    }
    let mut missing = Vec::new();
    if kind.is_none() {
        missing.push("no kind".to_string());
    }
    match (api_version, group) {
        (None, _) => missing.push("no apiVersion".to_string()),
        (Some(api_version), None) => missing.push(format!("an apiVersion without an API group ({api_version:?})")),
        _ => {}
    }
    if name.is_none() {
        missing.push("no name".to_string());
    }
    if missing.is_empty() {
        return false;
    }
    let field = pointer.rsplit('/').next().unwrap_or(pointer);
    let named = name.map(|name| format!(" names {name:?} but")).unwrap_or_default();
    let suggestion = name
        .map(|name| {
            // What the object's other references point at is not what this one was meant to.
            let taken: Vec<usize> = ref_patterns(doc.kind())
                .iter()
                .flat_map(|pattern| expand(&doc.value, pattern))
                .filter(|other| other != pointer)
                .filter_map(|other| doc.value.at(&other).and_then(ObjRef::parse))
                .filter_map(|reference| bundle.resolve_capi(index, &reference))
                .collect();
            let candidates: Vec<usize> = bundle
                .named(name, doc.namespace())
                .filter(|&other| other != index && !taken.contains(&other))
                .filter(|&other| {
                    let candidate = &bundle.docs[other];
                    kind.is_none_or(|kind| kind == candidate.kind())
                        && group.is_none_or(|group| group == bundle.group(other))
                        && bundle.group(other).ends_with("cluster.x-k8s.io")
                })
                .collect();
            match candidates.as_slice() {
                [only] => {
                    let candidate = &bundle.docs[*only];
                    format!(
                        " (the bundle's {} {name:?} is `apiVersion: {}`, `kind: {}`)",
                        candidate.kind(),
                        candidate.api_version(),
                        candidate.kind()
                    )
                }
                _ => String::new(),
            }
        })
        .unwrap_or_default();
    sink.emit(
        INCOMPLETE_REF,
        index,
        pointer,
        format!(
            "{field}{named} has {}: CAPI looks a reference up through the CRD of its API group and kind, which \
             does not exist for it, so it never resolves and the {} never progresses; set apiVersion, kind and \
             name{suggestion}",
            missing.join(", "),
            doc.kind(),
        ),
    );
    true
}

/// The owner kind ASO expects for the kinds CAPZ's flavors use; `None` for other kinds (any ASO object
/// of that name then counts).
fn expected_owner(object: &AsoObject<'_>) -> Option<(&'static str, &'static str)> {
    if object.group() != CONTAINERSERVICE_GROUP {
        return None;
    }
    match object.kind() {
        "ManagedCluster" | "Fleet" => Some(("resources.azure.com", "ResourceGroup")),
        "ManagedClustersAgentPool" | "MaintenanceConfiguration" | "TrustedAccessRoleBinding" => {
            Some((CONTAINERSERVICE_GROUP, "ManagedCluster"))
        }
        _ => None,
    }
}

fn check_owner(bundle: &Bundle<'_>, object: &AsoObject<'_>, sink: &mut Sink<'_>) {
    let Some(owner) = object.value.object_at("/spec/owner") else {
        return;
    };
    // An ARM id points outside Kubernetes.
    if owner.get("armId").and_then(Value::as_str).is_some_and(|id| !id.is_empty()) {
        return;
    }
    let Some(name) = owner.get("name").and_then(Value::as_str).filter(|name| !name.is_empty()) else {
        return;
    };
    let explicit = match (owner.get("group").and_then(Value::as_str), owner.get("kind").and_then(Value::as_str)) {
        (Some(group), Some(kind)) => Some((group, kind)),
        _ => None,
    };
    let expected = explicit.or_else(|| expected_owner(object));
    let namespace = bundle.namespace_of(object);
    let found = bundle.aso_named(name, namespace).any(|candidate| {
        !(candidate.doc == object.doc && candidate.slot == object.slot)
            && expected.is_none_or(|(group, kind)| candidate.is(group, kind))
    });
    if found {
        return;
    }
    let what = expected.map(|(_, kind)| kind).unwrap_or("ASO object");
    let where_ = namespace.map(|ns| format!(" in namespace {ns:?}")).unwrap_or_default();
    let pointer = object.pointer("/spec/owner/name");
    // The owner CAPZ applies with the same cluster, under another name: a typo, ASO waits forever.
    let same_set: Vec<&AsoObject<'_>> = match expected {
        Some((group, kind)) if object.slot.is_some() => bundle
            .aso_objects()
            .iter()
            .filter(|candidate| candidate.slot.is_some() && candidate.is(group, kind))
            .filter(|candidate| match (bundle.namespace_of(candidate), namespace) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
            .filter(|candidate| match (cluster_of(bundle, candidate.doc), cluster_of(bundle, object.doc)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
            .collect(),
        _ => Vec::new(),
    };
    if let Some(owner) = closest_holder(bundle, object.doc, &same_set) {
        let holder = &bundle.docs[owner.doc];
        sink.emit(
            MISNAMED_OWNER,
            object.doc,
            &pointer,
            format!(
                "owner {what} {name:?}{where_} is not in the bundle, but {}/{} of the same cluster embeds {what} {:?}; \
                 ASO waits for {name:?} forever and never creates {} {:?}. Fix owner.name",
                holder.kind(),
                holder.name(),
                owner.name(),
                object.kind(),
                object.name()
            ),
        );
        return;
    }
    sink.emit(
        UNRESOLVED_OWNER,
        object.doc,
        &pointer,
        format!(
            "owner {what} {name:?}{where_} is not in the bundle; ASO waits and creates {} {:?} only once it exists. \
             Add the {what} (e.g. in the AzureASOManagedCluster's spec.resources), make sure it is applied \
             separately, or fix owner.name",
            object.kind(),
            object.name()
        ),
    );
}

/// The name of the Cluster an AzureASOManaged* document belongs to: the Cluster (or, for a pool,
/// the MachinePool) that references it, else its `cluster.x-k8s.io/cluster-name` label.
fn cluster_or_holder_name<'a>(bundle: &Bundle<'a>, doc: usize) -> &'a str {
    cluster_of(bundle, doc).unwrap_or_else(|| bundle.meta_name(doc))
}

/// Of the owners the same cluster may embed, the one whose holder belongs to the object's cluster by name when no
/// Cluster or label says so (CAPZ's flavors name a cluster's AzureASOManaged* objects after it, pools
/// `<cluster>-<pool>`); else the first. Keeps the finding the same whatever other clusters share the namespace.
fn closest_holder<'o, 'a>(
    bundle: &Bundle<'a>,
    doc: usize,
    candidates: &[&'o AsoObject<'a>],
) -> Option<&'o AsoObject<'a>> {
    let cluster = cluster_or_holder_name(bundle, doc);
    let holder = bundle.meta_name(doc);
    candidates
        .iter()
        .find(|candidate| {
            let other = cluster_or_holder_name(bundle, candidate.doc);
            other == cluster || holder.strip_prefix(other).is_some_and(|rest| rest.starts_with('-'))
        })
        .or(candidates.first())
        .copied()
}

fn cluster_of<'a>(bundle: &Bundle<'a>, doc: usize) -> Option<&'a str> {
    let document = &bundle.docs[doc];
    let label = || document.value.at("/metadata/labels").and_then(|l| l.get(CLUSTER_NAME_LABEL)?.as_str());
    match document.kind() {
        "AzureASOManagedControlPlane" => bundle.cluster_name_of_control_plane(doc),
        "AzureASOManagedMachinePool" => bundle
            .machine_pool_for_infra(doc)
            .and_then(|pool| bundle.docs[pool].value.str_at("/spec/clusterName"))
            .or_else(label),
        _ => label(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, findings_of, ids};
    use super::*;

    const CLUSTER: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: c1}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: c1, namespace: default}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedCluster
metadata: {name: c1}
";

    #[test]
    fn resolved_refs_pass() {
        assert!(findings_of(CLUSTER, UNRESOLVED_REF).is_empty(), "a missing namespace matches");
    }

    #[test]
    fn missing_targets_fire() {
        let yaml = CLUSTER.replace("kind: AzureManagedCluster, name: c1", "kind: AzureManagedCluster, name: c2");
        let found = findings_of(&yaml, UNRESOLVED_REF);
        assert_eq!(ids(&found), [UNRESOLVED_REF]);
        assert_eq!((found[0].path.as_str(), found[0].line), ("/spec/infrastructureRef/name", 6));
        assert!(
            found[0]
                .message
                .contains("AzureManagedCluster/c2 (infrastructure.cluster.x-k8s.io) in namespace \"default\""),
            "{}",
            found[0].message
        );

        let wrong_ns = CLUSTER.replace("metadata: {name: c1}\n", "metadata: {name: c1, namespace: other}\n");
        assert_eq!(findings_of(&wrong_ns, UNRESOLVED_REF).len(), 1);
        let wrong_group = CLUSTER.replace(
            "{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster",
            "{apiVersion: example.com/v1, kind: AzureManagedCluster",
        );
        assert_eq!(findings_of(&wrong_group, UNRESOLVED_REF).len(), 1);
    }

    #[test]
    fn v1beta2_refs_and_cluster_class_refs() {
        let yaml = "apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata: {name: p}
spec:
  clusterName: c1
  template:
    spec:
      clusterName: c1
      bootstrap:
        configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfig, name: p}
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedMachinePool, name: p}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata: {name: cc}
spec:
  controlPlane: {templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedControlPlaneTemplate, name: cp}}
  infrastructure: {templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedClusterTemplate, name: ic}}
  workers:
    machinePools:
    - class: a
      infrastructure: {templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePoolTemplate, name: mp}}
";
        let found = findings_of(yaml, UNRESOLVED_REF);
        let paths: Vec<_> = found.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/spec/template/spec/bootstrap/configRef/name",
                "/spec/template/spec/infrastructureRef/name",
                "/spec/controlPlane/templateRef/name",
                "/spec/infrastructure/templateRef/name",
                "/spec/workers/machinePools/0/infrastructure/templateRef/name",
            ]
        );
    }

    #[test]
    fn a_v1beta1_ref_without_kind_api_group_or_name_never_resolves() {
        let without_kind = CLUSTER.replace(
            "infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: c1}",
            "infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, name: c1}",
        );
        let found = findings_among(&without_kind, &[INCOMPLETE_REF, UNRESOLVED_REF]);
        assert_eq!(ids(&found), [INCOMPLETE_REF], "{found:?}");
        assert_eq!(
            (found[0].path.as_str(), found[0].line, found[0].severity),
            ("/spec/infrastructureRef", 6, crate::report::Severity::Error)
        );
        assert!(
            found[0].message.starts_with("infrastructureRef names \"c1\" but has no kind: CAPI looks"),
            "{}",
            found[0].message
        );
        assert!(
            found[0].message.contains("(the bundle's AzureManagedCluster \"c1\" is `apiVersion: infrastructure.cluster.x-k8s.io/v1beta1`, `kind: AzureManagedCluster`)"),
            "{}",
            found[0].message
        );
        // No apiVersion, or one without a group: no CRD `<plural>.` exists.
        for written in [
            "kind: AzureManagedControlPlane, name: c1}",
            "apiVersion: v1beta1, kind: AzureManagedControlPlane, name: c1}",
        ] {
            let yaml = CLUSTER.replace(
                "{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}",
                &format!("{{{written}"),
            );
            let found = findings_among(&yaml, &[INCOMPLETE_REF, UNRESOLVED_REF]);
            assert_eq!(ids(&found), [INCOMPLETE_REF], "{yaml}");
            assert_eq!(found[0].path, "/spec/controlPlaneRef");
        }
        // A MachineDeployment's and a Machine's references, a reference left out entirely (not set: no finding).
        let machines = "apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: md, namespace: default}
spec:
  clusterName: c1
  template:
    spec:
      clusterName: c1
      bootstrap:
        configRef: {name: md-bootstrap}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureMachineTemplate}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata: {name: m, namespace: default}
spec:
  clusterName: c1
  bootstrap: {dataSecretName: data}
  infrastructureRef: {}
";
        let found = findings_among(machines, &[INCOMPLETE_REF, UNRESOLVED_REF]);
        let got: Vec<_> = found.iter().map(|f| (f.object.as_str(), f.path.as_str())).collect();
        assert_eq!(
            got,
            [
                ("MachineDeployment/md", "/spec/template/spec/bootstrap/configRef"),
                ("MachineDeployment/md", "/spec/template/spec/infrastructureRef"),
            ]
        );
        assert!(found[0].message.contains("has no kind, no apiVersion"), "{}", found[0].message);
        assert!(found[1].message.contains("has no name"), "{}", found[1].message);
        // v1beta2 references need all three in the CRD schema: the schema check reports them, not this rule.
        let v1beta2 = "apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, name: c1}
";
        assert!(findings_of(v1beta2, INCOMPLETE_REF).is_empty());
    }

    #[test]
    fn capi_looks_a_reference_up_in_the_referencing_objects_namespace() {
        // The target is in namespace "other", as the v1beta1 reference says: CAPI v1.14 drops that namespace.
        let yaml = CLUSTER
            .replace("kind: AzureManagedCluster, name: c1}", "kind: AzureManagedCluster, name: c1, namespace: other}")
            .replace("metadata: {name: c1}\n", "metadata: {name: c1, namespace: other}\n");
        let found = findings_of(&yaml, UNRESOLVED_REF);
        assert_eq!(ids(&found), [UNRESOLVED_REF]);
        assert!(found[0].message.contains("in namespace \"default\" is not in the bundle (CAPI looks it up in the Cluster's own namespace: the reference's `namespace: other` is dropped"), "{}", found[0].message);
    }

    const ASO: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedCluster
metadata: {name: c1, namespace: default}
spec:
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata: {name: RG}
    spec: {location: westeurope}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1, namespace: default}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: c1}
    spec:
      owner: {name: c1}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: c1-pool0, namespace: default}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: c1-pool0}
    spec:
      owner: {name: MC}
";

    #[test]
    fn aso_owners_resolve_by_kind_and_name() {
        let rules = [UNRESOLVED_OWNER, MISNAMED_OWNER];
        assert!(findings_among(&ASO.replace("RG", "c1").replace("MC", "c1"), &rules).is_empty());
        // The cluster's own ResourceGroup is named otherwise: a typo, an error.
        let found = findings_among(&ASO.replace("RG", "other").replace("MC", "c1"), &rules);
        assert_eq!(ids(&found), [MISNAMED_OWNER]);
        assert_eq!(found[0].object, "AzureASOManagedControlPlane/c1");
        assert_eq!(found[0].path, "/spec/resources/0/spec/owner/name");
        assert!(found[0].message.contains("owner ResourceGroup \"c1\""), "{}", found[0].message);
        assert!(
            found[0].message.contains("AzureASOManagedCluster/c1 of the same cluster embeds ResourceGroup \"other\"")
        );
        // The agent pool's owner must be a ManagedCluster, not the ResourceGroup of the same name.
        let found = findings_among(&ASO.replace("RG", "rg").replace("MC", "rg"), &rules);
        let paths: Vec<_> = found.iter().map(|f| (f.rule.as_str(), f.object.as_str(), f.path.as_str())).collect();
        assert!(paths.contains(&(
            MISNAMED_OWNER,
            "AzureASOManagedMachinePool/c1-pool0",
            "/spec/resources/0/spec/owner/name"
        )));
    }

    #[test]
    fn an_owner_outside_the_bundle_is_a_warning_as_aso_waits_for_it() {
        // No ResourceGroup at all in the bundle: it may be applied separately.
        let without_cluster = ASO.split("---\n").skip(1).collect::<Vec<_>>().join("---\n").replace("MC", "c1");
        let found = findings_among(&without_cluster, &[UNRESOLVED_OWNER, MISNAMED_OWNER]);
        assert_eq!(ids(&found), [UNRESOLVED_OWNER]);
        assert_eq!(found[0].severity, crate::report::Severity::Warning);
        assert!(found[0].message.contains("ASO waits"), "{}", found[0].message);
        // An owner of another cluster (by its cluster-name label) is not this cluster's typo.
        let other_cluster = ASO
            .replace("RG", "other")
            .replace("MC", "c1")
            .replace("metadata: {name: c1, namespace: default}\nspec:\n  resources:\n  - apiVersion: resources", "metadata: {name: c1, namespace: default, labels: {cluster.x-k8s.io/cluster-name: c9}}\nspec:\n  resources:\n  - apiVersion: resources")
            .replace("kind: AzureASOManagedControlPlane\nmetadata: {name: c1, namespace: default}", "kind: AzureASOManagedControlPlane\nmetadata: {name: c1, namespace: default, labels: {cluster.x-k8s.io/cluster-name: c1}}");
        let found = findings_among(&other_cluster, &[UNRESOLVED_OWNER, MISNAMED_OWNER]);
        assert_eq!(ids(&found), [UNRESOLVED_OWNER], "{other_cluster}");
    }

    #[test]
    fn arm_id_owners_are_external() {
        let yaml = ASO.replace("RG", "c1").replace(
            "owner: {name: MC}",
            "owner: {armId: /subscriptions/x/resourceGroups/y/providers/Microsoft.ContainerService/managedClusters/z}",
        );
        assert!(findings_of(&yaml, UNRESOLVED_OWNER).is_empty());
    }
}
