//! Go's builtin template functions and sprig's hermetic functions.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

use super::limits;
use super::printf::{go_quote, go_sprint, sprintf};
use super::value::{
    as_list, as_map, as_str, float_to_int64, go_eq, go_lt, holds_map, is_empty, strval, to_f64, to_i64, too_deep,
};
use super::{GoMap, GoValue};

// ---------------------------------------------------------------------------------------------
// Functions

/// Every function name the parser accepts: Go's builtins and the supported sprig functions.
pub const FUNCTIONS: &[&str] = &[
    // Go text/template builtins
    "and",
    "or",
    "not",
    "len",
    "index",
    "slice",
    "print",
    "printf",
    "println",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "html",
    "js",
    "urlquery",
    // sprig: strings
    "upper",
    "lower",
    "title",
    "untitle",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trunc",
    "repeat",
    "substr",
    "nospace",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "split",
    "splitList",
    "splitn",
    "join",
    "toString",
    "toStrings",
    "sortAlpha",
    "abbrev",
    "regexMatch",
    "regexFind",
    "regexFindAll",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "b64enc",
    "b64dec",
    "sha256sum",
    "snakecase",
    "kebabcase",
    "camelcase",
    // sprig: numbers
    "atoi",
    "int",
    "int64",
    "float64",
    "add",
    "add1",
    "sub",
    "mul",
    "div",
    "mod",
    "max",
    "min",
    "floor",
    "ceil",
    "round",
    "until",
    "untilStep",
    "seq",
    // sprig: defaults and flow
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "ternary",
    "fail",
    // sprig: lists
    "list",
    "first",
    "last",
    "rest",
    "initial",
    "append",
    "push",
    "prepend",
    "concat",
    "reverse",
    "uniq",
    "without",
    "has",
    "compact",
    // sprig: dicts
    "dict",
    "get",
    "set",
    "unset",
    "hasKey",
    "keys",
    "values",
    "pick",
    "omit",
    "merge",
    "dig",
    "pluck",
    // sprig: encoding and types
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "fromJson",
    "kindOf",
    "kindIs",
    "typeOf",
    "typeIs",
    "deepEqual",
    // sprig: semver
    "semver",
    "semverCompare",
    // sprig: more
    "mergeOverwrite",
    "deepCopy",
    "chunk",
    "tuple",
    "biggest",
    "trimall",
    "addf",
    "add1f",
    "subf",
    "mulf",
    "divf",
    "maxf",
    "minf",
    "base",
    "dir",
    "ext",
    "clean",
    "isAbs",
    "osBase",
    "osDir",
    "osExt",
    "osClean",
    "osIsAbs",
    "sha512sum",
    "adler32sum",
    "plural",
    "swapcase",
    "initials",
    "regexQuoteMeta",
    "toDecimal",
    "typeIsLike",
    "hello",
    // sprig: must* variants (errors instead of empty results)
    "mustAppend",
    "mustPush",
    "mustPrepend",
    "mustFirst",
    "mustLast",
    "mustRest",
    "mustInitial",
    "mustReverse",
    "mustUniq",
    "mustWithout",
    "mustHas",
    "mustCompact",
    "mustChunk",
    "mustDeepCopy",
    "mustMerge",
    "mustMergeOverwrite",
    "mustRegexMatch",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustFromJson",
];

