//! Where parameter values come from: defaults < env (clusterctl names) < values files < `--set` < flags,
//! merged into one JSON value that remembers the source of every field.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::ParamsError;
use super::model::Params;
use crate::manifest;

/// Where one parameter value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The model's default.
    Default,
    /// An environment variable (clusterctl's name).
    Env(&'static str),
    /// A values file, at a 1-based line.
    File { path: String, line: usize },
    /// A `--set path=value` argument (its path part).
    Set(String),
    /// An explicit flag, e.g. `--namespace`.
    Flag(&'static str),
}

impl Source {
    /// True for sources the user chose for this render (values, --set, flags), not env or defaults.
    pub fn is_explicit(&self) -> bool {
        matches!(self, Source::File { .. } | Source::Set(_) | Source::Flag(_))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::Env(name) => write!(f, "env {name}"),
            Source::File { path, line } => write!(f, "{path}:{line}"),
            Source::Set(path) => write!(f, "--set {path}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// How an environment variable's text becomes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    String,
    Integer,
}

/// clusterctl's variable names and the parameter each one sets.
pub const ENV_ALIASES: &[(&str, &str, EnvKind)] = &[
    ("CLUSTER_NAME", "clusterName", EnvKind::String),
    ("NAMESPACE", "namespace", EnvKind::String),
    ("KUBERNETES_VERSION", "kubernetesVersion", EnvKind::String),
    ("AZURE_LOCATION", "location", EnvKind::String),
    ("AZURE_SUBSCRIPTION_ID", "subscriptionId", EnvKind::String),
    ("AZURE_TENANT_ID", "tenantId", EnvKind::String),
    ("AZURE_RESOURCE_GROUP", "resourceGroupName", EnvKind::String),
    ("AZURE_NODE_MACHINE_TYPE", "poolDefaults.vmSize", EnvKind::String),
    ("WORKER_MACHINE_COUNT", "poolDefaults.replicas", EnvKind::Integer),
    ("ASO_CREDENTIAL_SECRET_NAME", "asoCredentialSecret.name", EnvKind::String),
    ("ASO_CREDENTIAL_SECRET_MODE", "asoCredentialSecret.authMode", EnvKind::String),
    ("CLUSTER_IDENTITY_NAME", "identity.name", EnvKind::String),
    ("CLUSTER_IDENTITY_TYPE", "identity.type", EnvKind::String),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "identity.clientId", EnvKind::String),
    ("AZURE_SSH_PUBLIC_KEY_B64", "sshPublicKey", EnvKind::String),
    ("CLUSTER_CLASS_NAME", "clusterClassName", EnvKind::String),
];

/// The environment variable that sets the parameter at `path` (dotted form), if any.
pub fn env_alias(path: &str) -> Option<&'static str> {
    ENV_ALIASES.iter().find(|(_, p, _)| *p == path).map(|(name, _, _)| *name)
}

/// One segment of a parameter path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// Parses `a.b[0].c`, `labels["kubernetes.io/os"]` or `labels.kubernetes\\.io/os`.
pub fn parse_path(path: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut chars = path.chars().peekable();
    let mut key = String::new();
    let mut key_started = false;
    let mut after_bracket = false;
    let mut after_dot = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars.next().ok_or("ends with a lone `\\`")?;
                key.push(escaped);
                key_started = true;
            }
            '.' => {
                if key_started {
                    segments.push(Segment::Key(std::mem::take(&mut key)));
                    key_started = false;
                } else if !after_bracket {
                    return Err("has an empty key".into());
                }
                after_bracket = false;
                after_dot = true;
                continue;
            }
            '[' => {
                if key_started {
                    segments.push(Segment::Key(std::mem::take(&mut key)));
                    key_started = false;
                } else if segments.is_empty() {
                    return Err("starts with `[`".into());
                } else if after_dot {
                    return Err("has an empty key".into());
                }
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut quoted = String::new();
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => quoted.push(chars.next().ok_or("has an unterminated quoted key")?),
                            Some(other) => quoted.push(other),
                            None => return Err("has an unterminated quoted key".into()),
                        }
                    }
                    if chars.next() != Some(']') {
                        return Err("needs `]` after a quoted key".into());
                    }
                    segments.push(Segment::Key(quoted));
                } else {
                    let mut digits = String::new();
                    loop {
                        match chars.next() {
                            Some(']') => break,
                            Some(d) if d.is_ascii_digit() => digits.push(d),
                            Some(other) => {
                                return Err(format!("has `{other}` inside [..]: only an index or a \"quoted key\""));
                            }
                            None => return Err("has an unterminated `[`".into()),
                        }
                    }
                    let index = digits.parse::<usize>().map_err(|_| "has an empty or too large index".to_string())?;
                    segments.push(Segment::Index(index));
                }
                if let Some(&next) = chars.peek()
                    && next != '.'
                    && next != '['
                {
                    return Err(format!("has `{next}` right after `]`"));
                }
                after_bracket = true;
                after_dot = false;
                continue;
            }
            ']' => return Err("has an unmatched `]`".into()),
            other => {
                key.push(other);
                key_started = true;
            }
        }
        after_bracket = false;
        after_dot = false;
    }
    if key_started {
        segments.push(Segment::Key(key));
    } else if after_dot {
        return Err("ends with `.`".into());
    } else if segments.is_empty() {
        return Err("is empty".into());
    }
    Ok(segments)
}

