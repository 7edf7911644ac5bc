//! The rules over a stream of documents without holding the stream: each document is kept packed
//! ([`super::packed_value`]: a fraction of the size of its value) with its line records and namespaces, and at the
//! end the rules run over one group of related documents at a time, turned back into values (the same keys in the
//! same order, the same strings and numbers, so the same lines; a document with a float is kept as its value, so
//! that copies of it compare as values, as they did when documents were kept as JSON text).
//!
//! Groups are exact for the rules: they relate objects only by namespace and name (a reference, a label or an
//! annotation naming another object, an ASO owner naming an embedded ASO object, a MachinePool's `clusterName`), an
//! object to others of its own namespace or of a namespace it names (`namespace`, `classNamespace`, ... anywhere in
//! it), and an object without a namespace to every other. So two objects share a group when one holds, anywhere (a
//! value or a key), a string that is a name the other holds (its `metadata.name`, or that of an ASO object in its
//! `resources`) in a namespace the first relates to, and groups are the connected sets of that relation: in a
//! fleet, about one cluster each. Two exceptions: a core Secret or an AzureClusterIdentity is only read alone or
//! looked up by name (first match), so the first of its kind and name (the one a lookup finds; every cluster of a
//! rendered `aks` fleet carries its own copy of the identity) joins every group that names it without joining
//! them; the ASO patch rules judge a pool template with the only control plane template of its namespace, so the
//! classic templates of a namespace share a group. One object without a namespace makes the whole bundle one
//! group. Where copies of one object differ, a group is split by scope (file or directory, see
//! [`super::duplicates`]) so that each copy is judged with its own objects.

use std::hash::BuildHasher;

use serde_json::Value;

use super::bundle::At;
use super::duplicates::{self, ApplyUnit, Duplicates, ObjectKey, Units};
use super::packed_value;
use super::{RuleSelection, Sink, Work, aso_patches, check_bundle_rules};
use crate::fast_hash::{HashMap, RandomState};
use crate::manifest::{Document, LineIndex, Origin};
use crate::report::Finding;

/// Kinds the ASO patch rules read (see `migrate::find_classic_clusters` and `aso_patches::PATCH_FIELDS`).
const PATCH_KINDS: &[&str] = &[
    "AzureManagedControlPlane",
    "AzureManagedCluster",
    "AzureManagedMachinePool",
    "AzureClusterIdentity",
    "AzureManagedControlPlaneTemplate",
    "AzureManagedMachinePoolTemplate",
];

/// The namespaces a document relates to, as ids of [`StreamedBundle::namespace_ids`]: its own (none: it relates to
/// every namespace) and those it names. Most documents name only their own: `others` is then empty (no allocation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Namespaces {
    own: Option<u32>,
    others: Vec<u32>,
}

/// Every string under a key that ends in `namespace` (any case), anywhere in `value`.
fn named_namespaces(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                // Bytes, not a `str` slice: a key may hold multi-byte characters.
                let names_namespace =
                    key.len() >= 9 && key.as_bytes()[key.len() - 9..].eq_ignore_ascii_case(b"namespace");
                if let (true, Some(name)) = (names_namespace, child.as_str()) {
                    out.push(name.to_string());
                }
                named_namespaces(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| named_namespaces(item, out)),
        _ => {}
    }
}

/// A document as the rules will need it: packed (or its value, when it holds a float), with its origin, lines and
/// namespaces.
#[derive(Debug)]
struct Kept {
    body: Body,
    origin: Origin,
    lines: LineIndex,
    namespaces: Namespaces,
    /// The names it holds, as ids of [`StreamedBundle::name_ids`].
    names: Box<[u32]>,
    /// A core `Secret` or an AzureClusterIdentity: the rules read one alone, or look it up by name from another
    /// object (first match: credentials.rs, the classic cluster's identity), never the objects naming it together,
    /// so it can join every group that names it instead of joining those groups into one.
    shared: Option<SharedKind>,
    /// What `kubectl apply` identifies it by.
    key: Option<ObjectKey>,
    /// The registered apply unit it was built in (`None`: a plain file, its own unit).
    unit: Option<u32>,
    /// An AzureManagedControlPlaneTemplate or AzureManagedMachinePoolTemplate: the ASO patch rules relate it to the
    /// others of its namespace.
    classic_template: bool,
}

