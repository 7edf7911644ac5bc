//! The world of the live migration tests: a classic cluster created on the test kube-apiserver, the
//! controllers a test thread plays (CAPZ, ASO, the garbage collector) with a watch recorder on the old ASO
//! objects, ways to run the binary (plain, killed after a step, on a pseudo-terminal, in-process with a hook),
//! and the checks of a finished migration.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kube::api::{ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent};
use serde_json::{Value, json};

pub const SKIP: &str = "serviceoperator.azure.com/reconcile-policy";
pub const BLOCK_MOVE: &str = "clusterctl.cluster.x-k8s.io/block-move";
pub const ADOPT: &str = "sigs.k8s.io/cluster-api-provider-azure-adopt";
pub const SECRET_VALUE: &str = "s3cr3t-client-value";

#[derive(Clone, Copy)]
pub struct K {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
}

pub const CLUSTER: K = K { api_version: "cluster.x-k8s.io/v1beta1", kind: "Cluster", plural: "clusters" };
pub const MACHINE_POOL: K = K { api_version: "cluster.x-k8s.io/v1beta1", kind: "MachinePool", plural: "machinepools" };
pub const AMC: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureManagedCluster",
    plural: "azuremanagedclusters",
};
pub const AMCP: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureManagedControlPlane",
    plural: "azuremanagedcontrolplanes",
};
pub const AMMP: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureManagedMachinePool",
    plural: "azuremanagedmachinepools",
};
pub const ASO_MC: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureASOManagedCluster",
    plural: "azureasomanagedclusters",
};
pub const ASO_CP: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureASOManagedControlPlane",
    plural: "azureasomanagedcontrolplanes",
};
pub const ASO_MP: K = K {
    api_version: "infrastructure.cluster.x-k8s.io/v1beta1",
    kind: "AzureASOManagedMachinePool",
    plural: "azureasomanagedmachinepools",
};
pub const RG: K =
    K { api_version: "resources.azure.com/v1api20200601", kind: "ResourceGroup", plural: "resourcegroups" };
pub const MC: K =
    K { api_version: "containerservice.azure.com/v1api20250801", kind: "ManagedCluster", plural: "managedclusters" };
pub const AP: K = K {
    api_version: "containerservice.azure.com/v1api20250801",
    kind: "ManagedClustersAgentPool",
    plural: "managedclustersagentpools",
};
pub const SECRET: K = K { api_version: "v1", kind: "Secret", plural: "secrets" };
pub const ALL: [K; 12] = [CLUSTER, MACHINE_POOL, AMC, AMCP, AMMP, ASO_MC, ASO_CP, ASO_MP, RG, MC, AP, SECRET];
pub const POOLS: [&str; 2] = ["pool0", "pool1"];

pub fn api(client: &kube::Client, k: K, ns: &str) -> kube::Api<DynamicObject> {
    let (group, version) = k.api_version.rsplit_once('/').unwrap_or(("", k.api_version));
    let resource = ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: k.api_version.into(),
        kind: k.kind.into(),
        plural: k.plural.into(),
    };
    kube::Api::namespaced_with(client.clone(), ns, &resource)
}

pub async fn get(client: &kube::Client, k: K, ns: &str, name: &str) -> Option<Value> {
    api(client, k, ns).get_opt(name).await.unwrap().map(|o| serde_json::to_value(o).unwrap())
}

pub async fn create(client: &kube::Client, k: K, ns: &str, object: Value) {
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    match api(client, k, ns).create(&PostParams::default(), &object).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 409 => {}
        Err(e) => panic!("create {}: {e}", k.kind),
    }
}

pub async fn patch_status(client: &kube::Client, k: K, ns: &str, name: &str, status: Value) {
    api(client, k, ns)
        .patch_status(name, &PatchParams::default(), &Patch::Merge(json!({"status": status})))
        .await
        .unwrap_or_else(|e| panic!("status of {} {ns}/{name}: {e}", k.kind));
}

