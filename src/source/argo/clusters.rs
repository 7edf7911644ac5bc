//! The clusters Argo CD knows, as an ApplicationSet's `clusters` generator sees them (argo-cd
//! applicationset/generators/cluster.go): the cluster Secrets of the repository (labelled
//! `argocd.argoproj.io/secret-type: cluster`) and the clusters `.kubectl-capz.yaml` declares, selected by the
//! generator's `selector` (`matchLabels`, `matchExpressions`), each giving the parameters `name`,
//! `nameNormalized`, `server`, `project`, the Secret's labels and annotations (`metadata.labels.<key>`,
//! or `.metadata.labels` with `goTemplate`) and the generator's `values` templated with them.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{Map, Value, json};

use crate::json_pointer::At;
use crate::manifest::Document;

pub use crate::config::argo_cluster::{ArgoCluster, SECRET_TYPE_CLUSTER, SECRET_TYPE_LABEL};

/// The API server address of the cluster Argo CD runs in (`KubernetesInternalAPIServerAddr`).
pub const IN_CLUSTER_SERVER: &str = "https://kubernetes.default.svc";
/// The name Argo CD gives that cluster when no Secret declares it (`KubernetesInClusterName`).
pub const IN_CLUSTER_NAME: &str = "in-cluster";

/// The cluster a Secret of the repository declares, when it is an Argo CD cluster Secret: `name`, `server` and
/// `project` from its `stringData` or (base64) `data`, as the API server stores them.
pub fn cluster_of_secret(document: &Document) -> Option<ArgoCluster> {
    if document.kind() != "Secret" || document.api_version() != "v1" {
        return None;
    }
    let metadata = document.value.get("metadata")?;
    let strings = |key: &str| -> BTreeMap<String, String> {
        metadata
            .get(key)
            .and_then(Value::as_object)
            .map(|map| map.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
            .unwrap_or_default()
    };
    let labels = strings("labels");
    if labels.get(SECRET_TYPE_LABEL).map(String::as_str) != Some(SECRET_TYPE_CLUSTER) {
        return None;
    }
    let field = |key: &str| -> Option<String> {
        if let Some(text) = document.value.str_at(&format!("/stringData/{key}")) {
            return Some(text.to_string());
        }
        let encoded = document.value.str_at(&format!("/data/{key}"))?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
        String::from_utf8(bytes).ok()
    };
    Some(ArgoCluster {
        name: field("name").unwrap_or_default(),
        server: field("server").unwrap_or_default(),
        project: field("project"),
        labels,
        annotations: strings("annotations"),
        declared_at: document.origin.to_string(),
    })
}

/// Argo CD's `SanitizeName` (applicationset/utils/template_functions.go): lower case, characters other than
/// `[-a-z0-9.]` become `-`, at most 253 characters, no leading or trailing `-` or `.`.
pub fn sanitize_name(name: &str) -> String {
    let mut out: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' { c } else { '-' })
        .collect();
    if out.len() > 253 {
        let mut cut = 253;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// Whether the label selector `selector` (`matchLabels`, `matchExpressions`; null or empty selects everything)
/// selects `labels`, as `metav1.LabelSelectorAsSelector` does; an operator it does not know is an error.
pub fn selector_matches(selector: &Value, labels: &BTreeMap<String, String>) -> Result<bool, String> {
    if selector.is_null() {
        return Ok(true);
    }
    let Some(selector) = selector.as_object() else { return Err("the selector is not a mapping".to_string()) };
    for (key, value) in selector.get("matchLabels").and_then(Value::as_object).into_iter().flatten() {
        let wanted = value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string());
        if labels.get(key) != Some(&wanted) {
            return Ok(false);
        }
    }
    for expression in selector.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        let operator = expression.get("operator").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let matched = match operator {
            "In" => labels.get(key).is_some_and(|value| values.contains(&value.as_str())),
            "NotIn" => labels.get(key).is_none_or(|value| !values.contains(&value.as_str())),
            "Exists" => labels.contains_key(key),
            "DoesNotExist" => !labels.contains_key(key),
            other => {
                return Err(format!("the selector's operator `{other}` is not one of In, NotIn, Exists, DoesNotExist"));
            }
        };
        if !matched {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a selector selects something narrower than everything (Argo CD then leaves the local cluster out).
fn is_restrictive(selector: &Value) -> bool {
    let non_empty = |key: &str| match selector.get(key) {
        Some(Value::Object(map)) => !map.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        _ => false,
    };
    non_empty("matchLabels") || non_empty("matchExpressions")
}

/// The parameter sets of a `clusters` generator `body` over `clusters` (sorted by name, the first of a name kept,
/// as one Argo CD cluster per name): each selected cluster, then the local cluster when the selector is empty and
/// no cluster has its address. `fill` templates the generator's `values` with a cluster's parameters.
pub fn cluster_params(
    body: &Value,
    clusters: &[ArgoCluster],
    go_template: bool,
    fill: &dyn Fn(&str, &Value) -> String,
) -> Result<Vec<Value>, String> {
    if body.get("flatList").and_then(Value::as_bool).unwrap_or(false) {
        return Err("its `clusters` generator has `flatList: true`, whose single parameter set is read with Go \
                    template `range`s: not built"
            .to_string());
    }
    let selector = body.get("selector").cloned().unwrap_or(Value::Null);
    let mut by_name: BTreeMap<&str, &ArgoCluster> = BTreeMap::new();
    for cluster in clusters {
        by_name.entry(cluster.name.as_str()).or_insert(cluster);
    }
    let values: Vec<(String, String)> = body
        .get("values")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, value)| (key.clone(), value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string())))
        .collect();
    let with_values = |mut params: Value| -> Value {
        let templated: Map<String, Value> =
            values.iter().map(|(key, value)| (key.clone(), Value::String(fill(value, &params)))).collect();
        if !templated.is_empty() {
            params["values"] = Value::Object(templated);
        }
        params
    };
    let mut out = Vec::new();
    for cluster in by_name.values() {
        if !selector_matches(&selector, &cluster.labels)? {
            continue;
        }
        let mut params = json!({
            "name": cluster.name,
            "nameNormalized": sanitize_name(&cluster.name),
            "server": cluster.server,
            "project": cluster.project.clone().unwrap_or_default(),
        });
        let mut metadata = Map::new();
        let to_map = |map: &BTreeMap<String, String>| -> Value {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
        };
        if !cluster.annotations.is_empty() {
            metadata.insert("annotations".into(), to_map(&cluster.annotations));
        }
        if !cluster.labels.is_empty() {
            metadata.insert("labels".into(), to_map(&cluster.labels));
        }
        // Without goTemplate Argo CD sets the flat keys `metadata.labels.<key>`; they read the same once flattened.
        if go_template || !metadata.is_empty() {
            params["metadata"] = Value::Object(metadata);
        }
        out.push(with_values(params));
    }
    if !is_restrictive(&selector) && !clusters.iter().any(|cluster| cluster.server == IN_CLUSTER_SERVER) {
        let params = json!({
            "name": IN_CLUSTER_NAME,
            "nameNormalized": IN_CLUSTER_NAME,
            "server": IN_CLUSTER_SERVER,
            "project": "",
        });
        out.push(with_values(params));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(name: &str, server: &str, labels: &[(&str, &str)]) -> ArgoCluster {
        let mut all: BTreeMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        all.insert(SECRET_TYPE_LABEL.into(), SECRET_TYPE_CLUSTER.into());
        ArgoCluster { name: name.into(), server: server.into(), labels: all, ..ArgoCluster::default() }
    }

    fn names(params: &[Value]) -> Vec<&str> {
        params.iter().map(|p| p["name"].as_str().unwrap()).collect()
    }

    #[test]
    fn secrets_give_name_server_and_project_from_string_data_or_base64_data() {
        let text = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: prod\n  labels:\n    \
                    argocd.argoproj.io/secret-type: cluster\n    env: prod\ntype: Opaque\nstringData:\n  name: prod-weu\n  \
                    server: https://prod.example.com\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: dev\n  labels:\n    \
                    argocd.argoproj.io/secret-type: cluster\ndata:\n  name: ZGV2\n  server: aHR0cHM6Ly9kZXYuZXhhbXBsZS5jb20=\n  \
                    project: cGxhdGZvcm0=\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: plain\nstringData:\n  name: x\n";
        let documents = crate::manifest::parse_documents(text, "secrets.yaml").unwrap();
        let clusters: Vec<ArgoCluster> = documents.iter().filter_map(cluster_of_secret).collect();
        assert_eq!(clusters.len(), 2);
        assert_eq!((clusters[0].name.as_str(), clusters[0].server.as_str()), ("prod-weu", "https://prod.example.com"));
        assert_eq!(clusters[0].labels.get("env").map(String::as_str), Some("prod"));
        assert_eq!(clusters[0].declared_at, "secrets.yaml:1");
        assert_eq!((clusters[1].name.as_str(), clusters[1].project.as_deref()), ("dev", Some("platform")));
    }

    #[test]
    fn selectors_pick_clusters_and_an_empty_one_adds_the_local_cluster() {
        let clusters = [
            cluster("prod-weu", "https://prod.example.com", &[("env", "prod"), ("region", "weu")]),
            cluster("dev", "https://dev.example.com", &[("env", "dev")]),
        ];
        let fill = |text: &str, _: &Value| text.to_string();
        let all = cluster_params(&json!({}), &clusters, false, &fill).unwrap();
        assert_eq!(names(&all), ["dev", "prod-weu", "in-cluster"]);
        assert_eq!(all[1]["metadata"]["labels"]["region"], "weu");
        let prod =
            cluster_params(&json!({"selector": {"matchLabels": {"env": "prod"}}}), &clusters, false, &fill).unwrap();
        assert_eq!(names(&prod), ["prod-weu"]);
        let expressions = json!({"selector": {"matchExpressions": [
            {"key": "env", "operator": "NotIn", "values": ["prod"]},
            {"key": "region", "operator": "DoesNotExist"}
        ]}});
        assert_eq!(names(&cluster_params(&expressions, &clusters, false, &fill).unwrap()), ["dev"]);
        let bad = json!({"selector": {"matchExpressions": [{"key": "env", "operator": "Gt", "values": ["1"]}]}});
        assert!(cluster_params(&bad, &clusters, false, &fill).unwrap_err().contains("`Gt`"));
        // A cluster Secret for the local cluster stands for it.
        let local = [cluster("local", IN_CLUSTER_SERVER, &[])];
        assert_eq!(names(&cluster_params(&json!({}), &local, false, &fill).unwrap()), ["local"]);
        assert!(cluster_params(&json!({"flatList": true}), &local, false, &fill).is_err());
    }

    #[test]
    fn names_are_normalized_as_argo_cd_does() {
        assert_eq!(sanitize_name("Prod_WEU.example-"), "prod-weu.example");
        assert_eq!(sanitize_name("-a b-"), "a-b");
    }
}
