//! The bundle as the rules see it: objects by kind, references resolved by namespace and name,
//! and the ASO objects embedded in `spec.resources` of the AzureASOManaged* kinds.
//!
//! Namespaces: an object without `metadata.namespace` lands in whatever namespace the apply uses,
//! so it is treated as matching any namespace; two explicit namespaces must be equal.

use std::ops::Range;

use serde_json::Value;

use crate::fast_hash::HashMap;
use crate::json_pointer::Fields;
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

pub(crate) use crate::json_pointer::At;

/// What every rule reads of a document, looked up once.
#[derive(Debug, Clone, Copy)]
struct Meta<'a> {
    group: &'a str,
    kind: &'a str,
    name: &'a str,
    namespace: Option<&'a str>,
}

/// Items (document or ASO object indexes) of one key, split by namespace so that a lookup only visits the
/// items whose namespace can match: equal namespaces, or a missing one on either side.
#[derive(Debug, Default)]
pub(crate) struct NsIndex<'a> {
    /// Every item, in input order.
    all: Vec<usize>,
    /// Items with an explicit namespace, in input order per namespace.
    by_namespace: HashMap<&'a str, Vec<usize>>,
    /// Items without a namespace (they match every namespace), in input order.
    unnamespaced: Vec<usize>,
}

impl<'a> NsIndex<'a> {
    pub(crate) fn push(&mut self, item: usize, namespace: Option<&'a str>) {
        self.all.push(item);
        match namespace {
            Some(namespace) => self.by_namespace.entry(namespace).or_default().push(item),
            None => self.unnamespaced.push(item),
        }
    }

    /// The items whose namespace matches `namespace`, in no particular order.
    pub(crate) fn matching<'s>(&'s self, namespace: Option<&str>) -> impl Iterator<Item = usize> + 's {
        let (first, second): (&[usize], &[usize]) = match namespace {
            None => (&self.all, &[]),
            Some(namespace) => {
                (self.by_namespace.get(namespace).map(Vec::as_slice).unwrap_or_default(), &self.unnamespaced)
            }
        };
        first.iter().chain(second).copied()
    }

    /// The first item in input order whose namespace matches `namespace` and that satisfies `accept`.
    pub(crate) fn first(&self, namespace: Option<&str>, mut accept: impl FnMut(usize) -> bool) -> Option<usize> {
        match namespace {
            None => self.all.iter().copied().find(|&item| accept(item)),
            Some(namespace) => {
                let explicit =
                    self.by_namespace.get(namespace).and_then(|items| items.iter().copied().find(|&item| accept(item)));
                let open = self.unnamespaced.iter().copied().find(|&item| accept(item));
                match (explicit, open) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
        }
    }
}

/// The documents plus lookups across them, all built once in [`Bundle::new`] so that every rule runs in
/// time linear in the bundle (no rule scans the whole bundle per object).
pub(crate) struct Bundle<'a> {
    pub docs: &'a [Document],
    /// Group, kind, name and namespace of every document.
    meta: Vec<Meta<'a>>,
    /// Documents by `(group, kind)`, in input order.
    by_group_kind: HashMap<(&'a str, &'a str), Vec<usize>>,
    /// Documents by `(kind, name)`, then namespace: references resolve without scanning the bundle.
    by_kind_name: HashMap<(&'a str, &'a str), NsIndex<'a>>,
    /// Every ASO object (see [`Bundle::aso_objects`]), in input order.
    aso: Vec<AsoObject<'a>>,
    /// Per document, the range of `aso` embedded in it.
    embedded: Vec<Range<usize>>,
    /// ASO objects (indexes into `aso`) by `metadata.name`, then namespace of the holding document.
    aso_by_name: HashMap<&'a str, NsIndex<'a>>,
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

/// The group an object of an old `exp.` Cluster API group (`exp.cluster.x-k8s.io`,
/// `exp.infrastructure.cluster.x-k8s.io`) belongs to now: the rules see such an object as the kind
/// it is (a MachinePool is a pool of its Cluster), and the schema check reports once that its API
/// version is not served, instead of rules that contradict the file.
pub(crate) fn served_group(group: &str) -> &str {
    match group.strip_prefix("exp.") {
        Some(rest) if rest.ends_with("cluster.x-k8s.io") => rest,
        _ => group,
    }
}

