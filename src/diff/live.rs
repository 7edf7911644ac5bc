//! Reads the live objects a diff compares with: one LIST per namespace for kinds with many objects, a GET otherwise.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::OnceCell;

use crate::cluster::{Cluster, ClusterError, Resource};
use crate::json_pointer::At;
use crate::manifest::Document;

/// Kinds with at least this many objects to read are listed once per namespace instead of read
/// one GET at a time (halves the requests for fleets).
const LIST_THRESHOLD: usize = 3;

type ListCell = Arc<OnceCell<Option<BTreeMap<String, Value>>>>;
/// apiVersion, kind and namespace of one LIST.
type ListKey = (String, String, Option<String>);

/// Reads live objects: one LIST per namespace for kinds with many objects (falling back to GETs
/// if the list is refused), a GET otherwise.
pub struct LiveReader<'a> {
    /// The cluster read.
    pub cluster: &'a Cluster,
    batched: BTreeSet<(String, String)>,
    lists: Mutex<BTreeMap<ListKey, ListCell>>,
}

impl<'a> LiveReader<'a> {
    /// A reader for `documents` (and, with `aso_live`, the ASO objects inside ASO wrappers): kinds with many objects are
    /// listed.
    pub fn new(cluster: &'a Cluster, documents: &[Document], aso_live: bool) -> Self {
        let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
        for doc in documents {
            *counts.entry((doc.api_version().to_string(), doc.kind().to_string())).or_default() += 1;
            if aso_live && super::is_aso_wrapper(&doc.value) {
                for item in doc.value.items_at("/spec/resources") {
                    let text = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    *counts.entry((text("apiVersion"), text("kind"))).or_default() += 1;
                }
            }
        }
        let batched = counts.into_iter().filter(|(_, n)| *n >= LIST_THRESHOLD).map(|(k, _)| k).collect();
        LiveReader { cluster, batched, lists: Mutex::new(BTreeMap::new()) }
    }

    /// The live object of `resource` named `name` in `namespace`, `None` if there is none.
    pub async fn get(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ClusterError> {
        if self.batched.contains(&(resource.api_version.clone(), resource.kind.clone())) {
            let ns = if resource.namespaced { namespace.map(str::to_string) } else { None };
            let key = (resource.api_version.clone(), resource.kind.clone(), ns.clone());
            let cell = {
                let mut lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
                lists.entry(key).or_default().clone()
            };
            let listed = cell
                .get_or_init(|| async {
                    let items = self.cluster.list(resource, ns.as_deref()).await.ok()?;
                    Some(
                        items
                            .into_iter()
                            .filter_map(|item| {
                                let name = item.str_at("/metadata/name")?.to_string();
                                Some((name, item))
                            })
                            .collect(),
                    )
                })
                .await;
            if let Some(objects) = listed {
                return Ok(objects.get(name).cloned());
            }
        }
        self.cluster.get(resource, namespace, name).await
    }
}
