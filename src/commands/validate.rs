//! `kubectl capz validate`: manifests -> findings (schemas, CEL, embedded ASO objects), printed as
//! text, JSON or JUnit; exit 0 valid, 1 any error finding, 2 usage or input error.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use anyhow::{Context, anyhow, bail};
use serde::Serialize;
use serde_json::Value;

use crate::cli::{ClusterArgs, ValidateArgs, ValidateOutput};
use crate::cluster::Cluster;
use crate::exit::ExitStatus;
use crate::lint;
use crate::manifest::{self, Document, READ_RULES, ReadProblem, SecretValues, is_secret_data_pointer};
use crate::report::{Finding, Severity};
use crate::schema::validate::RULES;
use crate::schema::{ObjectStatus, ValidateOptions, Validator};
use crate::source::{self, ExcludePattern, FileClass, FileEntry, Repository, RepositoryOptions, VariableFields};

use super::target::{RunTarget, TargetReport, search_start};
use crate::config::RepoConfig;

/// `-o json` and `-o yaml`: the report and the target it was checked against.
#[derive(Serialize)]
struct JsonReport<'a> {
    #[serde(flatten)]
    report: &'a Report,
    target: TargetReport,
}

/// The folder paths in `-o sarif` and `-o github` are relative to: the config file's, else the current directory.
fn repository_root(run_target: &RunTarget) -> anyhow::Result<std::path::PathBuf> {
    let root = match &run_target.config {
        Some(config) => config.root().to_path_buf(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    Ok(std::path::absolute(&root).unwrap_or(root))
}

/// Rule ids that cannot be turned off: the reader's (text that is not objects cannot be checked)
/// and `schema-missing` (use --ignore-missing-schemas for unknown kinds).
fn always_on(id: &str) -> bool {
    id == "schema-missing" || READ_RULES.iter().any(|(known, _)| *known == id)
}

/// The verdict on one object.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResourceResult {
    pub source: String,
    pub line: usize,
    pub object: String,
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub status: ObjectStatus,
    /// Its error findings (for JUnit).
    #[serde(skip)]
    pub errors: Vec<Finding>,
}

/// Counts over a run.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Summary {
    pub resources: usize,
    pub valid: usize,
    pub invalid: usize,
    pub skipped: usize,
    pub errors: usize,
    pub warnings: usize,
    pub not_checked: usize,
    pub info: usize,
    /// Files of a repository that are not manifests (repository mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_manifests: Option<usize>,
}

/// Everything a run found, sorted by file and line.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Report {
    pub findings: Vec<Finding>,
    pub resources: Vec<ResourceResult>,
    pub summary: Summary,
    /// Every YAML and JSON file of the repositories and what was done with it (repository mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileEntry>>,
}

impl Report {
    pub(crate) fn exit_status(&self) -> ExitStatus {
        if self.summary.errors > 0 { ExitStatus::Findings } else { ExitStatus::Success }
    }

    /// Recomputes the summary from the resources and findings.
    fn count(&mut self) {
        let summary = &mut self.summary;
        *summary = Summary { not_manifests: summary.not_manifests, ..Summary::default() };
        summary.resources = self.resources.len();
        for resource in &self.resources {
            match resource.status {
                ObjectStatus::Valid => summary.valid += 1,
                ObjectStatus::Invalid => summary.invalid += 1,
                ObjectStatus::Skipped => summary.skipped += 1,
            }
        }
        for finding in &self.findings {
            match finding.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::NotChecked => summary.not_checked += 1,
                Severity::Info => summary.info += 1,
            }
        }
    }

    /// Adds the parts of the text that could not be read into objects (syntax errors, duplicate
    /// keys, documents that are not objects): each is an error finding and an invalid resource,
    /// in its place among the others (`sources` in reading order).
    pub(crate) fn add_read_problems(&mut self, problems: &[ReadProblem], sources: &[Arc<str>]) {
        if problems.is_empty() {
            return;
        }
        for problem in problems {
            let finding = Finding {
                rule: problem.kind.rule().to_string(),
                severity: Severity::Error,
                source: problem.source.to_string(),
                line: problem.line,
                column: Some(problem.column),
                object: String::new(),
                path: String::new(),
                message: problem.message.clone(),
            };
            self.resources.push(ResourceResult {
                source: problem.source.to_string(),
                line: problem.line,
                object: String::new(),
                api_version: String::new(),
                status: ObjectStatus::Invalid,
                errors: vec![finding.clone()],
            });
            self.findings.push(finding);
        }
        let rank: HashMap<&str, usize> =
            sources.iter().enumerate().rev().map(|(rank, source)| (source.as_ref(), rank)).collect();
        let rank_of = |source: &str| rank.get(source).copied().unwrap_or(usize::MAX);
        self.resources.sort_by_key(|r| (rank_of(&r.source), r.line));
        sort_findings(&mut self.findings);
        self.count();
    }
}

