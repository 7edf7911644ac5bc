//! Cluster API v1.14's update rules for Cluster, ClusterClass and MachinePool: what `ValidateUpdate` of
//! core/webhooks/admission (cluster.go, clusterclass.go, machinepool.go) and `check.ClusterClassesAreCompatible`
//! (internal/topology/check/compatibility.go) refuse beyond the create rules, read from v1beta1 or v1beta2 objects
//! the way CAPI reads them after its conversion to v1beta2 (field paths as CAPI spells them, in v1beta2).
//!
//! What the repository cannot know is taken as a stable management cluster: the control plane, MachineDeployments
//! and MachinePools of a topology Cluster are at the stored version and not upgrading, no `AfterClusterUpgrade`
//! hook is pending. A ClusterClass the bundles do not hold is not judged (CAPI refuses the update when it is not
//! stored either; offline we cannot tell). The Clusters a ClusterClass update is checked against are the stored
//! bundle's.

use std::cmp::Ordering;

use serde_json::Value;

use super::UpdateIssue;
use crate::json_pointer::{At, Fields};
use crate::manifest::{Document, split_api_version};

pub(crate) const CAPI_GROUP: &str = "cluster.x-k8s.io";
const UNSAFE_CLASS_NAME: &str = "unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check";
const UNSAFE_VERSION: &str = "unsafe.topology.cluster.x-k8s.io/disable-update-version-check";

/// Whether CAPI's webhooks have update rules for this kind (the kinds [`issues`] judges).
pub(crate) fn has_update_rules(group: &str, kind: &str) -> bool {
    group == CAPI_GROUP && matches!(kind, "Cluster" | "ClusterClass" | "MachinePool")
}

/// The two bundles, with the stored (`old`) and applied (`new`) object of one identity.
pub(crate) struct Change<'a> {
    pub(crate) old_bundle: &'a [Document],
    pub(crate) new_bundle: &'a [Document],
    pub(crate) old: &'a Document,
    pub(crate) new: &'a Document,
}

/// CAPI's update rejections of `change`, in CAPI's order.
pub(crate) fn issues(change: &Change<'_>) -> Vec<UpdateIssue> {
    let mut out = Vec::new();
    if change.old.kind() != change.new.kind() {
        return out;
    }
    match change.new.kind() {
        "Cluster" => cluster(change, &mut out),
        "ClusterClass" => cluster_class(change, &mut out),
        "MachinePool" => machine_pool(change.old, change.new, &mut out),
        _ => {}
    }
    out
}

fn push(out: &mut Vec<UpdateIssue>, rule: &'static str, field: &str, pointer: String, message: impl Into<String>) {
    out.push(UpdateIssue { rule, field: field.to_string(), pointer, message: message.into() });
}

fn is_v1beta2(doc: &Document) -> bool {
    doc.value.str_at("/apiVersion").is_some_and(|api| split_api_version(api).1 == "v1beta2")
}

fn non_empty(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn annotation<'v>(doc: &'v Document, key: &str) -> Option<&'v Value> {
    doc.value.at("/metadata/annotations").and_then(|a| a.field(key))
}

// --- Cluster ------------------------------------------------------------------------------------------------

/// A Cluster as CAPI's v1beta2 type reads it.
struct ClusterView<'a> {
    doc: &'a Document,
    v1beta2: bool,
}

impl<'a> ClusterView<'a> {
    fn new(doc: &'a Document) -> Self {
        ClusterView { doc, v1beta2: is_v1beta2(doc) }
    }

