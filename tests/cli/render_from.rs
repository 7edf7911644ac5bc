//! `kubectl capz render --from`: clusterctl `generate cluster --from` semantics end to end.
//! The expectations come from clusterctl's behaviour (notes §1-2, the envsubst conformance table,
//! and clusterctl v1.14.2's source), not from our own output.

use assert_cmd::Command;

use crate::support;

const AKS: &str = "tests/fixtures/envsubst/cluster-template-aks.yaml";
const AKS_ASO: &str = "tests/fixtures/envsubst/cluster-template-aks-aso.yaml";
const NAMESPACES: &str = "tests/fixtures/envsubst/namespaces.yaml";
const FUNCTIONS: &str = "tests/fixtures/envsubst/functions.yaml";

/// The binary with an empty environment, run from the crate root (relative fixture paths).
fn capz() -> Command {
    let mut cmd = Command::new(support::capz_bin());
    cmd.env_clear().current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// The variables the aks flavor needs, as a user would export them.
fn aks_env(cmd: &mut Command) -> &mut Command {
    cmd.env("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000001")
        .env("AZURE_LOCATION", "westeurope")
        .env("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3")
        .env("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000002")
        .env("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000003")
        .env("CLUSTER_IDENTITY_NAME", "cluster-identity")
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

fn failure_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    String::from_utf8(out.stderr).expect("utf-8 stderr")
}

#[test]
fn aks_template_from_environment() {
    let out = stdout_of(aks_env(&mut capz()).args([
        "render",
        "--from",
        AKS,
        "my-cluster",
        "--kubernetes-version",
        "v1.33.2",
    ]));
    // clusterctl injects WORKER_MACHINE_COUNT=0, which beats the template's `:=2`.
    assert_eq!(out.matches("replicas: 0").count(), 2, "{out}");
    // The template says `namespace: default`; without -n we use `default` too.
    assert_eq!(out.matches("namespace: default").count(), 8, "{out}");
    insta::assert_snapshot!("aks_from_environment", out);
}

#[test]
fn values_file_set_and_environment_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("clusterctl.yaml");
    std::fs::write(
        &values,
        "AZURE_LOCATION: northeurope\nWORKER_MACHINE_COUNT: 3\nAZURE_NODE_MACHINE_TYPE: Standard_B2s\nKUBERNETES_VERSION: v1.32.0\nAZURE_SSH_PUBLIC_KEY_B64: c3NoLXJzYQ==\n",
    )
    .unwrap();
    let mut cmd = capz();
    aks_env(&mut cmd)
        .env("AZURE_NODE_MACHINE_TYPE", "Standard_D4s_v3")
        .args(["render", "--from", AKS, "c1", "-n", "team-a", "--values"])
        .arg(&values)
        .args(["--set", "AZURE_LOCATION=uksouth"]);
    let out = stdout_of(&mut cmd);
    assert!(out.contains("location: uksouth"), "--set beats env and values:\n{out}");
    assert!(out.contains("sku: Standard_D4s_v3"), "env beats values:\n{out}");
    assert!(out.contains("version: v1.32.0"), "values fill what nothing else sets:\n{out}");
    assert!(out.contains("sshPublicKey: c3NoLXJzYQ=="), "{out}");
    assert_eq!(out.matches("replicas: 3").count(), 2, "WORKER_MACHINE_COUNT from the values file:\n{out}");
    assert_eq!(out.matches("namespace: team-a").count(), 8, "{out}");
}

#[test]
fn empty_environment_variable_counts_as_set() {
    let mut cmd = capz();
    aks_env(&mut cmd).env("AZURE_RESOURCE_GROUP", "").env("KUBERNETES_VERSION", "v1.33.2");
    let out = stdout_of(cmd.args(["render", "--from", AKS, "c1"]));
    // `${AZURE_RESOURCE_GROUP:=${CLUSTER_NAME}}`: empty means "use the default" in envsubst.
    assert!(out.contains("resourceGroupName: c1"), "{out}");
}

#[test]
fn missing_variables_are_all_reported_with_exit_2() {
    let err = failure_of(capz().args(["render", "--from", AKS, "my-cluster"]));
    insta::assert_snapshot!("aks_missing_variables", err);
}