/// The kinds of shared objects (see [`Kept::shared`]): the rules look each up by kind and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SharedKind {
    Secret,
    Identity,
}

#[derive(Debug)]
enum Body {
    Packed(Box<[u8]>),
    Value(Box<Value>),
}

impl Kept {
    fn new(document: &Document, namespaces: Namespaces, names: Box<[u32]>) -> Self {
        let body = match has_float(&document.value) {
            true => Body::Value(Box::new(document.value.clone())),
            false => Body::Packed(packed_value::pack(&document.value)),
        };
        let shared = match document.kind() {
            "Secret" if document.api_version() == "v1" => Some(SharedKind::Secret),
            "AzureClusterIdentity" if document.api_version().starts_with("infrastructure.cluster.x-k8s.io/") => {
                Some(SharedKind::Identity)
            }
            _ => None,
        };
        let classic_template =
            matches!(document.kind(), "AzureManagedControlPlaneTemplate" | "AzureManagedMachinePoolTemplate");
        let (origin, lines) = (document.origin.clone(), document.lines.clone());
        let key = ObjectKey::of(&document.value);
        Kept { body, origin, lines, namespaces, names, shared, key, unit: None, classic_template }
    }

    /// Whether two kept documents hold the same object content.
    fn same_content(&self, other: &Kept) -> bool {
        match (&self.body, &other.body) {
            (Body::Packed(a), Body::Packed(b)) => a == b,
            (Body::Value(a), Body::Value(b)) => a == b,
            _ => false,
        }
    }

    fn value(&self) -> Value {
        match &self.body {
            Body::Packed(bytes) => packed_value::unpack(bytes),
            Body::Value(value) => Value::clone(value),
        }
    }

    fn document(&self) -> Document {
        Document { value: self.value(), origin: self.origin.clone(), lines: self.lines.clone() }
    }
}

/// The names `value` holds for the bundle rules: its `metadata.name` and those of the ASO objects in its
/// `resources` ("" where a name is missing or not a string, as [`super::bundle::Bundle`] reads them).
fn held_names(value: &Value) -> Vec<&str> {
    fn name_of(object: &Value) -> &str {
        object.str_at("/metadata/name").unwrap_or("")
    }
    let mut names = vec![name_of(value)];
    for pointer in ["/spec/resources", "/spec/template/spec/resources"] {
        if let Some(Value::Array(items)) = value.at(pointer) {
            names.extend(items.iter().filter(|item| item.is_object()).map(name_of));
        }
    }
    names
}

/// Calls `visit` with every string in `value`: values and keys, at any depth.
fn each_string<'v>(value: &'v Value, visit: &mut impl FnMut(&'v str)) {
    match value {
        Value::String(text) => visit(text),
        Value::Object(map) => {
            for (key, child) in map {
                visit(key);
                each_string(child, visit);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| each_string(item, visit)),
        _ => {}
    }
}

fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.is_f64(),
        Value::Object(map) => map.values().any(has_float),
        Value::Array(items) => items.iter().any(has_float),
        _ => false,
    }
}

/// A bundle fed batch by batch ([`StreamedBundle::add`]) and checked at the end ([`StreamedBundle::check`]).
#[derive(Debug, Default)]
pub struct StreamedBundle {
    kept: Vec<Kept>,
    /// Every namespace seen, numbered in order of appearance.
    namespace_ids: HashMap<String, u32>,
    /// Every name a document holds, per namespace id, numbered in order of appearance.
    name_ids: HashMap<u32, HashMap<Box<str>, u32>>,
    name_count: u32,
    /// Whether a name of this length (in bytes) is held: strings of other lengths are not looked up.
    name_lengths: Vec<bool>,
    /// The apply units of built documents.
    units: Vec<ApplyUnit>,
    /// Documents a further unit reached with the same content from the same place: (kept index, unit).
    echoes: Vec<(usize, u32)>,
    /// Kept documents of registered units by (source, line), to find those another unit reaches again.
    places: HashMap<(std::sync::Arc<str>, usize), Vec<usize>>,
}

