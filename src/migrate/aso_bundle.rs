//! The AzureASOManaged* bundle for a classic cluster: the Cluster and MachinePools with their references
//! switched, and AzureASOManagedCluster / ControlPlane / MachinePools embedding the translated ResourceGroup,
//! ManagedCluster and agent pools; plus the standalone ASO objects CAPZ's adoption takes (the ManagedCluster with
//! the adopt annotation and `agentPoolProfiles`, the agent pools with the adopt annotation).
//!
//! The embedded ManagedCluster carries no `agentPoolProfiles`: CAPZ's AzureASOManagedControlPlane mutator
//! (`setManagedClusterAgentPoolProfiles`) rejects them as Incompatible and fills them itself, and its adoption
//! controller strips them too. The standalone ManagedCluster for adoption keeps them, because AKS needs the pools
//! in the request that (re)creates the cluster.

use serde_json::{Map, Value, json};

use crate::json_pointer::At;
use crate::target_schemas::TargetSchemas;

use super::{ClassicCluster, TranslateError, Translation, translate};

const INFRA_API: &str = "infrastructure.cluster.x-k8s.io/v1beta1";
const ADOPT: &str = "sigs.k8s.io/cluster-api-provider-azure-adopt";

/// Options of a migration.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    /// Namespace of the new objects (default: the classic cluster's).
    pub to_namespace: Option<String>,
    /// The schemas of the CAPZ release whose translation is used.
    pub schemas: &'static TargetSchemas,
}

impl Default for MigrateOptions {
    fn default() -> Self {
        MigrateOptions { to_namespace: None, schemas: TargetSchemas::builtin(crate::versions::default_target()) }
    }
}

/// The objects of one migrated cluster, in apply order.
#[derive(Debug, Clone, PartialEq)]
pub struct AsoBundle {
    pub cluster_name: String,
    /// Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane, then each MachinePool and its
    /// AzureASOManagedMachinePool: what goes into the GitOps repository.
    pub objects: Vec<Value>,
    /// ResourceGroup(s), the ManagedCluster and the agent pools as standalone ASO objects in the target namespace,
    /// annotated for CAPZ's adoption, in the order they are adopted.
    pub adopt: Vec<Value>,
}

/// Annotations and labels CAPZ's classic reconciler manages on the ASO objects; the ASO API's reconciler sets
/// its own, so they are not carried over.
const CAPZ_MANAGED_ANNOTATIONS: &[&str] = &[
    "serviceoperator.azure.com/reconcile-policy",
    "sigs.k8s.io/cluster-api-provider-azure-last-applied-tags",
    "sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy",
];

/// An ASO object as it is written into `spec.resources`: no namespace (CAPZ forces the owner's), no owner
/// references (CAPZ sets its own), no labels or annotations CAPZ's classic reconciler manages.
fn embeddable(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("namespace");
        metadata.remove("ownerReferences");
        if let Some(labels) = metadata.get_mut("labels").and_then(Value::as_object_mut) {
            labels.remove("cluster.x-k8s.io/cluster-name");
        }
        if let Some(annotations) = metadata.get_mut("annotations").and_then(Value::as_object_mut) {
            for key in CAPZ_MANAGED_ANNOTATIONS {
                annotations.remove(*key);
            }
        }
        for key in ["labels", "annotations"] {
            if metadata.get(key).and_then(Value::as_object).is_some_and(Map::is_empty) {
                metadata.remove(key);
            }
        }
    }
    object
}

/// The ManagedCluster for the ASO API, with the kubeconfig Secrets the ASO API's mutator expects.
fn aso_api_managed_cluster(object: &Value, cluster_name: &str) -> Value {
    let mut object = embeddable(object);
    use_aso_api_kubeconfig_secrets(&mut object, cluster_name);
    object
}

/// Sets a ManagedCluster's `operatorSpec.secrets` as the ASO API's mutator expects them: no `adminCredentials`
/// (it writes `<cluster>-kubeconfig` itself and rejects a different one), `userCredentials` renamed to
/// `<cluster>-user-kubeconfig`; an `operatorSpec` left empty is removed.
pub(crate) fn use_aso_api_kubeconfig_secrets(object: &mut Value, cluster_name: &str) {
    if let Some(secrets) = object.pointer_mut("/spec/operatorSpec/secrets").and_then(Value::as_object_mut) {
        secrets.remove("adminCredentials");
        if secrets.contains_key("userCredentials") {
            secrets.insert(
                "userCredentials".into(),
                json!({"name": format!("{cluster_name}-user-kubeconfig"), "key": "value"}),
            );
        }
    }
    if let Some(operator) = object.pointer_mut("/spec/operatorSpec").and_then(Value::as_object_mut)
        && operator.get("secrets").and_then(Value::as_object).is_some_and(Map::is_empty)
    {
        operator.remove("secrets");
    }
    if object.object_at("/spec/operatorSpec").is_some_and(Map::is_empty)
        && let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
    {
        spec.remove("operatorSpec");
    }
}

