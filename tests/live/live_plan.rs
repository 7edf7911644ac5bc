//! `plan` and `diff` of a topology Cluster against a real kube-apiserver (tools/kube-testenv):
//! the ClusterClass read live gives the same plan as the files; the planned objects are accepted
//! by the API server; after one live object is changed, planning against the cluster (with the
//! controller's names) and `kubectl capz diff` report exactly that change; pools removed from
//! the topology show up as removals.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::path::Path;

use serde_json::Value;

const CUSTOM: &str = "tests/fixtures/topology/custom";

/// The custom class and cluster moved into `namespace`, written to a temp dir.
fn fixtures(namespace: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["class.yaml", "cluster.yaml"] {
        let text = std::fs::read_to_string(Path::new(CUSTOM).join(name)).unwrap();
        std::fs::write(dir.path().join(name), text.replace("namespace: fleet", &format!("namespace: {namespace}")))
            .unwrap();
    }
    dir
}

fn capz(args: &[&str]) -> std::process::Output {
    capz_command().args(args).output().unwrap()
}

fn objects(yaml: &str) -> Vec<Value> {
    capz::manifest::parse_documents(yaml, "<plan>").unwrap().into_iter().map(|d| d.value).collect()
}

/// Is every field of `want` present with the same value in `got`?
fn subset(want: &Value, got: &Value, path: &str, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, v) in w {
                let child = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                match g.get(k) {
                    Some(gv) => subset(v, gv, &child, out),
                    None => out.push(child),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            for (i, (a, b)) in w.iter().zip(g).enumerate() {
                subset(a, b, &format!("{path}/{i}"), out);
            }
        }
        (w, g) if w == g => {}
        _ => out.push(path.to_string()),
    }
}

