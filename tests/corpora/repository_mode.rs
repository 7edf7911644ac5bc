//! `validate DIR` in repository mode: every file of the fixture repositories classified (snapshot), kustomize builds
//! equal to `kubectl kustomize DIR | validate -` with file:line mapped back, Flux substitution, seeded defects at
//! their source line, hostile repositories refused with one warning each, `--no-build` and `--exclude`.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

fn capz(args: &[&str], cwd: &Path) -> Output {
    capz_command().current_dir(cwd).args(args).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `validate -o json` of `dir` (relative to `cwd`).
fn validate_json(cwd: &Path, args: &[&str]) -> (Value, Output) {
    let mut all = vec!["validate", "-o", "json"];
    all.extend_from_slice(args);
    let output = capz(&all, cwd);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("validate {args:?}: {err}\n{}", stderr(&output)));
    (report, output)
}

fn findings(report: &Value) -> Vec<Value> {
    report["findings"].as_array().cloned().unwrap_or_default()
}

/// Findings that are errors, as `source:line rule path`. `schema-missing` is left out: Flux and core kinds get their
/// schemas from the bundled Kubernetes and Flux schemas, which this branch does not carry.
fn errors(report: &Value) -> Vec<String> {
    findings(report)
        .iter()
        .filter(|f| f["severity"] == "error" && f["rule"] != "schema-missing")
        .map(|f| {
            format!(
                "{}:{} {} {}",
                f["source"].as_str().unwrap(),
                f["line"],
                f["rule"].as_str().unwrap(),
                f["path"].as_str().unwrap()
            )
        })
        .collect()
}

/// Every fixture repository, every file: its class and reason; and no finding on a file that is not a manifest.
#[test]
fn every_file_of_every_fixture_repository_is_classified() {
    let mut listing = String::new();
    let mut names: Vec<String> = std::fs::read_dir(repos())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| repos().join(name).is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    for name in &names {
        let (report, output) = validate_json(&repos(), &[name.as_str()]);
        assert!(output.status.code() != Some(2), "{name}: {}", stderr(&output));
        listing.push_str(&format!("{name}:\n"));
        let files = report["files"].as_array().unwrap_or_else(|| panic!("{name}: no file list"));
        let mut not_manifests = Vec::new();
        for file in files {
            let path = file["path"].as_str().unwrap();
            let class = file["class"].as_str().unwrap();
            let reason = file["reason"].as_str().unwrap();
            listing.push_str(&format!(
                "  {path}: {class}{}\n",
                if reason.is_empty() { String::new() } else { format!(" ({reason})") }
            ));
            if class == "not-manifest" {
                not_manifests.push(path.to_string());
            }
        }
        assert_eq!(report["summary"]["notManifests"], not_manifests.len(), "{name}");
        // Warnings about a chart that was not rendered name its Chart.yaml; nothing else lands on a non-manifest.
        for finding in findings(&report).iter().filter(|f| f["rule"] != "repository-source") {
            let source = finding["source"].as_str().unwrap();
            assert!(!not_manifests.iter().any(|p| p == source), "{name}: a finding on a non-manifest: {finding}");
        }
    }
    insta::assert_snapshot!("repository_file_classes", listing);
}

