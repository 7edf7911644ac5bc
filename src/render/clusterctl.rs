//! clusterctl `generate cluster --from` semantics: variable lookup (viper), the injected variables,
//! the target namespace, the re-marshalled output and `--list-variables`.
//!
//! Sources: sigs.k8s.io/cluster-api v1.14.2 `cmd/clusterctl` (`client/config.go`
//! `templateOptionsToVariables`, `client/config/reader_viper.go`, `client/repository/template.go`,
//! `components.go` `fixTargetNamespace`, `cmd/util.go` `printVariablesOutput`, `util/yaml`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Number, Value};

use super::envsubst::{self, EvalError, ParseErrorKind, ProcessError, VariableMap, is_go_digit, is_go_letter};
use crate::json_pointer::At;
use crate::manifest;

/// Where variable values come from, looked up like clusterctl's viper: explicit values (flags,
/// `--set`) win over the environment (an empty variable counts as set), which wins over the config
/// file (`--values`). Names are case-insensitive: `${foo}` reads `FOO` from the environment.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    explicit: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
    config: BTreeMap<String, Value>,
}

impl Variables {
    /// A lookup over the process environment (`name -> value`) and a config map (a values file).
    pub fn new(env: impl IntoIterator<Item = (String, String)>, config: &Map<String, Value>) -> Self {
        Variables {
            explicit: BTreeMap::new(),
            env: env.into_iter().collect(),
            config: config.iter().map(|(k, v)| (go_lower(k), v.clone())).collect(),
        }
    }

    /// viper's `Set`: the highest precedence.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.explicit.insert(go_lower(name), value.into());
    }

    /// viper's `Get` + `GetString`: `None` when the name is nowhere (or `null` in the config).
    pub fn get(&self, name: &str) -> Option<String> {
        let key = go_lower(name);
        if let Some(value) = self.explicit.get(&key) {
            return Some(value.clone());
        }
        if let Some(value) = self.env.get(&go_upper(&key.replace('-', "_"))) {
            return Some(value.clone());
        }
        match self.config.get(&key)? {
            Value::Null => None,
            value => Some(cast_to_string(value)),
        }
    }

    /// An explicitly set value (flag or `--set`) or, failing that, the environment variable of
    /// exactly this name: what `--list-variables` shows for the machine counts and the version.
    fn explicit_or_env(&self, name: &str) -> Option<String> {
        self.explicit.get(&go_lower(name)).or_else(|| self.env.get(name)).cloned()
    }
}

