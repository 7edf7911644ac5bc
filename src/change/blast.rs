//! Blast radius: what a change deletes or replaces. An object removed from a unit that prunes is deleted, and with
//! a Cluster, a control plane, a pool or an ASO resource goes what it stands for in Azure — unless the ASO objects'
//! reconcile policy (`serviceoperator.azure.com/reconcile-policy: detach-on-delete` or `skip`) keeps it; a removed
//! object a unit does not prune stays on the cluster. When the change also removes the Argo CD Application that
//! applied an object, the Application's deletion decides instead: Argo CD deletes what it applied only when the
//! Application carries the `resources-finalizer.argocd.argoproj.io` finalizer (and is itself pruned by what applies
//! it); otherwise its objects stay, orphaned. Changes that roll a pool's nodes are listed, not errors.

use serde_json::Value;

use super::compare::{ChangeKind, ObjectChange, Side};
use crate::controller_fields::RECONCILE_POLICY;
use crate::report::{Finding, Severity};

/// Rule id: an object the change removes from a unit that prunes, with what its deletion takes along in Azure.
pub const DELETES_RULE: &str = "gitops-prune-deletes";
/// Rule id: the same, when the ASO objects' reconcile policy keeps the Azure resources.
pub const DETACHED_RULE: &str = "gitops-prune-detached";
/// Rule id: the same, when nothing prunes the object: it stays on the cluster.
pub const NOT_PRUNED_RULE: &str = "gitops-not-pruned";
/// Rule id: a change that replaces a pool's nodes or upgrades the control plane.
pub const ROLLING_RULE: &str = "capi-rolling-update";

const CAPI_GROUP: &str = "cluster.x-k8s.io";
const ARGO_GROUP: &str = "argoproj.io";
/// The finalizer with which deleting an Argo CD Application deletes what it applied.
const RESOURCES_FINALIZER: &str = "resources-finalizer.argocd.argoproj.io";
const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// What deleting an object of `group`/`kind` deletes in Azure, when it is a kind whose deletion reaches Azure.
fn reaches_azure(group: &str, kind: &str) -> Option<&'static str> {
    Some(match (group, kind) {
        (CAPI_GROUP, "Cluster") => {
            "the workload cluster: CAPI deletes its control plane, infrastructure and pools, and CAPZ the AKS cluster \
             in Azure"
        }
        (CAPZ_GROUP, "AzureASOManagedControlPlane" | "AzureManagedControlPlane") => "the AKS cluster in Azure",
        (CAPZ_GROUP, "AzureASOManagedCluster" | "AzureManagedCluster") => {
            "the Azure resources it holds (the resource group, the network)"
        }
        (CAPI_GROUP, "MachinePool") | (CAPZ_GROUP, "AzureASOManagedMachinePool" | "AzureManagedMachinePool") => {
            "the node pool in Azure"
        }
        (group, _) if group.ends_with(".azure.com") => "the Azure resource (ASO deletes what it created)",
        _ => return None,
    })
}

/// Whether an ASO object's reconcile policy keeps its Azure resource when the object is deleted.
fn detached(object: &Value) -> bool {
    let policy = object.pointer("/metadata/annotations").and_then(|a| a.get(RECONCILE_POLICY)).and_then(Value::as_str);
    matches!(policy, Some("detach-on-delete" | "skip"))
}

/// Whether deleting `object` leaves Azure as it is: an ASO object detached, an AzureASOManaged* object whose
/// embedded resources are all detached; `related` are the other objects the change removes (a Cluster's control
/// plane and infrastructure, a MachinePool's infrastructure).
fn kept_in_azure(object: &Value, related: &[&Value]) -> bool {
    let embedded = |o: &Value| o.pointer("/spec/resources").and_then(Value::as_array).cloned();
    let group =
        object.get("apiVersion").and_then(Value::as_str).and_then(|v| v.rsplit_once('/')).map_or("", |(g, _)| g);
    if group.ends_with(".azure.com") {
        return detached(object);
    }
    if let Some(resources) = embedded(object) {
        return !resources.is_empty() && resources.iter().all(detached);
    }
    let refs: Vec<&str> =
        ["/spec/controlPlaneRef/name", "/spec/infrastructureRef/name", "/spec/template/spec/infrastructureRef/name"]
            .iter()
            .filter_map(|pointer| object.pointer(pointer).and_then(Value::as_str))
            .collect();
    let referenced: Vec<&&Value> = related
        .iter()
        .filter(|other| other.pointer("/metadata/name").and_then(Value::as_str).is_some_and(|n| refs.contains(&n)))
        .filter(|other| embedded(other).is_some())
        .collect();
    !referenced.is_empty() && referenced.iter().all(|other| kept_in_azure(other, &[]))
}

fn finding(severity: Severity, rule: &str, side: &Side, pointer: &str, object: String, message: String) -> Finding {
    let at = side.document.origin.source.to_string();
    Finding {
        rule: rule.to_string(),
        severity,
        source: at,
        line: side.document.line_of(pointer),
        column: None,
        object,
        path: pointer.to_string(),
        message,
    }
}

/// How a removed object leaves the cluster: deleted (and by what), or kept (and why).
enum Fate {
    Deleted(String),
    Kept(String),
}