pub fn condition(kind: &str) -> Value {
    json!({"type": kind, "status": "True", "reason": "Succeeded", "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z"})
}

pub fn has_condition(object: &Value, kind: &str) -> bool {
    ["/status/conditions", "/status/v1beta2/conditions"]
        .iter()
        .any(|p| object.pointer(p).and_then(Value::as_array).is_some_and(|c| c.iter().any(|c| c["type"] == kind)))
}

/// A classic cluster `c1` in `ns`, as CAPZ leaves it running: finalizers, block-move, ASO objects owned by the
/// CAPZ objects, the ManagedCluster's status.agentPoolProfiles.
pub struct Fixture {
    pub old: String,
    pub new: String,
}

impl Fixture {
    pub fn new(prefix: &str) -> Fixture {
        let server = crate::support::apiserver();
        let old = server.namespace(prefix);
        let new = format!("{old}-aso");
        let capi = format!(
            r#"
apiVersion: v1
kind: Secret
metadata: {{name: aso-credentials, namespace: {old}}}
type: Opaque
stringData: {{AZURE_SUBSCRIPTION_ID: 00000000-0000-0000-0000-000000000001, AZURE_TENANT_ID: 00000000-0000-0000-0000-000000000002, AZURE_CLIENT_ID: 00000000-0000-0000-0000-000000000003, AZURE_CLIENT_SECRET: {SECRET_VALUE}}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {{name: c1, namespace: {old}, finalizers: [cluster.cluster.x-k8s.io]}}
spec:
  clusterNetwork: {{services: {{cidrBlocks: [10.0.0.0/16]}}}}
  controlPlaneRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}}
  infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: c1}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedCluster
metadata: {{name: c1, namespace: {old}}}
spec: {{}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: c1
  namespace: {old}
  finalizers: [azurecluster.infrastructure.cluster.x-k8s.io]
  annotations: {{"{BLOCK_MOVE}": "true"}}
spec:
  location: westeurope
  resourceGroupName: c1-rg
  subscriptionID: 00000000-0000-0000-0000-000000000001
  version: v1.33.2
  sshPublicKey: c3NoLXJzYSBBQUFBQjNOemFDMXljMkVBQUFBREFRQUJBQUFCQVFDCg==
  identityRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureClusterIdentity, name: id, namespace: {old}}}
