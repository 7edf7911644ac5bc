//! sprig's list functions.

use super::super::GoValue;
use super::super::value::{as_list, float_to_int64, is_empty, to_i64};
use super::support::{want_args, want_min_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "append", "chunk", "compact", "concat", "first", "has", "initial", "last", "list", "prepend", "push", "rest",
    "reverse", "uniq", "without",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    Ok(match name {
        "list" => V::List(args.into_iter().map(|a| if matches!(a, V::Missing) { V::Nil } else { a }).collect()),
        "first" | "last" | "rest" | "initial" | "reverse" | "uniq" | "compact" => {
            want_args(name, &args, 1)?;
            let l = as_list(&args[0], name)?;
            match name {
                "first" => l.first().cloned().unwrap_or(V::Nil),
                "last" => l.last().cloned().unwrap_or(V::Nil),
                "rest" => V::List(l.iter().skip(1).cloned().collect()),
                "initial" => V::List(l[..l.len().saturating_sub(1)].to_vec()),
                "reverse" => V::List(l.into_iter().rev().collect()),
                "uniq" => {
                    let mut out: Vec<GoValue> = Vec::new();
                    for item in l {
                        if !out.contains(&item) {
                            out.push(item);
                        }
                    }
                    V::List(out)
                }
                _ => V::List(l.into_iter().filter(|v| !is_empty(v)).collect()),
            }
        }
        "append" | "push" => {
            want_args(name, &args, 2)?;
            let mut l = as_list(&args[0], name)?;
            l.push(args[1].clone());
            V::List(l)
        }
        "prepend" => {
            want_args(name, &args, 2)?;
            let mut l = as_list(&args[0], name)?;
            l.insert(0, args[1].clone());
            V::List(l)
        }
        "concat" => {
            let mut out = Vec::new();
            for a in &args {
                out.extend(as_list(a, name)?);
            }
            V::List(out)
        }
        "without" => {
            want_min_args(name, &args, 1)?;
            let l = as_list(&args[0], name)?;
            V::List(l.into_iter().filter(|v| !args[1..].contains(v)).collect())
        }
        "has" => {
            want_args(name, &args, 2)?;
            V::Bool(as_list(&args[1], name)?.contains(&args[0]))
        }
        // ---- sprig dicts
        "chunk" => {
            want_args(name, &args, 2)?;
            // sprig's arithmetic, including its panics (make with a negative length) for sizes < 1.
            let size = to_i64(&args[0]);
            let list = as_list(&args[1], name)?;
            let makeslice = || "error calling chunk: runtime error: makeslice: len out of range".to_string();
            let count = float_to_int64(((list.len() as f64 - 1.0) / size as f64).floor() + 1.0);
            if size == 0 || count < 0 {
                return Err(makeslice());
            }
            let mut chunks = Vec::new();
            for i in 0..count {
                let mut width = size;
                if i == count - 1 {
                    width = float_to_int64((list.len() as f64 % size as f64).floor());
                    if width == 0 {
                        width = size;
                    }
                }
                let (Ok(width), Ok(start)) = (usize::try_from(width), usize::try_from(i.saturating_mul(size))) else {
                    return Err(makeslice());
                };
                let items = list.get(start..).unwrap_or_default();
                chunks.push(V::List(items.iter().take(width).cloned().collect()));
            }
            V::List(chunks)
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