impl Report {
    /// Repository mode's last steps: patch file:lines, `${VAR}` fields left out, the repositories' warnings and the
    /// list of files.
    fn apply_repositories(&mut self, repositories: &[Repository], variables: &VariableFields) {
        for repository in repositories {
            repository.trace_values(&mut self.findings);
            repository.remap(&mut self.findings);
            for resource in &mut self.resources {
                repository.remap(&mut resource.errors);
            }
        }
        if !variables.is_empty() {
            variables.suppress(&mut self.findings);
            for resource in &mut self.resources {
                variables.suppress(&mut resource.errors);
                if resource.status == ObjectStatus::Invalid && resource.errors.is_empty() {
                    resource.status = ObjectStatus::Valid;
                }
            }
            self.findings.extend(variables.notes());
        }
        let mut files = Vec::new();
        for repository in repositories {
            self.findings.extend(repository.notes.iter().cloned());
            files.extend(repository.files.iter().cloned());
        }
        self.summary.not_manifests = Some(files.iter().filter(|f| f.class == FileClass::NotManifest).count());
        self.files = Some(files);
        sort_findings(&mut self.findings);
        self.count();
    }
}

/// Findings by file, line and column, then path, rule and message (duplicates removed).
fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (&a.source, a.line, a.column, &a.path, &a.rule, &a.message)
            .cmp(&(&b.source, b.line, b.column, &b.path, &b.rule, &b.message))
    });
    findings.dedup();
}

/// Which rules run: the schema rules of this module (all on by default) and the CAPZ rules of
/// [`crate::lint`] (their own defaults).
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleFilter {
    disabled: BTreeSet<String>,
    lint: lint::RuleSelection,
}