/// The Flux tree: both seeded defects at their source line, and nothing else wrong.
#[test]
fn flux_tree_defects_are_found_at_their_source_lines() {
    let (report, output) = validate_json(&repos(), &["flux"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let errors = errors(&report);
    assert_eq!(
        errors,
        [
            "flux/workload-clusters/base/pools.yaml:35 schema /spec/resources/0/spec/osDiskSizeGB",
            "flux/workload-clusters/prod/network-plugin.yaml:2 schema /spec/resources/0/spec/networkProfile/networkPlugin",
        ],
        "{report:#}"
    );
    let text = serde_json::to_string(&report).unwrap();
    // Substituted: the names are the cluster's, the out-of-range value the ConfigMap's.
    assert!(text.contains("AzureASOManagedMachinePool/aks-prod-pool0"), "{text}");
    assert!(text.contains("4096"), "{text}");
    assert!(!text.contains("${CLUSTER_NAME}"), "every variable is substituted: {text}");
    // The finding on the substituted field stays at it and names the line that sets the variable's value.
    let disk = findings(&report)
        .into_iter()
        .find(|f| f["path"] == "/spec/resources/0/spec/osDiskSizeGB")
        .expect("the disk size finding");
    let message = disk["message"].as_str().unwrap();
    assert!(message.ends_with("clusters/mgmt/cluster-vars.yaml:10, which Flux substitutes)"), "{message}");
    let plugin =
        findings(&report).into_iter().find(|f| f["path"].as_str().unwrap().ends_with("/networkPlugin")).unwrap();
    assert!(!plugin["message"].as_str().unwrap().contains("Flux substitutes"), "{plugin}");
}

fn kubectl_kustomize(dir: &Path) -> String {
    let output = std::process::Command::new(support::kubectl_program()).arg("kustomize").arg(dir).output().unwrap();
    assert!(output.status.success(), "kubectl kustomize {}: {}", dir.display(), stderr(&output));
    String::from_utf8(output.stdout).unwrap()
}

/// A finding without its place: what must agree between a build validated from stdin and from the repository.
fn placeless(finding: &Value) -> String {
    format!(
        "{} {} {} {} {}",
        finding["severity"].as_str().unwrap(),
        finding["rule"].as_str().unwrap(),
        finding["object"].as_str().unwrap(),
        finding["path"].as_str().unwrap(),
        finding["message"].as_str().unwrap()
    )
}

/// For kustomize roots of the fixtures: the findings repository mode places in the kustomization's files are those
/// of `kubectl kustomize DIR | kubectl capz validate -`, and every one is placed in a file of the repository.
#[test]
fn kustomize_builds_find_what_validating_kubectl_kustomize_finds() {
    // Builds whose objects no other part of their repository refers to (cross-object rules see the same objects).
    let cases = [("clusterclass", "classes/aks-aso", "classes/")];
    let mut with_findings = 0;
    for (repo, dir, files) in cases {
        let root = repos().join(repo);
        let built = kubectl_kustomize(&root.join(dir));
        let stdin = capz_command().args(["validate", "-o", "json", "-"]).write_stdin(built).output().unwrap();
        let expected: Value = serde_json::from_slice(&stdin.stdout).unwrap();
        let (report, _) = validate_json(&root, &["."]);
        let prefix = format!("./{files}");
        let ours_findings: Vec<Value> =
            findings(&report).into_iter().filter(|f| f["source"].as_str().unwrap().starts_with(&prefix)).collect();
        let mut ours: Vec<String> = ours_findings.iter().map(placeless).collect();
        let mut theirs: Vec<String> = findings(&expected).iter().map(placeless).collect();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "{repo}/{dir}");
        with_findings += usize::from(!ours.is_empty());
        for finding in &ours_findings {
            let source = finding["source"].as_str().unwrap();
            assert!(root.join(source).is_file(), "{repo}/{dir}: {source} is not a file of the repository");
            assert!(finding["line"].as_u64().unwrap() > 1, "{finding}");
        }
        let resources = report["resources"].as_array().unwrap();
        let ours = resources.iter().filter(|r| r["source"].as_str().unwrap().starts_with(&prefix)).count();
        assert_eq!(ours, expected["resources"].as_array().unwrap().len(), "{repo}/{dir}");
    }
    assert!(with_findings > 0, "at least one build has findings to compare");
}

/// A kustomize patch that breaks the embedded ManagedCluster: the finding is at the patch line, and equals the one
/// `kubectl kustomize | validate -` gives.
#[test]
fn a_patch_that_breaks_the_managed_cluster_is_reported_at_the_patch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("base")).unwrap();
    std::fs::create_dir_all(root.join("overlay")).unwrap();
    std::fs::write(root.join("base/aks.yaml"), support::aks_aso_manifests("clusters", "c1")).unwrap();
    std::fs::write(root.join("base/kustomization.yaml"), "resources:\n- aks.yaml\n").unwrap();
    std::fs::write(
        root.join("overlay/kustomization.yaml"),
        "resources:\n- ../base\npatches:\n- path: sku.yaml\n  target:\n    kind: AzureASOManagedControlPlane\n",
    )
    .unwrap();
    std::fs::write(
        root.join("overlay/sku.yaml"),
        "- op: add\n  path: /spec/resources/0/spec/sku\n  value:\n    name: Base\n    tier: Platinum\n",
    )
    .unwrap();
    let (report, _) = validate_json(root, &["."]);
    let errors = errors(&report);
    assert_eq!(errors, ["./overlay/sku.yaml:1 schema /spec/resources/0/spec/sku/tier"], "{report:#}");
    let stdin = capz_command()
        .args(["validate", "-o", "json", "-"])
        .write_stdin(kubectl_kustomize(&root.join("overlay")))
        .output()
        .unwrap();
    let expected: Value = serde_json::from_slice(&stdin.stdout).unwrap();
    let mut ours: Vec<String> = findings(&report).iter().map(placeless).collect();
    let mut theirs: Vec<String> = findings(&expected).iter().map(placeless).collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

