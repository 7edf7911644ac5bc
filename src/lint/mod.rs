//! Rules that no schema expresses, each mirroring a CAPZ webhook or mutator function (or the AKS, ASO or CAPI
//! behaviour behind a later rejection; the id prefix says who rejects).
//!
//! [`rules()`] lists every rule with its stable id, severity, who rejects and the function it mirrors;
//! [`check`] runs the selected rules over a bundle of documents and returns findings in input order.
//! Cross-object rules match objects by namespace and name (see [`bundle`]).

pub mod aks_versions;
mod aso_patches;
mod aso_resources;
mod bundle;
mod capi_webhooks;
mod cluster_identity;
mod control_plane;
mod credentials;
mod deprecated;
mod duplicates;
mod go_net;
mod mutators;
mod names;
mod network;
mod packed_value;
mod pool_config;
mod pools;
mod profiles;
mod refs;
mod rules;
mod ssh_key;
mod stream;
pub mod update;
mod update_path;
mod version;
mod work;

#[cfg(test)]
mod test_support;

use std::collections::BTreeSet;

use crate::manifest::Document;
use crate::report::Finding;
use crate::target_schemas::TargetSchemas;

use bundle::Bundle;
pub use duplicates::ApplyUnit;
use rules::{AKS_TWINS, RENAMED, RULES};
pub use rules::{Rejecter, RuleInfo};
pub use stream::{PreparedDocument, StreamedBundle};
pub use work::Work;

/// Whether `doc` is a CAPI v1beta1 object (the subject of the off-by-default rule `capi-v1beta1`).
pub fn is_capi_v1beta1(doc: &crate::manifest::Document) -> bool {
    deprecated::is_capi_v1beta1(doc)
}

/// Every CAPZ rule, in the order of `docs/rules.md`.
pub fn rules() -> &'static [RuleInfo] {
    RULES
}

fn rule_info(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|rule| rule.id == id)
}

/// Errors in the rule selection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LintError {
    /// `--enable`/`--disable` named a rule that does not exist.
    #[error("{flag} {id}: unknown rule{}", did_you_mean(.suggestion))]
    UnknownRule { flag: &'static str, id: String, suggestion: Option<&'static str> },
}

fn did_you_mean(suggestion: &Option<&'static str>) -> String {
    match suggestion {
        Some(id) => format!(" (did you mean `{id}`?)"),
        None => " (`kubectl capz validate --help` and docs/rules.md list the rules)".to_string(),
    }
}

/// Which rules run: the defaults, plus `--enable`, minus `--disable` (disable wins); and the schemas of the CAPZ
/// release whose translation and ASO schemas the patch rules use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSelection {
    enabled: BTreeSet<&'static str>,
    schemas: &'static TargetSchemas,
    /// The day the AKS support rules judge versions on; without one they judge only what no date changes.
    on: Option<crate::aks_versions::Date>,
    /// What AKS offers in the clusters' region (`--aks-versions FILE`), when given.
    region: Option<&'static crate::aks_versions::RegionVersions>,
}

impl Default for RuleSelection {
    fn default() -> Self {
        RuleSelection {
            enabled: RULES.iter().filter(|rule| rule.enabled_by_default).map(|rule| rule.id).collect(),
            schemas: TargetSchemas::builtin(crate::versions::default_target()),
            on: None,
            region: None,
        }
    }
}

impl RuleSelection {
    /// The default rules, plus `enable`, minus `disable`. Unknown ids are an error that suggests the
    /// closest known id.
    pub fn new(enable: &[String], disable: &[String]) -> Result<Self, LintError> {
        let mut selection = RuleSelection::default();
        for id in enable {
            selection.enabled.extend(known_ids("--enable", id)?);
        }
        for id in disable {
            for id in known_ids("--disable", id)? {
                selection.enabled.remove(id);
            }
        }
        Ok(selection)
    }

    /// Every rule, including those off by default.
    pub fn all() -> Self {
        RuleSelection { enabled: RULES.iter().map(|rule| rule.id).collect(), ..RuleSelection::default() }
    }

