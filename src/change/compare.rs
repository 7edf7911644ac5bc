//! Two builds of a repository paired object by object: what a change adds, removes and changes, each object keyed
//! by where it lands (the cluster the applying GitOps object targets, group, kind, namespace, name).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diff::{self, Change};
use crate::manifest::{Document, split_api_version};
use crate::schema::{Gvk, Registry};

/// One object a build applies, with what the repository says about where.
#[derive(Debug, Clone)]
pub struct Applied {
    pub document: Document,
    /// The cluster the applying GitOps object targets, in words; `None` when the repository does not say.
    pub cluster: Option<String>,
    /// The namespace objects without one land in, when the applying object sets one.
    pub default_namespace: Option<String>,
    /// What applies it (`Flux Kustomization flux-system/apps`, `kubectl kustomize overlays/prod`, a plain file).
    pub unit: String,
    /// Whether what applies it deletes it once it no longer applies it (see `source::ApplyTarget::prunes`).
    pub prunes: bool,
    /// The Argo CD Application written in the repository that applies it, when one does.
    pub application: Option<ApplyingApplication>,
}

/// An Argo CD Application that applies objects, and whether deleting it deletes them (its resources finalizer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyingApplication {
    pub name: String,
    pub cascades: bool,
}

/// An object's identity on its cluster: the same key on both sides is the same object, whatever its API version,
/// file or formatting.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectKey {
    /// The target cluster, "" when the repository does not say.
    pub cluster: String,
    pub group: String,
    pub kind: String,
    /// `None` for cluster-scoped kinds; "" when neither the object nor the applying unit names one.
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectKey {
    /// `Kind namespace/name` (or `Kind name`).
    pub fn display(&self) -> String {
        match self.namespace.as_deref() {
            Some("") => format!("{} {} (namespace not set)", self.kind, self.name),
            Some(namespace) => format!("{} {namespace}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// Whether the change adds, removes or changes the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Removed,
    Added,
    Changed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Removed => "removed",
            ChangeKind::Added => "added",
            ChangeKind::Changed => "changed",
        }
    }
}

/// One side of a changed object.
#[derive(Debug, Clone)]
pub struct Side {
    /// The object as compared: server-written fields left out, CAPZ-managed fields left out unless asked for,
    /// Secret values masked unless asked for.
    pub value: Value,
    /// Where it is defined, `file:line`.
    pub at: String,
    pub unit: String,
    pub api_version: String,
    /// Whether the unit deletes the object once it no longer applies it.
    pub prunes: bool,
    /// The Argo CD Application that applies it, when one written in the repository does.
    pub application: Option<ApplyingApplication>,
    /// The line of each field, by JSON pointer, in the side's source (for findings at the changed line).
    pub document: Document,
}

/// What the change does to one object.
#[derive(Debug, Clone)]
pub struct ObjectChange {
    pub key: ObjectKey,
    pub kind: ChangeKind,
    pub base: Option<Side>,
    pub head: Option<Side>,
    /// The fields that differ (for an added or removed object, one entry for the whole object).
    pub changes: Vec<Change>,
}

/// What to compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompareOptions {
    /// Also compare the fields CAPZ's mutators own in embedded ASO objects.
    pub include_capz_managed: bool,
    /// Show Secret values instead of masking them.
    pub show_secrets: bool,
}

/// The key of `applied`; cluster-scoped kinds (as the registry knows them) have no namespace.
fn key_of(applied: &Applied, registry: &Registry) -> ObjectKey {
    let document = &applied.document;
    let (group, version) = split_api_version(document.api_version());
    let cluster_scoped = registry
        .get(&Gvk::new(group, version, document.kind()))
        .ok()
        .flatten()
        .is_some_and(|schema| schema.scope == "Cluster");
    let namespace = (!cluster_scoped).then(|| {
        document.namespace().map(str::to_string).or_else(|| applied.default_namespace.clone()).unwrap_or_default()
    });
    ObjectKey {
        cluster: applied.cluster.clone().unwrap_or_default(),
        group: group.to_string(),
        kind: document.kind().to_string(),
        namespace,
        name: document.name().to_string(),
    }
}

/// The objects of one side by key, with their index on the side; the first definition of a key wins (`validate`
/// reports the others).
fn by_key<'a>(applied: &'a [Applied], registry: &Registry) -> BTreeMap<ObjectKey, (usize, &'a Applied)> {
    let mut out = BTreeMap::new();
    for (index, object) in applied.iter().enumerate() {
        out.entry(key_of(object, registry)).or_insert((index, object));
    }
    out
}

fn side(applied: &Applied, value: Value) -> Side {
    Side {
        value,
        at: applied.document.location_of(""),
        unit: applied.unit.clone(),
        api_version: applied.document.api_version().to_string(),
        prunes: applied.prunes,
        application: applied.application.clone(),
        document: applied.document.clone(),
    }
}

/// Pairs the objects of `base` and `head` and compares each pair: removed objects first, then added, then changed,
/// each group in key order; unchanged objects are left out.
pub fn compare(base: &[Applied], head: &[Applied], registry: &Registry, options: CompareOptions) -> Vec<ObjectChange> {
    compare_and_pair(base, head, registry, options).0
}

/// [`compare`], and the objects both sides define as `(index in base, index in head)` (on each side the first
/// definition of a key), in head order: the updates of stored objects.
pub fn compare_and_pair(
    base: &[Applied],
    head: &[Applied],
    registry: &Registry,
    options: CompareOptions,
) -> (Vec<ObjectChange>, Vec<(usize, usize)>) {
    let mut base = by_key(base, registry);
    let head = by_key(head, registry);
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    for (key, (head_index, new)) in head {
        let old = base.remove(&key);
        if let Some((base_index, _)) = &old {
            pairs.push((*base_index, head_index));
        }
        if let Some(change) = compare_one(key, old.map(|(_, o)| o), Some(new), registry, options) {
            out.push(change);
        }
    }
    for (key, (_, old)) in base {
        out.extend(compare_one(key, Some(old), None, registry, options));
    }
    out.sort_by(|a, b| (a.kind, &a.key).cmp(&(b.kind, &b.key)));
    pairs.sort_unstable_by_key(|&(_, head_index)| head_index);
    (out, pairs)
}