    fn topology(&self) -> Option<&'a Value> {
        self.doc.value.at("/spec/topology")
    }

    /// `Topology.IsDefined()`: any field of the (converted) topology set.
    fn has_topology(&self) -> bool {
        self.topology().and_then(Value::as_object).is_some_and(|t| t.values().any(|v| !is_zero(v)))
    }

    /// `ContractVersionedObjectReference.IsDefined()` of `spec.<key>` (kind, name or group set).
    fn has_ref(&self, key: &str) -> bool {
        let Some(reference) = self.doc.value.at("/spec").and_then(|s| s.field(key)) else { return false };
        ["kind", "name", "apiGroup", "apiVersion"].iter().any(|k| non_empty(reference.field(k)).is_some())
    }

    /// `GetClassKey()`: (namespace, name) of the ClusterClass; None without a topology.
    fn class_key(&self) -> Option<(String, String)> {
        if !self.has_topology() {
            return None;
        }
        let topology = self.topology()?;
        let (name, namespace) = if self.v1beta2 {
            (topology.str_at("/classRef/name"), topology.str_at("/classRef/namespace"))
        } else {
            (topology.str_at("/class"), topology.str_at("/classNamespace"))
        };
        let namespace =
            namespace.filter(|n| !n.is_empty()).unwrap_or_else(|| self.doc.namespace().unwrap_or("default"));
        Some((namespace.to_string(), name.unwrap_or("").to_string()))
    }

    fn version(&self) -> &'a str {
        self.topology().and_then(|t| t.field("version")).and_then(Value::as_str).unwrap_or("")
    }

    /// Where the class is named in this Cluster.
    fn class_pointer(&self) -> String {
        if self.v1beta2 { "/spec/topology/classRef/name".into() } else { "/spec/topology/class".into() }
    }
}

/// Whether a JSON value decodes to Go's zero value (absent, null, "", false, 0, empty list or map).
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_zero),
    }
}

/// `validate(old, new)` of core/webhooks/admission/cluster.go: what only an update checks.
fn cluster(change: &Change<'_>, out: &mut Vec<UpdateIssue>) {
    let (old, new) = (ClusterView::new(change.old), ClusterView::new(change.new));
    for key in ["infrastructureRef", "controlPlaneRef"] {
        if !new.has_ref(key) && old.has_ref(key) {
            push(out, super::CAPI_REF_REMOVED, &format!("spec.{key}"), "/spec".into(), "Forbidden: cannot be removed");
        }
    }
    if new.has_topology() {
        topology(change, &old, &new, out);
    }
    if old.has_topology() && !new.has_topology() {
        push(
            out,
            super::CAPI_TOPOLOGY_REMOVED,
            "spec.topology",
            "/spec".into(),
            "Forbidden: cannot be removed from an existing Cluster",
        );
    }
}

/// The update part of `validateTopology`.
fn topology(change: &Change<'_>, old: &ClusterView<'_>, new: &ClusterView<'_>, out: &mut Vec<UpdateIssue>) {
    let Some(new_key) = new.class_key().filter(|(_, name)| !name.is_empty()) else { return };
    // The ClusterClass as the management cluster holds it when the Cluster is applied: the new bundle's, else the
    // stored one's. Without it CAPI refuses the update (not found), which offline we cannot tell from "not in Git".
    let Some(class) = find_class(change.new_bundle, &new_key).or_else(|| find_class(change.old_bundle, &new_key))
    else {
        return;
    };
    let old_key = old.class_key().filter(|(_, name)| !name.is_empty());
    let Some(old_key) = old_key else {
        if annotation(change.new, UNSAFE_CLASS_NAME).is_none() {
            push(
                out,
                super::CAPI_TOPOLOGY_CLASS_SET,
                "spec.topology.class",
                new.class_pointer(),
                "Forbidden: classRef cannot be set on an existing Cluster",
            );
        }
        return;
    };
    if annotation(change.new, UNSAFE_VERSION).is_none() {
        version_update(old.version(), new.version(), &class.value, out);
    }
    if old_key != new_key {
        let Some(old_class) =
            find_class(change.old_bundle, &old_key).or_else(|| find_class(change.new_bundle, &old_key))
        else {
            return;
        };
        for (field, detail) in classes_compatibility(&old_class.value, &class.value) {
            push(
                out,
                super::CAPI_TOPOLOGY_CLASS_CHANGE,
                &field,
                new.class_pointer(),
                format!("Forbidden: {detail} (ClusterClass {} to {})", old_key.1, new_key.1),
            );
        }
    }
}

fn find_class<'b>(bundle: &'b [Document], (namespace, name): &(String, String)) -> Option<&'b Document> {
    bundle.iter().find(|doc| {
        doc.group() == CAPI_GROUP
            && doc.kind() == "ClusterClass"
            && doc.name() == name
            && doc.namespace().unwrap_or("default") == namespace
    })
}