impl ObjRef {
    /// Reads a reference object; `None` when it has no kind or no name.
    pub fn parse(value: &Value) -> Option<ObjRef> {
        let kind = value.field("kind")?.as_str()?.to_string();
        let name = value.field("name")?.as_str()?.to_string();
        let group = match (
            value.field("apiVersion").and_then(Value::as_str),
            value.field("apiGroup").and_then(Value::as_str),
        ) {
            (Some(api_version), _) => Some(served_group(split_api_version(api_version).0).to_string()),
            (None, Some(group)) => Some(served_group(group).to_string()),
            (None, None) => None,
        };
        let namespace =
            value.field("namespace").and_then(Value::as_str).filter(|ns| !ns.is_empty()).map(str::to_string);
        Some(ObjRef { group, kind, name, namespace })
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
    /// API group, kind and `metadata.name`, read once ("" when missing).
    group: &'a str,
    kind: &'a str,
    name: &'a str,
}

impl<'a> AsoObject<'a> {
    fn new(doc: usize, slot: Option<(&'static str, usize)>, value: &'a Value) -> Self {
        AsoObject {
            doc,
            slot,
            value,
            group: split_api_version(value.str_at("/apiVersion").unwrap_or("")).0,
            kind: value.str_at("/kind").unwrap_or(""),
            name: value.str_at("/metadata/name").unwrap_or(""),
        }
    }
    pub fn group(&self) -> &'a str {
        self.group
    }
    pub fn kind(&self) -> &'a str {
        self.kind
    }
    pub fn name(&self) -> &'a str {
        self.name
    }
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.kind == kind && self.group == group
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
            .field("metadata")
            .and_then(|metadata| metadata.field("annotations"))
            .and_then(|annotations| annotations.field(key))
    }
}

impl<'a> Bundle<'a> {
    pub fn new(docs: &'a [Document]) -> Self {
        let meta: Vec<Meta<'a>> = docs
            .iter()
            .map(|doc| Meta {
                group: served_group(split_api_version(doc.value.str_at("/apiVersion").unwrap_or("")).0),
                kind: doc.value.str_at("/kind").unwrap_or(""),
                name: doc.value.str_at("/metadata/name").unwrap_or(""),
                namespace: doc.value.str_at("/metadata/namespace"),
            })
            .collect();
        let mut by_group_kind: HashMap<(&'a str, &'a str), Vec<usize>> = HashMap::default();
        let mut by_kind_name: HashMap<(&'a str, &'a str), NsIndex<'a>> = HashMap::default();
        let mut aso = Vec::new();
        let mut embedded = Vec::with_capacity(docs.len());
        for (index, (doc, meta)) in docs.iter().zip(&meta).enumerate() {
            by_group_kind.entry((meta.group, meta.kind)).or_default().push(index);
            by_kind_name.entry((meta.kind, meta.name)).or_default().push(index, meta.namespace);
            let start = aso.len();
            if meta.group.ends_with(".azure.com") {
                aso.push(AsoObject::new(index, None, &doc.value));
            } else if meta.group == CAPZ_GROUP && ASO_HOLDERS.contains(&meta.kind) {
                let root = spec_root_of(meta.kind);
                let resources = doc.value.at(root).and_then(|spec| spec.field("resources"));
                if let Some(Value::Array(items)) = resources {
                    aso.extend(
                        items
                            .iter()
                            .enumerate()
                            .filter(|(_, item)| item.is_object())
                            .map(|(slot, value)| AsoObject::new(index, Some((root, slot)), value)),
                    );
                }
            }
            // Only embedded objects count as `embedded`, not a document that is an ASO object itself.
            let end = if meta.group.ends_with(".azure.com") { start } else { aso.len() };
            embedded.push(start..end);
        }
        let mut aso_by_name: HashMap<&'a str, NsIndex<'a>> = HashMap::default();
        for (position, object) in aso.iter().enumerate() {
            aso_by_name.entry(object.name).or_default().push(position, meta[object.doc].namespace);
        }
        let mut bundle = Bundle {
            docs,
            meta,
            by_group_kind,
            by_kind_name,
            aso,
            embedded,
            aso_by_name,
            cluster_by_control_plane: HashMap::default(),
            machine_pool_by_infra: HashMap::default(),
        };
        bundle.cluster_by_control_plane = bundle.referrers("Cluster", "/spec/controlPlaneRef");
        bundle.machine_pool_by_infra = bundle.referrers("MachinePool", "/spec/template/spec/infrastructureRef");
        bundle
    }

