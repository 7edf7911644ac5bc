//! `kubectl capz plan` end to end: output snapshots, v1beta2 shapes and its errors
//! (unknown variable, patch path that does not exist, failing template) with exit code 2.

use crate::support::cli_runner::capz_command;
use std::path::Path;

const CUSTOM: &str = "tests/fixtures/topology/custom";

fn plan(args: &[&str]) -> std::process::Output {
    capz_command().arg("plan").args(args).output().unwrap()
}

/// Writes the custom class and cluster into a temp dir with one textual replacement applied.
fn variant(file: &str, from: &str, to: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["class.yaml", "cluster.yaml"] {
        let mut text = std::fs::read_to_string(Path::new(CUSTOM).join(name)).unwrap();
        if name == file {
            assert!(text.contains(from), "{from:?} not in {name}");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn custom_class_plan_snapshot() {
    let out = plan(&["--no-validate", "-f", CUSTOM]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!("custom_class_plan", String::from_utf8(out.stdout).unwrap());
}

#[test]
fn output_is_deterministic() {
    let a = plan(&["--no-validate", "-f", CUSTOM]);
    let b = plan(&["--no-validate", "-f", &format!("{CUSTOM}/cluster.yaml"), "-f", &format!("{CUSTOM}/class.yaml")]);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn unknown_variable_is_an_input_error() {
    let dir = variant("cluster.yaml", "- name: privateCluster", "- name: privateClustr");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("Cluster fleet/team-a: invalid variables"), "{err}");
    assert!(err.contains("spec.topology.variables[1].name: Invalid value: \"privateClustr\": variable is not defined in ClusterClass fleet/aks-aso-vars"), "{err}");
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
}

#[test]
fn invalid_variable_value_names_the_field() {
    let dir =
        variant("cluster.yaml", "podCidrs: [192.168.0.0/16]", "podCidrs: [192.168.0.0/16]\n        plugin: calico");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("spec.topology.variables[2].value.plugin: Invalid value: \"calico\": supported values: \"azure\", \"kubenet\", \"none\""), "{}", stderr(&out));
}

#[test]
fn missing_required_variable() {
    let dir = variant("cluster.yaml", "    - name: location\n      value: westeurope\n", "");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Required value: required variable \"location\" must be set"), "{}", stderr(&out));
}

#[test]
fn patch_path_that_does_not_exist() {
    let dir = variant(
        "class.yaml",
        "path: /spec/template/spec/resources/0/spec/networkProfile/networkPlugin",
        "path: /spec/template/spec/resources/0/spec/network/networkPlugin",
    );
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("ClusterClass fleet/aks-aso-vars: spec.patches[1] (\"managed-cluster\") definitions[0].jsonPatches[5]: AzureASOManagedControlPlaneTemplate/aks-aso-vars-control-plane (control plane): add operation does not apply: doc is missing path: /spec/template/spec/resources/0/spec/network"),
        "{err}"
    );
}

#[test]
fn template_that_fails() {
    let dir = variant("class.yaml", "vmSize: {{ .nodeSku }}", "vmSize: {{ .nodeSku | upper 3 }}");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("spec.patches[5] (\"agent-pools\") definitions[0].jsonPatches[0]: failed to calculate value for template: template: tpl:"), "{err}");
    assert!(err.contains("wrong number of args for upper: want 1 got 2"), "{err}");
}

#[test]
fn template_with_unknown_function_fails_at_parse() {
    let dir = variant("class.yaml", "enabledIf: '{{ .privateCluster }}'", "enabledIf: '{{ isTrue .privateCluster }}'");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "spec.patches[3].enabledIf (patch \"private-cluster\"): Invalid value: \"{{ isTrue .privateCluster }}\": template can not be parsed: template: enabledIf:1: function \"isTrue\" not defined"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unknown_variable_in_value_from() {
    let dir = variant("class.yaml", "variable: network.podCidrs", "variable: network.podCIDRs");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("spec.patches[2] (\"pod-cidrs\") definitions[0].jsonPatches[0]: failed to calculate value: variable \"network.podCIDRs\" does not exist: failed to lookup segment \"podCIDRs\""), "{}", stderr(&out));
}

