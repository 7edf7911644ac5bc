//! `diff --base`: the change review of a repository, offline. Fixture repositories of our own (a Flux tree with
//! prune, a Helm chart) are committed into a git repository the test makes; each seeded change is reported as what it
//! is, a reformatting is no change, Secret values stay masked, and neither the working tree, nor the index, nor the
//! temporary directory keeps a trace of the base revision — also when the run is interrupted.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    support::repo_root().join("tests/fixtures/repos").join(name)
}

/// `PATH` with tools/helm/bin first (tools/helm/build.sh puts helm v3.18.6 there).
fn path_with_helm() -> OsString {
    let dir = support::repo_root().join("tools/helm/bin");
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

fn git(repo: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.email=test@example.com", "-c", "user.name=test", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// A git repository holding a copy of `fixture`, committed once; also a TMPDIR of its own.
struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    tmp: PathBuf,
}

impl Repo {
    fn of(name: &str) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        support::copy_tree(&fixture(name), &root);
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "base"]);
        Repo { _dir: dir, root, tmp }
    }

    fn edit(&self, file: &str, from: &str, to: &str) {
        let path = self.root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }

    fn diff(&self, args: &[&str]) -> Output {
        capz_command()
            .current_dir(&self.root)
            .env("PATH", path_with_helm())
            .env("TMPDIR", &self.tmp)
            .args(["diff", "--base"])
            .args(args)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> (Value, i32) {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let output = self.diff(&all);
        let code = output.status.code().unwrap();
        let report = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|err| panic!("diff --base {args:?}: {err}\n{}", String::from_utf8_lossy(&output.stderr)));
        (report, code)
    }

    /// What the index holds (modes, objects, paths), what git says of the working tree, and the repository's
    /// refs, stashes and worktrees (not the index's cache of file times, which `git status` itself refreshes).
    fn state(&self) -> Vec<String> {
        let reads: [&[&str]; 5] = [
            &["ls-files", "--stage"],
            &["status", "--porcelain", "--untracked-files=all"],
            &["for-each-ref"],
            &["stash", "list"],
            &["worktree", "list", "--porcelain"],
        ];
        reads.iter().map(|args| git(&self.root, args)).collect()
    }

    fn tmp_is_empty(&self) -> bool {
        std::fs::read_dir(&self.tmp).unwrap().next().is_none()
    }
}

fn summary(objects: &Value) -> Vec<String> {
    objects["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            format!("{} {} {}", o["change"].as_str().unwrap(), o["kind"].as_str().unwrap(), o["name"].as_str().unwrap())
        })
        .collect()
}

#[test]
fn an_unchanged_repository_and_a_reformatted_file_are_no_change() {
    let repo = Repo::of("flux");
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!((code, summary(&report)), (0, vec![]), "{report:#}");
    // Reformatted: other indentation, keys in another order, a comment, flow style.
    std::fs::write(
        repo.root.join("infrastructure/base/namespace.yaml"),
        "# the namespace of the workload clusters\nkind: Namespace\napiVersion: v1\nmetadata: {name: clusters}\n",
    )
    .unwrap();
    let before = std::fs::read_to_string(fixture("flux").join("infrastructure/base/namespace.yaml")).unwrap();
    assert!(before.contains("name: clusters"), "{before}");
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!((code, summary(&report)), (0, vec![]), "{report:#}");
    assert!(repo.tmp_is_empty());
}

