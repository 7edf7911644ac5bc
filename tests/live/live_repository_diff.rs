//! `kubectl capz diff -f DIR` on the Flux fixture repository against a real kube-apiserver (tools/kube-testenv, with
//! the CAPI/CAPZ/ASO CRDs and Flux's own CRDs as tools/schema-inputs/fetch.sh fetches them from the Go module proxy):
//! the repository's objects, its flux-system folder included, are applied as Flux would apply them (built with
//! `kubectl kustomize`, variables replaced by the test itself), then one value is changed in Git and the diff shows
//! only what that change does.

use crate::support;

use support::capz_diff;

use std::path::Path;

use serde_json::Value;

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

fn kubectl_kustomize(dir: &Path) -> String {
    let output = std::process::Command::new(support::kubectl_program()).arg("kustomize").arg(dir).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// A directory of Flux's CRDs (kustomize-controller's and source-controller's `config/crd/bases`, and the generated
/// HelmRelease, notification and image automation CRDs): the ones tools/schema-inputs/fetch.sh fetches (cached in
/// target/schema-inputs) for the bundled schemas.
fn flux_crds() -> std::path::PathBuf {
    let fetch = support::repo_root().join("tools/schema-inputs/fetch.sh");
    let output = std::process::Command::new("bash").arg(&fetch).output().unwrap();
    assert!(output.status.success(), "{} failed:\n{}", fetch.display(), String::from_utf8_lossy(&output.stderr));
    let inputs = std::path::PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    let dir = support::repo_root().join("target/live-repository-diff-crds");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for folder in ["gitops/flux", "gitops/flux-generated"] {
        for entry in std::fs::read_dir(inputs.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "yaml") {
                std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    assert!(dir.join("source.toolkit.fluxcd.io_gitrepositories.yaml").is_file(), "{}", dir.display());
    dir
}

#[test]
fn diff_of_the_flux_repository_shows_only_the_seeded_change() {
    let api = support::apiserver_with_crds(&flux_crds());
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("flux");
    support::copy_tree(&support::repo_root().join("tests/fixtures/repos/flux"), &repo);
    // The fixture's seeded validation defects would be refused by the API server: repaired first.
    edit(&repo.join("clusters/mgmt/cluster-vars.yaml"), "OS_DISK_SIZE_GB: \"4096\"", "OS_DISK_SIZE_GB: \"128\"");
    edit(&repo.join("workload-clusters/prod/network-plugin.yaml"), "value: calico", "value: azure");
    // What Flux applies, computed without kubectl-capz: kustomize builds, variables replaced as text.
    let manager = ["apply", "--server-side", "--field-manager", "kubectl-capz", "-f", "-"];
    // flux bootstrap's folder: the flux-system Namespace, GitRepository and Kustomization.
    api.kubectl_stdin_ok(&manager, &kubectl_kustomize(&repo.join("clusters/mgmt/flux-system")));
    api.kubectl_stdin_ok(&manager, &kubectl_kustomize(&repo.join("infrastructure/overlays/mgmt")));
    let mut clusters = kubectl_kustomize(&repo.join("workload-clusters/prod"));
    for (name, value) in [
        ("CLUSTER_NAME", "aks-prod"),
        ("NODE_COUNT", "3"),
        ("AZURE_LOCATION", "westeurope"),
        ("KUBERNETES_VERSION", "v1.33.2"),
        ("OS_DISK_SIZE_GB", "128"),
    ] {
        clusters = clusters.replace(&format!("${{{name}}}"), value);
    }
    assert!(!clusters.contains("${"), "{clusters}");
    api.kubectl_stdin_ok(&manager, &clusters);
    for file in ["cluster-vars.yaml", "infrastructure.yaml", "workload-clusters.yaml"] {
        let text = std::fs::read_to_string(repo.join("clusters/mgmt").join(file)).unwrap();
        api.kubectl_stdin_ok(&manager, &text);
    }
    let args = ["-f", repo.to_str().unwrap(), "-o", "json"];
    let unchanged = capz_diff(&api.kubeconfig, &args);
    let report: Value = serde_json::from_slice(&unchanged.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&unchanged.stderr)));
    assert_eq!(report["changed"], 0, "{report:#}");
    assert_eq!(unchanged.status.code(), Some(0));
    let objects = report["objects"].as_array().unwrap();
    assert!(objects.len() >= 10, "every object of the repository is compared: {report:#}");
    let mut flux_system: Vec<String> = objects
        .iter()
        .filter(|o| o["name"] == "flux-system")
        .map(|o| format!("{} {}", o["kind"].as_str().unwrap(), o["status"].as_str().unwrap()))
        .collect();
    flux_system.sort();
    assert_eq!(
        flux_system,
        ["GitRepository unchanged", "Kustomization unchanged", "Namespace unchanged"],
        "flux bootstrap's objects are compared too: {report:#}"
    );
    // The seeded change: one more node, in the Flux Kustomization's substitute.
    edit(&repo.join("clusters/mgmt/workload-clusters.yaml"), "NODE_COUNT: \"3\"", "NODE_COUNT: \"5\"");
    let changed = capz_diff(&api.kubeconfig, &args);
    assert_eq!(changed.status.code(), Some(1), "{}", String::from_utf8_lossy(&changed.stderr));
    let report: Value = serde_json::from_slice(&changed.stdout).unwrap();
    let mut changes: Vec<String> = report["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["status"] != "unchanged")
        .map(|o| format!("{}/{} {}", o["kind"].as_str().unwrap(), o["name"].as_str().unwrap(), o["changes"]))
        .collect();
    changes.sort();
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert!(changes[0].starts_with("Kustomization/aks-prod") && changes[0].contains("NODE_COUNT"), "{changes:#?}");
    assert!(changes[1].starts_with("MachinePool/aks-prod-pool0") && changes[1].contains("replicas"), "{changes:#?}");
}