/// Reads a values file for `--from` like clusterctl reads clusterctl.yaml (viper, yaml.v3): a map of
/// variable names to values. Our YAML reader is YAML 1.1, viper's is not quite, so the plain scalars
/// they read differently are taken as viper reads them: `yes`/`no`/`on`/`off`/`y`/`n` stay strings,
/// `0o17` is octal and a date is a midnight UTC timestamp. (`.inf`/`.nan`, which viper accepts, are
/// rejected by our reader.)
pub fn parse_config(text: &str, source_name: &str) -> Result<Map<String, Value>, ClusterctlError> {
    let (value, lines) =
        manifest::parse_value(text, source_name).map_err(|err| ClusterctlError::Config(err.to_string()))?;
    let map = match value {
        Value::Object(map) => map,
        Value::Null => return Ok(Map::new()),
        _ => {
            return Err(ClusterctlError::Config(format!(
                "{source_name}: a values file for --from is a map of variable names to values (like clusterctl.yaml)"
            )));
        }
    };
    let source_lines: Vec<&str> = text.lines().collect();
    let mut out = Map::new();
    for (key, value) in map {
        let pointer = format!("/{}", crate::json_pointer::escape_token(&key));
        let line = lines.line_of(&pointer).and_then(|line| source_lines.get(line.wrapping_sub(1)));
        let raw = line.and_then(|line| plain_scalar_after_key(line));
        // `N:`, `y:`, `off:` ... are boolean keys in YAML 1.1 but names for viper.
        let key = match line.and_then(|line| line.trim_start().split_once(':')).map(|(k, _)| k.trim()) {
            Some(raw_key)
                if (key == "true" || key == "false")
                    && !matches!(raw_key, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") =>
            {
                raw_key.to_string()
            }
            _ => key,
        };
        let value = match (value, raw) {
            (Value::Bool(_), Some(raw)) if !matches!(raw, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") => {
                Value::String(raw.to_string())
            }
            (Value::String(s), Some(raw)) if s == raw => viper_plain_string(s),
            (value, _) => value,
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// The unquoted scalar written after `key:` on a line, without a trailing comment.
fn plain_scalar_after_key(line: &str) -> Option<&str> {
    let (_, rest) = line.split_once(": ").or_else(|| line.split_once(":\t"))?;
    let rest = match rest.find(" #") {
        Some(cut) => &rest[..cut],
        None => rest,
    };
    let rest = rest.trim();
    (!rest.is_empty() && !rest.starts_with(['"', '\'', '|', '>', '[', '{', '&', '*', '!'])).then_some(rest)
}

static OCTAL_0O: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[-+]?0o[0-7]+$").expect("octal regex is valid"));
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$").expect("date regex is valid"));

/// A plain scalar our YAML 1.1 reader kept as a string but yaml.v3 resolves.
fn viper_plain_string(s: String) -> Value {
    if OCTAL_0O.is_match(&s) {
        let negative = s.starts_with('-');
        let digits = s.trim_start_matches(['-', '+']).trim_start_matches("0o");
        if let Ok(n) = i64::from_str_radix(digits, 8) {
            return Value::Number(Number::from(if negative { -n } else { n }));
        }
    }
    if DATE.is_match(&s) {
        return Value::String(format!("{s} 00:00:00 +0000 UTC"));
    }
    Value::String(s)
}

/// spf13/cast `ToString` for the values viper reads from a config file.
fn cast_to_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => format!("{f}"),
            _ => n.to_string(),
        },
        // Lists and maps are not strings: cast fails and viper's GetString gives "".
        Value::Null | Value::Array(_) | Value::Object(_) => String::new(),
    }
}

fn go_lower(s: &str) -> String {
    s.chars().map(simple_lower).collect()
}

fn go_upper(s: &str) -> String {
    s.chars().map(simple_upper).collect()
}

fn simple_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn simple_upper(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// The `generate cluster` options that become variables.
#[derive(Debug, Clone, Default)]
pub struct GenerateOptions {
    /// The cluster name (clusterctl's argument); `None` leaves `CLUSTER_NAME` to the variables.
    pub cluster_name: Option<String>,
    /// The target namespace (always known here: there is no management cluster to ask).
    pub target_namespace: String,
    /// `--kubernetes-version`.
    pub kubernetes_version: Option<String>,
    /// `--control-plane-machine-count`, when given.
    pub control_plane_machine_count: Option<i64>,
    /// `--worker-machine-count`, when given.
    pub worker_machine_count: Option<i64>,
}

/// Errors of `generate cluster`; the texts are clusterctl's where it has one.
#[derive(Debug, thiserror::Error)]
pub enum ClusterctlError {
    #[error("invalid target-namespace: {0}")]
    InvalidNamespace(String),
    #[error("invalid cluster name: {0}")]
    InvalidClusterName(String),
    #[error("invalid KubernetesVersion. Please use a semantic version number")]
    InvalidKubernetesVersion { version: String, reason: String },
    #[error("invalid value for {0} set")]
    InvalidCount(&'static str),
    #[error("invalid ControlPlaneMachineCount. Please use a number greater than or equal to 1")]
    ControlPlaneCountTooLow,
    #[error("invalid WorkerMachineCount. Please use a number greater than or equal to 0")]
    WorkerCountTooLow,
    /// The template does not parse (envsubst's message, where the expression starts).
    #[error("{source_name}:{line}:{column}: {kind}")]
    Template { source_name: String, line: usize, column: usize, kind: ParseErrorKind },
    /// Variables without value and default (clusterctl's message).
    #[error(
        "value for variables [{}] is not set. Please set the value using os environment variables or the clusterctl config file",
        .0.join(", ")
    )]
    MissingVariables(Vec<String>),
    #[error("{source_name}: {error}")]
    Substitution { source_name: String, error: EvalError },
    /// The substituted text is not YAML objects.
    #[error("failed to parse yaml: {0}")]
    Yaml(String),
    /// The values file is not a map of variables.
    #[error("{0}")]
    Config(String),
    /// `fixTargetNamespace` could not rewrite an object.
    #[error("failed to set the TargetNamespace in the template: {0}")]
    TargetNamespace(String),
}

/// A processed template: its variables and, unless only listing, its objects.
#[derive(Debug, Clone)]
pub struct GeneratedTemplate {
    /// clusterctl's `VariableMap`: name -> default (`None` = required).
    pub variables: VariableMap,
    /// The objects, in template order, in the target namespace, numbers and keys as clusterctl
    /// re-marshals them.
    pub objects: Vec<Value>,
}

/// clusterctl's `templateOptionsToVariables`: validates the options and sets `NAMESPACE`,
/// `CLUSTER_NAME`, `KUBERNETES_VERSION`, `CONTROL_PLANE_MACHINE_COUNT` (default 1) and
/// `WORKER_MACHINE_COUNT` (default 0) as explicit variables.
pub fn inject_options(options: &GenerateOptions, variables: &mut Variables) -> Result<(), ClusterctlError> {
    let errors = dns1123_label_errors(&options.target_namespace);
    if !errors.is_empty() {
        return Err(ClusterctlError::InvalidNamespace(errors.join("; ")));
    }
    variables.set("NAMESPACE", options.target_namespace.clone());
    if let Some(name) = &options.cluster_name {
        let errors = dns1123_subdomain_errors(name);
        if !errors.is_empty() {
            return Err(ClusterctlError::InvalidClusterName(errors.join("; ")));
        }
        variables.set("CLUSTER_NAME", name.clone());
    }
    if let Some(version) = &options.kubernetes_version
        && !version.is_empty()
    {
        parse_semantic_version(version)
            .map_err(|reason| ClusterctlError::InvalidKubernetesVersion { version: version.clone(), reason })?;
        variables.set("KUBERNETES_VERSION", version.clone());
    }
    let control_plane =
        machine_count(options.control_plane_machine_count, "CONTROL_PLANE_MACHINE_COUNT", 1, variables)?;
    if control_plane < 1 {
        return Err(ClusterctlError::ControlPlaneCountTooLow);
    }
    variables.set("CONTROL_PLANE_MACHINE_COUNT", control_plane.to_string());
    let workers = machine_count(options.worker_machine_count, "WORKER_MACHINE_COUNT", 0, variables)?;
    if workers < 0 {
        return Err(ClusterctlError::WorkerCountTooLow);
    }
    variables.set("WORKER_MACHINE_COUNT", workers.to_string());
    Ok(())
}

fn machine_count(
    flag: Option<i64>,
    name: &'static str,
    default: i64,
    variables: &Variables,
) -> Result<i64, ClusterctlError> {
    if let Some(count) = flag {
        return Ok(count);
    }
    match variables.get(name) {
        None => Ok(default),
        Some(text) => text.parse::<i64>().map_err(|_| ClusterctlError::InvalidCount(name)),
    }
}

/// Processes a template like `clusterctl generate cluster --from FILE`, with `variables` on which
/// [`inject_options`] already ran: substitutes (all missing variables reported at once), parses
/// the objects (empty documents dropped) and moves every namespaced object into the target namespace.
pub fn generate(
    text: &str,
    source_name: &str,
    target_namespace: &str,
    variables: &Variables,
) -> Result<GeneratedTemplate, ClusterctlError> {
    let variable_map = variable_map(text, source_name)?;
    let processed = envsubst::process(text, |name| variables.get(name)).map_err(|err| match err {
        ProcessError::Parse(parse) => template_error(source_name, parse),
        ProcessError::Missing(names) => ClusterctlError::MissingVariables(names),
        ProcessError::Eval(error) => ClusterctlError::Substitution { source_name: source_name.to_string(), error },
    })?;
    let mut objects = to_unstructured(&processed, source_name)?;
    fix_target_namespace(&mut objects, target_namespace)?;
    let objects = objects.into_iter().map(|o| remarshal(&o)).collect();
    Ok(GeneratedTemplate { variables: variable_map, objects })
}

/// The template's variables only (clusterctl `GetVariableMap`), for `--list-variables`.
pub fn variable_map(text: &str, source_name: &str) -> Result<VariableMap, ClusterctlError> {
    envsubst::variable_map(text).map_err(|err| template_error(source_name, err))
}

fn template_error(source_name: &str, err: envsubst::ParseError) -> ClusterctlError {
    ClusterctlError::Template {
        source_name: source_name.to_string(),
        line: err.line,
        column: err.column,
        kind: err.kind,
    }
}

/// Output like clusterctl: documents joined by `---`, a final newline (a lone newline when empty).
pub fn to_yaml(objects: &[Value]) -> String {
    if objects.is_empty() {
        return "\n".to_string();
    }
    manifest::to_yaml_documents(objects.iter())
}

// ---------------------------------------------------------------------------------------------
// util/yaml ToUnstructured: apimachinery's YAMLReader splitting, then sigs.k8s.io/yaml per document.

fn to_unstructured(text: &str, source_name: &str) -> Result<Vec<Value>, ClusterctlError> {
    let mut objects = Vec::new();
    for (document, first_line) in split_documents(text)? {
        let label = format!("{source_name} (after substitution)");
        let value = manifest::parse_plain_value(&document, &label).map_err(|err| {
            // Report the line in the whole substituted text, not in the document.
            match err {
                manifest::ManifestError::Syntax { line, column, message, .. } => {
                    ClusterctlError::Yaml(format!("{label}:{}:{column}: {message}", line + first_line - 1))
                }
                other => ClusterctlError::Yaml(other.to_string()),
            }
        })?;
        match value {
            Value::Null => continue,
            Value::Object(_) => objects.push(value),
            _ => {
                return Err(ClusterctlError::Yaml(format!(
                    "{label}:{first_line}: failed to unmarshal the {} yaml document: {:?} is not a mapping",
                    ordinal(objects.len() + 1),
                    document.trim_end()
                )));
            }
        }
    }
    Ok(objects)
}

/// apimachinery `YAMLReader`: a line starting with `---` separates documents (only spaces or a
/// comment may follow it); empty documents are skipped. Returns each document with its first line.
fn split_documents(text: &str) -> Result<Vec<(String, usize)>, ClusterctlError> {
    let mut documents = Vec::new();
    let mut current = String::new();
    let mut current_line = 1;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim_matches(|c: char| c.is_whitespace());
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err(ClusterctlError::Yaml(format!(
                    "failed to read yaml: invalid Yaml document separator: {trimmed} (line {})",
                    i + 1
                )));
            }
            if !current.is_empty() {
                documents.push((std::mem::take(&mut current), current_line));
            }
            current_line = i + 2;
            continue;
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        documents.push((current, current_line));
    }
    Ok(documents)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

