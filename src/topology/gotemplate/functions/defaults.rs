//! sprig's defaults and flow functions (`default`, `empty`, `coalesce`, `ternary`, `fail` …).

use super::super::GoValue;
use super::super::value::{as_str, is_empty};
use super::support::{want_args, want_min_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &["all", "any", "coalesce", "default", "empty", "fail", "ternary"];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "default" => {
            want_min_args(name, &args, 1)?;
            if args.len() == 1 || is_empty(&args[1]) { args[0].clone() } else { args[1].clone() }
        }
        "empty" => {
            want_args(name, &args, 1)?;
            V::Bool(is_empty(&args[0]))
        }
        "coalesce" => args.iter().find(|a| !is_empty(a)).cloned().unwrap_or(V::Nil),
        "all" => V::Bool(args.iter().all(|a| !is_empty(a))),
        "any" => V::Bool(args.iter().any(|a| !is_empty(a))),
        "ternary" => {
            want_args(name, &args, 3)?;
            let cond = match &args[2] {
                V::Bool(b) => *b,
                other => return Err(format!("wrong type for value; expected bool; got {}", other.type_name())),
            };
            if cond { args[0].clone() } else { args[1].clone() }
        }
        "fail" => {
            want_args(name, &args, 1)?;
            return Err(format!("error calling fail: {}", s(&args[0])?));
        }
        // ---- sprig lists
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
