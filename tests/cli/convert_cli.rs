//! `kubectl capz convert` end to end: a commented file changes only in the converted lines,
//! converting twice changes nothing, `--check` and `-w` (atomic, permissions kept), a directory
//! with a template and a Kustomize patch, warnings with file:line and field, input errors; CAPZ's
//! own aks-aso templates (tests/fixtures/capz, copied from CAPZ v1.26.0 `templates/`) and our
//! rendered flavors convert and validate clean at v1beta2.

use crate::support::cli_runner;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use cli_runner::{capz, values};
use serde_json::Value;
use similar::TextDiff;

const COMMENTED: &str = "tests/fixtures/convert/commented.yaml";

/// Runs `convert ARGS`; returns (exit code, stdout, stderr).
fn convert(args: &[&str]) -> (i32, String, String) {
    let output = capz(&[]).arg("convert").args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The lines that differ, as a unified diff without line numbers of context.
fn changed_lines(before: &str, after: &str) -> String {
    TextDiff::from_lines(before, after).unified_diff().context_radius(0).to_string()
}

#[test]
fn a_commented_file_changes_only_in_the_converted_lines() {
    let source = std::fs::read_to_string(COMMENTED).unwrap();
    let (code, converted, stderr) = convert(&[COMMENTED]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
    insta::assert_snapshot!(changed_lines(&source, &converted));
    // Every comment of the source is still there.
    for line in source.lines().filter(|l| l.contains('#')) {
        let comment = &line[line.find('#').unwrap()..];
        assert!(converted.contains(comment), "lost comment: {comment}");
    }
    // The unknown ConfigMap is byte for byte the same, text block included.
    let config_map = source.split("---\n").nth(1).unwrap();
    assert!(converted.contains(config_map));
}

#[test]
fn converting_a_converted_file_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.yaml");
    std::fs::copy(COMMENTED, &path).unwrap();
    let path = path.to_str().unwrap();
    let (code, once, _) = convert(&[path]);
    assert_eq!(code, 0);
    std::fs::write(path, &once).unwrap();
    let (code, twice, stderr) = convert(&[path]);
    assert_eq!(code, 0);
    assert_eq!(twice, once);
    assert_eq!(convert(&[path, "--check"]), (0, String::new(), stderr));
}

#[test]
fn check_lists_the_files_that_would_change_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(COMMENTED, dir.path().join("old.yaml")).unwrap();
    let (_, converted, _) = convert(&[COMMENTED]);
    std::fs::write(dir.path().join("new.yaml"), &converted).unwrap();
    let before = cli_runner::snapshot_tree(dir.path());
    let root = dir.path().to_str().unwrap();
    let (code, stdout, _) = convert(&[root, "--check"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, format!("{root}/old.yaml\n"));
    assert_eq!(cli_runner::snapshot_tree(dir.path()), before, "--check wrote something");
    let (code, _, stderr) = convert(&[root, "-w"]);
    assert_eq!(code, 0);
    assert_eq!(stderr.trim(), format!("converted {root}/old.yaml"));
    assert_eq!(convert(&[root, "--check"]).0, 0);
    assert_eq!(std::fs::read_to_string(dir.path().join("old.yaml")).unwrap(), converted);
}

#[test]
fn write_replaces_the_file_atomically_and_keeps_its_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.yaml");
    std::fs::copy(COMMENTED, &path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    // A second name for the old file: an in-place rewrite would change it too, a rename does not.
    std::fs::hard_link(&path, dir.path().join("old-inode")).unwrap();
    let inode = std::fs::metadata(&path).unwrap().ino();
    let (code, _, stderr) = convert(&[path.to_str().unwrap(), "--write"]);
    assert_eq!(code, 0, "{stderr}");
    let metadata = std::fs::metadata(&path).unwrap();
    assert_ne!(metadata.ino(), inode, "not replaced by a rename");
    assert_eq!(metadata.permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read(dir.path().join("old-inode")).unwrap(), std::fs::read(COMMENTED).unwrap());
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names.len(), 2, "temporary files left behind: {names:?}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("cluster.x-k8s.io/v1beta2"));
}

#[test]
fn write_through_a_symlink_converts_its_target_inside_the_directory_and_refuses_one_outside() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("shared")).unwrap();
    std::fs::copy(COMMENTED, repo.join("shared/cluster.yaml")).unwrap();
    std::os::unix::fs::symlink("shared/cluster.yaml", repo.join("a-link.yaml")).unwrap();
    // The directory: the link (walked first) converts the file it leads to, and stays a link.
    let (code, _, stderr) = convert(&[repo.to_str().unwrap(), "--write"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::symlink_metadata(repo.join("a-link.yaml")).unwrap().file_type().is_symlink());
    let converted = std::fs::read_to_string(repo.join("shared/cluster.yaml")).unwrap();
    assert!(converted.contains("cluster.x-k8s.io/v1beta2"), "{converted}");
    assert!(stderr.contains("a-link.yaml (the file it links to, "), "{stderr}");
    assert_eq!(stderr.matches("converted ").count(), 1, "written once: {stderr}");
    // A named link whose target is outside the link's directory: refused, nothing written, the link kept.
    let outside = dir.path().join("outside.yaml");
    std::fs::copy(COMMENTED, &outside).unwrap();
    let clean = repo.join("clean.yaml");
    std::fs::copy(COMMENTED, &clean).unwrap();
    let link = repo.join("out-link.yaml");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let (code, _, stderr) = convert(&[clean.to_str().unwrap(), link.to_str().unwrap(), "--write"]);
    assert_eq!(code, 2, "{stderr}");
    let canonical_outside = std::fs::canonicalize(&outside).unwrap();
    assert!(
        stderr.contains(&format!(
            "out-link.yaml is a symlink to {}, outside {}: --write does not write through it (nothing was written)",
            canonical_outside.display(),
            std::fs::canonicalize(&repo).unwrap().display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&outside).unwrap(), std::fs::read(COMMENTED).unwrap());
    assert_eq!(std::fs::read(&clean).unwrap(), std::fs::read(COMMENTED).unwrap(), "nothing written");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
}

const PATCH: &str = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata:\n  name: md-0\nspec:\n  minReadySeconds: 30\n";
const KUSTOMIZATION: &str = "resources:\n- cluster.yaml\npatches:\n- path: patch.yaml\n";
const HELM: &str = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: {{ .Values.name }}\n{{- if .Values.paused }}\nspec:\n  paused: true\n{{- end }}\n";
const PARTIAL: &str =
    "# a strategic merge patch without apiVersion\nkind: Cluster\nmetadata:\n  name: prod-a\nspec:\n  paused: true\n";

#[test]
fn a_directory_converts_its_objects_and_reports_templates_and_kustomize_patches() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(COMMENTED, root.join("cluster.yaml")).unwrap();
    std::fs::write(root.join("kustomization.yaml"), KUSTOMIZATION).unwrap();
    std::fs::write(root.join("patch.yaml"), PATCH).unwrap();
    std::fs::write(root.join("helm.yaml"), HELM).unwrap();
    std::fs::write(root.join("partial.yaml"), PARTIAL).unwrap();
    std::fs::write(root.join("README.md"), "not a manifest\n").unwrap();
    std::fs::write(root.join("binary.yaml"), b"kind: \xff\n").unwrap();
    let before = cli_runner::snapshot_tree(root);
    let (code, stdout, stderr) = convert(&[root.to_str().unwrap(), "-w"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "");
    let after = cli_runner::snapshot_tree(root);
    for unchanged in ["kustomization.yaml", "patch.yaml", "helm.yaml", "partial.yaml", "README.md", "binary.yaml"] {
        assert_eq!(after[Path::new(unchanged)], before[Path::new(unchanged)], "{unchanged} changed");
    }
    assert_ne!(after[Path::new("cluster.yaml")], before[Path::new("cluster.yaml")]);
    insta::with_settings!({filters => vec![(regex_escape(root.to_str().unwrap()).as_str(), "[DIR]")]}, {
        insta::assert_snapshot!(stderr);
    });
}

fn regex_escape(text: &str) -> String {
    text.chars().map(|c| if c.is_alphanumeric() || c == '/' { c.to_string() } else { format!("\\{c}") }).collect()
}

const DROPPED: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: md-0
  namespace: team-a
spec:
  clusterName: prod-a
  revisionHistoryLimit: 5
  progressDeadlineSeconds: 600
  template:
    spec:
      clusterName: prod-a
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfigTemplate
          name: md-0
          namespace: other-team
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureASOManagedMachinePool
        name: md-0
";

#[test]
fn dropped_fields_are_warned_about_with_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("md.yaml");
    std::fs::write(&path, DROPPED).unwrap();
    let (code, stdout, stderr) = convert(&[path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("apiGroup: bootstrap.cluster.x-k8s.io"), "{stdout}");
    insta::with_settings!({filters => vec![(regex_escape(dir.path().to_str().unwrap()).as_str(), "[DIR]")]}, {
        insta::assert_snapshot!(stderr);
    });
}

#[test]
fn stdin_streams_and_input_errors_exit_2() {
    let source = std::fs::read_to_string(COMMENTED).unwrap();
    let output = capz(&[]).args(["convert", "-"]).write_stdin(source).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), convert(&[COMMENTED]).1);

    let (code, stdout, stderr) = convert(&["-", "-w"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("--write cannot rewrite stdin"), "{stderr}");
    let (code, _, stderr) = convert(&["no-such-dir/"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-dir"), "{stderr}");
    let (code, _, _) = convert(&[COMMENTED, "--to-version", "v1alpha3"]);
    assert_eq!(code, 2);

    // An object CAPI refuses to convert: reported with its line, its file left alone, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    let text = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: c\nspec:\n  infrastructureRef:\n    apiVersion: a/b/c\n    kind: X\n    name: c\n";
    std::fs::write(&bad, text).unwrap();
    let (code, _, stderr) = convert(&[bad.to_str().unwrap(), "-w"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.yaml:7: error: Cluster/c: spec.infrastructureRef.apiVersion"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), text);
    // A file named on the command line that is not YAML is an input error too.
    let helm = dir.path().join("helm.yaml");
    std::fs::write(&helm, HELM).unwrap();
    assert_eq!(convert(&[helm.to_str().unwrap()]).0, 2);
}

/// Validates `yaml` with every rule (CAPI v1beta1 findings included): exit 0 and no deprecated
/// API version. (The classic `aks` flavors' AzureManaged* kinds stay deprecated as kinds: that is
/// `migrate`'s business, reported by `capz-deprecated-api` with `/kind`.)
fn assert_validates_clean(yaml: &str, what: &str) {
    let output = capz(&[]).args(["validate", "-", "--enable", "capi-v1beta1"]).write_stdin(yaml).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{what}:\n{stdout}\n{stderr}");
    let text = format!("{stdout}{stderr}");
    for line in text.lines() {
        let about_versions = line.contains("[deprecated-api]") || line.contains("[capi-v1beta1]");
        let aso_version = line.contains("[capz-deprecated-api]") && !line.contains("is deprecated; migrate to");
        assert!(!about_versions && !aso_version, "{what}: {line}");
    }
}

/// The variables CAPZ's docs export, and the class the clusterclass and topology templates name.
fn clusterctl_env() -> Vec<(&'static str, &'static str)> {
    [("CLUSTER_CLASS_NAME", "aks-aso")].into_iter().chain(cli_runner::CAPZ_DOCS_ENV.iter().copied()).collect()
}

fn stdout_of(env: &[(&str, &str)], args: &[&str], stdin: Option<&str>) -> String {
    let mut cmd = capz(env);
    cmd.args(args);
    if let Some(stdin) = stdin {
        cmd.write_stdin(stdin);
    }
    let output = cmd.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// `convert -` of `yaml`: exit 0 and nothing on stderr (no warning, no document written fresh).
fn convert_stdin(yaml: &str) -> String {
    let output = capz(&[]).args(["convert", "-"]).write_stdin(yaml.to_string()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!((output.status.code(), stderr.as_ref()), (Some(0), ""));
    String::from_utf8(output.stdout).unwrap()
}

fn no_capi_v1beta1(objects: &[Value], what: &str) {
    for object in objects {
        let api_version = object["apiVersion"].as_str().unwrap();
        let capi = ["cluster.x-k8s.io/", "bootstrap.cluster.x-k8s.io/", "controlplane.cluster.x-k8s.io/"];
        assert!(!(capi.iter().any(|g| api_version.starts_with(g)) && api_version.ends_with("/v1beta1")), "{what}");
    }
}

#[test]
fn capz_aks_aso_templates_convert_and_validate_clean() {
    for flavor in ["", "-clusterclass", "-topology", "-maintenance"] {
        let template = format!("tests/fixtures/capz/cluster-template-aks-aso{flavor}.yaml");
        let rendered = stdout_of(&clusterctl_env(), &["render", "--from", &template, "demo"], None);
        let converted = convert_stdin(&rendered);
        assert_ne!(converted, rendered, "{template}: nothing converted");
        no_capi_v1beta1(&values(&converted), &template);
        assert_validates_clean(&converted, &template);
        // And in place, the template itself (with its ${VARIABLES}) converts, once.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("template.yaml");
        std::fs::copy(&template, &copy).unwrap();
        let copy = copy.to_str().unwrap();
        assert_eq!(convert(&[copy, "-w"]).0, 0);
        assert_eq!(convert(&[copy, "--check"]).0, 0, "{template}: a second conversion changes it");
    }
}

const FLAVOR_ENV: &[(&str, &str)] = &[
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "westeurope"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000003"),
    ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
];

/// Our renderer writes `format: cloud-config` into an otherwise empty v1beta2
/// KubeadmConfigTemplate; CAPI's conversion of the v1beta1 one (`spec.template.spec: {}`) drops
/// the empty spec. That is the one place the two may differ.
fn without_empty_kubeadm_template_spec(mut objects: Vec<Value>) -> Vec<Value> {
    for object in &mut objects {
        let format_only = object
            .pointer("/spec/template/spec")
            .and_then(Value::as_object)
            .is_some_and(|spec| spec.len() == 1 && spec.get("format") == Some(&Value::String("cloud-config".into())));
        if object["kind"] == "KubeadmConfigTemplate" && format_only {
            object.as_object_mut().unwrap().remove("spec");
        }
    }
    objects
}

#[test]
fn rendered_flavors_convert_to_what_render_writes_for_v1beta2_and_validate_clean() {
    let flavors: &[&[&str]] = &[
        &["aks-aso", "demo"],
        &["aks", "demo"],
        &["aks-aso-clusterclass"],
        &["aks-clusterclass"],
        &["aks-topology", "demo", "--with-class"],
        &[
            "aks-aso-topology",
            "demo",
            "--with-class",
            "--values",
            "tests/fixtures/clusterclass/aks-aso-topology.values.yaml",
        ],
    ];
    for flavor in flavors {
        let what = flavor.join(" ");
        let v1beta1 = stdout_of(FLAVOR_ENV, &[&["render"], *flavor].concat(), None);
        let v1beta2 = stdout_of(FLAVOR_ENV, &[&["render"], *flavor, &["--capi-api", "v1beta2"]].concat(), None);
        let converted = convert_stdin(&v1beta1);
        assert_eq!(
            without_empty_kubeadm_template_spec(values(&converted)),
            without_empty_kubeadm_template_spec(values(&v1beta2)),
            "{what}"
        );
        assert_validates_clean(&converted, &what);
        // The v1beta2 rendering has nothing left to convert.
        let output = capz(&[]).args(["convert", "-", "--check"]).write_stdin(v1beta2.clone()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{what}");
    }
}

const LAYOUTS: &str = "tests/fixtures/convert/layouts.yaml";

#[test]
fn flow_maps_blank_lines_document_markers_and_crlf_keep_their_layout() {
    let source = std::fs::read_to_string(LAYOUTS).unwrap();
    let (code, converted, stderr) = convert(&[LAYOUTS]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!(changed_lines(&source, &converted));
    // The same file with CRLF line ends converts to the same lines with CRLF line ends.
    let dir = tempfile::tempdir().unwrap();
    let crlf = dir.path().join("crlf.yaml");
    std::fs::write(&crlf, source.replace('\n', "\r\n")).unwrap();
    let (code, converted_crlf, stderr) = convert(&[crlf.to_str().unwrap()]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(converted_crlf, converted.replace('\n', "\r\n"));
}

const CLASS: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata:
  name: cc
  namespace: team-a
spec:
  controlPlane:
    ref:
      apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
      kind: AzureASOManagedControlPlaneTemplate
      name: cc
  infrastructure:
    ref:
      apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
      kind: AzureASOManagedClusterTemplate
      name: cc
  workers:
    machinePools:
    - class: converted
      template:
        bootstrap:
          ref:
            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
            kind: KubeadmConfigTemplate
            name: in-this-run
        infrastructure:
          ref:
            apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
            kind: AzureASOManagedMachinePoolTemplate
            name: pool
    - class: elsewhere
      template:
        bootstrap:
          ref:
            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
            kind: KubeadmConfigTemplate
            name: not-in-this-run
        infrastructure:
          ref:
            apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
            kind: AzureASOManagedMachinePoolTemplate
            name: pool
";

const TEMPLATE: &str = "apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata:
  name: in-this-run
  namespace: team-a
spec:
  template:
    spec:
      format: cloud-config
";

#[test]
fn class_references_follow_the_templates_converted_in_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("class.yaml"), CLASS).unwrap();
    std::fs::write(dir.path().join("template.yaml"), TEMPLATE).unwrap();
    let (code, _, stderr) = convert(&[dir.path().to_str().unwrap(), "-w"]);
    assert_eq!(code, 0, "{stderr}");
    let class = values(&std::fs::read_to_string(dir.path().join("class.yaml")).unwrap()).remove(0);
    let pools = &class["spec"]["workers"]["machinePools"];
    // Converted in this run: followed to v1beta2. Not in this run: left as written (CAPI reports
    // RefVersionsUpToDate=False until it is converted too).
    assert_eq!(pools[0]["bootstrap"]["templateRef"]["apiVersion"], "bootstrap.cluster.x-k8s.io/v1beta2");
    assert_eq!(pools[1]["bootstrap"]["templateRef"]["apiVersion"], "bootstrap.cluster.x-k8s.io/v1beta1");
    // AzureASOManaged* references always move to v1beta1 (CAPZ's migration instructions).
    for pointer in ["/spec/controlPlane/templateRef", "/spec/infrastructure/templateRef"] {
        assert_eq!(class.pointer(pointer).unwrap()["apiVersion"], "infrastructure.cluster.x-k8s.io/v1beta1");
    }
    assert_eq!(pools[1]["infrastructure"]["templateRef"]["apiVersion"], "infrastructure.cluster.x-k8s.io/v1beta1");

    // With --to-version v1beta1 only the AzureASOManaged* references move; CAPI stays at v1beta1.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("class.yaml"), CLASS).unwrap();
    let (code, stdout, _) = convert(&[dir.path().join("class.yaml").to_str().unwrap(), "--to-version", "v1beta1"]);
    assert_eq!(code, 0);
    let class = values(&stdout).remove(0);
    assert_eq!(class["apiVersion"], "cluster.x-k8s.io/v1beta1");
    assert_eq!(class["spec"]["controlPlane"]["ref"]["apiVersion"], "infrastructure.cluster.x-k8s.io/v1beta1");
    assert_eq!(
        class["spec"]["workers"]["machinePools"][0]["template"]["bootstrap"]["ref"]["apiVersion"],
        "bootstrap.cluster.x-k8s.io/v1beta1"
    );
}

/// Objects in API versions CAPI v1.14 (and CAPZ v1.26) no longer serve: each is our own example
/// of the old versions and groups that only `clusterctl upgrade` converts.
const NOT_SERVED: &[(&str, &str)] = &[
    (
        "cluster-v1alpha4.yaml",
        "apiVersion: cluster.x-k8s.io/v1alpha4\nkind: Cluster\nmetadata:\n  name: old\nspec:\n  paused: true\n",
    ),
    (
        "kcp-v1alpha3.yaml",
        "apiVersion: controlplane.cluster.x-k8s.io/v1alpha3\nkind: KubeadmControlPlane\nmetadata:\n  name: old\nspec:\n  replicas: 3\n",
    ),
    (
        "pool-exp.yaml",
        "apiVersion: exp.cluster.x-k8s.io/v1alpha3\nkind: MachinePool\nmetadata:\n  name: pool0\nspec:\n  clusterName: old\n",
    ),
    (
        "amcp-exp.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: served\n---\napiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha3\nkind: AzureManagedControlPlane\nmetadata:\n  name: old\nspec:\n  version: v1.18.8\n",
    ),
];

#[test]
fn check_says_objects_in_versions_no_longer_served_cannot_be_converted_alone_or_in_a_directory() {
    for (name, text) in NOT_SERVED {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let file = path.to_str().unwrap();
        for target in [file, dir.path().to_str().unwrap()] {
            let (code, stdout, stderr) = convert(&[target, "--check"]);
            assert_eq!(code, 1, "{name} via {target}: {stderr}");
            assert_eq!(stdout, format!("{file}\n"), "{name}");
            assert!(stderr.contains("not converted:") && stderr.contains("is not served by"), "{stderr}");
            assert!(stderr.contains("clusterctl upgrade"), "{stderr}");
        }
        // Without --check: the same message, the file left alone, exit 1 (a finding, not an input error).
        let (code, _, stderr) = convert(&[file, "-w"]);
        assert_eq!(code, 1, "{stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), *text);
    }
}

#[test]
fn check_treats_a_template_the_same_alone_and_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let helm = dir.path().join("helm.yaml");
    std::fs::write(&helm, HELM).unwrap();
    let file = helm.to_str().unwrap();
    let alone = convert(&[file, "--check"]);
    let in_dir = convert(&[dir.path().to_str().unwrap(), "--check"]);
    assert_eq!(alone.0, 1, "{}", alone.2);
    assert_eq!(alone, in_dir);
    assert_eq!(alone.1, format!("{file}\n"));
    assert!(alone.2.contains("not YAML (a template?)"), "{}", alone.2);
}

/// Maps that v1beta2 turns into `{name, value}` lists, each entry with comments above it and
/// after it: every comment survives the conversion, on the item its entry became.
const COMMENTED_ARGS: &str = "apiVersion: controlplane.cluster.x-k8s.io/v1beta1
kind: KubeadmControlPlane
metadata:
  name: cp
  namespace: team-a
spec:
  replicas: 3
  version: v1.33.2
  machineTemplate:
    infrastructureRef:
      apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
      kind: AzureMachineTemplate
      name: cp
  kubeadmConfigSpec:
    clusterConfiguration:
      apiServer:
        extraArgs: # API server flags
          # CAPZ's external cloud provider
          cloud-provider: external # why: the in-tree provider is gone
          audit-log-maxage: \"30\" # days
      controllerManager:
        extraArgs:
          allocate-node-cidrs: \"false\" # Azure CNI assigns pod IPs
    initConfiguration:
      nodeRegistration:
        kubeletExtraArgs:
          # the node's provider
          cloud-provider: external # no comment lost
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata:
  name: md
  namespace: team-a
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs: {cloud-provider: external} # a flow map
";

#[test]
fn trailing_comments_of_map_entries_stay_on_the_list_items_they_became() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeadm.yaml");
    std::fs::write(&path, COMMENTED_ARGS).unwrap();
    let (code, converted, stderr) = convert(&[path.to_str().unwrap()]);
    assert_eq!((code, stderr.as_str()), (0, ""), "no document written fresh");
    for line in COMMENTED_ARGS.lines().filter(|l| l.contains('#')) {
        let comment = &line[line.find('#').unwrap()..];
        assert!(converted.contains(comment), "lost comment: {comment}\n{converted}");
    }
    assert!(converted.contains("value: external # why: the in-tree provider is gone\n"), "{converted}");
    assert!(converted.contains("value: \"false\" # Azure CNI assigns pod IPs\n"), "{converted}");
    assert!(converted.contains("# the node's provider\n"), "{converted}");
    let objects = values(&converted);
    assert_eq!(objects[0]["apiVersion"], "controlplane.cluster.x-k8s.io/v1beta2");
    assert_eq!(
        objects[0].pointer("/spec/kubeadmConfigSpec/clusterConfiguration/apiServer/extraArgs/1/name").unwrap(),
        "cloud-provider"
    );
}