// ---------------------------------------------------------------------------------------------
// fixTargetNamespace (client/repository/components.go) and IsResourceNamespaced (internal/util/objs.go)

/// Kinds clusterctl treats as cluster-scoped; every other kind gets the target namespace.
pub const CLUSTER_SCOPED_KINDS: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "CertificateSigningRequest",
    "ClusterRoleBinding",
    "ClusterRole",
    "VolumeAttachment",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "CustomResourceDefinition",
    "PriorityClass",
    "RuntimeClass",
];

fn metadata_mut(object: &mut Value) -> Option<&mut Map<String, Value>> {
    let map = object.as_object_mut()?;
    let metadata = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    metadata.as_object_mut()
}

/// Moves the objects into `target`: `metadata.namespace` on every namespaced kind, `Namespace`
/// objects renamed, RoleBinding/ClusterRoleBinding subjects with a namespace, webhook and CRD
/// conversion services, cert-manager `inject-ca-from` annotations and Certificate DNS names.
/// References (`*Ref.namespace`, `classNamespace`, ASO `owner`) are left alone, as clusterctl does.
pub fn fix_target_namespace(objects: &mut [Value], target: &str) -> Result<(), ClusterctlError> {
    for object in objects.iter_mut() {
        let kind = object.str_at("/kind").unwrap_or("").to_string();
        if kind == "Namespace"
            && let Some(metadata) = metadata_mut(object)
        {
            metadata.insert("name".into(), Value::String(target.into()));
        }
        let original_namespace = object.str_at("/metadata/namespace").unwrap_or("").to_string();
        if !CLUSTER_SCOPED_KINDS.contains(&kind.as_str())
            && let Some(metadata) = metadata_mut(object)
        {
            metadata.insert("namespace".into(), Value::String(target.into()));
        }
        match kind.as_str() {
            "ClusterRoleBinding" | "RoleBinding" => {
                if let Some(subjects) = object.get_mut("subjects").and_then(Value::as_array_mut) {
                    for subject in subjects {
                        if let Some(ns) = subject.get_mut("namespace")
                            && ns.as_str().is_some_and(|s| !s.is_empty())
                        {
                            *ns = Value::String(target.into());
                        }
                    }
                }
            }
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" | "CustomResourceDefinition" => {
                fix_webhook_references(object, &kind, target)?;
            }
            "Certificate" => fix_certificate(object, &original_namespace, target)?,
            _ => {}
        }
    }
    Ok(())
}

