//! From merged values to checked `Params`: type check against the JSON Schema (unknown keys with a
//! did-you-mean), derived defaults, required parameters of a flavor (all at once), CAPZ's rules.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::model::{OsType, Params, Pool, PoolMode, schema};
use super::sources::{ENV_ALIASES, Layered, Source, display_path, env_alias};
use super::{Missing, ParamsError, Problem};

/// A parameter a flavor requires, optionally only when another parameter is set (truthy).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Dotted path; `pools[].vmSize` means "every pool".
    pub path: String,
    /// Dotted path of a parameter that must be truthy for this one to be required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
}

/// Merged values -> checked, defaulted `Params`, or every problem found.
///
/// `required` and `unsupported` (dotted paths, `[]` for any index) come from the flavor.
/// Unsupported parameters are errors only when set explicitly (values, --set, flags), not via env.
pub fn resolve(
    layered: &Layered,
    flavor: &str,
    required: &[Requirement],
    unsupported: &[String],
) -> Result<Params, ParamsError> {
    let schema = schema();
    let mut problems = Vec::new();
    let walker = Walker { root: schema, layered };
    walker.check(&layered.value, schema, &mut String::new(), &mut problems);
    if !problems.is_empty() {
        return Err(ParamsError::Invalid(problems));
    }
    let mut params: Params = serde_json::from_value(layered.value.clone())
        .map_err(|err| ParamsError::Internal(format!("merged parameters do not fit the model: {err}")))?;
    finalize(&mut params);
    let finalized = serde_json::to_value(&params).map_err(|err| ParamsError::Internal(err.to_string()))?;

    let missing = missing_required(&finalized, required);
    if !missing.is_empty() {
        return Err(ParamsError::Missing(missing));
    }

    let mut problems = Vec::new();
    for pattern in unsupported {
        for (pointer, source) in explicit_sources_matching(layered, pattern) {
            if is_set(finalized.pointer(&pointer).unwrap_or(&Value::Null)) {
                problems.push(Problem {
                    path: display_path(&pointer),
                    message: format!("not used by flavor {flavor}"),
                    source: Some(source.to_string()),
                });
            }
        }
    }
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    problems.dedup();
    semantic_problems(&params, layered, &mut problems);
    if !problems.is_empty() {
        return Err(ParamsError::Invalid(problems));
    }
    Ok(params)
}

/// Derived defaults: resource group, pool VM size and replicas, the `v` of the version.
fn finalize(params: &mut Params) {
    if params.resource_group_name.as_deref().is_none_or(str::is_empty) {
        params.resource_group_name = params.cluster_name.clone();
    }
    if let Some(version) = &params.kubernetes_version
        && !version.is_empty()
        && !version.starts_with('v')
        && semver::Version::parse(version).is_ok()
    {
        params.kubernetes_version = Some(format!("v{version}"));
    }
    let defaults = params.pool_defaults.clone();
    for pool in &mut params.pools {
        if pool.vm_size.as_deref().is_none_or(str::is_empty) {
            pool.vm_size = defaults.vm_size.clone().filter(|s| !s.is_empty());
        }
        if pool.replicas.is_none() {
            let mut replicas = defaults.replicas;
            if let Some(scaling) = pool.autoscaling {
                replicas = replicas.clamp(scaling.min_count, scaling.max_count.max(scaling.min_count));
            }
            pool.replicas = Some(replicas);
        }
    }
}