/// sprig names that behave as another function here.
pub(super) fn alias(name: &str) -> &str {
    match name {
        "tuple" => "list",
        "biggest" => "max",
        "trimall" => "trimAll",
        "osBase" => "base",
        "osDir" => "dir",
        "osExt" => "ext",
        "osClean" => "clean",
        "osIsAbs" => "isAbs",
        "mustMerge" => "merge",
        "mustMergeOverwrite" => "mergeOverwrite",
        "mustDeepCopy" => "deepCopy",
        "mustChunk" => "chunk",
        "mustToJson" => "toJson",
        "mustToPrettyJson" => "toPrettyJson",
        "mustToRawJson" => "toRawJson",
        other => other
            .strip_prefix("must")
            .filter(|rest| {
                [
                    "Append",
                    "Push",
                    "Prepend",
                    "First",
                    "Last",
                    "Rest",
                    "Initial",
                    "Reverse",
                    "Uniq",
                    "Without",
                    "Has",
                    "Compact",
                    "RegexMatch",
                    "RegexFind",
                    "RegexFindAll",
                    "RegexReplaceAll",
                    "RegexReplaceAllLiteral",
                    "RegexSplit",
                ]
                .contains(rest)
            })
            .map_or(other, |_| match other {
                "mustAppend" => "append",
                "mustPush" => "push",
                "mustPrepend" => "prepend",
                "mustFirst" => "first",
                "mustLast" => "last",
                "mustRest" => "rest",
                "mustInitial" => "initial",
                "mustReverse" => "reverse",
                "mustUniq" => "uniq",
                "mustWithout" => "without",
                "mustHas" => "has",
                "mustCompact" => "compact",
                "mustRegexMatch" => "regexMatch",
                "mustRegexFind" => "regexFind",
                "mustRegexFindAll" => "regexFindAll",
                "mustRegexReplaceAll" => "regexReplaceAll",
                "mustRegexReplaceAllLiteral" => "regexReplaceAllLiteral",
                _ => "regexSplit",
            }),
    }
}

pub(super) fn deep_copy(v: &GoValue) -> Result<GoValue, String> {
    fn copy(v: &GoValue, depth: usize) -> Result<GoValue, String> {
        if depth > limits::MAX_VALUE_DEPTH {
            return Err(limits::value_too_deep());
        }
        Ok(match v {
            GoValue::Map(m) => GoValue::Map(
                m.entries().into_iter().map(|(k, v)| Ok((k, copy(&v, depth + 1)?))).collect::<Result<_, String>>()?,
            ),
            GoValue::List(l) => GoValue::List(l.iter().map(|v| copy(v, depth + 1)).collect::<Result<_, _>>()?),
            other => other.clone(),
        })
    }
    copy(v, 0)
}

/// Go's `path.Clean`.
pub(super) fn clean_path(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

pub(super) fn want_args(name: &str, args: &[GoValue], n: usize) -> Result<(), String> {
    if args.len() != n {
        return Err(format!("wrong number of args for {name}: want {n} got {}", args.len()));
    }
    Ok(())
}

pub(super) fn want_min_args(name: &str, args: &[GoValue], n: usize) -> Result<(), String> {
    if args.len() < n {
        return Err(format!("wrong number of args for {name}: want at least {n} got {}", args.len()));
    }
    Ok(())
}

pub(super) fn regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(pattern).map_err(|e| e.to_string())
}

