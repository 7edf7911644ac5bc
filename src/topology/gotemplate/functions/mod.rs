//! Go's builtin template functions and sprig's hermetic functions, one file per family as sprig documents them.

mod builtins;
mod defaults;
mod dicts;
mod encoding;
mod lists;
mod math;
mod paths;
mod patterns;
mod strings;
mod support;
mod text;
mod types;
mod versions;

use serde_json::Value;

use super::GoValue;
use super::limits;
use super::value::{as_str, too_deep};

pub(crate) use support::go_lossy;

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

/// Every family: its names and its call.
type Family = (&'static [&'static str], fn(&str, Vec<GoValue>) -> Result<GoValue, String>);

const FAMILIES: &[Family] = &[
    (builtins::NAMES, builtins::call),
    (strings::NAMES, strings::call),
    (text::NAMES, text::call),
    (patterns::NAMES, patterns::call),
    (encoding::NAMES, encoding::call),
    (math::NAMES, math::call),
    (defaults::NAMES, defaults::call),
    (lists::NAMES, lists::call),
    (dicts::NAMES, dicts::call),
    (types::NAMES, types::call),
    (versions::NAMES, versions::call),
    (paths::NAMES, paths::call),
];

fn call_unchecked(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    let name = alias(name);
    if name == "mustFromJson" {
        let text = as_str(args.first().unwrap_or(&GoValue::Missing))?;
        return serde_json::from_str::<Value>(&text)
            .map(|v| GoValue::from_json(&v))
            .map_err(|e| format!("error calling mustFromJson: {e}"));
    }
    match FAMILIES.iter().find(|(names, _)| names.contains(&name)) {
        Some((_, call)) => call(name, args),
        None => Err(format!("function \"{name}\" not defined")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name the parser accepts is answered by exactly one family or is an alias of one that is (except
    /// `mustFromJson`, answered before the families, and `and`/`or`, which the executor short-circuits itself).
    #[test]
    fn every_function_has_exactly_one_family() {
        for name in FUNCTIONS {
            let target = alias(name);
            let owners = FAMILIES.iter().filter(|(names, _)| names.contains(&target)).count();
            assert!(
                owners == 1 || ["mustFromJson", "and", "or"].contains(name),
                "{name} (as {target}): {owners} families"
            );
        }
        for (names, _) in FAMILIES {
            for name in *names {
                assert!(FUNCTIONS.contains(name), "{name} has a family but the parser does not accept it");
            }
        }
    }
}
