//! Classic clusters made up from AzureManagedControlPlaneTemplates and AzureManagedMachinePoolTemplates with
//! patches, so that the patches can be judged on the objects CAPZ creates for a cluster of the class.
//!
//! The Cluster is not in the input, so what it gives is assumed: the Cluster, the control plane and each
//! MachinePool are named after the template (CAPI names them `<cluster>-<random>`), in the template's namespace,
//! with one replica; a pool template is paired with the bundle's one AzureManagedControlPlaneTemplate of its
//! namespace (without that template's patches), else with a placeholder control plane (location `placeholder`,
//! subscription 00000000-0000-0000-0000-000000000000); a User pool, or a control plane template alone, gets a
//! placeholder System pool `placeholder` (Standard_D2s_v3), since CAPZ needs one. The objects built from the
//! template carry the template's origin; the placeholders carry the origin `<placeholder>`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::json_pointer::At;
use crate::manifest::Document;

use super::ClassicCluster;

const INFRA_API: &str = "infrastructure.cluster.x-k8s.io/v1beta1";
const CAPI_API: &str = "cluster.x-k8s.io/v1beta1";
const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
/// Where the patches sit in a control plane template and a pool template.
pub const CONTROL_PLANE_TEMPLATE_PATCHES: &str = "/spec/template/spec/asoManagedClusterPatches";
pub const POOL_TEMPLATE_PATCHES: &str = "/spec/template/spec/asoManagedClustersAgentPoolPatches";

fn has_patches(doc: &Document, pointer: &str) -> bool {
    doc.value.array_at(pointer).is_some_and(|list| !list.is_empty())
}

fn placeholder(value: Value) -> Document {
    static SOURCE: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    Document::from_value(value, SOURCE.get_or_init(|| Arc::from("<placeholder>")), 0)
}

/// A classic object of `kind` with the template's `spec.template.spec`, its origin and the assumed name.
fn from_template(template: &Document, kind: &str, name: &str, namespace: &str) -> Document {
    let spec = template.value.at("/spec/template/spec").cloned().unwrap_or_else(|| json!({}));
    let value = json!({
        "apiVersion": INFRA_API,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace, "labels": {CLUSTER_NAME_LABEL: name}},
        "spec": spec,
    });
    Document { value, origin: template.origin.clone(), lines: Default::default() }
}

fn cluster_object(name: &str, namespace: &str) -> Document {
    placeholder(json!({
        "apiVersion": CAPI_API,
        "kind": "Cluster",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "controlPlaneRef": {"apiVersion": INFRA_API, "kind": "AzureManagedControlPlane", "name": name},
            "infrastructureRef": {"apiVersion": INFRA_API, "kind": "AzureManagedCluster", "name": name},
        },
    }))
}

fn machine_pool(name: &str, cluster: &str, namespace: &str, version: Option<&str>) -> Document {
    let mut spec = json!({
        "clusterName": cluster,
        "infrastructureRef": {"apiVersion": INFRA_API, "kind": "AzureManagedMachinePool", "name": name},
    });
    if let Some(version) = version {
        spec["version"] = json!(version);
    }
    placeholder(json!({
        "apiVersion": CAPI_API,
        "kind": "MachinePool",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterName": cluster, "replicas": 1, "template": {"spec": spec}},
    }))
}

fn placeholder_system_pool(cluster: &str, namespace: &str, version: Option<&str>) -> (Document, Document) {
    let name = format!("{cluster}-placeholder");
    let pool = placeholder(json!({
        "apiVersion": INFRA_API,
        "kind": "AzureManagedMachinePool",
        "metadata": {"name": name, "namespace": namespace, "labels": {CLUSTER_NAME_LABEL: cluster}},
        "spec": {"mode": "System", "name": "placeholder", "sku": "Standard_D2s_v3"},
    }));
    (machine_pool(&name, cluster, namespace, version), pool)
}

/// The AzureClusterIdentities of the bundle by namespace and name, the first copy of each.
type Identities<'a> = HashMap<(&'a str, &'a str), &'a Document>;

fn identities(documents: &[Document]) -> Identities<'_> {
    let mut out = HashMap::new();
    for doc in documents.iter().filter(|d| d.kind() == "AzureClusterIdentity") {
        out.entry((doc.namespace().unwrap_or("default"), doc.name())).or_insert(doc);
    }
    out
}

