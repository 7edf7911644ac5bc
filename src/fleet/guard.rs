//! What a run would delete from a tree: files it no longer produces and objects that leave the files it
//! rewrites. GitOps tools prune both from the management cluster, so each needs the user's consent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::manifest;
use crate::out_tree::{Change, DesiredTree, Plan};

/// One deletion a plan would make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deletion {
    /// A file of the tree is removed; `objects` are the Kubernetes objects it held (`Kind namespace/name`).
    File { path: PathBuf, objects: Vec<String> },
    /// An object leaves a file that stays.
    Object { path: PathBuf, object: String },
}

impl Deletion {
    /// The file the deletion is about, relative to the tree.
    pub fn path(&self) -> &Path {
        match self {
            Deletion::File { path, .. } | Deletion::Object { path, .. } => path,
        }
    }
    /// Whether the deletion removes a GitOps object (a file under `flux/` or `argocd/`).
    pub fn is_gitops_object(&self) -> bool {
        matches!(self, Deletion::File { path, .. } if path.starts_with("flux") || path.starts_with("argocd"))
    }
}

/// Identity of an object: `Kind namespace/name` (`Kind name` when cluster-scoped), with its API group.
fn identities(text: &str, source: &str) -> BTreeSet<(String, String)> {
    let Ok(documents) = manifest::parse_plain_documents(text, source) else { return BTreeSet::new() };
    documents
        .iter()
        .filter(|doc| !doc.name().is_empty() && !doc.kind().is_empty())
        .map(|doc| {
            let shown = match doc.namespace() {
                Some(namespace) => format!("{} {namespace}/{}", doc.kind(), doc.name()),
                None => format!("{} {}", doc.kind(), doc.name()),
            };
            (doc.group().to_string(), shown)
        })
        .collect()
}

/// The deletions of `plan` for the tree at `root`: every removed file, and every object that is in a
/// rewritten YAML file now and not in its new content. Reads only.
pub fn deletions(root: &Path, plan: &Plan, desired: &DesiredTree) -> Vec<Deletion> {
    let mut found = Vec::new();
    for change in plan.changes() {
        let path = change.path();
        let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
        let old = || std::fs::read_to_string(root.join(path)).unwrap_or_default();
        match change {
            Change::Delete(_) => {
                let objects = if is_yaml {
                    identities(&old(), &path.display().to_string()).into_iter().map(|(_, shown)| shown).collect()
                } else {
                    Vec::new()
                };
                found.push(Deletion::File { path: path.to_path_buf(), objects });
            }
            Change::Update(_) if is_yaml => {
                let source = path.display().to_string();
                let new =
                    desired.get(path).map(|bytes| String::from_utf8_lossy(bytes).into_owned()).unwrap_or_default();
                let kept = identities(&new, &source);
                for (group, shown) in identities(&old(), &source) {
                    if !kept.contains(&(group.clone(), shown.clone())) {
                        found.push(Deletion::Object { path: path.to_path_buf(), object: shown });
                    }
                }
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::out_tree::Ownership;

    fn tree(files: &[(&str, &str)]) -> DesiredTree {
        let mut t = DesiredTree::default();
        for (p, c) in files {
            t.insert(*p, c.as_bytes());
        }
        t
    }

    const A: &str = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: a, namespace: t}\n";
    const POOL: &str = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool\nmetadata: {name: a-p, namespace: t}\n";
    const NS: &str = "apiVersion: v1\nkind: Namespace\nmetadata: {name: t}\n";

    #[test]
    fn removed_files_and_objects_leaving_a_file_are_deletions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first =
            tree(&[("c/a/cluster.yaml", &format!("{A}---\n{POOL}")), ("n/t/ns.yaml", NS), ("c/a/notes.txt", "x")]);
        Plan::compute(root, &first, Ownership::Marked).unwrap().apply().unwrap();
        let second = tree(&[("c/a/cluster.yaml", A)]);
        let plan = Plan::compute(root, &second, Ownership::Marked).unwrap();
        assert_eq!(
            deletions(root, &plan, &second),
            [
                Deletion::Object { path: "c/a/cluster.yaml".into(), object: "MachinePool t/a-p".into() },
                Deletion::File { path: "c/a/notes.txt".into(), objects: vec![] },
                Deletion::File { path: "n/t/ns.yaml".into(), objects: vec!["Namespace t".into()] },
            ]
        );
        let unchanged = Plan::compute(root, &first, Ownership::Marked).unwrap();
        assert!(deletions(root, &unchanged, &first).is_empty());
    }
}
