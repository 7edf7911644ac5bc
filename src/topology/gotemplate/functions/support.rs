//! What several function families share: argument counts, Go's JSON and path rules, deep copies and merges of
//! maps, bounded sequences and semver constraints.

use super::super::limits;
use super::super::value::{holds_map, is_empty};
use super::super::{GoMap, GoValue};

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

/// sprig's `untilStep`, bounded: at most [`limits::MAX_LIST_ITEMS`] numbers; a sequence that
/// would overflow int64 (Go wraps around and never ends) is an error.
pub(super) fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, String> {
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
pub(super) fn refuse_cycle(name: &str, dst: &GoMap, value: &GoValue) -> Result<(), String> {
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