#[test]
fn each_seeded_change_is_reported_as_what_it_is() {
    let repo = Repo::of("flux");
    // A vmSize change in an embedded agent pool, a deleted Flux Kustomization (with prune: its objects go).
    repo.edit("workload-clusters/base/pools.yaml", "vmSize: Standard_D2s_v3", "vmSize: Standard_D4s_v3");
    std::fs::remove_file(repo.root.join("clusters/mgmt/infrastructure.yaml")).unwrap();
    let state = repo.state();
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1);
    assert_eq!(
        summary(&report),
        vec![
            "removed Namespace clusters",
            "removed Secret aso-credentials",
            "removed Kustomization infrastructure",
            "changed AzureASOManagedMachinePool aks-prod-pool0",
        ],
        "{report:#}"
    );
    let changed = &report["objects"][3];
    assert_eq!(changed["changes"].as_array().unwrap().len(), 1, "{changed:#}");
    let change = &changed["changes"][0];
    assert!(change["path"].as_str().unwrap().ends_with(".spec.vmSize"), "{change:#}");
    assert_eq!(
        (change["before"].as_str(), change["after"].as_str()),
        (Some("Standard_D2s_v3"), Some("Standard_D4s_v3"))
    );
    assert_eq!(changed["head"]["at"], "./workload-clusters/base/pools.yaml:20");
    // The API server takes the changed pool; AKS refuses it when ASO sends it, said at the changed line.
    assert_eq!(
        findings(&report),
        ["error aks-immutable-property ManagedClustersAgentPool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:39"],
        "{report:#}"
    );
    let removed = &report["objects"][2];
    assert_eq!(removed["base"]["at"], "./clusters/mgmt/infrastructure.yaml:1", "the base's file, where it was");
    assert_eq!(removed["cluster"], "the cluster whose Flux reads ./clusters/mgmt/flux-system/");
    assert_eq!(report["summary"], serde_json::json!({"removed": 3, "added": 0, "changed": 1}));
    // Reading the base changed nothing: the same status, the same index, no temporary copy left.
    assert_eq!(repo.state(), state);
    assert!(repo.tmp_is_empty());
}

#[test]
fn secret_values_are_masked_in_every_format() {
    let repo = Repo::of("flux");
    repo.edit(
        "infrastructure/base/identity.yaml",
        "22222222-2222-2222-2222-222222222222",
        "33333333-3333-3333-3333-333333333333",
    );
    for format in ["diff", "json", "yaml", "markdown"] {
        let output = repo.diff(&["HEAD", "-o", format]);
        assert_eq!(output.status.code(), Some(1), "{format}: {}", String::from_utf8_lossy(&output.stderr));
        let shown = String::from_utf8_lossy(&output.stdout);
        for value in ["2222-2222", "3333-3333", "00000000-0000", "workloadidentity"] {
            assert!(!shown.contains(value), "-o {format} shows {value}:\n{shown}");
        }
        assert!(shown.contains("Secret"), "-o {format}:\n{shown}");
    }
    let output = repo.diff(&["HEAD", "--show-secrets"]);
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .contains("+  AZURE_CLIENT_ID: \"33333333-3333-3333-3333-333333333333\"")
    );
}

