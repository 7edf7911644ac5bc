//! A validation run's report: the verdict on each object, the findings and their counts.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::exit::ExitStatus;
use crate::manifest::ReadProblem;
use crate::report::{Finding, Severity};
use crate::schema::ObjectStatus;
use crate::source::{FileClass, FileEntry, NotBuilt, Repository, VariableFields};

use super::placeholders::Placeholders;
use super::suppress::{SuppressedFinding, Suppressions};

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
    /// Sources of a repository that were not built, so their objects are not checked (repository mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_built: Option<usize>,
    /// Findings a suppression in the repository silences (not counted above).
    #[serde(skip_serializing_if = "is_zero")]
    pub suppressed: usize,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// Everything a run found, sorted by file and line.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Report {
    pub findings: Vec<Finding>,
    /// Findings a `# kubectl-capz: ignore` comment or a `kubectl-capz.io/ignore` annotation silences, with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<SuppressedFinding>,
    pub resources: Vec<ResourceResult>,
    pub summary: Summary,
    /// Every YAML and JSON file of the repositories and what was done with it (repository mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileEntry>>,
    /// The sources of the repositories that were not built (repository mode only).
    #[serde(rename = "notBuilt", skip_serializing_if = "Option::is_none")]
    pub not_built: Option<Vec<NotBuilt>>,
}

impl Report {
    pub(crate) fn exit_status(&self) -> ExitStatus {
        if self.summary.errors > 0 { ExitStatus::Findings } else { ExitStatus::Success }
    }

    /// Adds findings from outside the validation of the documents (a change review's), in their place, and counts
    /// them.
    pub(crate) fn add_findings(&mut self, findings: Vec<Finding>) {
        self.findings.extend(findings);
        sort_findings(&mut self.findings);
        self.count();
    }

    /// Recomputes the summary from the resources and findings.
    pub(super) fn count(&mut self) {
        let summary = &mut self.summary;
        *summary = Summary { not_manifests: summary.not_manifests, not_built: summary.not_built, ..Summary::default() };
        summary.resources = self.resources.len();
        summary.suppressed = self.suppressed.len();
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
    /// Repository mode's last steps: patch file:lines, `${VAR}` and example placeholder fields left out, the
    /// repositories' warnings and the list of files.
    pub(super) fn apply_repositories(
        &mut self,
        repositories: &[Repository],
        variables: &VariableFields,
        placeholders: &Placeholders,
    ) {
        for repository in repositories {
            repository.trace_values(&mut self.findings);
            repository.note_substitutions(&mut self.findings);
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
        if !placeholders.is_empty() {
            placeholders.suppress(&mut self.findings);
            for resource in &mut self.resources {
                placeholders.suppress(&mut resource.errors);
                if resource.status == ObjectStatus::Invalid && resource.errors.is_empty() {
                    resource.status = ObjectStatus::Valid;
                }
            }
            self.findings.extend(placeholders.notes());
        }
        // Fleet bundles' targets were validated as units of their own: back to the user's files.
        for repository in repositories.iter().filter(|repository| !repository.fleet.is_empty()) {
            repository.resolve_units(&mut self.findings, true);
            for resource in &mut self.resources {
                resource.source = Repository::shown_source(&resource.source);
                repository.resolve_units(&mut resource.errors, false);
            }
        }
        let mut files = Vec::new();
        let mut not_built = Vec::new();
        for repository in repositories {
            self.findings.extend(repository.notes.iter().cloned());
            files.extend(repository.files.iter().cloned());
            not_built.extend(repository.not_built.iter().cloned());
        }
        // Values whose provenance is a Secret never show, whatever finding quotes them (a substituted field, a
        // rendered one, a name made from one).
        for mask in repositories.iter().map(|repository| &repository.secret_mask).filter(|mask| !mask.is_empty()) {
            let findings = self.findings.iter_mut().chain(self.resources.iter_mut().flat_map(|r| r.errors.iter_mut()));
            for finding in findings {
                mask.mask_in_place(&mut finding.message);
                mask.mask_in_place(&mut finding.path);
                mask.mask_in_place(&mut finding.object);
            }
            for resource in &mut self.resources {
                mask.mask_in_place(&mut resource.object);
            }
        }
        self.summary.not_manifests = Some(files.iter().filter(|f| f.class == FileClass::NotManifest).count());
        self.summary.not_built = Some(not_built.len());
        self.files = Some(files);
        self.not_built = Some(not_built);
        sort_findings(&mut self.findings);
        self.count();
    }
}

impl Report {
    /// Moves the findings a `kubectl-capz.io/ignore` annotation silences to [`Report::suppressed`] (before findings
    /// move to patches and values files: annotations are matched by the object's own file).
    pub(super) fn apply_annotation_suppressions(&mut self, suppressions: &Suppressions) {
        let before = self.suppressed.len();
        suppressions.apply_annotations(&mut self.findings, &mut self.suppressed);
        self.drop_suppressed_errors(before);
    }

    /// Moves the findings a `# kubectl-capz: ignore` comment silences (at their final file:line) to
    /// [`Report::suppressed`]; the suppressions' own errors join the findings.
    pub(super) fn apply_comment_suppressions(&mut self, suppressions: Suppressions, files: Vec<Arc<str>>) {
        let before = self.suppressed.len();
        let errors = suppressions.apply_comments(files, &mut self.findings, &mut self.suppressed);
        self.drop_suppressed_errors(before);
        self.findings.extend(errors);
        sort_findings(&mut self.findings);
        sort_suppressed(&mut self.suppressed);
        self.count();
    }

    /// The objects' errors that are findings suppressed since `from` no longer count for their verdict (matched by
    /// rule, object and field: an error's copy on the object may not have moved to a values file as the finding did).
    fn drop_suppressed_errors(&mut self, from: usize) {
        let silenced: HashSet<(&str, &str, &str)> = self.suppressed[from..]
            .iter()
            .map(|s| (s.finding.rule.as_str(), s.finding.object.as_str(), s.finding.path.as_str()))
            .collect();
        if silenced.is_empty() {
            return;
        }
        for resource in &mut self.resources {
            let before = resource.errors.len();
            resource.errors.retain(|e| !silenced.contains(&(e.rule.as_str(), e.object.as_str(), e.path.as_str())));
            if resource.errors.len() != before && resource.errors.is_empty() && resource.status == ObjectStatus::Invalid
            {
                resource.status = ObjectStatus::Valid;
            }
        }
    }
}

/// The order of a report's findings: by file, line and column, then path, rule and message.
pub(super) fn finding_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    (&a.source, a.line, a.column, &a.path, &a.rule, &a.message)
        .cmp(&(&b.source, b.line, b.column, &b.path, &b.rule, &b.message))
}

/// Findings in [`finding_order`], duplicates removed.
pub(super) fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort_by(finding_order);
    findings.dedup();
}

/// Suppressed findings by file, line, path, rule and message, duplicates removed.
pub(super) fn sort_suppressed(suppressed: &mut Vec<SuppressedFinding>) {
    suppressed.sort_by(|a, b| {
        let (a, b) = (&a.finding, &b.finding);
        (&a.source, a.line, &a.path, &a.rule, &a.message).cmp(&(&b.source, b.line, &b.path, &b.rule, &b.message))
    });
    suppressed.dedup();
}
