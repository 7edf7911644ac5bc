//! ClusterClass variables: definitions with their OpenAPI schemas, a topology Cluster's values
//! (cluster-level and per-pool overrides), defaulting and schema checks as CAPI's Cluster webhook
//! does them, and lookups of `valueFrom.variable` paths such as `network.subnets[0].cidr`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::json_pointer::At;
use crate::schema::validate::compact;

/// The name CAPI reserves for the builtin variables.
pub const BUILTIN: &str = "builtin";

/// One `spec.variables[]` entry of a ClusterClass.
#[derive(Debug, Clone, PartialEq)]
pub struct VariableDefinition {
    pub name: String,
    pub required: bool,
    /// `schema.openAPIV3Schema`.
    pub schema: Value,
}

/// Errors in variable definitions or values; each names where (JSON path of the Cluster or class).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VariableError {
    #[error("{path}: Invalid value: {name:?}: variable is not defined in ClusterClass {class}")]
    Undefined { path: String, name: String, class: String },
    #[error("{path}: Duplicate value: {name:?}: variable is set more than once")]
    Duplicate { path: String, name: String },
    #[error("{path}: Required value: required variable {name:?} must be set")]
    Missing { path: String, name: String },
    #[error("{path}: Invalid value: {value}: {reason}")]
    Invalid { path: String, value: String, reason: String },
    #[error("{path}: Invalid value: {name:?}: {reason}")]
    BadDefinition { path: String, name: String, reason: String },
    #[error("variable {path:?} {reason}")]
    Lookup { path: String, reason: String },
}

/// Reads `spec.variables` of a ClusterClass (same shape in v1beta1 and v1beta2).
pub fn definitions(class: &Value) -> Result<Vec<VariableDefinition>, VariableError> {
    let mut defs = Vec::new();
    let Some(items) = class.array_at("/spec/variables") else {
        return Ok(defs);
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("spec.variables[{i}]");
        let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        if name.is_empty() || name == BUILTIN {
            return Err(VariableError::BadDefinition {
                path: format!("{path}.name"),
                name,
                reason: "variable name must be set and must not be \"builtin\"".into(),
            });
        }
        if defs.iter().any(|d: &VariableDefinition| d.name == name) {
            return Err(VariableError::Duplicate { path: format!("{path}.name"), name });
        }
        let schema = item.pointer("/schema/openAPIV3Schema").cloned().unwrap_or(Value::Object(Map::new()));
        let required = item.get("required").and_then(Value::as_bool).unwrap_or(false);
        defs.push(VariableDefinition { name, required, schema });
    }
    Ok(defs)
}

