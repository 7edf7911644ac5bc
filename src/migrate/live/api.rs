//! Requests to the management cluster: reads through [`crate::cluster::Cluster`], and the three writes the
//! migration makes (create, JSON merge patch, delete), reachable only from the guarded executor.

use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::core::Request;
use serde_json::Value;

use super::LiveError;
use super::kinds::{Kind, Target};
use crate::cluster::{Cluster, ClusterError, Resource};
use crate::json_pointer::At;

/// The management cluster, as the migration sees it.
pub struct Api {
    cluster: Cluster,
}

fn collection_path(resource: &Resource, namespace: Option<&str>) -> String {
    let root = if resource.group.is_empty() { "api" } else { "apis" };
    match namespace {
        Some(ns) if resource.namespaced => {
            format!("/{root}/{}/namespaces/{ns}/{}", resource.api_version, resource.plural)
        }
        _ => format!("/{root}/{}/{}", resource.api_version, resource.plural),
    }
}

impl Api {
    pub fn new(cluster: Cluster) -> Api {
        Api { cluster }
    }

    /// The connection (context, server, default namespace).
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Whether the server serves `kind` (its CRD is installed and the version served).
    pub async fn serves(&self, kind: Kind) -> Result<bool, LiveError> {
        match self.cluster.resource(kind.api_version, kind.kind).await {
            Ok(_) => Ok(true),
            Err(ClusterError::NotServed { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads one object; `None` when it does not exist.
    pub async fn get(&self, target: &Target) -> Result<Option<Value>, LiveError> {
        let resource = self.cluster.resource(target.kind.api_version, target.kind.kind).await?;
        Ok(self.cluster.get(&resource, target.namespace.as_deref(), &target.name).await?)
    }

    /// Lists the objects of `kind` in `namespace`.
    pub async fn list(&self, kind: Kind, namespace: &str) -> Result<Vec<Value>, LiveError> {
        let resource = self.cluster.resource(kind.api_version, kind.kind).await?;
        Ok(self.cluster.list(&resource, Some(namespace)).await?)
    }

    async fn send(
        &self,
        what: String,
        request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    ) -> Result<Value, LiveError> {
        let request = request.map_err(|e| LiveError::Write { what: what.clone(), message: e.to_string() })?;
        self.cluster
            .client()
            .request::<Value>(request)
            .await
            .map_err(|e| LiveError::Write { what, message: write_message(&e) })
    }

    /// Creates `object` (its kind is `kind`).
    pub(super) async fn create(&self, kind: Kind, object: &Value) -> Result<Value, LiveError> {
        let resource = self.cluster.resource(kind.api_version, kind.kind).await?;
        let namespace = object.str_at("/metadata/namespace");
        let name = object.str_at("/metadata/name").unwrap_or("");
        let what = format!("create {}", describe(kind, namespace, name));
        let body =
            serde_json::to_vec(object).map_err(|e| LiveError::Write { what: what.clone(), message: e.to_string() })?;
        let request = Request::new(collection_path(&resource, namespace)).create(&PostParams::default(), body);
        self.send(what, request).await
    }

    /// Applies a JSON merge patch (RFC 7386) to `target`.
    pub(super) async fn merge_patch(&self, target: &Target, patch: &Value) -> Result<Value, LiveError> {
        let resource = self.cluster.resource(target.kind.api_version, target.kind.kind).await?;
        let what = format!("patch {target}");
        let request = Request::new(collection_path(&resource, target.namespace.as_deref())).patch(
            &target.name,
            &PatchParams::default(),
            &Patch::Merge(patch),
        );
        self.send(what, request).await
    }

    /// Deletes `target` without waiting (background propagation: the garbage collector removes dependents).
    pub(super) async fn delete(&self, target: &Target) -> Result<(), LiveError> {
        let resource = self.cluster.resource(target.kind.api_version, target.kind.kind).await?;
        let what = format!("delete {target}");
        let request = Request::new(collection_path(&resource, target.namespace.as_deref()))
            .delete(&target.name, &DeleteParams::background());
        match self.send(what, request).await {
            Ok(_) => Ok(()),
            // Already gone: the postcondition holds.
            Err(LiveError::Write { message, .. }) if message.starts_with("404") => Ok(()),
            Err(e) => Err(e),
        }
    }
}

fn describe(kind: Kind, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{} {ns}/{name}", kind.kind),
        None => format!("{} {name}", kind.kind),
    }
}

fn write_message(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("{} {}: {}", status.code, status.reason, status.message),
        other => other.to_string(),
    }
}