/// What [`StreamedBundle`] keeps of one document, made without the bundle (on any thread): see
/// [`StreamedBundle::prepare`].
#[derive(Debug)]
pub struct PreparedDocument {
    kept: Kept,
    own_namespace: Option<String>,
    /// Every string under a key ending in `namespace`.
    named_namespaces: Vec<String>,
    /// The names it holds (see [`held_names`]), when it has a namespace.
    held_names: Vec<String>,
}

impl PreparedDocument {
    /// Adds `offset` to the document's index in its source (pieces of a source are read apart, then numbered).
    pub fn shift_index(&mut self, offset: usize) {
        self.kept.origin.index += offset;
    }
}

impl StreamedBundle {
    /// Keeps what the rules need of `documents`.
    pub fn add(&mut self, documents: &[Document]) {
        self.add_prepared(Self::prepare(documents));
    }

    /// The costly part of [`StreamedBundle::add`] (the compact JSON, the names and namespaces a document holds),
    /// which needs no bundle: prepared on several threads, documents are added in order by
    /// [`StreamedBundle::add_prepared`], with the same result as [`StreamedBundle::add`].
    pub fn prepare(documents: &[Document]) -> Vec<PreparedDocument> {
        documents
            .iter()
            .map(|document| {
                let own_namespace = document.value.str_at("/metadata/namespace");
                let mut named = Vec::new();
                named_namespaces(&document.value, &mut named);
                let held = match own_namespace {
                    Some(_) => held_names(&document.value).into_iter().map(str::to_string).collect(),
                    None => Vec::new(),
                };
                PreparedDocument {
                    kept: Kept::new(document, Namespaces::default(), Box::default()),
                    own_namespace: own_namespace.map(str::to_string),
                    named_namespaces: named,
                    held_names: held,
                }
            })
            .collect()
    }

    /// Registers an apply unit (a build: what one GitOps object applies, a kustomize root, a chart render); its
    /// documents are added with [`StreamedBundle::add_in_unit`].
    pub fn add_unit(&mut self, unit: ApplyUnit) -> u32 {
        self.units.push(unit);
        (self.units.len() - 1) as u32
    }

    /// Keeps what the rules need of `documents`, built in `unit` (an id of [`StreamedBundle::add_unit`]). A document
    /// another unit already reached from the same place (source and line) with the same content is one object
    /// reached twice: it is not kept again, only noted as reached by this unit too (for `duplicate-object`'s owners).
    pub fn add_in_unit(&mut self, documents: &[Document], unit: u32) {
        for mut prepared in Self::prepare(documents) {
            let place = (prepared.kept.origin.source.clone(), prepared.kept.origin.line);
            let earlier = self.places.get(&place).and_then(|indexes| {
                indexes
                    .iter()
                    .copied()
                    .find(|&index| self.kept[index].unit != Some(unit) && self.kept[index].same_content(&prepared.kept))
            });
            if let Some(index) = earlier {
                self.echoes.push((index, unit));
                continue;
            }
            prepared.kept.unit = Some(unit);
            self.places.entry(place).or_default().push(self.kept.len());
            self.add_prepared(vec![prepared]);
        }
    }

    /// Keeps documents prepared by [`StreamedBundle::prepare`], in order.
    pub fn add_prepared(&mut self, prepared: Vec<PreparedDocument>) {
        for PreparedDocument { mut kept, own_namespace, named_namespaces, held_names } in prepared {
            let namespaces = self.namespaces_of(own_namespace.as_deref(), named_namespaces);
            kept.names = match namespaces.own {
                Some(own) => held_names.iter().map(|name| self.name_id(own, name)).collect(),
                None => Box::default(),
            };
            kept.namespaces = namespaces;
            self.kept.push(kept);
        }
    }

    fn name_id(&mut self, namespace: u32, name: &str) -> u32 {
        let names = self.name_ids.entry(namespace).or_default();
        if let Some(id) = names.get(name) {
            return *id;
        }
        let id = self.name_count;
        self.name_count += 1;
        names.insert(name.into(), id);
        if self.name_lengths.len() <= name.len() {
            self.name_lengths.resize(name.len() + 1, false);
        }
        self.name_lengths[name.len()] = true;
        id
    }