/// JSON pointer of a dotted path (`pools[0].name` -> `/pools/0/name`); the input must parse.
pub fn pointer_of(path: &str) -> String {
    match parse_path(path) {
        Ok(segments) => segments_pointer(&segments),
        Err(_) => String::new(),
    }
}

fn segments_pointer(segments: &[Segment]) -> String {
    let mut pointer = String::new();
    for segment in segments {
        pointer.push('/');
        match segment {
            Segment::Key(key) => pointer.push_str(&crate::json_pointer::escape_token(key)),
            Segment::Index(i) => pointer.push_str(&i.to_string()),
        }
    }
    pointer
}

fn is_plain_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The dotted form of a JSON pointer (`/pools/0/labels/kubernetes.io~1os` -> `pools[0].labels["kubernetes.io/os"]`).
/// Numeric tokens become indexes.
pub fn display_path(pointer: &str) -> String {
    let mut out = String::new();
    for token in pointer.split('/').skip(1) {
        let token = crate::json_pointer::unescape_token(token);
        if !token.is_empty() && token.chars().all(|c| c.is_ascii_digit()) {
            out.push_str(&format!("[{token}]"));
        } else if is_plain_key(&token) {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        } else {
            out.push_str(&format!("[{}]", serde_json::Value::String(token)));
        }
    }
    out
}

/// The merged parameter values with the source of every field, keyed by JSON pointer.
#[derive(Debug, Clone)]
pub struct Layered {
    /// The merged value (a values file's shape).
    pub value: Value,
    sources: BTreeMap<String, Source>,
}

impl Default for Layered {
    fn default() -> Self {
        Layered::new()
    }
}

impl Layered {
    /// Starts from the model's defaults.
    pub fn new() -> Self {
        let value = serde_json::to_value(Params::default()).unwrap_or_else(|_| Value::Object(Map::new()));
        let mut sources = BTreeMap::new();
        sources.insert(String::new(), Source::Default);
        Layered { value, sources }
    }

    /// The source of the field at `pointer`, or of its nearest parent that has one.
    pub fn source_of(&self, pointer: &str) -> &Source {
        let mut current = pointer;
        loop {
            if let Some(source) = self.sources.get(current) {
                return source;
            }
            match current.rfind('/') {
                Some(cut) => current = &current[..cut],
                None => return &Source::Default,
            }
        }
    }

    /// Every (pointer, source) at or below `pointer`.
    pub fn sources_under<'a>(&'a self, pointer: &'a str) -> impl Iterator<Item = (&'a String, &'a Source)> + 'a {
        self.sources
            .range(pointer.to_string()..)
            .take_while(move |(p, _)| p.starts_with(pointer))
            .filter(move |(p, _)| p.len() == pointer.len() || p.as_bytes().get(pointer.len()) == Some(&b'/'))
    }

