//! From a ClusterClass, its templates and a topology Cluster to the objects the CAPI topology
//! controller creates: the Cluster (with its refs), the infrastructure cluster, the control plane
//! (and its machine template), and per MachinePool / MachineDeployment topology the pool or
//! deployment with its bootstrap and infrastructure objects or templates.
//!
//! Order of work mirrors `exp/topology/desiredstate`: objects are computed from the unpatched
//! templates, builtin variables are taken from them, the class patches run on the templates, and
//! the patched `spec.template.spec` replaces each object's spec, keeping the fields the controller
//! sets itself (control plane `version`, `replicas`, `machineTemplate`).
//!
//! Naming rule: the controller's naming templates (`{{ .cluster.name }}-{{ .random }}`,
//! `{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}`, the class's own
//! `naming`/`namingStrategy` templates, and `<cluster>-<topology>-` prefixes for pool objects)
//! are kept, but `.random` is not random: it is 5 characters of Kubernetes' name alphabet
//! taken from SHA-256 of `<namespace>/<cluster>/<role>`, so a plan is reproducible. When names of
//! live objects are known ([`Current`]), they are reused exactly as the controller does.
//! Owner references to the Cluster are not emitted (they need its UID).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use sha2::Digest as _;

use super::gotemplate::{self, GoValue};
use super::patches::{self, Holder, Item, PatchError};
use super::variables::{self, VariableError};
use super::webhooks::{self, FieldError, v1beta2_path_hint};
use crate::manifest::{Document, split_api_version};

pub const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
pub const TOPOLOGY_OWNED_LABEL: &str = "topology.cluster.x-k8s.io/owned";
pub const MACHINE_POOL_NAME_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";
pub const MACHINE_DEPLOYMENT_NAME_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
pub const CLONED_FROM_NAME: &str = "cluster.x-k8s.io/cloned-from-name";
pub const CLONED_FROM_GROUPKIND: &str = "cluster.x-k8s.io/cloned-from-groupkind";

/// Errors planning a topology; each names the Cluster or ClusterClass and the field.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("no Cluster with spec.topology among the inputs")]
    NoTopologyCluster,
    #[error("{location}: Cluster {cluster}: ClusterClass {namespace}/{name} not found among the inputs")]
    ClassNotFound { location: String, cluster: String, namespace: String, name: String },
    #[error("ClusterClass {class}: {field}: {kind} {namespace}/{name} not found among the inputs")]
    TemplateNotFound { class: String, field: String, kind: String, namespace: String, name: String },
    #[error("ClusterClass {class}: {field}: {message}")]
    InvalidClass { class: String, field: String, message: String },
    #[error("{location}: Cluster {cluster}: {field}: {message}")]
    InvalidCluster { location: String, cluster: String, field: String, message: String },
    #[error("{location}: Cluster {cluster}: invalid variables:\n{}", errors.iter().map(|(at, e)| format!("  {at}: {e}")).collect::<Vec<_>>().join("\n"))]
    Variables { location: String, cluster: String, errors: Vec<(String, VariableError)> },
    #[error("{location}: {object} is rejected by CAPI's webhook:\n{}", errors.iter().map(|(at, e)| format!("  {at}: {e}{}", v1beta2_path_hint(&e.path))).collect::<Vec<_>>().join("\n"))]
    Rejected { location: String, object: String, errors: Vec<(String, FieldError)> },
    #[error(transparent)]
    Patch(#[from] PatchError),
}

/// Names of objects that already exist for a topology (read from the live Cluster and pools);
/// the controller reuses them instead of generating new ones.
#[derive(Debug, Clone, Default)]
pub struct Current {
    pub infrastructure_cluster: Option<String>,
    pub control_plane: Option<String>,
    pub control_plane_machine_infrastructure: Option<String>,
    /// By topology name.
    pub machine_pools: BTreeMap<String, CurrentWorker>,
    /// By topology name.
    pub machine_deployments: BTreeMap<String, CurrentWorker>,
}

/// Names of one existing pool or deployment and the objects it references.
#[derive(Debug, Clone, Default)]
pub struct CurrentWorker {
    pub name: Option<String>,
    pub bootstrap: Option<String>,
    pub infrastructure: Option<String>,
}

/// The computed objects of one topology Cluster.
#[derive(Debug, Clone)]
pub struct Planned {
    pub cluster_name: String,
    pub namespace: String,
    /// Cluster, infrastructure cluster, control plane (and its machine template), then per
    /// worker topology (in the Cluster's order): bootstrap, infrastructure, pool/deployment.
    pub objects: Vec<Value>,
}

/// Is this a Cluster with `spec.topology`?
pub fn is_topology_cluster(doc: &Document) -> bool {
    doc.kind() == "Cluster" && doc.group() == "cluster.x-k8s.io" && doc.value.pointer("/spec/topology").is_some()
}

/// Plans every topology Cluster among `documents` (the classes and templates are looked up there).
pub fn plan_all(documents: &[Document]) -> Result<Vec<Planned>, TopologyError> {
    let clusters: Vec<&Document> = documents.iter().filter(|d| is_topology_cluster(d)).collect();
    if clusters.is_empty() {
        return Err(TopologyError::NoTopologyCluster);
    }
    clusters.into_iter().map(|c| plan(c, documents, &Current::default())).collect()
}

