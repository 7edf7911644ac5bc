//! CAPI's admission webhooks for a ClusterClass and a topology Cluster, run before planning as
//! `clusterctl alpha topology plan` and the API server run them: the ClusterClass checks
//! (patches, selectors, variables, worker classes, naming templates), the Cluster's defaulting
//! (version prefix, variable defaults, Go's canonical durations, the fields CAPI's typed objects
//! always write) and the Cluster checks (version, worker topologies, MachineHealthChecks).
//! Errors carry CAPI's field paths and texts (`internal/webhooks` of CAPI v1.10,
//! `core/webhooks/admission` of v1.14).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::gotemplate;
use super::variables::{self, VariableDefinition};

/// CAPI v1.14 validates v1beta1 objects after converting them to v1beta2, so its messages name the
/// v1beta2 fields: for a v1beta1 path whose v1beta2 spelling differs, ` (v1beta2: PATH)`, else "".
pub fn v1beta2_path_hint(path: &str) -> String {
    let v1beta2 = path
        .replace("infrastructureNamingStrategy.", "infrastructure.naming.")
        .replace(".namingStrategy.", ".naming.")
        .replace(".machineHealthCheck", ".healthCheck");
    if v1beta2 == path { String::new() } else { format!(" (v1beta2: {v1beta2})") }
}

/// One rejected field, as Kubernetes' `field.Error` prints it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}{}: {kind}{}: {detail}", .context.as_ref().map(|c| format!(" ({c})")).unwrap_or_default(), .value.as_ref().map(|v| format!(": {v}")).unwrap_or_default())]
pub struct FieldError {
    /// CAPI's field path (`spec.patches[1].definitions[0].jsonPatches[1].path`).
    pub path: String,
    /// What the path is about in words, e.g. `patch "bad"`.
    pub context: Option<String>,
    /// `Invalid value`, `Required value`, `Unsupported value`, `Forbidden`, `Duplicate value`.
    pub kind: &'static str,
    /// The offending value as Go quotes it, when the error kind shows one.
    pub value: Option<String>,
    pub detail: String,
}

fn invalid(path: String, value: String, detail: impl Into<String>) -> FieldError {
    FieldError { path, context: None, kind: "Invalid value", value: Some(value), detail: detail.into() }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn s<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// A class template reference in either API shape: (apiVersion or apiGroup, kind).
fn template_ref(class: &Value, base: &str) -> Option<(String, String)> {
    for suffix in ["/templateRef", "/ref"] {
        if let Some(r) = class.pointer(&format!("{base}{suffix}")).filter(|r| r.is_object()) {
            return Some((s(r, "/apiVersion").unwrap_or("").to_string(), s(r, "/kind").unwrap_or("").to_string()));
        }
    }
    None
}

/// The (bootstrap, infrastructure) template refs of a worker class (v1beta1 `template:` or v1beta2).
fn worker_refs(worker: &Value) -> Vec<(String, String)> {
    let base = if worker.get("template").is_some() { "/template" } else { "" };
    ["bootstrap", "infrastructure"].iter().filter_map(|part| template_ref(worker, &format!("{base}/{part}"))).collect()
}

fn class_name_matches(selector_name: &str, class: &str) -> bool {
    selector_name == "*"
        || selector_name == class
        || (selector_name.starts_with('*') && class.ends_with(&selector_name[1..]))
        || (selector_name.ends_with('*') && class.starts_with(&selector_name[..selector_name.len() - 1]))
}

/// Go's `json.MarshalIndent(v, "", "  ")` of a patch object, as CAPI's `prettyPrint` shows it
/// (keys in Go's struct order: op, path, value, valueFrom).
fn pretty(v: &Value) -> String {
    let mut ordered = Map::new();
    if let Some(map) = v.as_object() {
        for key in ["op", "path", "value", "valueFrom"] {
            if let Some(x) = map.get(key) {
                ordered.insert(key.into(), x.clone());
            }
        }
    }
    let text = serde_json::to_string_pretty(&Value::Object(ordered)).unwrap_or_default();
    quoted(&text)
}

/// The ClusterClass checks of CAPI's validating webhook that decide whether a plan can be made.
pub fn validate_class(class: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    validate_template_refs(class, &mut errors);
    validate_worker_classes(class, &mut errors);
    validate_class_health_checks(class, &mut errors);
    validate_naming(class, &mut errors);
    validate_variable_definitions(class, &mut errors);
    validate_patches(class, &mut errors);
    validate_class_metadata(class, &mut errors);
    validate_taints(class.pointer("/spec/controlPlane/taints"), "spec.controlPlane.taints", &mut errors);
    for key in ["machineDeployments", "machinePools"] {
        for item in class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array).into_iter().flatten() {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            validate_taints(item.get("taints"), &format!("spec.workers.{key}[{name}].taints"), &mut errors);
        }
    }
    validate_kubernetes_versions(class, &mut errors);
    reserved_machine_condition_types(class.get("spec").unwrap_or(&Value::Null), "spec", &mut errors);
    if s(class, "/apiVersion") == Some("cluster.x-k8s.io/v1beta2") {
        negative_seconds(class.get("spec").unwrap_or(&Value::Null), "spec", &mut errors);
    }
    errors
}

