//! `kubectl-capz render` and `params` through the binary: snapshots of every flavor, output formats,
//! `--out-dir`, lint-clean output, and plugin discovery through the real kubectl.

use crate::support::cli_runner;

use std::path::Path;

use assert_cmd::Command;
use capz::lint::{RuleSelection, check};
use capz::manifest::parse_documents;
use capz::report::Severity;
use cli_runner::capz;

/// The variables CAPZ's docs export before `clusterctl generate cluster --flavor aks[-aso]`.
pub const DOCS_ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "southcentralus"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000003"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
    ("WORKER_MACHINE_COUNT", "2"),
];

fn stdout_of(cmd: &mut Command) -> String {
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "exit {:?}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn render(env: &[(&str, &str)], args: &[&str]) -> String {
    stdout_of(capz(env).arg("render").args(args))
}

/// Rendered output must be clean for our own CAPZ rules (no error findings).
fn assert_lint_clean(yaml: &str) {
    let docs = parse_documents(yaml, "<rendered>").unwrap();
    let findings = check(&docs, &RuleSelection::new(&[], &[]).unwrap());
    let errors: Vec<_> = findings.iter().filter(|f| f.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "lint errors: {errors:#?}");
}

#[test]
fn aks_aso_with_docs_env() {
    let out = render(DOCS_ENV, &["aks-aso"]);
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_with_docs_env() {
    let out = render(DOCS_ENV, &["aks"]);
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_aso_from_the_shipped_example() {
    let out = render(&[], &["aks-aso", "--values", "examples/aks-aso.values.yaml"]);
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_from_the_shipped_example() {
    let out = render(&[], &["aks", "--values", "examples/aks.values.yaml"]);
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn capi_v1beta2_refs() {
    let out = render(
        DOCS_ENV,
        &["aks-aso", "--capi-api", "v1beta2", "-n", "team-a", "prod1", "--kubernetes-version", "1.34.1"],
    );
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn maintenance_secret_and_overlays() {
    let out = render(
        DOCS_ENV,
        &[
            "aks-aso",
            "--set",
            "maintenance.enabled=true",
            "--set",
            "asoCredentialSecret.create=true",
            "--set",
            "managedCluster.spec.sku={name: Base, tier: Standard}",
            "--set",
            "managedCluster.spec.servicePrincipalProfile=null",
            "--set",
            "maintenance.default.spec.timeInWeek=[{day: Saturday, hourSlots: [22, 23]}]",
            "--set",
            "pools[1].agentPool.spec.maxPods=50",
            "--set",
            "resourceGroupName=rg-demo",
        ],
    );
    assert_lint_clean(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn special_characters_survive_templates_and_yaml() {
    let out = render(
        &[DOCS_ENV, &[("ASO_CREDENTIAL_SECRET_NAME", "yes")]].concat(),
        &[
            "aks-aso",
            "--set",
            "pools[0].labels.a=x\"y<z&'w: #1 {{ no }}",
            "--set",
            "pools[0].labels[\"kubernetes.io/os\"]=0755",
            "--set",
            "pools[0].taints=[{key: k, value: \"v\\\"x\", effect: NoSchedule}]",
        ],
    );
    let docs = parse_documents(&out, "out").unwrap();
    let pool = docs.iter().find(|d| d.kind() == "AzureASOManagedMachinePool").unwrap();
    let agent_pool = &pool.value["spec"]["resources"][0];
    assert_eq!(agent_pool["metadata"]["annotations"]["serviceoperator.azure.com/credential-from"], "yes");
    assert_eq!(agent_pool["spec"]["nodeLabels"]["a"], "x\"y<z&'w: #1 {{ no }}");
    assert_eq!(agent_pool["spec"]["nodeLabels"]["kubernetes.io/os"], "0755");
    assert_eq!(agent_pool["spec"]["nodeTaints"][0], "k=v\"x:NoSchedule");
}

#[test]
fn precedence_env_values_set_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("first.yaml");
    let second = tmp.path().join("second.yaml");
    std::fs::write(&first, "clusterName: from-values\nnamespace: from-values\nlocation: westeurope\n").unwrap();
    std::fs::write(&second, "location: northeurope\n").unwrap();
    let cluster = |args: &[&str]| {
        let mut all = vec!["aks-aso", "--values", first.to_str().unwrap(), "--values", second.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = render(DOCS_ENV, &all);
        let docs = parse_documents(&out, "out").unwrap();
        let cluster = docs.iter().find(|d| d.kind() == "AzureASOManagedCluster").unwrap().value.clone();
        (
            cluster["metadata"]["name"].as_str().unwrap().to_string(),
            cluster["metadata"]["namespace"].as_str().unwrap().to_string(),
            cluster["spec"]["resources"][0]["spec"]["location"].as_str().unwrap().to_string(),
        )
    };
    // env (CLUSTER_NAME=demo, AZURE_LOCATION=southcentralus) < values (later file wins).
    assert_eq!(cluster(&[]), ("from-values".into(), "from-values".into(), "northeurope".into()));
    // values < --set (later --set wins).
    assert_eq!(
        cluster(&["--set", "clusterName=from-set", "--set", "location=eastus", "--set", "location=uksouth"]),
        ("from-set".into(), "from-values".into(), "uksouth".into())
    );
    // --set < flags.
    assert_eq!(
        cluster(&["--set", "clusterName=from-set", "from-flag", "-n", "ns-flag"]),
        ("from-flag".into(), "ns-flag".into(), "northeurope".into())
    );
}

#[test]
fn params_lists_a_flavor_from_flavor_dir() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("mini")).unwrap();
    std::fs::write(
        tmp.path().join("mini/flavor.yaml"),
        "description: a test flavor\nrequired: [clusterName, location]\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("mini/a.yaml.j2"), "{}\n").unwrap();
    let out = stdout_of(capz(&[]).args(["params", "mini", "--flavor-dir"]).arg(tmp.path()));
    assert!(out.starts_with("Flavor mini: a test flavor\n"), "{out}");
    assert!(out.contains("  location     string  yes       AZURE_LOCATION"), "{out}");
}

#[test]
fn same_inputs_same_bytes() {
    let args = ["aks-aso", "--values", "examples/aks-aso.values.yaml"];
    assert_eq!(render(DOCS_ENV, &args), render(DOCS_ENV, &args));
}

#[test]
fn json_output_is_a_v1_list() {
    let out = render(DOCS_ENV, &["aks", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(list["kind"], "List");
    let yaml = render(DOCS_ENV, &["aks"]);
    let docs = parse_documents(&yaml, "y").unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), docs.len());
    for (item, doc) in items.iter().zip(&docs) {
        assert_eq!(item, &doc.value);
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn out_dir_writes_one_file_per_object_and_replaces_an_earlier_render() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("clusters/demo");
    stdout_of(capz(DOCS_ENV).args(["render", "aks-aso", "--out-dir"]).arg(&dir));
    insta::assert_snapshot!("out_dir_listing", listing(&dir).join("\n"));
    let first = std::fs::read_to_string(dir.join("01-cluster-demo.yaml")).unwrap();
    assert_eq!(parse_documents(&first, "f").unwrap()[0].kind(), "Cluster");
    // A second render with one pool less replaces the directory: no stale files.
    stdout_of(
        capz(DOCS_ENV).args(["render", "aks-aso", "--set", "pools=[{name: sys, mode: System}]", "--out-dir"]).arg(&dir),
    );
    assert_eq!(
        listing(&dir),
        [
            "01-cluster-demo.yaml",
            "02-azureasomanagedcontrolplane-demo.yaml",
            "03-azureasomanagedcluster-demo.yaml",
            "04-machinepool-demo-sys.yaml",
            "05-azureasomanagedmachinepool-demo-sys.yaml"
        ]
    );
    // Only our files and the output directory exist beside it: the staging directory is gone.
    assert_eq!(listing(dir.parent().unwrap()), ["demo"]);
    // JSON files with -o json.
    let json_dir = tmp.path().join("json");
    stdout_of(capz(DOCS_ENV).args(["render", "aks", "-o", "json", "--out-dir"]).arg(&json_dir));
    let identity = std::fs::read_to_string(json_dir.join("08-azureclusteridentity-cluster-identity.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&identity).unwrap();
    assert_eq!(value["kind"], "AzureClusterIdentity");
}

#[test]
fn out_dir_refuses_a_directory_with_foreign_files() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let output = capz(DOCS_ENV).args(["render", "aks", "--out-dir"]).arg(tmp.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("contains `notes.txt`"), "{stderr}");
    assert_eq!(listing(tmp.path()), ["notes.txt"]);
}

/// A render whose out-dir write fails after some files (the second object's file name is longer than
/// the file system allows) leaves no directory when there was none, and an earlier render untouched.
#[test]
fn out_dir_failing_mid_way_leaves_no_half_written_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let template = |second: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {second}\n"
        )
    };
    let good = tmp.path().join("good.yaml");
    std::fs::write(&good, template("second")).unwrap();
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(&bad, template(&"x".repeat(300))).unwrap();
    let out = tmp.path().join("out/demo");
    let failed = |dir: &Path| {
        let output = capz(&[]).args(["render", "--from"]).arg(&bad).arg("--out-dir").arg(dir).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("cannot write 02-configmap-xxx"), "{stderr}");
    };
    // No directory before: none after, and nothing staged left beside it.
    failed(&out);
    assert!(!out.exists());
    assert!(listing(out.parent().unwrap()).is_empty(), "{:?}", listing(out.parent().unwrap()));
    // An earlier render: kept as it was.
    stdout_of(capz(&[]).args(["render", "--from"]).arg(&good).arg("--out-dir").arg(&out));
    let before = listing(&out);
    assert_eq!(before, ["01-configmap-first.yaml", "02-configmap-second.yaml"]);
    failed(&out);
    assert_eq!(listing(&out), before);
    assert_eq!(listing(out.parent().unwrap()), ["demo"]);
    // A second good run over the existing out-dir replaces it (docs/render.md).
    std::fs::write(&good, template("renamed")).unwrap();
    stdout_of(capz(&[]).args(["render", "--from"]).arg(&good).arg("--out-dir").arg(&out));
    assert_eq!(listing(&out), ["01-configmap-first.yaml", "02-configmap-renamed.yaml"]);
}

#[test]
fn flavor_dir_overrides_a_flavor() {
    let tmp = tempfile::tempdir().unwrap();
    let flavor = tmp.path().join("mini");
    std::fs::create_dir_all(&flavor).unwrap();
    std::fs::write(flavor.join("flavor.yaml"), "description: a test flavor\nrequired: [clusterName]\n").unwrap();
    std::fs::write(
        flavor.join("cm.yaml.j2"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ params.clusterName ~ \"-info\" }}\ndata:\n  version: {{ params.kubernetesVersion or \"none\" }}\n",
    )
    .unwrap();
    let out = render(
        &[("CLUSTER_NAME", "x"), ("NAMESPACE", "ns1")],
        &["mini", "--flavor-dir", flavor.parent().unwrap().to_str().unwrap()],
    );
    assert_eq!(
        out,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x-info\n  namespace: ns1\ndata:\n  version: none\n"
    );
}

#[test]
fn aks_with_aso_patches_from_the_shipped_example() {
    let out = render(&[], &["aks", "--values", "examples/aks-patches.values.yaml"]);
    assert_lint_clean(&out);
    let docs = parse_documents(&out, "<rendered>").unwrap();
    let control_plane = docs.iter().find(|d| d.kind() == "AzureManagedControlPlane").unwrap();
    let patches = control_plane.value.pointer("/spec/asoManagedClusterPatches").unwrap().as_array().unwrap();
    assert_eq!(patches.len(), 2);
    assert!(patches[1].as_str().unwrap().contains("nodeOSUpgradeChannel: SecurityPatch"), "{patches:?}");
    let batch = docs.iter().find(|d| d.name() == "payments-prod-batch" && d.kind() == "AzureManagedMachinePool");
    let pool_patches = batch.unwrap().value.pointer("/spec/asoManagedClustersAgentPoolPatches").unwrap();
    assert_eq!(pool_patches.as_array().unwrap().len(), 1);
    let system = docs.iter().find(|d| d.name() == "payments-prod-system" && d.kind() == "AzureManagedMachinePool");
    assert!(system.unwrap().value.pointer("/spec/asoManagedClustersAgentPoolPatches").is_none());
    // --validate runs the patch rules on the output: the example's patches are clean.
    let validated = capz(&[])
        .args(["render", "aks", "--values", "examples/aks-patches.values.yaml", "--validate"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&validated.stderr);
    assert_eq!(validated.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("capz-aso-patch") && !stderr.contains("aso-patched-object"), "{stderr}");
    insta::assert_snapshot!(out);
}

fn render_failing(args: &[&str]) -> (Option<i32>, String, String) {
    let out = capz(&[]).arg("render").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_patch_capz_cannot_apply_is_a_parameter_error() {
    let values = tempfile::tempdir().unwrap();
    let file = values.path().join("bad.values.yaml");
    std::fs::write(
        &file,
        "pools:\n- name: system\n  mode: System\n- name: batch\n  asoManagedClustersAgentPoolPatches:\n  - 'spec: ['\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let example = ["aks", "--values", "examples/aks-patches.values.yaml"];

    let (code, stdout, stderr) = render_failing(&[&example[..], &["--values", &file]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "nothing is printed: {stdout}");
    assert!(stderr.contains("pools[1].asoManagedClustersAgentPoolPatches[0]"), "{stderr}");
    assert!(stderr.contains("is not valid YAML") && stderr.contains(&format!("(from {file}:6)")), "{stderr}");

    let set = "asoManagedClusterPatches[1]={\"spec\": {\"enableRBAC\": \"yes\"}}";
    let (code, _, stderr) = render_failing(&[&example[..], &["--set", set]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("invalid parameter asoManagedClusterPatches[1]:"), "{stderr}");
    assert!(stderr.contains("spec.enableRBAC: cannot put a string into a field of type boolean"), "{stderr}");

    // Both at once: every broken patch is named.
    let (code, _, stderr) = render_failing(&[&example[..], &["--values", &file, "--set", set]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("2 invalid parameters"), "{stderr}");
    assert!(
        stderr.contains("asoManagedClusterPatches[1]")
            && stderr.contains("pools[1].asoManagedClustersAgentPoolPatches[0]"),
        "{stderr}"
    );

    let overlay = "controlPlane.spec.asoManagedClusterPatches=[\"[1, 2]\"]";
    let (code, _, stderr) = render_failing(&[&example[..], &["--set", overlay]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("controlPlane.spec.asoManagedClusterPatches[0]"), "{stderr}");
}

#[test]
fn no_op_and_owned_field_patches_are_findings_of_validate() {
    let set_no_op = "asoManagedClusterPatches[0]={\"spec\": {\"location\": \"westeurope\"}}";
    let set_owned = "asoManagedClusterPatches[1]={\"spec\": {\"agentPoolProfiles\": []}}";
    let args =
        ["aks", "--values", "examples/aks-patches.values.yaml", "--set", set_no_op, "--set", set_owned, "--validate"];
    let (code, stdout, stderr) = render_failing(&args);
    assert!(stdout.contains("asoManagedClusterPatches"), "the manifest is printed: {stdout}");
    let no_op: Vec<&str> = stderr.lines().filter(|l| l.contains("[capz-aso-patch-no-op]")).collect();
    assert_eq!(no_op.len(), 1, "{stderr}");
    assert!(no_op[0].contains("/spec/asoManagedClusterPatches/0"), "{}", no_op[0]);
    let owned: Vec<&str> = stderr.lines().filter(|l| l.contains("[capz-aso-patch-owned-field]")).collect();
    assert_eq!(owned.len(), 1, "{stderr}");
    assert!(
        owned[0].contains("/spec/asoManagedClusterPatches/1") && owned[0].contains("agentPoolProfiles"),
        "{stderr}"
    );
    assert_eq!(code, Some(0), "warnings only: {stderr}");
}

#[test]
fn the_patched_managed_cluster_is_checked_at_render_even_without_an_ssh_key() {
    // The aks flavor renders sshPublicKey "" (CAPZ generates a key); the patched ManagedCluster is still checked.
    let set = "asoManagedClusterPatches[0]={\"spec\": {\"dnsPrefix\": \"-bad-\"}}";
    let args = ["aks", "--values", "examples/aks-patches.values.yaml", "--set", set, "--validate"];
    let (code, _, stderr) = render_failing(&args);
    let dns: Vec<&str> = stderr.lines().filter(|l| l.contains("[aks-dns-prefix]")).collect();
    assert_eq!(dns.len(), 1, "{stderr}");
    assert!(dns[0].contains("/spec/asoManagedClusterPatches/0") && dns[0].contains("/spec/dnsPrefix"), "{stderr}");
    assert_eq!(code, Some(1), "{stderr}");
}

#[test]
fn aks_topology_carries_the_patches_in_the_class_escape_hatches_and_checks_them() {
    let out = render(&[], &["aks-topology", "--values", "examples/aks-patches.values.yaml", "--with-class"]);
    let docs = parse_documents(&out, "<rendered>").unwrap();
    let planned = capz::topology::plan_all(&docs).unwrap();
    let objects = &planned[0].objects;
    let control_plane = objects.iter().find(|o| o["kind"] == "AzureManagedControlPlane").unwrap();
    assert_eq!(control_plane["spec"]["asoManagedClusterPatches"].as_array().unwrap().len(), 2, "{control_plane}");
    let batch =
        objects.iter().find(|o| o["kind"] == "AzureManagedMachinePool" && o["spec"]["name"] == "batch").unwrap();
    assert_eq!(batch["spec"]["asoManagedClustersAgentPoolPatches"].as_array().unwrap().len(), 1, "{batch}");
    let system =
        objects.iter().find(|o| o["kind"] == "AzureManagedMachinePool" && o["spec"]["name"] == "system").unwrap();
    assert!(system["spec"].get("asoManagedClustersAgentPoolPatches").is_none(), "{system}");

    // Checked on the objects the topology controller makes from the class, named by parameter.
    let set = "asoManagedClusterPatches[1]={\"spec\": {\"enableRBAC\": \"yes\"}}";
    let (code, stdout, stderr) =
        render_failing(&["aks-topology", "--values", "examples/aks-patches.values.yaml", "--set", set]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("invalid parameter asoManagedClusterPatches[1]:"), "{stderr}");
    assert!(stderr.contains("spec.enableRBAC"), "{stderr}");
    let set = "pools[1].asoManagedClustersAgentPoolPatches=[\"spec: [\"]";
    let (code, _, stderr) =
        render_failing(&["aks-topology", "--values", "examples/aks-patches.values.yaml", "--set", set]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("pools[1].asoManagedClustersAgentPoolPatches[0]") && stderr.contains("not valid YAML"),
        "{stderr}"
    );
}

#[test]
fn aso_patches_are_not_parameters_of_the_aso_flavors() {
    for (flavor, values, set) in [
        ("aks-aso", "examples/aks-aso.values.yaml", "asoManagedClusterPatches[0]={}"),
        ("aks-aso-topology", "examples/aks-aso.values.yaml", "pools[0].asoManagedClustersAgentPoolPatches=[\"{}\"]"),
    ] {
        let (code, _, stderr) = render_failing(&[flavor, "--values", values, "--set", set]);
        assert_eq!(code, Some(2), "{flavor}: {stderr}");
        let path = set.split_once('=').unwrap().0.trim_end_matches("[0]");
        assert!(stderr.contains(&format!("{path}: not used by flavor {flavor}")), "{flavor}: {stderr}");
    }
}

#[test]
fn params_listing_per_flavor() {
    insta::assert_snapshot!("params_aks", stdout_of(capz(&[]).args(["params", "aks"])));
    insta::assert_snapshot!("params_aks_aso", stdout_of(capz(&[]).args(["params", "aks-aso"])));
}

#[test]
fn params_schema_is_a_json_schema_that_accepts_the_examples() {
    let schema: serde_json::Value = serde_json::from_str(&stdout_of(capz(&[]).args(["params", "--schema"]))).unwrap();
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["properties"]["pools"].is_object());
    let validator = jsonschema::validator_for(&schema).unwrap();
    for example in ["examples/aks.values.yaml", "examples/aks-aso.values.yaml", "examples/aks-patches.values.yaml"] {
        let text = std::fs::read_to_string(example).unwrap();
        let (value, _) = capz::manifest::parse_value(&text, example).unwrap();
        let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{example}: {errors:?}");
    }
    let bad = serde_json::json!({"pools": [{"name": "a", "replicas": "x"}], "bogus": 1});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn kubectl_finds_the_plugin_on_path() {
    let Ok(kubectl) = which("kubectl") else {
        panic!("kubectl is not on PATH; this test needs the real kubectl");
    };
    let bin = crate::support::capz_bin();
    let bin_dir = bin.parent().unwrap();
    let home = tempfile::tempdir().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(kubectl);
    cmd.env_clear().env("PATH", path).env("HOME", home.path());
    for (k, v) in DOCS_ENV {
        cmd.env(k, v);
    }
    let via_kubectl = stdout_of(cmd.args(["capz", "render", "aks-aso"]));
    assert_eq!(via_kubectl, render(DOCS_ENV, &["aks-aso"]));
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
        .ok_or(())
}

/// clusterctl's spellings: `--flavor F --infrastructure azure NAME`, `--target-namespace`,
/// `--worker-machine-count` render what the positional form renders; contradictions are usage errors.
#[test]
fn clusterctl_flag_spellings() {
    let positional = render(DOCS_ENV, &["aks-aso", "demo", "-n", "team-a", "--set", "poolDefaults.replicas=4"]);
    let clusterctl_style = render(
        DOCS_ENV,
        &["demo", "--flavor", "aks-aso", "--infrastructure", "azure:v1.21.0", "--target-namespace", "team-a"]
            .into_iter()
            .chain(["--worker-machine-count", "4"])
            .collect::<Vec<_>>(),
    );
    assert_eq!(positional, clusterctl_style);
    assert!(positional.contains("replicas: 4"), "{positional}");

    for (args, message) in [
        (&["demo", "--flavor", "aks", "--infrastructure", "aws"][..], "renders the Azure provider's"),
        (&["--from", "t.yaml", "--flavor", "aks", "demo"][..], "two template sources"),
        (&["aks", "demo", "--flavor", "aks"][..], "takes the place of the positional FLAVOR"),
        (&["demo", "--infrastructure", "azure"][..], "needs a flavor"),
        (&["aks", "demo", "--config", "clusterctl.yaml"][..], "--config (clusterctl's config file) applies to --from"),
        (&["--from", "https://example.invalid/t.yaml", "demo"][..], "does not download templates"),
    ] {
        let out = capz(DOCS_ENV).arg("render").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `disableLocalAccounts: true` sets the coordinated fields of CAPZ's ASO docs, and our own validate
/// (schemas, CEL, CAPZ rules) stays clean on the result.
#[test]
fn disable_local_accounts_in_one_parameter() {
    let out = render(DOCS_ENV, &["aks-aso", "--set", "disableLocalAccounts=true"]);
    assert_lint_clean(&out);
    let docs = parse_documents(&out, "<rendered>").unwrap();
    let acp = docs.iter().find(|d| d.kind() == "AzureASOManagedControlPlane").unwrap();
    let spec = &acp.value["spec"]["resources"][0]["spec"];
    assert_eq!(spec["disableLocalAccounts"], true);
    assert_eq!(spec["aadProfile"], serde_json::json!({"enableAzureRBAC": true, "managed": true}));
    assert_eq!(
        spec["operatorSpec"]["secrets"]["userCredentials"],
        serde_json::json!({"key": "value", "name": "demo-user-kubeconfig"})
    );
    let validated = capz(DOCS_ENV).args(["validate", "-", "-o", "json"]).write_stdin(out).output().unwrap();
    assert_eq!(validated.status.code(), Some(0), "{}", String::from_utf8_lossy(&validated.stdout));
    let report: serde_json::Value = serde_json::from_slice(&validated.stdout).unwrap();
    let text = report.to_string();
    assert!(!text.contains("local-accounts") && !text.contains("user-credentials"), "{text}");

    // Without it nothing of that is rendered; the classic aks flavor does not take it.
    let plain = render(DOCS_ENV, &["aks-aso"]);
    assert!(!plain.contains("disableLocalAccounts") && !plain.contains("userCredentials"));
    let aks = capz(DOCS_ENV).args(["render", "aks", "--set", "disableLocalAccounts=true"]).output().unwrap();
    assert_eq!(aks.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&aks.stderr).contains("disableLocalAccounts"));
}
