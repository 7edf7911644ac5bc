//! Runs a plan: for each step, re-read the live state, stop on a state the plan does not expect, skip a step
//! whose postcondition holds, else confirm, send its writes through the guard and wait with a timeout.

use std::time::{Duration, Instant};

use serde_json::json;

use super::guard::{self, Facts, Scope, Write};
use super::kinds::{self, Target};
use super::names::Names;
use super::objects::{annotation, condition_true, finalizers};
use super::plan::{Action, Plan, Step};
use super::state::{LiveState, StepStatus};
use super::step_id::StepId;
use super::{Api, LiveError};

/// What the caller sees of a run: confirmations and progress (the domain never prints).
pub trait Observer {
    /// Asked before each step that has something to do; `false` stops the run.
    fn confirm(&mut self, step: &Step) -> bool;
    /// A step found already done (its postcondition holds).
    fn skipped(&mut self, step: &Step);
    /// A step starts its actions.
    fn started(&mut self, step: &Step);
    /// One action is about to run.
    fn action(&mut self, action: &Action);
    /// Still waiting for `what`.
    fn waiting(&mut self, what: &str, elapsed: Duration);
    /// A step reached its postcondition.
    fn done(&mut self, step: &Step);
}

/// Timeouts of a run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// How long each wait may take.
    pub timeout: Duration,
    /// How often a wait re-reads the cluster.
    pub poll: Duration,
}

struct Executor<'a> {
    api: &'a Api,
    names: &'a Names,
    scope: Scope,
    options: RunOptions,
}

/// Runs every step not done yet, in order. Returns when the last step's postcondition holds.
pub async fn run_plan(
    api: &Api,
    names: &Names,
    options: RunOptions,
    observer: &mut dyn Observer,
) -> Result<(), LiveError> {
    let executor = Executor {
        api,
        names,
        scope: Scope { old_namespace: names.old_namespace.clone(), new_namespace: names.new_namespace.clone() },
        options,
    };
    for id in StepId::ALL {
        let state = LiveState::read(api, names).await?;
        if let Some(message) = state.unexpected(names) {
            return Err(LiveError::Unexpected(message));
        }
        let plan = Plan::build(names, &state)?;
        // Any step in a state the plan does not expect stops the run before this step changes anything.
        if let Some(message) = plan.unexpected() {
            return Err(LiveError::Unexpected(message));
        }
        let step = plan.step(id);
        match &step.status {
            StepStatus::Done => {
                observer.skipped(step);
                continue;
            }
            StepStatus::Unexpected(message) => return Err(LiveError::Unexpected(message.clone())),
            StepStatus::Todo => {}
        }
        if !observer.confirm(step) {
            return Err(LiveError::Declined(id.number().to_string()));
        }
        observer.started(step);
        for action in &step.actions {
            observer.action(action);
            executor.run(action, observer).await?;
        }
        let after = LiveState::read(api, names).await?;
        match after.status(id, names) {
            StepStatus::Done => observer.done(step),
            StepStatus::Unexpected(message) => return Err(LiveError::Unexpected(message)),
            StepStatus::Todo => {
                return Err(LiveError::Unexpected(format!(
                    "step {} ({}) ran but its postcondition does not hold; someone changed the objects meanwhile",
                    id.number(),
                    id.title()
                )));
            }
        }
    }
    Ok(())
}

impl Executor<'_> {
    async fn run(&self, action: &Action, observer: &mut dyn Observer) -> Result<(), LiveError> {
        match action {
            Action::Patch { target, patch } => {
                let live = self.facts(target).await?;
                guard::check(&self.scope, &Write::Patch { target, patch }, &live)?;
                self.api.merge_patch(target, patch).await.map(drop)
            }
            Action::RemoveFinalizers { target } => {
                let facts = self.facts(target).await?;
                if facts.live_target.as_ref().is_none_or(|o| finalizers(o).is_empty()) {
                    return Ok(());
                }
                guard::check(&self.scope, &Write::RemoveFinalizers { target }, &facts)?;
                self.api.merge_patch(target, &json!({"metadata": {"finalizers": null}})).await.map(drop)
            }
            Action::Create { kind, object } => {
                let target = Target::of(*kind, object);
                if self.api.get(&target).await?.is_some() {
                    return Ok(());
                }
                guard::check(&self.scope, &Write::Create { kind: *kind, object }, &Facts::default())?;
                self.api.create(*kind, object).await.map(drop)
            }
            Action::Delete { target } => {
                let facts = self.facts(target).await?;
                if facts.live_target.is_none() {
                    return Ok(());
                }
                guard::check(&self.scope, &Write::Delete { target }, &facts)?;
                self.api.delete(target).await
            }
            Action::WaitAnnotationGone { targets, annotation: key } => {
                self.wait(&action.describe(), observer, || async {
                    for target in targets {
                        if let Some(live) = self.api.get(target).await?
                            && annotation(&live, key).is_some()
                        {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                })
                .await
            }
            Action::WaitCondition { target, condition } => {
                self.wait(&action.describe(), observer, || async {
                    Ok(self.api.get(target).await?.is_some_and(|o| condition_true(&o, condition)))
                })
                .await
            }
            Action::WaitExist { targets } => {
                self.wait(&action.describe(), observer, || async {
                    for target in targets {
                        if self.api.get(target).await?.is_none() {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                })
                .await
            }
            Action::WaitGone { targets } => {
                self.wait(&action.describe(), observer, || async {
                    for target in targets {
                        if self.api.get(target).await?.is_some() {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                })
                .await
            }
        }
    }

    /// The target as it is now, and whether the new Cluster is Available now (read right before a write).
    async fn facts(&self, target: &Target) -> Result<Facts, LiveError> {
        let live_target = self.api.get(target).await?;
        let new_cluster = self.names.new_(kinds::CLUSTER, &self.names.managed_cluster);
        let new_cluster_available = self.api.get(&new_cluster).await?.is_some_and(|c| condition_true(&c, "Available"));
        Ok(Facts { live_target, new_cluster_available })
    }

    async fn wait<F, Fut>(&self, what: &str, observer: &mut dyn Observer, mut ready: F) -> Result<(), LiveError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool, LiveError>>,
    {
        let start = Instant::now();
        loop {
            if ready().await? {
                return Ok(());
            }
            let elapsed = start.elapsed();
            if elapsed >= self.options.timeout {
                return Err(LiveError::Timeout { what: what.to_string(), timeout: self.options.timeout });
            }
            observer.waiting(what, elapsed);
            tokio::time::sleep(self.options.poll).await;
        }
    }
}
