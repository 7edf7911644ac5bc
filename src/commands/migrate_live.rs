//! `kubectl capz migrate CLUSTER --to-namespace NEW`: reads the live classic cluster, checks the preconditions
//! and prints the numbered plan (dry run), or runs it step by step with confirmations and progress on stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::Value;

use crate::cli::MigrateArgs;
use crate::cluster::{Cluster, parse_duration};
use crate::exit::ExitStatus;
use crate::manifest;
use crate::migrate::live::{
    Action, Api, LiveError, LiveState, MIGRATION, Names, Observer, Plan, RunOptions, Step, StepStatus, Target,
    classic_documents, missing_kinds, preconditions, run_plan,
};
use crate::migrate::{MigrateOptions, find_classic_clusters, to_aso_bundle};

use super::target::RunTarget;

pub(crate) fn run(args: MigrateArgs, mut run_target: RunTarget) -> anyhow::Result<ExitStatus> {
    let cluster = args.cluster.clone().unwrap_or_default();
    let Some(to_namespace) = args.to_namespace.clone() else {
        bail!("migrate {cluster}: --to-namespace NEW is required with CLUSTER (the new objects go to a new namespace)")
    };
    let timeout = parse_duration(&args.timeout).map_err(|e| anyhow!("--timeout: {e}"))?;
    let poll = parse_duration(&args.poll_interval).map_err(|e| anyhow!("--poll-interval: {e}"))?;
    if args.execute && !args.yes && !std::io::stdin().is_terminal() {
        bail!(
            "migrate --execute asks before each step, but stdin is not a terminal: run it on a terminal, or pass \
             --yes to run every step without asking"
        );
    }
    let options = super::cluster_options(&args.cluster_args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let api = Api::new(Cluster::connect(&options).await?);
        let namespace = args.namespace.clone().unwrap_or_else(|| api.cluster().default_namespace().to_string());
        let run = RunOptions { timeout, poll };
        match migrate(&api, &args, &mut run_target, &namespace, &cluster, &to_namespace, run).await {
            Ok(status) => Ok(status),
            Err(LiveError::Precondition(message)) => {
                eprintln!("migrate: precondition not met: {message}");
                Ok(ExitStatus::Error)
            }
            Err(e) => Err(anyhow::Error::new(e).context(format!("migrate {namespace}/{cluster}"))),
        }
    })
}

/// The names of the migration: recorded on the new namespace by an earlier run, or read from the live cluster.
async fn names(api: &Api, namespace: &str, cluster: &str, to_namespace: &str) -> Result<Names, LiveError> {
    if let Some(ns) = api.get(&Target::namespace(to_namespace)).await?
        && let Some(text) = ns.pointer("/metadata/annotations").and_then(|a| a.get(MIGRATION)).and_then(Value::as_str)
    {
        let recorded: Names = serde_json::from_str(text).map_err(|e| {
            LiveError::Unexpected(format!("Namespace {to_namespace}: annotation {MIGRATION} does not parse: {e}"))
        })?;
        if recorded.old_namespace != namespace || recorded.cluster != cluster {
            return Err(LiveError::Precondition(format!(
                "Namespace {to_namespace} holds the migration of Cluster {}/{}, not {namespace}/{cluster}",
                recorded.old_namespace, recorded.cluster
            )));
        }
        return Ok(recorded);
    }
    Names::discover(api, namespace, cluster, to_namespace).await
}

async fn migrate(
    api: &Api,
    args: &MigrateArgs,
    run_target: &mut RunTarget,
    namespace: &str,
    cluster: &str,
    to_namespace: &str,
    options: RunOptions,
) -> Result<ExitStatus, LiveError> {
    let missing = missing_kinds(api).await?;
    if !missing.is_empty() {
        return Err(LiveError::Precondition(format!(
            "the management cluster (context {}) does not serve {}: are CAPI, CAPZ and ASO installed with these CRDs?",
            api.cluster().context(),
            missing.join(", ")
        )));
    }
    // The cluster answered: now which CAPZ it runs (its translation writes --out-dir).
    run_target.detect(api.cluster()).await;
    run_target.announce();
    let names = names(api, namespace, cluster, to_namespace).await?;
    let state = LiveState::read(api, &names).await?;
    let failures = preconditions(api, &names, &state).await?;
    let plan = Plan::build(&names, &state)?;
    let unexpected = state.unexpected(&names).or_else(|| plan.unexpected());
    if !args.execute {
        let mut stdout = std::io::stdout().lock();
        let _ =
            stdout.write_all(format_plan(&plan, api.cluster().context(), &failures, unexpected.as_deref()).as_bytes());
    }
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("migrate: precondition not met: {failure}");
        }
        return Ok(ExitStatus::Error);
    }
    if let Some(message) = unexpected {
        return Err(LiveError::Unexpected(message));
    }
    if let Some(out_dir) = &args.out_dir {
        write_manifests(api, &names, args, run_target, out_dir).await?;
    }
    if !args.execute {
        return Ok(ExitStatus::Success);
    }
    let mut observer = TerminalObserver { yes: args.yes, tty: std::io::stderr().is_terminal(), waiting: false };
    run_plan(api, &names, options, &mut observer).await?;
    eprintln!(
        "migrate: Cluster {}/{} now runs on the ASO API as Cluster {}/{}",
        names.old_namespace, names.cluster, names.new_namespace, names.managed_cluster
    );
    Ok(ExitStatus::Success)
}

