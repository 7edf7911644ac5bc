//! The validation library: a run's report, the pipeline that checks documents and repositories, and the sources it reads.

mod aso_crds;
mod format;
mod parallel;
mod pipeline;
mod report;
mod sources;

pub(crate) use aso_crds::declared_aso_crds;
pub(crate) use format::{format_junit, format_summary, format_text, write_text};
pub(crate) use pipeline::{RuleFilter, validate_documents, validate_sources};
pub(crate) use report::Report;
pub(crate) use sources::read_sources;