/// The ClusterClass (namespace, name) a topology Cluster uses.
pub fn class_ref(cluster: &Value) -> (String, String) {
    let ns = cluster.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
    let topo = cluster.pointer("/spec/topology").cloned().unwrap_or(Value::Null);
    let name =
        topo.pointer("/classRef/name").or_else(|| topo.get("class")).and_then(Value::as_str).unwrap_or("").to_string();
    let class_ns = topo
        .pointer("/classRef/namespace")
        .or_else(|| topo.get("classNamespace"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(ns)
        .to_string();
    (class_ns, name)
}

/// The JSON pointer of a variable error's field path (`spec.topology.variables[1].name`).
fn field_pointer(error: &VariableError) -> String {
    let path = match error {
        VariableError::Undefined { path, .. }
        | VariableError::Duplicate { path, .. }
        | VariableError::Missing { path, .. }
        | VariableError::Invalid { path, .. }
        | VariableError::BadDefinition { path, .. }
        | VariableError::Lookup { path, .. } => path,
    };
    let mut pointer = String::new();
    for part in path.split('.') {
        let (name, rest) = part.split_once('[').unwrap_or((part, ""));
        pointer.push('/');
        pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
        for index in rest.split('[').filter(|i| !i.is_empty()) {
            let index = index.trim_end_matches(']');
            if index.chars().all(|c| c.is_ascii_digit()) {
                pointer.push('/');
                pointer.push_str(index);
            }
        }
    }
    pointer
}

/// `file:line` of a CAPI field path (`spec.variables[name].schema`, `spec.patches[1].name`) in
/// `doc`: `[key]` is the list item with that `name` (or `class`); a field that is not written
/// (a default, a missing reference) points at the nearest one that is.
fn locate(doc: &Document, path: &str) -> String {
    doc.location_of(&super::admission::pointer_of(&doc.value, path))
}

fn s<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn namespace_matches(doc: &Document, namespace: &str) -> bool {
    doc.namespace().is_none_or(|ns| ns == namespace)
}

/// A template reference of the class, in either API shape.
#[derive(Debug, Clone)]
struct TemplateRef {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
    field: String,
}

fn read_ref(class: &Value, base: &str, class_ns: &str) -> Option<TemplateRef> {
    for (suffix, field_suffix) in [("/templateRef", "templateRef"), ("/ref", "ref")] {
        if let Some(r) = class.pointer(&format!("{base}{suffix}")).filter(|r| r.is_object()) {
            return Some(TemplateRef {
                api_version: s(r, "/apiVersion").unwrap_or("").to_string(),
                kind: s(r, "/kind").unwrap_or("").to_string(),
                name: s(r, "/name").unwrap_or("").to_string(),
                // CAPI v1.14 reads templates in the class's namespace: a v1beta1 `ref.namespace` is
                // dropped by the conversion to v1beta2 (`templateRef` has none).
                namespace: class_ns.to_string(),
                field: format!("{}.{field_suffix}", base.trim_start_matches('/').replace('/', ".")),
            });
        }
    }
    None
}

struct Ctx<'a> {
    documents: &'a [Document],
    class: &'a Value,
    class_label: String,
    class_ns: String,
    v1beta2: bool,
    cluster: &'a Value,
    cluster_name: String,
    namespace: String,
    location: String,
}

impl Ctx<'_> {
    fn template(&self, r: &TemplateRef) -> Result<Value, TopologyError> {
        let group = split_api_version(&r.api_version).0;
        let found = self.documents.iter().find(|d| {
            d.kind() == r.kind && d.name() == r.name && d.group() == group && namespace_matches(d, &r.namespace)
        });
        let Some(doc) = found else {
            return Err(TopologyError::TemplateNotFound {
                class: self.class_label.clone(),
                field: r.field.clone(),
                kind: r.kind.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone(),
            });
        };
        let mut value = doc.value.clone();
        // CAPI reads the template at the ref's apiVersion.
        if !r.api_version.is_empty() {
            // A v1beta2 template read at v1beta1 always has `spec.template.spec`: the v1beta1 Go types
            // write those structs even when empty, where v1beta2 leaves them out (`omitzero`).
            if doc.version() == "v1beta2"
                && split_api_version(&r.api_version).1 == "v1beta1"
                && value.pointer("/spec/template/spec").is_none()
                && let Some(object) = value.as_object_mut()
            {
                let spec = object.entry("spec").or_insert_with(|| json!({}));
                if let Some(spec) = spec.as_object_mut() {
                    let template = spec.entry("template").or_insert_with(|| json!({}));
                    if let Some(template) = template.as_object_mut() {
                        template.entry("spec").or_insert_with(|| json!({}));
                    }
                }
            }
            value["apiVersion"] = Value::String(r.api_version.clone());
        }
        Ok(value)
    }

    fn required_ref(&self, base: &str) -> Result<TemplateRef, TopologyError> {
        read_ref(self.class, base, &self.class_ns).ok_or_else(|| TopologyError::InvalidClass {
            class: self.class_label.clone(),
            field: format!("{}.templateRef", base.trim_start_matches('/').replace('/', ".")),
            message: "Required value".into(),
        })
    }

    fn cluster_err(&self, field: &str, message: String) -> TopologyError {
        TopologyError::InvalidCluster {
            location: self.location.clone(),
            cluster: format!("{}/{}", self.namespace, self.cluster_name),
            field: field.into(),
            message,
        }
    }

    /// `.random` of the naming rule (see the module docs).
    fn random(&self, role: &str) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let digest = sha2::Sha256::digest(format!("{}/{}/{role}", self.namespace, self.cluster_name).as_bytes());
        digest.iter().take(5).map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect()
    }

    fn name_from_template(
        &self,
        template: &str,
        role: &str,
        extra: Option<(&str, &str)>,
    ) -> Result<String, TopologyError> {
        let mut data = BTreeMap::new();
        data.insert(
            "cluster".to_string(),
            GoValue::Map([("name".to_string(), GoValue::Str(self.cluster_name.clone()))].into_iter().collect()),
        );
        data.insert("random".to_string(), GoValue::Str(self.random(role)));
        if let Some((key, topology_name)) = extra {
            data.insert(
                key.to_string(),
                GoValue::Map(
                    [("topologyName".to_string(), GoValue::Str(topology_name.to_string()))].into_iter().collect(),
                ),
            );
        }
        let name = gotemplate::render(template, &GoValue::Map(gotemplate::GoMap::new(data))).map_err(|e| {
            TopologyError::InvalidClass {
                class: self.class_label.clone(),
                field: format!("naming template of {role}"),
                message: e.to_string(),
            }
        })?;
        Ok(if name.len() > 63 {
            format!("{}{}", go_prefix(&name, 58), self.random(&format!("{role}/trim")))
        } else {
            name
        })
    }

    fn prefixed_name(&self, prefix: &str, role: &str) -> String {
        format!("{}{}", go_prefix(prefix, 58), self.random(role))
    }

    /// A reference to `obj` in the shape of the Cluster's API version.
    fn reference(&self, obj: &Value) -> Value {
        let api_version = s(obj, "/apiVersion").unwrap_or("");
        if self.v1beta2 {
            json!({"apiGroup": split_api_version(api_version).0, "kind": s(obj, "/kind"), "name": s(obj, "/metadata/name")})
        } else {
            json!({"apiVersion": v1beta1_view_api_version(api_version), "kind": s(obj, "/kind"), "name": s(obj, "/metadata/name"), "namespace": self.namespace})
        }
    }
}

/// The apiVersion a v1beta1 client reads in a reference of a core CAPI object. CAPI v1.14 stores
/// references as `apiGroup` + kind (v1beta2) and its conversion webhook writes back the CRD's
/// latest version for the current contract (`contract.GetAPIVersion`): `v1beta2` for CAPI's own
/// kubeadm bootstrap and control plane kinds, whatever version the template used; the version of the
/// reference otherwise (CAPZ's CRDs declare the v1beta1 contract only).
fn v1beta1_view_api_version(api_version: &str) -> String {
    match split_api_version(api_version).0 {
        group @ ("bootstrap.cluster.x-k8s.io" | "controlplane.cluster.x-k8s.io") => format!("{group}/v1beta2"),
        _ => api_version.to_string(),
    }
}

fn labels_of(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// `util.MergeMap`: the first map wins.
fn merge_first_wins(first: &Map<String, Value>, second: &Map<String, Value>) -> Map<String, Value> {
    let mut out = second.clone();
    for (k, v) in first {
        out.insert(k.clone(), v.clone());
    }
    let mut sorted: Vec<(String, Value)> = out.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    sorted.into_iter().collect()
}

fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

/// The MachineHealthCheck a control plane or deployment gets (`IsMachineHealthCheckEnabled` and
/// `MachineHealthCheckClass` of CAPI's blueprint): the topology's own checks, else the class's;
/// none when neither has checks or the topology disables it. v1beta1: `machineHealthCheck` with
/// `enable`; v1beta2: `healthCheck` with `enabled`.
///
/// `defined_by_remediation`: a v1beta1 MachineDeployment topology with `strategy.remediation.maxInFlight`.
/// CAPI v1.14 converts it to v1beta2 `healthCheck.remediation.maxInFlight`, which makes the topology's
/// health check "defined": it replaces the class's, with no checks of its own.
fn health_check_class(
    topology: Option<&Value>,
    class: Option<&Value>,
    v1beta2: bool,
    defined_by_remediation: bool,
) -> Option<Value> {
    let switch = if v1beta2 { "enabled" } else { "enable" };
    let own = topology.and_then(Value::as_object).map(|m| {
        let mut m = m.clone();
        m.remove(switch);
        m
    });
    let own = match own.filter(|m| !m.is_empty()) {
        Some(m) => Some(Value::Object(m)),
        None if defined_by_remediation => Some(json!({})),
        None => None,
    };
    let class = class.filter(|c| c.as_object().is_some_and(|m| m.keys().any(|k| k != switch)));
    if own.is_none() && class.is_none() {
        return None;
    }
    if topology.and_then(|t| t.get(switch)).and_then(Value::as_bool) == Some(false) {
        return None;
    }
    own.or_else(|| class.cloned())
}

/// `computeMachineHealthCheck` with the MachineHealthCheck webhook's defaults, in the Cluster's
/// API version. As in CAPI v1.14 only `nodeStartupTimeout` is defaulted (10m); v1.10 also wrote
/// `maxUnhealthy: 100%` (docs/plan.md).
fn machine_health_check(ctx: &Ctx, target: &Value, selector: Value, check: &Value) -> Value {
    let mut spec = Map::new();
    spec.insert("clusterName".into(), json!(ctx.cluster_name));
    spec.insert("selector".into(), selector);
    if ctx.v1beta2 {
        let mut checks = check.get("checks").and_then(Value::as_object).cloned().unwrap_or_default();
        checks.entry("nodeStartupTimeoutSeconds").or_insert(json!(600));
        spec.insert("checks".into(), Value::Object(checks));
        let mut remediation = Map::new();
        if let Some(trigger) =
            check.pointer("/remediation/triggerIf").filter(|t| t.as_object().is_some_and(|m| !m.is_empty()))
        {
            remediation.insert("triggerIf".into(), trigger.clone());
        }
        if let Some(template) = check.pointer("/remediation/templateRef") {
            remediation.insert("templateRef".into(), template.clone());
        }
        if !remediation.is_empty() {
            spec.insert("remediation".into(), Value::Object(remediation));
        }
    } else {
        for key in
            ["unhealthyConditions", "maxUnhealthy", "unhealthyRange", "nodeStartupTimeout", "remediationTemplate"]
        {
            if let Some(v) = check.get(key) {
                spec.insert(key.into(), v.clone());
            }
        }
        spec.entry("nodeStartupTimeout").or_insert(json!("10m0s"));
        if let Some(v) = spec.get_mut("nodeStartupTimeout") {
            webhooks::canonical_duration(v);
        }
        for condition in spec.get_mut("unhealthyConditions").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(v) = condition.get_mut("timeout") {
                webhooks::canonical_duration(v);
            }
        }
        if let Some(t) = spec.get_mut("remediationTemplate").and_then(Value::as_object_mut) {
            t.entry("namespace").or_insert(json!(ctx.namespace));
        }
    }
    json!({
        "apiVersion": ctx.cluster.get("apiVersion").cloned().unwrap_or(json!("cluster.x-k8s.io/v1beta1")),
        "kind": "MachineHealthCheck",
        "metadata": {
            "name": s(target, "/metadata/name"),
            "namespace": ctx.namespace,
            "labels": {CLUSTER_NAME_LABEL: ctx.cluster_name, TOPOLOGY_OWNED_LABEL: ""},
        },
        "spec": spec,
    })
}

