//! `--aks-versions FILE` (and `aksVersions:` in `.kubectl-capz.yaml`): the output of `az aks get-versions` for the
//! clusters' region, on `validate`, `upgrade plan` and `upgrade --to`, on the Flux fixture (a westeurope cluster on
//! v1.33.2 with one pool).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::cli_runner::capz_command;
use crate::support::repo_root;

/// 1.33 in platform support, 1.35 released.
const ON: &str = "2026-09-01";
const FLUX: &str = "tests/fixtures/repos/flux";

fn data(name: &str) -> String {
    repo_root().join("tests/fixtures/aks-versions").join(name).display().to_string()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = capz_command().current_dir(repo_root()).args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The findings of `validate --at ON -o json PATH` with `extra` arguments: `rule message` of the aks-version ones.
fn aks_findings(path: &str, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["validate", "--at", ON, "-o", "json", path];
    args.extend(extra);
    let (code, stdout, stderr) = run(&args);
    assert!(matches!(code, Some(0 | 1)), "{args:?}: {stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("aks-version"))
        .map(|f| {
            let at = format!("{}:{}", f["source"].as_str().unwrap(), f["line"]);
            (f["rule"].as_str().unwrap().to_string(), at, f["message"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn validate_says_what_the_region_does_not_offer() {
    let calendar = aks_findings(FLUX, &[]);
    // The region offers v1.33.2: nothing more than the calendar says.
    assert_eq!(aks_findings(FLUX, &["--aks-versions", &data("westeurope.json")]), calendar);
    // Data of another region does not judge a westeurope cluster.
    assert_eq!(aks_findings(FLUX, &["--aks-versions", &data("eastus.json")]), calendar);
    // A westeurope that no longer offers 1.33.2: an error on the control plane and on the pool, where the calendar's
    // findings are, naming the patches it offers.
    let later = aks_findings(FLUX, &["--aks-versions", &data("westeurope-without-1.33.2.json")]);
    let added: Vec<_> = later.iter().filter(|f| !calendar.contains(f)).collect();
    let places: Vec<&str> = added.iter().map(|(_, at, _)| at.as_str()).collect();
    assert_eq!(
        places,
        [
            "tests/fixtures/repos/flux/workload-clusters/base/cluster.yaml:38",
            "tests/fixtures/repos/flux/workload-clusters/base/pools.yaml:18"
        ],
        "{later:?}"
    );
    for ((rule, _, message), role) in added.iter().zip(["control plane", "node pool"]) {
        assert_eq!(rule, "aks-version-unreleased", "{message}");
        assert!(
            message.starts_with(&format!(
                "{role} version \"v1.33.2\": AKS in westeurope does not offer this patch of 1.33 (its patches: \
                 1.33.5; az aks get-versions in "
            )) && message.contains("AKS rejects a version it does not offer"),
            "{message}"
        );
    }
    let (code, ..) = run(&["validate", "--at", ON, FLUX, "--aks-versions", &data("westeurope-without-1.33.2.json")]);
    assert_eq!(code, Some(1));
}

/// A copy of the Flux fixture with a `.kubectl-capz.yaml` naming the region's data inside it.
fn flux_with_config(config: &str, data_file: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("repo");
    crate::support::copy_tree(&repo_root().join(FLUX), &root);
    if let Some(name) = data_file {
        std::fs::create_dir_all(root.join("azure")).unwrap();
        std::fs::copy(data(name), root.join("azure/westeurope.json")).unwrap();
    }
    std::fs::write(root.join(".kubectl-capz.yaml"), config).unwrap();
    (work, root)
}

#[test]
fn the_config_files_aks_versions_is_a_file_of_the_repository() {
    let (_work, root) =
        flux_with_config("aksVersions: azure/westeurope.json\n", Some("westeurope-without-1.33.2.json"));
    let found = aks_findings(root.to_str().unwrap(), &[]);
    assert!(found.iter().any(|(rule, _, m)| rule == "aks-version-unreleased" && m.contains("its patches: 1.33.5")));
    // The flag wins over the file.
    let flagged = aks_findings(root.to_str().unwrap(), &["--aks-versions", &data("westeurope.json")]);
    assert!(!flagged.iter().any(|(_, _, m)| m.contains("its patches")), "{flagged:?}");

    // A symlink out of the repository is refused, as is a path outside it.
    let (_work, root) = flux_with_config("aksVersions: azure/westeurope.json\n", None);
    std::fs::create_dir_all(root.join("azure")).unwrap();
    std::os::unix::fs::symlink(data("westeurope.json"), root.join("azure/westeurope.json")).unwrap();
    let (code, stdout, stderr) = run(&["validate", root.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(".kubectl-capz.yaml:1: aksVersions: `") && stderr.contains("through a symlink"),
        "{stderr}"
    );
    let (_work, root) = flux_with_config("aksVersions: ../westeurope.json\n", None);
    let (code, _, stderr) = run(&["upgrade", "plan", root.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("aksVersions: `../westeurope.json` is outside the repository"), "{stderr}");
}

#[test]
fn what_is_not_az_aks_get_versions_output_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let cases = [
        (write("broken.json", "{\n  \"values\": [\n    {,\n"), "line 3: not JSON"),
        (write("old.json", r#"{"orchestrators": []}"#), "older than 2.50"),
        (write("table.json", r#"[{"KubernetesVersion": "1.33"}]"#), "not the output of `az aks get-versions -o json`"),
        (write("patch.json", r#"{"values": [{"version": "1.33.2"}]}"#), "values[0]: version \"1.33.2\" is not a minor"),
        (dir.path().join("missing.json").display().to_string(), "cannot read"),
    ];
    for (file, says) in &cases {
        for command in [&["validate", FLUX][..], &["upgrade", "plan", FLUX][..]] {
            let mut args = command.to_vec();
            args.extend(["--aks-versions", file]);
            let (code, stdout, stderr) = run(&args);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(stdout.is_empty(), "{args:?}");
            assert!(
                stderr.contains(&format!("--aks-versions {file}: ")) && stderr.contains(says),
                "{args:?}: {stderr}"
            );
        }
    }
}

#[test]
fn upgrade_plan_names_the_patch_each_step_takes_in_the_region() {
    let (code, stdout, stderr) = run(&[
        "upgrade",
        "plan",
        "--at",
        ON,
        FLUX,
        "--to",
        "v1.35",
        "-o",
        "json",
        "--aks-versions",
        &data("westeurope.json"),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    let plan: Value = serde_json::from_str(&stdout).unwrap();
    let steps = plan["clusters"][0]["steps"].as_array().unwrap();
    let patches: Vec<(&str, &str)> =
        steps.iter().map(|s| (s["to"].as_str().unwrap(), s["patch"].as_str().unwrap())).collect();
    // From 1.33.2 westeurope upgrades to 1.34.1 (not the newest 1.34.3), and from 1.34.1 to 1.35.1.
    assert_eq!(patches, [("1.34", "v1.34.1"), ("1.34", "v1.34.1"), ("1.35", "v1.35.1"), ("1.35", "v1.35.1")]);
    let (_, text, _) =
        run(&["upgrade", "plan", "--at", ON, FLUX, "--to", "v1.35", "--aks-versions", &data("westeurope.json")]);
    assert!(text.contains("  1. control plane to 1.34 (v1.34.1): AzureASOManagedControlPlane/aks-prod at "), "{text}");
    // Without the data no patch is named.
    let (_, stdout, _) = run(&["upgrade", "plan", "--at", ON, FLUX, "--to", "v1.35", "-o", "json"]);
    let plain: Value = serde_json::from_str(&stdout).unwrap();
    assert!(plain["clusters"][0]["steps"][0].get("patch").is_none());
    // A minor the region does not offer is refused as a target, naming what it offers.
    let (code, _, stderr) =
        run(&["upgrade", "plan", "--at", ON, FLUX, "--to", "v1.32", "--aks-versions", &data("westeurope.json")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("AKS in westeurope does not offer Kubernetes 1.32 (it offers 1.30, 1.33, 1.34, 1.35"),
        "{stderr}"
    );
}

fn committed(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("repo");
    crate::support::copy_tree(&repo_root().join(fixture), &root);
    (work, root)
}

fn vars(root: &Path) -> String {
    std::fs::read_to_string(root.join("clusters/mgmt/cluster-vars.yaml")).unwrap()
}

#[test]
fn upgrade_follows_the_regions_upgrade_paths() {
    let (_work, root) = committed(FLUX);
    let dir = root.to_str().unwrap();
    let before = vars(&root);
    let region = data("westeurope.json");
    // 1.33.2 upgrades to 1.33.5 or 1.34.1 in westeurope, not straight to 1.34.3: refused, nothing written.
    let (code, _, stderr) = run(&["upgrade", "--at", ON, "--to", "v1.34.3", dir, "-w", "--aks-versions", &region]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr
            .contains("AKS in westeurope does not upgrade 1.33.2 to 1.34.3 (its upgrades from 1.33.2: 1.33.5, 1.34.1"),
        "{stderr}"
    );
    assert_eq!(vars(&root), before);
    // A patch the region does not offer at all is a usage error.
    let (code, _, stderr) = run(&["upgrade", "--at", ON, "--to", "v1.34.2", dir, "--aks-versions", &region]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains("--to v1.34.2: AKS in westeurope does not offer this patch (its patches of 1.34: 1.34.1, 1.34.3"),
        "{stderr}"
    );
    // The step the region offers is written, its one line.
    let (code, _, stderr) = run(&["upgrade", "--at", ON, "--to", "v1.34.1", dir, "-w", "--aks-versions", &region]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(vars(&root), before.replace("KUBERNETES_VERSION: v1.33.2", "KUBERNETES_VERSION: v1.34.1"));
    // Without the data, 1.34.3 is a step the calendar allows.
    let (_work, root) = committed(FLUX);
    let (code, _, stderr) = run(&["upgrade", "--at", ON, "--to", "v1.34.3", root.to_str().unwrap(), "--check"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("refused:"), "{stderr}");
}