/// A fake `kubectl` and `kustomize` that record being run: hostile repositories must not run them.
fn tripwire(dir: &Path) -> (PathBuf, PathBuf) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = dir.join("ran");
    for name in ["kubectl", "kustomize"] {
        let script = format!("#!/bin/sh\necho \"{name} $*\" >> {}\nexit 1\n", marker.display());
        let path = bin.join(name);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (bin, marker)
}

fn validate_with_path(root: &Path, bin: &Path) -> Value {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output =
        capz_command().current_dir(root).env("PATH", path).args(["validate", "-o", "json", "."]).output().unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}: {}", stderr(&output)))
}

fn warnings(report: &Value) -> Vec<String> {
    findings(report)
        .iter()
        .filter(|f| f["rule"] == "repository-source")
        .map(|f| format!("{}:{}: {}", f["source"].as_str().unwrap(), f["line"], f["message"].as_str().unwrap()))
        .collect()
}

#[test]
fn hostile_repositories_get_one_warning_each_and_nothing_runs() {
    let kustomization_cases = [
        (
            "remote base",
            "resources:\n- cm.yaml\n- https://github.com/example/evil//base?ref=main\n",
            "./kustomization.yaml:3: `https://github.com/example/evil//base?ref=main` is a remote base",
        ),
        (
            "exec plugin",
            "resources:\n- cm.yaml\ngenerators:\n- generator.yaml\n",
            "./kustomization.yaml:4: `generators` entry 1 is not a builtin plugin",
        ),
        (
            "KRM function",
            "resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Evil\n  metadata:\n    name: x\n    annotations:\n      config.kubernetes.io/function: |\n        container:\n          image: evil\n",
            // The line of the entry's text (a block scalar).
            "./kustomization.yaml:5: `transformers` entry 1 is not a builtin plugin",
        ),
        (
            "path out of the repository",
            "resources:\n- cm.yaml\n- ../../etc\n",
            "./kustomization.yaml:3: `../../etc` is outside the repository",
        ),
    ];
    for (what, kustomization, expected) in kustomization_cases {
        let dir = tempfile::tempdir().unwrap();
        let (bin, marker) = tripwire(dir.path());
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("kustomization.yaml"), kustomization).unwrap();
        std::fs::write(root.join("cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n").unwrap();
        if what == "exec plugin" {
            std::fs::write(
            root.join("generator.yaml"),
            "apiVersion: example.com/v1\nkind: EvilGenerator\nmetadata:\n  name: x\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./evil.sh\n",
        )
        .unwrap();
        }
        let report = validate_with_path(&root, &bin);
        let warnings = warnings(&report);
        assert_eq!(warnings.len(), 1, "{what}: {warnings:?}");
        assert!(warnings[0].starts_with(expected), "{what}: {}", warnings[0]);
        assert!(!marker.exists(), "{what}: kustomize ran: {}", std::fs::read_to_string(&marker).unwrap());
        assert_eq!(report["resources"].as_array().unwrap().len(), 0, "{what}: nothing of it is validated raw");
    }
    // A symlink to a file outside the repository: one warning, the file is not read.
    let dir = tempfile::tempdir().unwrap();
    let (bin, marker) = tripwire(dir.path());
    let outside = dir.path().join("outside.yaml");
    std::fs::write(
        &outside,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\nstringData:\n  token: hunter2\n",
    )
    .unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link.yaml")).unwrap();
    let report = validate_with_path(&root, &bin);
    let warnings = warnings(&report);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("./link.yaml:1: `link.yaml` is a symlink to"), "{}", warnings[0]);
    let text = report.to_string();
    assert!(!text.contains("stolen") && !text.contains("hunter2"), "{text}");
    assert!(!marker.exists());
}