    /// API group of document `doc` (empty for the core group).
    pub fn group(&self, doc: usize) -> &'a str {
        self.meta[doc].group
    }

    /// `metadata.namespace` of document `doc`, if set.
    pub fn namespace(&self, doc: usize) -> Option<&'a str> {
        self.meta[doc].namespace
    }

    /// The first document in input order of `kind` named `name` whose namespace matches `namespace` and
    /// that satisfies `accept`.
    pub fn find_named(
        &self,
        kind: &str,
        name: &str,
        namespace: Option<&str>,
        accept: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        self.by_kind_name.get(&(kind, name))?.first(namespace, accept)
    }

    /// For every document referenced through `pointer` by a CAPI `kind`, the first such referrer.
    fn referrers(&self, kind: &str, pointer: &str) -> HashMap<usize, usize> {
        let mut map = HashMap::default();
        for (index, doc) in self.of_kind(CAPI_GROUP, &[kind]) {
            let target =
                doc.value.at(pointer).and_then(ObjRef::parse).and_then(|reference| self.resolve(index, &reference));
            if let Some(target) = target {
                map.entry(target).or_insert(index);
            }
        }
        map
    }

    /// Documents of `group` and one of `kinds`, with their index, in input order.
    pub fn of_kind(&self, group: &str, kinds: &[&str]) -> impl Iterator<Item = (usize, &'a Document)> + use<'a> {
        let mut indexes: Vec<usize> =
            kinds.iter().filter_map(|kind| self.by_group_kind.get(&(group, *kind))).flatten().copied().collect();
        if kinds.len() > 1 {
            indexes.sort_unstable();
            indexes.dedup();
        }
        let docs = self.docs;
        indexes.into_iter().map(move |index| (index, &docs[index]))
    }

    /// CAPZ documents of one of `kinds`, in input order.
    pub fn capz(&self, kinds: &[&str]) -> impl Iterator<Item = (usize, &'a Document)> + use<'a> {
        self.of_kind(CAPZ_GROUP, kinds)
    }

    /// Documents named `name` whose namespace matches `namespace` (equal, or missing on either side), in input
    /// order; for suggestions, where a reference is broken (a scan of the bundle).
    pub fn named<'s>(&'s self, name: &'s str, namespace: Option<&'s str>) -> impl Iterator<Item = usize> + 's {
        self.meta.iter().enumerate().filter_map(move |(index, meta)| {
            let same_namespace = match (meta.namespace, namespace) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            (meta.name == name && same_namespace).then_some(index)
        })
    }

    /// The document a CAPI reference (`controlPlaneRef`, `infrastructureRef`, `configRef`, ClusterClass template
    /// references) from document `from` points at, found as CAPI v1.14 finds it: by API group, kind and name in
    /// `from`'s own namespace (v1beta2 references have no namespace: converting a v1beta1 one drops it).
    pub fn resolve_capi(&self, from: usize, reference: &ObjRef) -> Option<usize> {
        self.find_named(&reference.kind, &reference.name, self.meta[from].namespace, |index| {
            reference.group.as_deref().is_none_or(|group| group == self.meta[index].group)
        })
    }

    /// The document a reference from document `from` points at.
    pub fn resolve(&self, from: usize, reference: &ObjRef) -> Option<usize> {
        let namespace = reference.namespace.as_deref().or(self.meta[from].namespace);
        self.find_named(&reference.kind, &reference.name, namespace, |index| {
            reference.group.as_deref().is_none_or(|group| group == self.meta[index].group)
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
    /// `metadata.name` of document `doc`.
    pub fn meta_name(&self, doc: usize) -> &'a str {
        self.meta[doc].name
    }

    pub fn cluster_name_of_control_plane(&self, doc: usize) -> Option<&'a str> {
        if let Some(cluster) = self.cluster_for_control_plane(doc) {
            return Some(self.meta[cluster].name);
        }
        self.docs[doc].value.at("/metadata/labels").and_then(|labels| labels.field(CLUSTER_NAME_LABEL)?.as_str())
    }

    /// The ASO objects embedded in document `doc` (empty for kinds that hold none).
    pub fn embedded(&self, doc: usize) -> &[AsoObject<'a>] {
        &self.aso[self.embedded[doc].clone()]
    }

    /// Every ASO object of the bundle, in input order: embedded ones and documents of an `*.azure.com` group.
    pub fn aso_objects(&self) -> &[AsoObject<'a>] {
        &self.aso
    }

    /// The ASO objects named `name` whose namespace (see [`Bundle::namespace_of`]) can be `namespace`, in no
    /// particular order.
    pub fn aso_named<'s>(
        &'s self,
        name: &str,
        namespace: Option<&'s str>,
    ) -> impl Iterator<Item = &'s AsoObject<'a>> + 's {
        self.aso_by_name
            .get(name)
            .into_iter()
            .flat_map(move |index| index.matching(namespace))
            .map(|position| &self.aso[position])
    }

    /// The namespace an ASO object lands in: CAPZ applies embedded objects into its own namespace.
    pub fn namespace_of(&self, object: &AsoObject<'_>) -> Option<&'a str> {
        self.meta[object.doc].namespace
    }
}