    /// The same rules, for the management cluster of `target` (with the newest bundled Kubernetes release).
    pub fn with_target(self, target: &'static crate::versions::Target) -> Self {
        self.with_schemas(TargetSchemas::builtin(target))
    }

    /// The same rules, with the schemas of a run's target.
    pub fn with_schemas(self, schemas: &'static TargetSchemas) -> Self {
        RuleSelection { schemas, ..self }
    }

    /// The same rules, judging AKS version support on day `on` (`validate --at`, or the run's date).
    pub fn on_date(self, on: crate::aks_versions::Date) -> Self {
        RuleSelection { on: Some(on), ..self }
    }

    /// The day AKS version support is judged on, if any.
    pub fn date(&self) -> Option<crate::aks_versions::Date> {
        self.on
    }

    /// The same rules, judging versions also by what AKS offers in the clusters' region (`--aks-versions FILE`).
    pub fn with_region(self, region: Option<&'static crate::aks_versions::RegionVersions>) -> Self {
        RuleSelection { region, ..self }
    }

    /// The CAPZ release the rules check against.
    pub fn target(&self) -> &'static crate::versions::Target {
        self.schemas.target()
    }

    /// The schemas of that release, with what the rules build from them.
    pub fn schemas(&self) -> &'static TargetSchemas {
        self.schemas
    }

    /// Whether the rule with this id runs.
    pub fn is_enabled(&self, id: &str) -> bool {
        self.enabled.contains(id)
    }
}

/// The rule ids `id` names: itself, or what a former id became.
fn known_ids(flag: &'static str, id: &str) -> Result<Vec<&'static str>, LintError> {
    let trimmed = id.trim();
    if let Some(rule) = rule_info(trimmed) {
        return Ok(vec![rule.id]);
    }
    if let Some((_, ids)) = RENAMED.iter().find(|(old, _)| *old == trimmed) {
        return Ok(ids.to_vec());
    }
    let suggestion = crate::suggest::closest(trimmed, RULES.iter().map(|rule| rule.id));
    Err(LintError::UnknownRule { flag, id: id.to_string(), suggestion })
}

/// Runs the selected rules over the documents. Findings come in input order: by document, then line,
/// rule id and JSON pointer.
/// An object defined several times in one file with different content is reported (`duplicate-object`) and each
/// copy is judged with the objects of its own file or directory (see [`duplicates`]); findings then come by file and
/// line.
pub fn check(documents: &[Document], selection: &RuleSelection) -> Vec<Finding> {
    check_counting(documents, selection, &Work::default())
}

/// [`check`], counting what the rules did into `work`.
pub fn check_counting(documents: &[Document], selection: &RuleSelection, work: &Work) -> Vec<Finding> {
    let keys: Vec<_> = documents.iter().map(|document| duplicates::ObjectKey::of(&document.value)).collect();
    let keys: Vec<_> = keys.iter().map(Option::as_ref).collect();
    let sources: Vec<&str> = documents.iter().map(|document| &*document.origin.source).collect();
    let same = |a: usize, b: usize| documents[a].value == documents[b].value;
    let duplicates = duplicates::Duplicates::find(&keys, &sources, duplicates::Units::default(), same);
    if duplicates.splits() {
        // Judged scope by scope, as the streamed rules judge groups of related documents.
        let mut streamed = StreamedBundle::default();
        streamed.add(documents);
        let mut findings = streamed.check_counting(selection, work);
        findings.sort_by(|a, b| {
            (&a.source, a.line, &a.rule, &a.path, &a.message).cmp(&(&b.source, b.line, &b.rule, &b.path, &b.message))
        });
        findings.dedup();
        return findings;
    }
    let mut sink = Sink { selection, documents, found: Vec::new(), work };
    duplicates::report_sets(&mut sink, &duplicates, |index| index);
    check_bundle_rules(documents, &mut sink);
    aso_patches::check(documents, &mut sink);
    let mut findings = sink.finish();
    aso_patches::drop_reported_causes(&mut findings);
    findings
}

/// The rules that relate objects only within a namespace (or through a reference that names another namespace,
/// or from an object without one): every rule but the ASO patch rules.
fn check_bundle_rules(documents: &[Document], sink: &mut Sink<'_>) {
    let bundle = Bundle::new(documents);
    version::check(&bundle, sink);
    names::check(&bundle, sink);
    pools::check(&bundle, sink);
    aso_resources::check(&bundle, sink);
    mutators::check(&bundle, sink);
    refs::check(&bundle, sink);
    credentials::check(&bundle, sink);
    cluster_identity::check(&bundle, sink);
    network::check(&bundle, sink);
    update_path::check(&bundle, sink);
    profiles::check(&bundle, sink);
    control_plane::check(&bundle, sink);
    pool_config::check(&bundle, sink);
    deprecated::check(&bundle, sink);
    capi_webhooks::check(&bundle, sink);
    aks_versions::check(&bundle, sink);
}

/// Collects findings of enabled rules, keyed for a deterministic order.
pub(crate) struct Sink<'a> {
    selection: &'a RuleSelection,
    documents: &'a [Document],
    found: Vec<(usize, Finding)>,
    /// The run's counts.
    work: &'a Work,
}