/// Resolves the values a topology sets (`[{name, value}]` at `path`) against the definitions:
/// unknown and duplicate names are errors; missing variables get their schema default (CAPI's
/// webhook defaulting) or, when required, an error; every value is defaulted structurally and
/// checked against its schema. With `overrides`, missing variables are not added or required.
pub fn resolve(
    defs: &[VariableDefinition],
    values: Option<&Value>,
    path: &str,
    class_name: &str,
    overrides: bool,
) -> Result<BTreeMap<String, Value>, Vec<VariableError>> {
    let mut errors = Vec::new();
    let mut out = BTreeMap::new();
    let items = values.and_then(Value::as_array).cloned().unwrap_or_default();
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let Some(def) = defs.iter().find(|d| d.name == name) else {
            errors.push(VariableError::Undefined { path: format!("{item_path}.name"), name, class: class_name.into() });
            continue;
        };
        if out.contains_key(&name) {
            errors.push(VariableError::Duplicate { path: format!("{item_path}.name"), name });
            continue;
        }
        let mut value = item.get("value").cloned().unwrap_or(Value::Null);
        apply_defaults(&mut value, &def.schema);
        validate(&value, &def.schema, &format!("{item_path}.value"), &mut errors);
        check_cel(&value, &def.schema, &format!("{item_path}.value"), &mut errors);
        out.insert(name, value);
    }
    if !overrides {
        for def in defs {
            if out.contains_key(&def.name) {
                continue;
            }
            if let Some(default) = def.schema.get("default") {
                let mut value = default.clone();
                apply_defaults(&mut value, &def.schema);
                validate(&value, &def.schema, &format!("{path}[name={}].value", def.name), &mut errors);
                check_cel(&value, &def.schema, &format!("{path}[name={}].value", def.name), &mut errors);
                out.insert(def.name.clone(), value);
            } else if def.required {
                errors.push(VariableError::Missing { path: path.to_string(), name: def.name.clone() });
            }
        }
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

/// Evaluates the schema's `x-kubernetes-validations` (CEL) on a variable value, as CAPI does.
/// A rule that cannot be evaluated here is reported, never passed silently.
pub fn check_cel(value: &Value, schema: &Value, path: &str, errors: &mut Vec<VariableError>) {
    if !schema.to_string().contains("x-kubernetes-validations") {
        return;
    }
    let compiled = kube::core::cel::compile_schema(schema);
    let validator = kube::core::cel::Validator::new();
    if let Err(failures) = validator.validate_compiled(&compiled, value, None) {
        for failure in failures.into_vec() {
            let at =
                if failure.field_path.is_empty() { path.to_string() } else { format!("{path}.{}", failure.field_path) };
            errors.push(VariableError::Invalid { path: at, value: compact(value), reason: failure.message.clone() });
        }
    }
}

/// Structural defaulting as the API server does it: absent object properties with a `default`
/// get it, recursively through properties, additionalProperties and items.
pub fn apply_defaults(value: &mut Value, schema: &Value) {
    match value {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, prop_schema) in props {
                    if !map.contains_key(key)
                        && let Some(default) = prop_schema.get("default")
                    {
                        map.insert(key.clone(), default.clone());
                    }
                    if let Some(child) = map.get_mut(key) {
                        apply_defaults(child, prop_schema);
                    }
                }
            }
            if let Some(extra) = schema.get("additionalProperties").filter(|s| s.is_object()) {
                let declared = schema.get("properties").and_then(Value::as_object);
                for (key, child) in map.iter_mut() {
                    if declared.is_none_or(|d| !d.contains_key(key)) {
                        apply_defaults(child, extra);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    apply_defaults(item, item_schema);
                }
            }
        }
        _ => {}
    }
}

fn type_matches(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => {
            value.as_i64().is_some() || value.as_u64().is_some() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    }
}

/// Checks `value` against an OpenAPI v3 (Kubernetes structural) schema: type (null only for an
/// untyped schema: CAPI drops `nullable`), enum,
/// string length, pattern and formats (a few), numeric bounds, array and object size, required,
/// properties (undeclared fields rejected unless preserve-unknown-fields), additionalProperties,
/// items, uniqueItems, allOf/anyOf/oneOf/not.
pub fn validate(value: &Value, schema: &Value, path: &str, errors: &mut Vec<VariableError>) {
    let invalid = |reason: String| VariableError::Invalid { path: path.to_string(), value: compact(value), reason };
    if value.is_null() {
        // CAPI's variable schema type (JSONSchemaProps, v1beta1 and v1beta2) has no `nullable`:
        // it is dropped when the ClusterClass is decoded, so null fails any typed schema.
        if schema.get("type").is_none() {
            return;
        }
        errors.push(VariableError::Invalid {
            path: path.to_string(),
            value: "null".into(),
            reason: format!("must be of type {}", schema.get("type").and_then(Value::as_str).unwrap_or("")),
        });
        return;
    }
    if let Some(ty) = schema.get("type").and_then(Value::as_str)
        && !type_matches(value, ty)
    {
        errors.push(invalid(format!("must be of type {ty}")));
        return;
    }
    if schema.get("type").is_none()
        && schema.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true)
        && !(value.is_string() || type_matches(value, "integer"))
    {
        errors.push(invalid("must be of type integer,string".into()));
        return;
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        errors.push(invalid(format!("supported values: {}", list.join(", "))));
    }
    match value {
        Value::String(s) => check_string(s, schema, &invalid, errors),
        Value::Number(n) => check_number(n, schema, &invalid, errors),
        Value::Array(items) => check_array(items, schema, path, &invalid, errors),
        Value::Object(map) => check_object(map, schema, path, &invalid, errors),
        _ => {}
    }
    check_combinators(value, schema, path, &invalid, errors);
}

