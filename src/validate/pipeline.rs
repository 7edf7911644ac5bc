//! Documents, files and built repositories -> a [`Report`]: schema checks per document (on every core for large
//! bundles), the CAPZ rules over the whole bundle, Secret values masked.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::fast_hash::{HashMap, HashSet};
use crate::lint::{self, LintError};
use crate::manifest::{self, Document, ManifestError, READ_RULES, ReadProblem, SecretValues};
use crate::report::{Finding, Severity};
use crate::schema::validate::RULES;
use crate::schema::{ObjectStatus, Validator};
use crate::source::{FileClass, Repository, VariableFields};

use super::parallel;
use super::placeholders::Placeholders;
use super::report::{Report, ResourceResult, sort_findings};
use super::suppress::Suppressions;

/// Why a rule selection is refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RuleFilterError {
    #[error("rule `{0}` cannot be disabled; use --ignore-missing-schemas to skip objects without a schema")]
    SchemaMissing(String),
    #[error("rule `{0}` cannot be disabled: a document that cannot be read cannot be checked")]
    ReadRule(String),
    #[error("schema rules are: {schema_rules}; CAPZ rules: see `docs/rules.md`")]
    Lint {
        schema_rules: String,
        #[source]
        source: LintError,
    },
}

/// Rule ids that cannot be turned off: the reader's (text that is not objects cannot be checked)
/// and `schema-missing` (use --ignore-missing-schemas for unknown kinds).
fn always_on(id: &str) -> bool {
    id == "schema-missing" || READ_RULES.iter().any(|(known, _)| *known == id)
}

/// Which rules run: the schema rules of this module (all on by default) and the CAPZ rules of
/// [`crate::lint`] (their own defaults).
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleFilter {
    disabled: BTreeSet<String>,
    pub(crate) lint: lint::RuleSelection,
}

