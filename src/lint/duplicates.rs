//! The same object (group, kind, namespace, name) defined more than once with different content: `kubectl apply`
//! keeps the last copy, so the rule `duplicate-object` names the copies; and each copy is judged with the objects of
//! its own file or directory ([`Duplicates::scope`]), so the cross-object rules see every copy, in linear time.
//!
//! Scopes: a copy's unit is the directory of its file, or its file when another file of that directory holds a
//! copy of the same object. A unit holding a copy that another unit also holds is a scope of its own; every other
//! document is common to all scopes (a shared identity, a base). Copies in one file cannot be told apart: they
//! stay together and the lookups take the first, as for any bundle. Identical copies are neither reported nor
//! split: whichever copy a lookup finds, the result is the same.

use serde_json::Value;

use super::bundle::At;
use super::{RuleSelection, Sink};
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
        let str_at = |pointer: &str| value.at(pointer).and_then(Value::as_str);
        let kind = str_at("/kind").filter(|kind| !kind.is_empty())?;
        let name = str_at("/metadata/name").filter(|name| !name.is_empty())?;
        Some(ObjectKey {
            group: split_api_version(str_at("/apiVersion").unwrap_or("")).0.into(),
            kind: kind.into(),
            namespace: str_at("/metadata/namespace").filter(|ns| !ns.is_empty()).map(Into::into),
            name: name.into(),
        })
    }
}

/// The objects defined more than once with different content, and the scope each document is judged in.
#[derive(Debug, Default)]
pub(crate) struct Duplicates {
    /// Per document: the scope it is judged in, `None` for documents common to every scope.
    pub scope: Vec<Option<u32>>,
    /// The copies (document indexes, in input order) of each object defined more than once with different content.
    pub sets: Vec<Vec<usize>>,
}

impl Duplicates {
    /// `keys` and `sources` per document; `same(a, b)`: documents `a` and `b` have the same content.
    pub(crate) fn find(keys: &[Option<&ObjectKey>], sources: &[&str], same: impl Fn(usize, usize) -> bool) -> Self {
        let mut copies: HashMap<&ObjectKey, Vec<usize>> = HashMap::default();
        for (index, key) in keys.iter().enumerate() {
            if let Some(key) = *key {
                copies.entry(key).or_default().push(index);
            }
        }
        let mut sets: Vec<Vec<usize>> = copies
            .into_values()
            .filter(|set| set.len() > 1 && set[1..].iter().any(|&other| !same(set[0], other)))
            .collect();
        sets.sort_unstable();
        let mut duplicates = Duplicates { scope: vec![None; keys.len()], sets };
        if duplicates.sets.is_empty() {
            return duplicates;
        }
        // Directories where two files hold copies of one object: their files are units of their own.
        let directory = |index: usize| std::path::Path::new(sources[index]).parent().map(|p| p.as_os_str());
        let mut split_directories = HashSet::default();
        for set in &duplicates.sets {
            let mut file_of_directory = HashMap::default();
            for &index in set {
                let file = *file_of_directory.entry(directory(index)).or_insert(sources[index]);
                if file != sources[index] {
                    split_directories.insert(directory(index));
                }
            }
        }
        let unit_of = |index: usize| match split_directories.contains(&directory(index)) {
            true => (directory(index), Some(sources[index])),
            false => (directory(index), None),
        };
        // Units holding copies that other units hold too are scopes.
        let mut scope_ids = HashMap::default();
        for set in &duplicates.sets {
            let first = unit_of(set[0]);
            if set.iter().all(|&index| unit_of(index) == first) {
                continue;
            }
            for &index in set {
                let next = scope_ids.len() as u32;
                scope_ids.entry(unit_of(index)).or_insert(next);
            }
        }
        for (index, scope) in duplicates.scope.iter_mut().enumerate() {
            *scope = scope_ids.get(&unit_of(index)).copied();
        }
        duplicates
    }

    /// The scope document `index` is judged in (`None`: common to every scope, or no scopes at all).
    pub(crate) fn scope_of(&self, index: usize) -> Option<u32> {
        self.scope.get(index).copied().flatten()
    }

    /// Whether some documents are judged apart from others.
    pub(crate) fn splits(&self) -> bool {
        self.scope.iter().any(Option::is_some)
    }

