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
    // The edit locations are the lines that set the version: the key of the ConfigMap Flux substitutes from.
    for step in cluster["steps"].as_array().unwrap() {
        for at in step["edit"].as_array().unwrap() {
            assert!(at.as_str().unwrap().ends_with("clusters/mgmt/cluster-vars.yaml:8"), "{at}");
            assert_eq!(line_at(at.as_str().unwrap()), "  KUBERNETES_VERSION: v1.33.2", "{at}");
        }
    }
    // Where the version is written stays the field's line (the substitution Flux fills in).
    assert!(line_at(cluster["controlPlane"]["at"].as_str().unwrap()).contains("version: ${KUBERNETES_VERSION}"));
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

/// `upgrade --to VERSION DIR ...` (the next step), with helm on PATH.
fn step(args: &[&str]) -> std::process::Output {
    let helm = repo_root().join("tools/helm/bin");
    let path = std::env::join_paths(
        std::iter::once(helm).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    capz_command().args(["upgrade", "--at", ON]).args(args).env("PATH", path).output().unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A copy of a fixture repository, committed in a git repository of its own.
fn committed(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("repo");
    crate::support::copy_tree(&repo_root().join(fixture), &root);
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base"]);
    (work, root)
}

/// The rule ids and objects of `validate DIR`'s findings.
fn findings_of(dir: &Path) -> Vec<String> {
    let out = step_validate(dir);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {} {}", f["severity"], f["rule"], f["object"]))
        .collect();
    found.sort();
    found
}

fn step_validate(dir: &Path) -> std::process::Output {
    let helm = repo_root().join("tools/helm/bin");
    let path = std::env::join_paths(
        std::iter::once(helm).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    capz_command().args(["validate", "--at", ON, "-o", "json"]).arg(dir).env("PATH", path).output().unwrap()
}

/// The changed lines of the working tree, `-`/`+` first.
fn changed_lines(root: &Path) -> Vec<String> {
    git(root, &["diff", "-U0"])
        .lines()
        .filter(|l| (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("---") && !l.starts_with("+++"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_next_step_edits_the_one_line_that_sets_the_version_flux_and_helm() {
    for (fixture, file, key) in [
        ("tests/fixtures/repos/flux", "clusters/mgmt/cluster-vars.yaml", "KUBERNETES_VERSION"),
        ("tests/fixtures/repos/helm-aks-aso", "charts/aks-aso-cluster/values.yaml", "kubernetesVersion"),
    ] {
        let (_work, root) = committed(fixture);
        let dir = root.to_str().unwrap();
        let before = findings_of(&root);
        // --check lists the file, writes nothing.
        let check = step(&["--to", "v1.34.3", dir, "--check"]);
        assert_eq!(check.status.code(), Some(1), "{}", String::from_utf8_lossy(&check.stderr));
        assert!(String::from_utf8_lossy(&check.stdout).trim().ends_with(file), "{fixture}");
        assert!(changed_lines(&root).is_empty());
        // The default prints the edit as a diff, and writes nothing either.
        let shown = step(&["--to", "v1.34.3", dir]);
        assert!(String::from_utf8_lossy(&shown.stdout).contains(&format!("+  {key}: v1.34.3")), "{fixture}");
        assert!(changed_lines(&root).is_empty());
        // -w: only the version line changes.
        let written = step(&["--to", "v1.34.3", dir, "-w"]);
        assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
        assert_eq!(git(&root, &["diff", "--name-only"]).trim(), file, "{fixture}");
        assert_eq!(changed_lines(&root), [format!("-  {key}: v1.33.2"), format!("+  {key}: v1.34.3")], "{fixture}");
        // What the repository renders is on the new version, and it validates as before.
        let (report, _) = json(&[dir, "--to", "v1.34"]);
        for cluster in report["clusters"].as_array().unwrap() {
            assert_eq!(cluster["controlPlane"]["version"], "v1.34.3", "{fixture}: {cluster:#}");
            assert!(cluster["steps"].as_array().unwrap().is_empty(), "{fixture}: {cluster:#}");
        }
        // ... with no finding more: those about 1.33 leaving support are gone.
        let unsupported = |f: &String| f.contains("aks-version-unsupported");
        let after = findings_of(&root);
        assert!(!after.iter().any(unsupported), "{fixture}: {after:?}");
        assert_eq!(after, before.iter().filter(|f| !unsupported(f)).cloned().collect::<Vec<_>>(), "{fixture}");
        // Nothing left to do.
        assert_eq!(step(&["--to", "v1.34.3", dir, "--check"]).status.code(), Some(0), "{fixture}");
    }
}

#[test]
fn a_topology_cluster_s_version_line_is_edited_in_place() {
    let work = tempfile::tempdir().unwrap();
    let values = repo_root().join("tests/fixtures/clusterclass/aks-aso-topology.values.yaml");
    let file = render(
        &["render", "aks-aso-topology", "demo", "--with-class", "--values", values.to_str().unwrap()],
        &work.path().join("cluster.yaml"),
    );
    let (report, _) = json(&[file.to_str().unwrap(), "--to", "v1.35"]);
    let current = report["clusters"][0]["controlPlane"]["version"].as_str().unwrap().to_string();
    let next = format!("v1.{}.1", current.split('.').nth(1).unwrap().parse::<u32>().unwrap() + 1);
    let before = std::fs::read_to_string(&file).unwrap();
    let out = step(&["--to", &next, file.to_str().unwrap(), "-w"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = std::fs::read_to_string(&file).unwrap();
    let differing: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(differing.len(), 1, "{differing:?}");
    assert_eq!(differing[0].1, differing[0].0.replace(&current, &next));
}

#[test]
fn steps_aks_refuses_are_refused_with_the_reason_and_nothing_written() {
    let (_work, root) = committed("tests/fixtures/repos/flux");
    let dir = root.to_str().unwrap();
    for (to, says) in [("v1.35.1", "one minor at a time"), ("v1.32.9", "does not downgrade")] {
        let out = step(&["--to", to, dir, "-w"]);
        assert_eq!(out.status.code(), Some(1), "{to}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{to}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(changed_lines(&root).is_empty(), "{to}");
    }
    for (to, says) in [("v1.34", "full version"), ("v1.99.0", "has not released")] {
        let out = step(&["--to", to, dir, "-w"]);
        assert_eq!(out.status.code(), Some(2), "{to}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{to}");
    }
}

#[test]
fn a_file_render_fleet_wrote_is_not_edited() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("tree");
    let fleet = repo_root().join("examples/fleet/fleet.yaml");
    let rendered = capz_command().args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert!(rendered.status.success());
    let before = crate::support::cli_runner::snapshot_tree(&out);
    let (report, _) = json(&[out.to_str().unwrap(), "--to", "v1.35"]);
    let current = report["clusters"][0]["controlPlane"]["version"].as_str().unwrap().to_string();
    let next = format!("v1.{}.1", current.split('.').nth(1).unwrap().parse::<u32>().unwrap() + 1);
    let result = step(&["--to", &next, out.to_str().unwrap(), "-w"]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&result.stderr).contains("render --fleet"),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(crate::support::cli_runner::snapshot_tree(&out), before);
}

#[test]
fn a_fleet_tree_s_version_is_edited_in_its_fleet_file_then_rendered() {
    let work = tempfile::tempdir().unwrap();
    let fleet_dir = work.path().join("fleet");
    crate::support::copy_tree(&repo_root().join("examples/fleet"), &fleet_dir);
    git(&fleet_dir, &["init", "-q", "-b", "main"]);
    git(&fleet_dir, &["add", "-A"]);
    git(&fleet_dir, &["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base"]);
    let fleet = fleet_dir.join("fleet.yaml");
    let tree = work.path().join("tree");
    let render = |out: &Path| {
        let rendered =
            capz_command().args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(out).output().unwrap();
        assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    };
    render(&tree);
    let (report, _) = json(&[tree.to_str().unwrap(), "--to", "v1.36"]);
    let current = report["clusters"][0]["controlPlane"]["version"].as_str().unwrap().to_string();
    let minor: u32 = current.split('.').nth(1).unwrap().parse().unwrap();
    let next = format!("v1.{}.1", minor + 1);
    let out = step(&["--to", &next, tree.to_str().unwrap(), "--fleet", fleet.to_str().unwrap(), "-w"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The fleet file's one version line, and nothing else of it.
    assert_eq!(git(&fleet_dir, &["diff", "--name-only"]).trim(), "fleet.yaml");
    assert_eq!(
        changed_lines(&fleet_dir),
        [format!("-  kubernetesVersion: {current}"), format!("+  kubernetesVersion: {next}")]
    );
    // Rendered again, every cluster of the tree is on the new version.
    render(&tree);
    let (report, _) = json(&[tree.to_str().unwrap(), "--to", "v1.36"]);
    for cluster in report["clusters"].as_array().unwrap() {
        assert_eq!(cluster["controlPlane"]["version"], next.as_str(), "{cluster:#}");
    }
}

/// An Argo CD Application rendering a chart with `helm.valuesObject`: its cluster's version is edited in the
/// Application's `valuesObject` line (repository mode's value provenance), the chart's own render in values.yaml.
#[test]
fn an_argo_cd_values_object_is_edited_where_it_sets_the_version() {
    let (_work, root) = committed("tests/fixtures/repos/argocd-chart-render");
    // One Application only: the second renders the same object and would make the value ambiguous.
    std::fs::remove_file(root.join("apps/team-a-again.yaml")).unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "one application"]);
    let dir = root.to_str().unwrap();
    let (report, _) = json(&[dir, "--to", "v1.34"]);
    let edits: Vec<String> = report["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cluster| cluster["steps"][0]["edit"][0].as_str().unwrap().replace(&format!("{dir}/"), ""))
        .collect();
    assert_eq!(edits, ["charts/aks-cluster/values.yaml:4", "apps/team-a.yaml:16"]);
    let written = step(&["--to", "v1.34.1", dir, "-w"]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    assert_eq!(
        changed_lines(&root),
        [
            "-          kubernetesVersion: v1.33.3",
            "+          kubernetesVersion: v1.34.1",
            "-  kubernetesVersion: v1.33.2",
            "+  kubernetesVersion: v1.34.1"
        ]
    );
    let (after, _) = json(&[dir, "--to", "v1.34"]);
    for cluster in after["clusters"].as_array().unwrap() {
        assert_eq!(cluster["controlPlane"]["version"], "v1.34.1", "{cluster:#}");
    }
}

/// Two Applications rendering the same object, each setting its version: the step is refused, naming both lines.
#[test]
fn two_owners_of_one_version_are_named_not_guessed() {
    let (_work, root) = committed("tests/fixtures/repos/argocd-chart-render");
    let dir = root.to_str().unwrap();
    let out = step(&["--to", "v1.34.1", dir, "-w"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("apps/team-a-again.yaml:16") && stderr.contains("apps/team-a.yaml:16"), "{stderr}");
    // The chart's own render is still taken its step.
    assert_eq!(changed_lines(&root), ["-  kubernetesVersion: v1.33.2", "+  kubernetesVersion: v1.34.1"]);
}

/// Other lines of the tree with the same value (a docs example, another file setting the variable): the line of the
/// ConfigMap the Flux Kustomization substitutes from is the one.
#[test]
fn of_several_lines_with_the_value_the_variables_is_edited() {
    let (_work, root) = committed("tests/fixtures/repos/flux");
    std::fs::write(root.join("docs/example.yaml"), "# what a cluster looks like\nkubernetesVersion: v1.33.2\n")
        .unwrap();
    let dir = root.to_str().unwrap();
    let written = step(&["--to", "v1.34.3", dir, "-w"]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    assert_eq!(changed_lines(&root), ["-  KUBERNETES_VERSION: v1.33.2", "+  KUBERNETES_VERSION: v1.34.3"]);
    assert_eq!(
        std::fs::read_to_string(root.join("docs/example.yaml")).unwrap().lines().nth(1),
        Some("kubernetesVersion: v1.33.2")
    );
    // Another file setting the variable too: the ConfigMap the Kustomization substitutes from is the one.
    let (_work, root) = committed("tests/fixtures/repos/flux");
    std::fs::write(root.join("docs/vars.yaml"), "data:\n  KUBERNETES_VERSION: v1.33.2\n").unwrap();
    let written = step(&["--to", "v1.34.3", root.to_str().unwrap(), "-w"]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    assert_eq!(changed_lines(&root), ["-  KUBERNETES_VERSION: v1.33.2", "+  KUBERNETES_VERSION: v1.34.3"]);
    assert_eq!(git(&root, &["diff", "--name-only"]).trim(), "clusters/mgmt/cluster-vars.yaml");
}

/// Two Flux Kustomizations substituting one base from two ConfigMaps (one per cluster), both on v1.33.2: each
/// cluster's step edits its own ConfigMap's line.
#[test]
fn each_kustomization_s_configmap_is_edited_for_its_cluster() {
    let (_work, root) = committed("tests/fixtures/repos/flux");
    let mgmt = root.join("clusters/mgmt");
    let kustomization = std::fs::read_to_string(mgmt.join("workload-clusters.yaml")).unwrap();
    let second = kustomization
        .replace("name: aks-prod\n", "name: aks-stage\n")
        .replace("CLUSTER_NAME: aks-prod", "CLUSTER_NAME: aks-stage")
        .replace("name: cluster-vars", "name: stage-vars");
    std::fs::write(mgmt.join("stage-clusters.yaml"), second).unwrap();
    let vars = std::fs::read_to_string(mgmt.join("cluster-vars.yaml")).unwrap();
    std::fs::write(mgmt.join("stage-vars.yaml"), vars.replace("name: cluster-vars", "name: stage-vars")).unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "stage"]);
    let dir = root.to_str().unwrap();
    let (report, _) = json(&[dir, "--to", "v1.34"]);
    let mut edits: Vec<String> = report["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["cluster"].as_str().unwrap(),
                c["steps"][0]["edit"][0].as_str().unwrap().replace(&format!("{dir}/"), "")
            )
        })
        .collect();
    edits.sort();
    assert_eq!(
        edits,
        ["clusters/aks-prod clusters/mgmt/cluster-vars.yaml:8", "clusters/aks-stage clusters/mgmt/stage-vars.yaml:8"]
    );
    let written = step(&["--to", "v1.34.3", dir, "-w"]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    let mut files: Vec<String> = git(&root, &["diff", "--name-only"]).lines().map(str::to_string).collect();
    files.sort();
    assert_eq!(files, ["clusters/mgmt/cluster-vars.yaml", "clusters/mgmt/stage-vars.yaml"]);
}

/// A repository of topology Clusters of one ClusterClass (one of them a clusterctl template): every topology Cluster
/// planned, the next step edits each `spec.topology.version` line and nothing else, and the repository validates as
/// before but for the findings about the old version.
#[test]
fn a_cluster_class_topology_fleet_each_topology_version_edited() {
    let (_work, root) = committed("tests/fixtures/repos/clusterclass");
    let dir = root.to_str().unwrap();
    let (report, code) = json(&[dir, "--to", "v1.34"]);
    assert_eq!(code, 1);
    let clusters = report["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 2, "{report:#}");
    assert!(clusters.iter().all(|c| c["topology"] == true && c["steps"].as_array().unwrap().len() == 1), "{report:#}");
    let before = findings_of(&root);
    let written = step(&["--to", "v1.34.1", dir, "-w"]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    let mut files: Vec<String> = git(&root, &["diff", "--name-only"]).lines().map(str::to_string).collect();
    files.sort();
    assert_eq!(files, ["clusters/dev/cluster.yaml", "clusters/prod/cluster.yaml"]);
    assert_eq!(
        changed_lines(&root),
        ["-    version: v1.33.2", "+    version: v1.34.1", "-    version: v1.33.2", "+    version: v1.34.1"]
    );
    let unsupported = |f: &String| f.contains("aks-version-unsupported");
    let after = findings_of(&root);
    assert_eq!(after, before.iter().filter(|f| !unsupported(f)).cloned().collect::<Vec<_>>());
    let (report, code) = json(&[dir, "--to", "v1.34"]);
    assert_eq!(code, 0, "{report:#}");
}

/// A MachinePool written beside a topology Cluster (not one the topology makes) keeps its own version: the plan lists
/// it as a pool of the cluster, raised after each control plane step, and `upgrade --to` edits it once the topology
/// version is there.
#[test]
fn a_machine_pool_beside_a_topology_cluster_is_planned_and_edited() {
    let work = tempfile::tempdir().unwrap();
    let values = repo_root().join("tests/fixtures/clusterclass/aks-aso-topology.values.yaml");
    let file = render(
        &["render", "aks-aso-topology", "demo", "--with-class", "--values", values.to_str().unwrap()],
        &work.path().join("cluster.yaml"),
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let current = text.lines().find_map(|l| l.trim().strip_prefix("version: v1.")).unwrap().to_string();
    let minor: u32 = current.split('.').next().unwrap().parse().unwrap();
    let extra = format!(
        "---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: demo-extra
  namespace: default
spec:
  clusterName: demo
  template:
    spec:
      clusterName: demo
      version: v1.{current}
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureASOManagedMachinePool
        name: demo-extra
"
    );
    std::fs::write(&file, format!("{text}{extra}")).unwrap();
    let path = file.to_str().unwrap();
    let next = format!("v1.{}", minor + 1);
    let (report, _) = json(&[path, "--to", &next]);
    let cluster = &report["clusters"][0];
    assert_eq!(cluster["topology"], true);
    assert_eq!(
        steps(cluster),
        [
            format!(r#"control plane 1.{} ["Cluster/demo"]"#, minor + 1),
            format!(r#"pools 1.{} ["MachinePool/demo-extra"]"#, minor + 1),
        ]
    );
    let patch = format!("{next}.1");
    let first = step(&["--to", &patch, path, "-w"]);
    assert_eq!(first.status.code(), Some(0), "{}", String::from_utf8_lossy(&first.stderr));
    let second = step(&["--to", &patch, path, "-w"]);
    assert_eq!(second.status.code(), Some(0), "{}", String::from_utf8_lossy(&second.stderr));
    let after = std::fs::read_to_string(&file).unwrap();
    let versions: Vec<&str> = after.lines().filter(|l| l.trim().starts_with("version: v1.")).map(str::trim).collect();
    assert_eq!(versions, [format!("version: {patch}"), format!("version: {patch}")]);
    let (report, code) = json(&[path, "--to", &next]);
    assert_eq!(code, 0, "{report:#}");
}