    /// The ids of the names held in the bundle that document `kept` holds as a string, in a namespace it relates to.
    fn mentioned_names(&self, kept: &Kept) -> Vec<u32> {
        let Some(own) = kept.namespaces.own else { return Vec::new() };
        let tables: Vec<&HashMap<Box<str>, u32>> = std::iter::once(&own)
            .chain(&kept.namespaces.others)
            .filter_map(|namespace| self.name_ids.get(namespace))
            .collect();
        let mut found = Vec::new();
        let mut visit = |text: &str| {
            if self.name_lengths.get(text.len()).copied().unwrap_or(false) {
                found.extend(tables.iter().filter_map(|names| names.get(text)).copied());
            }
        };
        match &kept.body {
            Body::Packed(bytes) => packed_value::each_string(bytes, &mut visit),
            Body::Value(value) => each_string(value, &mut visit),
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    fn namespace_id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.namespace_ids.get(name) {
            return *id;
        }
        let id = self.namespace_ids.len() as u32;
        self.namespace_ids.insert(name.to_string(), id);
        id
    }

    /// The namespaces of a document in `own` naming `named`, as ids.
    fn namespaces_of(&mut self, own: Option<&str>, named: Vec<String>) -> Namespaces {
        let own = own.map(|own| self.namespace_id(own));
        let mut others: Vec<u32> = named.into_iter().map(|name| self.namespace_id(&name)).collect();
        others.sort_unstable();
        others.dedup();
        others.retain(|id| Some(*id) != own);
        Namespaces { own, others }
    }

    /// Runs the selected rules over everything added; findings as [`super::check`] gives them for each group.
    pub fn check(&self, selection: &RuleSelection) -> Vec<Finding> {
        self.check_counting(selection, &Work::default())
    }

    /// [`Self::check`], counting what the rules did into `work`.
    pub fn check_counting(&self, selection: &RuleSelection, work: &Work) -> Vec<Finding> {
        let mut found = Vec::new();
        let keys: Vec<Option<&ObjectKey>> = self.kept.iter().map(|kept| kept.key.as_ref()).collect();
        let sources: Vec<&str> = self.kept.iter().map(|kept| &*kept.origin.source).collect();
        let units: Vec<Option<u32>> = self.kept.iter().map(|kept| kept.unit).collect();
        let units = Units { of: &units, registered: &self.units, echoes: &self.echoes };
        let duplicates = Duplicates::find(&keys, &sources, units, |a, b| self.kept[a].same_content(&self.kept[b]));
        found.extend(duplicates::report_all(&duplicates, |index| self.kept[index].document(), selection, work));
        // An object in several groups gets the same finding from each: keep one, as the whole bundle gives one. The
        // findings of such groups kept so far, by hash (indexes into `found`): compared whole, not as JSON text.
        let hasher = RandomState::default();
        let mut seen_on_shared: HashMap<u64, Vec<usize>> = HashMap::default();
        let groups = self.groups(&duplicates);
        let judged: usize = groups.iter().map(|group| group.members.len()).sum();
        work.count_judged(judged);
        let checked = check_groups_on_every_core(&groups, selection, work);
        for (group, findings) in groups.iter().zip(checked) {
            if group.shares_objects {
                for finding in findings {
                    let copies = seen_on_shared.entry(hasher.hash_one(&finding)).or_default();
                    if !copies.iter().any(|&index| found[index] == finding) {
                        copies.push(found.len());
                        found.push(finding);
                    }
                }
            } else {
                found.extend(findings);
            }
        }
        found
    }

    /// The documents in groups of related documents (each group in input order; groups by their first document),
    /// a group split by scope where it holds copies of one object that differ (see [`Duplicates`]).
    // Long: one union-find pass over the documents and the names they hold: its steps share the parent array,
    // the holders of shared names and each set's groups, which split functions would all pass around.
    fn groups(&self, duplicates: &Duplicates) -> Vec<Group<'_>> {
        if self.kept.iter().any(|kept| kept.namespaces.own.is_none()) {
            let all = (0..self.kept.len()).collect();
            return duplicates
                .split(all)
                .into_iter()
                .map(|(_, members, shares)| Group {
                    members: members.into_iter().map(|index| &self.kept[index]).collect(),
                    shares_objects: shares,
                })
                .collect();
        }
        // Names held only by shared objects (see [`Kept::shared`]) are shared: a document naming one gets their
        // holders into its group (the first of each kind per scope: the one a lookup finds), and they join no
        // groups together. Every other name joins its holders and those naming it.
        let mut shared_holders: Vec<Vec<usize>> = vec![Vec::new(); self.name_count as usize];
        let mut shared = vec![true; self.name_count as usize];
        for (index, kept) in self.kept.iter().enumerate() {
            for name in kept.names.iter().map(|name| *name as usize) {
                match kept.shared {
                    Some(kind) => {
                        let holders = &mut shared_holders[name];
                        if !holders
                            .iter()
                            .any(|&h| self.kept[h].shared == Some(kind) && duplicates.same_scopes(h, index))
                        {
                            holders.push(index);
                        }
                    }
                    None => shared[name] = false,
                }
            }
        }
        let is_shared = |kept: &Kept| kept.shared.is_some() && kept.names.iter().all(|name| shared[*name as usize]);
        // Union-find over documents (0..n) and held names (n + id).
        let documents = self.kept.len();
        let mut parent: Vec<usize> = (0..documents + self.name_count as usize).collect();
        fn root(parent: &mut [usize], mut id: usize) -> usize {
            while parent[id] != id {
                parent[id] = parent[parent[id]];
                id = parent[id];
            }
            id
        }
        let join = |parent: &mut Vec<usize>, a: usize, b: usize| {
            let (a, b) = (root(parent, a), root(parent, b));
            parent[a.max(b)] = a.min(b);
        };
        let mentioned = self.on_every_core(|kept| match is_shared(kept) {
            true => Vec::new(),
            false => self.mentioned_names(kept),
        });
        let mut needs: Vec<(usize, u32)> = Vec::new();
        for (index, (kept, mentioned)) in self.kept.iter().zip(&mentioned).enumerate() {
            if is_shared(kept) {
                continue;
            }
            for name in kept.names.iter().chain(mentioned) {
                match shared[*name as usize] {
                    true => needs.push((index, *name)),
                    false => join(&mut parent, index, documents + *name as usize),
                }
            }
        }
        let mut first_template: HashMap<Option<u32>, usize> = HashMap::default();
        for (index, kept) in self.kept.iter().enumerate().filter(|(_, kept)| kept.classic_template) {
            let first = *first_template.entry(kept.namespaces.own).or_insert(index);
            join(&mut parent, first, index);
        }
        let mut group_of_root: HashMap<usize, usize> = HashMap::default();
        let mut connected: Vec<Vec<usize>> = Vec::new();
        for index in 0..documents {
            let group = *group_of_root.entry(root(&mut parent, index)).or_insert_with(|| {
                connected.push(Vec::new());
                connected.len() - 1
            });
            connected[group].push(index);
        }
        // Each connected set, split by scope: `parts[set]` are its groups in `members`.
        let mut members: Vec<(Option<u32>, Vec<usize>, bool)> = Vec::new();
        let mut parts: Vec<std::ops::Range<usize>> = Vec::with_capacity(connected.len());
        for set in connected {
            let start = members.len();
            members.extend(duplicates.split(set));
            parts.push(start..members.len());
        }
        for (index, name) in needs {
            let set = group_of_root[&root(&mut parent, index)];
            for group in parts[set].clone() {
                let scope = members[group].0;
                if !duplicates.judged_in(index, scope) {
                    continue;
                }
                let holders = &shared_holders[name as usize];
                let mut kinds: Vec<SharedKind> = holders.iter().filter_map(|&h| self.kept[h].shared).collect();
                kinds.dedup();
                for kind in kinds {
                    let of_kind = || holders.iter().copied().filter(move |&h| self.kept[h].shared == Some(kind));
                    let holder = of_kind()
                        .find(|&h| scope.is_some() && !duplicates.is_common(h) && duplicates.judged_in(h, scope))
                        .or_else(|| of_kind().find(|&h| duplicates.is_common(h)))
                        .or_else(|| of_kind().next());
                    members[group].1.extend(holder);
                }
            }
        }
        members
            .into_iter()
            .map(|(_, mut members, split_shares)| {
                members.sort_unstable();
                members.dedup();
                let shares_objects = split_shares || members.iter().any(|index| is_shared(&self.kept[*index]));
                Group { members: members.into_iter().map(|index| &self.kept[index]).collect(), shares_objects }
            })
            .collect()
    }

