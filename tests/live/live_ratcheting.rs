//! CRD validation ratcheting and CEL transition rules on an update of a stored object, the real kube-apiserver as
//! the referee: each case of tests/fixtures/ratcheting/cases.yaml is stored while the Widget CRD's validations are
//! stripped, the CRD is then installed as it is, and the case's new object replaces the stored one
//! (`kubectl replace --dry-run=server`). `kubectl capz validate --base BASE HEAD` must reject the same fields, and
//! keep as warnings the errors the server forgives.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{apiserver, capz_bin, repo_root};

const GROUP: &str = "ratcheting.kubectl-capz.test";
const VALIDATION_KEYS: &[&str] =
    &["maxLength", "minimum", "maximum", "enum", "pattern", "required", "x-kubernetes-validations"];

fn fixture(name: &str) -> Value {
    let path = repo_root().join("tests/fixtures/ratcheting").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `schema` without the checks ratcheting is about (the list types, item limits and the required keys of a map list
/// stay: a CRD needs them).
fn loosened(schema: &mut Value, map_list_items: bool) {
    match schema {
        Value::Object(map) => {
            for key in VALIDATION_KEYS.iter().filter(|key| !(map_list_items && **key == "required")) {
                map.remove(*key);
            }
            let is_map_list = map.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            for (key, child) in map.iter_mut() {
                if key != "x-kubernetes-list-map-keys" {
                    loosened(child, is_map_list && key == "items");
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| loosened(item, false)),
        _ => {}
    }
}

fn widget(namespace: &str, name: &str, spec: &Value) -> Value {
    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget",
        "metadata": {"name": name, "namespace": namespace}, "spec": spec})
}

/// The fields the server's error names, as JSON pointers (`spec.pools[1].count` is `/spec/pools/1/count`): one per
/// `* field: message` line, or the one after `is invalid: ` of a single error; the `<nil>` line that says CEL was
/// not run is left out.
fn rejected_fields(stderr: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let listed: Vec<&str> = stderr.lines().filter_map(|line| line.trim().strip_prefix("* ")).collect();
    let single: Vec<&str> =
        stderr.lines().filter_map(|line| line.split_once(" is invalid: ").map(|(_, e)| e)).collect();
    let errors = if listed.is_empty() { single } else { listed };
    for error in errors {
        let Some((field, _)) = error.split_once(": ") else { continue };
        if field == "<nil>" {
            continue;
        }
        let mut pointer = String::new();
        for part in field.split('.') {
            let (name, indexes) = part.split_once('[').map_or((part, ""), |(n, i)| (n, i));
            pointer.push('/');
            pointer.push_str(name);
            for index in indexes.split(['[', ']']).filter(|s| !s.is_empty()) {
                pointer.push('/');
                pointer.push_str(index);
            }
        }
        out.insert(pointer);
    }
    out
}

fn write_side(dir: &Path, objects: &[Value]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: Vec<String> = objects.iter().map(|o| serde_json::to_string(o).unwrap()).collect();
    std::fs::write(dir.join("widgets.yaml"), text.join("\n---\n")).unwrap();
}

#[test]
fn validate_base_forgives_and_rejects_what_the_server_does_on_update() {
    let server = apiserver();
    let namespace = server.namespace("ratcheting");
    let strict = fixture("widgets.yaml");
    let cases = fixture("cases.yaml");
    let cases = cases.as_array().expect("a list of cases");
    assert!(cases.len() >= 40, "{} cases", cases.len());

    // Stored under the loose CRD.
    let mut loose = strict.clone();
    loosened(&mut loose["spec"]["versions"][0]["schema"], false);
    server.kubectl_stdin_ok(&["apply", "--server-side", "--force-conflicts", "-f", "-"], &loose.to_string());
    server.wait_established(&["crd", &format!("widgets.{GROUP}")]);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let stored = widget(&namespace, name, &case["old"]);
        server.kubectl_stdin_ok(&["create", "-f", "-"], &stored.to_string());
    }
    // The CRD as it is; its schema is in effect once an invalid create is refused.
    server.kubectl_stdin_ok(&["apply", "--server-side", "--force-conflicts", "-f", "-"], &strict.to_string());
    let probe = widget(&namespace, "probe", &json!({"name": "waytoolongname"})).to_string();
    let mut strict_in_effect = false;
    for _ in 0..120 {
        if !server.kubectl_stdin(&["create", "--dry-run=server", "-f", "-"], &probe).status.success() {
            strict_in_effect = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(strict_in_effect, "the strict Widget schema never took effect");

    // The referee: each replacement, as the server judges it.
    let mut server_says: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let replacement = widget(&namespace, name, &case["new"]).to_string();
        let out = server.kubectl_stdin(&["replace", "--dry-run=server", "-f", "-"], &replacement);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let fields = rejected_fields(&stderr);
        assert_eq!(out.status.success(), fields.is_empty(), "{name}: a verdict without fields?\n{stderr}");
        server_says.insert(name.to_string(), fields);
    }

    // The plugin, on the same pairs: the base as stored, the head as applied.
    let work = tempfile::tempdir().unwrap();
    let olds: Vec<Value> = cases.iter().map(|c| widget(&namespace, c["name"].as_str().unwrap(), &c["old"])).collect();
    let news: Vec<Value> = cases.iter().map(|c| widget(&namespace, c["name"].as_str().unwrap(), &c["new"])).collect();
    write_side(&work.path().join("base"), &olds);
    write_side(&work.path().join("head"), &news);
    let crds = work.path().join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    std::fs::write(crds.join("widgets.json"), strict.to_string()).unwrap();
    let base = work.path().join("base");
    let head = work.path().join("head");
    let out = std::process::Command::new(capz_bin())
        .args(["validate", "--base"])
        .arg(&base)
        .arg(&head)
        .arg("--crds")
        .arg(&crds)
        .args(["-o", "json"])
        .output()
        .unwrap();
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let mut we_say: BTreeMap<String, BTreeSet<String>> =
        cases.iter().map(|c| (c["name"].as_str().unwrap().to_string(), BTreeSet::new())).collect();
    let mut forgiven = BTreeSet::new();
    for finding in report["findings"].as_array().expect("findings") {
        let object = finding["object"].as_str().unwrap_or("");
        let Some(name) = object.strip_prefix("Widget/").map(|n| n.rsplit('/').next().unwrap_or(n)) else { continue };
        let message = finding["message"].as_str().unwrap_or("");
        match finding["severity"].as_str() {
            Some("error") => {
                we_say
                    .get_mut(name)
                    .unwrap_or_else(|| panic!("{object}"))
                    .insert(finding["path"].as_str().unwrap().into());
            }
            Some("warning") if message.contains("CRD validation ratcheting") => {
                forgiven.insert(name.to_string());
            }
            _ => {}
        }
    }
    let disagreements: Vec<String> = server_says
        .iter()
        .filter(|(name, fields)| we_say.get(*name) != Some(fields))
        .map(|(name, fields)| format!("{name}: the server rejects {fields:?}, we reject {:?}", we_say[name]))
        .collect();
    assert!(disagreements.is_empty(), "{}\n{}", disagreements.join("\n"), String::from_utf8_lossy(&out.stderr));

    // The cases reach both verdicts, and forgiving is what made some of them pass.
    let rejected = server_says.values().filter(|fields| !fields.is_empty()).count();
    assert!(rejected >= 15 && rejected <= cases.len() - 15, "{rejected} of {} rejected", cases.len());
    for name in ["name-invalid-kept", "cel-kept", "pools-reordered-invalid-kept", "labels-kept", "limits-rule-kept"] {
        assert!(server_says[name].is_empty() && forgiven.contains(name), "{name}: forgiven by the server and by us");
    }
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}