/// The comparison of one key's objects; `None` when they are the same after normalisation.
fn compare_one(
    key: ObjectKey,
    old: Option<&Applied>,
    new: Option<&Applied>,
    registry: &Registry,
    options: CompareOptions,
) -> Option<ObjectChange> {
    // The same object, byte for byte: the same after the (deterministic) normalisation too.
    if let (Some(old), Some(new)) = (old, new)
        && old.document.value == new.document.value
    {
        return None;
    }
    let mut before = old.map(|o| o.document.value.clone());
    let mut after = new.map(|n| n.document.value.clone());
    for value in before.iter_mut().chain(after.iter_mut()) {
        diff::strip_server_fields(value);
    }
    normalise_pair(&mut before, &mut after, options);
    let schema_of = |applied: &Applied| {
        let (group, version) = split_api_version(applied.document.api_version());
        registry.get(&Gvk::new(group, version, applied.document.kind())).ok().flatten()
    };
    let schema = new.or(old).and_then(schema_of);
    let schema = schema.as_ref().map(|s| &s.schema);
    let (kind, after, changes) = match (&before, after) {
        (Some(b), Some(a)) => {
            let aligned = diff::align(b, &a, schema);
            let changes = diff::changes(b, &aligned, schema);
            if changes.is_empty() {
                return None;
            }
            (ChangeKind::Changed, Some(aligned), changes)
        }
        (None, Some(a)) => {
            let whole = Change { path: String::new(), before: None, after: Some(a.clone()), managers: Vec::new() };
            (ChangeKind::Added, Some(a), vec![whole])
        }
        (Some(b), None) => {
            let whole = Change { path: String::new(), before: Some(b.clone()), after: None, managers: Vec::new() };
            (ChangeKind::Removed, None, vec![whole])
        }
        (None, None) => return None,
    };
    Some(ObjectChange {
        key,
        kind,
        base: old.zip(before).map(|(o, value)| side(o, value)),
        head: new.zip(after).map(|(n, value)| side(n, value)),
        changes,
    })
}

/// The live diff's normalisation on both sides: CAPZ-managed fields out, Secret values masked.
fn normalise_pair(before: &mut Option<Value>, after: &mut Option<Value>, options: CompareOptions) {
    match (before.as_mut(), after.as_mut()) {
        (b, Some(a)) => {
            let mut b = b;
            if !options.include_capz_managed {
                diff::strip_capz_managed(b.as_deref_mut(), a, false);
            }
            if !options.show_secrets {
                diff::mask_secrets(b, a);
            }
        }
        (Some(b), None) => {
            if !options.include_capz_managed {
                diff::strip_capz_managed(None, b, false);
            }
            if !options.show_secrets {
                diff::mask_secrets(None, b);
            }
        }
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn applied(yaml: serde_json::Value, unit: &str) -> Applied {
        Applied {
            document: Document::from_value(yaml, &Arc::from("clusters/a.yaml"), 0),
            cluster: None,
            default_namespace: None,
            unit: unit.to_string(),
            prunes: false,
            application: None,
        }
    }

    fn registry() -> Registry {
        Registry::for_target(crate::versions::default_target())
    }

    fn config_map(name: &str, value: &str) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "a"},
            "data": {"k": value}})
    }

    #[test]
    fn the_same_object_in_another_key_order_and_file_is_no_change() {
        let base = applied(config_map("one", "x"), "plain");
        let reordered = serde_json::json!({"data": {"k": "x"}, "kind": "ConfigMap",
            "metadata": {"namespace": "a", "name": "one"}, "apiVersion": "v1"});
        let head = applied(reordered, "another unit");
        assert!(compare(&[base], &[head], &registry(), CompareOptions::default()).is_empty());
    }

    #[test]
    fn removed_objects_come_first_then_added_then_changed() {
        let base = vec![applied(config_map("kept", "x"), "u"), applied(config_map("gone", "x"), "u")];
        let head = vec![applied(config_map("kept", "y"), "u"), applied(config_map("new", "x"), "u")];
        let changes = compare(&base, &head, &registry(), CompareOptions::default());
        let summary: Vec<(ChangeKind, &str)> = changes.iter().map(|c| (c.kind, c.key.name.as_str())).collect();
        assert_eq!(
            summary,
            vec![(ChangeKind::Removed, "gone"), (ChangeKind::Added, "new"), (ChangeKind::Changed, "kept")]
        );
        assert_eq!(changes[2].changes[0].path, "data.k");
    }

    #[test]
    fn a_removed_secret_is_masked() {
        let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "a"}, "stringData": {"token": "hunter2hunter2"}});
        let changes = compare(&[applied(secret, "u")], &[], &registry(), CompareOptions::default());
        let text = changes[0].base.as_ref().unwrap().value.to_string();
        assert!(!text.contains("hunter2"), "{text}");
    }

    #[test]
    fn cluster_scoped_kinds_have_no_namespace_in_their_key() {
        let namespace = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}});
        let key = key_of(&applied(namespace, "u"), &registry());
        assert_eq!(key.namespace, None);
        let mut defaulted = applied(
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c"}}),
            "u",
        );
        defaulted.default_namespace = Some("team".to_string());
        assert_eq!(key_of(&defaulted, &registry()).namespace.as_deref(), Some("team"));
    }
}