fn fix_webhook_references(object: &mut Value, kind: &str, target: &str) -> Result<(), ClusterctlError> {
    const ANNOTATION: &str = "cert-manager.io/inject-ca-from";
    let name = object.str_at("/metadata/name").unwrap_or("").to_string();
    if let Some(value) = object.pointer_mut(&format!("/metadata/annotations/{}", ANNOTATION.replace('/', "~1"))) {
        let text = value.as_str().unwrap_or("").to_string();
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() != 2 {
            return Err(ClusterctlError::TargetNamespace(format!(
                "object {kind} {name} does not have a correct value for {ANNOTATION}"
            )));
        }
        *value = Value::String(format!("{target}/{}", parts[1]));
    }
    let version = manifest::split_api_version(object.str_at("/apiVersion").unwrap_or("")).1.to_string();
    let services: Vec<String> = match (kind, version.as_str()) {
        ("CustomResourceDefinition", "v1") => vec!["/spec/conversion/webhook/clientConfig/service".into()],
        ("CustomResourceDefinition", "v1beta1") => vec!["/spec/conversion/webhookClientConfig/service".into()],
        (_, "v1" | "v1beta1") if kind != "CustomResourceDefinition" => {
            let count = object.get("webhooks").and_then(Value::as_array).map_or(0, Vec::len);
            (0..count).map(|i| format!("/webhooks/{i}/clientConfig/service")).collect()
        }
        _ => return Err(ClusterctlError::TargetNamespace(format!("failed to patch {version} {kind}"))),
    };
    for pointer in services {
        if let Some(service) = object.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            service.insert("namespace".into(), Value::String(target.into()));
        }
    }
    Ok(())
}

