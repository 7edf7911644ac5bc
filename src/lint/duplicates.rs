//! The same object (group, kind, namespace, name) defined more than once, scoped to apply units: within one unit
//! (a plain file, one kustomize root, one chart render, what one Flux Kustomization or HelmRelease or Argo CD
//! Application applies) differing copies are reported, as `kubectl apply` keeps the last; across units only when
//! two GitOps objects put it on the same cluster and namespace ("two owners": each overwrites the other's copy,
//! pruning either deletes it). Units that no GitOps object of the repository applies (a chart's own renders, a
//! kustomize root, alternative files such as CAPZ's calico and calico-ipv6 addons) are never applied together as
//! far as the repository says, so copies in two of them are no finding. And each copy is judged with the objects
//! of its own unit ([`Duplicates::scope`]), so the cross-object rules see every copy, in linear time.
//!
//! Scopes: the unit of a built document is its build; a plain file's is the directory of the file, or the file when
//! another file of that directory holds a copy of the same object. A unit holding a copy that another unit also
//! holds (with other content) is a scope of its own; every other document is common to all scopes (a shared
//! identity, a base). Copies in one unit cannot be told apart: they stay together and the lookups take the first,
//! as for any bundle. Identical copies are not split: whichever copy a lookup finds, the result is the same.

use serde_json::Value;

use super::bundle::At;
use super::{RuleSelection, Sink, Work};
use crate::fast_hash::{HashMap, HashSet};
use crate::manifest::{Document, split_api_version};
use crate::report::Finding;

pub(crate) const DUPLICATE_OBJECT: &str = "duplicate-object";

/// What `kubectl apply` identifies an object by; no key for an object without a kind or a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ObjectKey {
    group: Box<str>,
    kind: Box<str>,
    namespace: Option<Box<str>>,
    name: Box<str>,
}

impl ObjectKey {
    pub(crate) fn of(value: &Value) -> Option<ObjectKey> {
        let kind = value.str_at("/kind").filter(|kind| !kind.is_empty())?;
        let name = value.str_at("/metadata/name").filter(|name| !name.is_empty())?;
        Some(ObjectKey {
            group: split_api_version(value.str_at("/apiVersion").unwrap_or("")).0.into(),
            kind: kind.into(),
            namespace: value.str_at("/metadata/namespace").filter(|ns| !ns.is_empty()).map(Into::into),
            name: name.into(),
        })
    }
}

/// An apply unit documents are built in (a plain file is a unit of its own and is not registered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyUnit {
    /// What it is, for messages: `Flux Kustomization infra (./infrastructure)`, `helm template Application/shop`.
    pub label: Box<str>,
    /// The cluster it applies to (in words that tell clusters apart) and the namespace objects without one land
    /// in; `None` when nothing in the repository applies it.
    pub target: Option<(Box<str>, Option<Box<str>>)>,
}

/// The documents' units: `units[doc]` is the registered unit a document was built in (`None`: a plain file),
/// `echoes` the further units that reach a document with the same content from the same place (not kept again).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Units<'u> {
    pub of: &'u [Option<u32>],
    pub registered: &'u [ApplyUnit],
    pub echoes: &'u [(usize, u32)],
}

impl Units<'_> {
    fn unit_of(&self, index: usize) -> Option<u32> {
        self.of.get(index).copied().flatten()
    }
}

/// Copies of one object in one unit with different content (`unit`: its label, `None` for a plain file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InUnit {
    pub copies: Vec<usize>,
    pub unit: Option<Box<str>>,
}

/// Units that apply one object to the same cluster and namespace: each copy (a document index) with its unit's
/// label, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owners {
    pub copies: Vec<(usize, Box<str>)>,
    pub cluster: Box<str>,
    pub namespace: Option<Box<str>>,
    /// Whether the copies differ.
    pub differ: bool,
}