fn is_set(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

/// The concrete pointers a dotted pattern (with `[]` for any index) matches in `value`.
fn expand_pattern(value: &Value, pattern: &str) -> Vec<String> {
    let mut out = vec![(String::new(), value)];
    for part in split_pattern(pattern) {
        let mut next = Vec::new();
        for (pointer, current) in out {
            match part.as_str() {
                "[]" => {
                    if let Value::Array(items) = current {
                        for (i, item) in items.iter().enumerate() {
                            next.push((format!("{pointer}/{i}"), item));
                        }
                    }
                }
                key => {
                    let child = current.get(key).unwrap_or(&Value::Null);
                    next.push((format!("{pointer}/{}", crate::json_pointer::escape_token(key)), child));
                }
            }
        }
        out = next;
    }
    out.into_iter().map(|(pointer, _)| pointer).collect()
}

/// `pools[].vmSize` -> ["pools", "[]", "vmSize"].
fn split_pattern(pattern: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in pattern.split('.') {
        if let Some(base) = piece.strip_suffix("[]") {
            parts.push(base.to_string());
            parts.push("[]".to_string());
        } else {
            parts.push(piece.to_string());
        }
    }
    parts
}

fn pattern_matches(pattern: &[String], pointer: &str) -> bool {
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    tokens.len() >= pattern.len()
        && pattern
            .iter()
            .zip(&tokens)
            .all(|(p, t)| if p == "[]" { t.chars().all(|c| c.is_ascii_digit()) } else { p == t })
}

fn explicit_sources_matching<'a>(layered: &'a Layered, pattern: &str) -> Vec<(String, &'a Source)> {
    let parts = split_pattern(pattern);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (pointer, source) in layered.sources_under("") {
        if !source.is_explicit() || !pattern_matches(&parts, pointer) {
            continue;
        }
        // Report the pattern's own level (pools/1/osSku), not every leaf below it.
        let depth = parts.len();
        let head: String = pointer.split('/').skip(1).take(depth).fold(String::new(), |acc, t| acc + "/" + t);
        if seen.insert(head.clone()) {
            out.push((head, source));
        }
    }
    out
}

fn missing_required(finalized: &Value, required: &[Requirement]) -> Vec<Missing> {
    let mut missing = Vec::new();
    for requirement in required {
        if let Some(when) = &requirement.when {
            let applies =
                expand_pattern(finalized, when).iter().any(|pointer| finalized.pointer(pointer).is_some_and(is_set));
            if !applies {
                continue;
            }
        }
        let pointers = expand_pattern(finalized, &requirement.path);
        let unset: Vec<&String> = pointers.iter().filter(|p| !finalized.pointer(p).is_some_and(is_set)).collect();
        if unset.is_empty() {
            continue;
        }
        let path = if requirement.path.contains("[]") && unset.len() > 1 {
            requirement.path.clone()
        } else {
            display_path(unset[0])
        };
        let mut hint = Vec::new();
        if let Some(fallback) = fallback_of(&requirement.path) {
            hint.push(format!("or {fallback}"));
            if let Some(env) = env_alias(fallback) {
                hint.push(format!("env {env}"));
            }
        } else if let Some(env) = env_alias(&requirement.path) {
            hint.push(format!("env {env}"));
        }
        if let Some(when) = &requirement.when {
            hint.push(format!("needed because {when} is set"));
        }
        missing.push(Missing { path, hint: hint.join(", ") });
    }
    missing
}

/// The parameter a per-pool field falls back to.
pub fn fallback_of(path: &str) -> Option<&'static str> {
    match path {
        "pools[].vmSize" => Some("poolDefaults.vmSize"),
        "pools[].replicas" => Some("poolDefaults.replicas"),
        _ => None,
    }
}

/// Where the value at `pointer` came from; for a key created by a deeper `--set`, the first
/// source below it.
pub(super) fn source_label(layered: &Layered, pointer: &str) -> Option<String> {
    match layered.source_of(pointer) {
        Source::Default => layered
            .sources_under(pointer)
            .map(|(_, source)| source)
            .find(|source| **source != Source::Default)
            .map(Source::to_string),
        other => Some(other.to_string()),
    }
}

fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn semantic_problems(params: &Params, layered: &Layered, problems: &mut Vec<Problem>) {
    let mut add = |pointer: &str, message: String| {
        problems.push(Problem { path: display_path(pointer), message, source: source_label(layered, pointer) });
    };
    if let Some(name) = &params.cluster_name {
        let dns_prefix_overridden = params.managed_cluster.get("spec").and_then(|s| s.get("dnsPrefix")).is_some()
            || params.control_plane.get("spec").and_then(|s| s.get("dnsPrefix")).is_some();
        if !is_dns1123_label(name) {
            add(
                "/clusterName",
                format!(
                    "{name:?} is not a valid name: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (a DNS-1123 label: the AKS cluster name allows no '.')"
                ),
            );
        } else if name.len() > 54 && !dns_prefix_overridden {
            add(
                "/clusterName",
                format!(
                    "{name:?} is {} characters long, but it is also the AKS DNS prefix, which allows at most 54 (or set the dnsPrefix in an overlay)",
                    name.len()
                ),
            );
        }
    }
    if !is_dns1123_label(&params.namespace) {
        add(
            "/namespace",
            format!(
                "{:?} is not a valid namespace: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (DNS-1123 label)",
                params.namespace
            ),
        );
    }
    if let Some(version) = &params.kubernetes_version {
        let bare = version.strip_prefix('v').unwrap_or(version);
        if semver::Version::parse(bare).is_err() {
            add("/kubernetesVersion", format!("{version:?} is not a semantic version like v1.33.2"));
        }
    }
    if !params.ssh_public_key.is_empty() {
        use base64::Engine as _;
        if base64::engine::general_purpose::STANDARD.decode(params.ssh_public_key.trim()).is_err() {
            add(
                "/sshPublicKey",
                "is not base64 (AZURE_SSH_PUBLIC_KEY_B64 is the base64 of the public key file)".to_string(),
            );
        }
    }
    if params.pools.is_empty() {
        add("/pools", "at least one pool is required (CAPZ needs a System pool)".to_string());
    }
    let mut names = BTreeSet::new();
    for (i, pool) in params.pools.iter().enumerate() {
        pool_problems(params, layered, i, pool, &mut names, &mut add);
    }
    if !params.pools.is_empty() && !params.pools.iter().any(|p| p.mode == PoolMode::System) {
        add("/pools", "at least one pool must have mode System".to_string());
    }
}