/// `/spec/template/spec` for template kinds, `/spec` otherwise.
fn spec_root_of(kind: &str) -> &'static str {
    if kind.ends_with("Template") { "/spec/template/spec" } else { "/spec" }
}

/// `/spec/template/spec` for template kinds, `/spec` otherwise.
pub(crate) fn spec_root(doc: &Document) -> &'static str {
    spec_root_of(doc.kind())
}

/// When CAPZ's webhook runs a check gated on the cluster-name label: at create if the object already carries the
/// label, else at CAPI's first update.
pub(crate) fn when_labelled(doc: &Document) -> &'static str {
    let labelled = doc.value.at("/metadata/labels").and_then(|labels| labels.field(CLUSTER_NAME_LABEL)).is_some();
    if labelled {
        "CAPZ's webhook rejects it at create (the object carries cluster.x-k8s.io/cluster-name)"
    } else {
        "rejected at CAPI's first update (label cluster.x-k8s.io/cluster-name): the apply succeeds, then CAPZ's \
         webhook refuses the update that adds the label"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;

    #[test]
    fn at_agrees_with_serde_json_pointer() {
        let value: Value = serde_json::json!({
            "a": {"b/c": [10, {"d~e": "x", "": "empty"}], "0": "zero", "01": "one"},
            "list": ["p", "q"],
        });
        for pointer in [
            "",
            "/",
            "a",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/b~1c/1/",
            "/a/b~1c/01",
            "/a/b~1c/+1",
            "/a/b~1c/2",
            "/a/0",
            "/a/01",
            "/list/1",
            "/list/-",
            "/list/1/x",
            "/a/b/c",
            "/a/b~1c/1/d~01",
            "//",
        ] {
            assert_eq!(value.at(pointer), value.at(pointer), "{pointer:?}");
        }
    }

    #[test]
    fn ns_index_first_takes_input_order_across_explicit_and_missing_namespaces() {
        let mut index = NsIndex::default();
        index.push(0, Some("a"));
        index.push(1, None);
        index.push(2, Some("b"));
        index.push(3, Some("a"));
        assert_eq!(index.first(Some("a"), |_| true), Some(0));
        assert_eq!(index.first(Some("b"), |_| true), Some(1), "no namespace matches b");
        assert_eq!(index.first(Some("b"), |i| i != 1), Some(2));
        assert_eq!(index.first(Some("c"), |_| true), Some(1));
        assert_eq!(index.first(Some("c"), |i| i != 1), None);
        assert_eq!(index.first(None, |i| i > 1), Some(2));
        let mut a: Vec<usize> = index.matching(Some("a")).collect();
        a.sort();
        assert_eq!(a, [0, 1, 3]);
        assert_eq!(index.matching(None).count(), 4);
    }

    #[test]
    fn of_kind_keeps_input_order_across_kinds_and_embedded_objects_are_indexed_once() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: p1}
spec:
  resources:
  - {apiVersion: containerservice.azure.com/v1api20240901, kind: ManagedClustersAgentPool, metadata: {name: a}}
  - not-an-object
  - {apiVersion: containerservice.azure.com/v1api20240901, kind: ManagedClustersAgentPool, metadata: {name: b}}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: rg}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlaneTemplate
metadata: {name: t}
spec:
  template:
    spec:
      resources:
      - {apiVersion: containerservice.azure.com/v1api20240901, kind: ManagedCluster, metadata: {name: mc}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: p2}
";
        let docs = parse_documents(yaml, "t.yaml").unwrap();
        let bundle = Bundle::new(&docs);
        let order: Vec<usize> = bundle
            .capz(&["AzureASOManagedMachinePool", "AzureASOManagedControlPlaneTemplate"])
            .map(|(index, _)| index)
            .collect();
        assert_eq!(order, [0, 2, 3]);
        type Row<'s> = (&'s str, usize, Option<(&'s str, usize)>);
        let names: Vec<Row<'_>> = bundle.aso_objects().iter().map(|o| (o.name(), o.doc, o.slot)).collect();
        assert_eq!(
            names,
            [
                ("a", 0, Some(("/spec", 0))),
                ("b", 0, Some(("/spec", 2))),
                ("rg", 1, None),
                ("mc", 2, Some(("/spec/template/spec", 0))),
            ]
        );
        assert_eq!(bundle.embedded(0).len(), 2);
        assert!(bundle.embedded(1).is_empty(), "a document of its own is not embedded");
        assert_eq!(bundle.embedded(2)[0].kind(), "ManagedCluster");
        assert!(bundle.embedded(3).is_empty());
        assert_eq!(bundle.aso_named("b", Some("x")).count(), 1);
    }
}
