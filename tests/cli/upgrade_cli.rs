//! `kubectl capz upgrade plan` on the repository shapes users keep clusters in: a Flux tree with substitutions, a
//! Helm chart with values files, a topology Cluster, and our own `render --fleet` tree; each step's edit location
//! is a line that writes the version; exit 1 when steps are needed, 0 when not, 2 on a target AKS does not offer.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::cli_runner::capz_command;
use crate::support::repo_root;

/// AKS support judged on one fixed day (1.33 in platform support, 1.35 released).
const ON: &str = "2026-09-01";

fn plan(args: &[&str]) -> std::process::Output {
    let helm = repo_root().join("tools/helm/bin");
    let path = std::env::join_paths(
        std::iter::once(helm).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    capz_command().args(["upgrade", "plan", "--at", ON]).args(args).env("PATH", path).output().unwrap()
}

fn json(args: &[&str]) -> (Value, i32) {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let out = plan(&all);
    let value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (value, out.status.code().unwrap())
}

/// The text of `file:line`, relative to the repository.
fn line_at(location: &str) -> String {
    let (file, line) = location.rsplit_once(':').unwrap();
    let text = std::fs::read_to_string(repo_root().join(file)).unwrap_or_else(|e| panic!("{location}: {e}"));
    text.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap().to_string()
}

/// Every step's objects: `what to [objects]`.
fn steps(cluster: &Value) -> Vec<String> {
    cluster["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {} {}", s["what"].as_str().unwrap(), s["to"].as_str().unwrap(), s["objects"]))
        .collect()
}

#[test]
fn a_flux_tree_one_minor_at_a_time_pools_after_the_control_plane() {
    let out = plan(&["tests/fixtures/repos/flux", "--to", "v1.35"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    insta::assert_snapshot!("upgrade_plan_flux", String::from_utf8(out.stdout).unwrap());
    let (report, _) = json(&["tests/fixtures/repos/flux", "--to", "v1.35"]);
    let cluster = &report["clusters"][0];
    assert_eq!(cluster["controlPlane"]["support"], "platform-support");
    assert_eq!(
        steps(cluster),
        [
            r#"control plane 1.34 ["AzureASOManagedControlPlane/aks-prod"]"#,
            r#"pools 1.34 ["MachinePool/aks-prod-pool0"]"#,
            r#"control plane 1.35 ["AzureASOManagedControlPlane/aks-prod"]"#,
            r#"pools 1.35 ["MachinePool/aks-prod-pool0"]"#,
        ]
    );
    // The edit locations are the lines that write the version (here the substitution Flux fills in).
    for step in cluster["steps"].as_array().unwrap() {
        for at in step["edit"].as_array().unwrap() {
            assert!(line_at(at.as_str().unwrap()).contains("version: ${KUBERNETES_VERSION}"), "{at}");
        }
    }
    let markdown = plan(&["tests/fixtures/repos/flux", "--to", "v1.35", "-o", "markdown"]);
    insta::assert_snapshot!("upgrade_plan_flux_markdown", String::from_utf8(markdown.stdout).unwrap());
}

#[test]
fn a_helm_chart_each_values_file_a_cluster() {
    let (report, code) = json(&["tests/fixtures/repos/helm-aks-aso", "--to", "v1.34"]);
    assert_eq!(code, 1, "{report:#}");
    let clusters = report["clusters"].as_array().unwrap();
    let names: Vec<&str> = clusters.iter().map(|c| c["cluster"].as_str().unwrap()).collect();
    assert_eq!(names, ["default/aks-dev", "default/ci-minimal", "payments/payments-prod"]);
    for cluster in clusters {
        assert_eq!(cluster["steps"].as_array().unwrap().len(), 2, "{cluster:#}");
        assert_eq!(
            cluster["steps"][1]["objects"].as_array().unwrap().len(),
            cluster["pools"].as_array().unwrap().len()
        );
    }
    // Already there: nothing to do, exit 0.
    let (report, code) = json(&["tests/fixtures/repos/helm-aks-aso", "--to", "v1.33"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["clusters"].as_array().unwrap().iter().all(|c| c["steps"].as_array().unwrap().is_empty()));
}

fn render(args: &[&str], into: &Path) -> PathBuf {
    let out = capz_command().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(into, &out.stdout).unwrap();
    into.to_path_buf()
}

#[test]
fn a_topology_cluster_pins_one_version_for_all() {
    let work = tempfile::tempdir().unwrap();
    let values = repo_root().join("tests/fixtures/clusterclass/aks-aso-topology.values.yaml");
    let file = render(
        &["render", "aks-aso-topology", "demo", "--with-class", "--values", values.to_str().unwrap()],
        &work.path().join("cluster.yaml"),
    );
    let (report, code) = json(&[file.to_str().unwrap(), "--to", "v1.35"]);
    assert_eq!(code, 1, "{report:#}");
    let cluster = &report["clusters"][0];
    assert_eq!(cluster["topology"], true, "{report:#}");
    assert!(cluster["pools"].as_array().unwrap().is_empty());
    let whats: Vec<&str> = cluster["steps"].as_array().unwrap().iter().map(|s| s["what"].as_str().unwrap()).collect();
    assert!(whats.iter().all(|w| *w == "control plane") && !whats.is_empty(), "{whats:?}");
    let at = cluster["controlPlane"]["at"].as_str().unwrap();
    let (_, line) = at.rsplit_once(':').unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let written = text.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap();
    assert!(written.trim_start().starts_with("version: "), "{written}");
}

#[test]
fn our_fleet_tree_every_cluster_planned() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("tree");
    let fleet = repo_root().join("examples/fleet/fleet.yaml");
    let rendered = capz_command().args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    let (report, code) = json(&[out.to_str().unwrap(), "--to", "v1.35"]);
    assert_eq!(code, 1, "{report:#}");
    let clusters = report["clusters"].as_array().unwrap();
    let files = walk_count(&out, "cluster.yaml");
    assert!(!clusters.is_empty() && clusters.len() >= files, "{} clusters, {files} cluster files", clusters.len());
    for cluster in clusters {
        for step in cluster["steps"].as_array().unwrap() {
            for at in step["edit"].as_array().unwrap() {
                let at = at.as_str().unwrap();
                let (file, line) = at.rsplit_once(':').unwrap();
                let text = std::fs::read_to_string(file).unwrap();
                let written = text.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap();
                assert!(written.contains("ersion: "), "{at}: {written}");
            }
        }
    }
}

fn walk_count(dir: &Path, name: &str) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            count += walk_count(&path, name);
        } else if path.file_name().is_some_and(|n| n == name) {
            count += 1;
        }
    }
    count
}

#[test]
fn a_source_that_could_not_be_built_is_an_error_not_an_empty_plan() {
    // No helm on PATH: the chart is not rendered, and its clusters would be missing from the plan.
    let out = capz_command()
        .args(["upgrade", "plan", "--at", ON, "tests/fixtures/repos/helm-aks-aso"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not built") && stderr.contains("Chart.yaml"), "{stderr}");
}

#[test]
fn a_target_aks_does_not_offer_is_a_usage_error() {
    for (to, says) in [("v1.99", "has not released"), ("v1.20", "no longer supports"), ("latest", "minor version")] {
        let out = plan(&["tests/fixtures/repos/flux", "--to", to]);
        assert_eq!(out.status.code(), Some(2), "{to}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{to}: {stderr}");
    }
}
