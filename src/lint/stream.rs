//! The rules over a stream of documents without holding the stream: what each document needs for the rules is
//! kept as its text (a fraction of the size of its JSON values) with its namespaces, and at the end the rules run
//! over one group of related documents at a time, read again from that text.
//!
//! Groups are exact for the bundle rules: they relate objects only by namespace and name, an object to others of
//! its own namespace or of a namespace it names (`namespace`, `classNamespace`, ... anywhere in it), and an object
//! without a namespace to every other. So a group is a connected set of namespaces, and one object without a
//! namespace makes the whole bundle one group. The ASO patch rules read the whole classic bundle (one incomplete
//! Cluster stops them for all): the objects they read (classic AKS kinds, the Clusters and MachinePools that point at
//! them) are kept whole, the only documents held as values.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::bundle::At;
use super::{RuleSelection, Sink, aso_patches, check_bundle_rules};
use crate::manifest::{self, Document};
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

/// The namespaces a document relates to: its own (`None`: it has none, so it relates to all) and those it names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Namespaces {
    unbounded: bool,
    names: Vec<String>,
}

impl Namespaces {
    fn of(document: &Document) -> Self {
        let mut names = Vec::new();
        let unbounded = match document.value.at("/metadata/namespace").and_then(Value::as_str) {
            Some(own) => {
                names.push(own.to_string());
                false
            }
            None => true,
        };
        named_namespaces(&document.value, &mut names);
        names.sort();
        names.dedup();
        Namespaces { unbounded, names }
    }

    fn extend(&mut self, other: Namespaces) {
        self.unbounded |= other.unbounded;
        self.names.extend(other.names);
        self.names.sort();
        self.names.dedup();
    }
}

/// Every string under a key that ends in `namespace` (any case), anywhere in `value`.
fn named_namespaces(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key.len() >= 9 && key[key.len() - 9..].eq_ignore_ascii_case("namespace") {
                    if let Some(name) = child.as_str() {
                        out.push(name.to_string());
                    }
                }
                named_namespaces(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| named_namespaces(item, out)),
        _ => {}
    }
}

/// Consecutive documents of one source kept as their text.
#[derive(Debug)]
struct Run {
    source: Arc<str>,
    text: Box<str>,
    line_offset: usize,
    first_index: usize,
    namespaces: Namespaces,
}

impl Run {
    fn read(&self) -> Vec<Document> {
        manifest::parse_documents_tolerant_at(&self.text, &self.source, self.line_offset, self.first_index).documents
    }
}

/// A bundle fed batch by batch ([`StreamedBundle::add`]) and checked at the end ([`StreamedBundle::check`]).
#[derive(Debug, Default)]
pub struct StreamedBundle {
    runs: Vec<Run>,
    patch_documents: Vec<Document>,
}

impl StreamedBundle {
    /// Keeps what the rules need of `documents`, read from `text` (lines `line_offset + 1..` of their source).
    pub fn add(&mut self, text: &str, line_offset: usize, documents: &[Document]) {
        let Some(first) = documents.first() else { return };
        let source = first.origin.source.clone();
        for document in documents {
            if wanted_by_patch_rules(document) {
                self.patch_documents.push(document.clone());
            }
        }
        // The parts of `text` between markers, with the documents read from each.
        let parts = manifest::split_at(text, &manifest::document_markers(text));
        let starts: Vec<usize> = parts.iter().map(|(offset, _)| line_offset + offset + 1).collect();
        let mut per_part: Vec<Option<(usize, Namespaces)>> = vec![None; parts.len()];
        for document in documents {
            let part = starts.partition_point(|start| *start <= document.origin.line).saturating_sub(1);
            let namespaces = Namespaces::of(document);
            match &mut per_part[part] {
                Some((_, kept)) => kept.extend(namespaces),
                slot @ None => *slot = Some((document.origin.index, namespaces)),
            }
        }
        // Runs of consecutive parts with documents and the same namespaces.
        let mut current: Option<(usize, usize, usize, Namespaces)> = None; // (first part, end part, first index, ns)
        let close = |run: Option<(usize, usize, usize, Namespaces)>, runs: &mut Vec<Run>| {
            if let Some((first_part, end_part, first_index, namespaces)) = run {
                let start = parts[first_part].1.as_ptr() as usize - text.as_ptr() as usize;
                let end =
                    parts[end_part - 1].1.as_ptr() as usize - text.as_ptr() as usize + parts[end_part - 1].1.len();
                runs.push(Run {
                    source: source.clone(),
                    text: text[start..end].into(),
                    line_offset: line_offset + parts[first_part].0,
                    first_index,
                    namespaces,
                });
            }
        };
        for (part, slot) in per_part.into_iter().enumerate() {
            match (slot, &mut current) {
                (None, _) => close(current.take(), &mut self.runs),
                (Some((_, namespaces)), Some((_, end, _, kept))) if *end == part && *kept == namespaces => *end += 1,
                (Some((first_index, namespaces)), _) => {
                    close(current.take(), &mut self.runs);
                    current = Some((part, part + 1, first_index, namespaces));
                }
            }
        }
        close(current.take(), &mut self.runs);
    }

    /// Runs the selected rules over everything added; findings as [`super::check`] gives them for each group.
    pub fn check(self, selection: &RuleSelection) -> Vec<Finding> {
        let mut found = Vec::new();
        for group in self.groups() {
            let documents = read_runs(&group);
            let mut sink = Sink { selection, documents: &documents, found: Vec::new() };
            check_bundle_rules(&documents, &mut sink);
            found.extend(sink.finish());
        }
        let mut sink = Sink { selection, documents: &self.patch_documents, found: Vec::new() };
        aso_patches::check(&self.patch_documents, &mut sink);
        found.extend(sink.finish());
        found
    }

    /// The runs in groups of connected namespaces (each group in input order; groups by their first run).
    fn groups(&self) -> Vec<Vec<&Run>> {
        if self.runs.iter().any(|run| run.namespaces.unbounded) {
            return vec![self.runs.iter().collect()];
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut parent: Vec<usize> = Vec::new();
        fn root(parent: &mut [usize], mut id: usize) -> usize {
            while parent[id] != id {
                parent[id] = parent[parent[id]];
                id = parent[id];
            }
            id
        }
        let mut firsts = Vec::with_capacity(self.runs.len());
        for run in &self.runs {
            let mut first = None;
            for name in &run.namespaces.names {
                let id = *ids.entry(name).or_insert_with(|| {
                    parent.push(parent.len());
                    parent.len() - 1
                });
                match first {
                    None => first = Some(id),
                    Some(first) => {
                        let (a, b) = (root(&mut parent, first), root(&mut parent, id));
                        parent[a.max(b)] = a.min(b);
                    }
                }
            }
            firsts.push(first.unwrap_or(0));
        }
        let mut group_of_root: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<Vec<&Run>> = Vec::new();
        for (run, first) in self.runs.iter().zip(firsts) {
            let group = *group_of_root.entry(root(&mut parent, first)).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[group].push(run);
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

/// The documents of `runs`, in order, read on every core.
fn read_runs(runs: &[&Run]) -> Vec<Document> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    if runs.len() < 2 * threads {
        return runs.iter().flat_map(|run| run.read()).collect();
    }
    let chunk = runs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .chunks(chunk)
            .map(|chunk| scope.spawn(move || chunk.iter().flat_map(|run| run.read()).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