fn identity_of<'a>(identities: &Identities<'a>, control_plane: &Document, namespace: &str) -> Option<&'a Document> {
    let name = control_plane.value.str_at("/spec/identityRef/name")?;
    let identity_ns = control_plane.value.str_at("/spec/identityRef/namespace").unwrap_or(namespace);
    identities.get(&(identity_ns, name)).copied()
}

fn assemble<'a>(
    identities: &Identities<'a>,
    name: &str,
    namespace: &str,
    control_plane: Document,
    mut pools: Vec<(Document, Document)>,
) -> ClassicCluster<'a> {
    let version = control_plane.value.str_at("/spec/version").map(str::to_string);
    if !pools.iter().any(|(_, pool)| pool.value.str_at("/spec/mode") == Some("System")) {
        pools.insert(0, placeholder_system_pool(name, namespace, version.as_deref()));
    }
    let identity = identity_of(identities, &control_plane, namespace);
    ClassicCluster {
        cluster: Cow::Owned(cluster_object(name, namespace)),
        control_plane: Cow::Owned(control_plane),
        infra_cluster: None,
        pools: pools.into_iter().map(|(machine_pool, pool)| (Cow::Owned(machine_pool), Cow::Owned(pool))).collect(),
        identity: identity.map(Cow::Borrowed),
    }
}

/// One made-up classic cluster per AzureManagedControlPlaneTemplate and per AzureManagedMachinePoolTemplate
/// that has patches (see the module's documentation for what is assumed).
pub fn clusters_from_templates(documents: &[Document]) -> Vec<ClassicCluster<'_>> {
    let mut out = Vec::new();
    let identities = identities(documents);
    let cp_templates: Vec<&Document> =
        documents.iter().filter(|d| d.kind() == "AzureManagedControlPlaneTemplate").collect();
    let mut cp_templates_by_namespace: HashMap<&str, Vec<&Document>> = HashMap::new();
    for template in &cp_templates {
        cp_templates_by_namespace.entry(template.namespace().unwrap_or("default")).or_default().push(template);
    }
    for template in &cp_templates {
        if !has_patches(template, CONTROL_PLANE_TEMPLATE_PATCHES) {
            continue;
        }
        let (name, namespace) = (template.name(), template.namespace().unwrap_or("default"));
        let control_plane = from_template(template, "AzureManagedControlPlane", name, namespace);
        out.push(assemble(&identities, name, namespace, control_plane, Vec::new()));
    }
    for template in documents.iter().filter(|d| d.kind() == "AzureManagedMachinePoolTemplate") {
        if !has_patches(template, POOL_TEMPLATE_PATCHES) {
            continue;
        }
        let (name, namespace) = (template.name(), template.namespace().unwrap_or("default"));
        let same_namespace = cp_templates_by_namespace.get(namespace).map_or(&[][..], Vec::as_slice);
        let control_plane = match same_namespace {
            [only] => {
                let mut control_plane = from_template(only, "AzureManagedControlPlane", name, namespace);
                if let Some(spec) = control_plane.value.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.remove("asoManagedClusterPatches");
                }
                control_plane.origin = placeholder(Value::Null).origin;
                control_plane
            }
            _ => placeholder(json!({
                "apiVersion": INFRA_API,
                "kind": "AzureManagedControlPlane",
                "metadata": {"name": name, "namespace": namespace, "labels": {CLUSTER_NAME_LABEL: name}},
                "spec": {"location": "placeholder", "subscriptionID": "00000000-0000-0000-0000-000000000000"},
            })),
        };
        let version = control_plane.value.str_at("/spec/version").map(str::to_string);
        let pool = from_template(template, "AzureManagedMachinePool", name, namespace);
        let pools = vec![(machine_pool(name, name, namespace, version.as_deref()), pool)];
        out.push(assemble(&identities, name, namespace, control_plane, pools));
    }
    out
}

/// The cluster with every `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` removed: what CAPZ
/// creates without them (a copy of only the objects that have them).
pub fn without_patches<'a>(cluster: &ClassicCluster<'a>) -> ClassicCluster<'a> {
    let strip = |doc: &mut Cow<'_, Document>, field: &str| {
        if doc.value.get("spec").is_some_and(|spec| spec.get(field).is_some())
            && let Some(spec) = doc.to_mut().value.get_mut("spec").and_then(Value::as_object_mut)
        {
            spec.remove(field);
        }
    };
    let mut cluster = cluster.clone();
    strip(&mut cluster.control_plane, "asoManagedClusterPatches");
    for (_, pool) in &mut cluster.pools {
        strip(pool, "asoManagedClustersAgentPoolPatches");
    }
    cluster
}

