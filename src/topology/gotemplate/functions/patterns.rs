//! sprig's regular-expression functions (Go's RE2 syntax through the `regex` crate).

use super::super::GoValue;
use super::super::limits;
use super::super::value::{as_str, to_i64};
use super::support::{regex, want_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "regexMatch" => {
            want_args(name, &args, 2)?;
            V::Bool(regex(&s(&args[0])?)?.is_match(&s(&args[1])?))
        }
        "regexFind" => {
            want_args(name, &args, 2)?;
            V::Str(regex(&s(&args[0])?)?.find(&s(&args[1])?).map(|m| m.as_str().to_string()).unwrap_or_default())
        }
        "regexFindAll" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let n = to_i64(&args[2]);
            let all = re.find_iter(&text).map(|m| V::Str(m.as_str().to_string()));
            V::List(if n < 0 { all.collect() } else { all.take(n as usize).collect() })
        }
        "regexReplaceAll" | "regexReplaceAllLiteral" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let repl = s(&args[2])?;
            // Each `$1`-style reference expands to at most the whole match: bound the result first.
            let (matches, longest) = re.find_iter(&text).fold((0, 0), |(n, longest), m| (n + 1, m.len().max(longest)));
            let per_match = if name == "regexReplaceAll" { repl.len() * longest.max(1) } else { repl.len() };
            let replaced = limits::repeated_len(name, per_match.min(limits::MAX_STRING_BYTES + 1), matches)?;
            limits::check_len(name, replaced + text.len())?;
            V::Str(if name == "regexReplaceAll" {
                re.replace_all(&text, repl.as_str()).into_owned()
            } else {
                re.replace_all(&text, regex::NoExpand(&repl)).into_owned()
            })
        }
        "regexSplit" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let n = to_i64(&args[2]);
            V::List(if n < 0 {
                re.split(&text).map(|p| V::Str(p.to_string())).collect()
            } else {
                re.splitn(&text, n as usize).map(|p| V::Str(p.to_string())).collect()
            })
        }
        "regexQuoteMeta" => {
            want_args(name, &args, 1)?;
            V::Str(regex::escape(&s(&args[0])?))
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