/// The control plane's `machineTemplate` fields the topology (or else the class) sets:
/// node drain / volume detach / deletion timeouts and readiness gates.
fn set_control_plane_machine_fields(
    control_plane: &mut Value,
    cluster: &Value,
    class: &Value,
    v1beta2: bool,
    contract_v1beta2: bool,
) {
    let pick = |field: &str| {
        cluster
            .pointer(&format!("/spec/topology/controlPlane/{field}"))
            .or_else(|| class.pointer(&format!("/spec/controlPlane/{field}")))
            .cloned()
    };
    if let Some(gates) = pick("readinessGates") {
        let at = if contract_v1beta2 {
            "/spec/machineTemplate/spec/readinessGates"
        } else {
            "/spec/machineTemplate/readinessGates"
        };
        set_pointer(control_plane, at, gates);
    }
    for field in ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"] {
        let value = if v1beta2 { pick(&format!("deletion/{field}Seconds")) } else { pick(field) };
        let Some(mut value) = value else { continue };
        match (v1beta2, contract_v1beta2) {
            (true, true) => {
                set_pointer(control_plane, &format!("/spec/machineTemplate/spec/deletion/{field}Seconds"), value)
            }
            (true, false) => {
                let seconds = value.as_i64().unwrap_or(0) as i128;
                let text = webhooks::format_go_duration(seconds * 1_000_000_000);
                set_pointer(control_plane, &format!("/spec/machineTemplate/{field}"), json!(text));
            }
            (false, true) => {
                // v1.14 converts the v1beta1 duration to v1beta2 whole seconds before computing the
                // control plane, whose v1beta2 contract takes `deletion.*Seconds`.
                let nanos = value.as_str().and_then(|text| crate::go_duration::parse(text).ok()).unwrap_or(0);
                let seconds = crate::go_duration::capi_whole_seconds(nanos).0;
                set_pointer(
                    control_plane,
                    &format!("/spec/machineTemplate/spec/deletion/{field}Seconds"),
                    json!(seconds),
                )
            }
            (false, false) => {
                webhooks::canonical_duration(&mut value);
                set_pointer(control_plane, &format!("/spec/machineTemplate/{field}"), value);
            }
        }
    }
}

/// `builtin.*.metadata`: an object's labels and annotations, when it has any.
fn object_metadata(object: &Value) -> Option<Value> {
    let mut meta = Map::new();
    for key in ["labels", "annotations"] {
        if let Some(v) =
            object.pointer(&format!("/metadata/{key}")).filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            meta.insert(key.into(), v.clone());
        }
    }
    if meta.is_empty() { None } else { Some(Value::Object(meta)) }
}

/// `external.GenerateTemplate`: the object a template's `spec.template` describes.
fn template_to_object(
    ctx: &Ctx,
    template: &Value,
    name: String,
    labels: &Map<String, Value>,
    annotations: &Map<String, Value>,
) -> Value {
    let inner = template.pointer("/spec/template").cloned().unwrap_or(json!({}));
    let mut obj = Map::new();
    let kind = s(template, "/kind").unwrap_or("");
    obj.insert("apiVersion".into(), json!(s(template, "/apiVersion").unwrap_or("")));
    obj.insert("kind".into(), json!(kind.strip_suffix("Template").unwrap_or(kind)));
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    let mut all_labels = labels_of(inner.pointer("/metadata/labels"));
    for (k, v) in labels {
        all_labels.insert(k.clone(), v.clone());
    }
    all_labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    all_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let mut all_annotations = labels_of(inner.pointer("/metadata/annotations"));
    for (k, v) in annotations {
        all_annotations.insert(k.clone(), v.clone());
    }
    all_annotations.insert(CLONED_FROM_NAME.into(), json!(s(template, "/metadata/name").unwrap_or("")));
    all_annotations.insert(CLONED_FROM_GROUPKIND.into(), json!(group_kind(template)));
    meta.insert("labels".into(), Value::Object(sorted(all_labels)));
    meta.insert("annotations".into(), Value::Object(sorted(all_annotations)));
    obj.insert("metadata".into(), Value::Object(meta));
    // v1.14's external.GenerateTemplate copies `spec.template` as it is: an empty spec stays `spec: {}`.
    if let Some(spec) = inner.get("spec") {
        obj.insert("spec".into(), spec.clone());
    }
    Value::Object(obj)
}

/// `templateToTemplate`: a per-cluster copy of a template.
fn template_to_template(ctx: &Ctx, template: &Value, name: String, labels: &Map<String, Value>) -> Value {
    let mut copy = template.clone();
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    let mut all_labels = labels_of(template.pointer("/metadata/labels"));
    for (k, v) in labels {
        all_labels.insert(k.clone(), v.clone());
    }
    all_labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    all_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let mut annotations = labels_of(template.pointer("/metadata/annotations"));
    annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    annotations.insert(CLONED_FROM_NAME.into(), json!(s(template, "/metadata/name").unwrap_or("")));
    annotations.insert(CLONED_FROM_GROUPKIND.into(), json!(group_kind(template)));
    meta.insert("labels".into(), Value::Object(sorted(all_labels)));
    meta.insert("annotations".into(), Value::Object(sorted(annotations)));
    copy["metadata"] = Value::Object(meta);
    if let Some(obj) = copy.as_object_mut() {
        obj.remove("status");
    }
    copy
}

fn group_kind(obj: &Value) -> String {
    let group = split_api_version(s(obj, "/apiVersion").unwrap_or("")).0;
    let kind = s(obj, "/kind").unwrap_or("");
    if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") }
}

fn set_pointer(doc: &mut Value, pointer: &str, value: Value) {
    let mut current = doc;
    let tokens: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for (i, token) in tokens.iter().enumerate() {
        if !current.is_object() {
            *current = json!({});
        }
        let map = current.as_object_mut().expect("object");
        if i + 1 == tokens.len() {
            map.insert((*token).to_string(), value);
            return;
        }
        current = map.entry((*token).to_string()).or_insert_with(|| json!({}));
    }
}

/// `copySpec`: the object's spec becomes the patched template's `spec.template.spec`, except
/// for `preserve` pointers (relative to the object) that the desired object already sets.
fn copy_spec(object: &mut Value, patched_template: &Value, preserve: &[&str]) {
    let kept: Vec<(&str, Value)> = preserve.iter().filter_map(|p| object.pointer(p).map(|v| (*p, v.clone()))).collect();
    let spec = patched_template.pointer("/spec/template/spec").cloned().unwrap_or(json!({}));
    object["spec"] = spec;
    for (pointer, value) in kept {
        set_pointer(object, pointer, value);
    }
}

struct Worker {
    kind: WorkerKind,
    topology_name: String,
    class: String,
    index: usize,
    bootstrap: Value,
    infrastructure: Value,
    object: Value,
    bootstrap_template: Value,
    infrastructure_template: Value,
    /// The class's `machineHealthCheck` (deployments only).
    class_health_check: Option<Value>,
}

#[derive(Clone, Copy, PartialEq)]
enum WorkerKind {
    Pool,
    Deployment,
}

/// CAPI's `computeInfrastructureCluster`: the infrastructure cluster from the class's template, named by the class's
/// naming template (or the existing object's name).
fn compute_infrastructure_cluster(
    ctx: &Ctx,
    class: &Value,
    infra_template: &Value,
    current: &Current,
) -> Result<Value, TopologyError> {
    let infra_name_template = s(class, "/spec/infrastructure/naming/template")
        .or_else(|| s(class, "/spec/infrastructureNamingStrategy/template"))
        .unwrap_or("{{ .cluster.name }}-{{ .random }}");
    let infra_name = match &current.infrastructure_cluster {
        Some(n) => n.clone(),
        None => ctx.name_from_template(infra_name_template, "infrastructure", None)?,
    };
    Ok(template_to_object(ctx, infra_template, infra_name, &Map::new(), &Map::new()))
}