/// The objects defined more than once, and the scope each document is judged in.
#[derive(Debug, Default)]
pub(crate) struct Duplicates {
    /// Per document: the scope it is judged in, `None` for documents common to every scope.
    pub scope: Vec<Option<u32>>,
    /// The further scopes of documents that several units reach (one object those units share: judged in each).
    pub also: HashMap<usize, Vec<u32>>,
    /// Differing copies within one unit.
    pub sets: Vec<InUnit>,
    /// One object on one cluster and namespace from several units.
    pub owners: Vec<Owners>,
}

/// The unit a document is judged in: its build, or a plain file's directory (and the file, when split).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum JudgeUnit<'s> {
    Built(u32),
    Plain(Option<&'s std::ffi::OsStr>, Option<&'s str>),
}

impl Duplicates {
    /// `keys` and `sources` per document, with their `units`; `same(a, b)`: documents `a` and `b` have the same
    /// content.
    pub(crate) fn find(
        keys: &[Option<&ObjectKey>],
        sources: &[&str],
        units: Units<'_>,
        same: impl Fn(usize, usize) -> bool,
    ) -> Self {
        let mut copies: HashMap<&ObjectKey, Vec<usize>> = HashMap::default();
        for (index, key) in keys.iter().enumerate() {
            if let Some(key) = *key {
                copies.entry(key).or_default().push(index);
            }
        }
        let mut echoes_of: HashMap<usize, Vec<u32>> = HashMap::default();
        for &(index, unit) in units.echoes {
            echoes_of.entry(index).or_default().push(unit);
        }
        let mut full: Vec<Vec<usize>> = copies
            .into_values()
            .filter(|set| set.len() > 1 || set.iter().any(|index| echoes_of.contains_key(index)))
            .collect();
        full.sort_unstable();
        let mut duplicates = Duplicates { scope: vec![None; keys.len()], ..Duplicates::default() };
        for set in &full {
            duplicates.report_units(set, keys, sources, units, &echoes_of, &same);
        }
        // Judged apart: the units of copies with different content.
        let differing: Vec<&Vec<usize>> =
            full.iter().filter(|set| set[1..].iter().any(|&other| !same(set[0], other))).collect();
        if differing.is_empty() {
            return duplicates;
        }
        // Directories where two files hold copies of one object: their files are units of their own.
        let directory = |index: usize| std::path::Path::new(sources[index]).parent().map(|p| p.as_os_str());
        let mut split_directories = HashSet::default();
        for set in &differing {
            let mut file_of_directory = HashMap::default();
            for &index in set.iter().filter(|&&index| units.unit_of(index).is_none()) {
                let file = *file_of_directory.entry(directory(index)).or_insert(sources[index]);
                if file != sources[index] {
                    split_directories.insert(directory(index));
                }
            }
        }
        let unit_of = |index: usize| match units.unit_of(index) {
            Some(unit) => JudgeUnit::Built(unit),
            None if split_directories.contains(&directory(index)) => {
                JudgeUnit::Plain(directory(index), Some(sources[index]))
            }
            None => JudgeUnit::Plain(directory(index), None),
        };
        // Units holding copies that other units hold too are scopes.
        let mut scope_ids = HashMap::default();
        for set in &differing {
            let first = unit_of(set[0]);
            if set.iter().all(|&index| unit_of(index) == first) {
                continue;
            }
            for &index in set.iter() {
                let next = scope_ids.len() as u32;
                scope_ids.entry(unit_of(index)).or_insert(next);
            }
        }
        for (index, scope) in duplicates.scope.iter_mut().enumerate() {
            *scope = scope_ids.get(&unit_of(index)).copied();
        }
        // A document other units reach too is in each of their scopes; in none when one of them is no scope (its
        // documents are common to every scope).
        for (&index, echoes) in &echoes_of {
            let Some(own) = duplicates.scope[index] else { continue };
            let others: Option<Vec<u32>> =
                echoes.iter().map(|unit| scope_ids.get(&JudgeUnit::Built(*unit)).copied()).collect();
            match others {
                None => duplicates.scope[index] = None,
                Some(mut others) => {
                    others.retain(|scope| *scope != own);
                    others.sort_unstable();
                    others.dedup();
                    if !others.is_empty() {
                        duplicates.also.insert(index, others);
                    }
                }
            }
        }
        duplicates
    }

