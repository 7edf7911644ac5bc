//! sprig's string functions: case, trimming, prefixes, substrings, abbreviations.

use super::super::GoValue;
use super::super::limits;
use super::super::value::{as_str, to_i64};
use super::support::{go_lossy, want_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "abbrev",
    "camelcase",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "initials",
    "kebabcase",
    "lower",
    "nospace",
    "plural",
    "repeat",
    "snakecase",
    "substr",
    "swapcase",
    "title",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trunc",
    "untitle",
    "upper",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
// Long: one arm per sprig string function (23 names): a dispatch table reads best whole; the longer functions
// are named below it.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
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
            V::Str(title(&s(&args[0])?))
        }
        "untitle" => {
            want_args(name, &args, 1)?;
            V::Str(untitle(&s(&args[0])?))
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
            V::Str(truncate(s(&args[1])?, to_i64(&args[0])))
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
            V::Str(substr(&s(&args[2])?, to_i64(&args[0]), to_i64(&args[1]))?)
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
        "abbrev" => {
            want_args(name, &args, 2)?;
            V::Str(abbreviate(s(&args[1])?, to_i64(&args[0])))
        }
        "snakecase" | "kebabcase" => {
            want_args(name, &args, 1)?;
            let sep = if name == "snakecase" { '_' } else { '-' };
            V::Str(separate_words(&s(&args[0])?, sep))
        }
        "camelcase" => {
            want_args(name, &args, 1)?;
            V::Str(camel_case(&s(&args[0])?))
        }
        // ---- sprig numbers
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
        "hello" => V::Str("Hello!".into()),
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

/// Go's `strings.Title`: each letter after a non-word character upper-cased.
fn title(text: &str) -> String {
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
    out
}

/// Each first character of a word lower-cased.
fn untitle(text: &str) -> String {
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
    out
}

/// The first `n` bytes of `text`, or the last `-n` when `n` is negative. Go slices bytes: a cut multi-byte
/// character prints as U+FFFD per byte, as Go's JSON does.
fn truncate(text: String, n: i64) -> String {
    let n = i128::from(n);
    let len = text.len() as i128;
    if n < 0 && len + n > 0 {
        go_lossy(&text.as_bytes()[(len + n) as usize..])
    } else if n >= 0 && len > n {
        go_lossy(&text.as_bytes()[..n as usize])
    } else {
        text
    }
}

/// sprig's `substr`: it slices bytes, and Go panics (an error here) on bounds outside the string.
fn substr(text: &str, start: i64, end: i64) -> Result<String, String> {
    let bytes = text.as_bytes();
    let len = bytes.len() as i64;
    let out_of_range = |msg: String| format!("error calling substr: runtime error: slice bounds out of range {msg}");
    Ok(if start < 0 {
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

/// `text` cut to `width` bytes with `...`, as goutils.Abbreviate cuts bytes.
fn abbreviate(text: String, width: i64) -> String {
    if width < 4 || text.len() as i64 <= width {
        text
    } else {
        format!("{}...", go_lossy(&text.as_bytes()[..(width - 3) as usize]))
    }
}

/// `snakecase` and `kebabcase`: lower-case words joined by `sep`, a word starting at each upper-case letter that
/// follows a lower-case one or a digit (or starts a word after an acronym) and at spaces, dashes and underscores.
fn separate_words(text: &str, sep: char) -> String {
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
    out
}

/// The words between `_`, spaces and `-`, each with its first letter upper-cased, joined.
fn camel_case(text: &str) -> String {
    text.split(['_', ' ', '-'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut cs = p.chars();
            cs.next().map(|f| f.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
        })
        .collect()
}
