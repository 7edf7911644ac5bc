//! ApplicationSets expanded into their Applications: list, git directories and clusters generators (the clusters
//! of [`super::clusters`]), and a matrix of two of them; a generator's `selector` filters its parameter sets and
//! its own `template` is laid over the ApplicationSet's (argo-cd applicationset/generators
//! generator_spec_processor.go `Transform`, matrix.go); the template's `{{param}}` (fasttemplate) or `{{.param}}`
//! (`goTemplate: true`) placeholders filled in.

use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::clusters::{ArgoCluster, cluster_params, selector_matches};
use super::directory::glob_match;

/// The Applications the ApplicationSet `set` generates from this repository, or why it cannot be expanded
/// here (a generator that needs the live cluster or files we do not read). `clusters` generators see no cluster.
pub fn expand_application_set(set: &Value, repo_root: &Path) -> Result<Vec<Value>, String> {
    expand_application_set_with(set, repo_root, None)
}

/// [`expand_application_set`] with the clusters Argo CD knows (`None`: none is known, so a `clusters` generator is
/// not expanded).
pub fn expand_application_set_with(
    set: &Value,
    repo_root: &Path,
    clusters: Option<&[ArgoCluster]>,
) -> Result<Vec<Value>, String> {
    let spec = set.get("spec").cloned().unwrap_or(Value::Null);
    let go_template = spec.get("goTemplate").and_then(Value::as_bool).unwrap_or(false);
    let template = spec.get("template").cloned().unwrap_or(Value::Null);
    let context = Context { repo_root, clusters, go_template };
    let mut applications = Vec::new();
    for generator in spec.get("generators").and_then(Value::as_array).into_iter().flatten() {
        // A generator's own template wins over the ApplicationSet's, field by field (mergo.Merge).
        let own = generator_body(generator).and_then(|(_, body)| body.get("template")).cloned();
        let template = match own {
            Some(own) => fill_missing(own, &template),
            None => template.clone(),
        };
        for params in context.params(generator, true)? {
            let params = if go_template { params } else { flatten(&params) };
            applications.push(fill(&template, &params, go_template));
        }
    }
    Ok(applications)
}

/// What the generators of one ApplicationSet share.
struct Context<'a> {
    repo_root: &'a Path,
    clusters: Option<&'a [ArgoCluster]>,
    go_template: bool,
}

/// The kind and body of a generator (`{"list": {...}}`), leaving its `selector` out.
fn generator_body(generator: &Value) -> Option<(&String, &Value)> {
    generator.as_object().and_then(|map| map.iter().find(|(key, _)| *key != "selector"))
}

impl Context<'_> {
    /// The parameter sets of one generator, filtered by its `selector`; a matrix only at the top level (Argo CD
    /// nests one level, which is not expanded here).
    fn params(&self, generator: &Value, top_level: bool) -> Result<Vec<Value>, String> {
        let Some((kind, body)) = generator_body(generator) else {
            return Err("an empty generator".to_string());
        };
        let params = match kind.as_str() {
            "list" => body.get("elements").and_then(Value::as_array).cloned().unwrap_or_default().into_iter().collect(),
            "git" if body.get("directories").is_some() => git_directories(body, self.repo_root),
            "git" => return Err("its git files generator reads files we do not expand: not built".to_string()),
            "clusters" => match self.clusters {
                Some(clusters) => {
                    let go_template = self.go_template;
                    let fill_value = |text: &str, params: &Value| {
                        let params = if go_template { params.clone() } else { flatten(params) };
                        fill_text(text, &params, go_template)
                    };
                    cluster_params(body, clusters, go_template, &fill_value)?
                }
                None => {
                    return Err("its `clusters` generator needs the clusters Argo CD knows: no cluster Secret \
                                (labelled argocd.argoproj.io/secret-type: cluster) is in this repository and \
                                .kubectl-capz.yaml declares none (`argocd.clusters`): not built"
                        .to_string());
                }
            },
            "matrix" if top_level => self.matrix(body)?,
            "matrix" | "merge" => {
                return Err(format!("its nested `{kind}` generator is not expanded here: not built"));
            }
            other => {
                return Err(format!(
                    "its `{other}` generator needs what only Argo CD knows (pull requests, SCM providers, ...): not built"
                ));
            }
        };
        let Some(selector) = generator.get("selector") else { return Ok(params) };
        let mut selected = Vec::new();
        for set in params {
            let labels = flat_strings(&set);
            if selector_matches(selector, &labels).map_err(|err| format!("its generator's {err}"))? {
                selected.push(set);
            }
        }
        Ok(selected)
    }

    /// A matrix of two generators: each parameter set of the first with each of the second, whose spec is first
    /// filled in with the first's parameters (matrix.go `GenerateParams`, `InterpolateGenerator`).
    fn matrix(&self, body: &Value) -> Result<Vec<Value>, String> {
        let children = body.get("generators").and_then(Value::as_array).cloned().unwrap_or_default();
        let [first, second] = children.as_slice() else {
            return Err(format!("its matrix generator has {} generators; Argo CD takes exactly two", children.len()));
        };
        let mut out = Vec::new();
        for a in self.params(first, false)? {
            let fill_with = if self.go_template { a.clone() } else { flatten(&a) };
            let second = fill(second, &fill_with, self.go_template);
            for b in self.params(&second, false)? {
                out.push(if self.go_template {
                    // The first generator's parameters win (mergo.Merge of b, then of a with override).
                    let mut merged = b;
                    merge_over(&mut merged, &a);
                    merged
                } else {
                    combine_flat(&a, &b)?
                });
            }
        }
        Ok(out)
    }
}