fn validate_variable_definitions(class: &Value, errors: &mut Vec<FieldError>) {
    let Some(items) = class.pointer("/spec/variables").and_then(Value::as_array) else { return };
    let mut seen = BTreeSet::new();
    // The v1beta2 CRD schema makes `required` a required field of every variable (v1beta1: optional).
    let v1beta2 = s(class, "/apiVersion") == Some("cluster.x-k8s.io/v1beta2");
    for (index, item) in items.iter().enumerate() {
        if v1beta2 && item.get("required").is_none() {
            errors.push(FieldError {
                path: format!("spec.variables[{index}].required"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "a v1beta2 ClusterClass variable must say whether it is required (true or false)".into(),
            });
        }
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        let path = format!("spec.variables[{name}]");
        if name == variables::BUILTIN {
            errors.push(invalid(format!("{path}.name"), quoted(name), "\"builtin\" is a reserved variable name"));
            continue;
        }
        if name.is_empty() {
            errors.push(FieldError {
                path: format!("{path}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "variable name must be defined".into(),
            });
            continue;
        }
        if name.contains('.') {
            errors.push(invalid(format!("{path}.name"), quoted(name), "variable name cannot contain \".\""));
        }
        if !seen.insert(name.to_string()) {
            errors.push(invalid(
                format!("{path}.name"),
                quoted(name),
                format!("variable names must be unique. Variable with name {name:?} is defined more than once"),
            ));
            continue;
        }
        let schema = item.pointer("/schema/openAPIV3Schema").cloned().unwrap_or(json!({}));
        check_schema(&schema, &format!("{path}.schema.openAPIV3Schema"), errors);
    }
}

/// A variable schema as CAPI's `ValidateClusterClassVariables` checks it, node by node: a known
/// `type`, a `pattern` that compiles, CEL rules that compile, and every `default` valid against
/// its own schema (after defaulting).
fn check_schema(schema: &Value, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(ty) = schema.get("type").and_then(Value::as_str)
        && !matches!(ty, "array" | "boolean" | "integer" | "number" | "object" | "string")
    {
        errors.push(FieldError {
            path: format!("{path}.type"),
            context: None,
            kind: "Unsupported value",
            value: Some(quoted(ty)),
            detail: "supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"".into(),
        });
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Err(e) = regex::Regex::new(pattern)
    {
        let reason = e.to_string().lines().last().unwrap_or_default().trim().to_string();
        errors.push(invalid(
            format!("{path}.pattern"),
            quoted(pattern),
            format!("must be a valid regular expression, but isn't: {reason}"),
        ));
    }
    if let Some(rules) = schema.get("x-kubernetes-validations").and_then(Value::as_array) {
        let node =
            json!({"type": schema.get("type").cloned().unwrap_or(json!("object")), "x-kubernetes-validations": rules});
        let compiled = kube::core::cel::compile_schema(&node);
        for (i, result) in compiled.validations.iter().enumerate() {
            if let Err(e) = result {
                let rule = rules[i].get("rule").and_then(Value::as_str).unwrap_or("");
                errors.push(invalid(
                    format!("{path}.x-kubernetes-validations[{i}].rule"),
                    quoted(rule),
                    format!("compilation failed: {e}"),
                ));
            }
        }
    }
    if let Some(default) = schema.get("default") {
        let mut value = default.clone();
        variables::apply_defaults(&mut value, schema);
        let mut found = Vec::new();
        variables::validate(&value, schema, &format!("{path}.default"), &mut found);
        for e in found {
            let reason = match &e {
                variables::VariableError::Invalid { reason, .. } => reason.clone(),
                other => other.to_string(),
            };
            errors.push(invalid(format!("{path}.default"), quoted(&value.to_string()), reason));
        }
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, child) in props {
            check_schema(child, &format!("{path}.properties[{key}]"), errors);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = schema.get(key).filter(|c| c.is_object()) {
            check_schema(child, &format!("{path}.{key}"), errors);
        }
    }
}

fn validate_worker_classes(class: &Value, errors: &mut Vec<FieldError>) {
    for (key, word) in [("machineDeployments", "MachineDeployment"), ("machinePools", "MachinePool")] {
        let Some(items) = class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array) else { continue };
        let mut seen = BTreeSet::new();
        for (i, item) in items.iter().enumerate() {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            if !seen.insert(name) {
                errors.push(invalid(
                    format!("spec.workers.{key}[{i}].class"),
                    quoted(name),
                    format!("{word} class must be unique. {word} with class {name:?} is defined more than once"),
                ));
            }
        }
    }
}

/// Kubernetes' `IsDNS1123Subdomain` message, as CAPI reports a naming template's sample name.
const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// CAPI's `validateNamingStrategies`: the template is run on a sample Cluster `cluster` (topology
/// `mdtopology` / `mptopology`) and the name must be a DNS-1123 subdomain.
fn check_template(
    template: &str,
    path: String,
    what: &str,
    worker: Option<(&str, &str)>,
    errors: &mut Vec<FieldError>,
) {
    let mut data = std::collections::BTreeMap::new();
    let map = |pairs: &[(&str, &str)]| {
        gotemplate::GoValue::Map(
            pairs.iter().map(|(k, v)| (k.to_string(), gotemplate::GoValue::Str(v.to_string()))).collect(),
        )
    };
    data.insert("cluster".to_string(), map(&[("name", "cluster")]));
    data.insert("random".to_string(), gotemplate::GoValue::Str("abcde".into()));
    if let Some((key, topology)) = worker {
        data.insert(key.to_string(), map(&[("topologyName", topology)]));
    }
    let data = gotemplate::GoValue::Map(gotemplate::GoMap::new(data));
    let naming = gotemplate::Options { go_builtins_only: true, missing_key_error: true };
    match gotemplate::Template::parse_with("template name generator", template, naming) {
        Err(e) => errors.push(invalid(
            path,
            quoted(template),
            format!("invalid {what} name template: parsing template {}: {e}", quoted(template)),
        )),
        Ok(parsed) => match parsed.execute(&data) {
            Err(e) => errors.push(invalid(
                path,
                quoted(template),
                format!("invalid {what} name template: rendering template: {e}"),
            )),
            Ok(name) => {
                let name = if name.len() > 63 { format!("{}abcde", &name[..58]) } else { name };
                if !is_dns1123_subdomain(&name) {
                    errors.push(invalid(path, quoted(template), DNS1123_SUBDOMAIN));
                }
            }
        },
    }
}

fn validate_naming(class: &Value, errors: &mut Vec<FieldError>) {
    for (base, what) in [("infrastructure", "InfraCluster"), ("controlPlane", "ControlPlane")] {
        let v1beta1 =
            if base == "infrastructure" { "infrastructureNamingStrategy" } else { "controlPlane/namingStrategy" };
        for (ptr, field) in [
            (format!("/spec/{v1beta1}/template"), format!("spec.{}.template", v1beta1.replace('/', "."))),
            (format!("/spec/{base}/naming/template"), format!("spec.{base}.naming.template")),
        ] {
            if let Some(t) = s(class, &ptr) {
                check_template(t, field, what, None, errors);
            }
        }
    }
    for (key, what, data_key, sample) in [
        ("machineDeployments", "MachineDeployment", "machineDeployment", "mdtopology"),
        ("machinePools", "MachinePool", "machinePool", "mptopology"),
    ] {
        let Some(items) = class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array) else { continue };
        for item in items {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            for field in ["namingStrategy", "naming"] {
                if let Some(t) = s(item, &format!("/{field}/template")) {
                    let path = format!("spec.workers.{key}[{name}].{field}.template");
                    check_template(t, path, what, Some((data_key, sample)), errors);
                }
            }
        }
    }
}

/// CAPI's `LocalObjectTemplateIsValid` for every template reference of the class.
fn validate_template_refs(class: &Value, errors: &mut Vec<FieldError>) {
    let mut refs: Vec<(String, bool)> = vec![("spec.infrastructure".into(), true), ("spec.controlPlane".into(), true)];
    if class.pointer("/spec/controlPlane/machineInfrastructure").is_some() {
        refs.push(("spec.controlPlane.machineInfrastructure".into(), true));
    }
    for key in ["machineDeployments", "machinePools"] {
        for (i, item) in
            class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array).into_iter().flatten().enumerate()
        {
            let base = if item.get("template").is_some() {
                format!("spec.workers.{key}[{i}].template")
            } else {
                format!("spec.workers.{key}[{i}]")
            };
            refs.push((format!("{base}.bootstrap"), true));
            refs.push((format!("{base}.infrastructure"), true));
        }
    }
    for (path, _) in refs {
        let pointer = format!("/{}", path.replace(['.', '['], "/").replace(']', ""));
        let holder = class.pointer(&pointer);
        let (field, reference) = match holder {
            Some(h) if h.get("templateRef").is_some() => ("templateRef", h.get("templateRef")),
            Some(h) => ("ref", h.get("ref")),
            None => ("ref", None),
        };
        let Some(reference) = reference.filter(|r| r.is_object()) else {
            errors.push(FieldError {
                path: format!("{path}.{field}"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "template reference must be defined".into(),
            });
            continue;
        };
        let at = format!("{path}.{field}");
        if s(reference, "/name").unwrap_or("").is_empty() {
            errors.push(FieldError {
                path: format!("{at}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "template name must be defined".into(),
            });
        }
        // No namespace check: CAPI v1.14 converts a v1beta1 `ref` to a v1beta2 `templateRef`, which has no
        // namespace (the class's is used), so a ref to another namespace is accepted (v1.10 rejected it).
        let kind = s(reference, "/kind").unwrap_or("");
        if kind.len() <= "Template".len() || !kind.ends_with("Template") {
            errors.push(invalid(
                format!("{at}.kind"),
                quoted(kind),
                "template kind must be of form \"<name>Template\"",
            ));
        }
        if field == "ref" {
            let api_version = s(reference, "/apiVersion").unwrap_or("");
            if api_version.is_empty() {
                errors.push(FieldError {
                    path: format!("{at}.apiVersion"),
                    context: None,
                    kind: "Required value",
                    value: None,
                    detail: "template apiVersion must be defined".into(),
                });
            } else if api_version.matches('/').count() > 1 {
                errors.push(invalid(
                    format!("{at}.apiVersion"),
                    quoted(api_version),
                    format!("template apiVersion must be a valid Kubernetes apiVersion: unexpected GroupVersion string: {api_version}"),
                ));
            }
        }
    }
}

/// `validateClusterClassMetadata`: the control plane's and each worker class's metadata.
fn validate_class_metadata(class: &Value, errors: &mut Vec<FieldError>) {
    validate_metadata(class.pointer("/spec/controlPlane/metadata"), "spec.controlPlane.metadata", errors);
    for key in ["machineDeployments", "machinePools"] {
        for item in class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array).into_iter().flatten() {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            let (ptr, field) = if item.get("template").is_some() {
                ("/template/metadata", "template.metadata")
            } else {
                ("/metadata", "metadata")
            };
            validate_metadata(item.pointer(ptr), &format!("spec.workers.{key}[{name}].{field}"), errors);
        }
    }
}

/// The CEL rule CAPI v1.14's CRDs put on every `unhealthyMachineConditions[].type` (class and topology
/// health checks, both API versions): conditions CAPI itself sets cannot be health checks. Paths with
/// list indexes, as the API server reports schema errors.
fn reserved_machine_condition_types(value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    const RESERVED: [&str; 5] =
        ["Ready", "Available", "HealthCheckSucceeded", "OwnerRemediated", "ExternallyRemediated"];
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let at = format!("{path}.{key}");
                if key == "unhealthyMachineConditions"
                    && let Some(items) = child.as_array()
                {
                    for (i, item) in items.iter().enumerate() {
                        if let Some(kind) = item.get("type").and_then(Value::as_str)
                            && RESERVED.contains(&kind)
                        {
                            errors.push(invalid(
                                format!("{at}[{i}].type"),
                                quoted(kind),
                                "type must not be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated, ExternallyRemediated",
                            ));
                        }
                    }
                } else {
                    reserved_machine_condition_types(child, &at, errors);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                reserved_machine_condition_types(item, &format!("{path}[{i}]"), errors);
            }
        }
        _ => {}
    }
}