/// A version as `semver.ParseTolerant` reads it, with what `version.WithoutPreReleases` compares (build metadata
/// never counts): major, minor, patch.
fn parse_tolerant(version: &str) -> Option<(u64, u64, u64)> {
    let v = version.trim();
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let mut number = |required: bool| -> Option<u64> {
        match parts.next() {
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                // ParseTolerant strips leading zeros; Parse refuses a number larger than u64.
                p.parse().ok()
            }
            Some(_) => None,
            None if required => None,
            None => Some(0),
        }
    };
    let triple = (number(true)?, number(false)?, number(false)?);
    parts.next().is_none().then_some(triple)
}

/// `validateTopologyVersionUpdate` under the stable state this module assumes (control plane, pools and hooks).
fn version_update(old: &str, new: &str, class: &Value, out: &mut Vec<UpdateIssue>) {
    let (Some(new_v), Some(old_v)) = (parse_tolerant(new), parse_tolerant(old)) else { return };
    // CAPI compares String() first: a changed prerelease or build of the same version is not "unchanged", but the
    // comparisons below ignore both.
    let shown = |v: &str| {
        let v = v.trim();
        v.strip_prefix('v').unwrap_or(v).to_string()
    };
    if shown(new) == shown(old) {
        return;
    }
    let zero = (0, 0, 0);
    if new_v != zero && old_v != zero && new_v.cmp(&old_v) == Ordering::Less {
        push(
            out,
            super::CAPI_VERSION_DOWNGRADE,
            "spec.topology.version",
            "/spec/topology/version".into(),
            format!("Invalid value: {new:?}: version cannot be decreased from {:?} to {:?}", shown(old), shown(new)),
        );
        return;
    }
    let listed = class.array_at("/spec/kubernetesVersions").is_some_and(|v| !v.is_empty());
    let plan_extension = non_empty(class.at("/spec/upgrade/external/generateUpgradePlanExtension")).is_some();
    if !listed && !plan_extension && new_v >= (old_v.0, old_v.1 + 2, 0) {
        push(
            out,
            super::CAPI_VERSION_SKIP,
            "spec.topology.version",
            "/spec/topology/version".into(),
            format!(
                "Invalid value: {new:?}: version cannot be increased from {:?} to {:?} (more than one minor at a time; a \
                 ClusterClass listing spec.kubernetesVersions allows chained upgrades)",
                shown(old),
                shown(new)
            ),
        );
    }
}

// --- ClusterClass -----------------------------------------------------------------------------------------------

/// The group and kind of a template reference (`ClusterClassTemplateReference.GroupVersionKind()`); empty when
/// absent.
fn template_gk(reference: Option<&Value>) -> (String, String) {
    let api = reference.and_then(|r| r.field("apiVersion")).and_then(Value::as_str).unwrap_or("");
    let kind = reference.and_then(|r| r.field("kind")).and_then(Value::as_str).unwrap_or("");
    let group = if api.matches('/').count() == 1 { split_api_version(api).0 } else { "" };
    (group.to_string(), kind.to_string())
}

/// Where a ClusterClass keeps the template reference of `part` (`templateRef` in v1beta2, `ref` in v1beta1).
fn template_ref<'v>(class: &'v Value, part: &str) -> Option<&'v Value> {
    let v1beta2 = class.str_at("/apiVersion").is_some_and(|api| split_api_version(api).1 == "v1beta2");
    class.at(part)?.field(if v1beta2 { "templateRef" } else { "ref" })
}

fn worker_classes<'v>(class: &'v Value, kind: &str) -> &'v [Value] {
    class.at("/spec/workers").and_then(|w| w.field(kind)).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn class_name(worker: &Value) -> &str {
    worker.field("class").and_then(Value::as_str).unwrap_or("")
}

