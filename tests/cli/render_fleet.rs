//! `render --fleet`: deterministic, atomic GitOps trees that never touch a user's files.

use crate::support::cli_runner;

use std::path::{Path, PathBuf};

use cli_runner::{capz, snapshot_tree};

/// A fleet of `n` aks-aso clusters over 4 namespaces; cluster `bad` gets `bad_values` if given.
fn write_fleet(dir: &Path, n: usize, extra: &str) -> PathBuf {
    let mut text = String::from(
        "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\nclusters:\n",
    );
    for i in 0..n {
        text.push_str(&format!(
            "- name: c{i:04}\n  namespace: team-{}\n  flavor: aks-aso\n  values:\n    poolDefaults:\n      replicas: {}\n",
            i % 4,
            1 + i % 3
        ));
    }
    text.push_str(extra);
    let path = dir.join("fleet.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The acceptance: a 200-cluster fleet renders; a second run is byte-identical; `--check`
/// exits 0 after it and 1 after a values change; a user file survives.
#[test]
fn two_hundred_clusters_deterministic_and_checkable() {
    let work = tempfile::tempdir().unwrap();
    let fleet = write_fleet(work.path(), 200, "");
    let out = work.path().join("repo");
    capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    let first = snapshot_tree(&out);
    assert_eq!(first.keys().filter(|p| p.ends_with("cluster.yaml")).count(), 200);
    assert_eq!(first.keys().filter(|p| p.starts_with("clusters") && p.ends_with("kustomization.yaml")).count(), 200);
    assert_eq!(first.keys().filter(|p| p.ends_with("namespace.yaml")).count(), 4, "one Namespace per namespace");

    std::fs::write(out.join("README.md"), "user readme").unwrap();
    std::fs::write(out.join("clusters/team-1/c0001/NOTES.md"), "user notes").unwrap();
    capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    let mut second = snapshot_tree(&out);
    assert_eq!(second.remove(Path::new("README.md")).as_deref(), Some(&b"user readme"[..]));
    assert_eq!(second.remove(Path::new("clusters/team-1/c0001/NOTES.md")).as_deref(), Some(&b"user notes"[..]));
    assert_eq!(first, second, "second run is byte-identical");

    capz(&[]).args(["render", "--check", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().code(0);

    let text = std::fs::read_to_string(&fleet).unwrap().replacen("replicas: 2\n", "replicas: 5\n", 1);
    std::fs::write(&fleet, text).unwrap();
    let before = snapshot_tree(&out);
    let output =
        capz(&[]).args(["render", "--check", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with("update ") && stdout.trim_end().ends_with("clusters/team-1/c0001/cluster.yaml"),
        "{stdout}"
    );
    assert_eq!(before, snapshot_tree(&out), "--check writes nothing");
}

/// Clusters dropped from the fleet disappear with --allow-deletions; directories holding user files stay.
#[test]
fn removed_clusters_are_pruned_but_user_files_stay() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 3, "");
    capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    std::fs::write(out.join("clusters/team-2/c0002/mine.txt"), "keep").unwrap();
    let fleet = write_fleet(work.path(), 1, "");
    capz(&[])
        .args(["render", "--allow-deletions", "--fleet"])
        .arg(&fleet)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("clusters/team-0/c0000/cluster.yaml").exists());
    assert!(!out.join("clusters/team-1").exists(), "dropped cluster directory removed");
    assert!(!out.join("clusters/team-2/c0002/cluster.yaml").exists());
    assert_eq!(std::fs::read_to_string(out.join("clusters/team-2/c0002/mine.txt")).unwrap(), "keep");
}

/// A cluster whose values fail: exit 2, naming the cluster and file:line, and the tree is untouched.
#[test]
fn failing_cluster_leaves_the_tree_unchanged() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 5, "");
    capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    let before = snapshot_tree(&out);
    let fleet = write_fleet(
        work.path(),
        5,
        "- name: broken\n  namespace: team-0\n  flavor: aks-aso\n  values:\n    pools:\n    - name: Not_Valid\n      mode: System\n",
    );
    let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("fleet.yaml:41: cluster `team-0/broken`"), "{stderr}");
    assert!(stderr.contains("Not_Valid"), "{stderr}");
    assert_eq!(before, snapshot_tree(&out), "nothing changed");
}

