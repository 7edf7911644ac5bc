//! The live state of a migration (every object it reads, as it is now), the preconditions, and each step's
//! postcondition: done, to do, or a state the plan does not expect.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::kinds::{self, Target};
use super::names::Names;
use super::objects::{annotation, condition_true, finalizers, is_skipped};
use super::step_id::StepId;
use super::{Api, BLOCK_MOVE, LiveError, MIGRATION, RECONCILE_POLICY};
use crate::json_pointer::At;
use crate::manifest::Document;

/// Every object of the migration as it is now (`None`: absent).
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    objects: BTreeMap<String, Option<Value>>,
}

/// Where a step stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepStatus {
    Done,
    Todo,
    /// A state the plan does not expect; the message says what and what to do.
    Unexpected(String),
}

impl LiveState {
    /// Reads every object the migration works on.
    pub async fn read(api: &Api, names: &Names) -> Result<LiveState, LiveError> {
        let mut targets =
            vec![Target::namespace(&names.new_namespace), names.old(kinds::SECRET, &names.credential_secret)];
        targets.extend(names.old_capi());
        targets.extend(names.old_aso());
        targets.extend(names.new_objects());
        let mut objects = BTreeMap::new();
        for target in targets {
            let live = api.get(&target).await?;
            objects.insert(target.to_string(), live);
        }
        Ok(LiveState { objects })
    }

    /// The live object, `None` when absent (or not read).
    pub fn get(&self, target: &Target) -> Option<&Value> {
        self.objects.get(&target.to_string()).and_then(Option::as_ref)
    }

    /// The resourceVersion of every object that exists, keyed by `Kind namespace/name` (to compare runs).
    pub fn resource_versions(&self) -> BTreeMap<String, String> {
        self.objects
            .iter()
            .filter_map(|(k, v)| {
                let rv = v.as_ref()?.str_at("/metadata/resourceVersion")?;
                Some((k.clone(), rv.to_string()))
            })
            .collect()
    }

    fn all_absent_or(&self, targets: &[Target], ok: impl Fn(&Value) -> bool) -> bool {
        targets.iter().all(|t| self.get(t).is_none_or(&ok))
    }

    /// The postcondition of one step.
    pub fn status(&self, step: StepId, names: &Names) -> StepStatus {
        let done = |yes: bool| if yes { StepStatus::Done } else { StepStatus::Todo };
        match step {
            StepId::Pause => done(self.all_absent_or(&[names.old(kinds::CLUSTER, &names.cluster)], |c| {
                c.bool_at("/spec/paused") == Some(true)
            })),
            StepId::BlockMove => {
                let mut targets = vec![names.old(kinds::AZURE_MANAGED_CONTROL_PLANE, &names.control_plane)];
                targets.extend(names.pools.iter().map(|(_, p)| names.old(kinds::AZURE_MANAGED_MACHINE_POOL, p)));
                done(self.all_absent_or(&targets, |o| annotation(o, BLOCK_MOVE).is_none()))
            }
            StepId::Disarm => done(self.all_absent_or(&names.old_aso(), |o| is_skipped(o) && finalizers(o).is_empty())),
            StepId::Namespace => match self.get(&Target::namespace(&names.new_namespace)) {
                None => StepStatus::Todo,
                Some(ns) => match annotation(ns, MIGRATION) {
                    None => StepStatus::Todo,
                    Some(text) if serde_json::from_str::<Names>(text).ok().as_ref() == Some(names) => StepStatus::Done,
                    Some(_) => StepStatus::Unexpected(format!(
                        "Namespace {} records another migration in its {MIGRATION} annotation",
                        names.new_namespace
                    )),
                },
            },
            StepId::Secret => {
                let copy = self.get(&names.new_(kinds::SECRET, &names.credential_secret));
                let source = self.get(&names.old(kinds::SECRET, &names.credential_secret));
                match (copy, source) {
                    (None, _) => StepStatus::Todo,
                    (Some(copy), Some(source)) if copy.get("data") != source.get("data") => {
                        StepStatus::Unexpected(format!(
                            "Secret {}/{} exists with other data than Secret {}/{}; delete it or make it equal",
                            names.new_namespace, names.credential_secret, names.old_namespace, names.credential_secret
                        ))
                    }
                    _ => StepStatus::Done,
                }
            }
            StepId::ResourceGroup => done(
                self.get(&names.new_(kinds::RESOURCE_GROUP, &names.resource_group))
                    .is_some_and(|o| condition_true(o, "Ready")),
            ),
            StepId::ManagedCluster => done(
                self.get(&names.new_(kinds::MANAGED_CLUSTER, &names.managed_cluster))
                    .is_some_and(|o| condition_true(o, "Ready"))
                    && names.new_scaffold().iter().all(|t| self.get(t).is_some()),
            ),
            StepId::AgentPools => done(
                names.agent_pools.iter().all(|p| self.get(&names.new_(kinds::AGENT_POOL, p)).is_some())
                    && names.new_pool_scaffold().iter().all(|t| self.get(t).is_some()),
            ),
            StepId::Available => done(
                self.get(&names.new_(kinds::CLUSTER, &names.managed_cluster))
                    .is_some_and(|c| condition_true(c, "Available")),
            ),
            StepId::DeleteOld => {
                done(self.all_absent_or(&names.old_capi(), |o| o.pointer("/metadata/deletionTimestamp").is_some()))
            }
            StepId::RemoveFinalizers => done(names.old_capi().iter().all(|t| self.get(t).is_none())),
            StepId::OldAsoGone => done(names.old_aso().iter().all(|t| self.get(t).is_none())),
        }
    }