/// `check.ClusterClassesAreCompatible(current, desired)`: CAPI's field path and detail of each incompatibility.
pub(crate) fn classes_compatibility(current: &Value, desired: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut compare = |current: Option<&Value>, desired: Option<&Value>, prefix: &str| {
        let (cg, ck) = template_gk(current);
        let (dg, dk) = template_gk(desired);
        if cg != dg {
            out.push((
                format!("{prefix}.apiVersion"),
                format!(
                    "group of apiVersion cannot be changed from {cg:?} to {dg:?} to prevent incompatible changes in the \
                     Clusters"
                ),
            ));
        }
        if ck != dk {
            out.push((
                format!("{prefix}.kind"),
                format!("kind cannot be changed from {ck:?} to {dk:?} to prevent incompatible changes in the Clusters"),
            ));
        }
    };
    compare(
        template_ref(current, "/spec/infrastructure"),
        template_ref(desired, "/spec/infrastructure"),
        "spec.infrastructure.templateRef",
    );
    compare(
        template_ref(current, "/spec/controlPlane"),
        template_ref(desired, "/spec/controlPlane"),
        "spec.controlPlane.templateRef",
    );
    fn machine(class: &Value) -> Option<&Value> {
        template_ref(class, "/spec/controlPlane/machineInfrastructure")
            .filter(|r| ["kind", "name", "apiVersion"].iter().any(|k| non_empty(r.field(k)).is_some()))
    }
    if machine(current).is_some() || machine(desired).is_some() {
        compare(machine(current), machine(desired), "spec.controlPlane.machineInfrastructure.templateRef");
    }
    for kind in ["machineDeployments", "machinePools"] {
        for (i, class) in worker_classes(desired, kind).iter().enumerate() {
            for old_class in worker_classes(current, kind) {
                if class_name(class) == class_name(old_class) {
                    fn infra<'c>(c: &'c Value, whole: &Value) -> Option<&'c Value> {
                        let v1beta2 = whole.str_at("/apiVersion").is_some_and(|a| split_api_version(a).1 == "v1beta2");
                        if v1beta2 { c.at("/infrastructure/templateRef") } else { c.at("/template/infrastructure/ref") }
                    }
                    compare(
                        infra(old_class, current),
                        infra(class, desired),
                        &format!("spec.workers.{kind}[{i}].infrastructure.templateRef"),
                    );
                }
            }
        }
    }
    out
}

/// The JSON pointer, in a ClusterClass document, of CAPI's compatibility field path.
fn class_pointer(class: &Document, field: &str) -> String {
    let v1beta2 = is_v1beta2(class);
    let leaf = field.rsplit('.').next().unwrap_or("");
    let reference = if v1beta2 { "templateRef" } else { "ref" };
    if let Some(rest) = field.strip_prefix("spec.workers.") {
        // machinePools[3].infrastructure.templateRef.kind
        let (kind, rest) = rest.split_once('[').unwrap_or((rest, ""));
        let index = rest.split(']').next().unwrap_or("0");
        let path = if v1beta2 { "infrastructure/templateRef" } else { "template/infrastructure/ref" };
        return format!("/spec/workers/{kind}/{index}/{path}/{leaf}");
    }
    let part = field.strip_prefix("spec.").and_then(|f| f.split(".templateRef").next()).unwrap_or("");
    format!("/spec/{}/{reference}/{leaf}", part.replace('.', "/"))
}

/// The stored topology Clusters using `class` (CAPI lists them by its ClusterClass index).
fn clusters_using<'b>(bundle: &'b [Document], class: &Document) -> Vec<ClusterView<'b>> {
    let key = (class.namespace().unwrap_or("default").to_string(), class.name().to_string());
    bundle
        .iter()
        .filter(|doc| doc.group() == CAPI_GROUP && doc.kind() == "Cluster")
        .map(ClusterView::new)
        .filter(|cluster| cluster.class_key().as_ref() == Some(&key))
        .collect()
}

/// `HealthCheck.IsDefined()`: checks or remediation set (v1beta1: any MachineHealthCheck field).
fn health_check_defined(holder: &Value, v1beta2: bool) -> bool {
    if v1beta2 {
        let h = holder.field("healthCheck");
        ["checks", "remediation"].iter().any(|k| h.and_then(|h| h.field(k)).is_some_and(|v| !is_zero(v)))
    } else {
        holder
            .field("machineHealthCheck")
            .and_then(Value::as_object)
            .is_some_and(|m| m.iter().any(|(k, v)| k != "enable" && !is_zero(v)))
    }
}

/// `healthCheck.enabled` of a topology (v1beta1: `machineHealthCheck.enable`).
fn health_check_enabled(holder: &Value, v1beta2: bool) -> bool {
    let (key, flag) = if v1beta2 { ("healthCheck", "enabled") } else { ("machineHealthCheck", "enable") };
    holder.field(key).and_then(|h| h.field(flag)).and_then(Value::as_bool) == Some(true)
}

