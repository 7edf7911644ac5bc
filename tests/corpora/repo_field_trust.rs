//! Repository shapes behind an exit code teams can gate on, each a fixture of our own (tests/fixtures/repos/):
//! placeholders of example files, an object reached twice, one chart rendered by itself and by Argo CD
//! Applications, CAPZ's alternative addon files, findings suppressed where they are written, CAPI references CAPI
//! can never resolve, and Secret names shown in full.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

/// `PATH` with tools/helm/bin first (tools/helm/build.sh puts helm v3.18.6 there).
fn path_with_helm() -> OsString {
    let dir = support::repo_root().join("tools/helm/bin");
    assert!(dir.join("helm").is_file(), "helm is missing from {}: run tools/helm/build.sh", dir.display());
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// `validate ARGS` run in `cwd` with helm on PATH.
fn validate(cwd: &Path, args: &[&str]) -> Output {
    capz_command().current_dir(cwd).env("PATH", path_with_helm()).arg("validate").args(args).output().unwrap()
}

/// The text report and the summary line of `validate DIR`, with the exit code.
fn text(dir: &str) -> (String, i32) {
    let output = validate(&repos(), &[dir]);
    let code = output.status.code().unwrap();
    assert_ne!(code, 2, "{dir}: {}", String::from_utf8_lossy(&output.stderr));
    let shown = format!(
        "{}--- stderr\n{}--- exit {code}\n",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (shown, code)
}

fn json(cwd: &Path, dir: &str, format: &str) -> Value {
    let output = validate(cwd, &["-o", format, dir]);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("validate -o {format} {dir}: {err}\n{}", String::from_utf8_lossy(&output.stderr)))
}

fn rules_of(report: &Value) -> Vec<String> {
    report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
}

/// Example files keep their placeholders out of the verdict (one info per file), judge every other field (the
/// network plugin ASO does not know), and a placeholder in a file that is not an example, or that a Flux
/// Kustomization applies, is judged like any value.
#[test]
fn example_file_placeholders_are_one_info_each_and_every_other_field_is_judged() {
    let (shown, code) = text("example-placeholders");
    assert_eq!(code, 1, "{shown}");
    let report = json(&repos(), "example-placeholders", "json");
    let placed: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{} {} {}", f["source"].as_str().unwrap(), f["line"], f["severity"], f["rule"]))
        .collect();
    assert_eq!(
        placed,
        [
            r#"example-placeholders/applied/examples/identity.yaml:4 "error" "metadata""#,
            r#"example-placeholders/clusters/identity.example.yaml:9 "info" "example-placeholders""#,
            r#"example-placeholders/clusters/prod/cluster.yaml:4 "error" "metadata""#,
            r#"example-placeholders/examples/aks-aso/cluster.yaml:5 "info" "example-placeholders""#,
            r#"example-placeholders/examples/aks-aso/cluster.yaml:36 "error" "schema""#,
            r#"example-placeholders/test/fixtures/credentials.yaml:9 "info" "example-placeholders""#,
        ],
        "{shown}"
    );
    insta::assert_snapshot!("example_placeholders", shown);
}

/// `clusters/prod/` is applied by a Flux Kustomization and included by a kustomize root: each object once in the
/// verdicts and the summary, and no duplicate of itself.
#[test]
fn an_object_a_flux_path_and_a_kustomize_root_both_reach_is_counted_once() {
    let report = json(&repos(), "double-reach", "json");
    let resources = report["resources"].as_array().unwrap();
    let mut places: Vec<(String, u64)> =
        resources.iter().map(|r| (r["source"].as_str().unwrap().to_string(), r["line"].as_u64().unwrap())).collect();
    let all = places.len();
    places.sort();
    places.dedup();
    assert_eq!((all, places.len()), (9, 9), "{report:#}");
    assert_eq!(report["summary"]["resources"], 9);
    assert!(report["findings"].as_array().unwrap().is_empty(), "{report:#}");
    let (shown, code) = text("double-reach");
    assert_eq!(code, 0, "{shown}");
    insta::assert_snapshot!("double_reach", shown);
}

/// A chart's own render (its values.yaml) and an Argo CD Application's render of it with another Kubernetes
/// version hold the same objects: never applied together, no duplicate, and each judged with its own render (no
/// unresolved reference between them). A second Application applying the same render to the same destination and
/// namespace: one object, two owners, both named; counted once.
#[test]
fn a_charts_own_render_and_an_applications_are_apart_and_two_applications_are_two_owners() {
    let (shown, code) = text("argocd-chart-render");
    assert_eq!(code, 0, "{shown}");
    let report = json(&repos(), "argocd-chart-render", "json");
    let messages: Vec<&str> =
        report["findings"].as_array().unwrap().iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(messages.len(), 6, "{shown}");
    for message in &messages {
        assert!(
            message.contains(
                "has two owners that apply it to Argo CD destination https://kubernetes.default.svc, \
                              namespace team-a: helm template Application/team-a-again"
            ) && message.contains("and helm template Application/team-a (at "),
            "{message}"
        );
        assert!(!message.contains("defined"), "{message}");
    }
    // The chart's six objects, the two that differ in the Application's render (the version), the Applications.
    assert_eq!(report["summary"]["resources"], 10, "{shown}");
    insta::assert_snapshot!("argocd_chart_render", shown);
}

/// CAPZ's Calico addon files for IPv4, IPv6 and dual stack define the same objects: alternatives, no duplicates;
/// an object written twice in one of them still is.
#[test]
fn capz_alternative_addon_files_are_no_duplicates_of_each_other() {
    let (shown, code) = text("capz-addons");
    assert_eq!(code, 0, "{shown}");
    let report = json(&repos(), "capz-addons", "json");
    assert_eq!(rules_of(&report), ["duplicate-object"], "{shown}");
    assert_eq!(report["findings"][0]["object"], "ConfigMap/calico-ipam");
    insta::assert_snapshot!("capz_addons", shown);
}

/// A finding silenced by a comment on its line, by a comment above a JSON 6902 patch's operation (where the
/// finding is reported), on a Helm template's line and above a value in the chart's values file (where the finding
/// is reported), by an annotation on the Secret; a comment and an annotation naming unknown rules are
/// errors at their lines, and the finding the comment meant stays. Suppressed findings are in `-o json`
/// (`suppressed`, with the reason) and in SARIF (`suppressions` of kind `inSource`), counted in the summary line,
/// and not in the exit code.
#[test]
fn findings_suppressed_by_comment_and_annotation_are_reported_as_such() {
    let (shown, code) = text("suppressions");
    assert_eq!(code, 1, "{shown}");
    let report = json(&repos(), "suppressions", "json");
    assert_eq!(rules_of(&report), ["invalid-suppression", "invalid-suppression", "aks-dns-prefix"], "{shown}");
    assert_eq!(report["summary"]["suppressed"], 5);
    assert_eq!(report["summary"]["errors"], 3, "suppressed errors do not count");
    let sarif = json(&repos(), "suppressions", "sarif");
    let suppressed: Vec<Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result.get("suppressions").is_some())
        .map(|result| {
            serde_json::json!({
                "ruleId": result["ruleId"],
                "location": result["locations"][0]["physicalLocation"],
                "suppressions": result["suppressions"],
            })
        })
        .collect();
    assert_eq!(suppressed.len(), 5);
    insta::assert_snapshot!(
        "suppressions",
        format!(
            "{shown}--- json suppressed\n{:#}\n--- sarif suppressed results\n{:#}\n",
            report["suppressed"],
            Value::Array(suppressed)
        )
    );
    // With the typos fixed, what is left is suppressed: exit 0.
    let work = tempfile::tempdir().unwrap();
    copy_tree(&repos().join("suppressions"), &work.path().join("suppressions"));
    for (file, from, to) in [
        ("clusters/base/cluster.yaml", "aks-dns-prefx", "aks-dns-prefix"),
        ("clusters/base/cluster.yaml", "capi-unresolved-refs", "capi-unresolved-ref"),
    ] {
        let path = work.path().join("suppressions").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace(from, to)).unwrap();
    }
    let output = validate(work.path(), &["suppressions"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{}", String::from_utf8_lossy(&output.stdout));
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(
        stderr,
        "9 objects: 9 valid, 0 invalid, 0 skipped (0 errors, 0 warnings, 0 not checked); 6 findings suppressed in the \
         repository; 1 file is not a manifest\n"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A v1beta1 Cluster whose infrastructureRef has no kind and whose controlPlaneRef has no apiVersion, a MachinePool
/// whose configRef is only a name: errors CAPI can never resolve, with the kind and apiVersion of the object the
/// reference names; a reference's namespace is not where CAPI looks.
#[test]
fn a_cluster_reference_without_kind_or_api_version_is_an_error() {
    let (shown, code) = text("capi-refs");
    assert_eq!(code, 1, "{shown}");
    let report = json(&repos(), "capi-refs", "json");
    let errors: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| format!("{} {} {}", f["object"].as_str().unwrap(), f["path"].as_str().unwrap(), f["rule"]))
        .collect();
    assert_eq!(
        errors,
        [
            r#"Cluster/prod /spec/controlPlaneRef "capi-incomplete-ref""#,
            r#"Cluster/prod /spec/infrastructureRef "capi-incomplete-ref""#,
            r#"MachinePool/prod-pool1 /spec/template/spec/bootstrap/configRef "capi-incomplete-ref""#,
            r#"MachinePool/prod-pool1 /spec/template/spec/infrastructureRef/name "capi-unresolved-ref""#,
        ]
    );
    insta::assert_snapshot!("capi_refs", shown);
}

/// The findings about an ASO credential Secret whose values hold its name (part of it, all of it, more than it)
/// name the Secret in full; its values stay masked.
#[test]
fn a_secrets_name_is_shown_and_only_its_values_are_masked() {
    let (shown, code) = text("secret-names");
    assert_eq!(code, 1, "{shown}");
    assert!(shown.contains(r#"ASO credential Secret "aso-credentials" lacks AZURE_TENANT_ID"#), "{shown}");
    assert!(shown.contains(r#"ASO credential Secret "aso-credentials" has no clusterctl"#), "{shown}");
    assert!(!shown.contains("aso-credentials!") && !shown.contains("x-aso-credentials-y"), "{shown}");
    let report = json(&repos(), "secret-names", "json").to_string();
    assert!(!report.contains("aso-credentials!") && !report.contains("x-aso-credentials-y"), "{report}");
    insta::assert_snapshot!("secret_names", shown);
}
