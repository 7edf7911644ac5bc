//! `kubectl capz validate`: manifests -> findings (schemas, CEL, embedded ASO objects), printed as
//! text, JSON or JUnit; exit 0 valid, 1 any error finding, 2 usage or input error.

use std::io::Write;

use anyhow::{Context, anyhow, bail};
use serde::Serialize;
use serde_json::Value;

use crate::aks_versions::Date;
use crate::cli::{ClusterArgs, TargetArgs, ValidateArgs, ValidateOutput};
use crate::cluster::Cluster;
use crate::exit::ExitStatus;
use crate::json_pointer::At;
use crate::manifest::{self, Document};
use crate::schema::{Registry, ValidateOptions, Validator};
use crate::source::{Budget, Limits};
use crate::validate::{
    Checks, Report, RuleFilter, TargetedReport, declared_aso_crds, format_junit, format_not_built, format_summary,
    format_text, merge_targets, read_sources, validate_documents, validate_sources_on_targets, write_text,
};

use super::target::{RunTarget, TargetReport, search_start};

/// `-o json` and `-o yaml`: the report and the target it was checked against (the targets, with several).
#[derive(Serialize)]
struct JsonReport<'a> {
    #[serde(flatten)]
    report: &'a Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<TargetReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    targets: Vec<TargetReport>,
}

