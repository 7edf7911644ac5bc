//! The rules over a stream of documents without holding the stream: each document is kept as compact JSON text
//! with its line records and namespaces (a fraction of the size of its values), and at the end the rules run over
//! one group of related documents at a time, turned back into values (serde_json reads what it wrote exactly:
//! same keys in the same order, same strings and integers, so the same lines; a document with a float is kept as
//! its value, since serde_json's default float reading is not exact to the last bit).
//!
//! Groups are exact for the bundle rules: they relate objects only by namespace and name, an object to others of
//! its own namespace or of a namespace it names (`namespace`, `classNamespace`, ... anywhere in it), and an object
//! without a namespace to every other. So a group is a connected set of namespaces, and one object without a
//! namespace makes the whole bundle one group. The ASO patch rules read the whole classic bundle (one incomplete
//! Cluster stops them for all): the objects they read (classic AKS kinds, the Clusters and MachinePools that point at
//! them) are kept whole, the only documents held as values.

use std::collections::HashMap;

use serde_json::Value;

use super::bundle::At;
use super::{RuleSelection, Sink, aso_patches, check_bundle_rules};
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

/// A document as the rules will need it: compact JSON (or its value, when it holds a float), with its origin, lines
/// and namespaces.
#[derive(Debug)]
struct Kept {
    body: Body,
    origin: Origin,
    lines: LineIndex,
    namespaces: Namespaces,
}

#[derive(Debug)]
enum Body {
    Json(Box<str>),
    Value(Box<Value>),
}

impl Kept {
    fn new(document: &Document, namespaces: Namespaces) -> Self {
        let body = match has_float(&document.value) {
            true => Body::Value(Box::new(document.value.clone())),
            false => Body::Json(document.value.to_string().into_boxed_str()),
        };
        Kept { body, origin: document.origin.clone(), lines: document.lines.clone(), namespaces }
    }

    fn document(&self) -> Document {
        let value = match &self.body {
            // Text this process wrote from a value: it reads back (a failure would be a serde_json bug).
            Body::Json(json) => serde_json::from_str(json).unwrap_or(Value::Null),
            Body::Value(value) => Value::clone(value),
        };
        Document { value, origin: self.origin.clone(), lines: self.lines.clone() }
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
    patch_documents: Vec<Document>,
    /// Every namespace seen, numbered in order of appearance.
    namespace_ids: HashMap<String, u32>,
}

impl StreamedBundle {
    /// Keeps what the rules need of `documents`.
    pub fn add(&mut self, documents: &[Document]) {
        for document in documents {
            if wanted_by_patch_rules(document) {
                self.patch_documents.push(document.clone());
            }
            let namespaces = self.namespaces_of(document);
            self.kept.push(Kept::new(document, namespaces));
        }
    }

    fn namespace_id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.namespace_ids.get(name) {
            return *id;
        }
        let id = self.namespace_ids.len() as u32;
        self.namespace_ids.insert(name.to_string(), id);
        id
    }

    fn namespaces_of(&mut self, document: &Document) -> Namespaces {
        let own = document.value.at("/metadata/namespace").and_then(Value::as_str).map(|own| self.namespace_id(own));
        let mut named = Vec::new();
        named_namespaces(&document.value, &mut named);
        let mut others: Vec<u32> = named.into_iter().map(|name| self.namespace_id(&name)).collect();
        others.sort_unstable();
        others.dedup();
        others.retain(|id| Some(*id) != own);
        Namespaces { own, others }
    }

    /// Runs the selected rules over everything added; findings as [`super::check`] gives them for each group.
    pub fn check(self, selection: &RuleSelection) -> Vec<Finding> {
        let mut found = Vec::new();
        for group in self.groups() {
            let documents = read_kept(&group);
            let mut sink = Sink { selection, documents: &documents, found: Vec::new() };
            check_bundle_rules(&documents, &mut sink);
            found.extend(sink.finish());
        }
        let mut sink = Sink { selection, documents: &self.patch_documents, found: Vec::new() };
        aso_patches::check(&self.patch_documents, &mut sink);
        found.extend(sink.finish());
        found
    }

    /// The documents in groups of connected namespaces (each group in input order; groups by their first document).
    fn groups(&self) -> Vec<Vec<&Kept>> {
        if self.kept.iter().any(|kept| kept.namespaces.own.is_none()) {
            return vec![self.kept.iter().collect()];
        }
        // Union-find over namespace ids: a document joins its own namespace with those it names.
        let mut parent: Vec<u32> = (0..self.namespace_ids.len() as u32).collect();
        fn root(parent: &mut [u32], mut id: u32) -> u32 {
            while parent[id as usize] != id {
                parent[id as usize] = parent[parent[id as usize] as usize];
                id = parent[id as usize];
            }
            id
        }
        for kept in &self.kept {
            let own = kept.namespaces.own.unwrap_or(0);
            for other in &kept.namespaces.others {
                let (a, b) = (root(&mut parent, own), root(&mut parent, *other));
                parent[a.max(b) as usize] = a.min(b);
            }
        }
        let mut group_of_root: HashMap<u32, usize> = HashMap::new();
        let mut groups: Vec<Vec<&Kept>> = Vec::new();
        for kept in &self.kept {
            let group =
                *group_of_root.entry(root(&mut parent, kept.namespaces.own.unwrap_or(0))).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
            groups[group].push(kept);
        }
        groups
    }
}

/// Whether the ASO patch rules read `document` (a Cluster or MachinePool only when it points at a classic kind).
fn wanted_by_patch_rules(document: &Document) -> bool {
    let points_at = |pointer: &str, kind: &str| document.value.at(pointer).and_then(Value::as_str) == Some(kind);
    match document.kind() {
        "Cluster" => points_at("/spec/controlPlaneRef/kind", "AzureManagedControlPlane"),
        "MachinePool" => points_at("/spec/template/spec/infrastructureRef/kind", "AzureManagedMachinePool"),
        kind => PATCH_KINDS.contains(&kind),
    }
}

/// The documents of `kept`, in order, read on every core.
fn read_kept(kept: &[&Kept]) -> Vec<Document> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    if kept.len() < 64 * threads {
        return kept.iter().map(|kept| kept.document()).collect();
    }
    let chunk = kept.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = kept
            .chunks(chunk)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|kept| kept.document()).collect::<Vec<_>>()))
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
}