"#
        );
        let mut text = capi;
        for (index, pool) in POOLS.iter().enumerate() {
            let mode = if index == 0 { "System" } else { "User" };
            text.push_str(&format!(
                r#"---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {{name: {pool}, namespace: {old}, finalizers: [machinepool.cluster.x-k8s.io]}}
spec:
  clusterName: c1
  replicas: 2
  template:
    spec:
      clusterName: c1
      version: v1.33.2
      bootstrap: {{dataSecretName: ""}}
      infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: {pool}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata:
  name: {pool}
  namespace: {old}
  finalizers: [azurecluster.infrastructure.cluster.x-k8s.io]
  annotations: {{"{BLOCK_MOVE}": "true"}}
spec: {{mode: {mode}, sku: Standard_D2s_v3, name: {pool}}}
"#
            ));
        }
        server.kubectl_stdin_ok(&["create", "-f", "-"], &text);
        let uid = |kind: &str, name: &str| {
            server.kubectl_ok(&["get", kind, name, "-n", &old, "-o", "jsonpath={.metadata.uid}"])
        };
        let owner = |kind: &str, name: &str| {
            let resource = format!("{}.infrastructure.cluster.x-k8s.io", kind.to_ascii_lowercase());
            json!([{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": kind, "name": name,
                "uid": uid(&resource, name), "controller": true, "blockOwnerDeletion": true}])
        };
        let aso_meta = |name: &str, owners: Value| {
            json!({"name": name, "namespace": old, "ownerReferences": owners,
                "finalizers": ["serviceoperator.azure.com/finalizer"],
                "annotations": {"serviceoperator.azure.com/credential-from": "aso-credentials"}})
        };
        let mut aso = vec![
            json!({"apiVersion": RG.api_version, "kind": "ResourceGroup", "metadata": aso_meta("c1-rg", owner("AzureManagedControlPlane", "c1")),
                "spec": {"azureName": "c1-rg", "location": "westeurope", "tags": {"sigs.k8s.io_cluster-api-provider-azure_cluster_c1": "owned"}}}),
            json!({"apiVersion": MC.api_version, "kind": "ManagedCluster", "metadata": aso_meta("c1", owner("AzureManagedControlPlane", "c1")),
                "spec": {"azureName": "c1", "owner": {"name": "c1-rg"}, "location": "westeurope", "dnsPrefix": "c1",
                    "kubernetesVersion": "1.33.2", "identity": {"type": "SystemAssigned"},
                    "operatorSpec": {"secrets": {"adminCredentials": {"name": "c1-kubeconfig", "key": "value"}}}}}),
        ];
        for (index, pool) in POOLS.iter().enumerate() {
            let mode = if index == 0 { "System" } else { "User" };
            aso.push(json!({"apiVersion": AP.api_version, "kind": "ManagedClustersAgentPool",
                "metadata": aso_meta(pool, owner("AzureManagedMachinePool", pool)),
                "spec": {"azureName": pool, "owner": {"name": "c1"}, "count": 2, "mode": mode, "vmSize": "Standard_D2s_v3"}}));
        }
        server.kubectl_stdin_ok(
            &["create", "-f", "-"],
            &serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": aso})).unwrap(),
        );
        let profiles: Vec<Value> = POOLS
            .iter()
            .enumerate()
            .map(|(i, pool)| {
                json!({"name": pool, "count": 2, "mode": if i == 0 { "System" } else { "User" }, "vmSize": "Standard_D2s_v3",
                    "provisioningState": "Succeeded", "nodeImageVersion": "AKSUbuntu-2204", "powerState": {"code": "Running"},
                    "vnetSubnetID": "/subscriptions/0/resourceGroups/c1-rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"})
            })
            .collect();
        block_on(async {
            let client = server.client().await;
            patch_status(&client, MC, &old, "c1", json!({"agentPoolProfiles": profiles})).await;
        });
        Fixture { old, new }
    }

    pub fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<String> {
        self.args_with_timeout("60s", extra)
    }

    pub fn args_with_timeout(&self, timeout: &str, extra: &[&str]) -> Vec<String> {
        let server = crate::support::apiserver();
        let mut args: Vec<String> = ["migrate", "c1", "-n", &self.old, "--to-namespace", &self.new, "--kubeconfig"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(server.kubeconfig.display().to_string());
        args.extend(["--timeout", timeout, "--poll-interval", "100ms"].iter().map(|s| s.to_string()));
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    pub fn run(&self, extra: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
            .args(self.args(extra))
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Runs `migrate --execute --yes` and kills it as soon as it reports step `step` done (or already done).
    /// Returns whether it was killed right after doing the step, and its stderr.
    pub fn run_until_done(&self, step: &str) -> (bool, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-capz"))
            .args(self.args(&["--execute", "--yes"]))
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut log = String::new();
        let mut killed = false;
        let mut found_done = false;
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            log.push_str(&line);
            log.push('\n');
            if line == format!("step {step}: done") {
                child.kill().unwrap();
                killed = true;
                break;
            }
            if line.starts_with(&format!("step {step}: ")) && line.ends_with(": already done") {
                // An earlier run did this step before its kill landed, or the controllers finished the wait
                // before this run reached it.
                child.kill().unwrap();
                found_done = true;
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            killed || found_done || status.success(),
            "migrate failed before step {step} was done ({status}):\n{log}"
        );
        (killed, log)
    }

    /// resourceVersion of every object of every kind involved, in both namespaces (and the new namespace).
    pub fn resource_versions(&self) -> BTreeMap<String, String> {
        let server = crate::support::apiserver();
        block_on(async {
            let client = server.client().await;
            let mut out = BTreeMap::new();
            for ns in [&self.old, &self.new] {
                for k in ALL {
                    for o in api(&client, k, ns).list(&ListParams::default()).await.unwrap() {
                        let name = o.metadata.name.clone().unwrap_or_default();
                        out.insert(format!("{} {ns}/{name}", k.kind), o.metadata.resource_version.clone().unwrap());
                    }
                }
            }
            let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(client);
            if let Some(ns) = namespaces.get_opt(&self.new).await.unwrap() {
                out.insert(format!("Namespace {}", self.new), ns.metadata.resource_version.unwrap());
            }
            out
        })
    }
}

pub fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
}

/// One watch event on an old ASO object: kind/name, event type, whether it carried reconcile-policy skip, and
/// its finalizers.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub object: String,
    pub event: &'static str,
    pub skip: bool,
    pub finalizers: Vec<String>,
}