/// Fields where planned objects differ from their live counterparts, as `Kind/name:pointer`.
fn differences(planned: &[Value], live: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for p in planned {
        let key = |o: &Value| (o["kind"].clone(), o["metadata"]["name"].clone());
        let Some(l) = live.iter().find(|l| key(l) == key(p)) else {
            out.push(format!("{}/{}: missing", p["kind"], p["metadata"]["name"]));
            continue;
        };
        let mut fields = Vec::new();
        subset(&p["spec"], &l["spec"], "/spec", &mut fields);
        subset(&p["metadata"]["labels"], &l["metadata"]["labels"], "/metadata/labels", &mut fields);
        for f in fields {
            out.push(format!("{}/{}:{f}", p["kind"].as_str().unwrap(), p["metadata"]["name"].as_str().unwrap()));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planned_objects_are_created_and_a_live_change_is_the_only_difference() {
    let api = support::apiserver();
    let kubeconfig = api.kubeconfig.to_str().unwrap().to_string();
    api.kubectl_ok(&["apply", "-f", "tests/fixtures/topology/live/kubeadmconfig-crd.yaml"]);
    api.wait_established(&["crd/kubeadmconfigs.bootstrap.cluster.x-k8s.io"]);
    let ns = api.namespace("plan");
    let dir = fixtures(&ns);
    let class = dir.path().join("class.yaml");
    let cluster = dir.path().join("cluster.yaml");
    api.kubectl_ok(&["apply", "-f", class.to_str().unwrap()]);

    // The class read from the server plans exactly like the files.
    let offline = capz(&["plan", "--no-validate", "-f", dir.path().to_str().unwrap()]);
    assert_eq!(offline.status.code(), Some(0), "{}", String::from_utf8_lossy(&offline.stderr));
    let live = capz(&[
        "plan",
        "--no-validate",
        "--from-cluster",
        "--kubeconfig",
        &kubeconfig,
        "-f",
        cluster.to_str().unwrap(),
    ]);
    assert_eq!(live.status.code(), Some(0), "{}", String::from_utf8_lossy(&live.stderr));
    let planned = objects(&String::from_utf8(live.stdout).unwrap());
    assert_eq!(planned, objects(&String::from_utf8(offline.stdout).unwrap()));
    assert_eq!(planned.len(), 9);

    // The real API server accepts every planned object (schemas, CEL, strict fields).
    let yaml = capz::manifest::to_yaml_documents(planned.iter());
    let applied = api.kubectl_stdin_ok(&["apply", "--server-side", "--field-manager=capi-topology", "-f", "-"], &yaml);
    assert_eq!(applied.lines().filter(|l| l.ends_with("serverside-applied")).count(), 9, "{applied}");

    // Planning against the cluster now finds the controller's objects: no difference.
    let options = capz::cluster::ClusterOptions { kubeconfig: Some(api.kubeconfig.clone()), ..Default::default() };
    let client = capz::cluster::Cluster::connect(&options).await.unwrap();
    let documents = capz::manifest::read_paths(&[dir.path().to_str().unwrap().to_string()]).unwrap();
    let cluster_doc = documents.iter().find(|d| d.kind() == "Cluster").unwrap();
    let before = capz::topology::live::plan_against_live(&client, cluster_doc, &documents).await.unwrap();
    assert_eq!(before.live.len(), 9);
    assert_eq!(differences(&before.planned, &before.live), Vec::<String>::new());

    // Change one live object: exactly that field is reported.
    let pool = planned
        .iter()
        .find(|o| {
            o["kind"] == "AzureASOManagedMachinePool"
                && o["metadata"]["labels"]["topology.cluster.x-k8s.io/pool-name"] == "user-big"
        })
        .unwrap();
    let pool_name = pool["metadata"]["name"].as_str().unwrap();
    api.kubectl_ok(&[
        "-n",
        &ns,
        "patch",
        "azureasomanagedmachinepool",
        pool_name,
        "--type=json",
        "-p",
        r#"[{"op":"replace","path":"/spec/resources/0/spec/vmSize","value":"Standard_D16s_v3"}]"#,
    ]);
    let after = capz::topology::live::plan_against_live(&client, cluster_doc, &documents).await.unwrap();
    assert_eq!(
        differences(&after.planned, &after.live),
        vec![format!("AzureASOManagedMachinePool/{pool_name}:/spec/resources/0/spec/vmSize")]
    );

    // kubectl's own server-side diff of the plan agrees: one object, that field.
    let out = api.kubectl_stdin(
        &["diff", "--server-side", "--force-conflicts", "--field-manager=capi-topology", "-f", "-"],
        &yaml,
    );
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let diff = String::from_utf8(out.stdout).unwrap();
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(diff.matches("diff -u").count(), 1, "{diff}");
    assert!(diff.contains(&format!("AzureASOManagedMachinePool.{ns}.{pool_name}")), "{diff}");
    let significant: Vec<&&str> = changed.iter().filter(|l| !l.contains("generation:")).collect();
    assert_eq!(significant, [&"-      vmSize: Standard_D16s_v3", &"+      vmSize: Standard_D8s_v3"], "{diff}");

    // `kubectl capz diff` of the class and the topology Cluster: exactly that change.
    let out = capz(&["diff", "-o", "json", "--kubeconfig", &kubeconfig, "-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let objects = report["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 5 + 9, "class, 4 templates and the 9 planned objects: {report:#}");
    let changed: Vec<&Value> = objects.iter().filter(|o| o["status"] != "unchanged").collect();
    assert_eq!(changed.len(), 1, "{report:#}");
    assert_eq!(changed[0]["kind"], "AzureASOManagedMachinePool");
    assert_eq!(changed[0]["name"], pool_name);
    let changes = changed[0]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{report:#}");
    assert!(changes[0]["path"].as_str().unwrap().ends_with(".spec.vmSize"), "{report:#}");
    assert_eq!(
        (&changes[0]["before"], &changes[0]["after"]),
        (&Value::from("Standard_D16s_v3"), &Value::from("Standard_D8s_v3"))
    );
    let text = capz(&["diff", "--kubeconfig", &kubeconfig, "-f", dir.path().to_str().unwrap()]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.matches("\n--- live/").count() + usize::from(text.starts_with("--- live/")), 1, "{text}");
    assert!(text.contains("-      vmSize: Standard_D16s_v3\n+      vmSize: Standard_D8s_v3\n"), "{text}");

    // A pool removed from the topology: its objects are what the controller would delete.
    let text = std::fs::read_to_string(&cluster).unwrap();
    let start = text.find("      - class: aks-user").unwrap();
    std::fs::write(&cluster, &text[..start]).unwrap();
    let documents = capz::manifest::read_paths(&[dir.path().to_str().unwrap().to_string()]).unwrap();
    let cluster_doc = documents.iter().find(|d| d.kind() == "Cluster").unwrap();
    let shrunk = capz::topology::live::plan_against_live(&client, cluster_doc, &documents).await.unwrap();
    let mut removed: Vec<String> = shrunk.removed.iter().map(|o| o["kind"].as_str().unwrap().to_string()).collect();
    removed.sort();
    assert_eq!(removed, ["AzureASOManagedMachinePool", "KubeadmConfig", "MachinePool"]);
    assert!(
        shrunk.removed.iter().all(|o| o["metadata"]["labels"]["topology.cluster.x-k8s.io/pool-name"] == "user-big")
    );
    let out = capz(&["diff", "--kubeconfig", &kubeconfig, "-f", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let notes = String::from_utf8_lossy(&out.stderr);
    assert_eq!(notes.matches("no longer in the topology; the topology controller deletes it").count(), 3, "{notes}");
}
