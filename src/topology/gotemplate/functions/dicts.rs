//! sprig's dictionary functions (and the deep copy and merges that work on them).

use std::collections::BTreeMap;

use super::super::value::{as_map, as_str, strval};
use super::super::{GoMap, GoValue};
use super::support::{deep_copy, merge_maps, merge_overwrite, refuse_cycle, want_args, want_min_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "deepCopy",
    "dict",
    "dig",
    "get",
    "hasKey",
    "keys",
    "merge",
    "mergeOverwrite",
    "omit",
    "pick",
    "pluck",
    "set",
    "unset",
    "values",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
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
        other => return Err(format!("function \"{other}\" not defined")),
    })
}
