//! `plan` against the referee: every case of tests/fixtures/capi-topology/cases/ was run through
//! Cluster API's own offline planner (CAPI v1.10.10, `clusterctl alpha topology plan`'s code; see
//! tools/capi-topology-oracle) and its answer recorded in recordings.json. Here each case is
//! planned by `capz::topology` and compared:
//!
//! - CAPI rejected it: we reject it too, and our message names every field path CAPI names (patch,
//!   definition and JSON patch index; a `[name]` key of CAPI may be our `[index]` plus the name).
//! - CAPI planned it: we plan the same objects (matched by role, since names end in random
//!   characters) with the same fields, and the Cluster as CAPI's defaulting webhook and the
//!   topology reconciler leave it. Not compared: owner references and CAPI's "shim" Secret (both
//!   need the Cluster's UID), status.
//!
//! A case that disagrees must be listed in `KNOWN_DIFFERENCES` with the docs/plan.md section
//! that explains why; a listed case that agrees fails too, so the list stays exact.

use std::collections::{BTreeMap, BTreeSet};

use capz::manifest::parse_documents;
use capz::topology::plan_all;
use serde_json::Value;

const DIR: &str = "tests/fixtures/capi-topology";

/// Cases where we knowingly differ from CAPI v1.10; each is explained in docs/plan.md.
const KNOWN_DIFFERENCES: &[(&str, &str)] =
    &[("v08-mhc-from-class", "### Provider objects are not decoded into Go types")];

/// Fields where we follow CAPI v1.14 (our target) and the v1.10 referee differs: (kind, JSON
/// pointer in the object, docs/plan.md section). A difference at such a field is not counted; each
/// entry must be seen in the corpus, so the list cannot go stale.
const V1_14_FIELDS: &[(&str, &str, &str)] =
    &[("MachineHealthCheck", "/spec/maxUnhealthy", "- MachineHealthChecks: v1.14's webhook no longer defaults")];

fn recordings() -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{DIR}/recordings.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What identifies an object's role in a topology, independent of its (random) name.
fn role(object: &Value) -> String {
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

/// Paths (JSON pointer) where two values differ, with both sides.
fn differences(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let p = format!("{path}/{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => differences(&p, x, y, out),
                    (Some(x), None) => out.push(format!("{p}: CAPI has {x}, we have nothing")),
                    (None, Some(y)) => out.push(format!("{p}: CAPI has nothing, we have {y}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}/{i}"), x, y, out);
            }
        }
        _ if want != got => out.push(format!("{path}: CAPI has {want}, we have {got}")),
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

/// CAPI's path with `[name]` list keys (variables, topologies by name) as `[index]` of the
/// object the path is in (the Cluster for `spec.topology...`, else the ClusterClass): every
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
                next.push((format!("{out}[{n}]"), current.and_then(|c| c.get(n))));
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

/// Compares one case; `Err` describes how we differ from CAPI. Differences at `V1_14_FIELDS`
/// are left out and noted in `v1_14_seen`.
fn compare(recording: &Value, v1_14_seen: &mut BTreeSet<usize>) -> Result<(), String> {
    let name = recording["name"].as_str().unwrap();
    let path = format!("{DIR}/cases/{name}.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs = parse_documents(&text, &path).unwrap();
    let ours = plan_all(&docs);
    if let Some(error) = recording["error"].as_str() {
        let message = match ours {
            Ok(_) => return Err(format!("CAPI rejects it ({error}); we plan it")),
            Err(e) => e.to_string(),
        };
        let mut missing: Vec<String> =
            capi_field_paths(error).into_iter().filter(|p| !names_path(&message, p, &docs)).collect();
        // A patch that fails while planning: CAPI names the patch; we must too.
        if let Some((_, rest)) = error.split_once("for patch \"")
            && let Some((patch, _)) = rest.split_once('"')
            && !message.contains(&format!("(\"{patch}\")"))
        {
            missing.push(format!("patch {patch:?}"));
        }
        if !missing.is_empty() {
            return Err(format!("our message does not name {missing:?}\n  CAPI: {error}\n  ours: {message}"));
        }
        return Ok(());
    }
    let planned = match ours {
        Ok(p) => p.into_iter().next().unwrap().objects,
        Err(e) => return Err(format!("CAPI plans it; we reject it: {e}")),
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
            None => problems.push(format!("CAPI creates {} {} ({r}); we do not", w["kind"], w["metadata"]["name"])),
        }
    }
    for g in unmatched {
        problems.push(format!("we plan {} {} ({}); CAPI does not", g["kind"], g["metadata"]["name"], role(g)));
    }
    for (mut w, g) in pairs {
        rename(&mut w, &names);
        let mut diffs = Vec::new();
        differences("", &w, g, &mut diffs);
        for d in diffs {
            let v1_14 = V1_14_FIELDS.iter().position(|(kind, pointer, _)| {
                g["kind"] == *kind && d.strip_prefix(pointer).is_some_and(|rest| rest.starts_with(':'))
            });
            match v1_14 {
                Some(i) => {
                    v1_14_seen.insert(i);
                }
                None => problems.push(format!("{} {}: {d}", g["kind"], g["metadata"]["name"])),
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n  ")) }
}

#[test]
fn the_corpus_is_big_enough_and_holds_invalid_cases() {
    let recordings = recordings();
    assert!(recordings.len() >= 20, "{} cases", recordings.len());
    let rejected = recordings.iter().filter(|r| r["error"].is_string()).count();
    assert!(rejected >= 10, "{rejected} rejected cases");
    assert!(recordings.iter().all(|r| r.get("panic").is_none()), "the referee panicked on a case");
    let files = std::fs::read_dir(format!("{DIR}/cases")).unwrap().count();
    assert_eq!(files, recordings.len(), "every case has a recording (run tools/capi-topology-oracle/regen.sh)");
}

#[test]
fn plan_agrees_with_capi_on_every_case_or_the_difference_is_documented() {
    let docs = std::fs::read_to_string("docs/plan.md").unwrap();
    let mut report = Vec::new();
    let mut differing = BTreeSet::new();
    let mut v1_14_seen = BTreeSet::new();
    for recording in recordings() {
        let name = recording["name"].as_str().unwrap().to_string();
        if let Err(why) = compare(&recording, &mut v1_14_seen) {
            report.push(format!("{name}:\n  {why}"));
            differing.insert(name);
        }
    }
    let known: BTreeSet<String> = KNOWN_DIFFERENCES.iter().map(|(n, _)| n.to_string()).collect();
    for (case, section) in KNOWN_DIFFERENCES {
        assert!(docs.contains(section), "{case}: docs/plan.md has no {section:?}");
    }
    for (i, (kind, pointer, section)) in V1_14_FIELDS.iter().enumerate() {
        assert!(docs.contains(section), "{kind} {pointer}: docs/plan.md has no {section:?}");
        assert!(v1_14_seen.contains(&i), "{kind} {pointer}: no case differs there any more");
    }
    let unexpected: Vec<&String> = differing.difference(&known).collect();
    let fixed: Vec<&String> = known.difference(&differing).collect();
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "differs, not documented: {unexpected:?}\nagrees, still listed: {fixed:?}\n\n{}",
        report.join("\n\n")
    );
}