    fn forget_under(&mut self, pointer: &str) {
        let doomed: Vec<String> = self.sources_under(pointer).map(|(p, _)| p.clone()).collect();
        for p in doomed {
            self.sources.remove(&p);
        }
    }

    /// Deep-merges `patch` at `pointer` (JSON merge patch: objects merge, everything else replaces,
    /// `null` deletes). `source_of` names the source of each pointer the patch writes.
    pub fn merge_at(
        &mut self,
        segments: &[Segment],
        patch: Value,
        source_of: &dyn Fn(&str) -> Source,
    ) -> Result<(), String> {
        if patch.is_null()
            && let Some((Segment::Key(key), parent)) = segments.split_last()
            && !in_overlay(&segments_pointer(segments))
        {
            // `null` at a key deletes it (back to its default), as inside a merge patch.
            let parent_pointer = segments_pointer(parent);
            if let Some(Value::Object(map)) = self.value.pointer_mut(&parent_pointer) {
                map.shift_remove(key);
            }
            let pointer = format!("{parent_pointer}/{}", crate::json_pointer::escape_token(key));
            self.forget_under(&pointer);
            let source = source_of(&pointer);
            self.sources.insert(pointer, source);
            return Ok(());
        }
        let mut pointer = String::new();
        let mut target = &mut self.value;
        for segment in segments {
            match segment {
                Segment::Key(key) => {
                    if target.is_null() {
                        *target = Value::Object(Map::new());
                    }
                    let Value::Object(map) = target else {
                        return Err(format!("`{}` is not an object", display_path(&pointer)));
                    };
                    pointer.push('/');
                    pointer.push_str(&crate::json_pointer::escape_token(key));
                    target = map.entry(key.clone()).or_insert(Value::Null);
                }
                Segment::Index(index) => {
                    let Value::Array(items) = target else {
                        return Err(format!("`{}` is not a list", display_path(&pointer)));
                    };
                    if *index > items.len() {
                        return Err(format!(
                            "index {index} is past the end of `{}` ({} items; use index {} to append)",
                            display_path(&pointer),
                            items.len(),
                            items.len()
                        ));
                    }
                    if *index == items.len() {
                        items.push(Value::Null);
                    }
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    target = &mut items[*index];
                }
            }
        }
        let mut writes = Vec::new();
        merge_value(target, patch, &mut pointer, &mut writes);
        for (written, replaced) in writes {
            if replaced {
                self.forget_under(&written);
            }
            let source = source_of(&written);
            self.sources.insert(written, source);
        }
        Ok(())
    }
}

/// Merges `patch` into `target`; records (pointer, replaced-whole-subtree) of every write.
fn merge_value(target: &mut Value, patch: Value, pointer: &mut String, writes: &mut Vec<(String, bool)>) {
    match patch {
        Value::Object(patch_map) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
                writes.push((pointer.clone(), true));
            }
            let Value::Object(map) = target else { return };
            for (key, value) in patch_map {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(&key));
                if value.is_null() && !in_overlay(pointer) {
                    map.shift_remove(&key);
                    writes.push((pointer.clone(), true));
                } else if value.is_null() {
                    // Inside an overlay, `null` is data: it deletes the key from the rendered object.
                    map.insert(key, Value::Null);
                    writes.push((pointer.clone(), true));
                } else {
                    let slot = map.entry(key).or_insert(Value::Null);
                    merge_value(slot, value, pointer, writes);
                }
                pointer.truncate(len);
            }
        }
        other => {
            writes.push((pointer.clone(), true));
            record_children(&other, pointer, writes);
            *target = other;
        }
    }
}

