//! The ordered steps of a live migration (CAPZ's documented procedure, numbered as CAPZ's docs
//! number them), with the real names and objects computed from the live state.

use serde_json::{Value, json};

use super::guard::{disarm_patch, pause_patch};
use super::kinds::{self, Kind, Target};
use super::names::Names;
use super::objects::{self, finalizers};
use super::state::{LiveState, StepStatus};
use super::step_id::StepId;
use super::{BLOCK_MOVE, LiveError};

/// One request or wait of a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// JSON merge patch.
    Patch { target: Target, patch: Value },
    /// `metadata.finalizers: null`.
    RemoveFinalizers { target: Target },
    /// Create an object.
    Create { kind: Kind, object: Value },
    /// Delete without waiting.
    Delete { target: Target },
    /// Wait until the annotation is gone from every target.
    WaitAnnotationGone { targets: Vec<Target>, annotation: &'static str },
    /// Wait until the target's condition is True.
    WaitCondition { target: Target, condition: &'static str },
    /// Wait until every target exists (created by CAPZ).
    WaitExist { targets: Vec<Target> },
    /// Wait until every target is gone.
    WaitGone { targets: Vec<Target> },
}

impl Action {
    /// The object the action is about, for messages.
    pub fn describe(&self) -> String {
        let list = |targets: &[Target]| targets.iter().map(Target::to_string).collect::<Vec<_>>().join(", ");
        match self {
            Action::Patch { target, patch } => format!("patch {target} (merge): {patch}"),
            Action::RemoveFinalizers { target } => {
                format!("remove the finalizers of {target} (merge): {}", json!({"metadata": {"finalizers": null}}))
            }
            Action::Create { kind, object } => format!("create {}", Target::of(*kind, object)),
            Action::Delete { target } => format!("delete {target} (no wait)"),
            Action::WaitAnnotationGone { targets, annotation } => {
                format!("wait until {annotation} is gone from {}", list(targets))
            }
            Action::WaitCondition { target, condition } => format!("wait until {target} is {condition}"),
            Action::WaitExist { targets } => format!("wait until CAPZ has created {}", list(targets)),
            Action::WaitGone { targets } => format!("wait until {} are gone", list(targets)),
        }
    }

    /// The object to create, with Secret values masked (for printing).
    pub fn printable_object(&self) -> Option<Value> {
        match self {
            Action::Create { object, .. } => Some(objects::masked(object)),
            _ => None,
        }
    }
}

/// One step: its status now and the actions it takes from here.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub id: StepId,
    pub status: StepStatus,
    pub actions: Vec<Action>,
}

/// The whole plan for one migration, as of one reading of the live state.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub names: Names,
    pub steps: Vec<Step>,
}

fn source<'a>(state: &'a LiveState, target: &Target, step: StepId) -> Result<&'a Value, LiveError> {
    state.get(target).ok_or_else(|| {
        LiveError::Unexpected(format!(
            "step {} ({}) is not done but {target}, which it copies from, is gone",
            step.number(),
            step.title()
        ))
    })
}

impl Plan {
    /// The plan from the live state: every step's status and the actions still needed.
    pub fn build(names: &Names, state: &LiveState) -> Result<Plan, LiveError> {
        let mut steps = Vec::new();
        for id in StepId::ALL {
            let status = state.status(id, names);
            let actions = if status == StepStatus::Todo { actions(id, names, state)? } else { Vec::new() };
            steps.push(Step { id, status, actions });
        }
        Ok(Plan { names: names.clone(), steps })
    }

    /// The first step whose state the plan does not expect, as a message naming the step.
    pub fn unexpected(&self) -> Option<String> {
        self.steps.iter().find_map(|step| match &step.status {
            StepStatus::Unexpected(message) => {
                Some(format!("step {} ({}): {message}", step.id.number(), step.id.title()))
            }
            _ => None,
        })
    }

    pub fn step(&self, id: StepId) -> &Step {
        self.steps.iter().find(|s| s.id == id).expect("every step is planned")
    }
}