/// The key CAPZ's webhook generates for an empty `sshPublicKey` is only known to the live cluster; for checks of
/// the patches a placeholder key (`ssh-rsa placeholder`, base64) stands in for it.
pub fn with_placeholder_ssh_key<'a>(cluster: &ClassicCluster<'a>) -> ClassicCluster<'a> {
    let mut cluster = cluster.clone();
    put_placeholder_ssh_key(&mut cluster);
    cluster
}

/// [`with_placeholder_ssh_key`] in place.
pub fn put_placeholder_ssh_key(cluster: &mut ClassicCluster<'_>) {
    if cluster.control_plane.value.str_at("/spec/sshPublicKey") == Some("")
        && let Some(key) = cluster.control_plane.to_mut().value.pointer_mut("/spec/sshPublicKey")
    {
        *key = json!("c3NoLXJzYSBwbGFjZWhvbGRlcg==");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;

    const TEMPLATES: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: cp, namespace: ns}
spec:
  template:
    spec:
      location: westeurope
      version: v1.33.2
      asoManagedClusterPatches: ['{\"spec\": {\"disableLocalAccounts\": false}}']
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: workers, namespace: ns}
spec:
  template:
    spec:
      mode: User
      name: workers
      sku: Standard_D2s_v3
      asoManagedClustersAgentPoolPatches: ['{\"spec\": {\"maxPods\": 50}}']
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: no-patches, namespace: ns}
spec: {template: {spec: {mode: System, name: sys, sku: Standard_D2s_v3}}}
";

    #[test]
    fn one_cluster_per_template_with_patches_named_after_it() {
        let documents = parse_documents(TEMPLATES, "t.yaml").unwrap();
        let clusters = clusters_from_templates(&documents);
        assert_eq!(clusters.len(), 2, "the template without patches makes no cluster");

        let control_plane = &clusters[0];
        assert_eq!((control_plane.name(), control_plane.namespace()), ("cp", "ns"));
        assert_eq!(control_plane.control_plane.origin, documents[0].origin, "findings go to the template");
        assert_eq!(control_plane.control_plane.value["spec"]["location"], "westeurope");
        assert_eq!(control_plane.pools.len(), 1);
        assert_eq!(control_plane.pools[0].1.value["spec"]["mode"], "System", "a placeholder System pool");
        assert_eq!(&*control_plane.pools[0].1.origin.source, "<placeholder>");

        let pool = &clusters[1];
        assert_eq!(pool.name(), "workers");
        assert_eq!(
            pool.control_plane.value["spec"]["location"], "westeurope",
            "paired with the namespace's cp template"
        );
        assert!(pool.control_plane.value["spec"].get("asoManagedClusterPatches").is_none());
        assert_eq!(&*pool.control_plane.origin.source, "<placeholder>");
        assert_eq!(pool.pools.len(), 2, "a User pool gets a placeholder System pool");
        assert_eq!(pool.pools[1].1.origin, documents[1].origin);
        assert_eq!(pool.pools[1].0.value["spec"]["template"]["spec"]["version"], "v1.33.2");
        assert!(
            crate::migrate::translate(
                pool,
                crate::target_schemas::TargetSchemas::builtin(crate::versions::default_target())
            )
            .is_ok(),
            "{:?}",
            crate::migrate::translate(
                pool,
                crate::target_schemas::TargetSchemas::builtin(crate::versions::default_target())
            )
        );
    }

    #[test]
    fn without_patches_and_the_placeholder_key() {
        let documents = parse_documents(TEMPLATES, "t.yaml").unwrap();
        let mut cluster = clusters_from_templates(&documents).remove(1);
        cluster.control_plane.to_mut().value["spec"]["sshPublicKey"] = json!("");
        let stripped = without_patches(&cluster);
        assert!(stripped.pools[1].1.value["spec"].get("asoManagedClustersAgentPoolPatches").is_none());
        let keyed = with_placeholder_ssh_key(&cluster);
        assert_eq!(keyed.control_plane.value["spec"]["sshPublicKey"], "c3NoLXJzYSBwbGFjZWhvbGRlcg==");
        assert!(
            crate::migrate::translate(
                &cluster,
                crate::target_schemas::TargetSchemas::builtin(crate::versions::default_target())
            )
            .is_err(),
            "an empty key is an error of the translation"
        );
        assert!(
            crate::migrate::translate(
                &keyed,
                crate::target_schemas::TargetSchemas::builtin(crate::versions::default_target())
            )
            .is_ok()
        );
    }
}