/// A string's length, pattern and format.
fn check_string(s: &str, schema: &Value, invalid: &impl Fn(String) -> VariableError, errors: &mut Vec<VariableError>) {
    let len = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        errors.push(invalid(format!("should be at least {min} chars long")));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        errors.push(invalid(format!("may not be more than {max} bytes")));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        match regex::Regex::new(pattern) {
            Ok(re) if !re.is_match(s) => errors.push(invalid(format!("should match '{pattern}'"))),
            Ok(_) => {}
            Err(e) => errors.push(invalid(format!("schema pattern {pattern:?} is invalid: {e}"))),
        }
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && let Some(reason) = check_format(format, s)
    {
        errors.push(invalid(reason));
    }
}

/// A number's bounds and `multipleOf`.
fn check_number(
    n: &serde_json::Number,
    schema: &Value,
    invalid: &impl Fn(String) -> VariableError,
    errors: &mut Vec<VariableError>,
) {
    let f = n.as_f64().unwrap_or(0.0);
    let exclusive_min = schema.get("exclusiveMinimum").and_then(Value::as_bool) == Some(true);
    let exclusive_max = schema.get("exclusiveMaximum").and_then(Value::as_bool) == Some(true);
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
        && (f < min || (exclusive_min && f == min))
    {
        let op = if exclusive_min { "greater than" } else { "greater than or equal to" };
        errors.push(invalid(format!("should be {op} {min}")));
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
        && (f > max || (exclusive_max && f == max))
    {
        let op = if exclusive_max { "less than" } else { "less than or equal to" };
        errors.push(invalid(format!("should be {op} {max}")));
    }
    if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64)
        && m != 0.0
        && (f / m).fract() != 0.0
    {
        errors.push(invalid(format!("should be a multiple of {m}")));
    }
}

/// An array's size and uniqueness, then each item against `items`.
fn check_array(
    items: &[Value],
    schema: &Value,
    path: &str,
    invalid: &impl Fn(String) -> VariableError,
    errors: &mut Vec<VariableError>,
) {
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && (items.len() as u64) < min
    {
        errors.push(invalid(format!("should have at least {min} items")));
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && (items.len() as u64) > max
    {
        errors.push(invalid(format!("must have at most {max} items")));
    }
    if schema.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
        for (i, item) in items.iter().enumerate() {
            if items[..i].contains(item) {
                errors.push(VariableError::Invalid {
                    path: format!("{path}[{i}]"),
                    value: compact(item),
                    reason: "duplicate value".into(),
                });
            }
        }
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            validate(item, item_schema, &format!("{path}[{i}]"), errors);
        }
    }
}

/// An object's required fields and size, then each field against its property, `additionalProperties`, or as
/// undeclared.
fn check_object(
    map: &Map<String, Value>,
    schema: &Value,
    path: &str,
    invalid: &impl Fn(String) -> VariableError,
    errors: &mut Vec<VariableError>,
) {
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(key) {
                errors.push(VariableError::Missing { path: format!("{path}.{key}"), name: key.to_string() });
            }
        }
    }
    if let Some(min) = schema.get("minProperties").and_then(Value::as_u64)
        && (map.len() as u64) < min
    {
        errors.push(invalid(format!("should have at least {min} properties")));
    }
    if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
        && (map.len() as u64) > max
    {
        errors.push(invalid(format!("should have at most {max} properties")));
    }
    let props = schema.get("properties").and_then(Value::as_object);
    let preserve = schema.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(true);
    let additional = schema.get("additionalProperties");
    for (key, child) in map {
        let child_path = format!("{path}.{key}");
        if let Some(prop) = props.and_then(|p| p.get(key)) {
            validate(child, prop, &child_path, errors);
        } else if let Some(extra) = additional.filter(|a| a.is_object()) {
            validate(child, extra, &child_path, errors);
        } else if additional == Some(&Value::Bool(true)) || preserve {
        } else {
            errors.push(VariableError::Invalid {
                path: child_path,
                value: compact(child),
                reason: "field not declared in schema".into(),
            });
        }
    }
}