/// The problems of pool `i`: its name (valid for its OS, unique among `names`), a System pool's OS and replicas,
/// autoscaling bounds, the network plugin a Windows pool needs, taint keys.
fn pool_problems(
    params: &Params,
    layered: &Layered,
    i: usize,
    pool: &Pool,
    names: &mut BTreeSet<String>,
    add: &mut impl FnMut(&str, String),
) {
    let base = format!("/pools/{i}");
    let max = if pool.os_type == OsType::Windows { 6 } else { 12 };
    let valid = pool.name.len() <= max
        && pool.name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && pool.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !valid {
        add(
            &format!("{base}/name"),
            format!(
                "{:?} is not a valid AKS pool name: lowercase letters and digits, starting with a letter, at most {max} characters{}",
                pool.name,
                if pool.os_type == OsType::Windows { " for Windows" } else { " for Linux" }
            ),
        );
    }
    if !names.insert(pool.name.clone()) {
        add(&format!("{base}/name"), format!("pool name {:?} is used twice", pool.name));
    }
    let replicas = pool.replicas.unwrap_or(0);
    if pool.mode == PoolMode::System {
        if pool.os_type != OsType::Linux {
            add(&format!("{base}/osType"), "a System pool must run Linux".to_string());
        }
        if replicas < 1 {
            let pointer = if layered.value.pointer(&format!("{base}/replicas")).is_some_and(|v| !v.is_null()) {
                format!("{base}/replicas")
            } else {
                "/poolDefaults/replicas".to_string()
            };
            problems_push_system(&pool.name, i, &pointer, layered, add);
        }
    }
    if let Some(scaling) = pool.autoscaling {
        if scaling.min_count > scaling.max_count {
            add(
                &format!("{base}/autoscaling"),
                format!("minCount {} is greater than maxCount {}", scaling.min_count, scaling.max_count),
            );
        } else if replicas < scaling.min_count || replicas > scaling.max_count {
            add(
                &format!("{base}/replicas"),
                format!("{replicas} is outside the autoscaling bounds {}..{}", scaling.min_count, scaling.max_count),
            );
        }
        if pool.mode == PoolMode::System && scaling.min_count < 1 {
            add(&format!("{base}/autoscaling/minCount"), "a System pool needs minCount >= 1".to_string());
        }
    }
    if pool.os_type == OsType::Windows
        && let Some(plugin) = &params.network.plugin
        && plugin != "azure"
    {
        add("/network/plugin", format!("Windows pool {:?} needs network plugin azure, not {plugin:?}", pool.name));
    }
    for (t, taint) in pool.taints.iter().enumerate() {
        if taint.key.is_empty() {
            add(&format!("{base}/taints/{t}/key"), "a taint needs a key".to_string());
        }
    }
}

fn problems_push_system(
    name: &str,
    index: usize,
    pointer: &str,
    _layered: &Layered,
    add: &mut impl FnMut(&str, String),
) {
    let message = if pointer.starts_with("/pools/") {
        format!("System pool {name:?} needs at least 1 replica")
    } else {
        format!("is 0, but System pool {name:?} (pools[{index}]) needs at least 1 replica")
    };
    add(pointer, message);
}

/// Checks a merged value against the JSON Schema of `Params`, collecting every problem.
struct Walker<'a> {
    root: &'a Value,
    layered: &'a Layered,
}

