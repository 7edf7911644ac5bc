//! The parameter model of the flavors: typed, defaulted, merged from env, values files and --set.

mod check;
mod model;
mod patches;
mod sources;
mod table;

use std::fmt;

pub use check::{Requirement, fallback_of, resolve};
pub use model::*;
pub use patches::check_rendered_patches;
pub use sources::{
    ENV_ALIASES, InlineValues, Inputs, Layered, Source, display_path, env_alias, merge, parse_path, pointer_of,
    set_value,
};
pub use table::{ParamRow, param_rows};

use crate::manifest::ManifestError;

/// One problem with one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted parameter path, e.g. `pools[0].replicas`.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// Where the value came from (`values.yaml:12`, `--set ...`, `env NAME`), if it was given.
    pub source: Option<String>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)?;
        if let Some(source) = &self.source {
            write!(f, " (from {source})")?;
        }
        Ok(())
    }
}

/// A required parameter that no source set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// Dotted parameter path (`pools[].vmSize` when several pools lack it).
    pub path: String,
    /// Other ways to set it: env aliases and fallback parameters.
    pub hint: String,
}

/// Errors reading, merging or checking parameters.
#[derive(Debug, thiserror::Error)]
pub enum ParamsError {
    /// A values file could not be read.
    #[error("cannot read values file `{path}`")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A values file is not valid YAML (`file:line:col: message`).
    #[error(transparent)]
    Syntax(#[from] ManifestError),
    /// A values file is not a mapping.
    #[error("{path}: a values file must be a mapping of parameters")]
    NotAMapping { path: String },
    /// A `--set` argument is malformed.
    #[error("--set {arg}: {message}")]
    Set { arg: String, message: String },
    /// Unknown keys, wrong types, invalid values.
    #[error("{}", render_problems(.0))]
    Invalid(Vec<Problem>),
    /// Required parameters that nothing set, all of them.
    #[error("{}", render_missing(.0))]
    Missing(Vec<Missing>),
    /// A bug: the merged values could not be read back into the model.
    #[error("internal error: {0}")]
    Internal(String),
}

fn render_problems(problems: &[Problem]) -> String {
    if let [one] = problems {
        return format!("invalid parameter {one}");
    }
    let mut out = format!("{} invalid parameters:", problems.len());
    for problem in problems {
        out.push_str(&format!("\n  - {problem}"));
    }
    out
}

fn render_missing(missing: &[Missing]) -> String {
    let mut out = format!(
        "missing required parameter{} (set them in a values file, with --set, or with the environment variables shown):",
        if missing.len() == 1 { "" } else { "s" }
    );
    for m in missing {
        out.push_str(&format!("\n  - {}", m.path));
        if !m.hint.is_empty() {
            out.push_str(&format!(" ({})", m.hint));
        }
    }
    out
}
