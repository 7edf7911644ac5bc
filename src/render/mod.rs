//! Rendering: the minijinja engine over embedded flavors and ClusterClasses, and clusterctl templates.

pub mod clusterctl;
pub mod engine;
pub mod envsubst;
pub mod flavors;
pub mod from_template;
pub mod out_dir;

pub use engine::{Engine, TemplateSource, merge_patch};
pub use flavors::{CapiVersion, Flavor, load_flavor, render_flavor};

/// Errors finding or rendering templates.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The flavor is not embedded nor in `--flavor-dir`.
    #[error("unknown flavor `{name}`{}; available flavors: {}", suggestion(.name, .known), .known.join(", "))]
    UnknownFlavor { name: String, known: Vec<String> },
    /// A template failed: syntax, undefined value, `fail(...)`, a bad overlay.
    #[error("template {template}{}: {message}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Template { template: String, line: Option<usize>, message: String },
    /// A template rendered text that is not YAML objects.
    #[error("template {template} rendered invalid YAML: {message}")]
    BadOutput { template: String, message: String },
    /// A flavor's `flavor.yaml` is missing or malformed.
    #[error("flavor {flavor}: {message}")]
    Metadata { flavor: String, message: String },
}

fn suggestion(name: &str, known: &[String]) -> String {
    crate::suggest::closest(name, known.iter().map(String::as_str))
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}