#[test]
fn a_values_file_change_in_a_chart_is_a_change_of_the_rendered_objects() {
    let repo = Repo::of("helm-aks-aso");
    repo.edit("charts/aks-aso-cluster/values.yaml", "  plugin: azure", "  plugin: kubenet");
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1, "{report:#}");
    // The chart is rendered with each of its values files (values.yaml, ci/minimal-values.yaml,
    // ci/prod-values.yaml): one control plane each, and only the network plugin changes.
    let objects = report["objects"].as_array().unwrap();
    let names: Vec<String> = objects.iter().map(|o| format!("{} {} {}", o["change"], o["kind"], o["name"])).collect();
    assert_eq!(
        names,
        [
            r#""changed" "AzureASOManagedControlPlane" "aks-dev""#,
            r#""changed" "AzureASOManagedControlPlane" "ci-minimal""#,
            r#""changed" "AzureASOManagedControlPlane" "payments-prod""#,
        ],
        "{report:#}"
    );
    for object in objects {
        let changes = object["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 1, "{object:#}");
        assert!(changes[0]["path"].as_str().unwrap().ends_with("networkProfile.networkPlugin"), "{object:#}");
        assert_eq!((changes[0]["before"].as_str(), changes[0]["after"].as_str()), (Some("azure"), Some("kubenet")));
    }
    // AKS refuses the flip (only kubenet to Azure CNI Overlay is a migration it makes), once per rendering, each
    // said at the values file's changed line.
    let found = findings(&report);
    assert_eq!(found.len(), 3, "{report:#}");
    for (finding, cluster) in found.iter().zip(["aks-dev", "ci-minimal", "payments-prod"]) {
        let expected = format!(
            "error aks-immutable-property ManagedCluster/{cluster} ./charts/aks-aso-cluster/values.yaml:{}",
            line_of(&repo.root.join("charts/aks-aso-cluster/values.yaml"), "  plugin: kubenet")
        );
        assert_eq!(finding, &expected, "{report:#}");
    }
}

#[test]
fn a_second_directory_is_a_base_too_and_markdown_puts_what_is_removed_first() {
    let repo = Repo::of("flux");
    let base = repo.root.parent().unwrap().join("base");
    support::copy_tree(&fixture("flux"), &base);
    std::fs::remove_file(repo.root.join("clusters/mgmt/workload-clusters.yaml")).unwrap();
    repo.edit("clusters/mgmt/cluster-vars.yaml", "westeurope", "northeurope");
    let output = repo.diff(&[base.to_str().unwrap(), ".", "-o", "markdown"]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let markdown = String::from_utf8(output.stdout).unwrap();
    let first_removed = markdown.find("**removed** `Cluster clusters/aks-prod`").expect(&markdown);
    let first_changed = markdown.find("**changed**").expect(&markdown);
    assert!(first_removed < first_changed, "{markdown}");
    assert!(markdown.starts_with("### kubectl capz diff --base "), "{markdown}");
    assert!(markdown.contains("removed, "), "{markdown}");
}

#[test]
fn bad_bases_are_usage_errors_naming_what_is_wrong() {
    let repo = Repo::of("flux");
    let output = repo.diff(&["no-such-branch"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`no-such-branch` is no commit of the repository"), "{stderr}");
    let output = repo.diff(&["--output=x"]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let outside = tempfile::tempdir().unwrap();
    let output = capz_command().current_dir(outside.path()).args(["diff", "--base", "HEAD", "."]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not inside a git repository"));
}

#[test]
fn an_interrupted_review_leaves_no_copy_of_the_base() {
    let repo = Repo::of("flux");
    // A chart whose render takes a few seconds: the run is interrupted while it builds the base.
    let chart = repo.root.join("slow-chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: slow\nversion: 0.1.0\n").unwrap();
    std::fs::write(
        chart.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow\ndata:\n  n: \"{{ range until 3000000 }}{{ end }}1\"\n",
    )
    .unwrap();
    git(&repo.root, &["add", "-A"]);
    git(&repo.root, &["commit", "-q", "-m", "slow chart"]);
    let child = Command::new(support::capz_bin())
        .current_dir(&repo.root)
        .env("PATH", path_with_helm())
        .env("TMPDIR", &repo.tmp)
        .args(["diff", "--base", "HEAD"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while repo.tmp_is_empty() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!repo.tmp_is_empty(), "the base revision was never written out");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(repo.tmp_is_empty(), "the base's copy is left in {}", repo.tmp.display());
}

/// `(severity, rule, object, file:line)` of each finding.
fn findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {}:{}",
                f["severity"].as_str().unwrap(),
                f["rule"].as_str().unwrap(),
                f["object"].as_str().unwrap(),
                f["source"].as_str().unwrap(),
                f["line"]
            )
        })
        .collect()
}

#[test]
fn a_cluster_removed_under_prune_deletes_it_in_azure_unless_its_reconcile_policy_keeps_it() {
    let deleted = [
        "error gitops-prune-deletes Cluster/aks-prod ./workload-clusters/base/cluster.yaml:1",
        "error gitops-prune-deletes MachinePool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:1",
        "error gitops-prune-deletes AzureASOManagedCluster/aks-prod ./workload-clusters/base/cluster.yaml:40",
        "error gitops-prune-deletes AzureASOManagedControlPlane/aks-prod ./workload-clusters/base/cluster.yaml:15",
        "error gitops-prune-deletes AzureASOManagedMachinePool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:20",
    ];
    let repo = Repo::of("flux");
    std::fs::remove_file(repo.root.join("clusters/mgmt/workload-clusters.yaml")).unwrap();
    let (report, _) = repo.json(&["HEAD"]);
    assert_eq!(findings(&report), deleted, "{report:#}");
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("Flux Kustomization aks-prod (./workload-clusters/prod) prunes it"), "{message}");
    assert!(message.contains("AKS cluster in Azure"), "{message}");

    // The same removal once every ASO object is detached: the Azure resources stay.
    let repo = Repo::of("flux");
    for file in ["workload-clusters/base/cluster.yaml", "workload-clusters/base/pools.yaml"] {
        let path = repo.root.join(file);
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "        serviceoperator.azure.com/credential-from: aso-credentials\n",
            "        serviceoperator.azure.com/credential-from: aso-credentials\n        serviceoperator.azure.com/reconcile-policy: detach-on-delete\n",
        );
        std::fs::write(&path, text).unwrap();
    }
    git(&repo.root, &["commit", "-qam", "detach"]);
    std::fs::remove_file(repo.root.join("clusters/mgmt/workload-clusters.yaml")).unwrap();
    let (report, _) = repo.json(&["HEAD"]);
    // (The annotation added above the AzureASOManagedCluster moved it a line down.)
    let kept: Vec<String> = deleted
        .iter()
        .map(|f| {
            f.replacen("error gitops-prune-deletes", "warning gitops-prune-detached", 1)
                .replace("cluster.yaml:40", "cluster.yaml:41")
        })
        .collect();
    assert_eq!(findings(&report), kept, "{report:#}");

    // A Kustomization that does not prune leaves them on the cluster.
    let repo = Repo::of("flux");
    repo.edit("clusters/mgmt/workload-clusters.yaml", "prune: true", "prune: false");
    git(&repo.root, &["commit", "-qam", "no prune"]);
    std::fs::remove_file(repo.root.join("workload-clusters/prod/kustomization.yaml")).unwrap();
    std::fs::remove_file(repo.root.join("workload-clusters/prod/network-plugin.yaml")).unwrap();
    let (report, _) = repo.json(&["HEAD"]);
    let stays: Vec<String> = findings(&report);
    assert_eq!(stays.len(), 5, "{report:#}");
    assert!(stays.iter().all(|f| f.starts_with("info gitops-not-pruned")), "{stays:?}");
}

#[test]
fn a_kubernetes_upgrade_is_listed_as_rolling_at_the_version_lines() {
    let repo = Repo::of("flux");
    repo.edit("clusters/mgmt/cluster-vars.yaml", "KUBERNETES_VERSION: v1.33.2", "KUBERNETES_VERSION: v1.34.1");
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        [
            "info capi-rolling-update MachinePool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:18",
            "info capi-rolling-update AzureASOManagedControlPlane/aks-prod ./workload-clusters/base/cluster.yaml:38",
        ],
        "{report:#}"
    );
}