/// CAPZ, ASO and the garbage collector, as far as the migration needs them, on the objects of one fixture;
/// plus a recorder of watch events on the old ASO objects. Stops when dropped.
pub struct Controllers {
    stop: Arc<AtomicBool>,
    /// How far the controllers go (see [`play`]): a run blocks at the first wait they do not serve.
    level: Arc<AtomicUsize>,
    events: Arc<Mutex<Vec<Recorded>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Controllers {
    pub fn start(fixture: &Fixture) -> Controllers {
        let stop = Arc::new(AtomicBool::new(false));
        let level = Arc::new(AtomicUsize::new(ALL_LEVELS));
        let events = Arc::new(Mutex::new(Vec::new()));
        let level2 = level.clone();
        let (old, new) = (fixture.old.clone(), fixture.new.clone());
        let (stop2, events2) = (stop.clone(), events.clone());
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            runtime.block_on(async move {
                let client = crate::support::apiserver().client().await;
                for k in [RG, MC, AP] {
                    let stream = api(&client, k, &old).watch(&Default::default(), "0").await.unwrap().boxed();
                    let events = events2.clone();
                    tokio::spawn(record(stream, k.kind, events));
                }
                ready_tx.send(()).unwrap();
                while !stop2.load(Ordering::Relaxed) {
                    play(&client, &old, &new, level2.load(Ordering::Relaxed)).await;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
        });
        ready_rx.recv_timeout(Duration::from_secs(60)).expect("the controllers started");
        Controllers { stop, level, events, thread: Some(thread) }
    }

    pub fn set_level(&self, level: usize) {
        self.level.store(level, Ordering::Relaxed);
    }

    pub fn events(&self) -> Vec<Recorded> {
        self.events.lock().unwrap().clone()
    }
}

impl Drop for Controllers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub async fn record(
    mut stream: futures::stream::BoxStream<'static, kube::Result<WatchEvent<DynamicObject>>>,
    kind: &'static str,
    events: Arc<Mutex<Vec<Recorded>>>,
) {
    while let Some(Ok(event)) = stream.next().await {
        let (name, object) = match event {
            WatchEvent::Added(o) => ("added", o),
            WatchEvent::Modified(o) => ("modified", o),
            WatchEvent::Deleted(o) => ("deleted", o),
            _ => continue,
        };
        let skip = object.metadata.annotations.as_ref().and_then(|a| a.get(SKIP)).map(String::as_str) == Some("skip");
        events.lock().unwrap().push(Recorded {
            object: format!("{kind}/{}", object.metadata.name.clone().unwrap_or_default()),
            event: name,
            skip,
            finalizers: object.metadata.finalizers.clone().unwrap_or_default(),
        });
    }
}

/// Every behaviour of [`play`].
pub const ALL_LEVELS: usize = 6;

/// One pass of the controllers, up to `level`: 1 CAPZ clears block-move, 2 ASO marks the ResourceGroup Ready,
/// 3 the ManagedCluster Ready and CAPZ scaffolds the Cluster, 4 the pools and their scaffolding, 5 the new
/// Cluster Available, 6 the garbage collector.
pub async fn play(client: &kube::Client, old: &str, new: &str, level: usize) {
    // CAPZ on pause: removes block-move from the paused control plane and pools.
    if level >= 1
        && let Some(cluster) = get(client, CLUSTER, old, "c1").await
        && cluster.pointer("/spec/paused") == Some(&json!(true))
    {
        let mut targets = vec![(AMCP, "c1")];
        targets.extend(POOLS.iter().map(|p| (AMMP, *p)));
        for (k, name) in targets {
            if let Some(o) = get(client, k, old, name).await
                && o.pointer("/metadata/annotations").and_then(|a| a.get(BLOCK_MOVE)).is_some()
            {
                let patch = json!({"metadata": {"annotations": {BLOCK_MOVE: null}}});
                let _ = api(client, k, old).patch(name, &PatchParams::default(), &Patch::Merge(patch)).await;
            }
        }
    }
    // ASO: the adopted objects become Ready.
    let mut aso = vec![(RG, "c1-rg"), (MC, "c1")];
    aso.extend(POOLS.iter().map(|p| (AP, *p)));
    let ready_level = |k: &K| {
        if k.kind == "ResourceGroup" {
            2
        } else if k.kind == "ManagedCluster" {
            3
        } else {
            4
        }
    };
    for (k, name) in &aso {
        if level >= ready_level(k)
            && let Some(o) = get(client, *k, new, name).await
            && !has_condition(&o, "Ready")
        {
            patch_status(client, *k, new, name, json!({"conditions": [condition("Ready")]})).await;
        }
    }
    // CAPZ's adoption: scaffolds the Cluster and AzureASOManaged* for the adopted ManagedCluster and pools.
    if level >= 3
        && let Some(mc) = get(client, MC, new, "c1").await
        && mc.pointer(&format!("/metadata/annotations/{}", ADOPT.replace('/', "~1"))).is_some()
    {
        let infra = "infrastructure.cluster.x-k8s.io/v1beta1";
        create(
            client,
            CLUSTER,
            new,
            json!({"apiVersion": CLUSTER.api_version, "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": new},
            "spec": {"controlPlaneRef": {"apiVersion": infra, "kind": "AzureASOManagedControlPlane", "name": "c1"},
                "infrastructureRef": {"apiVersion": infra, "kind": "AzureASOManagedCluster", "name": "c1"}}}),
        )
        .await;
        for k in [ASO_MC, ASO_CP] {
            if get(client, k, new, "c1").await.is_none() {
                create(
                    client,
                    k,
                    new,
                    json!({"apiVersion": infra, "kind": k.kind, "metadata": {"name": "c1", "namespace": new},
                    "spec": {"resources": []}}),
                )
                .await;
            }
        }
    }
    let mut pools_scaffolded = 0;
    for pool in POOLS {
        if level >= 4 && get(client, AP, new, pool).await.is_some() {
            create(client, MACHINE_POOL, new, json!({"apiVersion": MACHINE_POOL.api_version, "kind": "MachinePool",
                "metadata": {"name": pool, "namespace": new},
                "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1", "bootstrap": {"dataSecretName": ""},
                    "infrastructureRef": {"apiVersion": ASO_MP.api_version, "kind": "AzureASOManagedMachinePool", "name": pool}}}}}))
            .await;
            create(
                client,
                ASO_MP,
                new,
                json!({"apiVersion": ASO_MP.api_version, "kind": "AzureASOManagedMachinePool",
                "metadata": {"name": pool, "namespace": new}, "spec": {"resources": []}}),
            )
            .await;
            pools_scaffolded += 1;
        }
    }
    // CAPI: the new Cluster becomes Available once its pools exist.
    if level >= 5
        && pools_scaffolded == POOLS.len()
        && let Some(cluster) = get(client, CLUSTER, new, "c1").await
        && !has_condition(&cluster, "Available")
    {
        patch_status(client, CLUSTER, new, "c1", json!({"v1beta2": {"conditions": [condition("Available")]}})).await;
    }
    // The garbage collector: an old ASO object whose owner is gone is deleted.
    for (k, name) in aso.iter().filter(|_| level >= 6) {
        let Some(o) = get(client, *k, old, name).await else { continue };
        let owners = o.pointer("/metadata/ownerReferences").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut orphaned = !owners.is_empty();
        for owner in &owners {
            let kind = if owner["kind"] == "AzureManagedControlPlane" { AMCP } else { AMMP };
            let live = get(client, kind, old, owner["name"].as_str().unwrap()).await;
            if live.is_some_and(|l| l.pointer("/metadata/uid") == owner.get("uid")) {
                orphaned = false;
            }
        }
        if orphaned {
            let _ = api(client, *k, old).delete(name, &DeleteParams::background()).await;
        }
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the migration finished: old objects gone, new ones in the new namespace, adopted, with pools.
pub fn assert_migrated(fixture: &Fixture) {
    let server = crate::support::apiserver();
    block_on(async {
        let client = server.client().await;
        for k in [CLUSTER, MACHINE_POOL, AMC, AMCP, AMMP, RG, MC, AP] {
            let left = api(&client, k, &fixture.old).list(&ListParams::default()).await.unwrap();
            assert!(
                left.items.is_empty(),
                "{} left in {}: {:?}",
                k.kind,
                fixture.old,
                left.items.iter().map(|o| &o.metadata.name).collect::<Vec<_>>()
            );
        }
        let secret = get(&client, SECRET, &fixture.old, "aso-credentials").await;
        assert!(secret.is_some(), "the credential Secret was copied, not moved");
        let copy = get(&client, SECRET, &fixture.new, "aso-credentials").await.expect("the Secret copy");
        assert_eq!(copy["data"], secret.unwrap()["data"]);
        assert!(
            copy.pointer("/metadata/annotations").is_none() && copy.pointer("/metadata/labels").is_none(),
            "{copy}"
        );
        let mc = get(&client, MC, &fixture.new, "c1").await.expect("the new ManagedCluster");
        assert_eq!(mc.pointer(&format!("/metadata/annotations/{}", ADOPT.replace('/', "~1"))), Some(&json!("true")));
        let profiles = mc.pointer("/spec/agentPoolProfiles").and_then(Value::as_array).expect("agentPoolProfiles");
        let names: Vec<&str> = profiles.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, POOLS);
        assert_eq!(
            profiles[0]["vnetSubnetReference"]["armId"],
            json!("/subscriptions/0/resourceGroups/c1-rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s")
        );
        assert!(profiles[0].get("provisioningState").is_none(), "{}", profiles[0]);
        assert_eq!(mc.pointer("/spec/owner/name"), Some(&json!("c1-rg")));
        assert!(mc.pointer("/spec/operatorSpec/secrets/adminCredentials").is_none(), "{mc}");
        let rg = get(&client, RG, &fixture.new, "c1-rg").await.expect("the new ResourceGroup");
        assert_eq!(rg.pointer("/spec/azureName"), Some(&json!("c1-rg")));
        assert_eq!(rg.pointer("/spec/location"), Some(&json!("westeurope")));
        for pool in POOLS {
            let ap = get(&client, AP, &fixture.new, pool).await.expect("the new agent pool");
            assert_eq!(
                ap.pointer(&format!("/metadata/annotations/{}", ADOPT.replace('/', "~1"))),
                Some(&json!("true"))
            );
            assert_eq!(ap.pointer("/spec/owner/name"), Some(&json!("c1")));
        }
    });
}

