//! The bundle as the rules see it: objects by kind, references resolved by namespace and name,
//! and the ASO objects embedded in `spec.resources` of the AzureASOManaged* kinds.
//!
//! Namespaces: an object without `metadata.namespace` lands in whatever namespace the apply uses,
//! so it is treated as matching any namespace; two explicit namespaces must be equal.

use std::collections::HashMap;

use serde_json::Value;

use crate::manifest::{Document, split_api_version};

/// API group of CAPZ's kinds.
pub(crate) const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";
/// API group of CAPI's core kinds (Cluster, MachinePool, ClusterClass).
pub(crate) const CAPI_GROUP: &str = "cluster.x-k8s.io";
/// ASO's AKS group.
pub(crate) const CONTAINERSERVICE_GROUP: &str = "containerservice.azure.com";
/// Annotation naming the Secret ASO reads credentials from.
pub(crate) const CREDENTIAL_FROM: &str = "serviceoperator.azure.com/credential-from";
/// Annotation controlling ASO's reconcile policy.
pub(crate) const RECONCILE_POLICY: &str = "serviceoperator.azure.com/reconcile-policy";
/// CAPI annotation marking replicas as owned by an autoscaler.
pub(crate) const REPLICAS_MANAGED_BY: &str = "cluster.x-k8s.io/replicas-managed-by";
/// CAPI label naming an object's Cluster.
pub(crate) const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";

/// CAPZ kinds that hold ASO objects in `spec.resources` (or `spec.template.spec.resources`).
const ASO_HOLDERS: &[&str] = &[
    "AzureASOManagedCluster",
    "AzureASOManagedControlPlane",
    "AzureASOManagedMachinePool",
    "AzureASOManagedClusterTemplate",
    "AzureASOManagedControlPlaneTemplate",
    "AzureASOManagedMachinePoolTemplate",
];

/// The documents plus lookups across them.
pub(crate) struct Bundle<'a> {
    pub docs: &'a [Document],
    /// Documents by `(kind, name)`, in input order: references resolve without scanning the bundle.
    by_kind_name: HashMap<(&'a str, &'a str), Vec<usize>>,
    /// Control plane document -> the first Cluster whose controlPlaneRef resolves to it.
    cluster_by_control_plane: HashMap<usize, usize>,
    /// Infrastructure machine pool document -> the first MachinePool whose infrastructureRef resolves to it.
    machine_pool_by_infra: HashMap<usize, usize>,
}

/// A reference from one object to another (`controlPlaneRef`, `infrastructureRef`, ...).
#[derive(Debug, Clone)]
pub(crate) struct ObjRef {
    /// API group, if the reference names one (`apiVersion` in v1beta1, `apiGroup` in v1beta2).
    pub group: Option<String>,
    pub kind: String,
    pub name: String,
    /// Explicit namespace of the reference (v1beta1 only).
    pub namespace: Option<String>,
}

impl ObjRef {
    /// Reads a reference object; `None` when it has no kind or no name.
    pub fn parse(value: &Value) -> Option<ObjRef> {
        let kind = value.get("kind")?.as_str()?.to_string();
        let name = value.get("name")?.as_str()?.to_string();
        let group = match (
            value.get("apiVersion").and_then(Value::as_str),
            value.get("apiGroup").and_then(Value::as_str),
        ) {
            (Some(api_version), _) => Some(split_api_version(api_version).0.to_string()),
            (None, Some(group)) => Some(group.to_string()),
            (None, None) => None,
        };
        let namespace = value
            .get("namespace")
            .and_then(Value::as_str)
            .filter(|ns| !ns.is_empty())
            .map(str::to_string);
        Some(ObjRef {
            group,
            kind,
            name,
            namespace,
        })
    }

    /// `Kind/name` for messages.
    pub fn display(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }
}

/// An ASO object, either embedded in a CAPZ object or a document of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AsoObject<'a> {
    /// Index of the document that holds it.
    pub doc: usize,
    /// Where the object sits inside that document: `(spec root, index in resources)`, `None` for a
    /// document of its own.
    pub slot: Option<(&'static str, usize)>,
    pub value: &'a Value,
}

impl<'a> AsoObject<'a> {
    pub fn group(&self) -> &'a str {
        split_api_version(self.str_at("/apiVersion").unwrap_or("")).0
    }
    pub fn kind(&self) -> &'a str {
        self.str_at("/kind").unwrap_or("")
    }
    pub fn name(&self) -> &'a str {
        self.str_at("/metadata/name").unwrap_or("")
    }
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group() == group && self.kind() == kind
    }
    pub fn str_at(&self, pointer: &str) -> Option<&'a str> {
        self.value.pointer(pointer).and_then(Value::as_str)
    }
    /// Pointer of `suffix` (e.g. `/spec/owner/name`) inside the holding document.
    pub fn pointer(&self, suffix: &str) -> String {
        match self.slot {
            Some((root, index)) => format!("{root}/resources/{index}{suffix}"),
            None => suffix.to_string(),
        }
    }
    /// An annotation's value.
    pub fn annotation(&self, key: &str) -> Option<&'a Value> {
        self.value
            .pointer("/metadata/annotations")
            .and_then(|annotations| annotations.get(key))
    }
}

