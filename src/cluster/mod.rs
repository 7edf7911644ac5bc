//! Talking to a live cluster: kubeconfig and context, discovery by GVK, reads and dry-run applies.
//!
//! The module is read-only by construction: the only request that carries a body is
//! [`Cluster::dry_run_apply`], which always sends `dryRun=All`. There is no function that writes.

mod controllers;
mod error;
mod kubeconfig;
mod name_service;
mod served;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::Client;
use kube::api::{GetParams, ListParams, Patch, PatchParams};
use kube::core::Request;
use serde_json::Value;
use tokio::sync::{OnceCell, Semaphore};

use crate::json_pointer::At;

pub use error::ClusterError;
pub use kubeconfig::{KubeconfigSource, context_names, parse_duration};

/// The `User-Agent` of every request: `kubectl-capz/<version>` (the server's audit log and the
/// manager name it derives for non-apply requests show it).
pub const USER_AGENT: &str = concat!("kubectl-capz/", env!("CARGO_PKG_VERSION"));

/// Default bound on requests in flight at once.
pub const DEFAULT_CONCURRENCY: usize = 8;
/// Default time one request may take (kubectl's `--request-timeout`), retries not included.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default objects per page of a LIST (kubectl's `--chunk-size` default).
pub const LIST_PAGE_SIZE: u32 = 500;
/// Attempts for a request that fails with 429, 5xx or a non-apply 409.
const MAX_ATTEMPTS: u32 = 4;

/// How to reach the cluster (kubectl's `--kubeconfig`, `--context`, `--request-timeout`).
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    /// `--kubeconfig`: this file only (not merged with `KUBECONFIG`).
    pub kubeconfig: Option<std::path::PathBuf>,
    /// `--context`; default: the kubeconfig's current-context.
    pub context: Option<String>,
    /// Per-request timeout; `None` = [`DEFAULT_REQUEST_TIMEOUT`]; zero = no timeout (as kubectl).
    pub request_timeout: Option<Duration>,
    /// Bound on concurrent requests; 0 = [`DEFAULT_CONCURRENCY`].
    pub concurrency: usize,
    /// Objects per page of a LIST; 0 = [`LIST_PAGE_SIZE`].
    pub list_page_size: u32,
}

/// A resource type as the server serves it (from discovery).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// `group/version`, or `v1` for the core group.
    pub api_version: String,
    /// API group ("" for core).
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural resource name used in URLs.
    pub plural: String,
    /// Namespaced (true) or cluster-scoped.
    pub namespaced: bool,
}

impl Resource {
    fn collection_path(&self, namespace: Option<&str>) -> String {
        let root = if self.group.is_empty() { "api" } else { "apis" };
        match namespace {
            Some(ns) if self.namespaced => format!("/{root}/{}/namespaces/{ns}/{}", self.api_version, self.plural),
            _ => format!("/{root}/{}/{}", self.api_version, self.plural),
        }
    }
}

type DiscoveryCell = Arc<OnceCell<Result<Arc<Vec<Resource>>, ClusterError>>>;

/// A connection to one API server, with a per-run discovery cache and a request bound.
pub struct Cluster {
    client: Client,
    context: String,
    server: String,
    default_namespace: String,
    timeout: Option<Duration>,
    page_size: u32,
    limiter: Semaphore,
    discovery: Mutex<BTreeMap<String, DiscoveryCell>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("context", &self.context).field("server", &self.server).finish()
    }
}

impl Cluster {
    /// Loads the kubeconfig and builds a client. Sends no request. Must run inside a tokio runtime.
    pub async fn connect(options: &ClusterOptions) -> Result<Cluster, ClusterError> {
        let timeout = match options.request_timeout {
            None => Some(DEFAULT_REQUEST_TIMEOUT),
            Some(d) if d.is_zero() => None,
            Some(d) => Some(d),
        };
        let loaded = kubeconfig::load(options.kubeconfig.as_deref(), options.context.as_deref()).await?;
        name_service::restrict_host_lookup();
        let mut config = loaded.config;
        // Retries are ours (bounded, classified); a failed connect is reported, not retried.
        config.default_retry = false;
        apply_timeouts(&mut config, timeout);
        config.headers.push((http::header::USER_AGENT, http::HeaderValue::from_static(USER_AGENT)));
        let default_namespace = config.default_namespace.clone();
        let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
        let client = Client::try_from(config).map_err(|e| ClusterError::BadKubeconfig {
            source_desc: loaded.source.to_string(),
            message: format!("context `{}`: {}", loaded.context, error::chain(&e)),
        })?;
        let concurrency = if options.concurrency == 0 { DEFAULT_CONCURRENCY } else { options.concurrency };
        Ok(Cluster {
            client,
            context: loaded.context,
            server,
            default_namespace,
            timeout,
            page_size: if options.list_page_size == 0 { LIST_PAGE_SIZE } else { options.list_page_size },
            limiter: Semaphore::new(concurrency),
            discovery: Mutex::new(BTreeMap::new()),
        })
    }