/// A standalone ASO object for CAPZ's adoption controllers, in the target namespace, annotated for adoption.
fn for_adoption(object: &Value, namespace: &str) -> Value {
    let mut object = object.clone();
    let metadata = object["metadata"].as_object_mut().expect("metadata");
    metadata.insert("namespace".into(), json!(namespace));
    let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
    annotations[ADOPT] = json!("true");
    object
}

/// Metadata of a new object: the old name and labels (minus what CAPI manages), the target namespace.
fn new_metadata(old: &Value, namespace: &str) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(old.str_at("/metadata/name").unwrap_or("")));
    metadata.insert("namespace".into(), json!(namespace));
    if let Some(labels) = old.object_at("/metadata/labels") {
        let kept: Map<String, Value> = labels
            .iter()
            .filter(|(k, _)| *k != "azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !kept.is_empty() {
            metadata.insert("labels".into(), Value::Object(kept));
        }
    }
    Value::Object(metadata)
}

fn switch_ref(object: &mut Value, pointer: &str, kind: &str) {
    if let Some(reference) = object.pointer_mut(pointer).and_then(Value::as_object_mut) {
        reference.insert("apiVersion".into(), json!(INFRA_API));
        reference.insert("kind".into(), json!(kind));
        reference.remove("namespace");
        reference.remove("uid");
        reference.remove("resourceVersion");
    }
}

fn capi_object(old: &Value, namespace: &str) -> Value {
    let mut object = old.clone();
    let map = object.as_object_mut().expect("object");
    map.remove("status");
    map.insert("metadata".into(), new_metadata(old, namespace));
    if let Some(annotations) = old.object_at("/metadata/annotations") {
        let kept: Map<String, Value> = annotations
            .iter()
            .filter(|(k, _)| !k.starts_with("kubectl.kubernetes.io/") && *k != "cluster.x-k8s.io/paused")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !kept.is_empty() {
            map["metadata"]["annotations"] = Value::Object(kept);
        }
    }
    object
}

fn wrapper(kind: &str, old: &Value, namespace: &str, spec: Value) -> Value {
    json!({"apiVersion": INFRA_API, "kind": kind, "metadata": new_metadata(old, namespace), "spec": spec})
}

/// The AzureASOManaged* bundle for one classic cluster.
pub fn to_aso_bundle(classic: &ClassicCluster<'_>, options: &MigrateOptions) -> Result<AsoBundle, TranslateError> {
    let Translation { resource_groups, managed_cluster, agent_pools } = translate(classic, options.schemas)?;
    let namespace = options.to_namespace.clone().unwrap_or_else(|| classic.namespace().to_string());
    let cluster_name = classic.name().to_string();

    let mut cluster = capi_object(&classic.cluster.value, &namespace);
    switch_ref(&mut cluster, "/spec/controlPlaneRef", "AzureASOManagedControlPlane");
    switch_ref(&mut cluster, "/spec/infrastructureRef", "AzureASOManagedCluster");
    if let Some(reference) = cluster.pointer_mut("/spec/infrastructureRef").and_then(Value::as_object_mut)
        && classic.infra_cluster.is_none()
    {
        reference.insert("name".into(), json!(cluster_name));
    }

    let infra_old = classic.infra_cluster.as_ref().map_or(&classic.cluster.value, |d| &d.value);
    let infra = wrapper(
        "AzureASOManagedCluster",
        infra_old,
        &namespace,
        json!({"resources": resource_groups.iter().map(embeddable).collect::<Vec<_>>()}),
    );
    let mut cp_spec = Map::new();
    if let Some(version) = classic.control_plane.value.str_at("/spec/version") {
        let version = if version.starts_with('v') { version.to_string() } else { format!("v{version}") };
        cp_spec.insert("version".into(), json!(version));
    }
    let aso_managed_cluster = aso_api_managed_cluster(&managed_cluster, &cluster_name);
    let mut embedded_managed_cluster = aso_managed_cluster.clone();
    if let Some(spec) = embedded_managed_cluster.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("agentPoolProfiles");
    }
    cp_spec.insert("resources".into(), json!([embedded_managed_cluster]));
    let control_plane =
        wrapper("AzureASOManagedControlPlane", &classic.control_plane.value, &namespace, Value::Object(cp_spec));

    let mut adopt: Vec<Value> = resource_groups.iter().map(|rg| for_adoption(&embeddable(rg), &namespace)).collect();
    adopt.push(for_adoption(&aso_managed_cluster, &namespace));
    adopt.extend(agent_pools.iter().map(|pool| for_adoption(&embeddable(pool), &namespace)));
    let mut objects = vec![cluster, infra, control_plane];
    for ((machine_pool, pool), agent_pool) in classic.pools.iter().zip(&agent_pools) {
        let mut new_machine_pool = capi_object(&machine_pool.value, &namespace);
        switch_ref(&mut new_machine_pool, "/spec/template/spec/infrastructureRef", "AzureASOManagedMachinePool");
        objects.push(new_machine_pool);
        objects.push(wrapper(
            "AzureASOManagedMachinePool",
            &pool.value,
            &namespace,
            json!({"resources": [embeddable(agent_pool)]}),
        ));
    }
    Ok(AsoBundle { cluster_name, objects, adopt })
}
