//! Reading a topology's ClusterClass and templates, and the objects the topology controller
//! created, from a live cluster (`plan --from-cluster`, diffs of topology Clusters).

use serde_json::Value;

use super::plan::{class_ref, owned_selector};
use crate::cluster::{Cluster, ClusterError};
use crate::json_pointer::At;
use crate::manifest::Document;

/// A failed read, naming the object; the cause is the shared cluster error (classified, after
/// the retries of [`Cluster`]).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("cannot find the API of {api_version} {kind} on the server")]
    Discovery {
        api_version: String,
        kind: String,
        #[source]
        source: ClusterError,
    },
    #[error("cannot read {kind} {namespace}/{name} (referenced by {by})")]
    Get {
        kind: String,
        namespace: String,
        name: String,
        by: String,
        #[source]
        source: ClusterError,
    },
    #[error("{kind} {namespace}/{name} (referenced by {by}) does not exist")]
    Missing { kind: String, namespace: String, name: String, by: String },
    #[error("cannot list {kind} objects of Cluster {cluster}")]
    List {
        kind: String,
        cluster: String,
        #[source]
        source: ClusterError,
    },
}

async fn resource(cluster: &Cluster, api_version: &str, kind: &str) -> Result<crate::cluster::Resource, LiveError> {
    cluster.resource(api_version, kind).await.map_err(|source| LiveError::Discovery {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        source,
    })
}

async fn get(
    cluster: &Cluster,
    api_version: &str,
    kind: &str,
    namespace: &str,
    name: &str,
    by: &str,
) -> Result<Value, LiveError> {
    let resource = resource(cluster, api_version, kind).await?;
    let fields = || (kind.to_string(), namespace.to_string(), name.to_string(), by.to_string());
    let object = cluster.get(&resource, Some(namespace), name).await.map_err(|source| {
        let (kind, namespace, name, by) = fields();
        LiveError::Get { kind, namespace, name, by, source }
    })?;
    let Some(mut value) = object else {
        let (kind, namespace, name, by) = fields();
        return Err(LiveError::Missing { kind, namespace, name, by });
    };
    if let Some(obj) = value.as_object_mut() {
        obj.insert("apiVersion".into(), Value::String(api_version.to_string()));
        obj.insert("kind".into(), Value::String(kind.to_string()));
    }
    Ok(value)
}

/// Every template reference of a ClusterClass (both API shapes), as (apiVersion, kind, name,
/// namespace, field).
fn template_refs(class: &Value, class_ns: &str) -> Vec<(String, String, String, String, String)> {
    let mut bases = vec![
        "/spec/infrastructure".to_string(),
        "/spec/controlPlane".to_string(),
        "/spec/controlPlane/machineInfrastructure".to_string(),
    ];
    for workers in ["machinePools", "machineDeployments"] {
        let n = class.array_at(&format!("/spec/workers/{workers}")).map_or(0, Vec::len);
        for i in 0..n {
            for part in ["bootstrap", "infrastructure"] {
                bases.push(format!("/spec/workers/{workers}/{i}/template/{part}"));
                bases.push(format!("/spec/workers/{workers}/{i}/{part}"));
            }
        }
    }
    let mut refs = Vec::new();
    for base in bases {
        for suffix in ["templateRef", "ref"] {
            if let Some(r) = class.pointer(&format!("{base}/{suffix}")).filter(|r| r.is_object()) {
                let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let ns = Some(text("namespace")).filter(|n| !n.is_empty()).unwrap_or_else(|| class_ns.to_string());
                let field = format!("{}.{suffix}", base.trim_start_matches('/').replace('/', "."));
                let entry = (text("apiVersion"), text("kind"), text("name"), ns, field);
                if !refs.iter().any(|e: &(String, String, String, String, String)| {
                    e.1 == entry.1 && e.2 == entry.2 && e.3 == entry.3
                }) {
                    refs.push(entry);
                }
            }
        }
    }
    refs
}

/// Reads the ClusterClass a topology Cluster uses and every template it references.
pub async fn fetch_class(client: &Cluster, cluster: &Value) -> Result<Vec<Document>, LiveError> {
    let (class_ns, class_name) = class_ref(cluster);
    let capi = cluster.get("apiVersion").and_then(Value::as_str).unwrap_or("cluster.x-k8s.io/v1beta1");
    let cluster_name = cluster.str_at("/metadata/name").unwrap_or("");
    let class = get(client, capi, "ClusterClass", &class_ns, &class_name, &format!("Cluster {cluster_name}")).await?;
    let source: std::sync::Arc<str> = std::sync::Arc::from(format!("<live ClusterClass {class_ns}/{class_name}>"));
    let mut documents = Vec::new();
    for (api_version, kind, name, ns, field) in template_refs(&class, &class_ns) {
        let template =
            get(client, &api_version, &kind, &ns, &name, &format!("ClusterClass {class_ns}/{class_name} {field}"))
                .await?;
        documents.push(template);
    }
    documents.insert(0, class);
    Ok(documents.into_iter().enumerate().map(|(i, v)| Document::from_value(v, &source, i)).collect())
}