fn fix_certificate(object: &mut Value, original: &str, target: &str) -> Result<(), ClusterctlError> {
    let Some(names) = object.pointer_mut("/spec/dnsNames") else { return Ok(()) };
    let Some(items) = names.as_array_mut() else {
        return Err(ClusterctlError::TargetNamespace("failed to get .spec.dnsNames from Certificate".into()));
    };
    let from = format!(".{original}.");
    let to = format!(".{target}.");
    for item in items {
        let Some(text) = item.as_str() else {
            return Err(ClusterctlError::TargetNamespace("failed to get .spec.dnsNames from Certificate".into()));
        };
        *item = Value::String(text.replacen(&from, &to, 1));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Re-marshalling as sigs.k8s.io/yaml does: numbers go through float64 (JSON), then go-yaml v2
// re-types them; mapping keys come out in go-yaml v2's order.

fn remarshal(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let keys = sort_yaml_v2_keys(map.keys().collect());
            Value::Object(keys.into_iter().map(|k| (k.clone(), remarshal(&map[k]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(remarshal).collect()),
        Value::Number(n) => Value::Number(go_number(n)),
        other => other.clone(),
    }
}

/// A number after `json.Unmarshal` into `interface{}` (float64), `json.Marshal` and go-yaml v2's
/// resolution: integral values below 1e21 print as integers, others stay floats.
fn go_number(n: &Number) -> Number {
    let Some(f) = n.as_f64() else { return n.clone() };
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e21 {
        let digits = format!("{f}");
        if let Ok(i) = digits.parse::<i64>() {
            return Number::from(i);
        }
        if let Ok(u) = digits.parse::<u64>() {
            return Number::from(u);
        }
    }
    Number::from_f64(f).unwrap_or_else(|| n.clone())
}

/// `keys` in go-yaml v2's order, by a merge sort that only asks `yaml_v2_less`: that relation is not a total
/// order for every pair of keys (Go's `sort.Sort` accepts that; Rust's `sort_by` panics on it).
fn sort_yaml_v2_keys(mut keys: Vec<&String>) -> Vec<&String> {
    let mut width = 1;
    while width < keys.len() {
        let mut merged = Vec::with_capacity(keys.len());
        for start in (0..keys.len()).step_by(2 * width) {
            let middle = (start + width).min(keys.len());
            let end = (start + 2 * width).min(keys.len());
            let (mut left, mut right) = (start, middle);
            while left < middle && right < end {
                if yaml_v2_less(keys[right], keys[left]) {
                    merged.push(keys[right]);
                    right += 1;
                } else {
                    merged.push(keys[left]);
                    left += 1;
                }
            }
            merged.extend_from_slice(&keys[left..middle]);
            merged.extend_from_slice(&keys[right..end]);
        }
        keys = merged;
        width *= 2;
    }
    keys
}

/// go-yaml v2's `keyList.Less` for string keys: letters after other characters, runs of digits
/// compared as numbers.
#[cfg(test)]
fn yaml_v2_key_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if yaml_v2_less(a, b) {
        Ordering::Less
    } else if yaml_v2_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn yaml_v2_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = is_go_letter(ar[i]);
        let bl = is_go_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && is_go_digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_go_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_go_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

// ---------------------------------------------------------------------------------------------
// Validation as apimachinery v0.36 and clusterctl do it.

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
static DNS1123_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{DNS1123_LABEL_FMT}$")).expect("label regex is valid"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^{DNS1123_LABEL_FMT}(\.{DNS1123_LABEL_FMT})*$")).expect("subdomain regex is valid")
});

