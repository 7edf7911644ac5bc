//! A kubeconfig that names its server by host name: the plugin resolves it through the lookup it restricts to
//! `/etc/hosts` and DNS (src/cluster/name_service.rs, what the statically linked release needs) and reaches the
//! real server.

use crate::support;

#[test]
fn a_server_named_by_host_name_is_reached() {
    let api = support::apiserver();
    let hosts = std::fs::read_to_string("/etc/hosts").expect("/etc/hosts");
    assert!(
        hosts.lines().any(|line| line.split_whitespace().skip(1).any(|name| name == "localhost")),
        "/etc/hosts names localhost: {hosts}"
    );
    let ns = api.namespace("host-names");
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = std::fs::read_to_string(&api.kubeconfig).unwrap();
    assert!(kubeconfig.contains("https://127.0.0.1:"), "{kubeconfig}");
    let by_name = dir.path().join("kubeconfig");
    std::fs::write(&by_name, kubeconfig.replace("https://127.0.0.1:", "https://localhost:")).unwrap();
    let file = dir.path().join("cm.yaml");
    std::fs::write(
        &file,
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: by-host-name\n  namespace: {ns}\ndata:\n  a: b\n"),
    )
    .unwrap();
    let diff = support::capz_diff(&by_name, &["-f", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(diff.status.code(), Some(1), "{}", String::from_utf8_lossy(&diff.stderr));
    assert!(stdout.contains("+  name: by-host-name"), "the new ConfigMap is the diff: {stdout}");
}