    /// What is reported of the copies `set` of one object: differing copies within one unit, and the units that
    /// apply it to the same cluster and namespace.
    fn report_units(
        &mut self,
        set: &[usize],
        keys: &[Option<&ObjectKey>],
        sources: &[&str],
        units: Units<'_>,
        echoes_of: &HashMap<usize, Vec<u32>>,
        same: &impl Fn(usize, usize) -> bool,
    ) {
        // Within a unit: a plain file, or a registered unit.
        // (registered unit, or a plain file's source) -> its copies.
        type ByUnit<'s> = Vec<((Option<u32>, &'s str), Vec<usize>)>;
        let mut by_unit: ByUnit<'_> = Vec::new();
        for &index in set {
            let unit = match units.unit_of(index) {
                Some(unit) => (Some(unit), ""),
                None => (None, sources[index]),
            };
            match by_unit.iter_mut().find(|(known, _)| *known == unit) {
                Some((_, copies)) => copies.push(index),
                None => by_unit.push((unit, vec![index])),
            }
        }
        for ((unit, _), copies) in &by_unit {
            if copies.len() > 1 && copies[1..].iter().any(|&other| !same(copies[0], other)) {
                let label = unit.and_then(|unit| units.registered.get(unit as usize)).map(|unit| unit.label.clone());
                self.sets.push(InUnit { copies: copies.clone(), unit: label });
            }
        }
        // Across units: those with a target, by cluster and the namespace the object lands in.
        let own_namespace = keys[set[0]].and_then(|key| key.namespace.as_deref());
        // (cluster, namespace) -> the copies and the units that put them there.
        type Placed<'s> = Vec<((&'s str, Option<&'s str>), Vec<(usize, u32)>)>;
        let mut placed: Placed<'_> = Vec::new();
        let reached = set.iter().flat_map(|&index| {
            let echoes = echoes_of.get(&index).map(Vec::as_slice).unwrap_or_default();
            units.unit_of(index).into_iter().chain(echoes.iter().copied()).map(move |unit| (index, unit))
        });
        for (index, unit) in reached {
            let Some((cluster, default_namespace)) =
                units.registered.get(unit as usize).and_then(|u| u.target.as_ref())
            else {
                continue;
            };
            let place = (cluster.as_ref(), own_namespace.or(default_namespace.as_deref()));
            match placed.iter_mut().find(|(known, _)| *known == place) {
                Some((_, reached)) => {
                    if !reached.iter().any(|(_, known)| *known == unit) {
                        reached.push((index, unit));
                    }
                }
                None => placed.push((place, vec![(index, unit)])),
            }
        }
        for ((cluster, namespace), reached) in placed {
            if reached.len() < 2 {
                continue;
            }
            let differ = reached[1..].iter().any(|&(other, _)| other != reached[0].0 && !same(reached[0].0, other));
            self.owners.push(Owners {
                copies: reached
                    .iter()
                    .map(|&(index, unit)| (index, units.registered[unit as usize].label.clone()))
                    .collect(),
                cluster: cluster.into(),
                namespace: namespace.map(Into::into),
                differ,
            });
        }
    }

    /// The scopes document `index` is judged in (none: common to every scope, or no scopes at all).
    pub(crate) fn scopes_of(&self, index: usize) -> impl Iterator<Item = u32> + '_ {
        let also = self.also.get(&index).map(Vec::as_slice).unwrap_or_default();
        self.scope.get(index).copied().flatten().into_iter().chain(also.iter().copied())
    }

    /// Whether document `index` is common to every scope.
    pub(crate) fn is_common(&self, index: usize) -> bool {
        self.scope.get(index).copied().flatten().is_none()
    }

    /// Whether document `index` is judged in `scope` (`None`: the bundle is not split): a common document is judged
    /// in every scope.
    pub(crate) fn judged_in(&self, index: usize, scope: Option<u32>) -> bool {
        self.is_common(index) || scope.is_some_and(|scope| self.scopes_of(index).any(|own| own == scope))
    }

    /// Whether documents `a` and `b` are judged in the same scopes.
    pub(crate) fn same_scopes(&self, a: usize, b: usize) -> bool {
        self.scopes_of(a).eq(self.scopes_of(b))
    }

    /// Whether some documents are judged apart from others.
    pub(crate) fn splits(&self) -> bool {
        self.scope.iter().any(Option::is_some)
    }

    /// The document indexes the findings are about (each set's copies), in no order.
    fn reported(&self) -> impl Iterator<Item = usize> + '_ {
        let in_unit = self.sets.iter().flat_map(|set| set.copies.iter().copied());
        in_unit.chain(self.owners.iter().flat_map(|owners| owners.copies.iter().map(|(index, _)| *index)))
    }

    /// `members` (document indexes, in input order) split by scope: one list per scope among them, each with the
    /// common members; `members` itself when they hold at most one scope. The flag says whether the list shares
    /// documents with another list.
    pub(crate) fn split(&self, members: Vec<usize>) -> Vec<(Option<u32>, Vec<usize>, bool)> {
        let mut by_scope: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut common = Vec::new();
        let mut position: HashMap<u32, usize> = HashMap::default();
        let mut in_several = false;
        for &index in &members {
            if self.is_common(index) {
                common.push(index);
                continue;
            }
            in_several |= self.also.contains_key(&index);
            for scope in self.scopes_of(index) {
                let at = *position.entry(scope).or_insert_with(|| {
                    by_scope.push((scope, Vec::new()));
                    by_scope.len() - 1
                });
                by_scope[at].1.push(index);
            }
        }
        match by_scope.len() {
            0 => vec![(None, members, false)],
            1 => vec![(Some(by_scope[0].0), members, false)],
            _ => by_scope
                .into_iter()
                .map(|(scope, mut own)| {
                    own.extend(&common);
                    own.sort_unstable();
                    (Some(scope), own, in_several || !common.is_empty())
                })
                .collect(),
        }
    }
}