#[test]
fn missing_variables_without_a_cluster_name() {
    // Without the positional name CLUSTER_NAME is an ordinary variable.
    let err = failure_of(aks_env(&mut capz()).args(["render", "--from", AKS_ASO]));
    assert!(
        err.contains("value for variables [ASO_CREDENTIAL_SECRET_NAME, CLUSTER_NAME, KUBERNETES_VERSION] is not set"),
        "{err}"
    );
}

#[test]
fn list_variables_like_clusterctl() {
    let out = stdout_of(capz().args(["render", "--from", AKS, "my-cluster", "--list-variables", "-n", "default"]));
    // Notes §1: the list clusterctl prints for this flavor.
    insta::assert_snapshot!("aks_list_variables", out);
}

#[test]
fn list_variables_shows_overrides_from_flags_and_environment() {
    let out = stdout_of(capz().env("WORKER_MACHINE_COUNT", "5").env("AZURE_LOCATION", "westeurope").args([
        "render",
        "--from",
        AKS_ASO,
        "c1",
        "--list-variables",
        "--kubernetes-version",
        "v1.33.2",
    ]));
    // Required depends only on the template, even when the environment sets the variable.
    assert_eq!(
        out,
        "Required Variables:\n  - ASO_CREDENTIAL_SECRET_NAME\n  - AZURE_LOCATION\n  - AZURE_NODE_MACHINE_TYPE\n\n\
         Optional Variables:\n  - CLUSTER_NAME          (defaults to c1)\n  - KUBERNETES_VERSION    (defaults to v1.33.2)\n  - WORKER_MACHINE_COUNT  (defaults to 5)\n\n"
    );
}

#[test]
fn list_variables_still_validates_the_options() {
    let err =
        failure_of(capz().env("WORKER_MACHINE_COUNT", "two").args(["render", "--from", AKS, "c1", "--list-variables"]));
    assert!(err.contains("error: invalid value for WORKER_MACHINE_COUNT set"), "{err}");
}

#[test]
fn target_namespace_like_fix_target_namespace() {
    let out = stdout_of(
        capz().env("KUBERNETES_VERSION", "v1.33.2").args(["render", "--from", NAMESPACES, "c1", "-n", "team-a"]),
    );
    insta::assert_snapshot!("namespaces_team_a", out);
}

#[test]
fn stdin_template() {
    let template =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/envsubst/functions.yaml"))
            .unwrap();
    let out = stdout_of(
        capz()
            .env("FQDN", "api.example.com")
            .env("LOWER_CASE_NAME", "viper folds case")
            .args(["render", "--from", "-", "my-cluster-name", "-n", "ns1"])
            .write_stdin(template),
    );
    insta::assert_snapshot!("functions_from_stdin", out);
}

#[test]
fn invalid_cluster_name_is_rejected_like_clusterctl() {
    let err = failure_of(capz().args(["render", "--from", FUNCTIONS, "My_Cluster"]));
    assert!(err.starts_with("error: invalid cluster name: a lowercase RFC 1123 subdomain must consist of"), "{err}");
}

#[test]
fn json_output_is_a_v1_list() {
    let out = stdout_of(
        capz()
            .env("KUBERNETES_VERSION", "v1.33.2")
            .args(["render", "--from", NAMESPACES, "c1", "-n", "team-a", "-o", "json"]),
    );
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(list["kind"], "List");
    assert_eq!(list["apiVersion"], "v1");
    let kinds: Vec<&str> = list["items"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Namespace", "Cluster", "ClusterRole", "RoleBinding", "ConfigMap"]);
    assert_eq!(list["items"][4]["data"]["alpha"], 0, "substituted scalars are re-typed by YAML");
}

#[test]
fn negative_substring_length_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, "kind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME:1:-1}\n").unwrap();
    let err = failure_of(capz().args(["render", "--from"]).arg(&path).arg("abcdef"));
    assert!(
        err.contains("`${CLUSTER_NAME:1:-1}` has a negative length for a value of 6 bytes (clusterctl crashes"),
        "{err}"
    );
}