/// apimachinery `IsDNS1123Label`.
pub fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_string());
    }
    if !DNS1123_LABEL.is_match(value) {
        if DNS1123_SUBDOMAIN.is_match(value) {
            errors.push("must not contain dots".to_string());
        } else {
            errors.push(format!(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must \
                 start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
                 validation is '{DNS1123_LABEL_FMT}')"
            ));
        }
    }
    errors
}

/// apimachinery `IsDNS1123Subdomain`.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 characters".to_string());
    }
    if !DNS1123_SUBDOMAIN.is_match(value) {
        errors.push(format!(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and \
             must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation \
             is '{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*')"
        ));
    }
    errors
}

static VERSION_MATCH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\t\n\f\r ]*v?([0-9]+(?:\.[0-9]+)*)(.*)$").expect("version regex is valid"));
static EXTRA_MATCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?[\t\n\f\r ]*$")
        .expect("extra regex is valid")
});

/// apimachinery `version.ParseSemantic`; the error is its message.
pub fn parse_semantic_version(text: &str) -> Result<(), String> {
    let caps = VERSION_MATCH.captures(text).ok_or_else(|| format!("could not parse {text:?} as version"))?;
    let numbers = caps.get(1).map_or("", |m| m.as_str());
    let extra = caps.get(2).map_or("", |m| m.as_str());
    let components: Vec<&str> = numbers.split('.').collect();
    if components.len() != 3 {
        return Err(format!("illegal version string {text:?}"));
    }
    for component in &components {
        if component.starts_with('0') && *component != "0" {
            return Err(format!("illegal zero-prefixed version component {component:?} in {text:?}"));
        }
        component
            .parse::<u64>()
            .map_err(|err| format!("illegal non-numeric version component {component:?} in {text:?}: {err}"))?;
    }
    if !extra.is_empty() {
        let caps = EXTRA_MATCH
            .captures(extra)
            .ok_or_else(|| format!("could not parse pre-release/metadata ({extra}) in version {text:?}"))?;
        let pre_release = caps.get(1).map_or("", |m| m.as_str());
        for component in pre_release.split('.') {
            if component.parse::<u64>().is_ok() && component.starts_with('0') && component != "0" {
                return Err(format!("illegal zero-prefixed version component {component:?} in {text:?}"));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// --list-variables (cmd/util.go printVariablesOutput)

/// The text `clusterctl generate cluster --list-variables` prints, with its overrides for the
/// variables clusterctl fills itself. `variables` is the lookup as it was before [`inject_options`]:
/// the machine counts and the version show a `--set` value or the environment variable, like
/// clusterctl shows its flags or `os.LookupEnv` (a values file is not consulted, as in clusterctl).
pub fn list_variables_output(
    template_variables: &VariableMap,
    options: &GenerateOptions,
    variables: &Variables,
) -> String {
    let mut required = Vec::new();
    let mut optional: Vec<(String, String)> = Vec::new();
    for (name, default) in template_variables {
        let mut shown = default.as_ref().map(|v| if v.starts_with('"') { v.clone() } else { go_quote(v) });
        match name.as_str() {
            "CLUSTER_NAME" => {
                if let Some(cluster_name) = &options.cluster_name {
                    shown = Some(cluster_name.clone());
                }
            }
            "NAMESPACE" => shown = Some(options.target_namespace.clone()),
            "CONTROL_PLANE_MACHINE_COUNT" => {
                shown = Some(match options.control_plane_machine_count {
                    Some(count) => count.to_string(),
                    None => variables.explicit_or_env(name).unwrap_or_else(|| "1".into()),
                })
            }
            "WORKER_MACHINE_COUNT" => {
                shown = Some(match options.worker_machine_count {
                    Some(count) => count.to_string(),
                    None => variables.explicit_or_env(name).unwrap_or_else(|| "0".into()),
                })
            }
            "KUBERNETES_VERSION" => {
                if let Some(version) = options.kubernetes_version.as_ref().filter(|v| !v.is_empty()) {
                    shown = Some(version.clone());
                } else if let Some(value) = variables.explicit_or_env(name) {
                    shown = Some(value);
                }
            }
            _ => {}
        }
        match shown {
            Some(value) => optional.push((name.clone(), value)),
            None => required.push(name.clone()),
        }
    }
    let mut out = String::new();
    if !required.is_empty() {
        out.push_str("Required Variables:\n");
        for name in &required {
            let _ = writeln!(out, "  - {name}");
        }
    }
    if !optional.is_empty() {
        out.push_str("\nOptional Variables:\n");
        // text/tabwriter, padding 2: the first cells padded to the widest one plus 2.
        let width = optional.iter().map(|(name, _)| 4 + name.chars().count()).max().unwrap_or(0) + 2;
        for (name, value) in &optional {
            let cell = format!("  - {name}");
            let pad = width - cell.chars().count();
            let _ = writeln!(out, "{cell}{}(defaults to {value})", " ".repeat(pad));
        }
    }
    out.push('\n');
    out
}

static GO_PRINTABLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").expect("printable regex is valid"));

/// Go's `%q` (`strconv.Quote`) for a valid UTF-8 string.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            ' ' => out.push(' '),
            c if c.is_ascii() && (c < ' ' || c == '\u{7f}') => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                if GO_PRINTABLE.is_match(c.encode_utf8(&mut buf)) {
                    out.push(c);
                } else if (c as u32) < 0x10000 {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                } else {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn viper_precedence_and_case_folding() {
        let config = json!({"azure_location": "westus", "COUNT": 3, "NOTHING": null, "LIST": [1]});
        let mut vars = Variables::new(
            [("AZURE_LOCATION".to_string(), "eastus".to_string()), ("EMPTY".to_string(), String::new())],
            config.as_object().unwrap(),
        );
        assert_eq!(vars.get("AZURE_LOCATION").as_deref(), Some("eastus"), "environment beats config");
        assert_eq!(vars.get("azure_location").as_deref(), Some("eastus"), "lower-case names read the upper-case env");
        assert_eq!(vars.get("EMPTY").as_deref(), Some(""), "an empty environment variable is set");
        assert_eq!(vars.get("count").as_deref(), Some("3"));
        assert_eq!(vars.get("NOTHING"), None, "null in the config is unset");
        assert_eq!(vars.get("LIST").as_deref(), Some(""), "lists are not strings for viper");
        vars.set("AZURE_LOCATION", "northeurope");
        assert_eq!(vars.get("AZURE_LOCATION").as_deref(), Some("northeurope"), "explicit beats environment");
    }

    #[test]
    fn semantic_versions_like_apimachinery() {
        for ok in ["v1.33.2", "1.33.2", "v1.33.2-rc.1+build.5", " v1.2.3", "v1.2.3 "] {
            assert_eq!(parse_semantic_version(ok), Ok(()), "{ok}");
        }
        assert_eq!(parse_semantic_version("v1.33").unwrap_err(), "illegal version string \"v1.33\"");
        assert_eq!(
            parse_semantic_version("v1.033.0").unwrap_err(),
            "illegal zero-prefixed version component \"033\" in \"v1.033.0\""
        );
        assert_eq!(parse_semantic_version("latest").unwrap_err(), "could not parse \"latest\" as version");
        assert!(parse_semantic_version("v1.2.3-01").is_err());
        assert!(parse_semantic_version("v1.2.3_x").is_err());
    }

    #[test]
    fn yaml_v2_key_order_puts_non_letters_first_and_numbers_numerically() {
        let mut keys = vec!["b", "a_b", "A", "_z", "item10", "item9", "aB", "a.b", "a"];
        keys.sort_by(|a, b| yaml_v2_key_order(a, b));
        assert_eq!(keys, ["_z", "A", "a", "a.b", "a_b", "aB", "b", "item9", "item10"]);
    }

    #[test]
    fn numbers_go_through_float64() {
        let value = json!({"a": 12345678901234567_u64, "b": 1.5, "c": 1000.0, "d": 3});
        let out = remarshal(&value);
        assert_eq!(out, json!({"a": 12345678901234568_u64, "b": 1.5, "c": 1000, "d": 3}));
    }

    #[test]
    fn go_quote_matches_strconv_quote() {
        assert_eq!(go_quote("a\"b\\c\n\u{1}\u{a0}é\u{200b}"), "\"a\\\"b\\\\c\\n\\x01\\u00a0é\\u200b\"");
    }

    #[test]
    fn namespaces_follow_clusterctl() {
        let mut objects = vec![
            json!({"kind": "Cluster", "metadata": {"name": "c", "namespace": "x"}, "spec": {"infrastructureRef": {"namespace": "x"}}}),
            json!({"kind": "Namespace", "metadata": {"name": "old"}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "r"}}),
            json!({"kind": "RoleBinding", "metadata": {"name": "rb"}, "subjects": [{"kind": "ServiceAccount", "name": "s", "namespace": "x"}, {"kind": "User", "name": "u"}]}),
        ];
        fix_target_namespace(&mut objects, "target").unwrap();
        assert_eq!(objects[0]["metadata"]["namespace"], "target");
        assert_eq!(objects[0]["spec"]["infrastructureRef"]["namespace"], "x", "references are not touched");
        assert_eq!(objects[1]["metadata"], json!({"name": "target"}));
        assert!(objects[2]["metadata"].get("namespace").is_none());
        assert_eq!(objects[3]["subjects"][0]["namespace"], "target");
        assert!(objects[3]["subjects"][1].get("namespace").is_none());
    }

    #[test]
    fn document_separators_like_yaml_reader() {
        let docs = split_documents("a: 1\n---\n---  # c\nb: 2\n--- \n").unwrap();
        assert_eq!(docs, [("a: 1\n".to_string(), 1), ("b: 2\n".to_string(), 4)]);
        assert!(split_documents("a: 1\n--- b\n").is_err());
    }
}