    /// The kube-rs client (for callers with their own reads, such as the topology planner).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The namespace of the kubeconfig context (`default` when it sets none).
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// The context in use.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// The API server URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Resolves `apiVersion` + `kind` through discovery of that group-version (once per run).
    pub async fn resource(&self, api_version: &str, kind: &str) -> Result<Resource, ClusterError> {
        let cell = {
            let mut cache = self.discovery.lock().unwrap_or_else(|p| p.into_inner());
            cache.entry(api_version.to_string()).or_default().clone()
        };
        let resources = cell.get_or_init(|| self.discover(api_version.to_string())).await.clone()?;
        resources.iter().find(|r| r.kind == kind).cloned().ok_or_else(|| ClusterError::NotServed {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            server: self.server.clone(),
        })
    }

    async fn discover(&self, api_version: String) -> Result<Arc<Vec<Resource>>, ClusterError> {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), api_version.clone()),
        };
        let path = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{api_version}") };
        let what = format!("discover {api_version}");
        let list = match self.send_json(&what, || http_get(&path)).await {
            Ok(v) => v,
            Err(ClusterError::NotFound { .. }) => return Ok(Arc::new(Vec::new())),
            Err(e) => return Err(e),
        };
        let resources = list
            .get("resources")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|r| {
                        let name = r.get("name")?.as_str()?;
                        if name.contains('/') {
                            return None; // subresource
                        }
                        Some(Resource {
                            api_version: api_version.clone(),
                            group: group.clone(),
                            version: version.clone(),
                            kind: r.get("kind")?.as_str()?.to_string(),
                            plural: name.to_string(),
                            namespaced: r.get("namespaced").and_then(Value::as_bool).unwrap_or(false),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Arc::new(resources))
    }

    /// Reads one object as the server returns it; `None` if it does not exist.
    pub async fn get(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ClusterError> {
        let what = describe("get", resource, namespace, name);
        let request = Request::new(resource.collection_path(namespace));
        let result =
            self.send_json(&what, || request.get(name, &GetParams::default()).map_err(|e| e.to_string())).await;
        match result {
            Ok(v) => Ok(Some(v)),
            Err(ClusterError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Lists the objects of a kind in a namespace (all namespaces for cluster-scoped kinds), each
    /// with its `apiVersion` and `kind` (which list items may omit). Read in pages of
    /// [`ClusterOptions::list_page_size`] like kubectl's `--chunk-size`, each page a request with
    /// its own timeout.
    pub async fn list(&self, resource: &Resource, namespace: Option<&str>) -> Result<Vec<Value>, ClusterError> {
        self.list_selected(resource, namespace, None).await
    }

    /// [`Cluster::list`] of the objects whose labels match `label_selector` (`a=b,c`), if given.
    pub async fn list_selected(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        label_selector: Option<&str>,
    ) -> Result<Vec<Value>, ClusterError> {
        let mut what = match namespace {
            Some(ns) if resource.namespaced => format!("list {} in namespace {ns}", resource.kind),
            _ => format!("list {}", resource.kind),
        };
        if let Some(selector) = label_selector {
            what.push_str(&format!(" labelled {selector}"));
        }
        let request = Request::new(resource.collection_path(namespace));
        let mut items = Vec::new();
        let mut continue_token: Option<String> = None;
        loop {
            let mut params = ListParams::default().limit(self.page_size);
            if let Some(selector) = label_selector {
                params = params.labels(selector);
            }
            if let Some(token) = &continue_token {
                params = params.continue_token(token);
            }
            let mut page = self.send_json(&what, || request.list(&params).map_err(|e| e.to_string())).await?;
            if let Some(Value::Array(page_items)) = page.get_mut("items") {
                items.append(page_items);
            }
            continue_token = page.str_at("/metadata/continue").filter(|t| !t.is_empty()).map(str::to_string);
            if continue_token.is_none() {
                break;
            }
        }
        Ok(items
            .into_iter()
            .map(|item| {
                let mut object = serde_json::Map::new();
                object.insert("apiVersion".into(), Value::from(resource.api_version.as_str()));
                object.insert("kind".into(), Value::from(resource.kind.as_str()));
                if let Value::Object(fields) = item {
                    for (key, value) in fields {
                        if key != "apiVersion" && key != "kind" {
                            object.insert(key, value);
                        }
                    }
                }
                Value::Object(object)
            })
            .collect())
    }

    /// Every CustomResourceDefinition the server has (`apiextensions.k8s.io/v1`), as JSON.
    pub async fn custom_resource_definitions(&self) -> Result<Vec<Value>, ClusterError> {
        let resource = Resource {
            api_version: "apiextensions.k8s.io/v1".into(),
            group: "apiextensions.k8s.io".into(),
            version: "v1".into(),
            kind: "CustomResourceDefinition".into(),
            plural: "customresourcedefinitions".into(),
            namespaced: false,
        };
        self.list(&resource, None).await
    }

    /// The object the server would store after a server-side apply of `body` — computed with
    /// `dryRun=All`, so nothing is written. `force` takes ownership of conflicting fields.
    pub async fn dry_run_apply(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
        body: &Value,
        field_manager: &str,
        force: bool,
    ) -> Result<Value, ClusterError> {
        let what = describe("dry-run apply", resource, namespace, name);
        let mut params = PatchParams::apply(field_manager).dry_run();
        if force {
            params = params.force();
        }
        // Structural guarantee: no request of this module leaves dry-run.
        debug_assert!(params.dry_run);
        let request = Request::new(resource.collection_path(namespace));
        self.send_json(&what, || request.patch(name, &params, &Patch::Apply(body)).map_err(|e| e.to_string())).await
    }

    /// Sends a request built by `build` (rebuilt per attempt) under the concurrency bound, with a
    /// timeout and retries on 429, 5xx and non-apply 409; returns the JSON body.
    async fn send_json<F>(&self, what: &str, build: F) -> Result<Value, ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, String>,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = build().map_err(|message| ClusterError::Other { what: what.to_string(), message })?;
            let result = {
                let _permit = self
                    .limiter
                    .acquire()
                    .await
                    .map_err(|e| ClusterError::Other { what: what.to_string(), message: e.to_string() })?;
                with_timeout(self.timeout, self.client.request::<Value>(request)).await
            };
            let err = match result {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(e)) => error::classify(e, what, &self.server, &self.context, attempt),
                Err(elapsed) => ClusterError::Timeout {
                    what: what.to_string(),
                    server: self.server.clone(),
                    timeout: format!("{elapsed:?}"),
                },
            };
            if err.is_retryable() && attempt < MAX_ATTEMPTS {
                let backoff = Duration::from_millis(200 * (1 << (attempt - 1)));
                tokio::time::sleep(err.retry_after().unwrap_or(backoff)).await;
                continue;
            }
            return Err(err);
        }
    }
}

/// One timeout per request, ours: with `--request-timeout` set, the whole request (connect, TLS,
/// write, read) runs under [`with_timeout`] and kube's own connect/read/write timers are off, so
/// the only way a slow request ends is [`ClusterError::Timeout`] with one message. (With kube's
/// timers also armed, a short timeout raced them and surfaced as "cannot reach" or as a timeout
/// depending on which timer fired first.) With no timeout (`0`), kube's connect timeout stays as
/// the backstop against a server that never accepts.
fn apply_timeouts(config: &mut kube::Config, timeout: Option<Duration>) {
    if timeout.is_some() {
        config.connect_timeout = None;
        config.read_timeout = None;
        config.write_timeout = None;
    }
}

fn http_get(path: &str) -> Result<http::Request<Vec<u8>>, String> {
    http::Request::get(path).body(Vec::new()).map_err(|e| e.to_string())
}

async fn with_timeout<T>(timeout: Option<Duration>, fut: impl Future<Output = T>) -> Result<T, Duration> {
    match timeout {
        Some(t) => tokio::time::timeout(t, fut).await.map_err(|_| t),
        None => Ok(fut.await),
    }
}

fn describe(verb: &str, resource: &Resource, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if resource.namespaced => format!("{verb} {} {ns}/{name}", resource.kind),
        _ => format!("{verb} {} {name}", resource.kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(group: &str, namespaced: bool) -> Resource {
        Resource {
            api_version: if group.is_empty() { "v1".into() } else { format!("{group}/v1beta1") },
            group: group.into(),
            version: "v1beta1".into(),
            kind: "Thing".into(),
            plural: "things".into(),
            namespaced,
        }
    }

    #[test]
    fn collection_paths_follow_the_api_layout() {
        assert_eq!(res("", true).collection_path(Some("ns")), "/api/v1/namespaces/ns/things");
        assert_eq!(res("x.io", true).collection_path(Some("ns")), "/apis/x.io/v1beta1/namespaces/ns/things");
        assert_eq!(res("x.io", false).collection_path(Some("ns")), "/apis/x.io/v1beta1/things");
    }

    #[test]
    fn a_request_timeout_leaves_no_competing_timer() {
        let mut config = kube::Config::new("https://127.0.0.1:6443".parse().unwrap());
        config.read_timeout = Some(Duration::from_secs(1));
        apply_timeouts(&mut config, Some(Duration::from_micros(1)));
        assert_eq!((config.connect_timeout, config.read_timeout, config.write_timeout), (None, None, None));
        let mut config = kube::Config::new("https://127.0.0.1:6443".parse().unwrap());
        apply_timeouts(&mut config, None);
        assert!(config.connect_timeout.is_some(), "no timeout: kube's connect timeout stays as the backstop");
    }

    #[test]
    fn user_agent_names_the_plugin_and_its_version() {
        assert_eq!(USER_AGENT, format!("kubectl-capz/{}", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn dry_run_apply_params_always_carry_dry_run() {
        let params = PatchParams::apply("kubectl-capz").dry_run().force();
        let request = Request::new("/apis/x.io/v1/things")
            .patch("a", &params, &Patch::Apply(&serde_json::json!({"kind": "Thing"})))
            .unwrap();
        let query = request.uri().query().unwrap_or("");
        assert!(query.contains("dryRun=All"), "{query}");
        assert!(query.contains("fieldManager=kubectl-capz"), "{query}");
        assert!(query.contains("force=true"), "{query}");
    }
}
