//! A closed stdout (`kubectl capz ... | head -1`) ends every command quietly, with the exit code it
//! would have had: the reader of the pipe is gone before the command writes its first byte.

use std::process::{Command, Stdio};

const RENDER_ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "eastus"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000003"),
    ("AZURE_CLUSTER_IDENTITY_SECRET_NAME", "identity-secret"),
    ("AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE", "default"),
    ("CLUSTER_IDENTITY_NAME", "identity"),
    ("AZURE_RESOURCE_GROUP", "rg"),
    ("AZURE_SSH_PUBLIC_KEY_B64", ""),
];

/// (exit code, stderr) of the binary run with `args`, its stdout a pipe nobody reads, or
/// (with `closed` false) with stdout read to the end.
fn run(args: &[&str], closed: bool) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args(args).envs(RENDER_ENV.iter().copied());
    command.stderr(Stdio::piped());
    if closed {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        command.stdout(writer);
    } else {
        command.stdout(Stdio::piped());
    }
    let output = command.output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn every_command_ends_quietly_with_its_own_exit_code() {
    let cases: &[&[&str]] = &[
        &["validate", "-o", "json", "tests/fixtures/validate/bundle.yaml"],
        &["validate", "-o", "junit", "tests/fixtures/validate/bundle.yaml"],
        &["validate", "tests/fixtures/validate/bundle.yaml"],
        &["validate", "-o", "json", "tests/fixtures/validate/mixed"],
        &["render", "aks-aso"],
        &["render", "aks-aso", "-o", "json"],
        &["render", "--from", "tests/fixtures/envsubst/cluster-template-aks.yaml", "c1"],
        &["render", "--from", "tests/fixtures/envsubst/cluster-template-aks.yaml", "c1", "--list-variables"],
        &["params", "aks-aso"],
        &["plan", "--no-validate", "-f", "tests/fixtures/topology/custom"],
        &["version"],
        &["completion", "bash"],
    ];
    for args in cases {
        let (expected, _) = run(args, false);
        assert!(matches!(expected, Some(0 | 1)), "{args:?} must work with a reader: {expected:?}");
        let (code, stderr) = run(args, true);
        assert_eq!(code, expected, "{args:?}: stderr {stderr}");
        assert!(!stderr.contains("error:") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
