//! `kubectl capz diff -f DIR` on the Flux fixture repository against a real kube-apiserver (tools/kube-testenv, with
//! the CAPI/CAPZ/ASO and Flux Kustomization CRDs): the repository's objects are applied as Flux would apply them
//! (built with `kubectl kustomize`, variables replaced by the test itself), then one value is changed in Git and the
//! diff shows only what that change does.

mod support;

use support::capz_diff;

use std::path::Path;

use serde_json::Value;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

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

#[test]
fn diff_of_the_flux_repository_shows_only_the_seeded_change() {
    let api = support::apiserver_with_crds(&support::repo_root().join("tests/fixtures/gitops-crds"));
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("flux");
    copy_tree(&support::repo_root().join("tests/fixtures/repos/flux"), &repo);
    // The fixture's seeded validation defects would be refused by the API server: repaired first.
    edit(&repo.join("clusters/mgmt/cluster-vars.yaml"), "OS_DISK_SIZE_GB: \"4096\"", "OS_DISK_SIZE_GB: \"128\"");
    edit(&repo.join("workload-clusters/prod/network-plugin.yaml"), "value: calico", "value: azure");
    // What Flux applies, computed without kubectl-capz: kustomize builds, variables replaced as text.
    api.kubectl_ok(&["create", "namespace", "flux-system"]);
    let manager = ["apply", "--server-side", "--field-manager", "kubectl-capz", "-f", "-"];
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
    // The GitRepository of flux-system has no CRD on this server: the bootstrap folder is left out.
    let args = ["-f", repo.to_str().unwrap(), "--exclude", "flux-system", "-o", "json"];
    let unchanged = capz_diff(&api.kubeconfig, &args);
    let report: Value = serde_json::from_slice(&unchanged.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&unchanged.stderr)));
    assert_eq!(report["changed"], 0, "{report:#}");
    assert_eq!(unchanged.status.code(), Some(0));
    let objects = report["objects"].as_array().unwrap().len();
    assert!(objects >= 10, "every object of the repository is compared: {report:#}");
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