/// `ValidateUpdate` of core/webhooks/admission/clusterclass.go: what only an update checks.
fn cluster_class(change: &Change<'_>, out: &mut Vec<UpdateIssue>) {
    let (old, new) = (&change.old.value, &change.new.value);
    for (field, detail) in classes_compatibility(old, new) {
        let pointer = class_pointer(change.new, &field);
        push(out, super::CAPI_CLUSTERCLASS_INCOMPATIBLE, &field, pointer, format!("Forbidden: {detail}"));
    }
    let clusters = clusters_using(change.old_bundle, change.old);
    // validateKubernetesVersionsOfClusters: the stored versions (defaulted with a "v").
    if let Some(listed) = new.array_at("/spec/kubernetesVersions").filter(|v| !v.is_empty()) {
        for cluster in &clusters {
            let version = cluster.version();
            let version = if version.starts_with('v') { version.to_string() } else { format!("v{version}") };
            if !listed.iter().any(|v| v.as_str() == Some(version.as_str())) {
                push(
                    out,
                    super::CAPI_CLUSTERCLASS_IN_USE,
                    "spec.kubernetesVersions",
                    "/spec/kubernetesVersions".into(),
                    format!(
                        "Forbidden: Kubernetes Version {version} is used by Cluster {:?} but not set in ClusterClass",
                        cluster.doc.name()
                    ),
                );
            }
        }
    }
    // validateRemovedMachineDeploymentClassesAreNotUsed, validateRemovedMachinePoolClassesAreNotUsed.
    for (kind, what) in [("machineDeployments", "MachineDeploymentClass"), ("machinePools", "MachinePoolClass")] {
        let kept: Vec<&str> = worker_classes(new, kind).iter().map(class_name).collect();
        let removed: Vec<&str> =
            worker_classes(old, kind).iter().map(class_name).filter(|name| !kept.contains(name)).collect();
        if removed.is_empty() {
            continue;
        }
        for cluster in &clusters {
            let topologies =
                cluster.topology().and_then(|t| t.at(&format!("/workers/{kind}"))).and_then(Value::as_array);
            for topology in topologies.into_iter().flatten() {
                let used = class_name(topology);
                if removed.contains(&used) {
                    push(
                        out,
                        super::CAPI_CLUSTERCLASS_IN_USE,
                        &format!("spec.workers.{kind}"),
                        format!("/spec/workers/{kind}"),
                        format!(
                            "Forbidden: {what} {used:?} cannot be deleted because it is used by Cluster {:?}",
                            cluster.doc.name()
                        ),
                    );
                }
            }
        }
    }
    health_checks_removed(change, &clusters, out);
}

/// `validateUpdatesToMachineHealthCheckClasses`: a health check the class drops while a Cluster enables it
/// without one of its own.
fn health_checks_removed(change: &Change<'_>, clusters: &[ClusterView<'_>], out: &mut Vec<UpdateIssue>) {
    let (old, new) = (&change.old.value, &change.new.value);
    let (old_v2, new_v2) = (is_v1beta2(change.old), is_v1beta2(change.new));
    let relying = |holder: Option<&Value>, v1beta2: bool| {
        holder.is_some_and(|h| health_check_enabled(h, v1beta2) && !health_check_defined(h, v1beta2))
    };
    let dropped = |old_holder: Option<&Value>, new_holder: Option<&Value>| {
        old_holder.is_some_and(|h| health_check_defined(h, old_v2))
            && !new_holder.is_some_and(|h| health_check_defined(h, new_v2))
    };
    let mut report = |field: String, pointer: String, names: Vec<&str>| {
        if !names.is_empty() {
            push(
                out,
                super::CAPI_CLUSTERCLASS_IN_USE,
                &field,
                pointer,
                format!(
                    "Forbidden: healthCheck cannot be deleted because it is used by Cluster(s) {:?}",
                    names.join(",")
                ),
            );
        }
    };
    if dropped(old.at("/spec/controlPlane"), new.at("/spec/controlPlane")) {
        let names = clusters
            .iter()
            .filter(|c| relying(c.topology().and_then(|t| t.field("controlPlane")), c.v1beta2))
            .map(|c| c.doc.name())
            .collect();
        report("spec.controlPlane.healthCheck".into(), "/spec/controlPlane".into(), names);
    }
    for (i, class) in worker_classes(new, "machineDeployments").iter().enumerate() {
        let name = class_name(class);
        let Some(old_class) = worker_classes(old, "machineDeployments").iter().find(|c| class_name(c) == name) else {
            continue;
        };
        if !dropped(Some(old_class), Some(class)) {
            continue;
        }
        let names = clusters
            .iter()
            .filter(|c| {
                let topologies =
                    c.topology().and_then(|t| t.at("/workers/machineDeployments")).and_then(Value::as_array);
                topologies
                    .into_iter()
                    .flatten()
                    .filter(|md| class_name(md) == name)
                    .any(|md| relying(Some(md), c.v1beta2))
            })
            .map(|c| c.doc.name())
            .collect();
        report(
            format!("spec.workers.machineDeployments[{name}].healthCheck"),
            format!("/spec/workers/machineDeployments/{i}"),
            names,
        );
    }
}