pub(super) fn json_marshal(v: &GoValue, pretty: bool, escape_html: bool) -> Result<String, String> {
    let json = v.to_json()?;
    let text = if pretty {
        serde_json::to_string_pretty(&json).unwrap_or_default()
    } else {
        serde_json::to_string(&json).unwrap_or_default()
    };
    Ok(if escape_html { text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026") } else { text })
}

/// sprig's `semverCompare`: Masterminds constraints, approximated with the semver crate.
pub(super) fn semver_compare(constraint: &str, version: &str) -> Result<bool, String> {
    let version = semver::Version::parse(version.trim().trim_start_matches('v')).map_err(|e| format!("{e}"))?;
    for alternative in constraint.split("||") {
        let mut parts = Vec::new();
        for raw in alternative.split(',').flat_map(|p| {
            // "> 1.2 < 2" (space separated AND) -> split on whitespace between comparators
            let mut out = Vec::new();
            let mut current = String::new();
            for token in p.split_whitespace() {
                if token.chars().all(|c| "<>=!~^".contains(c)) {
                    current.push_str(token);
                    continue;
                }
                current.push_str(token);
                out.push(std::mem::take(&mut current));
            }
            out
        }) {
            let c = raw.trim();
            let c = c.replace('v', "");
            let first = c.chars().next().unwrap_or('*');
            let c = if first.is_ascii_digit() { format!("={c}") } else { c };
            let c = if let Some(rest) = c.strip_prefix("!=") {
                parts.push(format!("!{rest}"));
                continue;
            } else {
                c
            };
            parts.push(c);
        }
        let mut ok = true;
        for part in &parts {
            if let Some(neg) = part.strip_prefix('!') {
                let req = semver::VersionReq::parse(&format!("={neg}")).map_err(|e| e.to_string())?;
                if req.matches(&version) {
                    ok = false;
                }
                continue;
            }
            let req = semver::VersionReq::parse(part).map_err(|e| e.to_string())?;
            if !req.matches(&version) {
                ok = false;
            }
        }
        if ok {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Calls a function and holds its result to the engine's limits (string length, list length,
/// nesting).
pub(super) fn call_function(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    let result = call_unchecked(name, args)?;
    match &result {
        GoValue::Str(s) => limits::check_len(name, s.len())?,
        GoValue::List(items) if items.len() > limits::MAX_LIST_ITEMS => return Err(limits::list_too_long(name)),
        _ => {}
    }
    if too_deep(&result) {
        return Err(format!("{name}: {}", limits::value_too_deep()));
    }
    Ok(result)
}

fn call_unchecked(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let name = alias(name);
    if name == "mustFromJson" {
        let text = as_str(args.first().unwrap_or(&V::Missing))?;
        return serde_json::from_str::<Value>(&text)
            .map(|v| GoValue::from_json(&v))
            .map_err(|e| format!("error calling mustFromJson: {e}"));
    }
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
                        return Err(format!(
                            "error calling index: cannot index slice/array with type {}",
                            idx.type_name()
                        )
                        .replace("slice/array", if matches!(other, V::Map(_)) { "map" } else { "slice/array" }));
                    }
                };
            }
            v
        }
        "slice" => {
            want_min_args(name, &args, 1)?;
            let idx: Vec<i64> = args[1..].iter().map(to_i64).collect();
            match &args[0] {
                // sprig's `slice` replaces Go's builtin: lists only.
                V::Str(_) => return Err("error calling slice: list should be type of slice or array but string".into()),
                V::List(l) => {
                    let bound = |i: Option<&i64>, default: usize| match i {
                        None => Some(default),
                        Some(&i) => usize::try_from(i).ok(),
                    };
                    let range = bound(idx.first(), 0).zip(bound(idx.get(1), l.len()));
                    let items = range.and_then(|(lo, hi)| l.get(lo..hi));
                    V::List(
                        items.ok_or("error calling slice: reflect.Value.Slice: slice index out of bounds")?.to_vec(),
                    )
                }
                other => return Err(format!("error calling slice: can't slice item of type {}", other.type_name())),
            }
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
        "urlquery" => {
            let text = go_sprint(&args);
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
            V::Str(out)
        }
        // ---- sprig strings
        "upper" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.to_uppercase())
        }
        "lower" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.to_lowercase())
        }
        "title" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let mut out = String::new();
            let mut prev_letter = false;
            for c in text.chars() {
                if !prev_letter && c.is_alphabetic() {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
                prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
            }
            V::Str(out)
        }
        "untitle" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let mut out = String::new();
            let mut prev_space = true;
            for c in text.chars() {
                if prev_space {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
                prev_space = c.is_whitespace();
            }
            V::Str(out)
        }
        "trim" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.trim().to_string())
        }
        "trimAll" => {
            want_args(name, &args, 2)?;
            let cut = s(&args[0])?;
            V::Str(s(&args[1])?.trim_matches(|c| cut.contains(c)).to_string())
        }
        "trimPrefix" => {
            want_args(name, &args, 2)?;
            let text = s(&args[1])?;
            let prefix = s(&args[0])?;
            V::Str(text.strip_prefix(prefix.as_str()).unwrap_or(&text).to_string())
        }
        "trimSuffix" => {
            want_args(name, &args, 2)?;
            let text = s(&args[1])?;
            let suffix = s(&args[0])?;
            V::Str(text.strip_suffix(suffix.as_str()).unwrap_or(&text).to_string())
        }
        "trunc" => {
            want_args(name, &args, 2)?;
            // Go slices bytes: a cut multi-byte character prints as U+FFFD per byte, as Go's JSON does.
            let n = i128::from(to_i64(&args[0]));
            let text = s(&args[1])?;
            let len = text.len() as i128;
            V::Str(if n < 0 && len + n > 0 {
                go_lossy(&text.as_bytes()[(len + n) as usize..])
            } else if n >= 0 && len > n {
                go_lossy(&text.as_bytes()[..n as usize])
            } else {
                text
            })
        }
        "repeat" => {
            want_args(name, &args, 2)?;
            let text = s(&args[1])?;
            let count = usize::try_from(to_i64(&args[0]))
                .map_err(|_| "error calling repeat: strings: negative Repeat count".to_string())?;
            limits::repeated_len("repeat", text.len(), count)?;
            V::Str(text.repeat(count))
        }
        "substr" => {
            want_args(name, &args, 3)?;
            // sprig slices bytes, and Go panics (an error here) on bounds outside the string.
            let (start, end) = (to_i64(&args[0]), to_i64(&args[1]));
            let text = s(&args[2])?;
            let bytes = text.as_bytes();
            let len = bytes.len() as i64;
            let out_of_range =
                |msg: String| format!("error calling substr: runtime error: slice bounds out of range {msg}");
            V::Str(if start < 0 {
                if end < 0 {
                    return Err(out_of_range(format!("[:{end}]")));
                }
                if end > len {
                    return Err(out_of_range(format!("[:{end}] with length {len}")));
                }
                go_lossy(&bytes[..end as usize])
            } else if end < 0 || end > len {
                if start > len {
                    return Err(out_of_range(format!("[{start}:{len}]")));
                }
                go_lossy(&bytes[start as usize..])
            } else {
                if start > end {
                    return Err(out_of_range(format!("[{start}:{end}]")));
                }
                go_lossy(&bytes[start as usize..end as usize])
            })
        }
        "nospace" => {
            want_args(name, &args, 1)?;
            // goutils.DeleteWhiteSpace reads each byte as a rune (Latin-1), as Go's sprig does.
            V::Str(
                s(&args[0])?
                    .bytes()
                    .map(char::from)
                    .filter(|c| !matches!(c, '\t'..='\r' | ' ' | '\u{85}' | '\u{a0}'))
                    .collect(),
            )
        }
        "contains" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.contains(&s(&args[0])?))
        }
        "hasPrefix" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.starts_with(&s(&args[0])?))
        }
        "hasSuffix" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.ends_with(&s(&args[0])?))
        }
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
        "abbrev" => {
            want_args(name, &args, 2)?;
            let width = to_i64(&args[0]);
            let text = s(&args[1])?;
            // goutils.Abbreviate cuts bytes.
            V::Str(if width < 4 || text.len() as i64 <= width {
                text
            } else {
                format!("{}...", go_lossy(&text.as_bytes()[..(width - 3) as usize]))
            })
        }
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
        "b64enc" => {
            want_args(name, &args, 1)?;
            V::Str(base64::engine::general_purpose::STANDARD.encode(s(&args[0])?))
        }
        "b64dec" => {
            want_args(name, &args, 1)?;
            V::Str(match base64::engine::general_purpose::STANDARD.decode(s(&args[0])?) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => e.to_string(),
            })
        }
        "sha256sum" => {
            use sha2::Digest as _;
            want_args(name, &args, 1)?;
            let digest = sha2::Sha256::digest(s(&args[0])?.as_bytes());
            V::Str(digest.iter().map(|b| format!("{b:02x}")).collect())
        }
        "snakecase" | "kebabcase" => {
            want_args(name, &args, 1)?;
            let sep = if name == "snakecase" { '_' } else { '-' };
            let text = s(&args[0])?;
            let mut out = String::new();
            let chars: Vec<char> = text.chars().collect();
            for (i, c) in chars.iter().enumerate() {
                if c.is_uppercase() {
                    let prev_lower = i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
                    let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
                    let prev_upper = i > 0 && chars[i - 1].is_uppercase();
                    if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with(sep) {
                        out.push(sep);
                    }
                    out.extend(c.to_lowercase());
                } else if matches!(c, ' ' | '-' | '_') {
                    if !out.is_empty() && !out.ends_with(sep) {
                        out.push(sep);
                    }
                } else {
                    out.push(*c);
                }
            }
            V::Str(out)
        }
        "camelcase" => {
            want_args(name, &args, 1)?;
            V::Str(
                s(&args[0])?
                    .split(['_', ' ', '-'])
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let mut cs = p.chars();
                        cs.next().map(|f| f.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
                    })
                    .collect(),
            )
        }
        // ---- sprig numbers
        "atoi" => {
            want_args(name, &args, 1)?;
            // strconv.Atoi: out of range saturates, anything else that is not a number is 0.
            let text = s(&args[0])?;
            let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
            V::Int(match text.parse::<i64>() {
                Ok(i) => i,
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    if text.starts_with('-') {
                        i64::MIN
                    } else {
                        i64::MAX
                    }
                }
                Err(_) => 0,
            })
        }
        "int" | "int64" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]))
        }
        "float64" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]))
        }
        "add" => V::Int(args.iter().map(to_i64).fold(0, i64::wrapping_add)),
        "add1" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]).wrapping_add(1))
        }
        "sub" => {
            want_args(name, &args, 2)?;
            V::Int(to_i64(&args[0]).wrapping_sub(to_i64(&args[1])))
        }
        "mul" => V::Int(args.iter().map(to_i64).fold(1, i64::wrapping_mul)),
        "div" | "mod" => {
            want_args(name, &args, 2)?;
            let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
            if b == 0 {
                return Err("error calling ".to_string() + name + ": runtime error: integer divide by zero");
            }
            // Go: MinInt64 / -1 is MinInt64 (and % is 0), no panic.
            V::Int(if name == "div" { a.wrapping_div(b) } else { a.wrapping_rem(b) })
        }
        "max" | "min" => {
            want_min_args(name, &args, 1)?;
            let values = args.iter().map(to_i64);
            V::Int(if name == "max" { values.max().unwrap_or(0) } else { values.min().unwrap_or(0) })
        }
        "floor" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).floor())
        }
        "ceil" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).ceil())
        }
        "round" => {
            // sprig: ceil when the fraction (with its sign, from math.Modf) reaches roundOn, else floor.
            want_min_args(name, &args, 2)?;
            let round_on = args.get(2).map_or(0.5, to_f64);
            let pow = 10f64.powf(to_i64(&args[1]) as f64);
            let digit = pow * to_f64(&args[0]);
            let rounded = if digit.fract() >= round_on { digit.ceil() } else { digit.floor() };
            V::Float(rounded / pow)
        }
        "until" => {
            want_args(name, &args, 1)?;
            let n = to_i64(&args[0]);
            V::List(until_step(0, n, if n < 0 { -1 } else { 1 })?.into_iter().map(V::Int).collect())
        }
        "untilStep" => {
            want_args(name, &args, 3)?;
            let (start, stop, step) = (to_i64(&args[0]), to_i64(&args[1]), to_i64(&args[2]));
            V::List(until_step(start, stop, step)?.into_iter().map(V::Int).collect())
        }
        "seq" => {
            let nums: Vec<i64> = args.iter().map(to_i64).collect();
            let sequence = match nums.as_slice() {
                [end] => {
                    let increment = if *end < 1 { -1 } else { 1 };
                    until_step(1, end.wrapping_add(increment), increment)?
                }
                [start, end] => {
                    let step = if end < start { -1 } else { 1 };
                    until_step(*start, end.wrapping_add(step), step)?
                }
                [start, step, end] => {
                    let increment = if end < start { -1 } else { 1 };
                    if (end < start && *step > 0) || (end >= start && *step < 0) {
                        Vec::new()
                    } else {
                        until_step(*start, end.wrapping_add(increment), *step)?
                    }
                }
                _ => Vec::new(),
            };
            let text: Vec<String> = sequence.iter().map(i64::to_string).collect();
            V::Str(text.join(" "))
        }
        // ---- sprig defaults and flow
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
        "dict" => {
            let mut map = BTreeMap::new();
            for pair in args.chunks(2) {
                let key = strval(&pair[0])?;
                map.insert(key, pair.get(1).cloned().unwrap_or(V::Str(String::new())));
            }
            V::Map(GoMap::new(map))
        }
        "get" => {
            want_args(name, &args, 2)?;
            as_map(&args[0])?.get(&s(&args[1])?).unwrap_or(V::Str(String::new()))
        }
        // set, unset and merge change the map itself, as in Go.
        "set" => {
            want_args(name, &args, 3)?;
            let map = as_map(&args[0])?;
            refuse_cycle(name, &map, &args[2])?;
            map.insert(s(&args[1])?, args[2].clone());
            V::Map(map)
        }
        "unset" => {
            want_args(name, &args, 2)?;
            let map = as_map(&args[0])?;
            map.remove(&s(&args[1])?);
            V::Map(map)
        }
        "hasKey" => {
            want_args(name, &args, 2)?;
            V::Bool(as_map(&args[0])?.contains_key(&s(&args[1])?))
        }
        "keys" => {
            let mut keys = Vec::new();
            for a in &args {
                keys.extend(as_map(a)?.entries().into_iter().map(|(k, _)| V::Str(k)));
            }
            V::List(keys)
        }
        "values" => {
            want_args(name, &args, 1)?;
            V::List(as_map(&args[0])?.entries().into_iter().map(|(_, v)| v).collect())
        }
        "pick" | "omit" => {
            want_min_args(name, &args, 1)?;
            let map = as_map(&args[0])?;
            let names: Vec<String> = args[1..].iter().map(strval).collect::<Result<_, _>>()?;
            V::Map(map.entries().into_iter().filter(|(k, _)| names.contains(k) == (name == "pick")).collect())
        }
        "merge" => {
            want_min_args(name, &args, 1)?;
            let dst = as_map(&args[0])?;
            for src in &args[1..] {
                refuse_cycle(name, &dst, src)?;
                merge_maps(&dst, &as_map(src)?);
            }
            V::Map(dst)
        }
        "dig" => {
            want_min_args(name, &args, 3)?;
            let n = args.len();
            let mut current = args[n - 1].clone();
            for key in &args[..n - 2] {
                let k = s(key)?;
                current = match current {
                    V::Map(m) => match m.get(&k) {
                        Some(v) => v,
                        None => return Ok(args[n - 2].clone()),
                    },
                    _ => return Ok(args[n - 2].clone()),
                };
            }
            current
        }
        "pluck" => {
            want_min_args(name, &args, 1)?;
            let key = s(&args[0])?;
            V::List(args[1..].iter().filter_map(|m| as_map(m).ok()?.get(&key)).collect())
        }
        // ---- encoding and types
        "toJson" | "toRawJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], false, name == "toJson").map_err(|e| format!("error calling {name}: {e}"))?)
        }
        "toPrettyJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], true, true).map_err(|e| format!("error calling {name}: {e}"))?)
        }
        "fromJson" => {
            want_args(name, &args, 1)?;
            match serde_json::from_str::<Value>(&s(&args[0])?) {
                Ok(v) => GoValue::from_json(&v),
                Err(_) => V::Nil,
            }
        }
        "kindOf" => {
            want_args(name, &args, 1)?;
            V::Str(args[0].kind().to_string())
        }
        "kindIs" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[0])? == args[1].kind())
        }
        "typeOf" => {
            want_args(name, &args, 1)?;
            V::Str(args[0].type_name().to_string())
        }
        "typeIs" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[0])? == args[1].type_name())
        }
        "deepEqual" => {
            want_args(name, &args, 2)?;
            V::Bool(args[0] == args[1])
        }
        "semver" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let v = semver::Version::parse(text.trim_start_matches('v'))
                .map_err(|e| format!("error calling semver: {e}"))?;
            let map = GoMap::default();
            map.insert("Major".to_string(), V::Int(v.major as i64));
            map.insert("Minor".to_string(), V::Int(v.minor as i64));
            map.insert("Patch".to_string(), V::Int(v.patch as i64));
            map.insert("Prerelease".to_string(), V::Str(v.pre.to_string()));
            map.insert("Metadata".to_string(), V::Str(v.build.to_string()));
            map.insert("Original".to_string(), V::Str(text));
            V::Map(map)
        }
        "semverCompare" => {
            want_args(name, &args, 2)?;
            V::Bool(
                semver_compare(&s(&args[0])?, &s(&args[1])?)
                    .map_err(|e| format!("error calling semverCompare: {e}"))?,
            )
        }
        "mergeOverwrite" => {
            want_min_args(name, &args, 1)?;
            let dst = as_map(&args[0])?;
            for src in &args[1..] {
                refuse_cycle(name, &dst, src)?;
                merge_overwrite(&dst, &as_map(src)?);
            }
            V::Map(dst)
        }
        "deepCopy" => {
            want_args(name, &args, 1)?;
            deep_copy(&args[0]).map_err(|e| format!("error calling {name}: {e}"))?
        }
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
        "addf" => V::Float(args.iter().map(to_f64).sum()),
        "add1f" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]) + 1.0)
        }
        "subf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc - to_f64(v)))
        }
        "mulf" => V::Float(args.iter().map(to_f64).product()),
        "divf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc / to_f64(v)))
        }
        "maxf" => V::Float(args.iter().map(to_f64).fold(f64::NEG_INFINITY, f64::max)),
        "minf" => V::Float(args.iter().map(to_f64).fold(f64::INFINITY, f64::min)),
        "base" | "dir" | "ext" | "clean" | "isAbs" => {
            want_args(name, &args, 1)?;
            let p = s(&args[0])?;
            match name {
                "clean" => V::Str(clean_path(&p)),
                "isAbs" => V::Bool(p.starts_with('/')),
                "ext" => {
                    let last = p.rsplit('/').next().unwrap_or("");
                    V::Str(last.rfind('.').map(|i| last[i..].to_string()).unwrap_or_default())
                }
                "base" => {
                    let trimmed = p.trim_end_matches('/');
                    V::Str(if p.is_empty() {
                        ".".into()
                    } else if trimmed.is_empty() {
                        "/".into()
                    } else {
                        trimmed.rsplit('/').next().unwrap_or("").to_string()
                    })
                }
                _ => V::Str(clean_path(p.rfind('/').map(|i| &p[..=i]).unwrap_or(""))),
            }
        }
        "sha512sum" => {
            use sha2::Digest as _;
            want_args(name, &args, 1)?;
            V::Str(sha2::Sha512::digest(s(&args[0])?.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
        }
        "adler32sum" => {
            want_args(name, &args, 1)?;
            let (mut a, mut b) = (1u32, 0u32);
            for byte in s(&args[0])?.bytes() {
                a = (a + u32::from(byte)) % 65521;
                b = (b + a) % 65521;
            }
            V::Str(((b << 16) | a).to_string())
        }
        "plural" => {
            want_args(name, &args, 3)?;
            V::Str(if to_i64(&args[2]) == 1 { s(&args[0])? } else { s(&args[1])? })
        }
        "swapcase" => {
            want_args(name, &args, 1)?;
            V::Str(
                s(&args[0])?
                    .chars()
                    .map(|c| {
                        if c.is_uppercase() { c.to_lowercase().collect::<String>() } else { c.to_uppercase().collect() }
                    })
                    .collect(),
            )
        }
        "initials" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.split_whitespace().filter_map(|w| w.chars().next()).collect())
        }
        "regexQuoteMeta" => {
            want_args(name, &args, 1)?;
            V::Str(regex::escape(&s(&args[0])?))
        }
        "toDecimal" => {
            want_args(name, &args, 1)?;
            V::Int(i64::from_str_radix(&strval(&args[0])?, 8).unwrap_or(0))
        }
        "typeIsLike" => {
            want_args(name, &args, 2)?;
            let t = s(&args[0])?;
            let actual = args[1].type_name();
            V::Bool(t == actual || t == format!("*{actual}"))
        }
        "hello" => V::Str("Hello!".into()),
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