/// `source:line` of a copy.
fn place(document: &Document) -> String {
    document.location_of("/metadata/name")
}

/// `Kind namespace/name` of an object, for messages.
fn shown(document: &Document) -> String {
    let namespace = document.namespace().map(|ns| format!("{ns}/")).unwrap_or_default();
    format!("{} {namespace}{}", document.kind(), document.name())
}

/// The `duplicate-object` findings of one set of copies in one unit (indexes of `sink`'s documents, in input
/// order): one on each copy but the last.
pub(crate) fn report(sink: &mut Sink<'_>, set: &[usize], unit: Option<&str>) {
    const LISTED: usize = 5;
    let documents = sink.documents;
    let Some(&last) = set.last() else { return };
    for (position, &index) in set.iter().enumerate().take(set.len() - 1) {
        let copy = &documents[index];
        let others: Vec<String> = set
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != position)
            .take(LISTED)
            .map(|(_, &other)| place(&documents[other]))
            .collect();
        let more = match set.len() - 1 {
            n if n > LISTED => format!(" and {} more", n - LISTED),
            _ => String::new(),
        };
        let (within, applying) = match unit {
            Some(unit) => (format!(" in {unit}"), "applying them together"),
            None => (String::new(), "`kubectl apply` of them together"),
        };
        sink.emit(
            DUPLICATE_OBJECT,
            index,
            "/metadata/name",
            format!(
                "{} is defined {} times with different content{within} (also at {}{more}); {applying} keeps the \
                 last copy, at {}, so this copy never takes effect; each copy is checked with the objects of its own \
                 file or directory",
                shown(copy),
                set.len(),
                others.join(", "),
                place(&documents[last]),
            ),
        );
    }
}