/// What happens on the cluster to an object the change removes, applied as `base` says.
fn fate(changes: &[ObjectChange], base: &Side) -> Fate {
    let removed_application = base.application.as_ref().and_then(|application| {
        changes
            .iter()
            .find(|c| {
                c.kind == ChangeKind::Removed
                    && c.key.group == ARGO_GROUP
                    && c.key.kind == "Application"
                    && c.key.name == application.name
            })
            .and_then(|c| c.base.as_ref())
            .map(|application_side| (application, application_side))
    });
    match removed_application {
        Some((application, side)) if !side.prunes => Fate::Kept(format!(
            "its Application {} is no longer in the repository either, but {} does not prune it: the Application \
             stays and keeps what it applied",
            application.name, side.unit
        )),
        Some((application, side)) if !application.cascades => Fate::Kept(format!(
            "{} deletes its Application {}, which has no {RESOURCES_FINALIZER} finalizer: Argo CD leaves what the \
             Application applied on the cluster",
            side.unit, application.name
        )),
        Some((application, side)) => Fate::Deleted(format!(
            "{} deletes its Application {}, whose {RESOURCES_FINALIZER} finalizer deletes what it applied",
            side.unit, application.name
        )),
        None if base.prunes => Fate::Deleted(format!("{} prunes it", base.unit)),
        None => Fate::Kept(format!("{} does not prune", base.unit)),
    }
}

/// The findings of one change: removals (an error when Azure loses something, a warning when a reconcile policy
/// keeps it, information when nothing prunes the object) and rolling changes (information).
pub fn blast_radius(changes: &[ObjectChange]) -> Vec<Finding> {
    let removed: Vec<&Value> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Removed)
        .filter_map(|c| c.base.as_ref().map(|side| &side.document.value))
        .collect();
    let mut out = Vec::new();
    for change in changes {
        let object = format!("{}/{}", change.key.kind, change.key.name);
        match (change.kind, &change.base, &change.head) {
            (ChangeKind::Removed, Some(base), _) => {
                let Some(loss) = reaches_azure(&change.key.group, &change.key.kind) else { continue };
                let what = change.key.display();
                let (rule, severity, message) = match fate(changes, base) {
                    Fate::Kept(why) => (
                        NOT_PRUNED_RULE,
                        Severity::Info,
                        format!("{what} is no longer in the repository, but {why}: it stays on the cluster"),
                    ),
                    Fate::Deleted(how) if kept_in_azure(&base.document.value, &removed) => (
                        DETACHED_RULE,
                        Severity::Warning,
                        format!(
                            "removing {what}: {how}, so it is deleted; {loss} is kept, as its reconcile policy says ({RECONCILE_POLICY})"
                        ),
                    ),
                    Fate::Deleted(how) => (
                        DELETES_RULE,
                        Severity::Error,
                        format!(
                            "removing {what}: {how}, so it is deleted, and with it {loss}; to keep the Azure resources, first set the annotation {RECONCILE_POLICY}: detach-on-delete on its ASO objects"
                        ),
                    ),
                };
                out.push(finding(severity, rule, base, "", object, message));
            }
            (ChangeKind::Changed, Some(base), Some(head)) => {
                for (pointer, what) in
                    rolling_fields(&change.key.group, &change.key.kind, &base.document.value, &head.document.value)
                {
                    let message = format!("{}: {what}", change.key.display());
                    out.push(finding(Severity::Info, ROLLING_RULE, head, &pointer, object.clone(), message));
                }
            }
            _ => {}
        }
    }
    out
}

/// The fields whose change replaces nodes or upgrades the control plane, with what it does, where they differ
/// between `old` and `new` (pointers into `new`).
fn rolling_fields(group: &str, kind: &str, old: &Value, new: &Value) -> Vec<(String, String)> {
    let differs = |pointer: &str| old.pointer(pointer) != new.pointer(pointer);
    let mut out = Vec::new();
    match (group, kind) {
        (CAPI_GROUP, "MachinePool") if differs("/spec/template/spec/version") => {
            out.push((
                "/spec/template/spec/version".to_string(),
                "the pool's Kubernetes version changes: its nodes are replaced, a surge at a time".to_string(),
            ));
        }
        (CAPZ_GROUP, "AzureASOManagedControlPlane" | "AzureManagedControlPlane") if differs("/spec/version") => {
            out.push((
                "/spec/version".to_string(),
                "the control plane's Kubernetes version changes: AKS upgrades the control plane".to_string(),
            ));
        }
        (CAPZ_GROUP, "AzureASOManagedMachinePool") => {
            let resources = new.pointer("/spec/resources").and_then(Value::as_array).into_iter().flatten();
            for (index, resource) in resources.enumerate() {
                if resource.get("kind").and_then(Value::as_str) != Some("ManagedClustersAgentPool") {
                    continue;
                }
                let name = resource.pointer("/metadata/name");
                let before = old
                    .pointer("/spec/resources")
                    .and_then(Value::as_array)
                    .and_then(|items| items.iter().find(|item| item.pointer("/metadata/name") == name));
                for (field, what) in [
                    ("orchestratorVersion", "the agent pool's Kubernetes version changes: its nodes are replaced"),
                    ("nodeImageVersion", "the agent pool's node image changes: its nodes are reimaged"),
                    ("osSKU", "the agent pool's OS changes: its nodes are replaced"),
                ] {
                    let pointer = format!("/spec/resources/{index}/spec/{field}");
                    if before.and_then(|b| b.pointer(&format!("/spec/{field}"))) != new.pointer(&pointer) {
                        out.push((pointer, what.to_string()));
                    }
                }
            }
        }
        _ => {}
    }
    out
}