/// From the recorded watch events: every old ASO object lost its finalizers, and never without carrying
/// reconcile-policy skip.
pub fn assert_disarmed_before_finalizers_removed(events: &[Recorded]) {
    let mut objects = vec!["ResourceGroup/c1-rg".to_string(), "ManagedCluster/c1".to_string()];
    objects.extend(POOLS.iter().map(|p| format!("ManagedClustersAgentPool/{p}")));
    for object in objects {
        let seen: Vec<&Recorded> = events.iter().filter(|e| e.object == object).collect();
        assert!(
            seen.first().is_some_and(|e| !e.finalizers.is_empty()),
            "{object}: first event has its finalizers: {seen:?}"
        );
        let first_bare = seen.iter().position(|e| e.finalizers.is_empty());
        let Some(first_bare) = first_bare else { panic!("{object}: its finalizers were never removed: {seen:?}") };
        assert!(
            seen[first_bare..].iter().all(|e| e.skip),
            "{object}: lost its finalizers without reconcile-policy skip: {seen:?}"
        );
        assert!(seen.iter().any(|e| e.event == "deleted"), "{object}: never deleted: {seen:?}");
    }
}

/// An observer that runs a hook before each action (to change the cluster behind the migration's back).
pub struct Saboteur<F: FnMut(&capz::migrate::live::Action)> {
    before_action: F,
}