fn actions(id: StepId, names: &Names, state: &LiveState) -> Result<Vec<Action>, LiveError> {
    let existing =
        |targets: Vec<Target>| -> Vec<Target> { targets.into_iter().filter(|t| state.get(t).is_some()).collect() };
    Ok(match id {
        StepId::Pause => {
            vec![Action::Patch { target: names.old(kinds::CLUSTER, &names.cluster), patch: pause_patch() }]
        }
        StepId::BlockMove => {
            let mut targets = vec![names.old(kinds::AZURE_MANAGED_CONTROL_PLANE, &names.control_plane)];
            targets.extend(names.pools.iter().map(|(_, p)| names.old(kinds::AZURE_MANAGED_MACHINE_POOL, p)));
            vec![Action::WaitAnnotationGone { targets: existing(targets), annotation: BLOCK_MOVE }]
        }
        StepId::Disarm => {
            let targets = existing(names.old_aso());
            let mut actions: Vec<Action> =
                targets.iter().map(|t| Action::Patch { target: t.clone(), patch: disarm_patch() }).collect();
            actions.extend(
                targets
                    .iter()
                    .filter(|t| state.get(t).is_some_and(|o| !finalizers(o).is_empty()))
                    .map(|t| Action::RemoveFinalizers { target: t.clone() }),
            );
            actions
        }
        StepId::Namespace => match state.get(&Target::namespace(&names.new_namespace)) {
            None => vec![Action::Create { kind: kinds::NAMESPACE, object: objects::namespace(names) }],
            Some(_) => vec![Action::Patch {
                target: Target::namespace(&names.new_namespace),
                patch: json!({"metadata": {"annotations": {super::MIGRATION: objects::record(names)}}}),
            }],
        },
        StepId::Secret => {
            let old = source(state, &names.old(kinds::SECRET, &names.credential_secret), id)?;
            vec![Action::Create { kind: kinds::SECRET, object: objects::secret_copy(old, names) }]
        }
        StepId::ResourceGroup => {
            let new = names.new_(kinds::RESOURCE_GROUP, &names.resource_group);
            let mut actions = Vec::new();
            if state.get(&new).is_none() {
                let old = source(state, &names.old(kinds::RESOURCE_GROUP, &names.resource_group), id)?;
                actions
                    .push(Action::Create { kind: kinds::RESOURCE_GROUP, object: objects::resource_group(old, names) });
            }
            actions.push(Action::WaitCondition { target: new, condition: "Ready" });
            actions
        }
        StepId::ManagedCluster => {
            let new = names.new_(kinds::MANAGED_CLUSTER, &names.managed_cluster);
            let mut actions = Vec::new();
            if state.get(&new).is_none() {
                let old = source(state, &names.old(kinds::MANAGED_CLUSTER, &names.managed_cluster), id)?;
                actions.push(Action::Create {
                    kind: kinds::MANAGED_CLUSTER,
                    object: objects::managed_cluster(old, names),
                });
            }
            actions.push(Action::WaitCondition { target: new, condition: "Ready" });
            actions.push(Action::WaitExist { targets: names.new_scaffold() });
            actions
        }
        StepId::AgentPools => {
            let mut actions = Vec::new();
            for pool in &names.agent_pools {
                if state.get(&names.new_(kinds::AGENT_POOL, pool)).is_none() {
                    let old = source(state, &names.old(kinds::AGENT_POOL, pool), id)?;
                    actions.push(Action::Create { kind: kinds::AGENT_POOL, object: objects::agent_pool(old, names) });
                }
            }
            actions.push(Action::WaitExist { targets: names.new_pool_scaffold() });
            actions
        }
        StepId::Available => vec![Action::WaitCondition {
            target: names.new_(kinds::CLUSTER, &names.managed_cluster),
            condition: "Available",
        }],
        StepId::DeleteOld => existing(names.old_capi())
            .into_iter()
            .filter(|t| state.get(t).is_some_and(|o| o.pointer("/metadata/deletionTimestamp").is_none()))
            .map(|target| Action::Delete { target })
            .collect(),
        StepId::RemoveFinalizers => {
            let mut order = names.old_finalizer_order();
            // CAPZ's docs: the AzureManagedCluster should have no finalizers; if it still has, they go last but one.
            if let Some(infra) = &names.infra_cluster {
                order.insert(order.len() - 1, names.old(kinds::AZURE_MANAGED_CLUSTER, infra));
            }
            order
                .into_iter()
                .filter(|t| state.get(t).is_some_and(|o| !finalizers(o).is_empty()))
                .map(|target| Action::RemoveFinalizers { target })
                .collect()
        }
        StepId::OldAsoGone => vec![Action::WaitGone { targets: existing(names.old_aso()) }],
    })
}