#[test]
fn parse_error_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: ${VALUE-default}\n").unwrap();
    let err = failure_of(capz().current_dir(dir.path()).args(["render", "--from", "t.yaml", "c1"]));
    assert_eq!(err, "error: cannot render t.yaml\n  caused by: t.yaml:5:6: missing closing brace\n");
    // Listing fails the same way: any parse error fails the whole file.
    let err = failure_of(capz().current_dir(dir.path()).args(["render", "--from", "t.yaml", "c1", "--list-variables"]));
    assert_eq!(err, "error: t.yaml:5:6: missing closing brace\n");
}

#[test]
fn bad_options_use_clusterctl_messages() {
    let err = failure_of(capz().args(["render", "--from", FUNCTIONS, "c1", "--kubernetes-version", "1.33"]));
    assert_eq!(err, "error: invalid KubernetesVersion. Please use a semantic version number\n");
    let err = failure_of(capz().args(["render", "--from", FUNCTIONS, "c1", "-n", "Team.A"]));
    assert!(err.starts_with("error: invalid target-namespace: a lowercase RFC 1123 label must consist of"), "{err}");
    let err = failure_of(capz().env("CONTROL_PLANE_MACHINE_COUNT", "0").args(["render", "--from", FUNCTIONS, "c1"]));
    assert_eq!(err, "error: invalid ControlPlaneMachineCount. Please use a number greater than or equal to 1\n");
    let err = failure_of(capz().args(["render", "--from", FUNCTIONS, "c1", "--set", "WORKER_MACHINE_COUNT=-1"]));
    assert_eq!(err, "error: invalid WorkerMachineCount. Please use a number greater than or equal to 0\n");
}

#[test]
fn flavor_and_from_do_not_mix() {
    let err = failure_of(capz().args(["render", "aks", "c1", "--from", FUNCTIONS]));
    assert!(err.contains("with --from, give only the cluster name"), "{err}");
}

/// `--from ... --validate` validates what was printed; findings name lines of that output.
#[test]
fn validate_names_lines_of_the_printed_output() {
    let out = aks_env(&mut capz())
        .env("WORKER_MACHINE_COUNT", "2")
        .args(["render", "--from", AKS, "my-cluster", "--kubernetes-version", "v1.33.2", "--validate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "warnings only");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let line = stdout.lines().position(|l| l.trim_start().starts_with("sshPublicKey:")).expect("printed") + 1;
    assert!(
        stderr
            .contains(&format!("<rendered>:{line}: warning: AzureManagedControlPlane/my-cluster: /spec/sshPublicKey")),
        "{stderr}"
    );
    assert!(stderr.contains("8 objects: 8 valid, 0 invalid"), "{stderr}");
}

/// Like clusterctl, `--from` injects WORKER_MACHINE_COUNT=0 when it is not given, so CAPZ's aks template puts
/// its System pool at replicas 0, which AKS rejects: `--validate` says so on the printed MachinePool.
#[test]
fn validate_flags_the_system_pool_clusterctl_scales_to_zero() {
    let out = aks_env(&mut capz())
        .env_remove("WORKER_MACHINE_COUNT")
        .args(["render", "--from", AKS, "my-cluster", "--kubernetes-version", "v1.33.2", "--validate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "an error finding");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let pool0 = stdout.find("name: my-cluster-pool0").expect("pool0 printed");
    let line = stdout[..pool0].lines().count()
        + stdout[pool0..].lines().position(|l| l.trim_start().starts_with("replicas: 0")).expect("replicas 0");
    assert!(
        stderr.contains(&format!(
            "<rendered>:{line}: error: MachinePool/my-cluster-pool0: /spec/replicas: replicas is 0"
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("[aks-system-pool-replicas]").count(), 1, "the User pool may have 0: {stderr}");
}

#[test]
fn out_dir_writes_one_file_per_object() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = capz();
    cmd.env("KUBERNETES_VERSION", "v1.33.2")
        .args(["render", "--from", NAMESPACES, "c1", "-n", "team-a", "--out-dir"])
        .arg(&out);
    stdout_of(&mut cmd);
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "01-namespace-team-a.yaml",
            "02-cluster-c1.yaml",
            "03-clusterrole-c1-reader.yaml",
            "04-rolebinding-c1-readers.yaml",
            "05-configmap-c1-settings.yaml"
        ]
    );
}
