//! Repositories that run other Cluster API providers and the Cluster API Operator beside CAPZ, and that add ASO kinds
//! with `ADDITIONAL_ASO_CRDS` (fixtures of tests/fixtures/repos/ after the shapes met on public repositories): only
//! the kinds of the target's releases are judged, and the ASO kinds a repository adds are installed and checked.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

fn validate(args: &[&str]) -> Output {
    capz_command().current_dir(repos()).arg("validate").args(args).output().unwrap()
}

/// Exit code, stdout and stderr as a snapshot shows them (the repository's absolute path as `[REPO]`).
fn shown(output: &Output) -> String {
    let root = support::repo_root().display().to_string();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&root, "[REPO]");
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr)
    )
}

fn json(args: &[&str]) -> Value {
    let output = validate(&[&["-o", "json"][..], args].concat());
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)))
}

/// `(object, severity, rule)` of every finding.
fn findings(report: &Value) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = |key: &str| f[key].as_str().unwrap_or_default().to_string();
            (field("object"), field("severity"), field("rule"))
        })
        .collect()
}

/// CAPA, CAPD, the in-cluster IPAM provider, Talos and the CAPI Operator's providers beside a CAPZ cluster: no error on
/// another provider's kind, whatever its version (each is a "not bundled" warning, nothing with
/// --ignore-missing-schemas); CAPZ's, CAPI's and the operator's kinds are checked, their true errors found.
#[test]
fn other_providers_kinds_are_not_bundled_warnings_and_the_targets_kinds_are_checked() {
    let output = validate(&["capi-providers-mix"]);
    insta::assert_snapshot!("capi_providers_mix", shown(&output));
    let report = json(&["capi-providers-mix"]);
    let foreign = [
        "AWSManagedCluster/",
        "AWSManagedControlPlane/",
        "AWSManagedMachinePool/",
        "DockerCluster/",
        "DockerMachineTemplate/",
        "InClusterIPPool/",
        "TalosControlPlane/",
        "TalosConfigTemplate/",
    ];
    let mut errors = Vec::new();
    for (object, severity, rule) in findings(&report) {
        if foreign.iter().any(|kind| object.starts_with(kind)) {
            assert_eq!((severity.as_str(), rule.as_str()), ("warning", "schema-missing"), "{object}");
        } else if severity == "error" {
            errors.push(format!("{object} {rule}"));
        }
    }
    assert_eq!(
        errors,
        [
            "Cluster/aks-prod aks-system-pool-required",
            "AzureASOManagedControlPlane/aks-prod unknown-field",
            "AzureASOManagedMachinePool/aks-prod-pool0 schema",
            "MachineHealthCheck/capd-dev-md-0 unknown-field",
            "InfrastructureProvider/aws schema",
        ]
    );
    // Every kind of the target is checked: the operator's providers, CAPI's core, kubeadm and ipam kinds.
    let checked: Vec<&str> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] != "skipped")
        .map(|r| r["object"].as_str().unwrap())
        .collect();
    for object in [
        "CoreProvider/cluster-api",
        "RuntimeExtensionProvider/example",
        "KubeadmControlPlane/capd-dev-control-plane",
        "KubeadmConfigTemplate/capd-dev-md-0",
        "MachineDeployment/capd-dev-md-0",
        "IPAddressClaim/vm-0",
    ] {
        assert!(checked.contains(&object), "{object} not checked: {checked:?}");
    }
    // No warning is left with --ignore-missing-schemas; the errors stay.
    let quiet = validate(&["--ignore-missing-schemas", "capi-providers-mix"]);
    assert_eq!(quiet.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(
        stderr.ends_with("31 objects: 17 valid, 5 invalid, 9 skipped (5 errors, 0 warnings, 0 not checked)\n"),
        "{stderr}"
    );
}

/// The operator's azure InfrastructureProvider takes ADDITIONAL_ASO_CRDS from its configSecret (base64 `data`): the
/// identity kinds are installed and checked against their schemas, Redis is installed without a bundled schema (not
/// checked), a key vault stays a warning; `-v` says where the value came from.
#[test]
fn the_operators_config_secret_adds_aso_kinds() {
    let output = validate(&["-v", "capi-operator-aso-crds"]);
    insta::assert_snapshot!("capi_operator_aso_crds", shown(&output));
    let report = json(&["capi-operator-aso-crds"]);
    let got = findings(&report);
    assert!(got.contains(&("FederatedIdentityCredential/external-dns".into(), "error".into(), "unknown-field".into())));
    assert!(got.contains(&("Redis/sessions".into(), "notchecked".into(), "aso-crd-pattern".into())));
    assert!(got.contains(&("Vault/platform-secrets".into(), "warning".into(), "aso-crd-pattern".into())));
    for object in ["UserAssignedIdentity/external-dns", "RoleAssignment/external-dns-zone-contributor"] {
        assert!(!got.iter().any(|(o, ..)| o == object), "{object}: {got:?}");
        let status = report["resources"].as_array().unwrap().iter().find(|r| r["object"] == object).unwrap();
        assert_eq!(status["status"], "valid", "{object}");
    }
    let declared = &report["target"]["additionalAsoCrds"];
    assert_eq!(declared[0]["location"], "capi-operator-aso-crds/management/capz-provider.yaml:14");
    // A Secret holds it: its value is never shown, in -v or in the report (the kinds it adds are judged above).
    assert_eq!(declared[0]["value"], "***");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("cache.azure.com/Redis"));
    // Without the Secret, the same objects are "CAPZ does not install this CRD".
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repos().join("capi-operator-aso-crds/workloads/identity.yaml"), dir.path().join("identity.yaml"))
        .unwrap();
    let alone = capz_command().arg("validate").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&alone.stdout);
    assert_eq!(
        stdout.matches("CAPZ does not install this CRD unless it is added to ADDITIONAL_ASO_CRDS").count(),
        5,
        "{stdout}"
    );
}

/// `additionalAsoCrds` of `.kubectl-capz.yaml` decides alone (the repository's clusterctl file is a note at `-v`), and
/// the added kinds are judged per version by the pinned target's ASO.
#[test]
fn the_config_files_additional_aso_crds_decide() {
    let output = validate(&["-v", "aso-crds-config"]);
    insta::assert_snapshot!("aso_crds_config", shown(&output));
    assert_eq!(output.status.code(), Some(1));
}

/// A clusterctl config file's top-level ADDITIONAL_ASO_CRDS counts; its empty entry is a warning (ASO refuses to
/// start).
#[test]
fn a_clusterctl_config_file_adds_aso_kinds() {
    let output = validate(&["-v", "clusterctl-aso-crds"]);
    insta::assert_snapshot!("clusterctl_aso_crds", shown(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("warning: ADDITIONAL_ASO_CRDS of clusterctl's config file at clusterctl-aso-crds/.cluster-api/clusterctl.yaml:6: `` is an empty entry"), "{stderr}");
}