impl RuleFilter {
    pub(crate) fn new(disable: &[String], enable: &[String]) -> anyhow::Result<Self> {
        let is_schema_rule = |id: &String| RULES.iter().any(|(known, _)| known == id);
        for id in disable.iter().chain(enable) {
            if id == "schema-missing" {
                bail!("rule `{id}` cannot be disabled; use --ignore-missing-schemas to skip objects without a schema");
            }
            if always_on(id) {
                bail!("rule `{id}` cannot be disabled: a document that cannot be read cannot be checked");
            }
        }
        let lint_enable: Vec<String> = enable.iter().filter(|id| !is_schema_rule(id)).cloned().collect();
        let lint_disable: Vec<String> = disable.iter().filter(|id| !is_schema_rule(id)).cloned().collect();
        let lint = lint::RuleSelection::new(&lint_enable, &lint_disable).with_context(|| {
            let schema_rules: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
            format!("schema rules are: {}; CAPZ rules: see `docs/rules.md`", schema_rules.join(", "))
        })?;
        let disabled = disable.iter().filter(|id| is_schema_rule(id)).cloned().collect();
        Ok(RuleFilter { disabled, lint })
    }
    fn allows(&self, rule: &str) -> bool {
        !self.disabled.contains(rule)
    }
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
                if let Err(err) = alone {
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

/// Below this many documents, validation runs on the calling thread.
const PARALLEL_MIN_DOCUMENTS: usize = 64;

/// Schema findings of one document, filtered, with its verdict.
fn check_document(document: &Document, validator: &Validator, filter: &RuleFilter) -> (ResourceResult, Vec<Finding>) {
    let outcome = validator.validate_document(document);
    // The API server's deprecation warning for CAPI v1beta1 says what the rule `capi-v1beta1` says; like
    // that rule it is shown only when enabled (CAPZ's own templates still use v1beta1).
    let capi_v1beta1_hidden = lint::is_capi_v1beta1(document) && !filter.lint.is_enabled("capi-v1beta1");
    // An object in an API version the target does not serve was not checked against any schema: with
    // `--disable api-version` it is "not checked", never valid.
    let mut unchecked = false;
    let findings: Vec<Finding> = outcome
        .findings
        .into_iter()
        .filter_map(|mut f| {
            if f.rule == "api-version" && f.severity == Severity::Error && !filter.allows(&f.rule) {
                unchecked |= f.path == "/apiVersion";
                f.severity = Severity::NotChecked;
                f.message = format!("{}; not checked (rule api-version disabled)", f.message);
                return Some(f);
            }
            (filter.allows(&f.rule) && !(capi_v1beta1_hidden && f.rule == "deprecated-api")).then_some(f)
        })
        .collect();
    let status = match outcome.status {
        ObjectStatus::Skipped => ObjectStatus::Skipped,
        _ if unchecked && !findings.iter().any(|f| f.severity == Severity::Error) => ObjectStatus::Skipped,
        _ if findings.iter().any(|f| f.severity == Severity::Error) => ObjectStatus::Invalid,
        _ => ObjectStatus::Valid,
    };
    let result = ResourceResult {
        source: document.origin.source.to_string(),
        line: document.origin.line,
        object: document.display_name(),
        api_version: document.api_version().to_string(),
        status,
        errors: findings.iter().filter(|f| f.severity == Severity::Error).cloned().collect(),
    };
    (result, findings)
}

/// The schema findings and verdicts of `documents`, in input order; large slices on every core.
fn check_documents(
    documents: &[Document],
    validator: &Validator,
    filter: &RuleFilter,
) -> Vec<(ResourceResult, Vec<Finding>)> {
    let check_chunk = |chunk: &[Document]| -> Vec<(ResourceResult, Vec<Finding>)> {
        chunk.iter().map(|document| check_document(document, validator, filter)).collect()
    };
    if documents.len() < PARALLEL_MIN_DOCUMENTS {
        return check_chunk(documents);
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    let chunk_size = documents.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> =
            documents.chunks(chunk_size).map(|chunk| scope.spawn(move || check_chunk(chunk))).collect();
        let mut checked = Vec::with_capacity(documents.len());
        for worker in workers {
            // A panicking worker is a bug; re-raise it on this thread rather than lose results.
            checked.extend(worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        checked
    })
}

/// Validates documents with `validator`; the shared core of `validate`, `render --validate`, `plan`
/// and fleets. Large bundles are checked on every core: documents in contiguous chunks (results in
/// input order) while the CAPZ rules run over the whole bundle beside them.
pub(crate) fn validate_documents(documents: &[Document], validator: &Validator, filter: &RuleFilter) -> Report {
    let (checked, lint_findings) = if documents.len() < PARALLEL_MIN_DOCUMENTS {
        (check_documents(documents, validator, filter), lint::check(documents, &filter.lint))
    } else {
        std::thread::scope(|scope| {
            let lint = scope.spawn(|| lint::check(documents, &filter.lint));
            let checked = check_documents(documents, validator, filter);
            (checked, lint.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    };
    let mut secrets = SecretIndex::default();
    secrets.add(documents);
    assemble(checked, secrets.mask(lint_findings))
}

/// Validates the manifests of `paths` a batch of documents at a time ([`manifest::stream_paths`]): the schema part
/// holds one batch, the CAPZ rules keep what they need ([`lint::StreamedBundle`]). The report is the one
/// [`validate_documents`] and [`Report::add_read_problems`] give for the same documents.
#[cfg(test)]
pub(crate) fn validate_stream(
    paths: &[String],
    batch_bytes: usize,
    validator: &Validator,
    filter: &RuleFilter,
) -> anyhow::Result<Report> {
    validate_sources(paths, &[], batch_bytes, validator, filter)
}

/// [`validate_stream`] over `paths`, then the built objects of `repositories` (kustomize builds, Helm renders, Flux
/// substitutions) as further batches of the same run: the CAPZ rules see every object together. Findings on fields
/// a patch set move to the patch; fields holding `${VAR}` that nothing substitutes are not judged (one info finding
/// per file says so); the repositories' warnings join the findings.
pub(crate) fn validate_sources(
    paths: &[String],
    repositories: &[Repository],
    batch_bytes: usize,
    validator: &Validator,
    filter: &RuleFilter,
) -> anyhow::Result<Report> {
    let mut checked = Vec::new();
    let mut problems = Vec::new();
    let mut secrets = SecretIndex::default();
    let mut bundle = lint::StreamedBundle::default();
    let mut variables = VariableFields::default();
    let repository_mode = !repositories.is_empty();
    let mut sources = manifest::stream_paths(paths, batch_bytes, &mut |batch| {
        let documents = &batch.outcome.documents;
        checked.extend(check_documents(documents, validator, filter));
        secrets.add(documents);
        bundle.add(documents);
        if repository_mode {
            variables.add(documents);
        }
        problems.extend(batch.outcome.problems);
    })?;
    let mut known: HashSet<Arc<str>> = sources.iter().cloned().collect();
    for built in repositories.iter().flat_map(|repository| &repository.built) {
        let documents = &built.documents;
        checked.extend(check_documents(documents, validator, filter));
        secrets.add(documents);
        bundle.add(documents);
        variables.add(documents);
        for document in documents {
            if known.insert(document.origin.source.clone()) {
                sources.push(document.origin.source.clone());
            }
        }
    }
    let lint_findings = bundle.check(&filter.lint);
    let mut report = assemble(checked, secrets.mask(lint_findings));
    report.add_read_problems(&problems, &sources);
    if repository_mode {
        report.apply_repositories(repositories, &variables);
    }
    Ok(report)
}

/// The report from the schema results (input order) and the CAPZ rules' findings (secrets masked).
fn assemble(checked: Vec<(ResourceResult, Vec<Finding>)>, lint_findings: Vec<Finding>) -> Report {
    let mut report = Report::default();
    report.resources.reserve(checked.len());
    for (result, findings) in checked {
        report.resources.push(result);
        report.findings.extend(findings);
    }
    // The CAPZ rules, over the whole bundle (cross-object); each finding counts for its object.
    // Same deprecation, with the migration target: keep only the CAPZ rule's finding.
    let migrations: HashSet<(&str, &str)> = lint_findings
        .iter()
        .filter(|f| f.rule == "capz-deprecated-api")
        .map(|f| (f.source.as_str(), f.object.as_str()))
        .collect();
    if !migrations.is_empty() {
        report
            .findings
            .retain(|f| !(f.rule == "deprecated-api" && migrations.contains(&(f.source.as_str(), f.object.as_str()))));
    }
    // Objects by (source, name): an error counts for the last object of that name starting at or
    // before its line.
    let mut objects: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (index, resource) in report.resources.iter().enumerate() {
        objects.entry((resource.source.as_str(), resource.object.as_str())).or_default().push(index);
    }
    let mut owners = Vec::new();
    for (position, finding) in lint_findings.iter().enumerate() {
        if finding.severity != Severity::Error {
            continue;
        }
        let owner = objects.get(&(finding.source.as_str(), finding.object.as_str())).and_then(|candidates| {
            candidates.iter().rev().copied().find(|&i| report.resources[i].line <= finding.line)
        });
        if let Some(owner) = owner {
            owners.push((owner, position));
        }
    }
    drop(objects);
    for (owner, position) in owners {
        let owner = &mut report.resources[owner];
        owner.errors.push(lint_findings[position].clone());
        if owner.status == ObjectStatus::Valid {
            owner.status = ObjectStatus::Invalid;
        }
    }
    report.findings.extend(lint_findings);
    sort_findings(&mut report.findings);
    for resource in &mut report.resources {
        resource.errors.sort_by(|a, b| (a.line, &a.path, &a.rule).cmp(&(b.line, &b.path, &b.rule)));
    }
    report.count();
    report
}

/// The values of every Secret seen, by (source, `Kind/name`), to mask them in the CAPZ rules' findings (the schema
/// findings are masked by the validator): no output shows a Secret's data, whatever its shape.
#[derive(Debug, Default)]
struct SecretIndex {
    secrets: HashMap<(String, String), SecretValues>,
}

impl SecretIndex {
    fn add(&mut self, documents: &[Document]) {
        for document in documents {
            if let Some(values) = SecretValues::of(&document.value) {
                let key = (document.origin.source.to_string(), document.display_name());
                self.secrets.entry(key).or_default().extend(values);
            }
        }
    }

    fn mask(&self, mut findings: Vec<Finding>) -> Vec<Finding> {
        if self.secrets.is_empty() {
            return findings;
        }
        for finding in &mut findings {
            let key = (finding.source.clone(), finding.object.clone());
            if let Some(values) = self.secrets.get(&key) {
                finding.message = values.mask(&finding.message, is_secret_data_pointer(&finding.path));
            }
        }
        findings
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
        Severity::NotChecked => "not-checked",
    }
}

/// `file:line[:column]`, the place of a finding.
fn location(f: &Finding) -> String {
    match f.column {
        Some(column) => format!("{}:{}:{column}", f.source, f.line),
        None => format!("{}:{}", f.source, f.line),
    }
}

/// `file:line: severity: Kind/name: /json/path: message [rule]`, one finding per line (without
/// the object and path for text that could not be read into an object).
pub(crate) fn format_text(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&text_line(f));
    }
    out
}

/// One finding as [`format_text`] prints it.
fn text_line(f: &Finding) -> String {
    let object = if f.object.is_empty() { String::new() } else { format!("{}: ", f.object) };
    let path = if f.path.is_empty() { String::new() } else { format!("{}: ", f.path) };
    format!("{}: {}: {object}{path}{} [{}]\n", location(f), severity_name(f.severity), f.message, f.rule)
}

/// [`format_text`] written line by line (a large report is never held twice).
fn write_text(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    for f in &report.findings {
        out.write_all(text_line(f).as_bytes())?;
    }
    Ok(())
}

/// The summary line (stderr).
pub(crate) fn format_summary(summary: &Summary) -> String {
    let not_manifests = match summary.not_manifests {
        Some(1) => "; 1 file is not a manifest".to_string(),
        Some(count) if count > 1 => format!("; {count} files are not manifests"),
        _ => String::new(),
    };
    format!(
        "{} objects: {} valid, {} invalid, {} skipped ({} errors, {} warnings, {} not checked){not_manifests}\n",
        summary.resources,
        summary.valid,
        summary.invalid,
        summary.skipped,
        summary.errors,
        summary.warnings,
        summary.not_checked
    )
}

fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one test suite per file, one test case per object, one failure per error finding.
pub(crate) fn format_junit(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"kubectl-capz validate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
        s.resources, s.invalid, s.skipped
    ));
    let mut sources: Vec<&str> = Vec::new();
    for resource in &report.resources {
        if !sources.contains(&resource.source.as_str()) {
            sources.push(&resource.source);
        }
    }
    for source in sources {
        let resources: Vec<&ResourceResult> = report.resources.iter().filter(|r| r.source == source).collect();
        let failures = resources.iter().filter(|r| r.status == ObjectStatus::Invalid).count();
        let skipped = resources.iter().filter(|r| r.status == ObjectStatus::Skipped).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            xml_escape(source),
            resources.len()
        ));
        for resource in &resources {
            let object = if resource.object.is_empty() { "unreadable document" } else { &resource.object };
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{} (line {})\">",
                xml_escape(source),
                xml_escape(object),
                resource.line
            ));
            let errors = &resource.errors;
            match resource.status {
                ObjectStatus::Skipped => out.push_str("\n      <skipped message=\"no schema for this kind\"/>\n    "),
                ObjectStatus::Invalid => {
                    out.push('\n');
                    for f in errors {
                        let path = if f.path.is_empty() { String::new() } else { format!("{}: ", f.path) };
                        out.push_str(&format!(
                            "      <failure type=\"{}\" message=\"{}\">{}: {path}{}</failure>\n",
                            xml_escape(&f.rule),
                            xml_escape(&f.message),
                            xml_escape(&location(f)),
                            xml_escape(&f.message)
                        ));
                    }
                    out.push_str("    ");
                }
                ObjectStatus::Valid => {}
            }
            out.push_str("</testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
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

/// The files to stream and the repositories to build: a directory is a repository (unless `no_build`), files and
/// `-` are read as they are. With `--exclude`, a directory read plainly lists its files without the excluded ones.
/// The `exclude` globs of the config file (relative to its folder) join `--exclude` for each directory below it.
pub(crate) fn read_sources(
    paths: &[String],
    no_build: bool,
    exclude: &[String],
    config: Option<&RepoConfig>,
) -> anyhow::Result<(Vec<String>, Vec<Repository>)> {
    let mut plain = Vec::new();
    let mut repositories = Vec::new();
    for path in paths {
        let is_dir = path != "-" && std::path::Path::new(path).is_dir();
        let mut patterns = exclude.to_vec();
        if is_dir && let Some(config) = config {
            patterns.extend(config_excludes_for(config, std::path::Path::new(path)));
        }
        let options = RepositoryOptions {
            excludes: patterns.iter().map(|pattern| ExcludePattern::new(pattern)).collect(),
            ..RepositoryOptions::default()
        };
        if !is_dir || (no_build && patterns.is_empty()) {
            plain.push(path.clone());
        } else if no_build {
            plain.extend(source::plain_files(std::path::Path::new(path), &options.excludes)?);
        } else {
            let repository = source::load(std::path::Path::new(path), &options)?;
            plain.extend(repository.plain.iter().cloned());
            repositories.push(repository);
        }
    }
    Ok((plain, repositories))
}

/// The config file's `exclude` globs that apply inside `dir`, made relative to it: a glob without `/` applies
/// everywhere; an anchored one (relative to the config file's folder) only below `dir`, with `dir`'s part cut off.
fn config_excludes_for(config: &RepoConfig, dir: &std::path::Path) -> Vec<String> {
    let (Ok(root), Ok(dir)) = (std::fs::canonicalize(config.root()), std::fs::canonicalize(dir)) else {
        return Vec::new();
    };
    let Ok(below) = dir.strip_prefix(&root) else { return Vec::new() };
    let below = below.to_string_lossy().replace('\\', "/");
    let mut patterns = Vec::new();
    for glob in config.exclude_globs() {
        let trimmed = glob.trim_start_matches("./").trim_start_matches('/').trim_end_matches('/');
        if !trimmed.contains('/') || below.is_empty() {
            patterns.push(trimmed.to_string());
        } else if let Some(rest) = trimmed.strip_prefix(&format!("{below}/")) {
            patterns.push(rest.to_string());
        }
    }
    patterns
}

pub(crate) fn run(args: ValidateArgs) -> anyhow::Result<ExitStatus> {
    let mut run_target = RunTarget::resolve(&args.target_args(), &search_start(&args.paths))?;
    let mut cluster_crds = Vec::new();
    if args.crds_from_cluster {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        cluster_crds = runtime.block_on(fetch_cluster_crds(&args.cluster, &mut run_target))?;
    }
    run_target.announce();
    let filter = rule_filter(&run_target, &args.disable, &args.enable)?;
    let mut registry = run_target.registry()?;
    for dir in run_target.config_crd_dirs()?.iter().chain(&args.crds) {
        registry.add_crd_dir(dir).with_context(|| format!("cannot load CRDs from `{}`", dir.display()))?;
    }
    for crd in &cluster_crds {
        let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?");
        registry.add_crd(crd, &format!("cluster CRD {name}"))?;
    }
    // Problems in the text are findings: every other document and file is still checked.
    let options = ValidateOptions { ignore_missing_schemas: args.ignore_missing_schemas, ..Default::default() };
    let validator = Validator::new(&registry, options);
    let (paths, repositories) = read_sources(&args.paths, args.no_build, &args.exclude, run_target.config.as_ref())?;
    let report = validate_sources(&paths, &repositories, manifest::BATCH_BYTES, &validator, &filter)?;
    // Buffered: a large report goes out in blocks, not a write per line.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, super::output::stdout());
    match args.output {
        ValidateOutput::Text => write_text(&report, &mut stdout)?,
        ValidateOutput::Json => {
            serde_json::to_writer_pretty(&mut stdout, &JsonReport { report: &report, target: run_target.report() })?;
            stdout.write_all(b"\n")?;
        }
        ValidateOutput::Junit => stdout.write_all(format_junit(&report).as_bytes())?,
        ValidateOutput::Yaml => {
            let value = serde_json::to_value(JsonReport { report: &report, target: run_target.report() })?;
            stdout.write_all(crate::manifest::to_yaml(&value).as_bytes())?
        }
        ValidateOutput::Sarif => {
            let root = repository_root(&run_target)?;
            serde_json::to_writer_pretty(&mut stdout, &super::sarif::sarif_log(&report.findings, &root))?;
            stdout.write_all(b"\n")?;
        }
        ValidateOutput::Github => {
            let root = repository_root(&run_target)?;
            for finding in &report.findings {
                stdout.write_all(super::github::workflow_command(finding, &root).as_bytes())?;
            }
        }
    }
    stdout.flush()?;
    anstream::eprint!("{}", format_summary(&report.summary));
    let status = report.exit_status();
    // The process ends next: freeing thousands of objects one by one costs more than the OS
    // reclaiming the memory at exit.
    std::mem::forget(report);
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Registry;

    fn yaml_files(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path.display().to_string());
            }
        }
    }

    /// The report of the whole bundle held in memory, as `validate` made it before streaming.
    fn whole(paths: &[String], validator: &Validator, filter: &RuleFilter) -> String {
        let read = manifest::read_paths_tolerant(paths).unwrap();
        let mut report = validate_documents(&read.documents, validator, filter);
        report.add_read_problems(&read.problems, &read.sources);
        serde_json::to_string_pretty(&report).unwrap() + &format_junit(&report)
    }

    #[test]
    fn streamed_reports_equal_whole_bundle_reports_at_every_batch_size() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut files = Vec::new();
        for dir in ["corpus", "fixtures/lint", "fixtures/validate"] {
            yaml_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 20, "{files:?}");
        // A bundle of several namespaces and cross-object findings in every group.
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = String::new();
        for (i, namespace) in ["a", "b", "a", "c"].iter().enumerate() {
            let text = std::fs::read_to_string(root.join("fixtures/lint/aks-aso.yaml")).unwrap();
            bundle.push_str(&text.replace("namespace: default", &format!("namespace: {namespace}")));
            bundle.push_str(&format!("---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s{i}\n  namespace: {namespace}\nstringData:\n  AZURE_CLIENT_SECRET: hunter{i}\n---\n"));
        }
        std::fs::write(dir.path().join("bundle.yaml"), &bundle).unwrap();
        files.push(dir.path().join("bundle.yaml").display().to_string());
        // A fleet in one namespace, grouped about a cluster each: findings in every cluster (no System pool in
        // one, a pool of one cluster claimed by another, a credential Secret only one names, one that most name and
        // that is there twice, a duplicate name).
        let fixture = std::fs::read_to_string(root.join("fixtures/lint/aks-aso.yaml")).unwrap();
        let mut fleet = String::new();
        for copy in 0..6 {
            let text = fixture.replace("my-cluster", &format!("c{copy}"));
            let text = match copy {
                1 => text.replace("mode: System", "mode: User"),
                2 => text.replace("spec:\n  clusterName: c2\n", "spec:\n  clusterName: c0\n"),
                3 => text.replace("aso-credentials", "c3-credentials"),
                4 => text.replace("name: c4-pool1\n", "name: c4-pool0\n"),
                _ => text,
            };
            fleet.push_str(&text);
            fleet.push_str("\n---\n");
            if copy == 2 {
                // The credential Secret most clusters name, twice: the first (lacking keys) is the one ASO reads.
                fleet.push_str("apiVersion: v1\nkind: Secret\nmetadata: {name: aso-credentials, namespace: default}\n");
                fleet.push_str("stringData: {AZURE_CLIENT_ID: x, note: c5}\n---\n");
            }
        }
        fleet.push_str("apiVersion: v1\nkind: Secret\nmetadata:\n  name: aso-credentials\n  namespace: default\n");
        fleet.push_str("  labels: {clusterctl.cluster.x-k8s.io/move: \"\"}\nstringData: {AZURE_SUBSCRIPTION_ID: a, ");
        fleet.push_str("AZURE_TENANT_ID: b, AZURE_CLIENT_ID: c, AUTH_MODE: d}\n---\n");
        fleet.push_str("apiVersion: v1\nkind: Secret\nmetadata:\n  name: c3-credentials\n  namespace: default\n");
        fleet.push_str("stringData:\n  AZURE_CLIENT_SECRET: hunter3\n");
        std::fs::write(dir.path().join("fleet.yaml"), &fleet).unwrap();
        files.push(dir.path().join("fleet.yaml").display().to_string());
        // A classic fleet in one namespace: each copy carries the same AzureClusterIdentity; patches that break,
        // change nothing or touch an owned field; a cluster whose control plane is missing; templates with patches.
        let fixture = std::fs::read_to_string(root.join("fixtures/lint/aks.yaml")).unwrap();
        let mut classic = String::new();
        for copy in 0..5 {
            let text = fixture.replace("my-cluster", &format!("k{copy}"));
            let patch = ["\"{not yaml\"", "\"{spec: {location: westeurope}}\"", "\"{spec: {azureName: x}}\""];
            let text = match copy {
                0..=2 => text.replace(
                    "  namespace: default\nspec:\n  identityRef:",
                    &format!(
                        "  namespace: default\nspec:\n  asoManagedClusterPatches: [{}]\n  identityRef:",
                        patch[copy]
                    ),
                ),
                3 => text
                    .replace("kind: AzureManagedControlPlane\nmetadata:", "kind: AzureManagedControlPlaneX\nmetadata:"),
                _ => text,
            };
            classic.push_str(&text);
            classic.push_str("\n---\n");
        }
        // Templates with patches: the pool templates are judged with the namespace's only control plane template.
        let templates = std::fs::read_to_string(root.join("fixtures/lint/aks-clusterclass.yaml")).unwrap();
        classic.push_str(
            &templates
                .replace("    spec:\n      identityRef:", "    spec:\n      asoManagedClusterPatches: [\"{spec: {dnsPrefix: x}}\"]\n      identityRef:")
                .replace("      mode: User\n", "      mode: User\n      asoManagedClustersAgentPoolPatches: [\"{spec: {count: 7}}\", \"{spec: {owner: {name: y}}}\"]\n"),
        );
        // Two templates that name nothing of each other, alone in their namespace: the pool's patch is judged with
        // the control plane's version.
        classic.push_str(
            "---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlaneTemplate\n",
        );
        classic.push_str(
            "metadata: {name: cpt, namespace: templates}\nspec:\n  template:\n    spec:\n      location: westeurope\n",
        );
        classic.push_str("      subscriptionID: 00000000-0000-0000-0000-000000000000\n      version: v1.33.2\n");
        classic.push_str("      asoManagedClusterPatches: [\"{spec: {dnsPrefix: x}}\"]\n---\n");
        classic
            .push_str("apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePoolTemplate\n");
        classic
            .push_str("metadata: {name: mpt, namespace: templates}\nspec:\n  template:\n    spec:\n      mode: User\n");
        classic.push_str("      sku: Standard_D2s_v3\n      asoManagedClustersAgentPoolPatches: [\"{spec: {orchestratorVersion: v1.33.2}}\"]\n");
        std::fs::write(dir.path().join("classic.yaml"), &classic).unwrap();
        files.push(dir.path().join("classic.yaml").display().to_string());
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let filters = [RuleFilter::default(), RuleFilter::new(&[], &["capi-v1beta1".to_string()]).unwrap()];
        for filter in &filters {
            for file in &files {
                let paths = std::slice::from_ref(file);
                let expected = whole(paths, &validator, filter);
                for batch_bytes in [1, 700, manifest::BATCH_BYTES] {
                    let streamed = validate_stream(paths, batch_bytes, &validator, filter).unwrap();
                    let got = serde_json::to_string_pretty(&streamed).unwrap() + &format_junit(&streamed);
                    assert!(got == expected, "{file} with batches of {batch_bytes} bytes differs");
                }
            }
            let expected = whole(&files, &validator, filter);
            let streamed = validate_stream(&files, 1, &validator, filter).unwrap();
            assert!(serde_json::to_string_pretty(&streamed).unwrap() + &format_junit(&streamed) == expected);
        }
    }

    /// Each CAPZ webhook referee case (833 bundles aimed at every rule's branches), one document per batch.
    #[test]
    fn streamed_reports_equal_whole_bundle_reports_on_every_webhook_case() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capz-webhooks/cases");
        let mut files = Vec::new();
        yaml_files(&root, &mut files);
        assert!(files.len() > 800, "{}", files.len());
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let filter = RuleFilter::default();
        for file in &files {
            let paths = std::slice::from_ref(file);
            let streamed = validate_stream(paths, 1, &validator, &filter).unwrap();
            let got = serde_json::to_string_pretty(&streamed).unwrap() + &format_junit(&streamed);
            assert!(got == whole(paths, &validator, &filter), "{file} differs");
        }
    }
}