/// Fleet-file mistakes are exit 2 with file:line; the output directory is never created.
#[test]
fn bad_fleet_files() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let cases = [
        (
            "clusters:\n- name: a\n  flavor: aks-aso\n  valuse: {}\n",
            "fleet.yaml:13: clusters[0].valuse: unknown field `valuse` (did you mean `values`?)",
        ),
        (
            "clusters:\n- name: a\n  flavor: aks-aso\n- name: a\n  flavor: aks-aso\n",
            "fleet.yaml:13: cluster `default/a` is defined twice (first at line 11)",
        ),
        ("clusters:\n- name: a\n  flavor: akss\n", "unknown flavor `akss`"),
    ];
    for (body, expected) in cases {
        let head = "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\n";
        let fleet = work.path().join("fleet.yaml");
        std::fs::write(&fleet, format!("{head}{body}")).unwrap();
        let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{body}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(expected), "expected {expected:?} in {stderr}");
        assert!(!out.exists(), "no output directory after an error");
    }
}

/// An out-dir that is a file, or that holds a file the tool does not own where it must write: a clear
/// error and nothing deleted.
#[test]
fn out_dir_conflicts() {
    let work = tempfile::tempdir().unwrap();
    let fleet = write_fleet(work.path(), 2, "");
    let file = work.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a directory"));

    let out = work.path().join("repo");
    std::fs::create_dir_all(out.join("clusters/team-1/c0001")).unwrap();
    std::fs::write(out.join("clusters/team-1/c0001/cluster.yaml"), "hand-written").unwrap();
    let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("was not written by kubectl-capz"));
    assert_eq!(std::fs::read_to_string(out.join("clusters/team-1/c0001/cluster.yaml")).unwrap(), "hand-written");
    assert!(!out.join("clusters/team-0").exists(), "nothing written either");
}

