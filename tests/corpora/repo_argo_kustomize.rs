//! Argo CD kustomize sources with kustomize options (tests/fixtures/repos/argocd-kustomize-options): the options are
//! applied as Argo CD applies them (name prefix and suffix, images, labels, annotations, namespace, replicas,
//! components, also for Applications an ApplicationSet generates), findings land at the user's file:line, options
//! that cannot be applied are one warning each, and the user's files are untouched.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use capz::source::{self, Budget, Limits, RepositoryOptions};
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos/argocd-kustomize-options")
}

/// Every file below `dir` and its bytes.
fn snapshot_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The built objects of the source whose label names `owner`, by `Kind/name`: the object and its file:line.
fn built_by(repository: &source::Repository, owner: &str) -> BTreeMap<String, (Value, String, usize)> {
    let built = repository.built.iter().find(|built| built.label.contains(owner)).unwrap_or_else(|| {
        panic!("no build of {owner}: {:?}", repository.built.iter().map(|b| &b.label).collect::<Vec<_>>())
    });
    built
        .documents
        .iter()
        .map(|document| {
            (
                document.display_name(),
                (document.value.clone(), document.origin.source.to_string(), document.origin.line),
            )
        })
        .collect()
}

fn load() -> source::Repository {
    let options = RepositoryOptions {
        budget: Budget::new(Limits { per_run: Duration::from_secs(60), ..Limits::default() }),
        ..RepositoryOptions::default()
    };
    source::load(&fixture(), &options).unwrap()
}

#[test]
fn the_applications_kustomize_options_are_applied_to_what_is_built() {
    let repository = load();
    let team_b = built_by(&repository, "Application/team-b");
    let names: Vec<&String> = team_b.keys().collect();
    assert_eq!(
        names,
        [
            "AzureClusterIdentity/prod-team-b-identity",
            "AzureManagedControlPlane/prod-team-b",
            "Deployment/prod-node-exporter"
        ]
    );
    let (deployment, file, line) = &team_b["Deployment/prod-node-exporter"];
    assert!(file.ends_with("clusters/team-b/node-exporter.yaml") && *line == 1, "{file}:{line}");
    assert_eq!(deployment["metadata"]["namespace"], "team-b");
    assert_eq!(
        deployment["metadata"]["labels"],
        json!({"team": "b", "app.kubernetes.io/managed-by": "argocd-team-b"}),
        "commonLabels, ${{ARGOCD_APP_NAME}} substituted as Argo CD does"
    );
    assert_eq!(deployment["metadata"]["annotations"], json!({"example.com/owner": "team-b"}));
    assert_eq!(deployment["spec"]["selector"]["matchLabels"]["team"], "b", "commonLabels also select");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "registry.example.com/mirror/pause:3.10"
    );

    let preview = built_by(&repository, "ApplicationSet/previews (preview-pr-101)");
    let (deployment, file, _) = &preview["Deployment/node-exporter-pr-101"];
    assert!(file.ends_with("clusters/team-b/node-exporter.yaml"), "{file}");
    assert_eq!(deployment["metadata"]["namespace"], "preview-pr-101");
    assert_eq!(deployment["spec"]["replicas"], 2, "kustomize.replicas");
    assert_eq!(
        deployment["metadata"]["annotations"]["prometheus.io/scrape"], "true",
        "the component the ApplicationSet adds"
    );
    assert!(preview.contains_key("AzureManagedControlPlane/team-b-pr-101"), "{:?}", preview.keys());
}