impl Walker<'_> {
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        let mut current = schema;
        while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
            let pointer = reference.trim_start_matches('#');
            match self.root.pointer(pointer) {
                Some(target) => current = target,
                None => break,
            }
        }
        current
    }

    fn problem(&self, pointer: &str, message: String) -> Problem {
        Problem { path: display_path(pointer), message, source: source_label(self.layered, pointer) }
    }

    /// The value as shown in a message; values from the environment are not echoed.
    fn shown(&self, pointer: &str, value: &Value) -> String {
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "a mapping",
        };
        if matches!(self.layered.source_of(pointer), Source::Env(_))
            || matches!(value, Value::Array(_) | Value::Object(_))
        {
            return kind.to_string();
        }
        let mut text = value.to_string();
        if text.len() > 60 {
            // At a character boundary: the value may hold multi-byte characters.
            let mut end = 57;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("...");
        }
        format!("{kind} {text}")
    }

    fn check(&self, value: &Value, schema: &Value, pointer: &mut String, problems: &mut Vec<Problem>) {
        let schema = self.resolve(schema);
        if let Some(branches) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            if value.is_null() && branches.iter().any(|b| self.resolve(b).get("type") == Some(&Value::from("null"))) {
                return;
            }
            let non_null: Vec<&Value> =
                branches.iter().filter(|b| self.resolve(b).get("type") != Some(&Value::from("null"))).collect();
            if let [only] = non_null.as_slice() {
                self.check(value, only, pointer, problems);
                return;
            }
            let mut best: Option<Vec<Problem>> = None;
            for branch in non_null {
                let mut found = Vec::new();
                self.check(value, branch, pointer, &mut found);
                if found.is_empty() {
                    return;
                }
                if best.as_ref().is_none_or(|b| found.len() < b.len()) {
                    best = Some(found);
                }
            }
            problems.extend(best.unwrap_or_default());
            return;
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            if !options.contains(value) {
                let names: Vec<String> =
                    options.iter().map(|o| o.as_str().map(str::to_string).unwrap_or(o.to_string())).collect();
                let mut message = format!("expected one of {}, got {}", names.join(", "), self.shown(pointer, value));
                if let Some(text) = value.as_str()
                    && let Some(close) = crate::suggest::closest(text, names.iter().map(String::as_str))
                {
                    message.push_str(&format!("; did you mean {close}?"));
                }
                problems.push(self.problem(pointer, message));
            }
            return;
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| type_matches(t, value)) {
            let expected: Vec<String> =
                types.iter().filter(|t| **t != "null").map(|t| describe_type(t, schema)).collect();
            problems.push(
                self.problem(
                    pointer,
                    format!("expected {}, got {}", expected.join(" or "), self.shown(pointer, value)),
                ),
            );
            return;
        }
        if let Some(n) = value.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                problems
                    .push(self.problem(pointer, format!("must be at least {min}, got {}", self.shown(pointer, value))));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                problems
                    .push(self.problem(pointer, format!("must be at most {max}, got {}", self.shown(pointer, value))));
            }
        }
        match value {
            Value::Object(map) => self.check_object(map, schema, pointer, problems),
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        let len = pointer.len();
                        pointer.push_str(&format!("/{i}"));
                        self.check(item, item_schema, pointer, problems);
                        pointer.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }

    fn check_object(
        &self,
        map: &Map<String, Value>,
        schema: &Value,
        pointer: &mut String,
        problems: &mut Vec<Problem>,
    ) {
        let properties = schema.get("properties").and_then(Value::as_object);
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for key in required.iter().filter_map(Value::as_str) {
                if map.get(key).is_none_or(Value::is_null) {
                    problems.push(self.problem(pointer, format!("`{key}` is required here")));
                }
            }
        }
        for (key, child) in map {
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&crate::json_pointer::escape_token(key));
            match properties.and_then(|p| p.get(key)) {
                Some(child_schema) => self.check(child, child_schema, pointer, problems),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&str> =
                            properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                        let mut message = "unknown parameter".to_string();
                        if let Some(suggestion) = suggest(key, &known, pointer) {
                            message.push_str(&format!("; did you mean {suggestion}?"));
                        }
                        problems.push(self.problem(pointer, message));
                    }
                    Some(extra) if extra.is_object() => self.check(child, extra, pointer, problems),
                    _ => {}
                },
            }
            pointer.truncate(len);
        }
    }
}

