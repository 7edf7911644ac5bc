//! Every request of the plugin carries `User-Agent: kubectl-capz/<version>`, as the real
//! kube-apiserver records it in its audit log (the shared test server writes one).
//! Also: namespace completion reads the namespaces of the live cluster.

use crate::support;

use std::process::Command;

use serde_json::Value;

const USER_AGENT: &str = concat!("kubectl-capz/", env!("CARGO_PKG_VERSION"));

fn audit_events(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The server is shared with the other live tests: the last line may be an event still being written.
    let complete = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
    complete.lines().map(|l| serde_json::from_str(l).expect("audit event is JSON")).collect()
}

#[test]
fn requests_carry_the_plugin_user_agent() {
    let audited = support::audited_apiserver();
    let api = &audited.api;
    let ns = api.namespace("user-agent");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cm.yaml");
    std::fs::write(
        &file,
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ua-probe\n  namespace: {ns}\ndata:\n  a: b\n"),
    )
    .unwrap();
    let diff = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
        .args(["diff", "-f"])
        .arg(&file)
        .arg("--kubeconfig")
        .arg(&api.kubeconfig)
        .env("NO_COLOR", "1")
        .env_remove("KUBECTL_EXTERNAL_DIFF")
        .output()
        .unwrap();
    assert_eq!(diff.status.code(), Some(1), "{}", String::from_utf8_lossy(&diff.stderr));

    let completion = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
        .args(["__complete", "diff", "--kubeconfig"])
        .arg(&api.kubeconfig)
        .args(["-n", "user-"])
        .output()
        .unwrap();
    let offered = String::from_utf8_lossy(&completion.stdout).into_owned();
    assert!(offered.lines().any(|l| l == ns), "namespaces of the cluster offered: {offered}");
    assert!(offered.ends_with(":4\n"), "{offered}");

    let events = audit_events(&audited.audit_log);
    let ours: Vec<&Value> = events.iter().filter(|e| e["userAgent"] == USER_AGENT).collect();
    let uri = |e: &Value| e["requestURI"].as_str().unwrap_or("").to_string();
    let probe = format!("/api/v1/namespaces/{ns}/configmaps/ua-probe");
    assert!(
        ours.iter().any(|e| e["verb"] == "patch" && uri(e).starts_with(&probe) && uri(e).contains("dryRun=All")),
        "the dry-run apply carries {USER_AGENT}: {ours:#?}"
    );
    assert!(ours.iter().any(|e| e["verb"] == "get" && uri(e) == probe), "the read carries it: {ours:#?}");
    assert!(ours.iter().any(|e| e["verb"] == "list" && uri(e).starts_with("/api/v1/namespaces?")), "{ours:#?}");
    let others: Vec<String> = events
        .iter()
        .filter(|e| uri(e).starts_with(&probe))
        .filter(|e| e["userAgent"] != USER_AGENT)
        .map(|e| format!("{} {} {}", e["verb"], uri(e), e["userAgent"]))
        .collect();
    assert!(others.is_empty(), "requests about the probe without our user agent: {others:?}");
}