// --- MachinePool ------------------------------------------------------------------------------------------------

/// `validate(old, new)` of core/webhooks/admission/machinepool.go: spec.clusterName is immutable.
fn machine_pool(old: &Document, new: &Document, out: &mut Vec<UpdateIssue>) {
    let name = |doc: &Document| doc.value.str_at("/spec/clusterName").unwrap_or("").to_string();
    if name(old) != name(new) {
        push(
            out,
            super::CAPI_IMMUTABLE_FIELD,
            "spec.clusterName",
            "/spec/clusterName".into(),
            "Forbidden: field is immutable",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_parse_tolerant_and_compare_without_prereleases() {
        assert_eq!(parse_tolerant("v1.33.2"), Some((1, 33, 2)));
        assert_eq!(parse_tolerant("1.33"), Some((1, 33, 0)));
        assert_eq!(parse_tolerant("v1.34.0-rc.1+build.2"), Some((1, 34, 0)));
        assert_eq!(parse_tolerant("v1.x.0"), None);
        assert_eq!(parse_tolerant("1.2.3.4"), None);
    }

    #[test]
    fn version_rules() {
        let class = serde_json::json!({"spec": {}});
        let rules = |old: &str, new: &str| {
            let mut out = Vec::new();
            version_update(old, new, &class, &mut out);
            out.into_iter().map(|i| i.rule).collect::<Vec<_>>()
        };
        assert_eq!(rules("v1.33.2", "v1.33.1"), [super::super::CAPI_VERSION_DOWNGRADE]);
        assert_eq!(rules("v1.33.2", "v1.35.0"), [super::super::CAPI_VERSION_SKIP]);
        assert_eq!(rules("v1.33.2", "v1.35.0-alpha.0"), [super::super::CAPI_VERSION_SKIP]);
        assert!(rules("v1.33.2", "v1.34.9").is_empty());
        assert!(rules("v1.33.2", "v1.33.2-rc.0").is_empty());
        assert!(rules("v1.33.2", "1.33.2").is_empty());
        let listed = serde_json::json!({"spec": {"kubernetesVersions": ["v1.35.0"]}});
        let mut out = Vec::new();
        version_update("v1.33.2", "v1.35.0", &listed, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn compatibility_of_template_references() {
        let class = |kind: &str, api: &str| {
            serde_json::json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "spec": {
                "infrastructure": {"templateRef": {"apiVersion": api, "kind": kind, "name": "x"}},
                "controlPlane": {"templateRef": {"apiVersion": "a.io/v1", "kind": "CPTemplate", "name": "cp"}}}})
        };
        let fields = |a: &Value, b: &Value| classes_compatibility(a, b).into_iter().map(|(f, _)| f).collect::<Vec<_>>();
        let base = class("ATemplate", "infra.io/v1");
        assert!(fields(&base, &class("ATemplate", "infra.io/v2")).is_empty());
        assert_eq!(
            fields(&base, &class("BTemplate", "other.io/v1")),
            ["spec.infrastructure.templateRef.apiVersion", "spec.infrastructure.templateRef.kind"]
        );
    }
}