/// A did-you-mean for an unknown key: a close sibling, or the parameter an env alias sets.
fn suggest(key: &str, known: &[&str], pointer: &str) -> Option<String> {
    let parent = &pointer[..pointer.rfind('/').unwrap_or(0)];
    let qualify = |name: &str| {
        let parent_path = display_path(parent);
        if parent_path.is_empty() { name.to_string() } else { format!("{parent_path}.{name}") }
    };
    if let Some(exact) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return Some(qualify(exact));
    }
    if let Some(name) = crate::suggest::closest(key, known.iter().copied()) {
        return Some(qualify(name));
    }
    if parent.is_empty() {
        if let Some((_, path, _)) = ENV_ALIASES.iter().find(|(env, _, _)| env.eq_ignore_ascii_case(key)) {
            return Some(path.to_string());
        }
        let nested: &[(&str, &str)] = &[
            ("vmSize", "poolDefaults.vmSize"),
            ("replicas", "poolDefaults.replicas"),
            ("identityName", "identity.name"),
            ("clientId", "identity.clientId"),
            ("resourceGroup", "resourceGroupName"),
            ("version", "kubernetesVersion"),
            ("name", "clusterName"),
        ];
        if let Some((_, path)) = nested.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
            return Some(path.to_string());
        }
    }
    None
}