/// `--no-build` reads files as they are (today's behaviour: the kustomization file is validated as an object, the
/// patch file too); `--exclude` leaves paths unread in both modes.
#[test]
fn no_build_and_exclude() {
    let root = repos().join("flux");
    let (plain, _) = validate_json(&root, &["--no-build", "."]);
    assert!(plain["files"].is_null(), "plain mode has no file list");
    let sources: Vec<String> = findings(&plain).iter().map(|f| f["source"].as_str().unwrap().to_string()).collect();
    assert!(sources.iter().any(|s| s == "./workload-clusters/base/kustomization.yaml"), "{sources:?}");
    let (excluded, _) =
        validate_json(&root, &["--no-build", "--exclude", "workload-clusters", "--exclude", ".github", "."]);
    let sources: Vec<String> = findings(&excluded).iter().map(|f| f["source"].as_str().unwrap().to_string()).collect();
    assert!(!sources.iter().any(|s| s.contains("workload-clusters") || s.contains(".github")), "{sources:?}");
    let (report, _) = validate_json(&root, &["--exclude", "workload-clusters", "."]);
    assert!(errors(&report).is_empty(), "{report:#}");
    let classes: BTreeMap<&str, &str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["class"].as_str().unwrap()))
        .collect();
    assert_eq!(classes.get("./workload-clusters"), Some(&"excluded"), "{classes:?}");
}

/// A topology Cluster with `${CLUSTER_NAME}` that no Flux Kustomization fills: one info finding naming the variable
/// and how to give it a value, no error on the fields holding it.
#[test]
fn unsubstituted_variables_are_one_info_finding_per_file() {
    let (report, _) = validate_json(&repos(), &["clusterclass"]);
    let all = findings(&report);
    let notes: Vec<&Value> = all.iter().filter(|f| f["rule"] == "unsubstituted-variables").collect();
    assert_eq!(notes.len(), 1, "{report:#}");
    assert_eq!(notes[0]["source"], "clusterclass/clusters/dev/cluster.yaml");
    assert_eq!(notes[0]["severity"], "info");
    let message = notes[0]["message"].as_str().unwrap();
    assert!(message.contains("${CLUSTER_NAME}") && message.contains("render --from"), "{message}");
    // The only errors are the seeded ones, at the lines of the kustomize patch that brought them.
    assert_eq!(
        errors(&report),
        [
            "clusterclass/classes/aks-aso/patches/pool1-disk.yaml:14 schema /spec/template/spec/resources/0/spec/owner",
            "clusterclass/classes/aks-aso/patches/pool1-disk.yaml:15 schema /spec/template/spec/resources/0/spec/osDiskType",
        ],
        "{report:#}"
    );
}

/// A fleet of `render --fleet` with both GitOps kinds (the acceptance fleet of tests/live/render_fleet_gitops.rs).
const FLEET: &str = "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\nclusterClasses:\n- name: standard\n  namespace: capz-classes\n  class: aks-aso\n- name: classic\n  namespace: capz-classes\n  class: aks\nclusters:\n- name: a1\n  namespace: team-a\n  class: standard\n- name: b1\n  namespace: team-b\n  class: standard\n- name: b2\n  namespace: team-b\n  flavor: aks-aso\n  values:\n    subscriptionId: 00000000-0000-0000-0000-000000000001\n    tenantId: 00000000-0000-0000-0000-000000000002\n    identity:\n      clientId: 00000000-0000-0000-0000-000000000003\n    asoCredentialSecret:\n      create: true\n    pools:\n    - name: system\n      mode: System\n    - name: work\n      autoscaling:\n        minCount: 1\n        maxCount: 5\n";
const FLEET_FLUX: &str = "gitops:\n  kind: flux\n  namespace: flux-system\n  sourceName: platform\n  sourceNamespace: sources\n  interval: 5m\n";
const FLEET_ARGOCD: &str = "gitops:\n  kind: argocd\n  repoUrl: https://git.example.com/platform/clusters.git\n  revision: main\n  pathPrefix: fleet\n  project: platform\n  createProject: true\n  createNamespace: true\n";

