//! The flat list of parameters (path, type, default, env alias, doc) derived from the JSON Schema,
//! for `kubectl capz params`.

use serde_json::Value;

use super::model::schema;
use super::sources::env_alias;

/// One parameter as `kubectl capz params` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParamRow {
    /// Dotted path; `pools[].name` for fields of every pool.
    pub path: String,
    /// Type as a user reads it: string, integer, boolean, list of string, mapping, one of A|B.
    pub kind: String,
    /// Default as YAML-ish text; None when there is none.
    pub default: Option<String>,
    /// clusterctl environment variable that sets it.
    pub env: Option<String>,
    /// First sentence of the doc comment.
    pub doc: String,
}

/// Every parameter of the model, in declaration order.
pub fn param_rows() -> Vec<ParamRow> {
    let root = schema();
    let mut rows = Vec::new();
    walk(root, root, "", &mut rows);
    rows
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
        match root.pointer(reference.trim_start_matches('#')) {
            Some(target) => current = target,
            None => break,
        }
    }
    current
}

fn non_null_branch<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
        && let Some(branch) = branches.iter().find(|b| resolve(root, b).get("type") != Some(&Value::from("null")))
    {
        return resolve(root, branch);
    }
    resolve(root, schema)
}

fn struct_properties<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a serde_json::Map<String, Value>> {
    let target = non_null_branch(root, schema);
    if target.get("additionalProperties") == Some(&Value::Bool(false)) {
        target.get("properties").and_then(Value::as_object)
    } else {
        None
    }
}

fn walk(root: &Value, schema: &Value, prefix: &str, rows: &mut Vec<ParamRow>) {
    let Some(properties) = struct_properties(root, schema) else { return };
    for (key, field) in properties {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        let target = non_null_branch(root, field);
        let doc = field
            .get("description")
            .or_else(|| target.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .replace('\n', " ");
        let nested = struct_properties(root, field).is_some();
        let items = target.get("items").map(|i| resolve(root, i));
        let list_of_structs = items.is_some_and(|i| i.get("additionalProperties") == Some(&Value::Bool(false)));
        if nested {
            walk(root, field, &path, rows);
            continue;
        }
        let mut kind = describe(root, field);
        let mut doc = doc;
        if kind.len() > 40 && kind.contains('|') {
            doc = format!("{}; one of: {}.", doc.trim_end_matches('.'), kind.replace('|', ", "));
            kind = "enum".to_string();
        }
        rows.push(ParamRow {
            env: env_alias(&path).map(str::to_string),
            kind,
            default: field.get("default").and_then(default_text),
            doc,
            path: path.clone(),
        });
        if list_of_structs && let Some(items) = items {
            walk(root, items, &format!("{path}[]"), rows);
        }
    }
}

fn describe(root: &Value, schema: &Value) -> String {
    let target = non_null_branch(root, schema);
    if let Some(options) = target.get("enum").and_then(Value::as_array) {
        let names: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
        return names.join("|");
    }
    let kind = match target.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("any"),
        _ => {
            if target.get("properties").is_some() {
                "object"
            } else {
                "any"
            }
        }
    };
    match kind {
        "array" => {
            let item = target.get("items").map(|i| resolve(root, i));
            match item {
                Some(i) if i.get("additionalProperties") == Some(&Value::Bool(false)) => "list".to_string(),
                Some(i) => format!("list of {}", describe(root, i)),
                None => "list".to_string(),
            }
        }
        "object" => match target.get("additionalProperties") {
            Some(Value::Bool(true)) => "overlay".to_string(),
            Some(extra) if extra.is_object() => format!("map of {}", describe(root, extra)),
            _ => "object".to_string(),
        },
        other => other.to_string(),
    }
}

fn default_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(format!("{s:?}")),
        Value::Array(items) if items.iter().all(|i| i.get("name").is_some()) && !items.is_empty() => Some(
            items
                .iter()
                .map(|i| {
                    let name = i.get("name").and_then(Value::as_str).unwrap_or("");
                    match i.get("mode").and_then(Value::as_str) {
                        Some(mode) => format!("{name} ({mode})"),
                        None => name.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
        ),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_cover_nested_and_per_pool_fields() {
        let rows = param_rows();
        let find = |p: &str| rows.iter().find(|r| r.path == p).unwrap_or_else(|| panic!("no row {p}"));
        assert_eq!(find("clusterName").env.as_deref(), Some("CLUSTER_NAME"));
        assert_eq!(find("namespace").default.as_deref(), Some("\"default\""));
        assert_eq!(find("poolDefaults.replicas").kind, "integer");
        assert_eq!(find("poolDefaults.replicas").default.as_deref(), Some("2"));
        assert_eq!(find("poolDefaults.replicas").env.as_deref(), Some("WORKER_MACHINE_COUNT"));
        assert_eq!(find("pools").default.as_deref(), Some("pool0 (System), pool1 (User)"));
        assert_eq!(find("pools[].mode").kind, "System|User");
        assert_eq!(find("pools[].taints").kind, "list");
        assert_eq!(find("pools[].taints[].effect").kind, "NoSchedule|PreferNoSchedule|NoExecute");
        assert_eq!(find("pools[].labels").kind, "map of string");
        assert_eq!(find("pools[].autoscaling.minCount").kind, "integer");
        assert_eq!(find("managedCluster").kind, "overlay");
        assert_eq!(find("network.serviceCidrs").kind, "list of string");
        assert!(rows.iter().all(|r| !r.doc.is_empty()), "every parameter has a doc");
    }
}