/// CAPI's `computeControlPlaneInfrastructureMachineTemplate`: the control plane's machine template, if the class has
/// one.
fn compute_control_plane_machine_template(
    ctx: &Ctx,
    cp_machine_template: Option<&Value>,
    current: &Current,
    cluster_name: &str,
) -> Option<Value> {
    cp_machine_template.map(|t| {
        let name = current
            .control_plane_machine_infrastructure
            .clone()
            .unwrap_or_else(|| ctx.prefixed_name(&format!("{cluster_name}-"), "control-plane-machine-infrastructure"));
        template_to_template(ctx, t, name, &Map::new())
    })
}

/// CAPI's `computeControlPlane`: the control plane from the class's template, with the topology's and the class's
/// metadata, its machine template's reference, replicas and version.
#[allow(clippy::too_many_arguments)]
fn compute_control_plane(
    ctx: &Ctx,
    cluster: &Value,
    class: &Value,
    cp_template: &Value,
    cp_machine: Option<&Value>,
    current: &Current,
    topology_version: &str,
) -> Result<Value, TopologyError> {
    let (cluster_name, namespace, v1beta2) = (&ctx.cluster_name, &ctx.namespace, ctx.v1beta2);
    let topo_cp_meta = cluster.pointer("/spec/topology/controlPlane/metadata");
    let class_cp_meta = class.pointer("/spec/controlPlane/metadata");
    let mut cp_labels = merge_first_wins(
        &labels_of(topo_cp_meta.and_then(|m| m.get("labels"))),
        &labels_of(class_cp_meta.and_then(|m| m.get("labels"))),
    );
    cp_labels.insert(CLUSTER_NAME_LABEL.into(), json!(cluster_name));
    cp_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    let cp_annotations = merge_first_wins(
        &labels_of(topo_cp_meta.and_then(|m| m.get("annotations"))),
        &labels_of(class_cp_meta.and_then(|m| m.get("annotations"))),
    );
    let cp_name_template = s(class, "/spec/controlPlane/naming/template")
        .or_else(|| s(class, "/spec/controlPlane/namingStrategy/template"))
        .unwrap_or("{{ .cluster.name }}-{{ .random }}");
    let cp_name = match &current.control_plane {
        Some(n) => n.clone(),
        None => ctx.name_from_template(cp_name_template, "control-plane", None)?,
    };
    let mut control_plane = template_to_object(ctx, cp_template, cp_name, &cp_labels, &cp_annotations);
    // Contract of the control plane provider: v1beta2 for controlplane.cluster.x-k8s.io/v1beta2
    // (KCP), v1beta1 otherwise (CAPZ and most providers today).
    let cp_contract_v1beta2 = control_plane["apiVersion"] == json!("controlplane.cluster.x-k8s.io/v1beta2");
    if let Some(machine) = cp_machine {
        let api_version = s(machine, "/apiVersion").unwrap_or("");
        if cp_contract_v1beta2 {
            set_pointer(
                &mut control_plane,
                "/spec/machineTemplate/spec/infrastructureRef",
                json!({"apiGroup": split_api_version(api_version).0, "kind": s(machine, "/kind"), "name": s(machine, "/metadata/name")}),
            );
        } else {
            set_pointer(
                &mut control_plane,
                "/spec/machineTemplate/infrastructureRef",
                json!({"apiVersion": api_version, "kind": s(machine, "/kind"), "name": s(machine, "/metadata/name"), "namespace": namespace}),
            );
        }
        let existing = control_plane.pointer("/spec/machineTemplate/metadata").cloned().unwrap_or(json!({}));
        let labels = merge_first_wins(&labels_of(existing.get("labels")), &cp_labels);
        let annotations = merge_first_wins(&labels_of(existing.get("annotations")), &cp_annotations);
        let mut meta = Map::new();
        if !labels.is_empty() {
            meta.insert("labels".into(), Value::Object(labels));
        }
        if !annotations.is_empty() {
            meta.insert("annotations".into(), Value::Object(annotations));
        }
        set_pointer(&mut control_plane, "/spec/machineTemplate/metadata", Value::Object(meta));
    }
    set_control_plane_machine_fields(&mut control_plane, cluster, class, v1beta2, cp_contract_v1beta2);
    if let Some(replicas) = cluster.pointer("/spec/topology/controlPlane/replicas") {
        set_pointer(&mut control_plane, "/spec/replicas", replicas.clone());
    }
    set_pointer(&mut control_plane, "/spec/version", json!(topology_version));
    Ok(control_plane)
}

/// CAPI's `computeCluster`: the Cluster with its labels and the references to the infrastructure cluster and the
/// control plane.
fn compute_cluster(ctx: &Ctx, cluster: &Value, infra_cluster: &Value, control_plane: &Value) -> Value {
    let cluster_name = &ctx.cluster_name;
    let mut desired_cluster = cluster.clone();
    let mut cluster_labels = labels_of(cluster.pointer("/metadata/labels"));
    cluster_labels.insert(CLUSTER_NAME_LABEL.into(), json!(cluster_name));
    cluster_labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    set_pointer(&mut desired_cluster, "/metadata/labels", Value::Object(sorted(cluster_labels)));
    set_pointer(&mut desired_cluster, "/spec/infrastructureRef", ctx.reference(infra_cluster));
    set_pointer(&mut desired_cluster, "/spec/controlPlaneRef", ctx.reference(control_plane));
    if let Some(obj) = desired_cluster.as_object_mut() {
        obj.remove("status");
    }
    desired_cluster
}

/// Worker topology names are unique per kind (CAPI's Cluster webhook).
fn check_unique_worker_names(ctx: &Ctx, cluster: &Value) -> Result<(), TopologyError> {
    for topo_key in ["machineDeployments", "machinePools"] {
        let names: Vec<&str> = cluster
            .pointer(&format!("/spec/topology/workers/{topo_key}"))
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|t| s(t, "/name")).collect())
            .unwrap_or_default();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(ctx.cluster_err(
                    &format!("spec.topology.workers.{topo_key}[{i}].name"),
                    format!("Invalid value: {name:?}: names must be unique"),
                ));
            }
        }
    }
    Ok(())
}

/// CAPI's `computeMachineDeployments`: one MachineDeployment (with its bootstrap and infrastructure templates) per
/// topology entry.
fn compute_machine_deployments(
    ctx: &Ctx,
    cluster: &Value,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    compute_workers(ctx, cluster, WorkerKind::Deployment, "machineDeployments", topology_version, current)
}

/// CAPI's `computeMachinePools`: one MachinePool (with its bootstrap and infrastructure objects) per topology entry.
fn compute_machine_pools(
    ctx: &Ctx,
    cluster: &Value,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    compute_workers(ctx, cluster, WorkerKind::Pool, "machinePools", topology_version, current)
}

