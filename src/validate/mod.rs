//! The validation library: a run's report, the pipeline that checks documents and repositories, and the sources it reads.

mod aso_crds;
mod format;
mod parallel;
mod pipeline;
mod placeholders;
mod report;
mod sources;
mod stored;
mod suppress;
mod targets;

pub(crate) use aso_crds::declared_aso_crds;
pub(crate) use format::{format_finding, format_junit, format_not_built, format_summary, format_text, write_text};
pub(crate) use pipeline::{Checks, RuleFilter, validate_documents, validate_sources_on_targets};
pub use placeholders::PLACEHOLDER_RULE;
pub(crate) use report::Report;
pub(crate) use sources::{read_sources, repository_options};
pub(crate) use stored::ratchet_report;
pub use stored::{StoredPairs, transition_findings};
pub(crate) use suppress::SuppressedFinding;
pub use suppress::{IGNORE_ANNOTATION, REPOSITORY_RULES, SUPPRESSION_RULE};
pub(crate) use targets::{TargetedReport, merge as merge_targets};