/// Our own `render --fleet` trees validate from the repository root: no error, no warning (the classic
/// ClusterClass the fleet asks for draws its deprecation notes, nothing else), every object once (the objects of
/// `--no-build` without its kustomization files).
#[test]
fn render_fleet_trees_validate_from_their_root() {
    for (gitops, tree) in [(FLEET_FLUX, "."), (FLEET_ARGOCD, "fleet")] {
        let work = tempfile::tempdir().unwrap();
        let fleet = work.path().join("fleet.yaml");
        std::fs::write(&fleet, format!("{FLEET}{gitops}")).unwrap();
        let repo = work.path().join("repo");
        let out = if tree == "." { repo.clone() } else { repo.join(tree) };
        let rendered =
            capz(&["render", "--fleet", fleet.to_str().unwrap(), "--out-dir", out.to_str().unwrap()], work.path());
        assert_eq!(rendered.status.code(), Some(0), "{}", stderr(&rendered));
        let (report, output) = validate_json(&repo, &["."]);
        assert_eq!(output.status.code(), Some(0), "{gitops}: {report:#}");
        for finding in findings(&report) {
            let classic = finding["source"].as_str().unwrap().contains("/classic/");
            assert!(
                finding["severity"] == "info" && finding["rule"] == "capz-deprecated-api" && classic,
                "{gitops}: {finding}"
            );
        }
        let (plain, _) = validate_json(&repo, &["--no-build", "."]);
        let kustomization_files = plain["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["source"].as_str().unwrap().ends_with("/kustomization.yaml"))
            .count();
        assert!(kustomization_files >= 8, "{gitops}");
        assert_eq!(
            report["resources"].as_array().unwrap().len(),
            plain["resources"].as_array().unwrap().len() - kustomization_files,
            "{gitops}: every object once"
        );
    }
}

/// `exclude` in `.kubectl-capz.yaml` works as `--exclude`: globs relative to the config file's folder, applied to
/// the repository given at the root or to a directory below it.
#[test]
fn config_file_excludes_join_the_command_line_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n";
    std::fs::create_dir_all(root.join("apps/scratch")).unwrap();
    std::fs::create_dir_all(root.join("apps/live")).unwrap();
    std::fs::write(root.join("apps/scratch/broken.yaml"), broken).unwrap();
    std::fs::write(root.join("apps/live/also-broken.yaml"), broken.replace("Not_A_Name", "Also_Bad")).unwrap();
    let broken_sources = |report: &Value| -> Vec<String> {
        findings(report)
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["source"].as_str().unwrap().to_string())
            .collect()
    };
    // Without a config file both files are read.
    let (report, _) = validate_json(root, &["."]);
    assert_eq!(broken_sources(&report).len(), 2, "{report:#}");
    // An anchored glob names one directory; it applies from the root and from a directory below it.
    std::fs::write(root.join(".kubectl-capz.yaml"), "exclude:\n  - apps/scratch\n").unwrap();
    let (report, _) = validate_json(root, &["."]);
    assert_eq!(broken_sources(&report), ["./apps/live/also-broken.yaml"], "{report:#}");
    let (report, _) = validate_json(root, &["apps"]);
    assert_eq!(broken_sources(&report), ["apps/live/also-broken.yaml"], "{report:#}");
    // A glob without `/` applies at any depth; --exclude still adds to the file's.
    std::fs::write(root.join(".kubectl-capz.yaml"), "exclude:\n  - '*broken.yaml'\n").unwrap();
    let (report, _) = validate_json(&root.join("apps"), &["."]);
    assert!(broken_sources(&report).is_empty(), "{report:#}");
    std::fs::write(root.join(".kubectl-capz.yaml"), "exclude: [apps/scratch]\n").unwrap();
    let (report, _) = validate_json(root, &["--exclude", "live", "."]);
    assert!(broken_sources(&report).is_empty(), "{report:#}");
}