/// allOf (each checked in full), then anyOf, oneOf and not (checked for shape only).
fn check_combinators(
    value: &Value,
    schema: &Value,
    path: &str,
    invalid: &impl Fn(String) -> VariableError,
    errors: &mut Vec<VariableError>,
) {
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            validate(value, sub, path, errors);
        }
    }
    let passes = |sub: &Value| {
        let mut e = Vec::new();
        validate_shape_only(value, sub, path, &mut e);
        e.is_empty()
    };
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array)
        && !any.iter().any(passes)
    {
        errors.push(invalid("must validate at least one schema (anyOf)".into()));
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array)
        && one.iter().filter(|s| passes(s)).count() != 1
    {
        errors.push(invalid("must validate one and only one schema (oneOf)".into()));
    }
    if let Some(not) = schema.get("not")
        && passes(not)
    {
        errors.push(invalid("must not validate the schema (not)".into()));
    }
}

/// anyOf/oneOf/not branches in structural schemas may not declare properties that the parent
/// lacks; checking them as full schemas minus the unknown-field rule gives the API server's answer.
fn validate_shape_only(value: &Value, schema: &Value, path: &str, errors: &mut Vec<VariableError>) {
    let mut relaxed = schema.clone();
    if let Value::Object(map) = &mut relaxed {
        map.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
    }
    validate(value, &relaxed, path, errors);
}

fn check_format(format: &str, s: &str) -> Option<String> {
    let ok = match format {
        "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => s
            .split_once('/')
            .is_some_and(|(ip, bits)| ip.parse::<std::net::IpAddr>().is_ok() && bits.parse::<u8>().is_ok()),
        "uuid" => {
            regex::Regex::new(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
                .map(|re| re.is_match(s))
                .unwrap_or(true)
        }
        "byte" => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.decode(s).is_ok()
        }
        _ => true,
    };
    if ok { None } else { Some(format!("must be of format {format}")) }
}

/// Looks up `name.path[0].field` in the variables (CAPI's `GetVariableValue`).
pub fn lookup(variables: &BTreeMap<String, Value>, variable_path: &str) -> Result<Value, VariableError> {
    let lookup_err = |reason: String| VariableError::Lookup { path: variable_path.to_string(), reason };
    let mut segments = variable_path.split('.');
    let first = segments.next().unwrap_or("");
    let (name, index) = parse_segment(first).map_err(lookup_err)?;
    let Some(mut current) = variables.get(name).cloned() else {
        return Err(VariableError::Lookup { path: name.to_string(), reason: "does not exist".into() });
    };
    if let Some(i) = index {
        current = array_element(&current, i, name).map_err(lookup_err)?;
    }
    for segment in segments {
        let (field, index) = parse_segment(segment).map_err(lookup_err)?;
        current = match current.get(field) {
            Some(v) if current.is_object() => v.clone(),
            _ => return Err(lookup_err(format!("does not exist: failed to lookup segment {field:?}"))),
        };
        if let Some(i) = index {
            current = array_element(&current, i, field).map_err(lookup_err)?;
        }
    }
    Ok(current)
}

fn parse_segment(segment: &str) -> Result<(&str, Option<usize>), String> {
    match (segment.find('['), segment.find(']')) {
        (None, None) => Ok((segment, None)),
        (Some(open), Some(close)) if close > open => {
            let index: i64 = segment[open + 1..close]
                .parse()
                .map_err(|_| format!("is invalid: failed to parse array index in path segment {segment:?}"))?;
            if index < 0 {
                return Err(format!("is invalid: invalid array index {index} in path segment {segment:?}"));
            }
            Ok((&segment[..open], Some(index as usize)))
        }
        _ => Err(format!("is invalid: failed to parse path segment {segment:?}")),
    }
}

fn array_element(value: &Value, index: usize, name: &str) -> Result<Value, String> {
    let Some(items) = value.as_array() else {
        return Err(format!("is invalid: failed to get array {name:?}"));
    };
    items.get(index).cloned().ok_or_else(|| format!("is invalid: array does not have index {index}"))
}