impl RuleFilter {
    pub(crate) fn new(disable: &[String], enable: &[String]) -> Result<Self, RuleFilterError> {
        let is_schema_rule = |id: &String| RULES.iter().any(|(known, _)| known == id);
        for id in disable.iter().chain(enable) {
            if id == "schema-missing" {
                return Err(RuleFilterError::SchemaMissing(id.clone()));
            }
            if always_on(id) {
                return Err(RuleFilterError::ReadRule(id.clone()));
            }
        }
        let lint_enable: Vec<String> = enable.iter().filter(|id| !is_schema_rule(id)).cloned().collect();
        let lint_disable: Vec<String> = disable.iter().filter(|id| !is_schema_rule(id)).cloned().collect();
        let lint = lint::RuleSelection::new(&lint_enable, &lint_disable).map_err(|source| {
            let schema_rules: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
            RuleFilterError::Lint { schema_rules: schema_rules.join(", "), source }
        })?;
        let disabled = disable.iter().filter(|id| is_schema_rule(id)).cloned().collect();
        Ok(RuleFilter { disabled, lint })
    }
    pub(crate) fn allows(&self, rule: &str) -> bool {
        !self.disabled.contains(rule)
    }
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
fn check_documents<D: std::borrow::Borrow<Document> + Sync>(
    documents: &[D],
    validator: &Validator,
    filter: &RuleFilter,
) -> Vec<(ResourceResult, Vec<Finding>)> {
    let check_chunk = |chunk: &[D]| -> Vec<(ResourceResult, Vec<Finding>)> {
        chunk.iter().map(|document| check_document(document.borrow(), validator, filter)).collect()
    };
    if documents.len() < PARALLEL_MIN_DOCUMENTS {
        return check_chunk(documents);
    }
    let threads = crate::cores::available();
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

/// Validates the manifests of `paths` a batch of documents at a time ([`manifest::stream_pieces`]): the schema part
/// holds a few batches, the CAPZ rules keep what they need ([`lint::StreamedBundle`]). The report is the one
/// [`validate_documents`] and [`Report::add_read_problems`] give for the same documents.
#[cfg(test)]
pub(crate) fn validate_stream(
    paths: &[String],
    batch_bytes: usize,
    validator: &Validator,
    filter: &RuleFilter,
) -> Result<Report, ManifestError> {
    let budget = manifest::ReadBudget::default();
    let checks = [Checks { validator, filter }];
    let mut reports = validate_sources_on_targets(paths, &[], batch_bytes, &budget, &checks)?;
    Ok(reports.pop().expect("one report per target"))
}

/// The schemas and rules of one target of a run.
#[derive(Clone, Copy)]
pub(crate) struct Checks<'a> {
    pub validator: &'a Validator<'a>,
    pub filter: &'a RuleFilter,
}

/// [`validate_stream`] over `paths`, then the built objects of `repositories` (kustomize builds, Helm renders, Flux
/// substitutions) as further batches of the same run: the CAPZ rules see every object together. Findings on fields
/// a patch set move to the patch; fields holding `${VAR}` that nothing substitutes are not judged (one info finding
/// per file says so); the repositories' warnings join the findings. Batches are read and schema-checked on every
/// core; what YAML aliases expand in them counts against `budget`, the run's (the repositories' reads count there
/// too). Against several targets at once (`validate --capz-version v1.27,v1.28`): the sources are read
/// once (what YAML aliases expand counts once against `budget`), every document is checked with each target's
/// schemas and rules; one report per target, in the order of `checks`.
pub(crate) fn validate_sources_on_targets(
    paths: &[String],
    repositories: &[Repository],
    batch_bytes: usize,
    budget: &manifest::ReadBudget,
    checks: &[Checks<'_>],
) -> Result<Vec<Report>, ManifestError> {
    let workers = if fits_one_piece(paths, batch_bytes) { 1 } else { crate::cores::available() };
    validate_sources_with_workers(paths, repositories, batch_bytes, budget, workers, checks)
}

/// Whether `paths` are regular files that together fit in one piece: then the calling thread reads and checks them
/// (starting workers, each with its own allocator arena, cost more than one piece; the report is the same).
fn fits_one_piece(paths: &[String], batch_bytes: usize) -> bool {
    let total = paths.iter().try_fold(0u64, |total, path| {
        let metadata = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(total + metadata.len())
    });
    total.is_some_and(|total| total <= batch_bytes as u64)
}

/// One batch read and schema-checked by a worker: its documents (numbered within the batch), problems, schema results
/// and what the CAPZ rules keep of it.
struct CheckedBatch {
    first_of_source: bool,
    documents: Vec<Document>,
    problems: Vec<ReadProblem>,
    /// Per target.
    checked: Vec<Vec<(ResourceResult, Vec<Finding>)>>,
    prepared: Vec<lint::PreparedDocument>,
}

/// Reads one piece and checks its documents against every target.
fn check_piece(piece: &manifest::Piece, checks: &[Checks<'_>]) -> CheckedBatch {
    let outcome = piece.read();
    let checked = checks
        .iter()
        .map(|check| {
            outcome.documents.iter().map(|document| check_document(document, check.validator, check.filter)).collect()
        })
        .collect();
    let prepared = lint::StreamedBundle::prepare(&outcome.documents);
    CheckedBatch {
        first_of_source: piece.is_first_of_source(),
        documents: outcome.documents,
        problems: outcome.problems,
        checked,
        prepared,
    }
}

/// What the batches add up to, in input order.
#[derive(Default)]
struct Collected {
    /// Per target.
    checked: Vec<Vec<(ResourceResult, Vec<Finding>)>>,
    problems: Vec<ReadProblem>,
    secrets: SecretIndex,
    bundle: lint::StreamedBundle,
    variables: VariableFields,
    placeholders: Placeholders,
    suppressions: Suppressions,
    numbering: manifest::DocumentNumbering,
}

/// Where a built document comes from: its source and line.
type Place = (Arc<str>, usize);

/// [`validate_sources_on_targets`] with `workers` threads reading and checking batches (1: all on the calling thread); the
/// report is the same whatever their number.
pub(crate) fn validate_sources_with_workers(
    paths: &[String],
    repositories: &[Repository],
    batch_bytes: usize,
    budget: &manifest::ReadBudget,
    workers: usize,
    checks: &[Checks<'_>],
) -> Result<Vec<Report>, ManifestError> {
    let repository_mode = !repositories.is_empty();
    let roots: Vec<&str> = repositories.iter().map(|repository| repository.root.as_str()).collect();
    let mut collected = Collected { checked: vec![Vec::new(); checks.len()], ..Collected::default() };
    let work = |piece: manifest::Piece| check_piece(&piece, checks);
    let consume = |batch: CheckedBatch| {
        let CheckedBatch { first_of_source, mut documents, problems, checked, mut prepared } = batch;
        let offset = collected.numbering.offset(first_of_source, documents.len());
        for document in &mut documents {
            document.origin.index += offset;
        }
        prepared.iter_mut().for_each(|document| document.shift_index(offset));
        for (all, batch) in collected.checked.iter_mut().zip(checked) {
            all.extend(batch);
        }
        collected.secrets.add(&documents);
        collected.bundle.add_prepared(prepared);
        collected.suppressions.add(&documents);
        if repository_mode {
            collected.variables.add(&documents);
            for root in &roots {
                collected.placeholders.add(&documents, root);
            }
        }
        collected.problems.extend(problems);
    };
    let streamed =
        parallel::ordered_map(workers, |give| manifest::stream_pieces(paths, batch_bytes, budget, give), work, consume);
    let mut sources = streamed?;
    let Collected {
        mut checked,
        problems,
        mut secrets,
        mut bundle,
        mut variables,
        mut placeholders,
        mut suppressions,
        ..
    } = collected;
    let mut known: HashSet<Arc<str>> = sources.iter().cloned().collect();
    // An object several builds reach from the same place with the same content (a file of a Flux path that a
    // kustomize root includes too) is one object: checked and counted once.
    let mut places: HashMap<Place, Vec<(u32, &Document)>> = HashMap::default();
    for (repository, built) in
        repositories.iter().flat_map(|repository| repository.built.iter().map(move |b| (repository, b)))
    {
        let documents = &built.documents;
        // What a GitOps object applies is applied as it is: its placeholders are values like any other.
        if built.target.is_none() {
            placeholders.add(documents, &repository.root);
        }
        let target = built
            .target
            .as_ref()
            .map(|target| (target.cluster.as_str().into(), target.namespace.as_deref().map(Into::into)));
        let unit = bundle.add_unit(lint::ApplyUnit { label: built.label.as_str().into(), target });
        let first_reached = first_reached(&mut places, documents, unit);
        for (all, check) in checked.iter_mut().zip(checks) {
            all.extend(check_documents(&first_reached, check.validator, check.filter));
        }
        secrets.add(documents);
        bundle.add_in_unit(documents, unit);
        variables.add(documents);
        suppressions.add(documents);
        for document in documents {
            if known.insert(document.origin.source.clone()) {
                sources.push(document.origin.source.clone());
            }
        }
    }
    let files = comment_files(sources.clone(), repositories);
    let everything = Gathered { problems, secrets, bundle, variables, placeholders, suppressions, sources, files };
    Ok(checked
        .into_iter()
        .zip(checks)
        .map(|(checked, check)| everything.report(checked, check, repositories))
        .collect())
}

/// What a run gathered from every source, the same for each target's report.
struct Gathered {
    problems: Vec<ReadProblem>,
    secrets: SecretIndex,
    bundle: lint::StreamedBundle,
    variables: VariableFields,
    placeholders: Placeholders,
    suppressions: Suppressions,
    /// Every source read, in reading order.
    sources: Vec<Arc<str>>,
    /// The files suppression comments are looked up in.
    files: Vec<Arc<str>>,
}

impl Gathered {
    /// One target's report from its schema results: its CAPZ rules over the bundle, the read problems, the
    /// suppressions and repository mode's last steps.
    fn report(
        &self,
        checked: Vec<(ResourceResult, Vec<Finding>)>,
        check: &Checks<'_>,
        repositories: &[Repository],
    ) -> Report {
        let lint_findings = self.bundle.check(&check.filter.lint);
        let mut report = assemble(checked, self.secrets.mask(lint_findings));
        report.add_read_problems(&self.problems, &self.sources);
        report.apply_annotation_suppressions(&self.suppressions);
        if !repositories.is_empty() {
            report.apply_repositories(repositories, &self.variables, &self.placeholders);
        }
        report.apply_comment_suppressions(self.suppressions.clone(), self.files.clone());
        report
    }
}

/// The documents of one build (apply unit `unit`) not reached before from the same place with the same content
/// by another build; each is noted in `places`.
fn first_reached<'d>(
    places: &mut HashMap<Place, Vec<(u32, &'d Document)>>,
    documents: &'d [Document],
    unit: u32,
) -> Vec<&'d Document> {
    documents
        .iter()
        .filter(|document| {
            let reached = places.entry((document.origin.source.clone(), document.origin.line)).or_default();
            let again = reached.iter().any(|(other, earlier)| *other != unit && earlier.value == document.value);
            if !again {
                reached.push((unit, document));
            }
            !again
        })
        .collect()
}

/// The files comments are looked up in: every file read, and the files findings now point at (patches, values
/// files, templates).
fn comment_files(sources: Vec<Arc<str>>, repositories: &[Repository]) -> Vec<Arc<str>> {
    let mut files = sources;
    for repository in repositories {
        let read = repository.files.iter().filter(|file| matches!(file.class, FileClass::Manifest | FileClass::Built));
        files.extend(read.map(|file| Arc::from(file.path.as_str())));
    }
    files
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
    let mut objects: HashMap<(&str, &str), Vec<usize>> = HashMap::default();
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
            // Only values are masked: the rules' messages never print a Secret's data, they name it (its name, its
            // keys) and quote what ASO says, so only the exact values are looked for.
            if let Some(values) = self.secrets.get(&key) {
                finding.message = values.mask(&finding.message, false);
            }
        }
        findings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Registry, ValidateOptions};
    use crate::validate::format_junit;

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
        let mut files: Vec<String> = ["corpus", "fixtures/lint", "fixtures/validate"]
            .iter()
            .flat_map(|dir| crate::test_files::files_under(&root.join(dir), &["yaml"]))
            .map(|path| path.display().to_string())
            .collect();
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

    /// The text and JSON reports of `paths` read and checked by `workers` threads, in batches of `batch_bytes`.
    fn reports_with_workers(paths: &[String], batch_bytes: usize, workers: usize) -> String {
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let filter = RuleFilter::default();
        let budget = manifest::ReadBudget::default();
        let report = validate_sources_with_workers(
            paths,
            &[],
            batch_bytes,
            &budget,
            workers,
            &[Checks { validator: &validator, filter: &filter }],
        )
        .unwrap()
        .pop()
        .unwrap();
        crate::validate::format_text(&report) + &serde_json::to_string_pretty(&report).unwrap()
    }

    #[test]
    fn one_worker_and_several_give_byte_identical_reports_with_broken_documents_in_the_middle() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint");
        let aso = std::fs::read_to_string(root.join("aks-aso.yaml")).unwrap();
        let classic = std::fs::read_to_string(root.join("aks.yaml")).unwrap();
        let mut fleet = String::new();
        for copy in 0..12 {
            let text = if copy % 3 == 2 { &classic } else { &aso };
            fleet.push_str(&text.replace("my-cluster", &format!("c{copy}")));
            fleet.push_str("\n---\n");
            match copy {
                // A syntax error, a duplicate key, a document that is a list, a block scalar holding `---` lines
                // (indented: not markers), a copy of an earlier object.
                3 => fleet.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n---\n"),
                5 => fleet.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  name: e\n---\n"),
                7 => fleet.push_str("- just\n- a list\n---\n"),
                8 => fleet.push_str(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: block, namespace: default}\ndata:\n  k: |\n    ---\n    x\n---\n",
                ),
                9 => fleet.push_str(&aso.replace("my-cluster", "c0").replace("mode: System", "mode: User")),
                _ => {}
            }
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fleet.yaml"), &fleet).unwrap();
        std::fs::write(dir.path().join("second.yaml"), aso.replace("my-cluster", "c1").replace("v1.", "v9.")).unwrap();
        std::fs::write(dir.path().join("z-not-utf8.yaml"), b"kind: A\n\xff\n").unwrap();
        let paths = [dir.path().display().to_string()];
        let one = reports_with_workers(&paths, 1, 1);
        assert!(one.contains("yaml-syntax") && one.contains("yaml-duplicate-key"), "{one}");
        assert!(one.contains("not-an-object") && one.contains("duplicate-object"), "{one}");
        for batch_bytes in [1, 2000, manifest::BATCH_BYTES] {
            for workers in [1, 2, 5] {
                let got = reports_with_workers(&paths, batch_bytes, workers);
                assert!(got == one, "{workers} workers, batches of {batch_bytes} bytes: the report differs");
            }
        }
    }

    /// Each CAPZ webhook referee case (833 bundles aimed at every rule's branches), one document per batch.
    #[test]
    fn streamed_reports_equal_whole_bundle_reports_on_every_webhook_case() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capz-webhooks/cases");
        let files: Vec<String> =
            crate::test_files::files_under(&root, &["yaml"]).iter().map(|path| path.display().to_string()).collect();
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