fn type_matches(kind: &str, value: &Value) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn describe_type(kind: &str, schema: &Value) -> String {
    match kind {
        "integer" if schema.get("minimum").and_then(Value::as_f64) == Some(0.0) => "an integer >= 0".to_string(),
        "integer" => "an integer".to_string(),
        "boolean" => "a boolean (true or false)".to_string(),
        "string" => "a string".to_string(),
        "array" => "a list".to_string(),
        "object" => "a mapping".to_string(),
        "number" => "a number".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::sources::{Inputs, merge};
    use std::collections::BTreeMap;

    fn layered(set: &[&str], env: &[(&str, &str)]) -> Layered {
        let inputs = Inputs {
            set: set.iter().map(|s| s.to_string()).collect(),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
            ..Inputs::default()
        };
        merge(&inputs).unwrap()
    }

    fn req(paths: &[&str]) -> Vec<Requirement> {
        paths.iter().map(|p| Requirement { path: p.to_string(), when: None }).collect()
    }

    fn problems(err: ParamsError) -> Vec<String> {
        match err {
            ParamsError::Invalid(problems) => problems.iter().map(|p| p.to_string()).collect(),
            other => panic!("expected Invalid, got {other}"),
        }
    }

    #[test]
    fn unknown_keys_get_a_did_you_mean() {
        let err =
            resolve(&layered(&["pools[0].replica=3", "AZURE_LOCATION=x", "network.plugn=azure"], &[]), "aks", &[], &[])
                .unwrap_err();
        assert_eq!(
            problems(err),
            [
                "network.plugn: unknown parameter; did you mean network.plugin? (from --set network.plugn)",
                "pools[0].replica: unknown parameter; did you mean pools[0].replicas? (from --set pools[0].replica)",
                "AZURE_LOCATION: unknown parameter; did you mean location? (from --set AZURE_LOCATION)",
            ]
        );
    }

    #[test]
    fn wrong_types_name_path_and_source_without_echoing_env() {
        let err = resolve(&layered(&["pools[1].mode=system"], &[("WORKER_MACHINE_COUNT", "lots")]), "aks", &[], &[])
            .unwrap_err();
        assert_eq!(
            problems(err),
            [
                "poolDefaults.replicas: expected an integer >= 0, got a string (from env WORKER_MACHINE_COUNT)",
                "pools[1].mode: expected one of System, User, got a string \"system\"; did you mean System? (from --set pools[1].mode)",
            ]
        );
    }

    #[test]
    fn missing_required_are_all_reported_with_env_aliases() {
        let required = vec![
            Requirement { path: "clusterName".into(), when: None },
            Requirement { path: "location".into(), when: None },
            Requirement { path: "pools[].vmSize".into(), when: None },
            Requirement { path: "subscriptionId".into(), when: Some("asoCredentialSecret.create".into()) },
            Requirement { path: "tenantId".into(), when: Some("asoCredentialSecret.create".into()) },
        ];
        let err = resolve(&layered(&["asoCredentialSecret.create=true", "tenantId=t"], &[]), "aks-aso", &required, &[])
            .unwrap_err();
        let ParamsError::Missing(missing) = err else { panic!("expected Missing") };
        let text: Vec<String> = missing.iter().map(|m| format!("{} ({})", m.path, m.hint)).collect();
        assert_eq!(
            text,
            [
                "clusterName (env CLUSTER_NAME)",
                "location (env AZURE_LOCATION)",
                "pools[].vmSize (or poolDefaults.vmSize, env AZURE_NODE_MACHINE_TYPE)",
                "subscriptionId (env AZURE_SUBSCRIPTION_ID, needed because asoCredentialSecret.create is set)",
            ]
        );
        // With the pool defaults set and `create` off, nothing is missing.
        let ok = layered(&["clusterName=a", "location=b"], &[("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3")]);
        let params = resolve(&ok, "aks-aso", &required, &[]).unwrap();
        assert_eq!(params.pools[1].vm_size.as_deref(), Some("Standard_D2s_v3"));
        assert_eq!(params.pools[1].replicas, Some(2));
        assert_eq!(params.resource_group_name.as_deref(), Some("a"));
    }

    #[test]
    fn capz_rules_are_checked() {
        let err = resolve(
            &layered(
                &[
                    "clusterName=Bad_Name",
                    "kubernetesVersion=1.33",
                    "pools[0].replicas=0",
                    "pools[1].name=toolongpoolname1",
                    "namespace=a.b",
                ],
                &[],
            ),
            "aks",
            &[],
            &[],
        )
        .unwrap_err();
        let text = problems(err).join("\n");
        for needle in [
            "clusterName: \"Bad_Name\" is not a valid name",
            "namespace: \"a.b\" is not a valid namespace",
            "kubernetesVersion: \"1.33\" is not a semantic version",
            "pools[0].replicas: System pool \"pool0\" needs at least 1 replica (from --set pools[0].replicas)",
            "pools[1].name: \"toolongpoolname1\" is not a valid AKS pool name",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
        }
        let windows =
            resolve(&layered(&["pools[1].osType=Windows", "pools[1].name=win1234"], &[]), "aks", &[], &[]).unwrap_err();
        assert!(problems(windows)[0].contains("at most 6 characters for Windows"));
        let system0 = resolve(&layered(&[], &[("WORKER_MACHINE_COUNT", "0")]), "aks", &[], &[]).unwrap_err();
        assert_eq!(
            problems(system0),
            [
                "poolDefaults.replicas: is 0, but System pool \"pool0\" (pools[0]) needs at least 1 replica (from env WORKER_MACHINE_COUNT)"
            ]
        );
        let no_system = resolve(&layered(&["pools[0].mode=User"], &[]), "aks", &[], &[]).unwrap_err();
        assert_eq!(problems(no_system), ["pools: at least one pool must have mode System (from --set pools[0].mode)"]);
    }

    #[test]
    fn cluster_name_fits_the_aks_dns_prefix() {
        let long = "a".repeat(55);
        let err = resolve(&layered(&[&format!("clusterName={long}")], &[]), "aks-aso", &[], &[]).unwrap_err();
        assert!(problems(err)[0].contains("at most 54"));
        let overridden = layered(&[&format!("clusterName={long}"), "managedCluster.spec.dnsPrefix=short"], &[]);
        assert!(resolve(&overridden, "aks-aso", &[], &[]).is_ok());
        let dotted = resolve(&layered(&["clusterName=a.b"], &[]), "aks-aso", &[], &[]).unwrap_err();
        assert!(problems(dotted)[0].contains("allows no '.'"));
    }

    #[test]
    fn version_gets_its_v() {
        let params = resolve(&layered(&["kubernetesVersion=1.33.2"], &[]), "aks", &req(&[]), &[]).unwrap();
        assert_eq!(params.kubernetes_version.as_deref(), Some("v1.33.2"));
    }

    #[test]
    fn unsupported_parameters_are_errors_only_when_explicit() {
        let unsupported =
            vec!["managedCluster".to_string(), "pools[].osSku".to_string(), "asoCredentialSecret".to_string()];
        let err = resolve(
            &layered(&["managedCluster.spec.x=1", "pools[1].osSku=AzureLinux"], &[("ASO_CREDENTIAL_SECRET_NAME", "s")]),
            "aks",
            &[],
            &unsupported,
        )
        .unwrap_err();
        assert_eq!(
            problems(err),
            [
                "managedCluster: not used by flavor aks (from --set managedCluster.spec.x)",
                "pools[1].osSku: not used by flavor aks (from --set pools[1].osSku)",
            ]
        );
    }
}