/// The fixed SSH key of the update referee's bases (a key CAPZ accepts; an empty one CAPZ replaces on every update).
fn referee_ssh_key() -> String {
    let base =
        std::fs::read_to_string(support::repo_root().join("tests/fixtures/capz-updates/cases/amcp-aad-added.old.yaml"))
            .unwrap();
    let line = base.lines().find_map(|line| line.trim().strip_prefix("sshPublicKey: ")).unwrap();
    line.trim().to_string()
}

/// A git repository holding our aks flavor rendered (classic AzureManaged* objects) as a plain file, committed.
fn rendered_repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("clusters")).unwrap();
    let rendered = capz_command()
        .args(["render", "aks", "demo", "--values"])
        .arg(support::repo_root().join("examples/aks.values.yaml"))
        .arg("--set")
        .arg(format!("sshPublicKey={}", referee_ssh_key()))
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    std::fs::write(root.join("clusters/demo.yaml"), &rendered.stdout).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    Repo { _dir: dir, root, tmp }
}

/// The control plane's version downgraded in the working tree; the line of the new version.
fn downgrade(repo: &Repo) -> usize {
    let path = repo.root.join("clusters/demo.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (before, after) = text.split_at(text.find("kind: AzureManagedControlPlane").unwrap());
    // A patch downgrade: a minor one would also put the pools (v1.34.2) ahead of the control plane, which the
    // tree alone shows (aks-version-skew).
    std::fs::write(&path, format!("{before}{}", after.replacen("  version: v1.34.2", "  version: v1.34.1", 1)))
        .unwrap();
    std::fs::read_to_string(&path).unwrap().lines().position(|line| line == "  version: v1.34.1").unwrap() + 1
}

#[test]
fn validate_base_adds_the_change_review_to_the_report() {
    let repo = rendered_repo();
    let line = downgrade(&repo);
    let output = capz_command()
        .current_dir(&repo.root)
        .env("TMPDIR", &repo.tmp)
        .args(["validate", ".", "--base", "HEAD", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let expected = format!("error capz-version-downgrade AzureManagedControlPlane/demo ./clusters/demo.yaml:{line}");
    assert!(findings(&report).contains(&expected), "{report:#}");
    assert_eq!(report["summary"]["errors"], 1, "{report:#}");
    // Without --base the same tree is clean: the finding is the change's.
    let output = capz_command().current_dir(&repo.root).args(["validate", ".", "-o", "json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    // GitHub annotations on the changed line.
    let output = capz_command()
        .current_dir(&repo.root)
        .env("TMPDIR", &repo.tmp)
        .args(["validate", ".", "--base", "HEAD", "-o", "github"])
        .output()
        .unwrap();
    let annotations = String::from_utf8(output.stdout).unwrap();
    assert!(
        annotations.contains(&format!(
            "::error file=clusters/demo.yaml,line={line},title=kubectl-capz capz-version-downgrade::"
        )),
        "{annotations}"
    );
    assert!(repo.tmp_is_empty());
}

#[test]
fn capz_update_rules_judge_each_changed_object_with_the_base_as_the_stored_one() {
    let repo = rendered_repo();
    // A version downgrade and a new location of the control plane, both refused by CAPZ's ValidateUpdate.
    let text = std::fs::read_to_string(repo.root.join("clusters/demo.yaml")).unwrap();
    let control_plane = text.find("kind: AzureManagedControlPlane").unwrap();
    let (before, after) = text.split_at(control_plane);
    let after = after.replacen("  version: v1.34.2", "  version: v1.33.0", 1).replacen(
        "  location: eastus2",
        "  location: westus3",
        1,
    );
    std::fs::write(repo.root.join("clusters/demo.yaml"), format!("{before}{after}")).unwrap();
    let line_of = |needle: &str| {
        let text = std::fs::read_to_string(repo.root.join("clusters/demo.yaml")).unwrap();
        text.lines().position(|line| line == needle).unwrap() + 1
    };
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1);
    let found = findings(&report);
    for expected in [
        format!(
            "error capz-version-downgrade AzureManagedControlPlane/demo ./clusters/demo.yaml:{}",
            line_of("  version: v1.33.0")
        ),
        format!(
            "error capz-immutable-field AzureManagedControlPlane/demo ./clusters/demo.yaml:{}",
            line_of("  location: westus3")
        ),
    ] {
        assert!(found.contains(&expected), "{expected} not in {found:#?}");
    }
    // An allowed change (a pool's node count) gives no update finding.
    git(&repo.root, &["checkout", "--", "clusters/demo.yaml"]);
    let text = std::fs::read_to_string(repo.root.join("clusters/demo.yaml")).unwrap();
    std::fs::write(repo.root.join("clusters/demo.yaml"), text.replacen("  replicas: 2", "  replicas: 4", 1)).unwrap();
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["summary"]["changed"], 1, "{report:#}");
    assert!(findings(&report).iter().all(|f| !f.starts_with("error")), "{report:#}");
}

#[test]
fn an_argo_cd_app_of_apps_prunes_only_where_its_applications_say_so() {
    let removed_kinds = [
        "Cluster/team-a ./clusters/base/cluster.yaml:1",
        "MachinePool/team-a-pool0 ./clusters/base/cluster.yaml:41",
        "AzureManagedCluster/team-a ./clusters/base/cluster.yaml:19",
        "AzureManagedControlPlane/team-a ./clusters/base/cluster.yaml:24",
        "AzureManagedMachinePool/team-a-pool0 ./clusters/base/cluster.yaml:59",
    ];
    // The root application (automated prune) deletes the team-clusters Application; that one has no automated
    // prune: its objects stay on the cluster.
    let repo = Repo::of("argocd-app-of-apps");
    std::fs::remove_file(repo.root.join("apps/team-clusters.yaml")).unwrap();
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1);
    assert_eq!(report["summary"], serde_json::json!({"removed": 7, "added": 0, "changed": 0}), "{report:#}");
    let expected: Vec<String> = removed_kinds.iter().map(|o| format!("info gitops-not-pruned {o}")).collect();
    assert_eq!(findings(&report), expected, "{report:#}");

    // With automated prune on team-clusters, the cluster its source no longer renders is deleted, in Azure too.
    let repo = Repo::of("argocd-app-of-apps");
    let path = repo.root.join("apps/team-clusters.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}  syncPolicy:\n    automated:\n      prune: true\n")).unwrap();
    git(&repo.root, &["commit", "-qam", "prune the team's clusters"]);
    repo.edit("clusters/base/kustomization.yaml", "resources:\n  - cluster.yaml", "resources: []");
    let (report, _) = repo.json(&["HEAD"]);
    let found = findings(&report);
    for object in removed_kinds {
        assert!(found.contains(&format!("error gitops-prune-deletes {object}")), "{object}: {found:#?}");
    }

    // With Argo CD's resources finalizer on team-clusters, deleting that Application deletes what it applied, its
    // own prune setting aside: the clusters go, in Azure too.
    let repo = Repo::of("argocd-app-of-apps");
    repo.edit(
        "apps/team-clusters.yaml",
        "  namespace: argocd\n",
        "  namespace: argocd\n  finalizers:\n    - resources-finalizer.argocd.argoproj.io\n",
    );
    git(&repo.root, &["commit", "-qam", "cascade the team's clusters"]);
    std::fs::remove_file(repo.root.join("apps/team-clusters.yaml")).unwrap();
    let (report, _) = repo.json(&["HEAD"]);
    let expected: Vec<String> = removed_kinds.iter().map(|o| format!("error gitops-prune-deletes {o}")).collect();
    assert_eq!(findings(&report), expected, "{report:#}");
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("deletes its Application team-clusters, whose resources-finalizer"), "{message}");
}

