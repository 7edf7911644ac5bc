//! `kubectl capz migrate CLUSTER` against a real kube-apiserver (tools/kube-testenv) with the CAPI, CAPZ and
//! ASO CRDs: a classic cluster (Cluster, AzureManagedCluster, AzureManagedControlPlane, two MachinePools and
//! AzureManagedMachinePools, the old ASO ResourceGroup / ManagedCluster / ManagedClustersAgentPools with owner
//! references, finalizers and status.agentPoolProfiles, the credential Secret) migrated by the binary, run as a
//! subprocess, while a thread of the test plays CAPZ, ASO and the garbage collector.

use crate::support;

use crate::classic_cluster;

use std::process::Command;
use std::time::Duration;

use serde_json::json;

use classic_cluster::*;

#[test]
fn dry_run_prints_the_plan_with_real_names_and_changes_nothing() {
    let fixture = Fixture::new("mig-dry");
    let before = fixture.resource_versions();
    let out = fixture.run(&[]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(fixture.resource_versions(), before, "the dry run changed a resourceVersion");
    let stdout = text(&out.stdout);
    assert!(!stdout.contains(SECRET_VALUE) && !stdout.contains("czNjcjN0"), "a Secret value leaked:\n{stdout}");
    // The same through the real kubectl's plugin mechanism (`kubectl capz`), the binary on PATH.
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-capz")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let args = fixture.args(&[]);
    let through_kubectl = Command::new(support::kubectl_program())
        .arg("capz")
        .args(&args)
        .env("PATH", path)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    assert_eq!(through_kubectl.status.code(), Some(0), "{}", text(&through_kubectl.stderr));
    assert_eq!(text(&through_kubectl.stdout), stdout);
    assert_eq!(fixture.resource_versions(), before, "the dry run through kubectl changed a resourceVersion");
    insta::with_settings!({filters => vec![(fixture.new.as_str(), "NEW_NS"), (fixture.old.as_str(), "OLD_NS")]}, {
        insta::assert_snapshot!("migrate_live_dry_run", stdout);
    });
}

#[test]
fn unmet_preconditions_exit_2_naming_the_object() {
    let fixture = Fixture::new("mig-pre");
    support::apiserver().kubectl_ok(&["delete", "secret", "aso-credentials", "-n", &fixture.old]);
    let out = fixture.run(&[]);
    assert_eq!(out.status.code(), Some(2), "stdout: {}", text(&out.stdout));
    assert!(text(&out.stderr).contains(&format!("Secret {}/aso-credentials", fixture.old)), "{}", text(&out.stderr));
    // A cluster that does not exist.
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
        .args(["migrate", "nope", "-n", &fixture.old, "--to-namespace", "x", "--kubeconfig"])
        .arg(&support::apiserver().kubeconfig)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("Cluster {}/nope does not exist", fixture.old)),
        "{}",
        text(&out.stderr)
    );
    // A new namespace that already holds an object of a kind the migration creates: a name-clash risk.
    let server = support::apiserver();
    server.kubectl_ok(&["create", "namespace", &fixture.new]);
    server.kubectl_stdin_ok(
        &["create", "-f", "-"],
        &format!(
            "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {{name: c1, namespace: {}}}\n",
            fixture.new
        ),
    );
    server.kubectl_stdin_ok(
        &["create", "-f", "-"],
        &format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: aso-credentials, namespace: {}}}\n", fixture.old),
    );
    let out = fixture.run(&[]);
    assert_eq!(out.status.code(), Some(2), "stdout: {}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains(&format!("Namespace {0} is not empty: Cluster {0}/c1 exists", fixture.new)),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("Preconditions NOT met"), "{}", text(&out.stdout));
    // --execute without --yes and without a terminal.
    let out = fixture.run(&["--execute"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("stdin is not a terminal"), "{}", text(&out.stderr));
}

#[test]
fn execute_yes_migrates_and_disarms_every_old_aso_object_before_its_finalizers_go() {
    let fixture = Fixture::new("mig-exec");
    let controllers = Controllers::start(&fixture);
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_migrated(&fixture);
    // The last events may still be on their way.
    std::thread::sleep(Duration::from_millis(500));
    let events = controllers.events();
    drop(controllers);
    assert_disarmed_before_finalizers_removed(&events);
    // A re-run finds everything done and changes nothing.
    let before = fixture.resource_versions();
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(fixture.resource_versions(), before);
}

#[test]
fn a_run_killed_after_each_step_resumes_and_finishes() {
    let fixture = Fixture::new("mig-kill");
    let controllers = Controllers::start(&fixture);
    // The controllers serve each step's waits and no further, so a run blocks at the next wait until killed.
    let steps = [
        ("1", 0),
        ("2", 1),
        ("3", 1),
        ("4", 1),
        ("5", 1),
        ("6a", 2),
        ("6b", 3),
        ("6c", 4),
        ("6d", 5),
        ("7a", 5),
        ("7b", 5),
    ];
    let mut killed = 0;
    for (step, level) in steps {
        controllers.set_level(level);
        let (was_killed, log) = fixture.run_until_done(step);
        if was_killed {
            killed += 1;
            assert!(!log.contains("Error") && !log.contains("error:"), "step {step}:\n{log}");
        }
    }
    eprintln!("{killed} of {} runs were killed right after doing their step", steps.len());
    // A step followed by a wait the controllers do not serve yet always ends with a kill right after it (1, 5,
    // 6a, 6b, 6c); elsewhere a run may find its step already done (the controllers served the wait before
    // the run reached it, or the previous kill landed one step late) and is killed there.
    assert!(killed >= 5, "only {killed} runs were killed right after their step");
    controllers.set_level(ALL_LEVELS);
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_migrated(&fixture);
    std::thread::sleep(Duration::from_millis(500));
    assert_disarmed_before_finalizers_removed(&controllers.events());
}

#[test]
fn a_rearmed_old_aso_object_stops_the_run_and_changes_nothing() {
    let fixture = Fixture::new("mig-rearm");
    let controllers = Controllers::start(&fixture);
    let (killed, log) = fixture.run_until_done("5");
    assert!(killed, "{log}");
    drop(controllers);
    // Someone re-arms the old ManagedCluster: reconcile-policy back to manage, ASO's finalizer back.
    let patch =
        json!({"metadata": {"annotations": {SKIP: "manage"}, "finalizers": ["serviceoperator.azure.com/finalizer"]}});
    support::apiserver().kubectl_ok(&[
        "patch",
        "managedclusters.containerservice.azure.com",
        "c1",
        "-n",
        &fixture.old,
        "--type",
        "merge",
        "-p",
        &patch.to_string(),
    ]);
    let before = fixture.resource_versions();
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unexpected state"), "{stderr}");
    assert!(stderr.contains(&format!("ManagedCluster {}/c1 has {SKIP}: manage (re-armed)", fixture.old)), "{stderr}");
    assert_eq!(fixture.resource_versions(), before, "the stopped run changed something");
    // The dry run says the same and also exits 2.
    let out = fixture.run(&[]);
    assert_eq!(out.status.code(), Some(2), "stdout: {}", text(&out.stdout));
}

#[test]
fn out_dir_gets_the_offline_migration_of_the_live_objects() {
    let fixture = Fixture::new("mig-out");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("repo");
    let before = fixture.resource_versions();
    let out = fixture.run(&["--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(fixture.resource_versions(), before, "--out-dir changed the cluster");
    let manifests = std::fs::read_to_string(out_dir.join("c1/aso-managed.yaml")).unwrap();
    let documents = capz::manifest::parse_documents(&manifests, "aso-managed.yaml").unwrap();
    let kinds: Vec<String> =
        documents.iter().map(|d| format!("{} {}", d.kind(), d.namespace().unwrap_or(""))).collect();
    let new = &fixture.new;
    assert_eq!(
        kinds,
        [
            format!("Cluster {new}"),
            format!("AzureASOManagedCluster {new}"),
            format!("AzureASOManagedControlPlane {new}"),
            format!("MachinePool {new}"),
            format!("AzureASOManagedMachinePool {new}"),
            format!("MachinePool {new}"),
            format!("AzureASOManagedMachinePool {new}"),
        ]
    );
    assert!(!manifests.contains("resourceVersion") && !manifests.contains("uid:"), "{manifests}");
    // Never overwritten: a second run refuses.
    let out = fixture.run(&["--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("does not overwrite"), "{}", text(&out.stderr));
}

#[test]
fn cluster_and_filename_are_mutually_exclusive_and_cluster_needs_to_namespace() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_kubectl-capz")).args(["migrate", "c1", "-f", "x.yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be used with"), "{}", text(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-capz")).args(["migrate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--filename") || text(&out.stderr).contains("CLUSTER"), "{}", text(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-capz")).args(["migrate", "c1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--to-namespace NEW is required"), "{}", text(&out.stderr));
}

#[test]
fn the_guard_refuses_to_strip_an_old_aso_object_rearmed_mid_step() {
    let fixture = Fixture::new("mig-guard-skip");
    let _controllers = Controllers::start(&fixture);
    let old = fixture.old.clone();
    let error = run_with_hook(&fixture, |action| {
        if action.describe().starts_with(&format!("remove the finalizers of ManagedCluster {old}/c1")) {
            // Between the skip patch and the finalizer removal, someone sets the policy back to manage.
            support::apiserver().kubectl_ok(&[
                "annotate",
                "--overwrite",
                "managedclusters.containerservice.azure.com",
                "c1",
                "-n",
                &old,
                &format!("{SKIP}=manage"),
            ]);
        }
    });
    let message = error.to_string();
    assert!(
        message.contains(&format!("refused to remove the finalizers of ManagedCluster {old}/c1"))
            && message.contains("reconcile-policy: skip"),
        "{message}"
    );
    let mc = support::apiserver().kubectl_ok(&[
        "get",
        "managedclusters.containerservice.azure.com",
        "c1",
        "-n",
        &old,
        "-o",
        "jsonpath={.metadata.finalizers}",
    ]);
    assert!(mc.contains("serviceoperator.azure.com/finalizer"), "the finalizer stayed: {mc}");
}

#[test]
fn the_guard_refuses_to_delete_old_objects_when_the_new_cluster_is_not_available() {
    let fixture = Fixture::new("mig-guard-avail");
    let controllers = Controllers::start(&fixture);
    let (new, old) = (fixture.new.clone(), fixture.old.clone());
    let error = run_with_hook(&fixture, |action| {
        if action.describe().starts_with(&format!("delete Cluster {old}/c1")) {
            // Right before the first deletion the new Cluster stops being Available (controllers held back).
            controllers.set_level(4);
            support::apiserver().kubectl_ok(&[
                "patch", "clusters.cluster.x-k8s.io", "c1", "-n", &new, "--subresource", "status", "--type", "merge",
                "-p", r#"{"status":{"v1beta2":{"conditions":[{"type":"Available","status":"False","reason":"Down","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}}"#,
            ]);
        }
    });
    let message = error.to_string();
    assert!(
        message.contains(&format!("refused to delete Cluster {old}/c1"))
            && message.contains("before the new Cluster is Available"),
        "{message}"
    );
    let cluster = support::apiserver().kubectl_ok(&[
        "get",
        "clusters.cluster.x-k8s.io",
        "c1",
        "-n",
        &old,
        "-o",
        "jsonpath={.metadata.deletionTimestamp}",
    ]);
    assert_eq!(cluster, "", "the old Cluster was not deleted");
}

#[test]
fn on_a_terminal_each_step_asks_and_a_no_stops_the_run_there() {
    let fixture = Fixture::new("mig-tty");
    let controllers = Controllers::start(&fixture);
    // CAPZ held back, so step 2 is still to do when asked: yes to step 1, no to step 2.
    controllers.set_level(0);
    let (code, screen) = run_on_terminal(&fixture, "60s", "y\nn\n");
    assert!(screen.contains("Run step 1? [y/N]"), "{screen}");
    assert!(screen.contains("Run step 2? [y/N]"), "{screen}");
    assert!(screen.contains("step 2 not confirmed"), "{screen}");
    assert_eq!(code, Some(2), "{screen}");
    let server = support::apiserver();
    let paused = server.kubectl_ok(&[
        "get",
        "clusters.cluster.x-k8s.io",
        "c1",
        "-n",
        &fixture.old,
        "-o",
        "jsonpath={.spec.paused}",
    ]);
    assert_eq!(paused, "true");
    let policy = server.kubectl_ok(&[
        "get",
        "managedclusters.containerservice.azure.com",
        "c1",
        "-n",
        &fixture.old,
        "-o",
        "jsonpath={.metadata.annotations.serviceoperator\\.azure\\.com/reconcile-policy}",
    ]);
    assert_eq!(policy, "", "step 3 did not run");
    // The run resumes from step 2.
    controllers.set_level(ALL_LEVELS);
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("step 1: pause the old Cluster: already done"), "{}", text(&out.stderr));
    assert_migrated(&fixture);
}

#[test]
fn a_secret_copy_with_other_data_stops_the_run_and_changes_nothing() {
    let fixture = Fixture::new("mig-secret");
    let controllers = Controllers::start(&fixture);
    controllers.set_level(1);
    let (killed, log) = fixture.run_until_done("5");
    assert!(killed, "{log}");
    support::apiserver().kubectl_ok(&[
        "patch",
        "secret",
        "aso-credentials",
        "-n",
        &fixture.new,
        "--type",
        "merge",
        "-p",
        r#"{"stringData":{"AZURE_CLIENT_SECRET":"another"}}"#,
    ]);
    let before = fixture.resource_versions();
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("Secret {}/aso-credentials exists with other data", fixture.new)), "{stderr}");
    assert!(!stderr.contains("another"), "{stderr}");
    assert_eq!(fixture.resource_versions(), before, "the stopped run changed something");
}

#[test]
fn a_wait_shows_its_progress_on_a_terminal_and_times_out_with_exit_2() {
    let fixture = Fixture::new("mig-wait");
    let controllers = Controllers::start(&fixture);
    // CAPZ never clears block-move: step 2 waits until --timeout.
    controllers.set_level(0);
    let (code, screen) = run_on_terminal(&fixture, "2s", "y\ny\n");
    assert_eq!(code, Some(2), "{screen}");
    assert!(
        screen.contains(&format!(
            "waiting 1s: wait until {BLOCK_MOVE} is gone from AzureManagedControlPlane {}/c1",
            fixture.old
        )),
        "{screen}"
    );
    assert!(screen.contains(&format!("timed out after 2s waiting for wait until {BLOCK_MOVE} is gone")), "{screen}");
    // Resumable: with CAPZ back, the same command finishes.
    controllers.set_level(ALL_LEVELS);
    let out = fixture.run(&["--execute", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_migrated(&fixture);
}

/// A live classic cluster with `enablePreviewFeatures: true` migrates under CAPZ v1.26 and v1.27 (`--out-dir`: the
/// offline migration of the live objects) into containerservice v20251002preview, which both targets' CAPZ writes
/// for preview clusters and the server serves, and the result validates clean under the same target.
#[test]
fn a_preview_cluster_migrates_under_each_target_into_what_its_capz_writes() {
    let fixture = Fixture::new("mig-preview");
    let server = support::apiserver();
    server.kubectl_ok(&[
        "patch",
        "azuremanagedcontrolplane",
        "c1",
        "-n",
        &fixture.old,
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"enablePreviewFeatures":true}}"#,
    ]);
    for target in ["v1.26", "v1.27"] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("repo");
        let out = fixture.run(&["--out-dir", out_dir.to_str().unwrap(), "--capz-version", target]);
        assert_eq!(out.status.code(), Some(0), "{target}: {}", text(&out.stderr));
        let written = out_dir.join("c1/aso-managed.yaml");
        let manifests = std::fs::read_to_string(&written).unwrap();
        let mut embedded = std::collections::BTreeSet::new();
        for document in capz::manifest::parse_documents(&manifests, "aso-managed.yaml").unwrap() {
            for resource in document.value.pointer("/spec/resources").and_then(|r| r.as_array()).into_iter().flatten() {
                embedded.insert(format!(
                    "{} {}",
                    resource["apiVersion"].as_str().unwrap(),
                    resource["kind"].as_str().unwrap()
                ));
            }
        }
        assert_eq!(
            embedded.into_iter().collect::<Vec<_>>(),
            [
                "containerservice.azure.com/v20251002preview ManagedCluster",
                "containerservice.azure.com/v20251002preview ManagedClustersAgentPool",
                "resources.azure.com/v1api20200601 ResourceGroup",
            ],
            "{target}"
        );
        let checked = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
            .args(["validate", "--capz-version", target, written.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(checked.status.code(), Some(0), "{target}: {}{}", text(&checked.stdout), text(&checked.stderr));
        assert!(!text(&checked.stdout).contains("error"), "{target}: {}", text(&checked.stdout));
    }
}
