//! Records the real kube-apiserver's verdict on the core-object corpus (tests/fixtures/core-referee/cases.yaml):
//! each object goes through `kubectl create --dry-run=server --validate=strict` (a create with
//! `fieldValidation=Strict`, nothing stored) against the kube-apiserver 1.36 of tools/kube-testenv. The verdicts
//! must equal the committed tests/fixtures/core-referee/verdicts.json, which tests/referee/core_referee.rs replays
//! against our validator without a server; `KUBECTL_CAPZ_RECORD=1` rewrites that file instead.

use crate::support;

use std::path::PathBuf;

use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    support::repo_root().join("tests/fixtures/core-referee").join(name)
}

/// (case, object text) of every document of the corpus.
fn cases() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixture("cases.yaml")).unwrap();
    let mut out = Vec::new();
    for document in text.split("\n---\n") {
        let case = document.lines().find_map(|l| l.strip_prefix("# case: ")).expect("every document names its case");
        out.push((case.trim().to_string(), document.to_string()));
    }
    out
}

/// The server's error without kubectl's prefix and the per-run namespace.
fn message(stderr: &str, namespace: &str) -> String {
    stderr.trim().replace(namespace, "NAMESPACE")
}

#[test]
fn the_api_servers_verdicts_equal_the_recording() {
    let server = support::apiserver();
    let namespace = server.namespace("core-referee");
    let mut recorded = Vec::new();
    for (case, object) in cases() {
        let out = server.kubectl_stdin(
            &["create", "--dry-run=server", "--validate=strict", "-n", &namespace, "-o", "name", "-f", "-"],
            &object,
        );
        let accepted = out.status.success();
        let mut entry = json!({"case": case, "accepted": accepted});
        if !accepted {
            entry["message"] = json!(message(&String::from_utf8_lossy(&out.stderr), &namespace));
        }
        recorded.push(entry);
    }
    let recording = json!({
        "recorded_with": "kubectl create --dry-run=server --validate=strict (fieldValidation=Strict)",
        "server": "kube-apiserver v1.36.3 (tools/kube-testenv)",
        "cases": recorded,
    });
    let path = fixture("verdicts.json");
    if std::env::var_os("KUBECTL_CAPZ_RECORD").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&recording).unwrap() + "\n").unwrap();
        return;
    }
    let committed: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        committed["cases"], recording["cases"],
        "the server's verdicts changed: re-record with KUBECTL_CAPZ_RECORD=1 cargo test --test live live_core_referee"
    );
}

/// Every kind the test kube-apiserver lets a client create (its own and the CRDs it was started with) has a
/// bundled schema of the same scope: `schema-missing` is left for kinds nobody bundles.
#[test]
fn every_kind_the_api_server_serves_has_a_bundled_schema() {
    let server = support::apiserver();
    let listing = server.kubectl_ok(&["api-resources", "--verbs=create", "--no-headers"]);
    let registry = capz::schema::Registry::embedded();
    let mut missing = Vec::new();
    let mut checked = 0;
    for line in listing.lines() {
        // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
        let columns: Vec<&str> = line.split_whitespace().collect();
        let [.., api_version, namespaced, kind] = columns[..] else { panic!("unexpected line {line:?}") };
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        match registry.get(&capz::schema::Gvk::new(group, version, kind)).unwrap() {
            Some(schema) if schema.namespaced() == (namespaced == "true") => checked += 1,
            Some(_) => missing.push(format!("{api_version} {kind}: other scope")),
            None => missing.push(format!("{api_version} {kind}")),
        }
    }
    assert!(missing.is_empty(), "served without a bundled schema: {missing:?}");
    assert!(checked > 60, "{checked} kinds:\n{listing}");
}
