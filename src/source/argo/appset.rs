//! ApplicationSets expanded into their Applications: list and git directories generators, the template's
//! `{{param}}` (fasttemplate) or `{{.param}}` (`goTemplate: true`) placeholders filled in.

use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::directory::glob_match;

/// The Applications the ApplicationSet `set` generates from this repository, or why it cannot be expanded
/// here (a generator that needs the live cluster or files we do not read).
pub fn expand_application_set(set: &Value, repo_root: &Path) -> Result<Vec<Value>, String> {
    let spec = set.get("spec").cloned().unwrap_or(Value::Null);
    let go_template = spec.get("goTemplate").and_then(Value::as_bool).unwrap_or(false);
    let template = spec.get("template").cloned().unwrap_or(Value::Null);
    let mut applications = Vec::new();
    for generator in spec.get("generators").and_then(Value::as_array).into_iter().flatten() {
        for params in generator_params(generator, repo_root)? {
            let params = if go_template { params } else { flatten(&params) };
            applications.push(fill(&template, &params, go_template));
        }
    }
    Ok(applications)
}

/// The parameter sets of one generator.
fn generator_params(generator: &Value, repo_root: &Path) -> Result<Vec<Value>, String> {
    let Some((kind, body)) = generator.as_object().and_then(|map| map.iter().find(|(key, _)| *key != "selector"))
    else {
        return Err("an empty generator".to_string());
    };
    match kind.as_str() {
        "list" => Ok(body.get("elements").and_then(Value::as_array).cloned().unwrap_or_default().into_iter().collect()),
        "git" if body.get("directories").is_some() => Ok(git_directories(body, repo_root)),
        "git" => Err("its git files generator reads files we do not expand: not built".to_string()),
        other => Err(format!(
            "its `{other}` generator needs what only Argo CD knows (clusters, pull requests, ...): not built"
        )),
    }
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
    fn cluster_generators_are_not_expanded() {
        let set = serde_json::json!({"spec": {"generators": [{"clusters": {}}], "template": {}}});
        let reason = expand_application_set(&set, Path::new(".")).unwrap_err();
        assert!(reason.contains("`clusters` generator"), "{reason}");
    }
}