fn record_children(value: &Value, pointer: &mut String, writes: &mut Vec<(String, bool)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                writes.push((pointer.clone(), false));
                record_children(child, pointer, writes);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                writes.push((pointer.clone(), false));
                record_children(child, pointer, writes);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Every input of the parameters, in the order of precedence.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Environment variables (only clusterctl's names are read).
    pub env: BTreeMap<String, String>,
    /// Values files, later ones win.
    pub values_files: Vec<PathBuf>,
    /// `--set path=value` arguments, later ones win.
    pub set: Vec<String>,
    /// Positional cluster name.
    pub cluster_name: Option<String>,
    /// `-n/--namespace`.
    pub namespace: Option<String>,
    /// `--kubernetes-version`.
    pub kubernetes_version: Option<String>,
    /// `--worker-machine-count` (clusterctl's flag): `poolDefaults.replicas`, above everything else.
    pub worker_machine_count: Option<i64>,
    /// Values given in memory (a fleet's `defaults`, a cluster's `values`), merged after the values
    /// files, in order.
    pub values_inline: Vec<InlineValues>,
}

/// A values mapping that is part of a larger file (e.g. a fleet file), with that file's lines.
#[derive(Debug, Clone)]
pub struct InlineValues {
    /// The mapping (null: nothing).
    pub value: Value,
    /// The file it was read from.
    pub source: String,
    /// Lines of the whole file (shared: a fleet file's index serves all its clusters).
    pub lines: std::sync::Arc<manifest::LineIndex>,
    /// JSON pointer of `value` inside the file, e.g. `/clusters/3/values`.
    pub prefix: String,
}

impl Inputs {
    /// The process environment, restricted to clusterctl's names.
    pub fn process_env() -> BTreeMap<String, String> {
        ENV_ALIASES
            .iter()
            .filter_map(|(name, _, _)| std::env::var(name).ok().map(|value| (name.to_string(), value)))
            .collect()
    }
}

/// Merges every input over the defaults.
pub fn merge(inputs: &Inputs) -> Result<Layered, ParamsError> {
    let mut layered = Layered::new();

    for (name, path, kind) in ENV_ALIASES {
        let Some(text) = inputs.env.get(*name) else { continue };
        // Like `${VAR:=default}`: an empty variable counts as unset.
        if text.is_empty() {
            continue;
        }
        let value = match kind {
            EnvKind::String => Value::String(text.clone()),
            EnvKind::Integer => match text.trim().parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => Value::String(text.clone()),
            },
        };
        let segments =
            parse_path(path).map_err(|message| ParamsError::Internal(format!("env alias {path}: {message}")))?;
        layered
            .merge_at(&segments, value, &|_| Source::Env(name))
            .map_err(|message| ParamsError::Internal(format!("env {name}: {message}")))?;
    }

    for file in &inputs.values_files {
        merge_values_file(&mut layered, file)?;
    }
    for inline in &inputs.values_inline {
        merge_inline_values(&mut layered, inline)?;
    }

    let schema = super::model::schema();
    for arg in &inputs.set {
        let (path, text) = arg
            .split_once('=')
            .ok_or_else(|| ParamsError::Set { arg: arg.clone(), message: "expected `path=value`".into() })?;
        let segments = parse_path(path)
            .map_err(|message| ParamsError::Set { arg: arg.clone(), message: format!("the path {message}") })?;
        let value =
            if expects_string(schema, &segments) && !text.starts_with(['"', '\'']) && !matches!(text, "null" | "~") {
                // `--set kubernetesVersion=1.30` means the string "1.30", not the number 1.3.
                Value::String(text.to_string())
            } else {
                set_value(text).map_err(|message| ParamsError::Set { arg: arg.clone(), message })?
            };
        let label = path.to_string();
        layered
            .merge_at(&segments, value, &|_| Source::Set(label.clone()))
            .map_err(|message| ParamsError::Set { arg: arg.clone(), message })?;
    }

    let flags: [(&Option<String>, &str, &'static str); 3] = [
        (&inputs.cluster_name, "clusterName", "NAME"),
        (&inputs.namespace, "namespace", "--namespace"),
        (&inputs.kubernetes_version, "kubernetesVersion", "--kubernetes-version"),
    ];
    for (value, key, flag) in flags {
        if let Some(value) = value {
            layered
                .merge_at(&[Segment::Key(key.to_string())], Value::String(value.clone()), &|_| Source::Flag(flag))
                .map_err(ParamsError::Internal)?;
        }
    }
    if let Some(count) = inputs.worker_machine_count {
        let segments = [Segment::Key("poolDefaults".to_string()), Segment::Key("replicas".to_string())];
        layered
            .merge_at(&segments, Value::from(count), &|_| Source::Flag("--worker-machine-count"))
            .map_err(ParamsError::Internal)?;
    }
    Ok(layered)
}

fn merge_values_file(layered: &mut Layered, file: &Path) -> Result<(), ParamsError> {
    let name = file.display().to_string();
    let text =
        crate::manifest::read_input_file(file).map_err(|source| ParamsError::Read { path: name.clone(), source })?;
    let (value, lines) = manifest::parse_value(&text, &name)?;
    let value = match value {
        Value::Null => return Ok(()),
        Value::Object(map) => Value::Object(map),
        _ => {
            return Err(ParamsError::NotAMapping { path: name });
        }
    };
    let source_of = |pointer: &str| Source::File { path: name.clone(), line: lines.line_of(pointer).unwrap_or(1) };
    layered.merge_at(&[], value, &source_of).map_err(ParamsError::Internal)
}

fn merge_inline_values(layered: &mut Layered, inline: &InlineValues) -> Result<(), ParamsError> {
    let value = match &inline.value {
        Value::Null => return Ok(()),
        Value::Object(map) => Value::Object(map.clone()),
        _ => {
            let line = inline.lines.line_of(&inline.prefix).unwrap_or(1);
            return Err(ParamsError::NotAMapping { path: format!("{}:{line}", inline.source) });
        }
    };
    let source_of = |pointer: &str| Source::File {
        path: inline.source.clone(),
        line: inline.lines.line_of(&format!("{}{pointer}", inline.prefix)).unwrap_or(1),
    };
    layered.merge_at(&[], value, &source_of).map_err(ParamsError::Internal)
}

/// True when `pointer` lies strictly inside a free-form overlay (`managedCluster/spec/...`), where
/// `null` is kept as data instead of deleting the key from the parameters.
fn in_overlay(pointer: &str) -> bool {
    let root = super::model::schema();
    let mut schema = resolve_schema(root, root);
    for token in pointer.split('/').skip(1) {
        if schema.get("additionalProperties") == Some(&Value::Bool(true)) && schema.get("properties").is_none() {
            return true;
        }
        let key = token.replace("~1", "/").replace("~0", "~");
        let next = if token.chars().all(|c| c.is_ascii_digit()) && schema.get("items").is_some() {
            schema.get("items")
        } else {
            schema.get("properties").and_then(|p| p.get(&key))
        };
        match next {
            Some(next) => schema = resolve_schema(root, next),
            None => return false,
        }
    }
    false
}

fn resolve_schema<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..8 {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str)
            && let Some(target) = root.pointer(reference.trim_start_matches('#'))
        {
            schema = target;
            continue;
        }
        if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
            && let Some(branch) = branches.iter().find(|b| b.get("type") != Some(&Value::from("null")))
        {
            schema = branch;
            continue;
        }
        break;
    }
    schema
}

