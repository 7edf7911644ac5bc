//! `kubectl capz convert --aso` end to end: a repository file written for CAPZ v1.26 (ASO objects at
//! containerservice v1api20240402preview, embedded in AzureASOManaged* objects) moves to the preview CAPZ v1.27's ASO
//! serves, only the version lines and the dropped fields change (comments kept), the dropped fields are warned about
//! with their values at file:line, and the result validates clean; nothing moves under the target that serves the
//! versions; `--check`, `-w`; `--aso-version`; ClusterClass templates and patches; usage errors.

use crate::support::cli_runner::capz;

use similar::TextDiff;

const PREVIEW: &str = "tests/fixtures/convert-aso/preview-cluster.yaml";

/// Runs `kubectl-capz ARGS` (stdin: `stdin`); returns (exit code, stdout, stderr).
fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut command = capz(&[]);
    command.args(args);
    if let Some(stdin) = stdin {
        command.write_stdin(stdin.to_string());
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn changed_lines(before: &str, after: &str) -> String {
    TextDiff::from_lines(before, after).unified_diff().context_radius(0).to_string()
}

/// The findings of `validate -` on `yaml` that are errors, and its exit code.
fn validate_errors(yaml: &str, target: &str) -> (i32, Vec<String>) {
    let (code, stdout, stderr) = run(&["validate", "-", "--capz-version", target], Some(yaml));
    let errors = format!("{stdout}{stderr}").lines().filter(|l| l.contains(": error: ")).map(str::to_string).collect();
    (code, errors)
}

#[test]
fn preview_objects_move_to_the_preview_the_target_serves_and_validate_clean() {
    let source = std::fs::read_to_string(PREVIEW).unwrap();
    let (code, before) = validate_errors(&source, "v1.27");
    assert_eq!(code, 1);
    assert_eq!(before.iter().filter(|e| e.contains("[api-version]")).count(), 2, "{before:#?}");

    let (code, converted, stderr) = run(&["convert", "--aso", PREVIEW], None);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("convert_aso_preview_diff", changed_lines(&source, &converted));
    insta::assert_snapshot!("convert_aso_preview_stderr", stderr);
    // Every comment but those of the dropped lines (and the comment right above a dropped block) is kept.
    let dropped_lines = ["trust the corporate CA", "the GPU operator installs it", "Deployment safeguards (preview)"];
    assert!(!converted.contains("# Deployment safeguards"), "{converted}");
    // A quoted apiVersion stays quoted.
    assert!(converted.contains("  - apiVersion: \"containerservice.azure.com/v20251002preview\"\n"), "{converted}");
    for line in source.lines().filter(|l| l.contains('#')) {
        let comment = &line[line.find('#').unwrap()..];
        if !dropped_lines.iter().any(|d| comment.contains(d)) {
            assert!(converted.contains(comment), "lost comment: {comment}");
        }
    }
    // The VirtualNetwork, at a version every target serves, is byte for byte the same.
    let vnet = source.split("---\n").nth(2).unwrap();
    assert!(converted.ends_with(vnet));
    let (code, after) = validate_errors(&converted, "v1.27");
    assert_eq!((code, after), (0, Vec::<String>::new()));
    // Converting again changes nothing.
    let (code, again, stderr) = run(&["convert", "--aso", "-"], Some(&converted));
    assert_eq!((code, again.as_str(), stderr.as_str()), (0, converted.as_str(), ""));
}

#[test]
fn nothing_moves_under_the_target_that_serves_the_versions() {
    let source = std::fs::read_to_string(PREVIEW).unwrap();
    let (code, out, stderr) = run(&["convert", "--aso", "--capz-version", "v1.26", PREVIEW], None);
    assert_eq!((code, out.as_str(), stderr.as_str()), (0, source.as_str(), ""));
    let (code, out, _) = run(&["convert", "--aso", "--check", "--capz-version", "v1.26", PREVIEW], None);
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn check_lists_and_write_rewrites_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.yaml");
    std::fs::copy(PREVIEW, &path).unwrap();
    let path = path.to_str().unwrap();
    let (code, out, _) = run(&["convert", "--aso", "--check", dir.path().to_str().unwrap()], None);
    assert_eq!((code, out.trim()), (1, path));
    assert_eq!(std::fs::read_to_string(path).unwrap(), std::fs::read_to_string(PREVIEW).unwrap());
    let (expected, _, _) = (run(&["convert", "--aso", PREVIEW], None).1, 0, 0);
    let (code, out, stderr) = run(&["convert", "--aso", "-w", path], None);
    assert_eq!((code, out.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains(&format!("converted {path}")), "{stderr}");
    assert_eq!(std::fs::read_to_string(path).unwrap(), expected);
    let (code, out, _) = run(&["convert", "--aso", "--check", path], None);
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn aso_version_moves_a_groups_served_versions_too() {
    let source = std::fs::read_to_string(PREVIEW).unwrap();
    let (code, out, stderr) =
        run(&["convert", "--aso", "--aso-version", "network.azure.com/v1api20240301", PREVIEW], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("apiVersion: network.azure.com/v1api20240301\nkind: VirtualNetwork"), "{out}");
    assert!(out.contains("containerservice.azure.com/v20251002preview"), "{out}");
    assert!(
        stderr.contains("VirtualNetwork/preview-vnet: network.azure.com/v1api20201101 -> network.azure.com/v1api20240301 (as --aso-version asks)"),
        "{stderr}"
    );
    // Asked for the stable version, the previews move there instead, losing what only previews have.
    let (code, out, stderr) =
        run(&["convert", "--aso", "--aso-version", "containerservice.azure.com/v1api20250801", PREVIEW], None);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(out.matches("containerservice.azure.com/v1api20250801").count(), 2, "{out}");
    assert!(stderr.contains("spec.resources[0].spec.safeguardsProfile: dropped"), "{stderr}");
    assert_ne!(out, source);
}

#[test]
fn cluster_class_templates_and_patches_move_too() {
    let class = "\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlaneTemplate
metadata:
  name: aks
spec:
  template:
    spec:
      resources:
      - apiVersion: containerservice.azure.com/v1api20240402preview
        kind: ManagedCluster
        metadata:
          name: ignored
        spec:
          location: westeurope
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata:
  name: aks
spec:
  patches:
  - name: pool
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureASOManagedMachinePoolTemplate
        matchResources:
          machinePoolClass:
            names: [default]
      jsonPatches:
      - op: add
        path: /spec/template/spec/resources/-
        value:
          apiVersion: containerservice.azure.com/v1api20240402preview
          kind: ManagedClustersAgentPool
          metadata:
            name: extra
          spec:
            mode: User
            enableCustomCATrust: true
";
    let (code, out, stderr) = run(&["convert", "--aso", "-"], Some(class));
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("convert_aso_class_diff", changed_lines(class, &out));
    assert!(
        stderr.contains(
            "<stdin>:40: warning: ClusterClass/aks: spec.patches[0].definitions[0].jsonPatches[0].value.spec.enableCustomCATrust: dropped"
        ),
        "{stderr}"
    );
}

#[test]
fn usage_errors_exit_2() {
    for (args, message) in [
        (
            &["convert", "--aso", "--aso-version", "v1api20250801", PREVIEW][..],
            "expected GROUP/VERSION of an ASO group",
        ),
        (
            &["convert", "--aso", "--aso-version", "containerservice.azure.com/v1api20231001", PREVIEW][..],
            "serves no kind of containerservice.azure.com in v1api20231001",
        ),
        (
            &[
                "convert",
                "--aso",
                "--aso-version",
                "network.azure.com/v1api20240301",
                "--aso-version",
                "network.azure.com/v20250301",
                PREVIEW,
            ][..],
            "names two versions of network.azure.com",
        ),
        (&["convert", "--aso", "--to-version", "v1beta1", PREVIEW][..], "cannot be used with"),
        (&["convert", "--aso-version", "network.azure.com/v1api20240301", PREVIEW][..], "--aso"),
    ] {
        let (code, out, stderr) = run(args, None);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn a_value_asos_conversion_fails_on_is_refused_with_its_field() {
    // ASO v2.18.0's conversion webhook fails on it (tests/fixtures/aso-conversion): autoscale is a list in
    // v1api20240402preview and an object in v20251002preview.
    let pool = "\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata:
  name: pool
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240402preview
    kind: ManagedClustersAgentPool
    metadata:
      name: pool
    spec:
      virtualMachinesProfile:
        scale:
          autoscale:
          - minCount: 1
            maxCount: 3
";
    let (code, out, stderr) = run(&["convert", "--aso", "-"], Some(pool));
    assert_eq!(code, 2, "{out}{stderr}");
    assert!(
        stderr.contains("<stdin>:14: error: AzureASOManagedMachinePool/pool: spec.resources[0].spec.virtualMachinesProfile.scale.autoscale:"),
        "{stderr}"
    );
    assert!(stderr.contains("holds object here"), "{stderr}");
    // Without the value, the same pool converts.
    let without = pool.lines().take(11).collect::<Vec<_>>().join("\n") + "\n      mode: User\n";
    let (code, _, stderr) = run(&["convert", "--aso", "-"], Some(&without));
    assert_eq!(code, 0, "{stderr}");
}