impl Sink<'_> {
    /// The day AKS version support is judged on, if the run has one.
    pub(crate) fn date(&self) -> Option<crate::aks_versions::Date> {
        self.selection.on
    }

    /// What AKS offers in the clusters' region, if the run was given it.
    pub(crate) fn region(&self) -> Option<&'static crate::aks_versions::RegionVersions> {
        self.selection.region
    }

    /// Whether any of these rules (or their `aks-*` twins) is enabled (lets a check skip work).
    pub(crate) fn wants(&self, ids: &[&str]) -> bool {
        ids.iter()
            .any(|id| self.selection.is_enabled(id) || aks_twin(id).is_some_and(|t| self.selection.is_enabled(t.twin)))
    }

    /// Records a finding of rule `id` on document `doc` at JSON pointer `pointer`. A CAPZ webhook rule's finding
    /// inside an ASO object embedded in `spec.resources` goes to its `aks-*` twin: no CAPZ webhook checks those
    /// objects; a twin without AKS documentation behind it says what AKS does.
    pub(crate) fn emit(&mut self, id: &'static str, doc: usize, pointer: &str, message: String) {
        self.emit_as(id, None, doc, pointer, message);
    }

    /// [`Sink::emit`] with a severity below the rule's own (a rule whose findings are errors or warnings by what
    /// they find); `None` keeps the rule's.
    pub(crate) fn emit_as(
        &mut self,
        id: &'static str,
        severity: Option<crate::report::Severity>,
        doc: usize,
        pointer: &str,
        message: String,
    ) {
        let embedded = pointer.starts_with("/spec/resources/") || pointer.starts_with("/spec/template/spec/resources/");
        let (id, message) = match aks_twin(id) {
            Some(twin) if embedded => match twin.aks_note {
                Some(note) => (twin.twin, format!("{message} ({note})")),
                None => (twin.twin, message),
            },
            _ => (id, message),
        };
        if !self.selection.is_enabled(id) {
            return;
        }
        let Some(info) = rule_info(id) else { return };
        let document = &self.documents[doc];
        self.found.push((
            doc,
            Finding {
                rule: id.to_string(),
                severity: severity.unwrap_or(info.severity),
                source: document.origin.source.to_string(),
                line: document.line_of(pointer),
                column: None,
                object: document.display_name(),
                path: pointer.to_string(),
                message,
            },
        ));
    }

    fn finish(mut self) -> Vec<Finding> {
        self.found.sort_by(|(doc_a, a), (doc_b, b)| {
            (doc_a, a.line, &a.rule, &a.path, &a.message).cmp(&(doc_b, b.line, &b.rule, &b.path, &b.message))
        });
        self.found.dedup_by(|(doc_a, a), (doc_b, b)| doc_a == doc_b && a == b);
        self.found.into_iter().map(|(_, finding)| finding).collect()
    }
}

