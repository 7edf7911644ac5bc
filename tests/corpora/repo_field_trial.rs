//! Shapes met on public repositories that keep CAPZ clusters in Git, each reproduced by a fixture of our own
//! (tests/fixtures/repos/): what `validate DIR` must say of them, and what it must not.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

/// `validate -o json DIR` run from `cwd`.
fn validate_json(cwd: &Path, dir: &str) -> (Value, Output) {
    let output = capz_command().current_dir(cwd).args(["validate", "-o", "json", dir]).output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("validate {dir}: {err}\n{}", String::from_utf8_lossy(&output.stderr)));
    (report, output)
}

/// Findings as `source:line severity rule path`.
fn findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} {} {}",
                f["source"].as_str().unwrap(),
                f["line"],
                f["severity"].as_str().unwrap(),
                f["rule"].as_str().unwrap(),
                f["path"].as_str().unwrap()
            )
        })
        .collect()
}

fn messages(report: &Value, rule: &str) -> Vec<String> {
    report["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

/// clusterctl templates with bare `$NAME` variables (drone/envsubst fills them): one info finding naming them,
/// no "invalid namespace" error on `$IDENTITY_NAMESPACE`; a shell script's `$PATH` and `${HOSTNAME}` and a
/// password hash are no variables.
#[test]
fn bare_clusterctl_variables_are_unsubstituted_variables_not_errors() {
    let (report, output) = validate_json(&repos(), "clusterctl-templates");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(
        findings(&report),
        ["clusterctl-templates/templates/identity.yaml:5 info unsubstituted-variables "],
        "{report:#}"
    );
    let notes = messages(&report, "unsubstituted-variables");
    assert!(
        notes[0].starts_with("$AZURE_TENANT_ID, $IDENTITY_NAMESPACE, ${AZURE_CLIENT_ID} are not substituted"),
        "{notes:?}"
    );
    assert!(!notes[0].contains("PATH") && !notes[0].contains("HOME") && !notes[0].contains("HOSTNAME"), "{notes:?}");
}

/// An AKS cluster in CAPZ's v1alpha3 API, whose control plane names its System pool with `spec.defaultPoolRef`:
/// each object's unserved API version is an error, and no "none of the MachinePools has mode: System" follows.
#[test]
fn v1alpha3_default_pool_ref_is_not_a_missing_system_pool() {
    let (report, output) = validate_json(&repos(), "capz-v1alpha3-demo");
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let file = "capz-v1alpha3-demo/clusters/demo.yaml";
    assert_eq!(
        findings(&report),
        [
            format!("{file}:1 error api-version /apiVersion"),
            format!("{file}:16 error api-version /apiVersion"),
            format!("{file}:17 info capz-deprecated-api /kind"),
            // v1.20 left AKS support long before the release calendar's oldest minor.
            format!("{file}:27 error aks-version-unsupported /spec/version"),
            format!("{file}:29 error api-version /apiVersion"),
            format!("{file}:30 info capz-deprecated-api /kind"),
            format!("{file}:35 error api-version /apiVersion"),
            format!("{file}:36 info capz-deprecated-api /kind"),
            format!("{file}:43 error api-version /apiVersion"),
            format!("{file}:54 error aks-version-unsupported /spec/template/spec/version"),
        ],
        "{report:#}"
    );
}

/// ASO samples where one ResourceGroup is written in two files: the warning about the credential Secret kept out
/// of Git names each object that uses it once.
#[test]
fn credential_secret_warning_names_each_object_once() {
    let (report, output) = validate_json(&repos(), "aso-samples");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(
        findings(&report),
        ["aso-samples/samples/aks/cluster.yaml:7 warning aso-credential-secret \
             /metadata/annotations/serviceoperator.azure.com~1credential-from"],
        "{report:#}"
    );
    let message = &messages(&report, "aso-credential-secret")[0];
    assert!(message.contains("for ResourceGroup/demo-rg, ManagedCluster/demo-aks unless"), "{message}");
}

/// Flavors sharing a patch file outside their directories (CAPZ's templates/ layout): the root nothing points at is
/// one warning at its patch line saying how to build it (not kubectl's "security; file ... is not in or below"
/// dump); the path a Flux Kustomization points at is built as Flux builds it (`LoadRestrictionsNone`), so the
/// seeded identity type the CRD enum rejects is found at the shared patch's line.
#[test]
fn shared_patches_outside_a_kustomization_are_built_for_flux_and_explained_otherwise() {
    let (report, output) = validate_json(&repos(), "kustomize-shared-patches");
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        findings(&report),
        [
            "kustomize-shared-patches/flavors/plain/kustomization.yaml:7 warning repository-source ",
            "kustomize-shared-patches/shared/identity-ref.yaml:6 error schema /spec/type",
        ],
        "{report:#}"
    );
    let message = &messages(&report, "repository-source")[0];
    assert!(
        message.starts_with("`../../shared/identity-ref.yaml` is not in or below the directory")
            && message.contains("`kubectl kustomize flavors/plain --load-restrictor LoadRestrictionsNone`"),
        "{message}"
    );
}

/// An overlay kustomize cannot build, after printing `commonLabels` deprecation warnings: the warning gives
/// kustomize's reason itself, not the deprecation lines, kubectl's klog wrapping or the build wrapper's frames.
#[test]
fn a_failing_kustomization_warns_with_kustomizes_reason() {
    let (report, output) = validate_json(&repos(), "kustomize-failing-overlay");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(
        findings(&report),
        ["kustomize-failing-overlay/overlays/dev/kustomization.yaml:1 warning repository-source "],
        "{report:#}"
    );
    let message = &messages(&report, "repository-source")[0];
    assert!(
        message.starts_with("`kubectl kustomize overlays/dev` failed, so its objects are not checked: `")
            && message
                .ends_with("failed (exit status: 1): unable to find field \"spec.owner.name\" in replacement target"),
        "{message}"
    );
}

/// A source that is not built is counted (`summary.notBuilt`, the `notBuilt` list, a line on stderr after the
/// summary) and stays a warning; `--strict` (or `strict: true` in the config file) makes it an error, so a gate
/// cannot pass by making its own input unbuildable.
#[test]
fn a_source_not_built_is_counted_and_fails_the_run_under_strict() {
    let (report, output) = validate_json(&repos(), "kustomize-failing-overlay");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(report["summary"]["notBuilt"], 1, "{report:#}");
    assert_eq!(report["notBuilt"][0]["what"], "kustomization overlays/dev", "{report:#}");
    assert_eq!(report["notBuilt"][0]["source"], "kustomize-failing-overlay/overlays/dev/kustomization.yaml");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 source not built, so what they would apply is not checked: kustomization overlays/dev\n"),
        "{stderr}"
    );

    let strict = capz_command()
        .current_dir(repos())
        .args(["validate", "--strict", "kustomize-failing-overlay"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&strict.stdout);
    assert_eq!(strict.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with("kustomize-failing-overlay/overlays/dev/kustomization.yaml:1: error: `kubectl kustomize")
            && stdout.contains("(--strict: a source that is not built fails the run) [repository-source]"),
        "{stdout}"
    );

    // The same from the config file of a copy of the repository.
    let copy = tempfile::tempdir().unwrap();
    support::copy_tree(&repos().join("kustomize-failing-overlay"), copy.path());
    std::fs::write(copy.path().join(".kubectl-capz.yaml"), "strict: true\n").unwrap();
    let from_config = capz_command().current_dir(copy.path()).args(["validate", "."]).output().unwrap();
    assert_eq!(from_config.status.code(), Some(1), "{}", String::from_utf8_lossy(&from_config.stdout));
    // A suppression the pull request writes silences the warning, never the strict error.
    let kustomization = copy.path().join("overlays/dev/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(&kustomization, format!("# kubectl-capz: ignore repository-source -- not ours\n{text}")).unwrap();
    let suppressed = capz_command().current_dir(copy.path()).args(["validate", "-o", "json", "."]).output().unwrap();
    assert_eq!(suppressed.status.code(), Some(1), "{}", String::from_utf8_lossy(&suppressed.stdout));
    std::fs::remove_file(copy.path().join(".kubectl-capz.yaml")).unwrap();
    let (report, output) = validate_json(copy.path(), ".");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report:#}");
    assert_eq!(report["summary"]["notBuilt"], 1, "{report:#}");
    std::fs::write(copy.path().join(".kubectl-capz.yaml"), "strict: yes please\n").unwrap();
    let bad = capz_command().current_dir(copy.path()).args(["validate", "."]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("strict: expected true or false, got a string"));
}

/// A partial object beside a kustomization that does not list it (a patch never wired in) is applied by nothing
/// that builds the directory: not a manifest, with the reason, and no "required field is missing" errors.
#[test]
fn a_file_beside_a_kustomization_that_does_not_list_it_is_not_a_manifest() {
    let (report, _) = validate_json(&repos(), "kustomize-shared-patches");
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "kustomize-shared-patches/flavors/managed/tenant-patch.yaml")
        .cloned()
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(file["class"], "not-manifest", "{file}");
    assert_eq!(
        file["reason"],
        "beside flavors/managed/kustomization.yaml but not listed by it: nothing that builds this directory applies it"
    );
    assert!(!findings(&report).iter().any(|f| f.contains("tenant-patch")), "{report:#}");
}