/// The pattern of the v1beta2 CRD schema for worker topology names.
const DNS1123_SUBDOMAIN_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// The v1beta2 CRD schemas give every `...Seconds` field `minimum: 0` (deletion timeouts, health check
/// timeouts, `minReadySeconds`); the API server reports the path with list indexes.
fn negative_seconds(value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let at = format!("{path}.{key}");
                match child.as_i64() {
                    Some(n) if key.ends_with("Seconds") && n < 0 => errors.push(invalid(
                        at.clone(),
                        n.to_string(),
                        format!("{at} in body should be greater than or equal to 0"),
                    )),
                    _ => negative_seconds(child, &at, errors),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                negative_seconds(item, &format!("{path}[{i}]"), errors);
            }
        }
        _ => {}
    }
}

/// `taints.ValidateMachineTaints` with CAPI v1.14's default feature gates: `MachineTaintPropagation`
/// is off, so any taint is refused.
fn validate_taints(taints: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    if taints.and_then(Value::as_array).is_some_and(|t| !t.is_empty()) {
        errors.push(FieldError {
            path: path.to_string(),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled".into(),
        });
    }
}

/// A Kubernetes version as blang/semver's `ParseTolerant` reads it (a leading `v`, `major.minor` allowed):
/// (major, minor, patch, pre-release/build rest).
fn parse_tolerant(version: &str) -> Option<(u64, u64, u64, String)> {
    let v = version.trim().strip_prefix('v').unwrap_or(version.trim());
    let end = v.find(['-', '+']).unwrap_or(v.len());
    let (core, rest) = v.split_at(end);
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    if parts.next().is_some() {
        return None;
    }
    Some((major, minor, patch, rest.to_string()))
}

/// `validateKubernetesVersions` (v1.14's `spec.kubernetesVersions`): valid versions, increasing, no
/// minor skipped (CAPI's field path says `kubernetesVersion`).
fn validate_kubernetes_versions(class: &Value, errors: &mut Vec<FieldError>) {
    let mut previous: Option<(u64, u64, u64, String)> = None;
    for (i, item) in
        class.pointer("/spec/kubernetesVersions").and_then(Value::as_array).into_iter().flatten().enumerate()
    {
        let text = item.as_str().unwrap_or("");
        let path = format!("spec.kubernetesVersion[{i}]");
        let Some(version) = parse_tolerant(text) else {
            errors.push(invalid(path, quoted(text), "version must be a valid semantic version"));
            continue;
        };
        if let Some(prev) = &previous {
            // Same major.minor.patch with other build tags is tolerated.
            let (a, b) = ((version.0, version.1, version.2), (prev.0, prev.1, prev.2));
            if a < b || (a == b && version.3.is_empty() && prev.3.is_empty()) {
                errors.push(invalid(
                    path.clone(),
                    quoted(text),
                    format!("version must be greater than v{}.{}.{}{}", prev.0, prev.1, prev.2, prev.3),
                ));
            }
            if prev.1 != version.1 && prev.1 + 1 != version.1 {
                errors.push(invalid(
                    path,
                    quoted(text),
                    format!(
                        "expecting a version with minor {} or {}, found version {}.{}.{}{}",
                        prev.1,
                        prev.1 + 1,
                        version.0,
                        version.1,
                        version.2,
                        version.3
                    ),
                ));
            }
        }
        previous = Some(version);
    }
}