/// `--out-dir`: the offline translation of the live classic objects, validated, written atomically.
async fn write_manifests(
    api: &Api,
    names: &Names,
    args: &MigrateArgs,
    run_target: &RunTarget,
    out_dir: &std::path::Path,
) -> Result<(), LiveError> {
    let fail = |message: String| LiveError::Precondition(format!("--out-dir {}: {message}", out_dir.display()));
    let documents = classic_documents(api, names).await?;
    let clusters = find_classic_clusters(&documents).map_err(|e| fail(e.to_string()))?;
    let schemas = run_target.schemas().map_err(|e| fail(format!("{e:#}")))?;
    let options = MigrateOptions { to_namespace: Some(names.new_namespace.clone()), schemas };
    let bundles = clusters
        .iter()
        .map(|c| to_aso_bundle(c, &options))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("CAPZ cannot translate the live objects: {e}")))?;
    match super::migrate_output::validate(&bundles, run_target) {
        Ok(ExitStatus::Success) => {}
        Ok(_) => return Err(fail("the translated objects do not validate".into())),
        Err(e) => return Err(fail(format!("{e:#}"))),
    }
    super::migrate_output::write_bundles(out_dir, &bundles, args.output).map_err(|e| fail(format!("{e:#}")))
}

/// The dry run's report: preconditions, then every step with its actions and the objects it creates as YAML.
fn format_plan(plan: &Plan, context: &str, failures: &[String], unexpected: Option<&str>) -> String {
    let names = &plan.names;
    let mut out = format!(
        "Migration of Cluster {}/{} to namespace {} (context {context}); dry run, nothing changed.\n\n",
        names.old_namespace, names.cluster, names.new_namespace
    );
    if failures.is_empty() && unexpected.is_none() {
        out.push_str(
            "Preconditions: all met (CRDs served, classic cluster, credential Secret present, new namespace free)\n",
        );
    } else {
        out.push_str("Preconditions NOT met:\n");
        for failure in failures.iter().map(String::as_str).chain(unexpected) {
            out.push_str(&format!("  - {failure}\n"));
        }
    }
    for step in &plan.steps {
        out.push('\n');
        out.push_str(&format_step(step));
    }
    out
}

fn format_step(step: &Step) -> String {
    let mut out = format!("Step {}: {}", step.id.number(), step.id.title());
    match &step.status {
        StepStatus::Done => out.push_str(" [done]\n"),
        StepStatus::Unexpected(message) => out.push_str(&format!(" [unexpected: {message}]\n")),
        StepStatus::Todo => out.push('\n'),
    }
    for (index, action) in step.actions.iter().enumerate() {
        out.push_str(&format!("  {}. {}\n", index + 1, action.describe()));
        if let Some(object) = action.printable_object() {
            for line in manifest::to_yaml(&object).lines() {
                out.push_str(&format!("       {line}\n"));
            }
        }
    }
    out
}

struct TerminalObserver {
    yes: bool,
    tty: bool,
    waiting: bool,
}

impl TerminalObserver {
    fn end_wait_line(&mut self) {
        if self.waiting {
            eprintln!();
            self.waiting = false;
        }
    }
}

impl Observer for TerminalObserver {
    fn confirm(&mut self, step: &Step) -> bool {
        if self.yes {
            return true;
        }
        eprint!("{}Run step {}? [y/N] ", format_step(step), step.id.number());
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }

    fn skipped(&mut self, step: &Step) {
        self.end_wait_line();
        eprintln!("step {}: {}: already done", step.id.number(), step.id.title());
    }

    fn started(&mut self, step: &Step) {
        eprintln!("step {}: {}", step.id.number(), step.id.title());
    }

    fn action(&mut self, action: &Action) {
        self.end_wait_line();
        eprintln!("  {}", action.describe());
    }

    fn waiting(&mut self, what: &str, elapsed: Duration) {
        if self.tty {
            eprint!("\r\x1b[2K  waiting {}s: {what}", elapsed.as_secs());
            let _ = std::io::stderr().flush();
            self.waiting = true;
        }
    }

    fn done(&mut self, step: &Step) {
        self.end_wait_line();
        eprintln!("step {}: done", step.id.number());
    }
}
