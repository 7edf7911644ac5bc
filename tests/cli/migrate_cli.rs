//! `kubectl capz migrate` end to end: output snapshots for a few classic bundles, `--out-dir`, and the exit codes
//! (1 for an input `validate` rejects, 2 for a bundle CAPZ cannot translate, a ClusterClass-based cluster, no
//! classic cluster).

use crate::support::cli_runner::capz_command;

const CASES: &str = "tests/fixtures/capz-translation/cases";

fn migrate(args: &[&str]) -> std::process::Output {
    capz_command().arg("migrate").args(args).output().unwrap()
}

fn case(name: &str) -> String {
    format!("{CASES}/{name}.yaml")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Case 22 with an SSH key CAPZ's webhook accepts (the recorded case's key decodes to no OpenSSH
/// key line, which `validate`, and so `migrate`, rejects).
fn case_22_with_a_valid_key(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(case("22-ssh-key-tags-dnsprefix")).unwrap();
    let bad = "c3NoLXJzYSBBQUFBQjNOemFDMXljMkVBQUFBREFRQUJBQUFCQVFDN3Rlc3Qga2V5QGV4YW1wbGUK";
    let good = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUFBQkFnTUVCUVlIQ0FrS0N3d05EZzhRRVJJVEZCVVdGeGdaR2hzY0hSNGYgYWRtaW5AZXhhbXBsZQo=";
    assert!(text.contains(bad));
    let path = dir.join("22-ssh-key-tags-dnsprefix.yaml");
    std::fs::write(&path, text.replace(bad, good)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn migrated_bundles_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["22-ssh-key-tags-dnsprefix", "12-aad-disable-local", "58-pool-patch-both-kinds"] {
        let input = if name.starts_with("22") { case_22_with_a_valid_key(dir.path()) } else { case(name) };
        let out = migrate(&["-f", &input]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        insta::assert_snapshot!(format!("migrate_{name}"), stdout(&out));
    }
}

#[test]
fn to_namespace_and_json() {
    let out = migrate(&["-f", &case("31-namespace-and-odd-names"), "--to-namespace", "aso", "-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "Cluster, AzureASOManagedCluster, ControlPlane, MachinePool, MachinePool wrapper");
    assert!(items.iter().all(|o| o["metadata"]["namespace"] == "aso"));
    // The ResourceGroup keeps its Azure name; its Kubernetes name is CAPZ's normalized one.
    assert_eq!(items[1]["spec"]["resources"][0]["metadata"]["name"], "my-rg-prod");
    assert_eq!(items[1]["spec"]["resources"][0]["spec"]["azureName"], "My_RG.Prod");
    // The embedded ManagedCluster has no agentPoolProfiles: CAPZ's mutator would reject them.
    assert!(items[2]["spec"]["resources"][0]["spec"].get("agentPoolProfiles").is_none());
}

#[test]
fn out_dir_writes_the_bundle_and_the_adoption_objects() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("migrated");
    let out = migrate(&["-f", &case("23-windows-pool"), "--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let bundle = std::fs::read_to_string(out_dir.join("c23/aso-managed.yaml")).unwrap();
    assert!(bundle.contains("kind: AzureASOManagedControlPlane"));
    let adopt = std::fs::read_to_string(out_dir.join("c23/adopt.yaml")).unwrap();
    let documents = capz::manifest::parse_documents(&adopt, "adopt.yaml").unwrap();
    let kinds: Vec<&str> = documents.iter().map(|d| d.kind()).collect();
    assert_eq!(kinds, ["ResourceGroup", "ManagedCluster", "ManagedClustersAgentPool", "ManagedClustersAgentPool"]);
    for document in &documents {
        assert_eq!(
            document.value.pointer("/metadata/annotations/sigs.k8s.io~1cluster-api-provider-azure-adopt"),
            Some(&serde_json::json!("true")),
            "{}",
            document.display_name()
        );
    }
    let profiles = documents[1].value.pointer("/spec/agentPoolProfiles").and_then(|p| p.as_array()).unwrap();
    let names: Vec<&str> = profiles.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sys", "win1"]);
    // A second run does not overwrite.
    let again = migrate(&["-f", &case("23-windows-pool"), "--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("exists"), "{}", stderr(&again));
}

#[test]
fn bundles_validate_rejects_stop_migrate_with_where() {
    for (name, wanted) in [
        ("48-cp-patch-broken-yaml", "48-cp-patch-broken-yaml.yaml:"),
        ("48-cp-patch-broken-yaml", "patch at index 1"),
        ("57-pool-patch-broken", "patch at index 2"),
        ("49-cp-patch-wrong-type", "patch at index 0"),
        ("60-no-system-pool", "mode: System"),
        ("61-user-assigned-without-id", "userAssignedIdentityResourceID"),
        ("01-minimal", "resourceGroupName"),
    ] {
        // `validate` rejects each of these too: migrate stops with its findings before translating (exit 1).
        let out = migrate(&["-f", &case(name)]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(stderr(&out).contains("the input does not validate"), "{name}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{name}: nothing on stdout");
        assert!(stderr(&out).contains(wanted), "{name}: {wanted:?} not in {}", stderr(&out));
    }
}

#[test]
fn an_empty_ssh_key_is_live_state_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(case("22-ssh-key-tags-dnsprefix")).unwrap();
    let (start, _) = text.split_once("sshPublicKey: ").unwrap();
    let rest = &text[start.len() + "sshPublicKey: ".len()..];
    let line_end = rest.find('\n').unwrap();
    let edited = format!("{start}sshPublicKey: \"\"{}", &rest[line_end..]);
    let file = dir.path().join("empty-key.yaml");
    std::fs::write(&file, edited).unwrap();
    let out = migrate(&["-f", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("sshPublicKey is empty"), "{}", stderr(&out));
}

#[test]
fn cluster_class_clusters_and_empty_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let topology = dir.path().join("topology.yaml");
    std::fs::write(
        &topology,
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: t\nspec:\n  topology:\n    class: aks\n    version: v1.33.2\n",
    )
    .unwrap();
    let out = migrate(&["-f", topology.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ClusterClass"), "{}", stderr(&out));
    assert!(stderr(&out).contains("topology.yaml:1"), "{}", stderr(&out));

    let empty = dir.path().join("other.yaml");
    std::fs::write(&empty, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n").unwrap();
    let out = migrate(&["-f", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no classic cluster"), "{}", stderr(&out));
}