/// The workers of one kind (`topo_key` names it in the topology and in the class), in topology order.
fn compute_workers(
    ctx: &Ctx,
    cluster: &Value,
    kind: WorkerKind,
    topo_key: &str,
    topology_version: &str,
    current: &Current,
) -> Result<Vec<Worker>, TopologyError> {
    let class_key = topo_key;
    let topologies = cluster
        .pointer(&format!("/spec/topology/workers/{topo_key}"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut workers = Vec::new();
    for (index, topo) in topologies.iter().enumerate() {
        workers.push(compute_worker(ctx, kind, topo_key, class_key, index, topo, topology_version, current)?);
    }
    Ok(workers)
}

/// CAPI's builtin variable `builtin.cluster`: name, namespace, uid, metadata, topology and network of the Cluster.
fn cluster_builtin(ctx: &Ctx, cluster: &Value, topology_version: &str, class_name: &str) -> Map<String, Value> {
    let (cluster_name, namespace, class_ns) = (&ctx.cluster_name, &ctx.namespace, &ctx.class_ns);
    let mut cluster_builtin = Map::new();
    cluster_builtin.insert("name".into(), json!(cluster_name));
    cluster_builtin.insert("namespace".into(), json!(namespace));
    if let Some(uid) = s(cluster, "/metadata/uid") {
        cluster_builtin.insert("uid".into(), json!(uid));
    }
    let mut meta = Map::new();
    for key in ["labels", "annotations"] {
        if let Some(v) =
            cluster.pointer(&format!("/metadata/{key}")).filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            meta.insert(key.into(), v.clone());
        }
    }
    if !meta.is_empty() {
        cluster_builtin.insert("metadata".into(), Value::Object(meta));
    }
    cluster_builtin.insert(
        "topology".into(),
        json!({"version": topology_version, "class": class_name, "classNamespace": class_ns,
               "classRef": {"name": class_name, "namespace": class_ns}}),
    );
    if let Some(network) = cluster.pointer("/spec/clusterNetwork").filter(|n| n.is_object()) {
        let mut net = Map::new();
        if let Some(domain) = network.get("serviceDomain").filter(|d| d.as_str().is_some_and(|s| !s.is_empty())) {
            net.insert("serviceDomain".into(), domain.clone());
        }
        if let Some(services) = network.pointer("/services/cidrBlocks") {
            net.insert("services".into(), services.clone());
        }
        if let Some(pods) = network.pointer("/pods/cidrBlocks") {
            net.insert("pods".into(), pods.clone());
        }
        cluster_builtin.insert("network".into(), Value::Object(net));
    }
    cluster_builtin
}

/// CAPI's builtin variable `builtin.controlPlane`: version, name, replicas, machine template and metadata.
fn control_plane_builtin(
    cluster: &Value,
    control_plane: &Value,
    cp_machine: Option<&Value>,
    topology_version: &str,
) -> Map<String, Value> {
    let mut cp_builtin = Map::new();
    cp_builtin.insert("version".into(), json!(topology_version));
    cp_builtin.insert("name".into(), control_plane.pointer("/metadata/name").cloned().unwrap_or(Value::Null));
    if cluster.pointer("/spec/topology/controlPlane/replicas").is_some() {
        cp_builtin.insert("replicas".into(), control_plane.pointer("/spec/replicas").cloned().unwrap_or(Value::Null));
    }
    if let Some(machine) = cp_machine {
        cp_builtin
            .insert("machineTemplate".into(), json!({"infrastructureRef": {"name": s(machine, "/metadata/name")}}));
    }
    if let Some(meta) = object_metadata(control_plane) {
        cp_builtin.insert("metadata".into(), meta);
    }
    cp_builtin
}

/// Plans one topology Cluster; the class and its templates are looked up in `documents`.
pub fn plan(cluster_doc: &Document, documents: &[Document], current: &Current) -> Result<Planned, TopologyError> {
    let cluster = &cluster_doc.value;
    let cluster_name = cluster_doc.name().to_string();
    let namespace = cluster_doc.namespace().unwrap_or("default").to_string();
    let location = cluster_doc.origin.to_string();
    let (class_ns, class_name) = class_ref(cluster);
    let cluster_label = format!("{namespace}/{cluster_name}");
    if class_name.is_empty() {
        return Err(TopologyError::InvalidCluster {
            location,
            cluster: cluster_label,
            field: "spec.topology.classRef.name".into(),
            message: "Required value: the topology names no ClusterClass".into(),
        });
    }
    let class_doc = documents
        .iter()
        .find(|d| d.kind() == "ClusterClass" && d.name() == class_name && namespace_matches(d, &class_ns))
        .ok_or_else(|| TopologyError::ClassNotFound {
            location: location.clone(),
            cluster: cluster_label.clone(),
            namespace: class_ns.clone(),
            name: class_name.clone(),
        })?;
    let class = &class_doc.value;
    let class_errors = webhooks::validate_class(class);
    if !class_errors.is_empty() {
        return Err(TopologyError::Rejected {
            location: class_doc.origin.to_string(),
            object: format!("ClusterClass {class_ns}/{class_name}"),
            errors: class_errors.into_iter().map(|e| (locate(class_doc, &e.path), e)).collect(),
        });
    }
    let defs = variables::definitions(class).map_err(|e| TopologyError::InvalidClass {
        class: format!("{class_ns}/{class_name}"),
        field: "spec.variables".into(),
        message: e.to_string(),
    })?;
    // What CAPI's defaulting webhook writes into the Cluster; the plan is made from that.
    let mut defaulted = cluster.clone();
    webhooks::default_cluster(&mut defaulted, &defs);
    let cluster = &defaulted;
    let v1beta2 = cluster_doc.version() == "v1beta2";
    let topology_version = s(cluster, "/spec/topology/version").unwrap_or("").to_string();
    if topology_version.is_empty() {
        return Err(TopologyError::InvalidCluster {
            location,
            cluster: cluster_label,
            field: "spec.topology.version".into(),
            message: "Required value".into(),
        });
    }
    let ctx = Ctx {
        documents,
        class,
        class_label: format!("{class_ns}/{class_name}"),
        class_ns: class_ns.clone(),
        v1beta2,
        cluster,
        cluster_name: cluster_name.clone(),
        namespace: namespace.clone(),
        location: location.clone(),
    };

    // Variables: cluster values (defaulted, checked), control plane and per-worker overrides.
    let var_err = |errors: Vec<VariableError>| TopologyError::Variables {
        location: location.clone(),
        cluster: cluster_label.clone(),
        errors: errors.into_iter().map(|e| (cluster_doc.location_of(&field_pointer(&e)), e)).collect(),
    };
    let mut global = variables::resolve(
        &defs,
        cluster.pointer("/spec/topology/variables"),
        "spec.topology.variables",
        &ctx.class_label,
        false,
    )
    .map_err(var_err)?;
    let cp_overrides = variables::resolve(
        &defs,
        cluster.pointer("/spec/topology/controlPlane/variables/overrides"),
        "spec.topology.controlPlane.variables.overrides",
        &ctx.class_label,
        true,
    )
    .map_err(var_err)?;
    let cluster_errors = webhooks::validate_cluster(cluster, class, &class_name);
    if !cluster_errors.is_empty() {
        return Err(TopologyError::Rejected {
            location: location.clone(),
            object: format!("Cluster {cluster_label}"),
            errors: cluster_errors.into_iter().map(|e| (locate(cluster_doc, &e.path), e)).collect(),
        });
    }

    // Templates.
    let infra_ref = ctx.required_ref("/spec/infrastructure")?;
    let infra_template = ctx.template(&infra_ref)?;
    let cp_ref = ctx.required_ref("/spec/controlPlane")?;
    let cp_template = ctx.template(&cp_ref)?;
    let cp_machine_ref = read_ref(class, "/spec/controlPlane/machineInfrastructure", &class_ns);
    let cp_machine_template = cp_machine_ref.as_ref().map(|r| ctx.template(r)).transpose()?;

    // Infrastructure cluster.
    let mut infra_cluster = compute_infrastructure_cluster(&ctx, class, &infra_template, current)?;

    // Control plane machine template (if the class has one).
    let mut cp_machine =
        compute_control_plane_machine_template(&ctx, cp_machine_template.as_ref(), current, &cluster_name);

    // Control plane.
    let mut control_plane =
        compute_control_plane(&ctx, cluster, class, &cp_template, cp_machine.as_ref(), current, &topology_version)?;

    // The Cluster with its refs and labels.
    let desired_cluster = compute_cluster(&ctx, cluster, &infra_cluster, &control_plane);

    // Workers.
    check_unique_worker_names(&ctx, cluster)?;
    let mut workers = compute_machine_deployments(&ctx, cluster, &topology_version, current)?;
    workers.extend(compute_machine_pools(&ctx, cluster, &topology_version, current)?);

    // Builtin variables.
    let cluster_builtin = cluster_builtin(&ctx, cluster, &topology_version, &class_name);
    global.insert(variables::BUILTIN.into(), json!({"cluster": cluster_builtin}));

    let cp_builtin = control_plane_builtin(cluster, &control_plane, cp_machine.as_ref(), &topology_version);
    let mut cp_vars = cp_overrides;
    cp_vars.insert(variables::BUILTIN.to_string(), json!({"controlPlane": cp_builtin}));

    // Patch the templates.
    let mut items = patch_items(
        &ctx,
        &defs,
        &var_err,
        [&infra_template, &cp_template],
        cp_machine_template.as_ref(),
        &cp_vars,
        &workers,
    )?;
    let has_patches = class.pointer("/spec/patches").and_then(Value::as_array).is_some_and(|p| !p.is_empty());
    if has_patches {
        patches::apply(class, &global, &mut items)?;
        copy_patched_templates(&items, &mut infra_cluster, &mut control_plane, cp_machine.as_mut(), &mut workers);
    }

    let objects = assemble(&ctx, desired_cluster, infra_cluster, cp_machine, control_plane, workers);
    Ok(Planned { cluster_name, namespace, objects })
}

/// The templates the class patches run on, each with the variables of its holder: the infrastructure cluster
/// (cluster variables only), the control plane and its machine template (control plane overrides), then the
/// bootstrap and infrastructure templates of every worker (its overrides and `builtin.<worker>`).
fn patch_items(
    ctx: &Ctx,
    defs: &[variables::VariableDefinition],
    var_err: &dyn Fn(Vec<VariableError>) -> TopologyError,
    [infra_template, cp_template]: [&Value; 2],
    cp_machine_template: Option<&Value>,
    cp_vars: &BTreeMap<String, Value>,
    workers: &[Worker],
) -> Result<Vec<Item>, TopologyError> {
    let mut items = vec![
        Item { holder: Holder::InfrastructureCluster, object: infra_template.clone(), variables: BTreeMap::new() },
        Item { holder: Holder::ControlPlane, object: cp_template.clone(), variables: cp_vars.clone() },
    ];
    if let Some(t) = cp_machine_template {
        items.push(Item {
            holder: Holder::ControlPlaneMachineInfrastructure,
            object: t.clone(),
            variables: cp_vars.clone(),
        });
    }
    for w in workers {
        let (key, holder) = match w.kind {
            WorkerKind::Pool => {
                ("machinePool", Holder::MachinePool { class: w.class.clone(), topology: w.topology_name.clone() })
            }
            WorkerKind::Deployment => (
                "machineDeployment",
                Holder::MachineDeployment { class: w.class.clone(), topology: w.topology_name.clone() },
            ),
        };
        let topo_key = if w.kind == WorkerKind::Pool { "machinePools" } else { "machineDeployments" };
        let topo = ctx
            .cluster
            .pointer(&format!("/spec/topology/workers/{topo_key}/{}", w.index))
            .cloned()
            .unwrap_or(Value::Null);
        let mut vars = variables::resolve(
            defs,
            topo.pointer("/variables/overrides"),
            &format!("spec.topology.workers.{topo_key}[{}].variables.overrides", w.index),
            &ctx.class_label,
            true,
        )
        .map_err(var_err)?;
        vars.insert(variables::BUILTIN.into(), json!({ key: worker_builtin(w) }));
        items.push(Item { holder: holder.clone(), object: w.bootstrap_template.clone(), variables: vars.clone() });
        items.push(Item { holder, object: w.infrastructure_template.clone(), variables: vars });
    }
    Ok(items)
}

/// The `builtin.machineDeployment` / `builtin.machinePool` variable of a worker, from its unpatched objects.
fn worker_builtin(w: &Worker) -> Map<String, Value> {
    let mut b = Map::new();
    b.insert("version".into(), w.object.pointer("/spec/template/spec/version").cloned().unwrap_or(Value::Null));
    b.insert("class".into(), json!(w.class));
    b.insert("name".into(), w.object.pointer("/metadata/name").cloned().unwrap_or(Value::Null));
    b.insert("topologyName".into(), json!(w.topology_name));
    if let Some(r) = w.object.pointer("/spec/replicas") {
        b.insert("replicas".into(), r.clone());
    }
    if let Some(meta) = object_metadata(&w.object) {
        b.insert("metadata".into(), meta);
    }
    b.insert("bootstrap".into(), json!({"configRef": {"name": s(&w.bootstrap, "/metadata/name")}}));
    b.insert("infrastructureRef".into(), json!({"name": s(&w.infrastructure, "/metadata/name")}));
    b
}

/// The patched templates' specs back into the desired objects, in the order `items` was built (infrastructure
/// cluster, control plane, its machine template, then bootstrap and infrastructure per worker); the control plane
/// keeps the fields the controller sets itself.
fn copy_patched_templates(
    items: &[Item],
    infra_cluster: &mut Value,
    control_plane: &mut Value,
    cp_machine: Option<&mut Value>,
    workers: &mut [Worker],
) {
    copy_spec(infra_cluster, &items[0].object, &[]);
    copy_spec(
        control_plane,
        &items[1].object,
        &[
            "/spec/machineTemplate/metadata",
            "/spec/machineTemplate/infrastructureRef",
            "/spec/machineTemplate/spec/infrastructureRef",
            "/spec/machineTemplate/nodeDrainTimeout",
            "/spec/machineTemplate/nodeVolumeDetachTimeout",
            "/spec/machineTemplate/nodeDeletionTimeout",
            "/spec/replicas",
            "/spec/version",
        ],
    );
    let mut next = 2;
    if let Some(machine) = cp_machine {
        machine["spec"] = items[next].object.get("spec").cloned().unwrap_or(json!({}));
        next += 1;
    }
    for w in workers.iter_mut() {
        let (bootstrap, infra) = (&items[next].object, &items[next + 1].object);
        next += 2;
        match w.kind {
            WorkerKind::Pool => {
                copy_spec(&mut w.bootstrap, bootstrap, &[]);
                copy_spec(&mut w.infrastructure, infra, &[]);
            }
            WorkerKind::Deployment => {
                w.bootstrap["spec"] = bootstrap.get("spec").cloned().unwrap_or(json!({}));
                w.infrastructure["spec"] = infra.get("spec").cloned().unwrap_or(json!({}));
            }
        }
    }
}

/// The output objects in the controller's order: the Cluster, the infrastructure cluster, the control plane's
/// machine template, the control plane and its health check, then per worker its bootstrap and infrastructure
/// objects, the worker itself and its health check.
fn assemble(
    ctx: &Ctx,
    desired_cluster: Value,
    infra_cluster: Value,
    cp_machine: Option<Value>,
    control_plane: Value,
    workers: Vec<Worker>,
) -> Vec<Value> {
    let (cluster, class, v1beta2) = (ctx.cluster, ctx.class, ctx.v1beta2);
    let mut objects = vec![desired_cluster, infra_cluster];
    let cp_health_check = cp_machine.as_ref().and_then(|_| {
        let key = if v1beta2 { "healthCheck" } else { "machineHealthCheck" };
        health_check_class(
            cluster.pointer(&format!("/spec/topology/controlPlane/{key}")),
            class.pointer(&format!("/spec/controlPlane/{key}")),
            v1beta2,
            false,
        )
    });
    if let Some(machine) = cp_machine {
        objects.push(machine);
    }
    let cp_mhc = cp_health_check.map(|check| {
        let selector = json!({"matchLabels": {"cluster.x-k8s.io/control-plane": "", TOPOLOGY_OWNED_LABEL: ""}});
        machine_health_check(ctx, &control_plane, selector, &check)
    });
    objects.push(control_plane);
    objects.extend(cp_mhc);
    for w in workers {
        objects.push(w.bootstrap);
        objects.push(w.infrastructure);
        let mhc = (w.kind == WorkerKind::Deployment)
            .then(|| {
                let topo = cluster.pointer(&format!("/spec/topology/workers/machineDeployments/{}", w.index));
                let key = if v1beta2 { "healthCheck" } else { "machineHealthCheck" };
                let by_remediation =
                    !v1beta2 && topo.and_then(|t| t.pointer("/strategy/remediation/maxInFlight")).is_some();
                health_check_class(
                    topo.and_then(|t| t.get(key)),
                    w.class_health_check.as_ref(),
                    v1beta2,
                    by_remediation,
                )
            })
            .flatten()
            .map(|check| {
                let selector =
                    json!({"matchLabels": {MACHINE_DEPLOYMENT_NAME_LABEL: w.topology_name, TOPOLOGY_OWNED_LABEL: ""}});
                machine_health_check(ctx, &w.object, selector, &check)
            });
        objects.push(w.object);
        objects.extend(mhc);
    }
    objects
}

#[allow(clippy::too_many_arguments)]
fn compute_worker(
    ctx: &Ctx,
    kind: WorkerKind,
    topo_key: &str,
    class_key: &str,
    index: usize,
    topo: &Value,
    topology_version: &str,
    current: &Current,
) -> Result<Worker, TopologyError> {
    let field = format!("spec.topology.workers.{topo_key}[{index}]");
    let topology_name = s(topo, "/name").unwrap_or("").to_string();
    let class_name = s(topo, "/class").unwrap_or("").to_string();
    if topology_name.is_empty() || class_name.is_empty() {
        return Err(ctx.cluster_err(&field, "Required value: name and class must be set".into()));
    }
    let classes =
        ctx.class.pointer(&format!("/spec/workers/{class_key}")).and_then(Value::as_array).cloned().unwrap_or_default();
    let Some(ci) = classes.iter().position(|c| s(c, "/class") == Some(class_name.as_str())) else {
        return Err(ctx.cluster_err(
            &format!("{field}.class"),
            format!(
                "Invalid value: {class_name:?}: no {class_key} class of that name in ClusterClass {}",
                ctx.class_label
            ),
        ));
    };
    let class_def = &classes[ci];
    let base = format!("/spec/workers/{class_key}/{ci}");
    // v1beta2: bootstrap/infrastructure directly on the class; v1beta1: under template:.
    let (boot_base, infra_base, meta_ptr) = if class_def.get("template").is_some() {
        (format!("{base}/template/bootstrap"), format!("{base}/template/infrastructure"), "/template/metadata")
    } else {
        (format!("{base}/bootstrap"), format!("{base}/infrastructure"), "/metadata")
    };
    let bootstrap_template = ctx.template(&ctx.required_ref(&boot_base)?)?;
    let infrastructure_template = ctx.template(&ctx.required_ref(&infra_base)?)?;
    let (key, label, role) = match kind {
        WorkerKind::Pool => ("machinePool", MACHINE_POOL_NAME_LABEL, "machine-pool"),
        WorkerKind::Deployment => ("machineDeployment", MACHINE_DEPLOYMENT_NAME_LABEL, "machine-deployment"),
    };
    let current_worker = match kind {
        WorkerKind::Pool => current.machine_pools.get(&topology_name),
        WorkerKind::Deployment => current.machine_deployments.get(&topology_name),
    };
    let prefix = format!("{}-{topology_name}-", ctx.cluster_name);
    let mut topo_label = Map::new();
    topo_label.insert(label.into(), json!(topology_name));
    let bootstrap_name = current_worker
        .and_then(|c| c.bootstrap.clone())
        .unwrap_or_else(|| ctx.prefixed_name(&prefix, &format!("{role}/{topology_name}/bootstrap")));
    let infra_name = current_worker
        .and_then(|c| c.infrastructure.clone())
        .unwrap_or_else(|| ctx.prefixed_name(&prefix, &format!("{role}/{topology_name}/infrastructure")));
    let (bootstrap, infrastructure) = match kind {
        WorkerKind::Pool => (
            template_to_object(ctx, &bootstrap_template, bootstrap_name, &topo_label, &Map::new()),
            template_to_object(ctx, &infrastructure_template, infra_name, &topo_label, &Map::new()),
        ),
        WorkerKind::Deployment => (
            template_to_template(ctx, &bootstrap_template, bootstrap_name, &topo_label),
            template_to_template(ctx, &infrastructure_template, infra_name, &topo_label),
        ),
    };
    let name_template = s(class_def, "/naming/template")
        .or_else(|| s(class_def, "/namingStrategy/template"))
        .map(str::to_string)
        .unwrap_or_else(|| format!("{{{{ .cluster.name }}}}-{{{{ .{key}.topologyName }}}}-{{{{ .random }}}}"));
    let name = match current_worker.and_then(|c| c.name.clone()) {
        Some(n) => n,
        None => {
            ctx.name_from_template(&name_template, &format!("{role}/{topology_name}"), Some((key, &topology_name)))?
        }
    };
    let class_meta = class_def.pointer(meta_ptr);
    let topo_meta = topo.get("metadata");
    let mut annotations = merge_first_wins(
        &labels_of(topo_meta.and_then(|m| m.get("annotations"))),
        &labels_of(class_meta.and_then(|m| m.get("annotations"))),
    );
    annotations.remove("topology.cluster.x-k8s.io/hold-upgrade-sequence");
    annotations.remove("topology.cluster.x-k8s.io/defer-upgrade");
    let mut labels = merge_first_wins(
        &labels_of(topo_meta.and_then(|m| m.get("labels"))),
        &labels_of(class_meta.and_then(|m| m.get("labels"))),
    );
    labels.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
    labels.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
    labels.insert(label.into(), json!(topology_name));
    let labels = sorted(labels);

    let mut template_spec = Map::new();
    template_spec.insert("clusterName".into(), json!(ctx.cluster_name));
    template_spec.insert("version".into(), json!(topology_version));
    template_spec.insert("bootstrap".into(), json!({"configRef": ctx.reference(&bootstrap)}));
    template_spec.insert("infrastructureRef".into(), ctx.reference(&infrastructure));
    // Values the topology overrides over the class.
    let pick = |ptr: &str| topo.pointer(ptr).or_else(|| class_def.pointer(ptr)).cloned();
    if ctx.v1beta2 {
        let mut deletion = Map::new();
        for f in ["nodeDrainTimeoutSeconds", "nodeVolumeDetachTimeoutSeconds", "nodeDeletionTimeoutSeconds"] {
            if let Some(v) = pick(&format!("/deletion/{f}")) {
                deletion.insert(f.into(), v);
            }
        }
        if !deletion.is_empty() {
            template_spec.insert("deletion".into(), Value::Object(deletion));
        }
        if let Some(v) = pick("/minReadySeconds") {
            template_spec.insert("minReadySeconds".into(), v);
        }
        if kind == WorkerKind::Deployment {
            for field in ["failureDomain", "taints"] {
                if let Some(v) = pick(&format!("/{field}")) {
                    template_spec.insert(field.into(), v);
                }
            }
        }
    } else {
        for f in ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"] {
            if let Some(mut v) = pick(&format!("/{f}")) {
                webhooks::canonical_duration(&mut v);
                template_spec.insert(f.into(), v);
            }
        }
        if kind == WorkerKind::Deployment
            && let Some(v) = pick("/failureDomain")
        {
            template_spec.insert("failureDomain".into(), v);
        }
    }
    if let Some(v) = pick("/readinessGates") {
        template_spec.insert("readinessGates".into(), v);
    }
    let mut template_meta = Map::new();
    template_meta.insert("labels".into(), Value::Object(labels.clone()));
    if !annotations.is_empty() {
        template_meta.insert("annotations".into(), Value::Object(annotations.clone()));
    }
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ctx.namespace));
    meta.insert("labels".into(), Value::Object(labels.clone()));
    if !annotations.is_empty() {
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    let mut spec = Map::new();
    spec.insert("clusterName".into(), json!(ctx.cluster_name));
    if let Some(r) = topo.get("replicas") {
        spec.insert("replicas".into(), r.clone());
    }
    if kind == WorkerKind::Deployment {
        let mut selector = Map::new();
        selector.insert(CLUSTER_NAME_LABEL.into(), json!(ctx.cluster_name));
        selector.insert(TOPOLOGY_OWNED_LABEL.into(), json!(""));
        selector.insert(label.into(), json!(topology_name));
        spec.insert("selector".into(), json!({"matchLabels": selector}));
    }
    if let Some(v) = pick("/failureDomains") {
        spec.insert("failureDomains".into(), v);
    }
    if !ctx.v1beta2
        && let Some(v) = pick("/minReadySeconds")
    {
        spec.insert("minReadySeconds".into(), v);
    }
    if kind == WorkerKind::Deployment && !ctx.v1beta2 {
        if let Some(v) = pick("/strategy") {
            spec.insert("strategy".into(), v);
        }
    } else if kind == WorkerKind::Deployment {
        // v1beta2: the topology's rollout (with `after`) replaces the class's strategy.
        let rollout = match topo.get("rollout").filter(|r| r.as_object().is_some_and(|m| !m.is_empty())) {
            Some(r) => Some(r.clone()),
            None => class_def.pointer("/rollout/strategy").map(|st| json!({"strategy": st})),
        };
        if let Some(r) = rollout {
            spec.insert("rollout".into(), r);
        }
        if let Some(order) = pick("/deletion/order") {
            spec.insert("deletion".into(), json!({"order": order}));
        }
        if let Some(max) = pick("/healthCheck/remediation/maxInFlight") {
            spec.insert("remediation".into(), json!({"maxInFlight": max}));
        }
    }
    spec.insert("template".into(), json!({"metadata": template_meta, "spec": template_spec}));
    let capi_api_version = ctx.cluster.get("apiVersion").cloned().unwrap_or(json!("cluster.x-k8s.io/v1beta1"));
    let object = json!({
        "apiVersion": capi_api_version,
        "kind": if kind == WorkerKind::Pool { "MachinePool" } else { "MachineDeployment" },
        "metadata": meta,
        "spec": spec,
    });
    Ok(Worker {
        kind,
        topology_name,
        class: class_name,
        index,
        bootstrap,
        infrastructure,
        object,
        bootstrap_template,
        infrastructure_template,
        class_health_check: class_def.get(if ctx.v1beta2 { "healthCheck" } else { "machineHealthCheck" }).cloned(),
    })
}