/// Whether two namespaces can be the same (a missing one matches anything).
pub(crate) fn namespaces_match(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

impl<'a> Bundle<'a> {
    pub fn new(docs: &'a [Document]) -> Self {
        let mut by_kind_name: HashMap<(&'a str, &'a str), Vec<usize>> = HashMap::new();
        for (index, doc) in docs.iter().enumerate() {
            by_kind_name
                .entry((doc.kind(), doc.name()))
                .or_default()
                .push(index);
        }
        let mut bundle = Bundle {
            docs,
            by_kind_name,
            cluster_by_control_plane: HashMap::new(),
            machine_pool_by_infra: HashMap::new(),
        };
        bundle.cluster_by_control_plane = bundle.referrers("Cluster", "/spec/controlPlaneRef");
        bundle.machine_pool_by_infra =
            bundle.referrers("MachinePool", "/spec/template/spec/infrastructureRef");
        bundle
    }

    /// Indexes of the documents of `kind` named `name`, in input order.
    pub fn named<'s>(&'s self, kind: &'s str, name: &'s str) -> impl Iterator<Item = usize> + 's {
        self.by_kind_name
            .get(&(kind, name))
            .into_iter()
            .flatten()
            .copied()
    }

    /// For every document referenced through `pointer` by a CAPI `kind`, the first such referrer.
    fn referrers(&self, kind: &str, pointer: &str) -> HashMap<usize, usize> {
        let mut map = HashMap::new();
        for (index, doc) in self.of_kind(CAPI_GROUP, &[kind]) {
            let target = doc
                .value
                .pointer(pointer)
                .and_then(ObjRef::parse)
                .and_then(|reference| self.resolve(index, &reference));
            if let Some(target) = target {
                map.entry(target).or_insert(index);
            }
        }
        map
    }

    /// Documents of `group` and one of `kinds`, with their index.
    pub fn of_kind<'s>(
        &'s self,
        group: &'s str,
        kinds: &'s [&'s str],
    ) -> impl Iterator<Item = (usize, &'a Document)> + 's {
        self.docs
            .iter()
            .enumerate()
            .filter(move |(_, doc)| doc.group() == group && kinds.contains(&doc.kind()))
    }

    /// CAPZ documents of one of `kinds`.
    pub fn capz<'s>(
        &'s self,
        kinds: &'s [&'s str],
    ) -> impl Iterator<Item = (usize, &'a Document)> + 's {
        self.of_kind(CAPZ_GROUP, kinds)
    }

    /// The document a reference from document `from` points at.
    pub fn resolve(&self, from: usize, reference: &ObjRef) -> Option<usize> {
        let namespace = reference
            .namespace
            .as_deref()
            .or(self.docs[from].namespace());
        let candidates = self
            .by_kind_name
            .get(&(reference.kind.as_str(), reference.name.as_str()))?;
        candidates.iter().copied().find(|&index| {
            let doc = &self.docs[index];
            reference
                .group
                .as_deref()
                .is_none_or(|group| group == doc.group())
                && namespaces_match(namespace, doc.namespace())
        })
    }

    /// The Cluster whose `controlPlaneRef` points at document `control_plane`.
    pub fn cluster_for_control_plane(&self, control_plane: usize) -> Option<usize> {
        self.cluster_by_control_plane.get(&control_plane).copied()
    }

    /// The MachinePool whose infrastructureRef points at document `infra`.
    pub fn machine_pool_for_infra(&self, infra: usize) -> Option<usize> {
        self.machine_pool_by_infra.get(&infra).copied()
    }

    /// The name of the Cluster document `doc` belongs to: the Cluster that references it as control
    /// plane, else its `cluster.x-k8s.io/cluster-name` label.
    pub fn cluster_name_of_control_plane(&self, doc: usize) -> Option<&'a str> {
        if let Some(cluster) = self.cluster_for_control_plane(doc) {
            return Some(self.docs[cluster].name());
        }
        self.docs[doc]
            .value
            .pointer("/metadata/labels")
            .and_then(|labels| labels.get(CLUSTER_NAME_LABEL)?.as_str())
    }

    /// The ASO objects embedded in document `doc` (empty for kinds that hold none).
    pub fn embedded(&self, doc: usize) -> Vec<AsoObject<'a>> {
        let document = &self.docs[doc];
        if document.group() != CAPZ_GROUP || !ASO_HOLDERS.contains(&document.kind()) {
            return Vec::new();
        }
        let root = spec_root(document);
        let Some(Value::Array(items)) = document.value.pointer(&format!("{root}/resources")) else {
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.is_object())
            .map(|(index, value)| AsoObject {
                doc,
                slot: Some((root, index)),
                value,
            })
            .collect()
    }

    /// Every ASO object of the bundle: embedded ones and documents of an `*.azure.com` group.
    pub fn aso_objects(&self) -> Vec<AsoObject<'a>> {
        let mut objects = Vec::new();
        for (index, doc) in self.docs.iter().enumerate() {
            if doc.group().ends_with(".azure.com") {
                objects.push(AsoObject {
                    doc: index,
                    slot: None,
                    value: &doc.value,
                });
            } else {
                objects.extend(self.embedded(index));
            }
        }
        objects
    }

    /// The namespace an ASO object lands in: CAPZ applies embedded objects into its own namespace.
    pub fn namespace_of(&self, object: &AsoObject<'_>) -> Option<&'a str> {
        self.docs[object.doc].namespace()
    }
}

/// `/spec/template/spec` for template kinds, `/spec` otherwise.
pub(crate) fn spec_root(doc: &Document) -> &'static str {
    if doc.kind().ends_with("Template") {
        "/spec/template/spec"
    } else {
        "/spec"
    }
}