/// `utils.CombineStringMaps`: the union of two flat parameter sets; a key both set differently is an error.
fn combine_flat(a: &Value, b: &Value) -> Result<Value, String> {
    let (Value::Object(a), Value::Object(b)) = (flatten(a), flatten(b)) else { unreachable!("flatten gives maps") };
    let mut out = a.clone();
    for (key, value) in b {
        match a.get(&key) {
            Some(existing) if *existing != value => {
                return Err(format!(
                    "its matrix generator's two generators both set `{key}` ({existing} and {value}): Argo CD fails"
                ));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    Ok(Value::Object(out))
}

/// `over`'s fields laid over `base`, maps merged key by key.
fn merge_over(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => merge_over(existing, value),
                    _ => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// `own` with the fields it does not set taken from `fallback` (mergo.Merge without override).
fn fill_missing(own: Value, fallback: &Value) -> Value {
    match (own, fallback) {
        (Value::Object(mut own), Value::Object(fallback)) => {
            for (key, value) in fallback {
                let merged = match own.remove(key) {
                    Some(mine) if !is_empty(&mine) => fill_missing(mine, value),
                    _ => value.clone(),
                };
                own.insert(key.clone(), merged);
            }
            Value::Object(own)
        }
        (own, fallback) if is_empty(&own) => fallback.clone(),
        (own, _) => own,
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// A parameter set as the flat `key: value` strings a generator `selector` is matched against (`flatten.Flatten`
/// in dot style: nested keys dotted, list items by index).
fn flat_strings(params: &Value) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    fn walk(prefix: &str, value: &Value, out: &mut std::collections::BTreeMap<String, String>) {
        let key = |name: &str| if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") };
        match value {
            Value::Object(map) => map.iter().for_each(|(name, child)| walk(&key(name), child, out)),
            Value::Array(items) => {
                items.iter().enumerate().for_each(|(i, child)| walk(&key(&i.to_string()), child, out))
            }
            Value::String(text) => {
                out.insert(prefix.to_string(), text.clone());
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    walk("", params, &mut out);
    out
}

/// The directories of the repository the git directories generator selects, as its `path` parameters.
fn git_directories(body: &Value, repo_root: &Path) -> Vec<Value> {
    let patterns: Vec<(String, bool)> = body
        .get("directories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let path = entry.get("path")?.as_str()?.to_string();
            Some((path, entry.get("exclude").and_then(Value::as_bool).unwrap_or(false)))
        })
        .collect();
    let mut dirs = Vec::new();
    collect_dirs(repo_root, "", &mut dirs);
    dirs.sort();
    dirs.into_iter()
        .filter(|dir| {
            patterns.iter().any(|(pattern, exclude)| !exclude && glob_match(pattern, dir, false))
                && !patterns.iter().any(|(pattern, exclude)| *exclude && glob_match(pattern, dir, false))
        })
        .map(|dir| path_params(&dir))
        .collect()
}

fn collect_dirs(dir: &Path, relative: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let child = if relative.is_empty() { name } else { format!("{relative}/{name}") };
        collect_dirs(&entry.path(), &child, out);
        out.push(child);
    }
}

/// `{"path": {"path", "basename", "basenameNormalized", "segments"}}`: the git generator's parameters.
fn path_params(dir: &str) -> Value {
    let basename = dir.rsplit('/').next().unwrap_or(dir);
    let normalized: String = basename
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    serde_json::json!({"path": {
        "path": dir,
        "basename": basename,
        "basenameNormalized": normalized,
        "segments": dir.split('/').collect::<Vec<_>>(),
    }})
}

/// Parameters as fasttemplate sees them: `path` is the path itself, `path.basename`, `path[0]`, and the
/// elements of a list generator by their keys (nested maps dotted).
fn flatten(params: &Value) -> Value {
    let mut flat = Map::new();
    fn walk(prefix: &str, value: &Value, flat: &mut Map<String, Value>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let name = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    walk(&name, child, flat);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(&format!("{prefix}[{index}]"), item, flat);
                }
            }
            Value::String(text) => {
                flat.insert(prefix.to_string(), Value::String(text.clone()));
            }
            other => {
                flat.insert(prefix.to_string(), Value::String(other.to_string()));
            }
        }
    }
    walk("", params, &mut flat);
    // The git generator's `{{path}}` is the path itself, not a map.
    if let Some(path) = flat.get("path.path").cloned() {
        flat.insert("path".into(), path);
        flat.remove("path.path");
        let segments: Vec<(String, Value)> = flat
            .iter()
            .filter_map(|(key, value)| {
                key.strip_prefix("path.segments").map(|index| (format!("path{index}"), value.clone()))
            })
            .collect();
        flat.extend(segments);
    }
    Value::Object(flat)
}

/// The template with every placeholder it can resolve filled in (others left as they are).
fn fill(template: &Value, params: &Value, go_template: bool) -> Value {
    match template {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(key, value)| (key.clone(), fill(value, params, go_template))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| fill(item, params, go_template)).collect()),
        Value::String(text) => Value::String(fill_text(text, params, go_template)),
        other => other.clone(),
    }
}

fn fill_text(text: &str, params: &Value, go_template: bool) -> String {
    let placeholder = Regex::new(r"\{\{\s*([^{}\s]+)\s*\}\}").expect("valid regex");
    placeholder
        .replace_all(text, |captures: &regex::Captures<'_>| {
            let name = &captures[1];
            let found = if go_template {
                name.strip_prefix('.')
                    .and_then(|dotted| dotted.split('.').try_fold(params, |value, key| value.get(key)))
            } else {
                params.get(name)
            };
            match found {
                Some(Value::String(value)) => value.clone(),
                Some(other @ (Value::Number(_) | Value::Bool(_))) => other.to_string(),
                _ => captures[0].to_string(),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fasttemplate_and_go_template_placeholders() {
        let fast = flatten(&path_params("clusters/prod-eu"));
        assert_eq!(fill_text("{{path}}", &fast, false), "clusters/prod-eu");
        assert_eq!(fill_text("{{ path.basename }}-app", &fast, false), "prod-eu-app");
        assert_eq!(fill_text("{{path[0]}}", &fast, false), "clusters");
        let go = path_params("clusters/prod-eu");
        assert_eq!(fill_text("{{.path.path}}", &go, true), "clusters/prod-eu");
        assert_eq!(fill_text("{{ .path.basename }}", &go, true), "prod-eu");
        assert_eq!(fill_text("{{ .unknown }}", &go, true), "{{ .unknown }}");
    }

    #[test]
    fn list_generator_elements_fill_the_template() {
        let set = serde_json::json!({"spec": {
            "generators": [{"list": {"elements": [{"cluster": "a", "env": "dev"}, {"cluster": "b", "env": "prod"}]}}],
            "template": {"metadata": {"name": "{{cluster}}"}, "spec": {"source": {"path": "envs/{{env}}"}}}
        }});
        let apps = expand_application_set(&set, Path::new("/nonexistent")).unwrap();
        assert_eq!(apps.len(), 2);
        assert_eq!(apps[1]["metadata"]["name"], "b");
        assert_eq!(apps[1]["spec"]["source"]["path"], "envs/prod");
    }

    #[test]
    fn cluster_generators_are_not_expanded_without_known_clusters() {
        let set = serde_json::json!({"spec": {"generators": [{"clusters": {}}], "template": {}}});
        let reason = expand_application_set(&set, Path::new(".")).unwrap_err();
        assert!(reason.contains("`clusters` generator needs the clusters Argo CD knows"), "{reason}");
    }

    fn cluster(name: &str, env: &str) -> ArgoCluster {
        let labels = [("argocd.argoproj.io/secret-type", "cluster"), ("env", env)]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ArgoCluster {
            name: name.into(),
            server: format!("https://{name}.example.com"),
            labels,
            ..ArgoCluster::default()
        }
    }

    #[test]
    fn cluster_generators_fill_name_server_labels_and_values_in_both_template_forms() {
        let clusters = [cluster("prod-weu", "prod"), cluster("dev", "dev")];
        let fast = serde_json::json!({"spec": {
            "generators": [{"clusters": {"selector": {"matchLabels": {"env": "prod"}},
                                         "values": {"overlay": "{{metadata.labels.env}}-{{name}}"}}}],
            "template": {"metadata": {"name": "{{name}}-capz"},
                         "spec": {"source": {"path": "clusters/{{values.overlay}}"},
                                  "destination": {"server": "{{server}}"}}}
        }});
        let apps = expand_application_set_with(&fast, Path::new("."), Some(&clusters)).unwrap();
        assert_eq!(apps.len(), 1);
        assert_eq!(apps[0]["metadata"]["name"], "prod-weu-capz");
        assert_eq!(apps[0]["spec"]["source"]["path"], "clusters/prod-prod-weu");
        assert_eq!(apps[0]["spec"]["destination"]["server"], "https://prod-weu.example.com");
        let go = serde_json::json!({"spec": {"goTemplate": true,
            "generators": [{"clusters": {"values": {"env": "{{.metadata.labels.env}}"}}}],
            "template": {"metadata": {"name": "{{.nameNormalized}}"}, "spec": {"source": {"path": "envs/{{.values.env}}"}}}
        }});
        let apps = expand_application_set_with(&go, Path::new("."), Some(&clusters)).unwrap();
        let names: Vec<&str> = apps.iter().map(|app| app["metadata"]["name"].as_str().unwrap()).collect();
        // Sorted by cluster name, then the local cluster (no selector, no Secret for it).
        assert_eq!(names, ["dev", "prod-weu", "in-cluster"]);
        assert_eq!(apps[1]["spec"]["source"]["path"], "envs/prod");
        // The local cluster has no labels: its placeholder stays, and nothing is built from it.
        assert_eq!(apps[2]["spec"]["source"]["path"], "envs/{{.metadata.labels.env}}");
    }

    #[test]
    fn a_matrix_of_a_list_and_clusters_with_a_selector_on_the_result() {
        let clusters = [cluster("prod-weu", "prod"), cluster("dev", "dev")];
        let set = serde_json::json!({"spec": {
            "generators": [{"matrix": {"generators": [
                {"list": {"elements": [{"env": "prod"}, {"env": "dev"}]}},
                {"clusters": {"selector": {"matchLabels": {"env": "{{env}}"}}}}
            ]}, "selector": {"matchLabels": {"env": "prod"}}}],
            "template": {"metadata": {"name": "{{env}}-{{name}}"}}
        }});
        let apps = expand_application_set_with(&set, Path::new("."), Some(&clusters)).unwrap();
        let names: Vec<&str> = apps.iter().map(|app| app["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["prod-prod-weu"]);
        // Both generators setting one key differently: Argo CD fails.
        let conflict = serde_json::json!({"spec": {"generators": [{"matrix": {"generators": [
            {"list": {"elements": [{"name": "a"}]}}, {"list": {"elements": [{"name": "b"}]}}
        ]}}], "template": {}}});
        assert!(expand_application_set(&conflict, Path::new(".")).unwrap_err().contains("both set `name`"));
    }

    #[test]
    fn a_generators_own_template_wins_over_the_application_sets() {
        let set = serde_json::json!({"spec": {
            "generators": [{"list": {"elements": [{"c": "a"}], "template": {"metadata": {"name": "own-{{c}}"}}}}],
            "template": {"metadata": {"name": "{{c}}", "namespace": "argocd"}, "spec": {"project": "p"}}
        }});
        let apps = expand_application_set(&set, Path::new(".")).unwrap();
        assert_eq!(apps[0]["metadata"], serde_json::json!({"name": "own-a", "namespace": "argocd"}));
        assert_eq!(apps[0]["spec"]["project"], "p");
    }
}