/// The class's MachineHealthChecks: one for the control plane needs `machineInfrastructure`.
fn validate_class_health_checks(class: &Value, errors: &mut Vec<FieldError>) {
    let key =
        if s(class, "/apiVersion") == Some("cluster.x-k8s.io/v1beta2") { "healthCheck" } else { "machineHealthCheck" };
    if class.pointer(&format!("/spec/controlPlane/{key}")).is_some()
        && class.pointer("/spec/controlPlane/machineInfrastructure").is_none()
    {
        errors.push(FieldError {
            path: format!("spec.controlPlane.{key}.machineInfrastructure"),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "can be set only if spec.controlPlane.machineInfrastructure is set".into(),
        });
    }
}

fn validate_patches(class: &Value, errors: &mut Vec<FieldError>) {
    let Some(patches) = class.pointer("/spec/patches").and_then(Value::as_array) else { return };
    let defined: BTreeSet<&str> = class
        .pointer("/spec/variables")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(|d| d.get("name").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    for (pi, patch) in patches.iter().enumerate() {
        let name = patch.get("name").and_then(Value::as_str).unwrap_or("");
        let context = Some(format!("patch {name:?}"));
        let mut push = |mut e: FieldError| {
            e.context = context.clone();
            errors.push(e);
        };
        let base = format!("spec.patches[{pi}]");
        if name.is_empty() {
            push(FieldError {
                path: format!("{base}.name"),
                context: None,
                kind: "Required value",
                value: None,
                detail: "patch name must be defined".into(),
            });
        }
        if !names.insert(name.to_string()) {
            push(invalid(
                format!("{base}.name"),
                quoted(name),
                format!("patch names must be unique. Patch with name {name:?} is defined more than once"),
            ));
        }
        if let Some(expr) = patch.get("enabledIf").and_then(Value::as_str)
            && let Err(e) = gotemplate::Template::parse("enabledIf", expr)
        {
            push(invalid(format!("{base}.enabledIf"), quoted(expr), format!("template can not be parsed: {e}")));
        }
        let definitions = patch.get("definitions").and_then(Value::as_array);
        if definitions.is_none() && patch.get("external").is_none() {
            push(FieldError {
                path: base.clone(),
                context: None,
                kind: "Required value",
                value: None,
                detail: "one of definitions or external must be defined".into(),
            });
        }
        for (di, definition) in definitions.into_iter().flatten().enumerate() {
            let dbase = format!("{base}.definitions[{di}]");
            let json_patches = definition.get("jsonPatches").and_then(Value::as_array).cloned().unwrap_or_default();
            for (ji, jp) in json_patches.iter().enumerate() {
                for e in validate_json_patch(jp, &defined, &format!("{dbase}.jsonPatches[{ji}]")) {
                    push(e);
                }
            }
            for e in validate_selector(
                definition.get("selector").unwrap_or(&Value::Null),
                class,
                &format!("{dbase}.selector"),
            ) {
                push(e);
            }
        }
    }
}

fn validate_json_patch(jp: &Value, defined: &BTreeSet<&str>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let op = jp.get("op").and_then(Value::as_str).unwrap_or("");
    let target = jp.get("path").and_then(Value::as_str).unwrap_or("");
    if !matches!(op, "add" | "replace" | "remove") {
        errors.push(FieldError {
            path: format!("{path}.op"),
            context: None,
            kind: "Unsupported value",
            value: Some(pretty(jp)),
            detail: "supported values: \"add\", \"remove\", \"replace\"".into(),
        });
    }
    // v1.10 asks for "/spec/"; v1.14 (our target) for "/spec" (docs/plan.md).
    if !target.starts_with("/spec") {
        errors.push(invalid(format!("{path}.path"), pretty(jp), "jsonPatch path must start with \"/spec\""));
    }
    // Go's strconv.Atoi on each segment: list indexes.
    for part in target.split('/') {
        let digits = part.strip_prefix(['+', '-']).unwrap_or(part);
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let index: i128 = part.parse().unwrap_or(1);
        if op == "add" && index != 0 {
            errors.push(invalid(
                format!("{path}.path"),
                quoted(target),
                "arrays can only be accessed using \"0\" (prepend) or \"-\" (append)",
            ));
        }
        if op == "replace" || op == "remove" {
            errors.push(invalid(
                format!("{path}.path"),
                quoted(target),
                format!("elements in arrays can not be accessed in a {op} operation"),
            ));
        }
    }
    if op != "add" && op != "replace" {
        return errors;
    }
    let value = jp.get("value");
    let value_from = jp.get("valueFrom");
    if value.is_none() && value_from.is_none() {
        errors.push(invalid(path.to_string(), pretty(jp), "jsonPatch must define one of value or valueFrom"));
    }
    if value.is_some() && value_from.is_some() {
        errors.push(invalid(path.to_string(), pretty(jp), "jsonPatch can not define both value and valueFrom"));
    }
    let Some(from) = value_from else { return errors };
    let variable = from.get("variable").and_then(Value::as_str).filter(|v| !v.is_empty());
    let template = from.get("template").and_then(Value::as_str).filter(|t| !t.is_empty());
    match (variable, template) {
        (None, None) => errors.push(invalid(
            format!("{path}.valueFrom"),
            quoted(&from.to_string()),
            "valueFrom must set either template or variable",
        )),
        (Some(_), Some(_)) => errors.push(invalid(
            format!("{path}.valueFrom"),
            quoted(&from.to_string()),
            "valueFrom can not set both template and variable",
        )),
        _ => {}
    }
    if let Some(t) = template
        && let Err(e) = gotemplate::Template::parse("valueFrom.template", t)
    {
        errors.push(invalid(
            format!("{path}.valueFrom.template"),
            quoted(t),
            format!("template can not be parsed: {e}"),
        ));
    }
    if let Some(v) = variable {
        if v.starts_with("builtin.") {
            if !BUILTIN_VARIABLES.contains(&v) {
                errors.push(invalid(format!("{path}.valueFrom.variable"), quoted(v), "not a defined builtin variable"));
            }
        } else {
            let name = v.split(['[', '.']).next().unwrap_or("");
            if !defined.contains(name) {
                errors.push(invalid(
                    format!("{path}.valueFrom.variable"),
                    quoted(v),
                    format!("variable with name {v} cannot be found"),
                ));
            }
        }
    }
    errors
}

/// `builtinVariables` of CAPI v1.14's patch validation.
const BUILTIN_VARIABLES: &[&str] = &[
    "builtin",
    "builtin.cluster",
    "builtin.cluster.name",
    "builtin.cluster.namespace",
    "builtin.cluster.uid",
    "builtin.cluster.metadata.labels",
    "builtin.cluster.metadata.annotations",
    "builtin.cluster.topology",
    "builtin.cluster.topology.class",
    "builtin.cluster.topology.classNamespace",
    "builtin.cluster.topology.classRef.name",
    "builtin.cluster.topology.classRef.namespace",
    "builtin.cluster.topology.version",
    "builtin.cluster.network",
    "builtin.cluster.network.serviceDomain",
    "builtin.cluster.network.services",
    "builtin.cluster.network.pods",
    "builtin.controlPlane",
    "builtin.controlPlane.name",
    "builtin.controlPlane.replicas",
    "builtin.controlPlane.version",
    "builtin.controlPlane.metadata.labels",
    "builtin.controlPlane.metadata.annotations",
    "builtin.controlPlane.machineTemplate.infrastructureRef.name",
    "builtin.machineDeployment",
    "builtin.machineDeployment.class",
    "builtin.machineDeployment.name",
    "builtin.machineDeployment.replicas",
    "builtin.machineDeployment.topologyName",
    "builtin.machineDeployment.version",
    "builtin.machineDeployment.metadata.labels",
    "builtin.machineDeployment.metadata.annotations",
    "builtin.machineDeployment.bootstrap.configRef.name",
    "builtin.machineDeployment.infrastructureRef.name",
    "builtin.machinePool",
    "builtin.machinePool.class",
    "builtin.machinePool.name",
    "builtin.machinePool.replicas",
    "builtin.machinePool.topologyName",
    "builtin.machinePool.version",
    "builtin.machinePool.metadata.labels",
    "builtin.machinePool.metadata.annotations",
    "builtin.machinePool.bootstrap.configRef.name",
    "builtin.machinePool.infrastructureRef.name",
];

fn validate_selector(selector: &Value, class: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let api_version = s(selector, "/apiVersion").unwrap_or("");
    let kind = s(selector, "/kind").unwrap_or("");
    let matches = |r: Option<(String, String)>| r.is_some_and(|(a, k)| a == api_version && k == kind);
    let m = selector.get("matchResources").cloned().unwrap_or(json!({}));
    let flag = |key: &str| m.get(key).and_then(Value::as_bool) == Some(true);
    let names = |key: &str| -> Vec<String> {
        m.pointer(&format!("/{key}/names"))
            .and_then(Value::as_array)
            .map(|n| n.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let (md_names, mp_names) = (names("machineDeploymentClass"), names("machinePoolClass"));
    if !flag("infrastructureCluster") && !flag("controlPlane") && md_names.is_empty() && mp_names.is_empty() {
        errors.push(invalid(path.to_string(), quoted(&selector.to_string()), "no selector enabled"));
        return errors;
    }
    if flag("infrastructureCluster") && !matches(template_ref(class, "/spec/infrastructure")) {
        errors.push(invalid(
            format!("{path}.matchResources.infrastructureCluster"),
            "true".into(),
            "selector is enabled but does not match the infrastructure ref",
        ));
    }
    if flag("controlPlane")
        && !matches(template_ref(class, "/spec/controlPlane"))
        && !matches(template_ref(class, "/spec/controlPlane/machineInfrastructure"))
    {
        errors.push(invalid(
            format!("{path}.matchResources.controlPlane"),
            "true".into(),
            "selector is enabled but matches neither the controlPlane ref nor the controlPlane machineInfrastructure ref",
        ));
    }
    for (key, list, word, selector_names) in [
        ("machineDeploymentClass", "machineDeployments", "MachineDeployment", &md_names),
        ("machinePoolClass", "machinePools", "MachinePool", &mp_names),
    ] {
        let classes =
            class.pointer(&format!("/spec/workers/{list}")).and_then(Value::as_array).cloned().unwrap_or_default();
        for (i, name) in selector_names.iter().enumerate() {
            let at = format!("{path}.matchResources.{key}.names[{i}]");
            if name.contains('*') {
                let bad = if name.matches('*').count() > 1 {
                    Some("selector can at most contain a single \"*\" rune")
                } else if !name.starts_with('*') && !name.ends_with('*') {
                    Some("\"*\" rune can only appear at the beginning, or ending of the selector")
                } else if !is_qualified_name(&name.replace('*', "a")) {
                    Some("selector does not comply with the Kubernetes naming standards")
                } else {
                    None
                };
                if let Some(detail) = bad {
                    errors.push(invalid(at, quoted(name), detail));
                    break;
                }
            }
            let found = classes.iter().any(|c| {
                class_name_matches(name, c.get("class").and_then(Value::as_str).unwrap_or(""))
                    && worker_refs(c).into_iter().any(|r| matches(Some(r)))
            });
            if !found {
                errors.push(invalid(
                    at,
                    quoted(name),
                    format!("selector is enabled but matches neither the bootstrap ref nor the infrastructure ref of a {word} class"),
                ));
            }
        }
    }
    errors
}

/// Kubernetes' `IsQualifiedName`: `[prefix/]name`, name of at most 63 alphanumerics, `-`, `_`, `.`.
fn is_qualified_name(value: &str) -> bool {
    let name = value.rsplit_once('/').map(|(_, n)| n).unwrap_or(value);
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Go's `time.Duration.String()`: `9m0s`, `1h30m0s`, `1.5s`, `300ms`, `0s`.
pub fn format_go_duration(ns: i128) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let sign = if ns < 0 { "-" } else { "" };
    let u = ns.unsigned_abs();
    if u < 1_000_000_000 {
        let (unit, div) = if u < 1_000 {
            ("ns", 1)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{sign}{}{unit}", fraction(u, div));
    }
    let hours = u / 3_600_000_000_000;
    let minutes = (u / 60_000_000_000) % 60;
    let seconds = fraction(u % 60_000_000_000, 1_000_000_000);
    let mut out = sign.to_string();
    if hours > 0 {
        out.push_str(&format!("{hours}h{minutes}m"));
    } else if minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    out.push_str(&format!("{seconds}s"));
    out
}

fn fraction(value: u128, div: u128) -> String {
    let whole = value / div;
    let rest = value % div;
    if rest == 0 {
        return whole.to_string();
    }
    let width = div.to_string().len() - 1;
    let digits = format!("{rest:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Rewrites a `metav1.Duration` field in Go's canonical form, in whole seconds; a value Go cannot parse is left
/// alone (the schema check reports it).
pub fn canonical_duration(value: &mut Value) {
    if let Some(text) = value.as_str()
        && let Ok(ns) = crate::go_duration::parse(text)
    {
        // CAPI v1.14 stores these durations as v1beta2 whole seconds (`...Seconds`, int32, truncated),
        // so a v1beta1 client reads `1500ms` back as `1s` (v1.10 kept `1.5s`).
        let whole_seconds = i128::from(crate::go_duration::capi_whole_seconds(ns).0) * 1_000_000_000;
        *value = Value::String(format_go_duration(whole_seconds));
    }
}

fn canonical_mhc(mhc: &mut Value) {
    if let Some(v) = mhc.get_mut("nodeStartupTimeout") {
        canonical_duration(v);
    }
    if let Some(items) = mhc.get_mut("unhealthyConditions").and_then(Value::as_array_mut) {
        for item in items {
            if let Some(v) = item.get_mut("timeout") {
                canonical_duration(v);
            }
        }
    }
}

/// What CAPI's Cluster defaulting webhook (and the typed round trip of a v1beta1 Cluster) writes:
/// `v` before the version, durations in Go's form, `metadata: {}` on topology sections,
/// `controlPlaneEndpoint`, remediation template namespaces, and the variable defaults (missing
/// variables with a default appended by name; nested defaults inside given values and overrides).
pub fn default_cluster(cluster: &mut Value, defs: &[VariableDefinition]) {
    let namespace = s(cluster, "/metadata/namespace").unwrap_or("default").to_string();
    let v1beta1 = s(cluster, "/apiVersion") == Some("cluster.x-k8s.io/v1beta1");
    let Some(topology) = cluster.pointer_mut("/spec/topology").and_then(Value::as_object_mut) else { return };
    if let Some(Value::String(version)) = topology.get_mut("version")
        && !version.starts_with('v')
    {
        *version = format!("v{version}");
    }
    let durations = ["nodeDrainTimeout", "nodeVolumeDetachTimeout", "nodeDeletionTimeout"];
    let default_section = |section: &mut Map<String, Value>| {
        if v1beta1 {
            section.entry("metadata").or_insert_with(|| json!({}));
        }
        for d in durations {
            if let Some(v) = section.get_mut(d) {
                canonical_duration(v);
            }
        }
        if let Some(mhc) = section.get_mut("machineHealthCheck") {
            canonical_mhc(mhc);
            if let Some(t) = mhc.get_mut("remediationTemplate").and_then(Value::as_object_mut)
                && t.get("namespace").and_then(Value::as_str).is_none_or(str::is_empty)
            {
                t.insert("namespace".into(), json!(namespace));
            }
        }
        if let Some(overrides) =
            section.get_mut("variables").and_then(|v| v.get_mut("overrides")).and_then(Value::as_array_mut)
        {
            for item in overrides {
                let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                if let (Some(def), Some(value)) = (defs.iter().find(|d| d.name == name), item.get_mut("value")) {
                    variables::apply_defaults(value, &def.schema);
                }
            }
        }
    };
    // The typed v1beta1 Cluster always has a control plane topology; v1beta2 leaves it out when unset.
    if v1beta1 {
        topology.entry("controlPlane").or_insert_with(|| json!({}));
    }
    if let Some(cp) = topology.get_mut("controlPlane").and_then(Value::as_object_mut) {
        default_section(cp);
    }
    if let Some(workers) = topology.get_mut("workers").and_then(Value::as_object_mut) {
        for key in ["machineDeployments", "machinePools"] {
            for item in workers.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(section) = item.as_object_mut() {
                    default_section(section);
                }
            }
        }
    }
    // Top-level variables: nested defaults in given values, then missing ones with a default.
    let mut given: Vec<Value> = topology.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
    for item in &mut given {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        if let (Some(def), Some(value)) = (defs.iter().find(|d| d.name == name), item.get_mut("value")) {
            variables::apply_defaults(value, &def.schema);
        }
    }
    let mut missing: Vec<&VariableDefinition> = defs
        .iter()
        .filter(|d| d.schema.get("default").is_some())
        .filter(|d| !given.iter().any(|g| g.get("name").and_then(Value::as_str) == Some(d.name.as_str())))
        .collect();
    missing.sort_by(|a, b| a.name.cmp(&b.name));
    for def in missing {
        let mut value = def.schema["default"].clone();
        variables::apply_defaults(&mut value, &def.schema);
        given.push(json!({"name": def.name, "value": value}));
    }
    if !given.is_empty() {
        topology.insert("variables".into(), Value::Array(given));
    }
    // v1beta2 has no `spec.topology.rolloutAfter`: v1.14's conversion drops it (v1.10 kept it).
    if v1beta1 && let Some(topology) = cluster.pointer_mut("/spec/topology").and_then(Value::as_object_mut) {
        topology.remove("rolloutAfter");
    }
    if v1beta1 && let Some(spec) = cluster.pointer_mut("/spec").and_then(Value::as_object_mut) {
        spec.entry("controlPlaneEndpoint").or_insert_with(|| json!({"host": "", "port": 0}));
    }
}

/// CAPI's `version.KubeSemver`: `^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_\.+]*)?$`.
fn is_semver(version: &str) -> bool {
    let v = version.strip_prefix('v').unwrap_or(version);
    let mut rest = v;
    for i in 0..3 {
        let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let number = &rest[..end];
        if number.is_empty() || (number.len() > 1 && number.starts_with('0')) {
            return false;
        }
        rest = &rest[end..];
        if i < 2 {
            match rest.strip_prefix('.') {
                Some(r) => rest = r,
                None => return false,
            }
        }
    }
    rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
}

const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const QUALIFIED_NAME_MESSAGE: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// Kubernetes' `IsValidLabelValue`.
fn is_label_value(value: &str) -> bool {
    value.is_empty()
        || (value.len() <= 63
            && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()))
}

/// Label and annotation keys and label values of a `metadata` block (`ObjectMeta.Validate`).
fn validate_metadata(metadata: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    let Some(metadata) = metadata else { return };
    for (key, value) in metadata.get("labels").and_then(Value::as_object).into_iter().flatten() {
        if !is_qualified_key(key) {
            errors.push(invalid(format!("{path}.labels"), quoted(key), QUALIFIED_NAME_MESSAGE));
        }
        let value = value.as_str().unwrap_or("");
        if !is_label_value(value) {
            errors.push(invalid(format!("{path}.labels[{key}]"), quoted(value), LABEL_VALUE_MESSAGE));
        }
    }
    for key in metadata.get("annotations").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k) {
        if !is_qualified_key(&key.to_lowercase()) {
            errors.push(invalid(format!("{path}.annotations"), quoted(key), QUALIFIED_NAME_MESSAGE));
        }
    }
}

/// `IsQualifiedName` with the prefix checked as a DNS-1123 subdomain.
fn is_qualified_key(key: &str) -> bool {
    match key.split_once('/') {
        Some((prefix, name)) => is_dns1123_subdomain(prefix) && is_qualified_name(name) && !name.contains('/'),
        None => is_qualified_name(key),
    }
}

/// The Cluster checks of CAPI's validating webhook (on the defaulted Cluster) that do not need
/// the variable values: version, worker topology names and classes, MachineHealthChecks.
pub fn validate_cluster(cluster: &Value, class: &Value, class_name: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let version = s(cluster, "/spec/topology/version").unwrap_or("");
    validate_metadata(
        cluster.pointer("/spec/topology/controlPlane/metadata"),
        "spec.topology.controlPlane.metadata",
        &mut errors,
    );
    if !is_semver(version) {
        errors.push(invalid(
            "spec.topology.version".into(),
            quoted(version),
            "version must be a valid semantic version",
        ));
    }
    const CONCURRENCY: &str = "topology.cluster.x-k8s.io/upgrade-concurrency";
    if let Some(value) = cluster.pointer("/metadata/annotations").and_then(|a| a.get(CONCURRENCY)) {
        let text = value.as_str().unwrap_or("");
        let path = format!("metadata.annotations.{CONCURRENCY}");
        match text.parse::<i64>() {
            Err(_) => errors.push(invalid(
                path,
                quoted(text),
                format!(
                    "could not parse the value of the annotation: strconv.Atoi: parsing {}: invalid syntax",
                    quoted(text)
                ),
            )),
            Ok(n) if n < 1 => errors.push(invalid(path, quoted(text), "value cannot be less than 1")),
            Ok(_) => {}
        }
    }
    validate_autoscaler_annotations(cluster, class, &mut errors);
    if let Some(versions) = class.pointer("/spec/kubernetesVersions").and_then(Value::as_array)
        && !versions.is_empty()
        && !versions.iter().any(|v| v.as_str() == Some(version))
    {
        errors.push(invalid(
            "spec.topology.version".into(),
            quoted(version),
            "version must match one of the versions defined in the ClusterClass",
        ));
    }
    reserved_machine_condition_types(
        cluster.pointer("/spec/topology").unwrap_or(&Value::Null),
        "spec.topology",
        &mut errors,
    );
    let v1beta2 = s(cluster, "/apiVersion") == Some("cluster.x-k8s.io/v1beta2");
    if v1beta2 {
        negative_seconds(cluster.pointer("/spec/topology").unwrap_or(&Value::Null), "spec.topology", &mut errors);
    }
    validate_taints(
        cluster.pointer("/spec/topology/controlPlane/taints"),
        "spec.topology.controlPlane.taints",
        &mut errors,
    );
    let cp_machine = template_ref(class, "/spec/controlPlane/machineInfrastructure").is_some();
    // v1beta1 `machineHealthCheck` with `enable`; v1beta2 `healthCheck` with `enabled`.
    let (mhc_key, switch) = if s(cluster, "/apiVersion") == Some("cluster.x-k8s.io/v1beta2") {
        ("healthCheck", "enabled")
    } else {
        ("machineHealthCheck", "enable")
    };
    if let Some(mhc) = cluster.pointer(&format!("/spec/topology/controlPlane/{mhc_key}")) {
        let class_mhc = class.pointer(&format!("/spec/controlPlane/{mhc_key}")).is_some();
        check_mhc_enable(mhc, switch, class_mhc, &format!("spec.topology.controlPlane.{mhc_key}"), &mut errors);
        if !cp_machine && mhc_enabled(mhc, switch) {
            errors.push(FieldError {
                path: format!("spec.topology.controlPlane.{mhc_key}"),
                context: None,
                kind: "Forbidden",
                value: None,
                detail: "can be set only if spec.controlPlane.machineInfrastructure is set in ClusterClass".into(),
            });
        }
    }
    for (key, word) in [("machineDeployments", "MachineDeployment"), ("machinePools", "MachinePool")] {
        let items = cluster
            .pointer(&format!("/spec/topology/workers/{key}"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let classes =
            class.pointer(&format!("/spec/workers/{key}")).and_then(Value::as_array).cloned().unwrap_or_default();
        let mut names = BTreeSet::new();
        for (i, item) in items.iter().enumerate() {
            let name = item.get("name").and_then(Value::as_str).unwrap_or("");
            let class_of = item.get("class").and_then(Value::as_str).unwrap_or("");
            validate_metadata(
                item.get("metadata"),
                &format!("spec.topology.workers.{key}[{name}].metadata"),
                &mut errors,
            );
            validate_taints(item.get("taints"), &format!("spec.topology.workers.{key}[{name}].taints"), &mut errors);
            // The v1beta2 CRD schema: worker topology names are DNS-1123 subdomains of at most 63 characters.
            if v1beta2 && !name.is_empty() && (name.len() > 63 || !is_dns1123_subdomain(name)) {
                let path = format!("spec.topology.workers.{key}[{i}].name");
                let rule = if name.len() > 63 {
                    "may not be more than 63 bytes".to_string()
                } else {
                    format!("should match '{DNS1123_SUBDOMAIN_PATTERN}'")
                };
                errors.push(invalid(path.clone(), quoted(name), format!("{path} in body {rule}")));
            } else if !is_label_value(name) {
                errors.push(invalid(
                    format!("spec.topology.workers.{key}[{i}].name"),
                    quoted(name),
                    format!("must be a valid label value {LABEL_VALUE_MESSAGE}"),
                ));
            }
            if !names.insert(name.to_string()) {
                errors.push(invalid(
                    format!("spec.topology.workers.{key}[{i}].name"),
                    quoted(name),
                    format!("name must be unique. {word} with name {name:?} is defined more than once"),
                ));
            }
            let Some(class_def) = classes.iter().find(|c| c.get("class").and_then(Value::as_str) == Some(class_of))
            else {
                errors.push(invalid(
                    format!("spec.topology.workers.{key}[{i}].class"),
                    quoted(class_of),
                    format!("{word}Class with name {class_of:?} does not exist in ClusterClass {class_name:?}"),
                ));
                continue;
            };
            if let Some(mhc) = item.get(mhc_key) {
                let class_mhc = class_def.get(mhc_key).is_some();
                check_mhc_enable(
                    mhc,
                    switch,
                    class_mhc,
                    &format!("spec.topology.workers.{key}[{name}].{mhc_key}"),
                    &mut errors,
                );
            }
        }
    }
    errors
}

/// `validateAutoscalerAnnotationsForCluster`: a MachineDeployment topology with `replicas` must
/// not carry the autoscaler's min/max size annotations, nor may its class.
fn validate_autoscaler_annotations(cluster: &Value, class: &Value, errors: &mut Vec<FieldError>) {
    const SIZES: [&str; 2] = [
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size",
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size",
    ];
    let has_size = |annotations: Option<&Value>| {
        annotations.and_then(Value::as_object).is_some_and(|a| a.keys().any(|k| SIZES.contains(&k.as_str())))
    };
    let cluster_name = s(cluster, "/metadata/name").unwrap_or("");
    let namespace = s(cluster, "/metadata/namespace").unwrap_or("default");
    let classes = class.pointer("/spec/workers/machineDeployments").and_then(Value::as_array);
    for md in
        cluster.pointer("/spec/topology/workers/machineDeployments").and_then(Value::as_array).into_iter().flatten()
    {
        let Some(replicas) = md.get("replicas") else { continue };
        let name = md.get("name").and_then(Value::as_str).unwrap_or("");
        let path = format!("spec.topology.workers.machineDeployments[{name}].replicas");
        if has_size(md.pointer("/metadata/annotations")) {
            errors.push(invalid(
                path.clone(),
                replicas.to_string(),
                format!("cannot be set for cluster {cluster_name:?} in namespace {namespace:?} if the same MachineDeploymentTopology has autoscaler annotations"),
            ));
        }
        let class_name = md.get("class").and_then(Value::as_str).unwrap_or("");
        let class_def =
            classes.into_iter().flatten().find(|c| c.get("class").and_then(Value::as_str) == Some(class_name));
        if let Some(c) = class_def
            && has_size(c.pointer("/template/metadata/annotations").or_else(|| c.pointer("/metadata/annotations")))
        {
            errors.push(invalid(
                path,
                replicas.to_string(),
                format!("cannot be set for cluster {cluster_name:?} in namespace {namespace:?} if the source class {class_name:?} of this MachineDeploymentTopology has autoscaler annotations"),
            ));
        }
    }
}

/// The checks of a MachineHealthCheck (`checks` / `unhealthyConditions`) besides the switch.
fn mhc_has_checks(mhc: &Value, switch: &str) -> bool {
    mhc.as_object().is_some_and(|m| m.keys().any(|k| k != switch))
}

fn mhc_enabled(mhc: &Value, switch: &str) -> bool {
    mhc.get(switch).and_then(Value::as_bool) == Some(true)
}

fn check_mhc_enable(mhc: &Value, switch: &str, class_has_mhc: bool, path: &str, errors: &mut Vec<FieldError>) {
    if mhc_enabled(mhc, switch) && !class_has_mhc && !mhc_has_checks(mhc, switch) {
        errors.push(FieldError {
            path: format!("{path}.{switch}"),
            context: None,
            kind: "Forbidden",
            value: None,
            detail: "cannot be set to true as MachineHealthCheck definition is not available in the Cluster topology or the ClusterClass".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_versions_must_increase_without_skipping_a_minor() {
        let class = |versions: Value| json!({"spec": {"kubernetesVersions": versions}});
        let mut errors = Vec::new();
        validate_kubernetes_versions(&class(json!(["v1.30.5", "v1.31.0", "1.31.2", "v1.32"])), &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        validate_kubernetes_versions(&class(json!(["v1.30.5", "v1.32.0", "v1.32.0", "nope"])), &mut errors);
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "spec.kubernetesVersion[1]: Invalid value: \"v1.32.0\": expecting a version with minor 30 or 31, found version 1.32.0",
                "spec.kubernetesVersion[2]: Invalid value: \"v1.32.0\": version must be greater than v1.32.0",
                "spec.kubernetesVersion[3]: Invalid value: \"nope\": version must be a valid semantic version",
            ]
        );
    }

    #[test]
    fn health_checks_on_conditions_capi_sets_are_refused() {
        let spec = json!({"workers": {"machineDeployments": [{"healthCheck": {"checks": {"unhealthyMachineConditions": [
            {"type": "EtcdPodHealthy"}, {"type": "Ready"}]}}}]}});
        let mut errors = Vec::new();
        reserved_machine_condition_types(&spec, "spec", &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].path,
            "spec.workers.machineDeployments[0].healthCheck.checks.unhealthyMachineConditions[1].type"
        );
    }

    #[test]
    fn taints_are_refused_while_the_feature_gate_is_off() {
        let mut errors = Vec::new();
        validate_taints(Some(&json!([])), "spec.controlPlane.taints", &mut errors);
        assert!(errors.is_empty());
        validate_taints(Some(&json!([{"key": "a", "effect": "NoSchedule"}])), "spec.controlPlane.taints", &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "spec.controlPlane.taints");
        assert_eq!(errors[0].kind, "Forbidden");
    }

    #[test]
    fn v1beta1_paths_name_their_v1beta2_spelling() {
        assert_eq!(
            v1beta2_path_hint("spec.workers.machineDeployments[md].namingStrategy.template"),
            " (v1beta2: spec.workers.machineDeployments[md].naming.template)"
        );
        assert_eq!(
            v1beta2_path_hint("spec.topology.controlPlane.machineHealthCheck"),
            " (v1beta2: spec.topology.controlPlane.healthCheck)"
        );
        assert_eq!(v1beta2_path_hint("spec.topology.version"), "");
    }

    #[test]
    fn durations_print_as_go_does() {
        for (input, want) in [
            ("9m", "9m0s"),
            ("90s", "1m30s"),
            ("1h30m", "1h30m0s"),
            ("0.5h", "30m0s"),
            ("300s", "5m0s"),
            ("0", "0s"),
            ("1.5s", "1.5s"),
            ("300ms", "300ms"),
            ("2h", "2h0m0s"),
            ("-1m", "-1m0s"),
            ("1m0.25s", "1m0.25s"),
        ] {
            assert_eq!(format_go_duration(i128::from(crate::go_duration::parse(input).unwrap())), want, "{input}");
        }
        // CAPI's ConvertToSeconds: float64 seconds, truncated, capped at int32.
        for (input, want) in [
            ("16777216.999999999s", "4660h20m17s"),
            ("1000000h", "596523h14m7s"),
            ("-1000000h", "-596523h14m8s"),
            ("1.999999999s", "1s"),
        ] {
            let mut value = Value::String(input.into());
            canonical_duration(&mut value);
            assert_eq!(value, Value::String(want.into()), "{input}");
        }
        assert!(crate::go_duration::parse("9").is_err());
        assert!(crate::go_duration::parse("1d").is_err());
    }

    #[test]
    fn index_rules_follow_go_atoi() {
        let defined = BTreeSet::new();
        let errs =
            |op: &str, path: &str| validate_json_patch(&json!({"op": op, "path": path, "value": 1}), &defined, "p");
        assert!(errs("add", "/spec/a/0").is_empty());
        assert!(errs("add", "/spec/a/-").is_empty());
        assert_eq!(errs("add", "/spec/a/1").len(), 1);
        assert_eq!(errs("replace", "/spec/a/0").len(), 1);
        assert_eq!(errs("replace", "/spec/a/+3").len(), 1);
        assert!(errs("replace", "/spec/a/b").is_empty());
    }
}
