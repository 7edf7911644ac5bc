//! A Go `text/template` subset with the hermetic sprig functions, as CAPI runs ClusterClass
//! `valueFrom.template` and `enabledIf` (`template.New("tpl").Funcs(sprig.HermeticTxtFuncMap())`).
//!
//! Supported: text and actions with `{{-`/`-}}` trimming and comments, pipelines, `.` field chains
//! (`.builtin.cluster.name`), variables (`$`, `$x := ...`, `$x = ...`), parenthesised pipelines,
//! `if/else if/else`, `range` (lists, maps in key order, integers, `break`/`continue`),
//! `with/else`, `define`/`template`/`block`, Go's builtin functions (and, or, not, len, index,
//! slice, print, printf, println, eq, ne, lt, le, gt, ge, urlquery, html, js) and the common
//! sprig functions (see [`FUNCTIONS`]). Values follow Go: JSON numbers are float64, literals are
//! int or float64, a missing map key prints `<no value>`, comparisons of int with float64 fail.

mod exec;
mod functions;
mod lexer;
pub mod limits;
mod parser;
mod printf;
#[cfg(test)]
mod tests;
mod value;

pub use functions::FUNCTIONS;
pub(crate) use functions::go_lossy;
pub use parser::{Options, Template};
pub use printf::sprintf;
pub use value::{GoMap, GoValue, format_float_g};

/// An error from parsing or executing a template, with Go's message format.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct TemplateError {
    pub message: String,
}

fn parse_error(name: &str, line: usize, msg: impl std::fmt::Display) -> TemplateError {
    TemplateError { message: format!("template: {name}:{line}: {msg}") }
}

/// Parses and executes `src` as CAPI does for a patch value: name "tpl", the hermetic sprig
/// functions, `data` as dot.
pub fn render(src: &str, data: &GoValue) -> Result<String, TemplateError> {
    Template::parse("tpl", src)?.execute(data)
}