    /// `members` (document indexes, in input order) split by scope: one list per scope among them, each with the
    /// common members; `members` itself when they hold at most one scope. The flag says whether the list shares
    /// documents with another list.
    pub(crate) fn split(&self, members: Vec<usize>) -> Vec<(Option<u32>, Vec<usize>, bool)> {
        let mut by_scope: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut common = Vec::new();
        let mut position: HashMap<u32, usize> = HashMap::default();
        for &index in &members {
            match self.scope_of(index) {
                None => common.push(index),
                Some(scope) => {
                    let at = *position.entry(scope).or_insert_with(|| {
                        by_scope.push((scope, Vec::new()));
                        by_scope.len() - 1
                    });
                    by_scope[at].1.push(index);
                }
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
                    (Some(scope), own, !common.is_empty())
                })
                .collect(),
        }
    }
}

/// `source:line` of a copy.
fn place(document: &Document) -> String {
    document.location_of("/metadata/name")
}

/// The `duplicate-object` findings of one set of copies (indexes of `sink`'s documents, in input order): one on each
/// copy but the last.
pub(crate) fn report(sink: &mut Sink<'_>, set: &[usize]) {
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
        let namespace = copy.namespace().map(|ns| format!("{ns}/")).unwrap_or_default();
        sink.emit(
            DUPLICATE_OBJECT,
            index,
            "/metadata/name",
            format!(
                "{} {namespace}{} is defined {} times with different content (also at {}{more}); `kubectl apply` of \
                 them together keeps the last copy, at {}, so this copy never takes effect; each copy is checked with \
                 the objects of its own file or directory",
                copy.kind(),
                copy.name(),
                set.len(),
                others.join(", "),
                place(&documents[last]),
            ),
        );
    }
}

/// The `duplicate-object` findings of `duplicates` over `documents` (the bundle's, or only the copies: `read`
/// gives the document of an index).
pub(crate) fn report_all(
    duplicates: &Duplicates,
    read: impl Fn(usize) -> Document,
    selection: &RuleSelection,
) -> Vec<Finding> {
    let mut found = Vec::new();
    for set in &duplicates.sets {
        let copies: Vec<Document> = set.iter().map(|&index| read(index)).collect();
        let mut sink = Sink { selection, documents: &copies, found: Vec::new() };
        report(&mut sink, &(0..copies.len()).collect::<Vec<_>>());
        found.extend(sink.finish());
    }
    found
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

    #[test]
    fn differing_copies_in_two_directories_make_two_scopes_and_the_rest_is_common() {
        let values = [cm("a", "1"), cm("a", "2"), cm("shared", "x"), cm("b", "same"), cm("b", "same")];
        let sources = ["one/x.yaml", "two/x.yaml", "base/s.yaml", "one/x.yaml", "two/x.yaml"];
        let found = Duplicates::find(&refs(&keys(&values)), &sources, |a, b| values[a] == values[b]);
        assert_eq!(found.sets, [vec![0, 1]], "identical copies are not duplicates that matter");
        assert_eq!(found.scope, [Some(0), Some(1), None, Some(0), Some(1)]);
        let split = found.split(vec![0, 1, 2, 3, 4]);
        assert_eq!(split, [(Some(0), vec![0, 2, 3], true), (Some(1), vec![1, 2, 4], true)]);
        assert_eq!(found.split(vec![2]), [(None, vec![2], false)]);
    }

    #[test]
    fn copies_in_two_files_of_one_directory_split_it_by_file_and_copies_in_one_file_stay_together() {
        let values = [cm("a", "1"), cm("a", "2"), cm("c", "3"), cm("c", "4")];
        let sources = ["d/x.yaml", "d/y.yaml", "e.yaml", "e.yaml"];
        let found = Duplicates::find(&refs(&keys(&values)), &sources, |a, b| values[a] == values[b]);
        assert_eq!(found.sets, [vec![0, 1], vec![2, 3]]);
        assert_eq!(found.scope, [Some(0), Some(1), None, None]);
        let no_name = [serde_json::json!({"kind": "ConfigMap"}), serde_json::json!({"kind": "ConfigMap"})];
        let found = Duplicates::find(&refs(&keys(&no_name)), &["a", "b"], |_, _| false);
        assert!(found.sets.is_empty() && !found.splits());
    }
}