/// The label selector of the objects the topology controller created for a Cluster.
pub fn owned_selector(cluster_name: &str) -> String {
    format!("{CLUSTER_NAME_LABEL}={cluster_name},{TOPOLOGY_OWNED_LABEL}")
}

/// The names the controller already gave a live topology Cluster's objects: its refs, the control
/// plane's machine template, and the MachinePools / MachineDeployments (with their bootstrap and
/// infrastructure refs) labelled with the Cluster's name and their topology name. Planning with
/// these reuses the names, so planned and live objects line up one to one.
pub fn current_from_live(live_cluster: &Value, live_objects: &[Value]) -> Current {
    let cluster_name = s(live_cluster, "/metadata/name").unwrap_or("");
    let mut current = Current {
        infrastructure_cluster: s(live_cluster, "/spec/infrastructureRef/name").map(str::to_string),
        control_plane: s(live_cluster, "/spec/controlPlaneRef/name").map(str::to_string),
        ..Current::default()
    };
    let labelled = |o: &&Value, label: &str| {
        s(o, &format!("/metadata/labels/{}", CLUSTER_NAME_LABEL.replace('/', "~1"))) == Some(cluster_name)
            && o.pointer(&format!("/metadata/labels/{}", label.replace('/', "~1"))).is_some()
    };
    if let Some(cp_name) = &current.control_plane {
        let cp_kind = s(live_cluster, "/spec/controlPlaneRef/kind");
        if let Some(cp) =
            live_objects.iter().find(|o| s(o, "/metadata/name") == Some(cp_name) && s(o, "/kind") == cp_kind)
        {
            current.control_plane_machine_infrastructure = s(cp, "/spec/machineTemplate/infrastructureRef/name")
                .or_else(|| s(cp, "/spec/machineTemplate/spec/infrastructureRef/name"))
                .map(str::to_string);
        }
    }
    for (kind, label) in
        [("MachinePool", MACHINE_POOL_NAME_LABEL), ("MachineDeployment", MACHINE_DEPLOYMENT_NAME_LABEL)]
    {
        for object in live_objects.iter().filter(|o| s(o, "/kind") == Some(kind) && labelled(o, label)) {
            let Some(topology_name) = s(object, &format!("/metadata/labels/{}", label.replace('/', "~1"))) else {
                continue;
            };
            let worker = CurrentWorker {
                name: s(object, "/metadata/name").map(str::to_string),
                bootstrap: s(object, "/spec/template/spec/bootstrap/configRef/name").map(str::to_string),
                infrastructure: s(object, "/spec/template/spec/infrastructureRef/name").map(str::to_string),
            };
            let map = if kind == "MachinePool" { &mut current.machine_pools } else { &mut current.machine_deployments };
            map.insert(topology_name.to_string(), worker);
        }
    }
    current
}