/// The shipped example fleet (Argo CD) and the same fleet with Flux: listing, one object, the index.
#[test]
fn example_fleet_with_gitops_objects() {
    let example_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/fleet");
    let example = std::fs::read_to_string(example_dir.join("fleet.yaml")).unwrap();
    let gitops_block = example.find("gitops:\n").expect("the example has a gitops block");
    for (kind, file) in [
        ("flux", "flux/clusters/payments-payments-prod-weu.yaml"),
        ("argocd", "argocd/clusters/payments-payments-prod-weu.yaml"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let text = match kind {
            "flux" => format!("{}gitops:\n  kind: flux\n", &example[..gitops_block]),
            _ => example.clone(),
        };
        std::fs::write(work.path().join("fleet.yaml"), text).unwrap();
        std::fs::copy(example_dir.join("production.values.yaml"), work.path().join("production.values.yaml")).unwrap();
        let out = work.path().join("repo");
        capz(&[])
            .args(["render", "--gitops", kind, "--fleet"])
            .arg(work.path().join("fleet.yaml"))
            .arg("--out-dir")
            .arg(&out)
            .assert()
            .success();
        let tree = snapshot_tree(&out);
        let listing: Vec<String> = tree.keys().map(|p| p.display().to_string()).collect();
        insta::assert_yaml_snapshot!(format!("example_fleet_{kind}_files"), listing);
        insta::assert_snapshot!(
            format!("example_fleet_{kind}_object"),
            String::from_utf8(tree[Path::new(file)].clone()).unwrap()
        );
        insta::assert_snapshot!(
            format!("example_fleet_{kind}_index"),
            String::from_utf8(tree[&PathBuf::from(kind).join("kustomization.yaml")].clone()).unwrap()
        );
    }
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    capz(&[])
        .args(["render", "--fleet"])
        .arg(example_dir.join("fleet.yaml"))
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    insta::assert_snapshot!(
        "example_fleet_prod_cluster",
        std::fs::read_to_string(out.join("clusters/payments/payments-prod-weu/cluster.yaml")).unwrap()
    );
}

/// Every rendered cluster is validated (schemas of the embedded ASO objects included) unless
/// `--no-validate`.
#[test]
fn clusters_are_validated_unless_no_validate() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(
        work.path(),
        2,
        "- name: odd\n  namespace: team-0\n  flavor: aks-aso\n  values:\n    managedCluster:\n      spec:\n        notAnAksField: true\n",
    );
    let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("cluster `team-0/odd`") && stderr.contains("notAnAksField"), "{stderr}");
    assert!(!out.exists());
    capz(&[]).args(["render", "--no-validate", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    assert!(out.join("clusters/team-0/odd/cluster.yaml").exists());
}

/// ClusterClasses are published once; clusters of a class become topology Clusters pointing at it
/// (across namespaces), and their Flux Kustomizations depend on the class's.
#[test]
fn fleet_with_a_cluster_class() {
    let work = tempfile::tempdir().unwrap();
    let fleet = work.path().join("fleet.yaml");
    std::fs::write(
        &fleet,
        "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\nclusterClasses:\n- name: standard\n  namespace: capz-classes\n  class: aks-aso\nclusters:\n- name: a1\n  namespace: team-a\n  class: standard\n- name: a2\n  namespace: capz-classes\n  class: standard\ngitops:\n  kind: flux\n",
    )
    .unwrap();
    let out = work.path().join("repo");
    capz(&[]).args(["render", "--gitops", "flux", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().success();
    let tree = snapshot_tree(&out);
    let listing: Vec<String> =
        tree.keys().map(|p| p.display().to_string()).filter(|p| !p.ends_with(".kubectl-capz-owned")).collect();
    insta::assert_yaml_snapshot!("class_fleet_files", listing);

    let class =
        String::from_utf8(tree[Path::new("clusterclasses/capz-classes/standard/clusterclass.yaml")].clone()).unwrap();
    assert!(class.contains("kind: ClusterClass\nmetadata:\n  name: standard\n  namespace: capz-classes\n"), "{class}");
    let a1 = String::from_utf8(tree[Path::new("clusters/team-a/a1/cluster.yaml")].clone()).unwrap();
    assert!(a1.contains("    class: standard\n") && a1.contains("    classNamespace: capz-classes\n"), "{a1}");
    let a2 = String::from_utf8(tree[Path::new("clusters/capz-classes/a2/cluster.yaml")].clone()).unwrap();
    assert!(!a2.contains("classNamespace"), "same namespace needs no classNamespace: {a2}");
    let flux = String::from_utf8(tree[Path::new("flux/clusters/team-a-a1.yaml")].clone()).unwrap();
    assert!(
        flux.contains(
            "dependsOn:\n  - name: namespace-team-a\n    namespace: flux-system\n  - name: clusterclass-capz-classes-standard\n    namespace: flux-system\n"
        ),
        "{flux}"
    );
}

/// A fleet entry of flavor aks with a patch CAPZ cannot apply fails like `render aks`: exit 2, the entry and the
/// parameter named, nothing written.
#[test]
fn a_broken_aso_patch_in_a_fleet_entry_names_the_entry_and_the_parameter() {
    let work = tempfile::tempdir().unwrap();
    let fleet = work.path().join("fleet.yaml");
    std::fs::write(
        &fleet,
        "apiVersion: kubectl-capz/v1alpha1
kind: Fleet
clusters:
- name: classic
  namespace: team-0
  flavor: aks
  values:
    kubernetesVersion: v1.33.2
    location: westeurope
    subscriptionId: 00000000-0000-0000-0000-000000000001
    tenantId: 00000000-0000-0000-0000-000000000002
    identity: {name: id, clientId: 00000000-0000-0000-0000-000000000003}
    poolDefaults: {vmSize: Standard_D4s_v5}
    asoManagedClusterPatches:
    - '{\"spec\": {\"enableRBAC\": \"yes\"}}'
",
    )
    .unwrap();
    let out = work.path().join("repo");
    let output = capz(&[]).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("team-0/classic"), "{stderr}");
    assert!(stderr.contains("asoManagedClusterPatches[0]") && stderr.contains("spec.enableRBAC"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

/// With a cache directory, a re-run takes the clusters whose inputs and files are unchanged from the tree (the
/// render record): its exit code, output and tree are those of a `--no-cache` run, after an unchanged re-run,
/// edited and deleted files, a changed fleet and a corrupt record.
#[test]
fn the_render_record_changes_no_result() {
    let work = tempfile::tempdir().unwrap();
    let fleet = write_fleet(work.path(), 12, "");
    let cache = work.path().join("cache");
    let env = [("KUBECTL_CAPZ_CACHE_DIR", cache.to_str().unwrap())];
    let (recorded, plain) = (work.path().join("recorded"), work.path().join("plain"));
    let run = |out: &Path, extra: &[&str]| {
        let output =
            capz(&env).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(out).args(extra).output().unwrap();
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap().replace(out.to_str().unwrap(), "OUT");
        (output.status.code(), text(output.stdout), text(output.stderr))
    };
    let both = |step: &str| {
        let with_record = run(&recorded, &[]);
        assert_eq!(with_record, run(&plain, &["--no-cache"]), "{step}");
        assert_eq!(snapshot_tree(&recorded), snapshot_tree(&plain), "{step}");
        with_record
    };
    assert_eq!(both("first run").0, Some(0));
    let records: Vec<_> = std::fs::read_dir(cache.join("fleet")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(records.len(), 1, "one record, of the run without --no-cache: {records:?}");
    let record = std::fs::read(&records[0]).unwrap();
    assert_eq!(
        both("unchanged re-run"),
        (Some(0), String::new(), "OUT: 12 clusters, 32 files written, 0 changed\n".into())
    );
    // Another process computed the same input digests (so it reused every unit) and left the record as it was.
    assert_eq!(std::fs::read(&records[0]).unwrap(), record);

    for out in [&recorded, &plain] {
        std::fs::write(out.join("clusters/team-1/c0001/cluster.yaml"), "edited\n").unwrap();
        std::fs::remove_file(out.join("clusters/team-2/c0002/kustomization.yaml")).unwrap();
    }
    let (_, stdout, _) = both("an edited and a deleted file");
    assert_eq!(
        stdout,
        "update OUT/clusters/team-1/c0001/cluster.yaml\ncreate OUT/clusters/team-2/c0002/kustomization.yaml\n"
    );

    let text = std::fs::read_to_string(&fleet).unwrap().replacen("replicas: 2\n", "replicas: 5\n", 1);
    std::fs::write(&fleet, text).unwrap();
    assert_eq!(both("a changed cluster").1, "update OUT/clusters/team-1/c0001/cluster.yaml\n");

    std::fs::write(&records[0], "kubectl-capz render record v1\ngarbage\n").unwrap();
    assert_eq!(both("a corrupt record").1, "");
    for out in [&recorded, &plain] {
        capz(&env).args(["render", "--check", "--fleet"]).arg(&fleet).arg("--out-dir").arg(out).assert().code(0);
    }
}

/// What `additionalAsoCrds` of the config file adds to the ASO kinds checked is among the inputs the render record's
/// digests cover: setting it renders and validates every cluster again (the record is rewritten).
#[test]
fn additional_aso_crds_are_among_the_render_records_inputs() {
    let work = tempfile::tempdir().unwrap();
    let fleet = write_fleet(work.path(), 2, "");
    let cache = work.path().join("cache");
    let env = [("KUBECTL_CAPZ_CACHE_DIR", cache.to_str().unwrap())];
    let out = work.path().join("out");
    let run = || capz(&env).args(["render", "--fleet"]).arg(&fleet).arg("--out-dir").arg(&out).assert().code(0);
    run();
    let record = std::fs::read_dir(cache.join("fleet")).unwrap().next().unwrap().unwrap().path();
    let before = std::fs::read(&record).unwrap();
    run();
    assert_eq!(std::fs::read(&record).unwrap(), before, "an unchanged re-run keeps the record");
    std::fs::write(work.path().join(".kubectl-capz.yaml"), "additionalAsoCrds: managedidentity.azure.com/*\n").unwrap();
    run();
    assert_ne!(std::fs::read(&record).unwrap(), before, "the widened crd-pattern is a new input");
}
