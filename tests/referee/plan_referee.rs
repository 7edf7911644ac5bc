//! Shared by the `plan` referee tests (plan_capi_referee.rs: CAPI v1.10.10, plan_capi_v114_referee.rs: CAPI
//! v1.14.2): replays one recorded case against `capz::topology` and lists how we differ.
//!
//! - CAPI rejected it: we reject it too, and our message names every field path CAPI names (patch,
//!   definition and JSON patch index; a `[name]` key of CAPI may be our `[index]` plus the name, and
//!   an `[index]` of CAPI our `[name]` of that item).
//! - CAPI planned it: we plan the same objects (matched by role, since names end in random
//!   characters) with the same fields, and the Cluster as CAPI's defaulting webhook and the
//!   topology reconciler leave it. Not compared: owner references and CAPI's "shim" Secret (both
//!   need the Cluster's UID), status, the `cluster.x-k8s.io/conversion-data` annotation of the
//!   v1beta1 view of v1.14's objects.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use capz::manifest::parse_documents;
use capz::topology::plan_all;
use serde_json::Value;

pub const DIR: &str = "tests/fixtures/capi-topology";

/// One way we differ from CAPI on a case. `key` is stable (roles, not our generated names) so a list of known
/// differences can name it; `kind` and `pointer` are set for a field of a planned object.
#[derive(Debug, Clone)]
#[allow(dead_code)] // `kind` and `pointer` are read by plan_capi_referee.rs only
pub struct Problem {
    pub key: String,
    pub kind: Option<String>,
    pub pointer: Option<String>,
}

impl Problem {
    fn text(key: String) -> Self {
        Problem { key, kind: None, pointer: None }
    }
}

pub fn recordings(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What identifies an object's role in a topology, independent of its (random) name.
pub fn role(object: &Value) -> String {
    let label =
        |key: &str| object.pointer(&format!("/metadata/labels/{}", key.replace('/', "~1"))).and_then(Value::as_str);
    let annotation = |key: &str| {
        object.pointer(&format!("/metadata/annotations/{}", key.replace('/', "~1"))).and_then(Value::as_str)
    };
    let kind = object["kind"].as_str().unwrap_or("");
    let worker = label("topology.cluster.x-k8s.io/deployment-name")
        .map(|n| format!("md={n}"))
        .or_else(|| label("topology.cluster.x-k8s.io/pool-name").map(|n| format!("mp={n}")))
        .unwrap_or_default();
    let source = annotation("cluster.x-k8s.io/cloned-from-name").unwrap_or("");
    let target = object
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter().map(|(k, v)| format!("{k}={v}")).collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>().join(",")
        })
        .unwrap_or_default();
    format!("{kind}|{worker}|{source}|{target}")
}

/// Drops what is not compared (see the module docs).
fn normalize(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
    }
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in ["ownerReferences", "resourceVersion", "creationTimestamp", "uid"] {
            meta.remove(key);
        }
        // v1.14 stores v1beta2; reading an object as v1beta1 through CAPI's conversion webhook adds
        // this annotation (the v1beta2 object, for a lossless round trip). It is no part of what the
        // topology controller writes, and a manifest must not carry it.
        if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
            annotations.remove("cluster.x-k8s.io/conversion-data");
            if annotations.is_empty() {
                meta.remove("annotations");
            }
        }
    }
    object
}

/// Replaces whole string values equal to a key of `names` (CAPI's random names -> ours).
fn rename(value: &mut Value, names: &BTreeMap<String, String>) {
    match value {
        Value::String(s) => {
            if let Some(n) = names.get(s.as_str()) {
                *s = n.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, names)),
        Value::Object(map) => map.values_mut().for_each(|v| rename(v, names)),
        _ => {}
    }
}

/// Paths (JSON pointer) where two values differ, with both sides: (pointer, description).
fn differences(path: &str, want: &Value, got: &Value, out: &mut Vec<(String, String)>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => differences(&p, x, y, out),
                    (Some(x), None) => out.push((p.clone(), format!("{p}: CAPI has {x}, we have nothing"))),
                    (None, Some(y)) => out.push((p.clone(), format!("{p}: CAPI has nothing, we have {y}"))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}/{i}"), x, y, out);
            }
        }
        _ if want != got => out.push((path.to_string(), format!("{path}: CAPI has {want}, we have {got}"))),
        _ => {}
    }
}

/// The field paths of a Kubernetes "is invalid" error: `...is invalid: PATH: Reason...` or
/// `...is invalid: [PATH: Reason..., PATH: Reason...]`.
fn capi_field_paths(error: &str) -> Vec<String> {
    let Some((_, rest)) = error.split_once("is invalid: ") else { return Vec::new() };
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    let mut paths = Vec::new();
    for part in rest.split(", spec.").enumerate().map(|(i, p)| if i == 0 { p.to_string() } else { format!("spec.{p}") })
    {
        if let Some((path, _)) = part.split_once(": ") {
            paths.push(path.to_string());
        }
    }
    paths
}