/// The 1-based line of `file` that is `text`.
fn line_of(file: &Path, text: &str) -> usize {
    let content = std::fs::read_to_string(file).unwrap();
    content.lines().position(|line| line == text).map(|i| i + 1).unwrap_or_else(|| panic!("{text:?} in {content}"))
}

#[test]
fn a_renamed_pool_is_one_deleted_and_one_created() {
    let repo = Repo::of("flux");
    let pools = repo.root.join("workload-clusters/base/pools.yaml");
    let text = std::fs::read_to_string(&pools).unwrap();
    std::fs::write(&pools, text.replace("-pool0", "-pool1").replace("azureName: pool0", "azureName: pool1")).unwrap();
    let (report, code) = repo.json(&["HEAD"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        summary(&report),
        [
            "removed MachinePool aks-prod-pool0",
            "removed AzureASOManagedMachinePool aks-prod-pool0",
            "added MachinePool aks-prod-pool1",
            "added AzureASOManagedMachinePool aks-prod-pool1",
        ],
        "{report:#}"
    );
    // The old pool goes (its node pool in Azure with it), at its lines in the base.
    assert_eq!(
        findings(&report),
        [
            "error gitops-prune-deletes MachinePool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:1",
            "error gitops-prune-deletes AzureASOManagedMachinePool/aks-prod-pool0 ./workload-clusters/base/pools.yaml:20",
        ],
        "{report:#}"
    );
}