/// True when the JSON Schema types the parameter at `segments` as a string (possibly nullable).
fn expects_string(root: &Value, segments: &[Segment]) -> bool {
    let mut schema = resolve_schema(root, root);
    for segment in segments {
        let next = match segment {
            Segment::Key(key) => schema
                .get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object())),
            Segment::Index(_) => schema.get("items"),
        };
        match next {
            Some(next) => schema = resolve_schema(root, next),
            None => return false,
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string") && !ts.iter().any(|t| t == "array" || t == "object"),
        _ => false,
    }
}

/// The value of `--set path=text`: a YAML 1.1 scalar or flow collection (`3`, `true`, `[a, b]`,
/// `{k: v}`); an empty text is the empty string.
pub fn set_value(text: &str) -> Result<Value, String> {
    if text.is_empty() {
        return Ok(Value::String(String::new()));
    }
    match manifest::parse_value(text, "--set") {
        Ok((value, _)) => Ok(value),
        Err(err) => Err(format!("the value is not valid YAML: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_parse_with_indexes_quotes_and_escapes() {
        assert_eq!(
            parse_path("pools[0].labels[\"kubernetes.io/os\"]").unwrap(),
            vec![
                Segment::Key("pools".into()),
                Segment::Index(0),
                Segment::Key("labels".into()),
                Segment::Key("kubernetes.io/os".into())
            ]
        );
        assert_eq!(parse_path("a.b\\.c").unwrap(), vec![Segment::Key("a".into()), Segment::Key("b.c".into())]);
        assert_eq!(parse_path("pools[1].agentPool.spec").unwrap().len(), 4);
        for bad in ["", ".a", "a..b", "a.", "a[x]", "a[0", "[0]", "a]", "a[0]b"] {
            assert!(parse_path(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn display_path_round_trips_pointers() {
        assert_eq!(display_path("/pools/0/labels/kubernetes.io~1os"), "pools[0].labels[\"kubernetes.io/os\"]");
        assert_eq!(display_path("/poolDefaults/replicas"), "poolDefaults.replicas");
        assert_eq!(pointer_of("pools[0].labels[\"kubernetes.io/os\"]"), "/pools/0/labels/kubernetes.io~1os");
    }

    #[test]
    fn set_values_are_typed_like_yaml_1_1() {
        assert_eq!(set_value("3").unwrap(), json!(3));
        assert_eq!(set_value("yes").unwrap(), json!(true));
        assert_eq!(set_value("'3'").unwrap(), json!("3"));
        assert_eq!(set_value("[1, a]").unwrap(), json!([1, "a"]));
        assert_eq!(set_value("{a: b}").unwrap(), json!({"a": "b"}));
        assert_eq!(set_value("").unwrap(), json!(""));
        assert!(set_value("[unclosed").is_err());
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn precedence_is_defaults_env_values_set_flags() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.yaml");
        let b = dir.path().join("b.yaml");
        std::fs::write(&a, "clusterName: from-a\nlocation: westeurope\npoolDefaults:\n  replicas: 5\n").unwrap();
        std::fs::write(&b, "# second\nlocation: northeurope\n").unwrap();
        let inputs = Inputs {
            env: env(&[
                ("CLUSTER_NAME", "from-env"),
                ("AZURE_LOCATION", "eastus"),
                ("WORKER_MACHINE_COUNT", "3"),
                ("NAMESPACE", ""),
            ]),
            values_files: vec![a.clone(), b.clone()],
            set: vec!["pools[0].replicas=7".into()],
            cluster_name: Some("from-flag".into()),
            ..Inputs::default()
        };
        let layered = merge(&inputs).unwrap();
        assert_eq!(layered.value["clusterName"], json!("from-flag"));
        assert_eq!(layered.value["location"], json!("northeurope"));
        assert_eq!(layered.value["poolDefaults"]["replicas"], json!(5));
        assert_eq!(layered.value["pools"][0]["replicas"], json!(7));
        assert_eq!(layered.value["pools"][0]["name"], json!("pool0"));
        // An empty env var counts as unset.
        assert_eq!(layered.value["namespace"], json!("default"));
        assert_eq!(layered.source_of("/clusterName"), &Source::Flag("NAME"));
        assert_eq!(layered.source_of("/location"), &Source::File { path: b.display().to_string(), line: 2 });
        assert_eq!(
            layered.source_of("/poolDefaults/replicas"),
            &Source::File { path: a.display().to_string(), line: 4 }
        );
        assert_eq!(layered.source_of("/pools/0/replicas"), &Source::Set("pools[0].replicas".into()));
        assert_eq!(layered.source_of("/pools/0/name"), &Source::Default);
        assert_eq!(layered.source_of("/namespace"), &Source::Default);
    }

    #[test]
    fn env_sets_clusterctl_names_and_keeps_bad_integers_for_the_type_check() {
        let inputs = Inputs {
            env: env(&[("WORKER_MACHINE_COUNT", "many"), ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3")]),
            ..Inputs::default()
        };
        let layered = merge(&inputs).unwrap();
        assert_eq!(layered.value["poolDefaults"], json!({"vmSize": "Standard_D2s_v3", "replicas": "many"}));
        assert_eq!(layered.source_of("/poolDefaults/replicas"), &Source::Env("WORKER_MACHINE_COUNT"));
    }

    #[test]
    fn lists_replace_objects_merge_and_null_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.yaml");
        let b = dir.path().join("b.yaml");
        std::fs::write(
            &a,
            "pools:\n- name: sys\n  mode: System\n- name: user\nmanagedCluster:\n  spec:\n    a: 1\n    b: 2\n",
        )
        .unwrap();
        std::fs::write(
            &b,
            "pools:\n- name: only\nmanagedCluster:\n  spec:\n    b: null\n    c: 3\nnetwork:\n  plugin: null\n",
        )
        .unwrap();
        let inputs = Inputs { values_files: vec![a.clone(), b.clone()], ..Inputs::default() };
        let layered = merge(&inputs).unwrap();
        assert_eq!(layered.value["pools"], json!([{"name": "only"}]));
        // Inside an overlay `null` stays: it deletes the key from the rendered object later.
        assert_eq!(layered.value["managedCluster"], json!({"spec": {"a": 1, "b": null, "c": 3}}));
        // Elsewhere it resets the parameter to its default.
        assert!(layered.value["network"].get("plugin").is_none());
        assert_eq!(layered.source_of("/pools/0/name"), &Source::File { path: b.display().to_string(), line: 2 });
        assert_eq!(
            layered.source_of("/managedCluster/spec/a"),
            &Source::File { path: a.display().to_string(), line: 7 }
        );
        // Sources of the replaced second pool are gone.
        assert_eq!(layered.sources_under("/pools/1").count(), 0);
    }

    #[test]
    fn set_keeps_text_for_string_parameters() {
        let inputs = Inputs {
            set: vec![
                "kubernetesVersion=1.30".into(),
                "pools[0].labels.tier=1".into(),
                "pools[0].labels.gone=x".into(),
                "pools[0].labels.gone=null".into(),
                "managedCluster.spec.servicePrincipalProfile=null".into(),
                "pools[0].replicas=3".into(),
                "pools[0].zones=[1]".into(),
            ],
            ..Inputs::default()
        };
        let value = merge(&inputs).unwrap().value;
        assert_eq!(value["kubernetesVersion"], json!("1.30"));
        assert_eq!(value["pools"][0]["labels"], json!({"tier": "1"}));
        assert_eq!(value["managedCluster"], json!({"spec": {"servicePrincipalProfile": null}}));
        assert_eq!(value["pools"][0]["replicas"], json!(3));
        assert_eq!(value["pools"][0]["zones"], json!([1]));
    }

    #[test]
    fn set_appends_at_the_end_but_not_past_it() {
        let ok = Inputs { set: vec!["pools[2].name=extra".into()], ..Inputs::default() };
        assert_eq!(merge(&ok).unwrap().value["pools"][2], json!({"name": "extra"}));
        let past = Inputs { set: vec!["pools[5].name=x".into()], ..Inputs::default() };
        let err = merge(&past).unwrap_err().to_string();
        assert!(err.contains("past the end of `pools`"), "{err}");
        let scalar = Inputs { set: vec!["namespace.x=1".into()], ..Inputs::default() };
        assert!(merge(&scalar).unwrap_err().to_string().contains("`namespace` is not an object"));
    }

    #[test]
    fn malformed_values_file_reports_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("bad.yaml");
        std::fs::write(&a, "clusterName: a\npools:\n  - name: [x\n").unwrap();
        let err = merge(&Inputs { values_files: vec![a.clone()], ..Inputs::default() }).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}:", a.display())), "{err}");
        let rest = &err[a.display().to_string().len() + 1..];
        let mut parts = rest.splitn(3, ':');
        assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{err}");
        assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{err}");
    }
}
