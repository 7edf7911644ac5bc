//! sprig's text functions: quoting, indenting, splitting, joining and converting to strings.

use super::super::GoValue;
use super::super::limits;
use super::super::printf::go_quote;
use super::super::value::{as_list, as_str, strval, to_i64};
use super::support::want_args;

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "cat",
    "indent",
    "join",
    "nindent",
    "quote",
    "replace",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "toString",
    "toStrings",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "quote" => V::Str(
            args.iter()
                .filter(|a| !matches!(a, V::Missing | V::Nil))
                .map(|a| Ok(go_quote(&strval(a)?)))
                .collect::<Result<Vec<_>, String>>()?
                .join(" "),
        ),
        "squote" => V::Str(
            args.iter()
                .filter(|a| !matches!(a, V::Missing | V::Nil))
                .map(|a| Ok(format!("'{}'", strval(a)?)))
                .collect::<Result<Vec<_>, String>>()?
                .join(" "),
        ),
        "cat" => {
            let parts = args.iter().filter(|a| !matches!(a, V::Missing | V::Nil)).map(strval);
            V::Str(parts.collect::<Result<Vec<_>, _>>()?.join(" "))
        }
        "indent" | "nindent" => {
            want_args(name, &args, 2)?;
            let spaces = usize::try_from(to_i64(&args[0]))
                .map_err(|_| format!("error calling {name}: strings: negative Repeat count"))?;
            let text = s(&args[1])?;
            let lines = text.matches('\n').count() + 1;
            let padding = limits::repeated_len(name, spaces, lines)?;
            limits::check_len(name, padding + text.len() + 1)?;
            let pad = " ".repeat(spaces);
            let indented = format!("{pad}{}", text.replace('\n', &format!("\n{pad}")));
            V::Str(if name == "nindent" { format!("\n{indented}") } else { indented })
        }
        "replace" => {
            want_args(name, &args, 3)?;
            let (old, new, text) = (s(&args[0])?, s(&args[1])?, s(&args[2])?);
            let matches = if old.is_empty() { text.chars().count() + 1 } else { text.matches(old.as_str()).count() };
            let grown = limits::repeated_len(name, new.len(), matches)?;
            limits::check_len(name, (text.len() + grown).saturating_sub(matches * old.len()))?;
            V::Str(text.replace(&old, &new))
        }
        "split" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            let text = s(&args[1])?;
            V::Map(
                text.split(sep.as_str()).enumerate().map(|(i, p)| (format!("_{i}"), V::Str(p.to_string()))).collect(),
            )
        }
        "splitList" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            V::List(s(&args[1])?.split(sep.as_str()).map(|p| V::Str(p.to_string())).collect())
        }
        "splitn" => {
            want_args(name, &args, 3)?;
            let sep = s(&args[0])?;
            let n = to_i64(&args[1]).max(0) as usize;
            let text = s(&args[2])?;
            V::Map(
                text.splitn(n, sep.as_str())
                    .enumerate()
                    .map(|(i, p)| (format!("_{i}"), V::Str(p.to_string())))
                    .collect(),
            )
        }
        "join" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            let items: Vec<String> = match &args[1] {
                V::List(l) => l.iter().map(strval).collect::<Result<_, _>>()?,
                V::Str(st) => vec![st.clone()],
                other => vec![strval(other)?],
            };
            V::Str(items.join(&sep))
        }
        "toString" => {
            want_args(name, &args, 1)?;
            V::Str(strval(&args[0])?)
        }
        "toStrings" => {
            want_args(name, &args, 1)?;
            V::List(as_list(&args[0], name)?.iter().map(|v| strval(v).map(V::Str)).collect::<Result<_, _>>()?)
        }
        "sortAlpha" => {
            want_args(name, &args, 1)?;
            let mut items: Vec<String> = as_list(&args[0], name)?.iter().map(strval).collect::<Result<_, _>>()?;
            items.sort();
            V::List(items.into_iter().map(V::Str).collect())
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
