//! sprig's path functions (`base`, `dir`, `ext`, `clean`, `isAbs`; the `os*` variants are aliases).

use super::super::GoValue;
use super::super::value::as_str;
use super::support::{clean_path, want_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &["base", "clean", "dir", "ext", "isAbs"];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
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
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