/// Merges template-specific variables over the global ones; `builtin` is merged key by key.
pub fn merge(global: &BTreeMap<String, Value>, template: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    let mut out = global.clone();
    for (name, value) in template {
        match (out.get_mut(name), value) {
            (Some(Value::Object(existing)), Value::Object(extra)) if name == BUILTIN => {
                for (k, v) in extra {
                    existing.insert(k.clone(), v.clone());
                }
            }
            _ => {
                out.insert(name.clone(), value.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs() -> Vec<VariableDefinition> {
        definitions(&json!({"spec": {"variables": [
            {"name": "location", "required": true, "schema": {"openAPIV3Schema": {"type": "string", "minLength": 1}}},
            {"name": "sku", "required": false, "schema": {"openAPIV3Schema": {"type": "string", "default": "Standard_D2s_v3", "enum": ["Standard_D2s_v3", "Standard_D4s_v3"]}}},
            {"name": "network", "required": false, "schema": {"openAPIV3Schema": {"type": "object",
                "properties": {"plugin": {"type": "string", "default": "azure"}, "cidrs": {"type": "array", "items": {"type": "string", "format": "cidr"}}, "mtu": {"type": "integer", "minimum": 576}}}}},
        ]}}))
        .unwrap()
    }

    #[test]
    fn defaults_top_level_and_nested_values() {
        let values = json!([{"name": "location", "value": "westeurope"}, {"name": "network", "value": {"cidrs": ["10.0.0.0/16"]}}]);
        let got = resolve(&defs(), Some(&values), "spec.topology.variables", "cc", false).unwrap();
        assert_eq!(got["sku"], json!("Standard_D2s_v3"));
        assert_eq!(got["network"], json!({"cidrs": ["10.0.0.0/16"], "plugin": "azure"}));
    }

    #[test]
    fn rejects_unknown_missing_and_invalid_values() {
        let values = json!([{"name": "nosuch", "value": 1}, {"name": "sku", "value": "Standard_X"},
            {"name": "network", "value": {"mtu": 100, "cidrs": ["nope"], "extra": true}}]);
        let errors = resolve(&defs(), Some(&values), "spec.topology.variables", "cc", false).unwrap_err();
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            text[0].starts_with("spec.topology.variables[0].name: Invalid value: \"nosuch\": variable is not defined"),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t
                    .starts_with("spec.topology.variables[1].value: Invalid value: \"Standard_X\": supported values")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("[2].value.mtu: Invalid value: 100: should be greater than or equal to 576")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("[2].value.cidrs[0]: Invalid value: \"nope\": must be of format cidr")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("[2].value.extra: Invalid value: true: field not declared in schema")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("Required value: required variable \"location\" must be set")),
            "{text:?}"
        );
    }

    #[test]
    fn cel_rules_of_variable_schemas_are_evaluated() {
        let defs = definitions(
            &json!({"spec": {"variables": [{"name": "pool", "required": true, "schema": {"openAPIV3Schema": {
            "type": "object",
            "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min must not exceed max"}]}}}]}}),
        )
        .unwrap();
        let ok = json!([{"name": "pool", "value": {"min": 1, "max": 3}}]);
        assert!(resolve(&defs, Some(&ok), "spec.topology.variables", "cc", false).is_ok());
        let bad = json!([{"name": "pool", "value": {"min": 5, "max": 3}}]);
        let errors = resolve(&defs, Some(&bad), "spec.topology.variables", "cc", false).unwrap_err();
        assert_eq!(errors.len(), 1);
        let text = errors[0].to_string();
        assert!(text.starts_with("spec.topology.variables[0].value"), "{text}");
        assert!(text.contains("min must not exceed max"), "{text}");
    }

    #[test]
    fn looks_up_nested_paths_and_array_indexes() {
        let mut vars = BTreeMap::new();
        vars.insert("network".to_string(), json!({"subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.1.0.0/24"}]}));
        vars.insert("list".to_string(), json!(["a", "b"]));
        assert_eq!(lookup(&vars, "network.subnets[1].cidr").unwrap(), json!("10.1.0.0/24"));
        assert_eq!(lookup(&vars, "list[0]").unwrap(), json!("a"));
        assert_eq!(lookup(&vars, "nosuch").unwrap_err().to_string(), "variable \"nosuch\" does not exist");
        assert_eq!(
            lookup(&vars, "network.subnets[5].cidr").unwrap_err().to_string(),
            "variable \"network.subnets[5].cidr\" is invalid: array does not have index 5"
        );
        assert!(lookup(&vars, "network.nope").unwrap_err().to_string().contains("failed to lookup segment \"nope\""));
    }
}