/// The first `n` bytes of `s` as CAPI's Go slices a name (`name[:n]`): a cut multi-byte character becomes U+FFFD per
/// byte, as Go's JSON prints it (such a name is then refused as not DNS-1123 anyway).
fn go_prefix(s: &str, n: usize) -> String {
    gotemplate::go_lossy(&s.as_bytes()[..n.min(s.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;

    const CLASS: &str = include_str!("../../tests/fixtures/topology/custom/class.yaml");
    const CLUSTER: &str = include_str!("../../tests/fixtures/topology/custom/cluster.yaml");

    fn docs() -> Vec<Document> {
        let mut docs = parse_documents(CLASS, "class.yaml").unwrap();
        docs.extend(parse_documents(CLUSTER, "cluster.yaml").unwrap());
        docs
    }

    #[test]
    fn long_names_are_cut_at_byte_58_as_go_slices_them() {
        let ascii = "a".repeat(70);
        assert_eq!(go_prefix(&ascii, 58), "a".repeat(58));
        // 57 ASCII bytes then a three-byte character: byte 58 is inside it; Go keeps one byte of it (U+FFFD).
        let cut = format!("{}€tail", "a".repeat(57));
        assert_eq!(go_prefix(&cut, 58), format!("{}\u{fffd}", "a".repeat(57)));
        let two_cut = format!("{}€tail", "a".repeat(56));
        assert_eq!(go_prefix(&two_cut, 58), format!("{}\u{fffd}\u{fffd}", "a".repeat(56)));
        assert_eq!(go_prefix("short", 58), "short");
    }

    #[test]
    fn live_names_are_reused() {
        let docs = docs();
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap();
        let first = plan(cluster, &docs, &Current::default()).unwrap();
        // Pretend the controller created the objects with other names; plan again against them.
        let mut live: Vec<Value> = first.objects.clone();
        for object in &mut live {
            let kind = object["kind"].as_str().unwrap().to_string();
            let renamed = format!("{}-live", object["metadata"]["name"].as_str().unwrap());
            if kind != "Cluster" {
                object["metadata"]["name"] = json!(renamed);
            }
        }
        let mut live_cluster = live[0].clone();
        live_cluster["spec"]["infrastructureRef"]["name"] = live[1]["metadata"]["name"].clone();
        live_cluster["spec"]["controlPlaneRef"]["name"] = live[2]["metadata"]["name"].clone();
        for mp in live.iter_mut().filter(|o| o["kind"] == "MachinePool") {
            let boot = mp["spec"]["template"]["spec"]["bootstrap"]["configRef"]["name"].as_str().unwrap().to_string();
            let infra = mp["spec"]["template"]["spec"]["infrastructureRef"]["name"].as_str().unwrap().to_string();
            mp["spec"]["template"]["spec"]["bootstrap"]["configRef"]["name"] = json!(format!("{boot}-live"));
            mp["spec"]["template"]["spec"]["infrastructureRef"]["name"] = json!(format!("{infra}-live"));
        }
        let current = current_from_live(&live_cluster, &live);
        assert_eq!(current.machine_pools.len(), 2);
        let second = plan(cluster, &docs, &current).unwrap();
        let names = |objects: &[Value]| -> Vec<String> {
            objects
                .iter()
                .map(|o| format!("{}/{}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap()))
                .collect()
        };
        assert_eq!(names(&second.objects), names(&live));
        // Same content apart from the names.
        assert_eq!(second.objects[2]["spec"], first.objects[2]["spec"]);
        assert_eq!(owned_selector("team-a"), "cluster.x-k8s.io/cluster-name=team-a,topology.cluster.x-k8s.io/owned");
    }

    #[test]
    fn v1beta2_health_checks_are_planned_in_the_v1beta2_shape() {
        const V1BETA2_CLASS: &str = include_str!("../../tests/fixtures/topology/v1beta2/class.yaml");
        const V1BETA2_CLUSTER: &str = include_str!("../../tests/fixtures/topology/v1beta2/cluster.yaml");
        let mut docs = parse_documents(V1BETA2_CLASS, "class.yaml").unwrap();
        docs.extend(parse_documents(V1BETA2_CLUSTER, "cluster.yaml").unwrap());
        let class = docs.iter_mut().find(|d| d.kind() == "ClusterClass").unwrap();
        class.value["spec"]["controlPlane"]["healthCheck"] = json!({
            "checks": {"unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]},
            "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}
        });
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap().clone();
        let planned = plan(&cluster, &docs, &Current::default()).unwrap();
        let mhc = planned.objects.iter().find(|o| o["kind"] == "MachineHealthCheck").expect("a MachineHealthCheck");
        let cp = planned.objects.iter().find(|o| o["kind"] == "KubeadmControlPlane").unwrap();
        assert_eq!(mhc["apiVersion"], "cluster.x-k8s.io/v1beta2");
        assert_eq!(mhc["metadata"]["name"], cp["metadata"]["name"]);
        assert_eq!(mhc["spec"]["checks"]["nodeStartupTimeoutSeconds"], 600);
        assert_eq!(mhc["spec"]["checks"]["unhealthyNodeConditions"][0]["timeoutSeconds"], 300);
        assert_eq!(mhc["spec"]["remediation"], json!({"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}));
        assert_eq!(
            mhc["spec"]["selector"],
            json!({"matchLabels": {"cluster.x-k8s.io/control-plane": "", "topology.cluster.x-k8s.io/owned": ""}})
        );
        // The topology switches it off.
        let mut off = cluster.clone();
        off.value["spec"]["topology"]["controlPlane"]["healthCheck"] = json!({"enabled": false});
        let planned = plan(&off, &docs, &Current::default()).unwrap();
        assert!(planned.objects.iter().all(|o| o["kind"] != "MachineHealthCheck"));
    }

    #[test]
    fn random_suffix_is_stable_and_uses_the_kubernetes_alphabet() {
        let docs = docs();
        let cluster = docs.iter().find(|d| is_topology_cluster(d)).unwrap();
        let a = plan(cluster, &docs, &Current::default()).unwrap();
        let b = plan(cluster, &docs, &Current::default()).unwrap();
        assert_eq!(a.objects, b.objects);
        let cp_name = a.objects[2]["metadata"]["name"].as_str().unwrap();
        let suffix = cp_name.strip_prefix("team-a-").unwrap();
        assert_eq!(suffix.len(), 5);
        assert!(suffix.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{suffix}");
    }
}
