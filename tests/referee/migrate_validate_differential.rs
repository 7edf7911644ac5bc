//! Differential test of `migrate -f` against `validate`: over every classic input in tests/ (the
//! CAPZ translation cases, the classic corpus and lint fixtures, the CAPZ webhook cases),
//! `migrate` never exits 0 on an input `validate` rejects; and our own examples of what slipped
//! through (CAPZ webhook rejections, an unserved API version, a CRD enum value) stop it with
//! `validate`'s findings.

use crate::support::cli_runner::capz_command;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn run(args: &[&str]) -> (i32, String) {
    let out = capz_command().args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn classic_inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "tests/fixtures/capz-translation/cases",
        "tests/corpus/valid",
        "tests/corpus/invalid",
        "tests/fixtures/lint",
        "tests/fixtures/capz-webhooks/cases",
    ] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        files.extend(entries.into_iter().filter(|p| {
            p.extension().is_some_and(|e| e == "yaml")
                && std::fs::read_to_string(p).is_ok_and(|t| t.contains("kind: AzureManagedControlPlane\n"))
        }));
    }
    files
}

#[test]
fn migrate_never_passes_what_validate_rejects() {
    let files = classic_inputs();
    assert!(files.len() > 100, "{} classic inputs", files.len());
    let failures = Mutex::new(Vec::new());
    let migrated = Mutex::new(0);
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                loop {
                    let index = {
                        let mut next = next.lock().unwrap();
                        *next += 1;
                        *next - 1
                    };
                    let Some(path) = files.get(index) else { break };
                    let file = path.to_str().unwrap();
                    let (migrate, migrate_err) = run(&["migrate", "-f", file]);
                    if migrate != 0 {
                        continue;
                    }
                    *migrated.lock().unwrap() += 1;
                    let (validate, validate_err) = run(&["validate", file]);
                    if validate != 0 {
                        failures.lock().unwrap().push(format!(
                            "{file}: migrate exit 0, validate exit {validate}:\n{validate_err}{migrate_err}"
                        ));
                    }
                }
            });
        }
    });
    assert!(*migrated.lock().unwrap() >= 20, "too few inputs migrate at all");
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A classic cluster `migrate` translates and `validate` accepts; `{CP}` takes extra fields under
/// the control plane's spec, `{CLUSTER}` extra service CIDRs.
const CLASSIC: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: demo
  namespace: default
spec:
  clusterNetwork:
    services:
      cidrBlocks: [10.0.0.0/16{CLUSTER}]
  controlPlaneRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureManagedControlPlane
    name: demo
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureManagedCluster
    name: demo
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: demo
  namespace: default
spec:
  location: westeurope
  resourceGroupName: demo
  subscriptionID: 00000000-0000-0000-0000-000000000001
  version: v1.33.2
  identityRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureClusterIdentity
    name: identity
    namespace: default{CP}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedCluster
metadata:
  name: demo
  namespace: default
spec: {}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: pool0
  namespace: default
spec:
  clusterName: demo
  replicas: 1
  template:
    spec:
      clusterName: demo
      version: v1.33.2
      bootstrap:
        dataSecretName: \"\"
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureManagedMachinePool
        name: pool0
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata:
  name: pool0
  namespace: default
spec:
  mode: System
  sku: Standard_D2s_v3
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureClusterIdentity
metadata:
  name: identity
  namespace: default
spec:
  type: WorkloadIdentity
  clientID: 00000000-0000-0000-0000-000000000003
  tenantID: 00000000-0000-0000-0000-000000000002
  allowedNamespaces: {}
";

fn classic(cp: &str, cluster: &str) -> String {
    CLASSIC.replace("{CP}", cp).replace("{CLUSTER}", cluster)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn what_validate_rejects_stops_migrate_with_the_same_findings() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", &classic("", ""));
    let (code, stderr) = run(&["validate", &base]);
    assert_eq!(code, 0, "the base case is valid: {stderr}");
    assert_eq!(run(&["migrate", "-f", &base]).0, 0);
    let cases = [
        ("dns-ip", classic("\n  dnsServiceIP: 10.0.0.53", ""), "capz-dns-service-ip"),
        ("two-service-cidrs", classic("", ", 10.1.0.0/16"), "capz-cluster-network-cidrs"),
        (
            "plugin-mode-case",
            classic("\n  networkPlugin: azure\n  networkPluginMode: Overlay", ""),
            "networkPluginMode",
        ),
        (
            "v1alpha4",
            classic("", "").replacen(
                "cluster.x-k8s.io/v1beta1\nkind: Cluster",
                "cluster.x-k8s.io/v1alpha4\nkind: Cluster",
                1,
            ),
            "v1alpha4",
        ),
        (
            "extension-scope",
            classic(
                "\n  extensions:\n  - name: flux\n    extensionType: microsoft.flux\n    scope:\n      scopeType: Cluster",
                "",
            ),
            "capz-aks-extensions",
        ),
    ];
    for (name, text, expected) in cases {
        let file = write(dir.path(), &format!("{name}.yaml"), &text);
        let (validate, validate_err) = run(&["validate", &file]);
        assert_eq!(validate, 1, "{name}: validate rejects it: {validate_err}");
        let (migrate, migrate_err) = run(&["migrate", "-f", &file]);
        assert_eq!(migrate, 1, "{name}: {migrate_err}");
        assert!(migrate_err.contains(expected), "{name}: {migrate_err}");
        assert!(migrate_err.contains("the input does not validate"), "{name}: {migrate_err}");
    }
}

#[test]
fn a_template_in_a_directory_does_not_stop_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cluster.yaml", &classic("", ""));
    write(
        dir.path(),
        "values-template.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n{{- if .Values.x }}\ndata: {}\n{{- end }}\n",
    );
    let out = capz_command().args(["migrate", "-f", dir.path().to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("values-template.yaml:") && stderr.contains("skipped: not Kubernetes manifests"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kind: AzureASOManagedControlPlane"));
}

#[test]
fn every_value_written_differently_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "sku.yaml",
        &classic("\n  loadBalancerSKU: Standard\n  networkPlugin: azure\n  networkPolicy: calico", ""),
    );
    let out = capz_command().args(["migrate", "-f", &file]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let notes: Vec<&str> = stderr.lines().filter(|l| l.contains(": note: ")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(
        notes[0].contains("sku.yaml:")
            && notes[0]
                .contains("AzureManagedControlPlane/demo spec.loadBalancerSKU \"Standard\" is written as \"standard\""),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("loadBalancerSku: standard"));
}
