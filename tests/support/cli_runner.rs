//! Running the plugin binary in CLI tests: an empty environment plus the variables a test gives,
//! success and usage-error expectations, rendered YAML read back as values.

use assert_cmd::Command;
use capz::manifest::parse_documents;
use serde_json::Value;

/// The variables CAPZ's docs export before `clusterctl generate cluster` (managedcluster.md), plus the aks-aso
/// secret name: the clusterctl variables the upstream-template tests expand CAPZ's templates with.
pub const CAPZ_DOCS_ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "southcentralus"),
    ("AZURE_RESOURCE_GROUP", "demo"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000003"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
    ("WORKER_MACHINE_COUNT", "2"),
];

/// The binary with the test's own environment (for an empty one, [`capz`]).
pub fn capz_command() -> Command {
    Command::new(super::capz_bin())
}

/// The binary with only PATH, the tests' AKS day and `env` in its environment.
pub fn capz(env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(super::capz_bin());
    cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default()).env("KUBECTL_CAPZ_AT", super::AKS_TEST_DAY);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs and expects success with nothing on stderr; returns stdout.
pub fn run_ok(env: &[(&str, &str)], args: &[&str]) -> String {
    let output = capz(env).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "exit {:?}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Runs and expects exit 2 with nothing on stdout; returns stderr.
pub fn run_err(env: &[(&str, &str)], args: &[&str]) -> String {
    let output = capz(env).args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "stdout:\n{}", String::from_utf8_lossy(&output.stdout));
    assert!(output.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&output.stdout));
    String::from_utf8(output.stderr).unwrap()
}

/// Multi-document YAML as JSON values.
pub fn values(yaml: &str) -> Vec<Value> {
    parse_documents(yaml, "<rendered>").unwrap().into_iter().map(|d| d.value).collect()
}

/// Every file below `dir` with its bytes, by path relative to `dir`.
pub fn snapshot_tree(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}