/// The `duplicate-object` finding of one object that several units apply to one cluster and namespace (`copies`:
/// indexes of `sink`'s documents with their units' labels, in input order): on the first copy, naming every unit.
pub(crate) fn report_owners(sink: &mut Sink<'_>, owners: &Owners, copies: &[(usize, &str)]) {
    let documents = sink.documents;
    let Some(&(first, _)) = copies.first() else { return };
    let named: Vec<String> =
        copies.iter().map(|(index, unit)| format!("{unit} (at {})", place(&documents[*index]))).collect();
    let namespace = owners.namespace.as_deref().map(|ns| format!(", namespace {ns}")).unwrap_or_default();
    let count = match copies.len() {
        2 => "two".to_string(),
        n => n.to_string(),
    };
    let differ = if owners.differ { " with different content" } else { "" };
    sink.emit(
        DUPLICATE_OBJECT,
        first,
        "/metadata/name",
        format!(
            "{} has {count} owners that apply it{differ} to {}{namespace}: {}; each overwrites the other's copy, and \
             pruning or deleting either one deletes it from the cluster; keep it in one of them",
            shown(&documents[first]),
            owners.cluster,
            named.join(" and "),
        ),
    );
}

/// The `duplicate-object` findings of `duplicates` over `documents` (the bundle's, or only the copies: `read`
/// gives the document of an index).
pub(crate) fn report_all(
    duplicates: &Duplicates,
    read: impl Fn(usize) -> Document,
    selection: &RuleSelection,
    work: &Work,
) -> Vec<Finding> {
    let mut wanted: Vec<usize> = duplicates.reported().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let copies: Vec<Document> = wanted.iter().map(|&index| read(index)).collect();
    let local = |index: usize| wanted.binary_search(&index).expect("every reported copy was read");
    let mut sink = Sink { selection, documents: &copies, found: Vec::new(), work };
    report_sets(&mut sink, duplicates, local);
    sink.finish()
}