fn aks_twin(id: &str) -> Option<&'static rules::AksTwin> {
    AKS_TWINS.iter().find(|twin| twin.capz == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Severity;

    #[test]
    fn rule_ids_are_unique_kebab_case_and_prefixed() {
        let mut seen = BTreeSet::new();
        let pattern = regex::Regex::new("^(capz|aks|aso|capi|clusterctl|gitops)-[a-z0-9]+(-[a-z0-9]+)*$").unwrap();
        let plain = regex::Regex::new("^[a-z0-9]+(-[a-z0-9]+)*$").unwrap();
        for rule in rules() {
            // Nobody rejects a duplicate object (kubectl apply keeps the last copy): its id has no rejecter prefix.
            match rule.rejected_by {
                Rejecter::KubectlApply => assert!(plain.is_match(rule.id), "{} is not kebab-case", rule.id),
                _ => assert!(pattern.is_match(rule.id), "{} is not kebab-case with a rejecter prefix", rule.id),
            }
            let capz_rejects = matches!(
                rule.rejected_by,
                Rejecter::CapzCreate
                    | Rejecter::CapzLabelled
                    | Rejecter::CapzFirstUpdate
                    | Rejecter::CapzUpdate
                    | Rejecter::CapzTemplateInstance
                    | Rejecter::CapzMutator
            );
            if rule.id.starts_with("capz-") && rule.severity == Severity::Error {
                assert!(capz_rejects, "{}: a capz-* error must be a CAPZ webhook or mutator rejection", rule.id);
            }
            if rule.id.starts_with("aks-") {
                assert!(
                    matches!(rule.rejected_by, Rejecter::Aks | Rejecter::AksUndocumented | Rejecter::AksUpdate),
                    "{}",
                    rule.id
                );
            }
            if rule.id.starts_with("gitops-") {
                assert_eq!(rule.rejected_by, Rejecter::GitopsPrune, "{}", rule.id);
            }
            if rule.rejected_by == Rejecter::AksUndocumented {
                assert_eq!(rule.severity, Severity::Warning, "{}: nothing documented rejects it", rule.id);
            }
            assert!(seen.insert(rule.id), "{} is listed twice", rule.id);
            assert!(!rule.mirrors.is_empty() && !rule.summary.is_empty(), "{} lacks text", rule.id);
        }
    }

    #[test]
    fn selection_defaults_enable_and_disable() {
        let default = RuleSelection::new(&[], &[]).unwrap();
        assert!(default.is_enabled("aks-system-pool-required"));
        assert!(!default.is_enabled("capi-v1beta1"));

        let changed = RuleSelection::new(&["capi-v1beta1".into()], &["aks-system-pool-required".into()]).unwrap();
        assert!(changed.is_enabled("capi-v1beta1"));
        assert!(!changed.is_enabled("aks-system-pool-required"));

        let renamed = RuleSelection::new(&["capz-capi-v1beta1".into()], &["capz-system-pool-required".into()]).unwrap();
        assert!(renamed.is_enabled("capi-v1beta1"), "former ids still work");
        assert!(!renamed.is_enabled("aks-system-pool-required"));

        let both = RuleSelection::new(&["capz-dns-prefix".into()], &["capz-dns-prefix".into()]).unwrap();
        assert!(!both.is_enabled("capz-dns-prefix"), "disable wins over enable");
    }

    #[test]
    fn unknown_rule_suggests_the_closest_id() {
        let err = RuleSelection::new(&[], &["aks-system-pool-requird".into()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--disable aks-system-pool-requird: unknown rule (did you mean `aks-system-pool-required`?)"
        );
        let err = RuleSelection::new(&["zzz".into()], &[]).unwrap_err();
        assert!(err.to_string().starts_with("--enable zzz: unknown rule (`kubectl capz validate --help`"), "{err}");
    }
}