impl<F: FnMut(&capz::migrate::live::Action)> capz::migrate::live::Observer for Saboteur<F> {
    fn confirm(&mut self, _: &capz::migrate::live::Step) -> bool {
        true
    }
    fn skipped(&mut self, _: &capz::migrate::live::Step) {}
    fn started(&mut self, _: &capz::migrate::live::Step) {}
    fn action(&mut self, action: &capz::migrate::live::Action) {
        (self.before_action)(action);
    }
    fn waiting(&mut self, _: &str, _: Duration) {}
    fn done(&mut self, _: &capz::migrate::live::Step) {}
}

/// Runs the plan in-process with `hook` called before every action; returns the error it stopped with.
pub fn run_with_hook(
    fixture: &Fixture,
    hook: impl FnMut(&capz::migrate::live::Action),
) -> capz::migrate::live::LiveError {
    use capz::migrate::live::{Api, Names, RunOptions, run_plan};
    let options = capz::cluster::ClusterOptions {
        kubeconfig: Some(crate::support::apiserver().kubeconfig.clone()),
        ..Default::default()
    };
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(async {
        let api = Api::new(capz::cluster::Cluster::connect(&options).await.unwrap());
        let names = Names::discover(&api, &fixture.old, "c1", &fixture.new).await.unwrap();
        let options = RunOptions { timeout: Duration::from_secs(60), poll: Duration::from_millis(100) };
        let mut observer = Saboteur { before_action: hook };
        // The hook's blocking kubectl calls hold one worker; the runtime has another.
        run_plan(&api, &names, options, &mut observer).await.expect_err("the guard stops the run")
    })
}

/// Runs `migrate --execute` (no --yes) on a pseudo-terminal (util-linux `script`), answering `answers`.
pub fn run_on_terminal(fixture: &Fixture, timeout: &str, answers: &str) -> (Option<i32>, String) {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_kubectl-capz").to_string())
        .chain(fixture.args_with_timeout(timeout, &["--execute"]))
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut child = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .env_remove("KUBECONFIG")
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs the command on a pseudo-terminal");
    let mut stdin = child.stdin.take().unwrap();
    let answers = answers.to_string();
    // One answer per prompt, slowly enough that each is read by its own prompt.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for line in answers.lines() {
            std::thread::sleep(Duration::from_millis(1500));
            let _ = writeln!(stdin, "{line}");
        }
        std::thread::sleep(Duration::from_millis(3000));
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    (out.status.code(), text(&out.stdout))
}
