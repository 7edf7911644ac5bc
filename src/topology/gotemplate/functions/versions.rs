//! sprig's semantic-version functions.

use super::super::value::as_str;
use super::super::{GoMap, GoValue};
use super::support::{semver_compare, want_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &["semver", "semverCompare"];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
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
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