#[test]
fn missing_class_and_template() {
    let out = plan(&["-f", &format!("{CUSTOM}/cluster.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Cluster fleet/team-a: ClusterClass fleet/aks-aso-vars not found among the inputs"),
        "{}",
        stderr(&out)
    );
    let dir = variant(
        "class.yaml",
        "name: aks-aso-vars-pool\n  namespace: fleet\nspec:\n  template:\n    spec: {}\n---\napiVersion: bootstrap",
        "name: renamed\n  namespace: fleet\nspec:\n  template:\n    spec: {}\n---\napiVersion: bootstrap",
    );
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("spec.workers.machinePools.0.template.infrastructure.ref: AzureASOManagedMachinePoolTemplate fleet/aks-aso-vars-pool not found"), "{}", stderr(&out));
}

#[test]
fn no_topology_cluster() {
    let out = plan(&["-f", &format!("{CUSTOM}/class.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no Cluster with spec.topology"), "{}", stderr(&out));
}

#[test]
fn v1beta2_class_and_cluster_plan_snapshot() {
    let out = plan(&["--no-validate", "-f", "tests/fixtures/topology/v1beta2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    // v1beta2 references carry apiGroup, not apiVersion; the class naming templates apply.
    assert!(text.contains("  infrastructureRef:\n    apiGroup: infrastructure.cluster.x-k8s.io\n    kind: AzureCluster\n    name: kcp-infra\n"));
    assert!(text.contains("kind: MachinePool\nmetadata:\n  name: kcp-pool-a\n"));
    insta::assert_snapshot!("v1beta2_plan", text);
}

#[test]
fn from_cluster_with_unreachable_server_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\ncurrent-context: ctx\n",
    )
    .unwrap();
    let out = plan(&[
        "--from-cluster",
        "--request-timeout",
        "5s",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-f",
        &format!("{CUSTOM}/cluster.yaml"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(
            "cluster.yaml:1: cannot plan Cluster team-a (ClusterClass fleet/aks-aso-vars) against the cluster"
        ),
        "{err}"
    );
    assert!(err.contains("cannot find the API of cluster.x-k8s.io/v1beta1 ClusterClass on the server"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn machine_deployment_classes_plan_snapshot() {
    let out = plan(&["--no-validate", "-f", "tests/fixtures/topology/machinedeployments"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    // machineDeploymentClass selects only the gpu class; the control plane patch saw replicas 3.
    assert_eq!(text.matches("vmSize: Standard_NC6s_v3").count(), 1);
    assert_eq!(text.matches("vmSize: Standard_D4s_v5").count(), 1);
    insta::assert_snapshot!("machine_deployments_plan", text);
}

#[test]
fn planned_objects_are_validated() {
    // Valid plan: only warnings (KubeadmConfig, CAPI's kubeadm bootstrap kind, is checked too).
    let out = plan(&["-f", CUSTOM]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("9 objects: 9 valid, 0 invalid, 0 skipped (0 errors"), "{}", stderr(&out));
    // Another bootstrap provider's kind has no schema: skipped, and with --require-schemas an error, as in
    // `validate`.
    let dir = tempfile::tempdir().unwrap();
    for name in ["class.yaml", "cluster.yaml"] {
        let text = std::fs::read_to_string(Path::new(CUSTOM).join(name)).unwrap();
        std::fs::write(dir.path().join(name), text.replace("KubeadmConfigTemplate", "RKE2ConfigTemplate")).unwrap();
    }
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("9 objects: 7 valid, 0 invalid, 2 skipped (0 errors"), "{}", stderr(&out));
    let out = plan(&["--require-schemas", "-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "no schema for RKE2Config bootstrap.cluster.x-k8s.io/v1beta1: not a kind of CAPI v1.14.0 (pinned by CAPZ \
             v1.27); another provider's kind in a shared Cluster API group, whose CRD is not bundled"
        ),
        "{}",
        stderr(&out)
    );
    // A patch that produces an invalid embedded ASO object: the plan is printed, the finding
    // names the object and field, exit 1.
    let dir = variant("class.yaml", "System{{ else }}", "Sytem{{ else }}");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("error: AzureASOManagedMachinePool/team-a-system-"), "{err}");
    assert!(err.contains("/spec/resources/0/spec/mode"), "{err}");
}

#[test]
fn duplicate_pool_names_are_rejected() {
    let dir = variant("cluster.yaml", "name: user-big", "name: system");
    let out = plan(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Cluster fleet/team-a is rejected by CAPI's webhook:\n  ")
        && stderr(&out).contains("cluster.yaml:32: spec.topology.workers.machinePools[1].name: Invalid value: \"system\": name must be unique. MachinePool with name \"system\" is defined more than once"), "{}", stderr(&out));
}

#[test]
fn several_topology_clusters_share_a_class() {
    let dir = variant("cluster.yaml", "name: team-a\n", "name: team-a\n");
    let second = std::fs::read_to_string(Path::new(CUSTOM).join("cluster.yaml"))
        .unwrap()
        .replace("name: team-a\n", "name: team-b\n");
    std::fs::write(dir.path().join("cluster-b.yaml"), second).unwrap();
    let out = plan(&["--no-validate", "-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let docs = capz::manifest::parse_documents(&text, "<out>").unwrap();
    assert_eq!(docs.len(), 18);
    let mut names: Vec<String> = docs.iter().map(|d| d.display_name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 18, "names must not collide");
    assert_eq!(
        docs.iter()
            .filter(|d| d.value.pointer("/metadata/labels/cluster.x-k8s.io~1cluster-name") == Some(&"team-b".into()))
            .count(),
        9
    );
}

/// A kubeconfig (context `ctx`) for `server`, in `dir`.
fn kubeconfig_for(dir: &Path, server: &str) -> String {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\ncurrent-context: ctx\n"),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

/// `plan --from-cluster` reads `--request-timeout` as `diff` and `validate` do (client-go's
/// durations, the same message for a bad one) and reports cluster errors in the shared words.
#[test]
fn from_cluster_parses_the_request_timeout_like_diff_and_validate() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig_for(dir.path(), "https://127.0.0.1:1");
    let cluster = format!("{CUSTOM}/cluster.yaml");
    for timeout in ["1m30s", "1h0m0.5s", "250ms", "7"] {
        let out = plan(&["--from-cluster", "--request-timeout", timeout, "--kubeconfig", &kubeconfig, "-f", &cluster]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(!err.contains("request-timeout"), "{timeout}: {err}");
        assert!(err.contains("cannot reach the API server https://127.0.0.1:1 (context `ctx`)"), "{timeout}: {err}");
    }
    for timeout in ["soon", "1x", "-1s"] {
        let flag = format!("--request-timeout={timeout}");
        let out = plan(&["--from-cluster", &flag, "--kubeconfig", &kubeconfig, "-f", &cluster]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains(&format!("--request-timeout: invalid duration `{timeout}`")), "{}", stderr(&out));
    }
}

/// A server that accepts connections and never answers: `--request-timeout 1s` ends the request
/// after a second with the shared timeout message; `0` means no timeout (kubectl), not a zero one.
#[test]
fn from_cluster_honours_the_request_timeout_and_zero_means_none() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("https://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig_for(dir.path(), &server);
    let cluster = format!("{CUSTOM}/cluster.yaml");
    let out = plan(&["--from-cluster", "--request-timeout", "1s", "--kubeconfig", &kubeconfig, "-f", &cluster]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("no answer from the API server {server} within the request timeout of 1s")), "{err}");

    let mut child = std::process::Command::new(crate::support::capz_bin())
        .args(["plan", "--from-cluster", "--request-timeout", "0", "--kubeconfig", &kubeconfig, "-f", &cluster])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let still_waiting = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(still_waiting, "gave up at once: {}", String::from_utf8_lossy(&output.stderr));
    drop(silent);
}