/// CAPI's path with `[name]` list keys (variables, topologies by name) as `[index]` (and an
/// `[index]` as `[name]`, for items with a name) of the object the path is in (the Cluster for `spec.topology...`, else the ClusterClass): every
/// spelling, when a name is in the list more than once.
fn indexed_paths(path: &str, object: &Value) -> Vec<String> {
    let mut spellings = vec![(String::new(), Some(object))];
    for (i, segment) in path.split('.').enumerate() {
        let (field, key) = match segment.split_once('[') {
            Some((f, k)) => (f, Some(k.trim_end_matches(']'))),
            None => (segment, None),
        };
        let mut next = Vec::new();
        for (mut out, current) in spellings {
            if i > 0 {
                out.push('.');
            }
            out.push_str(field);
            let current = current.and_then(|c| c.get(field));
            let Some(key) = key else {
                next.push((out, current));
                continue;
            };
            let indexes: Vec<usize> = match key.parse::<usize>() {
                Ok(n) => vec![n],
                Err(_) => current
                    .and_then(Value::as_array)
                    .map(|items| {
                        (0..items.len())
                            .filter(|&n| items[n].get("name").and_then(Value::as_str) == Some(key))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            if indexes.is_empty() {
                next.push((format!("{out}[{key}]"), None));
            }
            for n in indexes {
                let item = current.and_then(|c| c.get(n));
                next.push((format!("{out}[{n}]"), item));
                // CAPI's `[index]` (a CRD schema error) may be our `[name]` of the same item.
                if let Some(name) = item.and_then(|i| i.get("name")).and_then(Value::as_str) {
                    next.push((format!("{out}[{name}]"), item));
                }
            }
        }
        spellings = next;
    }
    spellings.into_iter().map(|(p, _)| p).collect()
}

/// Does our message name CAPI's field path, literally or with list keys as indexes?
fn names_path(message: &str, path: &str, docs: &[capz::manifest::Document]) -> bool {
    let object = docs
        .iter()
        .find(|d| d.kind() == if path.starts_with("spec.topology") { "Cluster" } else { "ClusterClass" })
        .map(|d| &d.value);
    message.contains(path)
        || object.is_some_and(|o| indexed_paths(path, o).iter().any(|p| message.contains(p.as_str())))
}

/// The case file of a recording: in `cases/` or, for the cases only the v1.14 referee runs, `cases-v1.14/`.
pub fn case_path(name: &str) -> String {
    let main = format!("{DIR}/cases/{name}.yaml");
    if Path::new(&main).exists() { main } else { format!("{DIR}/cases-v1.14/{name}.yaml") }
}

/// Compares one case; every way we differ from CAPI.
pub fn compare(recording: &Value) -> Vec<Problem> {
    let name = recording["name"].as_str().unwrap();
    let path = case_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let docs = parse_documents(&text, &path).unwrap();
    let ours = plan_all(&docs);
    if let Some(error) = recording["error"].as_str() {
        let message = match ours {
            Ok(_) => return vec![Problem::text("CAPI rejects it; we plan it".into())],
            Err(e) => e.to_string(),
        };
        let mut problems: Vec<Problem> = capi_field_paths(error)
            .into_iter()
            .filter(|p| !names_path(&message, p, &docs))
            .map(|p| Problem::text(format!("our message does not name {p}")))
            .collect();
        // A patch that fails while planning: CAPI names the patch; we must too.
        if let Some((_, rest)) = error.split_once("for patch \"")
            && let Some((patch, _)) = rest.split_once('"')
            && !message.contains(&format!("(\"{patch}\")"))
        {
            problems.push(Problem::text(format!("our message does not name patch {patch:?}")));
        }
        if !problems.is_empty() {
            eprintln!("{name}:\n  CAPI: {error}\n  ours: {message}");
        }
        return problems;
    }
    let planned = match ours {
        Ok(p) => p.into_iter().next().unwrap().objects,
        Err(e) => {
            eprintln!("{name}: we reject it: {e}");
            return vec![Problem::text("CAPI plans it; we reject it".into())];
        }
    };
    let mut want: Vec<Value> =
        recording["created"].as_array().unwrap().iter().filter(|o| o["kind"] != "Secret").map(normalize).collect();
    want.extend(recording["modified"].as_array().unwrap().iter().map(|m| normalize(&m["after"])));
    let got: Vec<Value> = planned.iter().map(normalize).collect();

    // CAPI's names -> ours, by role.
    let mut names = BTreeMap::new();
    let mut problems = Vec::new();
    let mut pairs = Vec::new();
    let mut unmatched: Vec<&Value> = got.iter().collect();
    for w in &want {
        let r = role(w);
        match unmatched.iter().position(|g| role(g) == r) {
            Some(i) => {
                let g = unmatched.remove(i);
                names.insert(
                    w["metadata"]["name"].as_str().unwrap().to_string(),
                    g["metadata"]["name"].as_str().unwrap().to_string(),
                );
                pairs.push((w.clone(), g));
            }
            None => problems.push(Problem::text(format!("CAPI creates {r}; we do not"))),
        }
    }
    for g in unmatched {
        problems.push(Problem::text(format!("we plan {}; CAPI does not", role(g))));
    }
    for (mut w, g) in pairs {
        rename(&mut w, &names);
        let mut diffs = Vec::new();
        differences("", &w, g, &mut diffs);
        let kind = g["kind"].as_str().unwrap_or("").to_string();
        for (pointer, d) in diffs {
            problems.push(Problem {
                key: format!("{}: {d}", role(g)),
                kind: Some(kind.clone()),
                pointer: Some(pointer),
            });
        }
    }
    problems
}