/// Reads the live Cluster (if it exists) and the objects the controller created for it: the
/// Cluster's refs and everything labelled with its name and `topology.cluster.x-k8s.io/owned`
/// among the kinds of `planned`.
pub async fn fetch_owned(client: &Cluster, planned: &[Value]) -> Result<Vec<Value>, LiveError> {
    let mut out = Vec::new();
    let Some(cluster) = planned.iter().find(|o| o["kind"] == "Cluster") else { return Ok(out) };
    let name = cluster.str_at("/metadata/name").unwrap_or("");
    let namespace = cluster.str_at("/metadata/namespace").unwrap_or("default");
    let mut kinds: Vec<(String, String)> = Vec::new();
    for object in planned {
        let key = (
            object["apiVersion"].as_str().unwrap_or("").to_string(),
            object["kind"].as_str().unwrap_or("").to_string(),
        );
        if !kinds.contains(&key) {
            kinds.push(key);
        }
    }
    for (api_version, kind) in kinds {
        let resource = resource(client, &api_version, &kind).await?;
        let failed = |source| LiveError::List { kind: kind.clone(), cluster: format!("{namespace}/{name}"), source };
        if kind == "Cluster" {
            if let Some(object) = client.get(&resource, Some(namespace), name).await.map_err(failed)? {
                out.push(with_type(object, &api_version, &kind));
            }
            continue;
        }
        let selector = owned_selector(name);
        let items = client.list_selected(&resource, Some(namespace), Some(&selector)).await.map_err(failed)?;
        out.extend(items.into_iter().map(|object| with_type(object, &api_version, &kind)));
    }
    Ok(out)
}

fn with_type(mut value: Value, api_version: &str, kind: &str) -> Value {
    if let Some(obj) = value.as_object_mut() {
        obj.insert("apiVersion".into(), Value::String(api_version.to_string()));
        obj.insert("kind".into(), Value::String(kind.to_string()));
    }
    value
}

/// Errors of [`plan_against_live`].
#[derive(Debug, thiserror::Error)]
pub enum LivePlanError {
    #[error(transparent)]
    Live(#[from] LiveError),
    #[error(transparent)]
    Plan(#[from] super::plan::TopologyError),
}

/// What `diff` compares for a topology Cluster: the planned objects, named as the controller
/// already named the live ones, and those live objects.
#[derive(Debug, Clone)]
pub struct LivePlan {
    pub planned: Vec<Value>,
    /// The live counterparts of planned objects that exist.
    pub live: Vec<Value>,
    /// Live objects the controller created for this Cluster that the plan no longer has (pools
    /// and deployments removed from the topology, with their bootstrap and infrastructure
    /// objects): the controller deletes them.
    pub removed: Vec<Value>,
}

/// Plans a topology Cluster against the live cluster: the ClusterClass and templates come from
/// `documents` when present there, else from the server; the names of objects the controller
/// already created (found by the Cluster's refs and the cluster-name and topology labels) are
/// reused, so each planned object lines up with its live counterpart.
pub async fn plan_against_live(
    client: &Cluster,
    cluster: &Document,
    documents: &[Document],
) -> Result<LivePlan, LivePlanError> {
    let (class_ns, class_name) = class_ref(&cluster.value);
    let has_class = documents
        .iter()
        .any(|d| d.kind() == "ClusterClass" && d.name() == class_name && d.namespace().is_none_or(|ns| ns == class_ns));
    let mut all: Vec<Document> = documents.to_vec();
    if !has_class {
        all.extend(fetch_class(client, &cluster.value).await?);
    }
    // A first plan gives the kinds to look for; the live objects then give the names.
    let first = super::plan::plan(cluster, &all, &super::plan::Current::default())?;
    let live = fetch_owned(client, &first.objects).await?;
    let live_cluster = live.iter().find(|o| o["kind"] == "Cluster").cloned();
    let current = match &live_cluster {
        Some(c) => super::plan::current_from_live(c, &live),
        None => super::plan::Current::default(),
    };
    let mut planned = super::plan::plan(cluster, &all, &current)?;
    // CAPI's defaulting writes an empty `controlPlaneEndpoint` only into a Cluster that has none;
    // on an existing Cluster the webhook sees (and keeps) the endpoint the provider set.
    if let Some(endpoint) = live_cluster.as_ref().and_then(|c| c.pointer("/spec/controlPlaneEndpoint"))
        && let Some(spec) = planned.objects.iter_mut().find(|o| o["kind"] == "Cluster").and_then(|c| c.get_mut("spec"))
        && spec.get("controlPlaneEndpoint").is_some()
    {
        spec["controlPlaneEndpoint"] = endpoint.clone();
    }
    // Only the live objects the plan speaks about: the Cluster and the objects it names.
    let wanted: Vec<(String, String)> = planned
        .objects
        .iter()
        .map(|o| {
            (o["kind"].as_str().unwrap_or("").to_string(), o["metadata"]["name"].as_str().unwrap_or("").to_string())
        })
        .collect();
    let (live, others): (Vec<Value>, Vec<Value>) = live.into_iter().partition(|o| {
        let key =
            (o["kind"].as_str().unwrap_or("").to_string(), o["metadata"]["name"].as_str().unwrap_or("").to_string());
        wanted.contains(&key)
    });
    let removed = others
        .into_iter()
        .filter(|o| {
            let labels = &o["metadata"]["labels"];
            labels.get(super::plan::MACHINE_POOL_NAME_LABEL).is_some()
                || labels.get(super::plan::MACHINE_DEPLOYMENT_NAME_LABEL).is_some()
        })
        .collect();
    Ok(LivePlan { planned: planned.objects, live, removed })
}