#[test]
fn validate_finds_the_seeded_defect_at_the_users_file_and_line_and_leaves_the_files_untouched() {
    let before = snapshot_of(&fixture());
    let output = capz_command()
        .current_dir(fixture().parent().unwrap())
        .args(["validate", "argocd-kustomize-options"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    // Both built objects of the control plane (prefixed by the Application, suffixed by the ApplicationSet's
    // Application) are reported at the line of the user's file.
    for object in ["AzureManagedControlPlane/prod-team-b", "AzureManagedControlPlane/team-b-pr-101"] {
        let expected = format!(
            "argocd-kustomize-options/clusters/team-b/control-plane.yaml:11: error: {object}: /spec/networkPlugin:"
        );
        assert!(stdout.contains(&expected), "{expected}\n{stdout}");
    }
    // A value the Application's own JSON patch sets is reported at that patch operation, in the Application.
    let patched =
        "argocd-kustomize-options/apps/team-b.yaml:27: error: AzureManagedControlPlane/prod-team-b: /spec/sku/tier:";
    assert!(stdout.contains(patched), "{patched}\n{stdout}");
    assert!(
        !stdout.contains("team-b-pr-101: /spec/sku"),
        "the ApplicationSet's Application has no such patch: {stdout}"
    );
    // `version` cannot be honoured: one warning naming it, at its line.
    assert_eq!(stdout.matches("kustomize.version").count(), 1, "{stdout}");
    let version = "argocd-kustomize-options/apps/team-b.yaml:22: warning: Application/team-b: kustomize.version";
    assert!(stdout.contains(version), "{stdout}");
    assert!(!stdout.contains("ARGOCD_APP_NAME"), "Argo CD's own variables are not unsubstituted variables: {stdout}");
    let json = capz_command()
        .current_dir(fixture().parent().unwrap())
        .args(["validate", "-o", "json", "argocd-kustomize-options"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let classes: Vec<String> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            format!(
                "{}: {} ({})",
                file["path"].as_str().unwrap(),
                file["class"].as_str().unwrap(),
                file["reason"].as_str().unwrap()
            )
        })
        .collect();
    insta::assert_snapshot!(
        "argocd_kustomize_options_validate",
        format!("{stdout}--- stderr\n{stderr}--- files\n{}\n--- summary\n{:#}", classes.join("\n"), report["summary"])
    );
    assert_eq!(snapshot_of(&fixture()), before, "repository mode wrote to the user's files");
}

#[test]
fn options_that_argo_cd_would_fail_on_are_one_warning_and_nothing_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("app/kustomization.yaml", "resources:\n  - cm.yaml\ncommonLabels:\n  team: a\n"),
        ("app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"),
        (
            "apps/app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\nspec:\n  source:\n    \
             repoURL: https://example.com/r.git\n    path: app\n    kustomize:\n      commonLabels:\n        team: b\n  \
             destination:\n    namespace: x\n",
        ),
        (
            "apps/remote.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: remote\nspec:\n  source:\n    \
             repoURL: https://example.com/r.git\n    path: app\n    kustomize:\n      forceCommonLabels: true\n      \
             commonLabels:\n        team: c\n      components:\n        - https://github.com/example/c//x\n  \
             destination:\n    namespace: x\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let options = RepositoryOptions {
        budget: Budget::new(Limits { per_run: Duration::from_secs(60), ..Limits::default() }),
        ..RepositoryOptions::default()
    };
    let repository = source::load(root, &options).unwrap();
    let messages: Vec<String> =
        repository.notes.iter().map(|note| format!("{}:{} {}", note.source, note.line, note.message)).collect();
    let failed: Vec<&String> = messages.iter().filter(|m| m.contains("Application/app:")).collect();
    assert_eq!(failed.len(), 1, "{messages:#?}");
    assert!(failed[0].contains("label team already in kustomization file. Use --force to override."), "{failed:?}");
    assert!(!repository.built.iter().any(|built| built.label.contains("Application/app ")), "built anyway");
    let remote: Vec<&String> = messages.iter().filter(|m| m.contains("Application/remote:")).collect();
    assert_eq!(remote.len(), 1, "{messages:#?}");
    assert!(
        remote[0].contains("https://github.com/example/c//x") && remote[0].contains("nothing is fetched"),
        "{remote:?}"
    );
    assert!(remote[0].contains("remote.yaml:14 "), "at the line of the component entry: {remote:?}");
    let built = built_by(&repository, "Application/remote");
    assert_eq!(built["ConfigMap/settings"].0["metadata"]["labels"], json!({"team": "c"}));
}