/// The findings of `duplicates` into `sink`, whose documents are at `local(index)`.
pub(crate) fn report_sets(sink: &mut Sink<'_>, duplicates: &Duplicates, local: impl Fn(usize) -> usize) {
    for set in &duplicates.sets {
        let copies: Vec<usize> = set.copies.iter().map(|&index| local(index)).collect();
        report(sink, &copies, set.unit.as_deref());
    }
    for owners in &duplicates.owners {
        let copies: Vec<(usize, &str)> =
            owners.copies.iter().map(|(index, unit)| (local(*index), unit.as_ref())).collect();
        report_owners(sink, owners, &copies);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(values: &[Value]) -> Vec<Option<ObjectKey>> {
        values.iter().map(ObjectKey::of).collect()
    }

    fn refs(keys: &[Option<ObjectKey>]) -> Vec<Option<&ObjectKey>> {
        keys.iter().map(Option::as_ref).collect()
    }

    fn cm(name: &str, data: &str) -> Value {
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}, "data": {"k": data}})
    }

    fn in_unit(copies: &[usize], unit: Option<&str>) -> InUnit {
        InUnit { copies: copies.to_vec(), unit: unit.map(Into::into) }
    }

    #[test]
    fn differing_copies_in_two_directories_make_two_scopes_and_the_rest_is_common() {
        let values = [cm("a", "1"), cm("a", "2"), cm("shared", "x"), cm("b", "same"), cm("b", "same")];
        let sources = ["one/x.yaml", "two/x.yaml", "base/s.yaml", "one/x.yaml", "two/x.yaml"];
        let found = Duplicates::find(&refs(&keys(&values)), &sources, Units::default(), |a, b| values[a] == values[b]);
        assert!(found.sets.is_empty() && found.owners.is_empty(), "two plain files are two units: {found:?}");
        assert_eq!(found.scope, [Some(0), Some(1), None, Some(0), Some(1)]);
        let split = found.split(vec![0, 1, 2, 3, 4]);
        assert_eq!(split, [(Some(0), vec![0, 2, 3], true), (Some(1), vec![1, 2, 4], true)]);
        assert_eq!(found.split(vec![2]), [(None, vec![2], false)]);
    }

    #[test]
    fn copies_in_two_files_of_one_directory_split_it_by_file_and_copies_in_one_file_stay_together() {
        let values = [cm("a", "1"), cm("a", "2"), cm("c", "3"), cm("c", "4"), cm("c", "4")];
        let sources = ["d/x.yaml", "d/y.yaml", "e.yaml", "e.yaml", "e.yaml"];
        let found = Duplicates::find(&refs(&keys(&values)), &sources, Units::default(), |a, b| values[a] == values[b]);
        assert_eq!(found.sets, [in_unit(&[2, 3, 4], None)], "only the copies within one file");
        assert_eq!(found.scope, [Some(0), Some(1), None, None, None]);
        let no_name = [serde_json::json!({"kind": "ConfigMap"}), serde_json::json!({"kind": "ConfigMap"})];
        let found = Duplicates::find(&refs(&keys(&no_name)), &["a", "b"], Units::default(), |_, _| false);
        assert!(found.sets.is_empty() && !found.splits());
    }

    fn unit(label: &str, target: Option<(&str, Option<&str>)>) -> ApplyUnit {
        ApplyUnit { label: label.into(), target: target.map(|(cluster, ns)| (cluster.into(), ns.map(Into::into))) }
    }

    #[test]
    fn built_units_report_within_themselves_and_owners_on_one_cluster_and_namespace() {
        let registered = [
            unit("chart render", None),
            unit("Argo CD Application/a", Some(("in-cluster", Some("ns")))),
            unit("Argo CD Application/b", Some(("in-cluster", Some("ns")))),
            unit("Argo CD Application/c", Some(("in-cluster", Some("other")))),
            unit("Argo CD Application/d", Some(("elsewhere", Some("ns")))),
        ];
        // The chart's own render and Application a's render of one template, with other values: judged apart, no
        // finding. Application b reaches a's copy of `shared` from the same place (an echo): two owners.
        // `shared` has no namespace: it lands in each unit's.
        let mut shared = cm("shared", "x");
        shared["metadata"].as_object_mut().unwrap().remove("namespace");
        let values = [cm("a", "1"), cm("a", "2"), shared, cm("dup", "1"), cm("dup", "2")];
        let sources = ["t.yaml", "t.yaml", "s.yaml", "u.yaml", "u.yaml"];
        let of = [Some(0), Some(1), Some(1), Some(3), Some(3)];
        let echoes = [(2, 2), (2, 3), (2, 4)];
        let units = Units { of: &of, registered: &registered, echoes: &echoes };
        let found = Duplicates::find(&refs(&keys(&values)), &sources, units, |a, b| values[a] == values[b]);
        assert_eq!(found.sets, [in_unit(&[3, 4], Some("Argo CD Application/c"))]);
        assert_eq!(
            found.owners,
            [Owners {
                copies: vec![(2, "Argo CD Application/a".into()), (2, "Argo CD Application/b".into())],
                cluster: "in-cluster".into(),
                namespace: Some("ns".into()),
                differ: false,
            }],
            "c puts it in another namespace, d on another cluster"
        );
        // `shared` is reached by units that are no scope (b, c, d hold no differing copy): common to every scope.
        assert_eq!(found.scope, [Some(0), Some(1), None, None, None]);
        // Reached by two scopes only: judged in both.
        let echoes = [(2, 0)];
        let units = Units { of: &of, registered: &registered, echoes: &echoes };
        let found = Duplicates::find(&refs(&keys(&values)), &sources, units, |a, b| values[a] == values[b]);
        assert_eq!(found.scope, [Some(0), Some(1), Some(1), None, None]);
        assert_eq!(found.also.get(&2), Some(&vec![0]));
        assert_eq!(found.split(vec![0, 1, 2]), [(Some(0), vec![0, 2], true), (Some(1), vec![1, 2], true)]);
    }
}