    /// A state the plan does not expect, given how far the migration got: once the new namespace records the
    /// migration, the old Cluster must stay paused and every old ASO object disarmed.
    pub fn unexpected(&self, names: &Names) -> Option<String> {
        if let StepStatus::Unexpected(message) = self.status(StepId::Namespace, names) {
            return Some(message);
        }
        if self.status(StepId::Namespace, names) != StepStatus::Done {
            return None;
        }
        let mut problems = Vec::new();
        if self.status(StepId::Pause, names) != StepStatus::Done {
            problems.push(format!("Cluster {}/{} is no longer paused", names.old_namespace, names.cluster));
        }
        for target in names.old_aso() {
            let Some(live) = self.get(&target) else { continue };
            if !is_skipped(live) {
                let policy = annotation(live, RECONCILE_POLICY).unwrap_or("<none>");
                problems.push(format!("{target} has {RECONCILE_POLICY}: {policy} (re-armed)"));
            }
            let finalizers = finalizers(live);
            if !finalizers.is_empty() {
                problems.push(format!("{target} has finalizers again: {}", finalizers.join(", ")));
            }
        }
        if problems.is_empty() {
            return None;
        }
        Some(format!(
            "the migration already created Namespace {} but {}. Deleting the old objects now could delete the Azure \
             resources; nothing was changed. Either disarm them again ({RECONCILE_POLICY}: skip, no finalizers, \
             Cluster spec.paused: true) and re-run, or roll back (docs/migrate.md)",
            names.new_namespace,
            problems.join("; ")
        ))
    }
}

/// Every CRD kind the migration needs that the server does not serve.
pub async fn missing_kinds(api: &Api) -> Result<Vec<String>, LiveError> {
    let mut missing = Vec::new();
    for kind in kinds::NAMESPACED_KINDS {
        if !api.serves(kind).await? {
            missing.push(format!("{} {}", kind.api_version, kind.kind));
        }
    }
    Ok(missing)
}

/// The preconditions of a migration that has not created anything yet, each failure as a message.
pub async fn preconditions(api: &Api, names: &Names, state: &LiveState) -> Result<Vec<String>, LiveError> {
    let mut failures = Vec::new();
    if names.new_namespace == names.old_namespace {
        failures.push(format!("--to-namespace {} is the cluster's own namespace; name a new one", names.new_namespace));
    }
    let secret = names.old(kinds::SECRET, &names.credential_secret);
    if state.get(&secret).is_none() && state.status(StepId::Secret, names) != StepStatus::Done {
        failures.push(format!("{secret} (named by the ManagedCluster's credential-from annotation) does not exist"));
    }
    for target in names.old_aso() {
        if state.get(&target).is_none() && state.status(StepId::Disarm, names) == StepStatus::Todo {
            failures.push(format!("{target} does not exist"));
        }
    }
    let mc = names.old(kinds::MANAGED_CLUSTER, &names.managed_cluster);
    if let Some(live) = state.get(&mc)
        && live.array_at("/status/agentPoolProfiles").is_none_or(Vec::is_empty)
    {
        failures.push(format!(
            "{mc} has no status.agentPoolProfiles: the adopted ManagedCluster would be sent to Azure without pools"
        ));
    }
    if names.pools.is_empty() {
        failures.push(format!(
            "Cluster {}/{} has no AzureManagedMachinePool-based MachinePool",
            names.old_namespace, names.cluster
        ));
    }
    let namespace = Target::namespace(&names.new_namespace);
    if state.get(&namespace).is_some() && state.status(StepId::Namespace, names) == StepStatus::Todo {
        // An existing namespace that does not record this migration must hold none of the kinds it writes.
        for kind in kinds::NAMESPACED_KINDS {
            for object in api.list(kind, &names.new_namespace).await? {
                let name = object.str_at("/metadata/name").unwrap_or("");
                failures.push(format!(
                    "Namespace {} is not empty: {} {}/{name} exists (name clash risk; use a new namespace)",
                    names.new_namespace, kind.kind, names.new_namespace
                ));
            }
        }
    }
    Ok(failures)
}

/// The live classic objects as documents for the offline translation (`--out-dir`): server fields dropped.
pub async fn classic_documents(api: &Api, names: &Names) -> Result<Vec<Document>, LiveError> {
    let mut targets = vec![names.old(kinds::CLUSTER, &names.cluster)];
    if let Some(infra) = &names.infra_cluster {
        targets.push(names.old(kinds::AZURE_MANAGED_CLUSTER, infra));
    }
    targets.push(names.old(kinds::AZURE_MANAGED_CONTROL_PLANE, &names.control_plane));
    for (mp, pool) in &names.pools {
        targets.push(names.old(kinds::MACHINE_POOL, mp));
        targets.push(names.old(kinds::AZURE_MANAGED_MACHINE_POOL, pool));
    }
    let source: Arc<str> = Arc::from(format!("live:{}/{}", names.old_namespace, names.cluster));
    let mut documents = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        let mut live = api
            .get(target)
            .await?
            .ok_or_else(|| LiveError::Precondition(format!("{target} is gone: --out-dir needs the classic objects")))?;
        if let Some(map) = live.as_object_mut() {
            map.remove("status");
        }
        if let Some(metadata) = live.get_mut("metadata").and_then(Value::as_object_mut) {
            for key in [
                "uid",
                "resourceVersion",
                "generation",
                "creationTimestamp",
                "managedFields",
                "ownerReferences",
                "finalizers",
            ] {
                metadata.remove(key);
            }
        }
        if let Some(spec) = live.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("paused");
        }
        documents.push(Document::from_value(live, &source, index));
    }
    Ok(documents)
}