    /// `work` on every kept document, in order, on every core.
    fn on_every_core<T: Send>(&self, work: impl Fn(&Kept) -> T + Sync) -> Vec<T> {
        on_every_core(&self.kept.iter().collect::<Vec<_>>(), work)
    }
}

/// Documents the rules run over together.
struct Group<'k> {
    members: Vec<&'k Kept>,
    /// Whether it holds objects other groups hold too.
    shares_objects: bool,
}

/// The findings of the rules over one group (see [`StreamedBundle::check`]).
fn check_group(group: &Group<'_>, selection: &RuleSelection, work: &Work) -> Vec<Finding> {
    let documents = read_kept(&group.members);
    let mut sink = Sink { selection, documents: &documents, found: Vec::new(), work };
    check_bundle_rules(&documents, &mut sink);
    let mut findings = sink.finish();
    let classic: Vec<Document> = documents.into_iter().filter(wanted_by_patch_rules).collect();
    if !classic.is_empty() {
        let mut sink = Sink { selection, documents: &classic, found: Vec::new(), work };
        aso_patches::check(&classic, &mut sink);
        findings.extend(sink.finish());
        aso_patches::drop_reported_causes(&mut findings);
    }
    findings
}

/// The findings of each group, in the order of `groups`, the groups spread over the cores (each worker takes the
/// next group left), counting into `work`.
fn check_groups_on_every_core(groups: &[Group<'_>], selection: &RuleSelection, work: &Work) -> Vec<Vec<Finding>> {
    let threads = crate::cores::available().min(groups.len());
    if threads <= 1 {
        return groups.iter().map(|group| check_group(group, selection, work)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, Vec<Finding>)> = Vec::with_capacity(groups.len());
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(group) = groups.get(index) else { break };
                        done.push((index, check_group(group, selection, work)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            let done = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            results.extend(done);
        }
    });
    results.sort_unstable_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, findings)| findings).collect()
}