/// sprig's `untilStep`, bounded: at most [`limits::MAX_LIST_ITEMS`] numbers; a sequence that
/// would overflow int64 (Go wraps around and never ends) is an error.
fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, String> {
    if (stop < start && step >= 0) || (stop >= start && step <= 0) {
        return Ok(Vec::new());
    }
    let (span, stride) = ((i128::from(stop) - i128::from(start)).abs(), i128::from(step).abs());
    let count = (span + stride - 1) / stride;
    if count > limits::MAX_LIST_ITEMS as i128 {
        return Err(limits::list_too_long("untilStep"));
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i);
        i = i.checked_add(step).ok_or("untilStep: the sequence overflows int64 (Go loops forever)")?;
    }
    Ok(out)
}

/// Bytes as Go's `json.Marshal` prints a string: each byte that is not part of valid UTF-8
/// becomes U+FFFD (Go's byte slicing, in sprig and in CAPI's name trimming, can cut a character).
pub(crate) fn go_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{fffd}');
                rest = &after[1..];
            }
        }
    }
    out
}

/// A `set`/`merge` that would put a map inside itself: Go accepts it and then loops forever
/// (or overflows its stack) printing or copying the map.
fn refuse_cycle(name: &str, dst: &GoMap, value: &GoValue) -> Result<(), String> {
    if holds_map(value, dst) {
        return Err(format!("error calling {name}: the value holds the map itself (a cycle kubectl-capz refuses)"));
    }
    Ok(())
}

/// sprig's `mergeOverwrite`: values of `src` win, nested maps merged.
pub(super) fn merge_overwrite(dst: &GoMap, src: &GoMap) {
    for (k, v) in src.entries() {
        match (dst.get(&k), &v) {
            (Some(GoValue::Map(d)), GoValue::Map(s)) => merge_overwrite(&d, s),
            _ => dst.insert(k, v),
        }
    }
}

/// sprig's `merge` (mergo without overwrite): keys missing or empty in `dst` are taken from
/// `src`, nested maps merged.
pub(super) fn merge_maps(dst: &GoMap, src: &GoMap) {
    for (k, v) in src.entries() {
        match (dst.get(&k), &v) {
            (Some(GoValue::Map(d)), GoValue::Map(s)) => merge_maps(&d, s),
            (Some(existing), _) if !is_empty(&existing) => {}
            _ => dst.insert(k, v),
        }
    }
}
