//! Go text/template's builtin functions (`len`, `index`, `slice`, `print*`, comparisons, escapers).

use std::fmt::Write as _;

use super::super::GoValue;
use super::super::printf::{go_sprint, sprintf};
use super::super::value::{as_str, go_eq, go_lt, to_i64};
use super::support::{want_args, want_min_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "eq", "ge", "gt", "html", "index", "js", "le", "len", "lt", "ne", "not", "print", "printf", "println", "slice",
    "urlquery",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "not" => {
            want_args(name, &args, 1)?;
            V::Bool(!args[0].truthy())
        }
        "len" => {
            want_args(name, &args, 1)?;
            V::Int(match &args[0] {
                V::Str(s) => s.len() as i64,
                V::List(l) => l.len() as i64,
                V::Map(m) => m.len() as i64,
                V::Missing | V::Nil => {
                    return Err("error calling len: reflect: call of reflect.Value.Type on zero Value".into());
                }
                other => return Err(format!("error calling len: len of type {}", other.type_name())),
            })
        }
        "index" => {
            want_min_args(name, &args, 1)?;
            index(&args)?
        }
        "slice" => {
            want_min_args(name, &args, 1)?;
            slice(&args)?
        }
        "print" => V::Str(go_sprint(&args)),
        "println" => V::Str(format!("{}\n", args.iter().map(GoValue::sprint).collect::<Vec<_>>().join(" "))),
        "printf" => {
            want_min_args(name, &args, 1)?;
            V::Str(sprintf(&s(&args[0])?, &args[1..])?)
        }
        "eq" => {
            want_min_args(name, &args, 2)?;
            let mut any = false;
            for b in &args[1..] {
                if go_eq(&args[0], b)? {
                    any = true;
                    break;
                }
            }
            V::Bool(any)
        }
        "ne" => {
            want_args(name, &args, 2)?;
            V::Bool(!go_eq(&args[0], &args[1])?)
        }
        "lt" => {
            want_args(name, &args, 2)?;
            V::Bool(go_lt(&args[0], &args[1])?)
        }
        "le" => {
            want_args(name, &args, 2)?;
            V::Bool(go_lt(&args[0], &args[1])? || go_eq(&args[0], &args[1])?)
        }
        "gt" => {
            want_args(name, &args, 2)?;
            V::Bool(!(go_lt(&args[0], &args[1])? || go_eq(&args[0], &args[1])?))
        }
        "ge" => {
            want_args(name, &args, 2)?;
            V::Bool(!go_lt(&args[0], &args[1])?)
        }
        "html" => V::Str(
            go_sprint(&args)
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&#34;")
                .replace('\'', "&#39;"),
        ),
        "js" => V::Str(
            go_sprint(&args)
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
                .replace('"', "\\\"")
                .replace('<', "\\u003C")
                .replace('>', "\\u003E"),
        ),
        "urlquery" => V::Str(url_query_escape(&go_sprint(&args))),
        // ---- sprig strings
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

/// `index`: the item of a list, byte of a string or value of a map at each index in turn.
fn index(args: &[GoValue]) -> Result<GoValue, String> {
    use GoValue as V;
    let mut v = args[0].clone();
    for idx in &args[1..] {
        v = match (&v, idx) {
            (V::List(l), V::Int(_) | V::Float(_)) => {
                let i = to_i64(idx);
                if i < 0 || i as usize >= l.len() {
                    return Err(format!("error calling index: index out of range: {i}"));
                }
                l[i as usize].clone()
            }
            (V::Str(st), V::Int(i)) => {
                let b = st
                    .as_bytes()
                    .get(*i as usize)
                    .ok_or_else(|| format!("error calling index: index out of range: {i}"))?;
                V::Int(*b as i64)
            }
            (V::Map(m), V::Str(k)) => m.get(k).unwrap_or(V::Nil),
            (V::Missing | V::Nil, _) => return Err("error calling index: index of untyped nil".into()),
            (other, _) => {
                return Err(format!("error calling index: cannot index slice/array with type {}", idx.type_name())
                    .replace("slice/array", if matches!(other, V::Map(_)) { "map" } else { "slice/array" }));
            }
        };
    }
    Ok(v)
}

/// sprig's `slice`, which replaces Go's builtin: lists only.
fn slice(args: &[GoValue]) -> Result<GoValue, String> {
    use GoValue as V;
    let idx: Vec<i64> = args[1..].iter().map(to_i64).collect();
    Ok(match &args[0] {
        V::Str(_) => return Err("error calling slice: list should be type of slice or array but string".into()),
        V::List(l) => {
            let bound = |i: Option<&i64>, default: usize| match i {
                None => Some(default),
                Some(&i) => usize::try_from(i).ok(),
            };
            let range = bound(idx.first(), 0).zip(bound(idx.get(1), l.len()));
            let items = range.and_then(|(lo, hi)| l.get(lo..hi));
            V::List(items.ok_or("error calling slice: reflect.Value.Slice: slice index out of bounds")?.to_vec())
        }
        other => return Err(format!("error calling slice: can't slice item of type {}", other.type_name())),
    })
}

/// Go's `url.QueryEscape`.
fn url_query_escape(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            other => {
                let _ = write!(out, "%{other:02X}");
            }
        }
    }
    out
}