/// Whether the ASO patch rules read `document` (a Cluster or MachinePool only when it points at a classic kind).
fn wanted_by_patch_rules(document: &Document) -> bool {
    let points_at = |pointer: &str, kind: &str| document.value.str_at(pointer) == Some(kind);
    match document.kind() {
        "Cluster" => points_at("/spec/controlPlaneRef/kind", "AzureManagedControlPlane"),
        "MachinePool" => points_at("/spec/template/spec/infrastructureRef/kind", "AzureManagedMachinePool"),
        kind => PATCH_KINDS.contains(&kind),
    }
}

/// The documents of `kept`, in order, read on every core.
fn read_kept(kept: &[&Kept]) -> Vec<Document> {
    on_every_core(kept, Kept::document)
}

/// `work` on each of `kept`, in order, spread over the cores when there are enough of them.
fn on_every_core<T: Send>(kept: &[&Kept], work: impl Fn(&Kept) -> T + Sync) -> Vec<T> {
    let threads = crate::cores::available();
    if kept.len() < 64 * threads {
        return kept.iter().map(|kept| work(kept)).collect();
    }
    let chunk = kept.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = kept
            .chunks(chunk)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|kept| work(kept)).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_namespaces_are_found_under_any_key_ending_in_namespace() {
        let value = serde_json::json!({
            "ééééé": {"classNamespace": "a", "list": [{"Namespace": "b"}]},
            "ñnamespace": "c",
            "namespaces": "not-this",
            "namespace": 3
        });
        let mut names = Vec::new();
        named_namespaces(&value, &mut names);
        assert_eq!(names, ["a", "b", "c"]);
    }

    /// `copies` clusters of tests/fixtures/lint/aks-aso.yaml in one namespace, the i-th named `c{i}`.
    fn fleet_in_one_namespace(copies: usize, edit: impl Fn(usize, String) -> String) -> Vec<Document> {
        let fixture = include_str!("../../tests/fixtures/lint/aks-aso.yaml");
        let mut text = String::new();
        for copy in 0..copies {
            text.push_str(&edit(copy, fixture.replace("my-cluster", &format!("c{copy}"))));
            text.push_str("\n---\n");
        }
        crate::manifest::parse_documents(&text, "fleet.yaml").unwrap()
    }

    fn group_names(bundle: &StreamedBundle) -> Vec<Vec<String>> {
        let name = |kept: &&Kept| kept.document().value.str_at("/metadata/name").unwrap().to_string();
        let mut groups: Vec<Vec<String>> = bundle
            .groups(&Duplicates::default())
            .iter()
            .map(|group| group.members.iter().map(name).collect())
            .collect();
        groups.iter_mut().for_each(|group| {
            group.sort();
            group.dedup();
        });
        groups
    }

    #[test]
    fn clusters_of_one_namespace_are_grouped_apart_unless_one_names_another() {
        let mut bundle = StreamedBundle::default();
        bundle.add(&fleet_in_one_namespace(3, |_, text| text));
        assert_eq!(
            group_names(&bundle),
            [["c0", "c0-pool0", "c0-pool1"], ["c1", "c1-pool0", "c1-pool1"], ["c2", "c2-pool0", "c2-pool1"]]
        );
        // c2's second MachinePool says it belongs to c0: the rules must see both clusters together.
        let mut bundle = StreamedBundle::default();
        bundle.add(&fleet_in_one_namespace(3, |copy, text| match copy {
            2 => text.replace(
                "name: c2-pool1\n  namespace: default\nspec:\n  clusterName: c2\n",
                "name: c2-pool1\n  namespace: default\nspec:\n  clusterName: c0\n",
            ),
            _ => text,
        }));
        let groups = group_names(&bundle);
        assert_eq!(groups.len(), 2, "{groups:?}");
        assert!(groups[0].contains(&"c0".to_string()) && groups[0].contains(&"c2-pool1".to_string()), "{groups:?}");
        // A credential Secret every cluster's ASO objects name goes with each of them, and joins none.
        let mut bundle = StreamedBundle::default();
        let mut documents = fleet_in_one_namespace(3, |_, text| text);
        documents.extend(
            crate::manifest::parse_documents(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: aso-credentials\n  namespace: default\n",
                "secret.yaml",
            )
            .unwrap(),
        );
        bundle.add(&documents);
        let groups = group_names(&bundle);
        assert_eq!(groups.len(), 4, "{groups:?}");
        for (copy, group) in groups[..3].iter().enumerate() {
            assert_eq!(
                group,
                &["aso-credentials", &format!("c{copy}"), &format!("c{copy}-pool0"), &format!("c{copy}-pool1")]
            );
        }
        assert_eq!(groups[3], ["aso-credentials"]);
        // A ConfigMap of the same name is not a Secret: the name joins its holders and those naming it again.
        let mut bundle = StreamedBundle::default();
        documents.extend(
            crate::manifest::parse_documents(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aso-credentials\n  namespace: default\n",
                "configmap.yaml",
            )
            .unwrap(),
        );
        bundle.add(&documents);
        assert_eq!(bundle.groups(&Duplicates::default()).len(), 1);
    }

    #[test]
    fn a_name_in_another_namespace_joins_only_through_a_namespace_the_object_names() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: one}\ndata: {ref: b}\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: two}\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: one}\ndata: {ref: b, namespace: two}\n";
        let mut bundle = StreamedBundle::default();
        bundle.add(&crate::manifest::parse_documents(text, "x.yaml").unwrap());
        assert_eq!(group_names(&bundle), [vec!["a"], vec!["b", "c"]]);
    }
}