/// The folder paths in `-o sarif` and `-o github` are relative to: the config file's, else the current directory.
fn repository_root(run_target: &RunTarget) -> anyhow::Result<std::path::PathBuf> {
    let root = match &run_target.config {
        Some(config) => config.root().to_path_buf(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    Ok(std::path::absolute(&root).unwrap_or(root))
}

/// The rules of a run: the config file's `rules.enable`/`rules.disable` under the command line's `--enable`/`--disable`
/// (a flag wins over the file for the rule it names), the CAPZ rules checking against the run's target.
pub(crate) fn rule_filter(run_target: &RunTarget, disable: &[String], enable: &[String]) -> anyhow::Result<RuleFilter> {
    let (mut merged_enable, mut merged_disable) = (Vec::new(), Vec::new());
    if let Some(config) = &run_target.config {
        for (list, settings, out) in
            [("enable", &config.enable, &mut merged_enable), ("disable", &config.disable, &mut merged_disable)]
        {
            for setting in settings {
                let id = &setting.value;
                let alone = if list == "enable" {
                    RuleFilter::new(&[], std::slice::from_ref(id))
                } else {
                    RuleFilter::new(std::slice::from_ref(id), &[])
                };
                if let Err(err) = alone.map_err(anyhow::Error::from) {
                    let message = err.root_cause().to_string();
                    let message = message.strip_prefix(&format!("--{list} ")).unwrap_or(&message).to_string();
                    bail!("{}: rules.{list}: {message}", config.location(setting.line));
                }
                if !enable.contains(id) && !disable.contains(id) {
                    out.push(id.clone());
                }
            }
        }
    }
    merged_enable.extend_from_slice(enable);
    merged_disable.extend_from_slice(disable);
    let mut filter = RuleFilter::new(&merged_disable, &merged_enable)?;
    filter.lint = filter.lint.with_target(run_target.target());
    Ok(filter)
}

/// For `render --validate`: validates rendered objects with the target's schemas (and the config file's rules),
/// prints the findings and the summary on stderr, and says whether any error was found.
/// Findings name lines of the rendered YAML stream (what `render` prints without `-o json`).
pub(crate) fn validate_rendered(documents: &[Document], run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    validate_rendered_text(&manifest::to_yaml_documents(documents.iter().map(|d| &d.value)), run_target)
}

/// Like [`validate_rendered`], for rendered YAML text as printed (lines refer to it).
pub(crate) fn validate_rendered_text(text: &str, run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let filter = rule_filter(run_target, &[], &[])?;
    let registry = run_target.registry()?;
    let validator = Validator::new(&registry, ValidateOptions::default());
    let rendered = manifest::parse_documents(text, "<rendered>").context("cannot re-read the rendered objects")?;
    let report = validate_documents(&rendered, &validator, &filter);
    let mut stderr = anstream::stderr().lock();
    stderr.write_all(format_text(&report).as_bytes())?;
    stderr.write_all(format_summary(&report.summary).as_bytes())?;
    Ok(report.exit_status())
}

/// Every CRD of the cluster of `--kubeconfig`/`--context`, through [`crate::cluster`] (kubectl's
/// kubeconfig rules, `--request-timeout`, one-line errors for 401/403/unreachable/timeouts); then the cluster's CAPZ
/// release is read and applied to the run's target (a cluster that gives no CRDs is an error before that).
async fn fetch_cluster_crds(cluster: &ClusterArgs, run_target: &mut RunTarget) -> anyhow::Result<Vec<Value>> {
    let options = super::cluster_options(cluster)?;
    let fetched = async {
        let cluster = Cluster::connect(&options).await?;
        let crds = cluster.custom_resource_definitions().await?;
        run_target.detect(&cluster).await;
        Ok::<_, crate::cluster::ClusterError>(crds)
    };
    fetched.await.map_err(|err| anyhow!("cannot fetch CRDs from the cluster: {err}"))
}

/// What a run's change review shares with its validation.
struct ReviewContext<'a> {
    registry: &'a Registry,
    validator: &'a Validator<'a>,
    filter: &'a RuleFilter,
    budget: &'a Budget,
}

/// `--base`: the change review of the one directory (super::change_review), its findings added to the report with
/// the values that came from a Secret of either side masked.
fn add_change_review(
    args: &ValidateArgs,
    base: &str,
    run_target: &RunTarget,
    strict: bool,
    context: &ReviewContext<'_>,
    report: &mut Report,
) -> anyhow::Result<()> {
    let [path] = args.paths.as_slice() else {
        anyhow::bail!("validate --base reviews one repository: give one directory");
    };
    let options = crate::validate::repository_options(
        path,
        true,
        &args.exclude,
        run_target.config.as_ref(),
        strict,
        args.helm_cache.as_deref(),
        context.budget,
    );
    let request = super::change_review::ReviewRequest {
        base,
        path,
        options: &options,
        compare: crate::change::CompareOptions::default(),
        transition_rules: context.filter.allows("cel"),
    };
    let review = super::change_review::review(&request, context.registry, context.validator, &context.filter.lint)?;
    crate::validate::ratchet_report(report, &review.stored, context.validator);
    let mut findings = review.findings.clone();
    for finding in &mut findings {
        finding.message = review.mask(&finding.message);
    }
    report.add_findings(findings);
    Ok(())
}

/// The CAPZ targets of a run, each once in the order given: `--capz-version v1.27,v1.28` (else `CAPZ_VERSION`
/// holding such a list) names several; else the one every command chooses (`None`: not given on the command line).
fn capz_versions(args: &ValidateArgs) -> anyhow::Result<Vec<Option<String>>> {
    let env = std::env::var(crate::config::ENV_VAR).ok();
    let (setting, list) = match (&args.target.capz_version, env) {
        (Some(flag), _) if flag.contains(',') => ("--capz-version ".to_string(), flag.clone()),
        (None, Some(env)) if env.contains(',') => (format!("{}=", crate::config::ENV_VAR), env),
        (flag, _) => return Ok(vec![flag.clone()]),
    };
    let mut names: Vec<&'static str> = Vec::new();
    for part in list.split(',').map(str::trim) {
        let shown = crate::escape::one_line(&list);
        if part.is_empty() {
            bail!("{setting}{shown}: an empty entry; name the targets as v1.27,v1.28");
        }
        let target = crate::versions::find_target(part).map_err(|reason| anyhow!("{setting}{shown}: {reason}"))?;
        if !names.contains(&target.name) {
            names.push(target.name);
        }
    }
    Ok(names.into_iter().map(|name| Some(name.to_string())).collect())
}

/// The day the AKS version rules judge on and what AKS offers in the clusters' region (`--aks-versions`), the same
/// for every target of a run.
#[derive(Clone, Copy)]
struct AksDay {
    on: Date,
    region: Option<&'static crate::aks_versions::RegionVersions>,
}

/// One target of a run: its choice, rules and schemas (with the CRDs of the config file, `--crds` and the cluster).
struct TargetRun {
    run_target: RunTarget,
    filter: RuleFilter,
    registry: Registry,
}

impl TargetRun {
    fn new(run_target: RunTarget, args: &ValidateArgs, aks: AksDay, cluster_crds: &[Value]) -> anyhow::Result<Self> {
        let mut filter = rule_filter(&run_target, &args.disable, &args.enable)?;
        filter.lint = filter.lint.on_date(aks.on).with_region(aks.region);
        let mut registry = run_target.registry()?;
        for dir in run_target.config_crd_dirs()?.iter().chain(&args.crds) {
            registry.add_crd_dir(dir).with_context(|| format!("cannot load CRDs from `{}`", dir.display()))?;
        }
        for crd in cluster_crds {
            let name = crd.str_at("/metadata/name").unwrap_or("?");
            registry.add_crd(crd, &format!("cluster CRD {name}"))?;
        }
        Ok(TargetRun { run_target, filter, registry })
    }
}

pub(crate) fn run(args: ValidateArgs) -> anyhow::Result<ExitStatus> {
    // The run's budget starts now: the deadline counts from here.
    let deadline = crate::cluster::parse_duration(&args.timeout).map_err(|err| anyhow!("--timeout: {err}"))?;
    let budget = Budget::new(Limits { deadline, ..Limits::default() });
    let versions = capz_versions(&args)?;
    if versions.len() > 1 {
        if args.crds_from_cluster {
            bail!("--crds-from-cluster: a cluster runs one CAPZ; give one --capz-version with it");
        }
        if args.base.is_some() {
            bail!("--base reviews a change against one CAPZ target; give one --capz-version with it");
        }
    }
    let start = search_start(&args.paths);
    let mut run_targets = Vec::with_capacity(versions.len());
    for version in versions {
        let target_args = TargetArgs { capz_version: version, ..args.target_args() };
        run_targets.push(RunTarget::resolve(&target_args, &start)?);
    }
    let mut cluster_crds = Vec::new();
    if args.crds_from_cluster {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        cluster_crds = runtime.block_on(fetch_cluster_crds(&args.cluster, &mut run_targets[0]))?;
    }
    run_targets.iter().for_each(RunTarget::announce);
    let on = super::run_date::run_date(args.at)?;
    super::run_date::warn_if_stale(on);
    // The config file is the same for every target (found from the same inputs).
    let region = super::aks_data::region_versions(args.aks_versions.as_deref(), run_targets[0].config.as_ref())?;
    let aks = AksDay { on, region };
    let mut targets = Vec::with_capacity(run_targets.len());
    for run_target in run_targets {
        targets.push(TargetRun::new(run_target, &args, aks, &cluster_crds)?);
    }
    let config = targets[0].run_target.config.as_ref();
    let strict = args.strict || config.and_then(|config| config.strict.as_ref()).is_some_and(|s| s.value);
    let (paths, repositories) =
        read_sources(&args.paths, args.no_build, &args.exclude, config, strict, args.helm_cache.as_deref(), &budget)?;
    // What the inputs add to CAPZ's ASO crd-pattern decides which ASO kinds are installed, before any is checked.
    let declared = declared_aso_crds(&paths, &repositories);
    for target in &mut targets {
        target.run_target.widen_aso_crd_pattern(&mut target.registry, declared.clone());
    }
    // Problems in the text are findings: every other document and file is still checked.
    let options = ValidateOptions { ignore_missing_schemas: args.ignore_missing_schemas, ..Default::default() };
    let validators: Vec<Validator> = targets.iter().map(|target| Validator::new(&target.registry, options)).collect();
    let checks: Vec<Checks> = targets
        .iter()
        .zip(&validators)
        .map(|(target, validator)| Checks { validator, filter: &target.filter })
        .collect();
    let mut reports =
        validate_sources_on_targets(&paths, &repositories, manifest::BATCH_BYTES, budget.read(), &checks)?;
    let first = &targets[0];
    let (report, holds_on) = if reports.len() == 1 {
        let mut report = reports.pop().expect("one report");
        if let Some(base) = &args.base {
            let context = ReviewContext {
                registry: &first.registry,
                validator: &validators[0],
                filter: &first.filter,
                budget: &budget,
            };
            add_change_review(&args, base, &first.run_target, strict, &context, &mut report)?;
        }
        (report, None)
    } else {
        let names: Vec<&'static str> = targets.iter().map(|target| target.run_target.target().name).collect();
        let TargetedReport { report, holds_on } = merge_targets(&names, reports);
        (report, Some(holds_on))
    };
    let target_reports: Vec<TargetReport> = targets.iter().map(|target| target.run_target.report()).collect();
    write_report(&args, &report, holds_on.as_deref(), target_reports, &first.run_target)?;
    if holds_on.is_some() {
        let names: Vec<&str> = targets.iter().map(|target| target.run_target.target().name).collect();
        let (last, rest) = names.split_last().expect("several targets");
        anstream::eprintln!("checked against CAPZ {} and {last}", rest.join(", "));
    }
    anstream::eprint!("{}", format_summary(&report.summary));
    if let Some(line) = format_not_built(&report) {
        anstream::eprint!("{line}");
    }
    let status = report.exit_status();
    // The process ends next: freeing thousands of objects one by one (the report, the loaded schemas: 8% of a
    // one-bundle validate) costs more than the OS reclaiming the memory at exit.
    std::mem::forget(report);
    std::mem::forget(checks);
    std::mem::forget(validators);
    std::mem::forget(targets);
    Ok(status)
}

/// Prints the report on stdout as `-o` asks. With several targets (`holds_on`: for each finding the targets it holds
/// on), `-o json`/`-o yaml` have `targets` (each target) and every finding its `targets`; SARIF results have them as
/// a property.
fn write_report(
    args: &ValidateArgs,
    report: &Report,
    holds_on: Option<&[Vec<&'static str>]>,
    target_reports: Vec<TargetReport>,
    run_target: &RunTarget,
) -> anyhow::Result<()> {
    // Buffered: a large report goes out in blocks, not a write per line.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, super::output::stdout());
    let json_report = || {
        let (target, targets) = match holds_on {
            None => (target_reports.first().cloned(), Vec::new()),
            Some(_) => (None, target_reports.clone()),
        };
        let mut value = serde_json::to_value(JsonReport { report, target, targets })?;
        if let (Some(holds_on), Some(Value::Array(findings))) = (holds_on, value.get_mut("findings")) {
            for (finding, on) in findings.iter_mut().zip(holds_on) {
                finding["targets"] = serde_json::json!(on);
            }
        }
        Ok::<_, anyhow::Error>(value)
    };
    match args.output {
        ValidateOutput::Text => write_text(report, &mut stdout)?,
        ValidateOutput::Json => {
            crate::escape::json::to_writer_pretty(&mut stdout, &json_report()?)?;
            stdout.write_all(b"\n")?;
        }
        ValidateOutput::Junit => stdout.write_all(format_junit(report).as_bytes())?,
        ValidateOutput::Yaml => stdout.write_all(crate::manifest::to_yaml(&json_report()?).as_bytes())?,
        ValidateOutput::Sarif => {
            let root = repository_root(run_target)?;
            let mut log = super::sarif::sarif_log(&report.findings, &report.suppressed, &root);
            if let Some(holds_on) = holds_on {
                super::sarif::add_targets(&mut log, holds_on);
            }
            crate::escape::json::to_writer_pretty(&mut stdout, &log)?;
            stdout.write_all(b"\n")?;
        }
        ValidateOutput::Github => {
            let root = repository_root(run_target)?;
            for finding in &report.findings {
                stdout.write_all(super::github::workflow_command(finding, &root).as_bytes())?;
            }
        }
    }
    stdout.flush()?;
    Ok(())
}
