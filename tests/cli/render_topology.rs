//! The topology flavors (`aks-topology`, `aks-aso-topology`) through the binary: snapshots for
//! both CAPI API versions, `--with-class` bundles, and the Cluster's variables checked against the
//! class's definitions (names, required ones, values against their OpenAPI schemas).

use crate::support::cli_runner;

use cli_runner::{run_err, run_ok, values};
use serde_json::{Value, json};

/// The variables CAPZ's docs export before `clusterctl generate cluster`.
const DOCS_ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "southcentralus"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000003"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
];

const ASO_VALUES: &str = "tests/fixtures/clusterclass/aks-aso-topology.values.yaml";
/// The shipped example of the aks flavor (pools with autoscaling, taints, Windows, overlays).
const AKS_VALUES: &str = "examples/aks.values.yaml";

/// A ClusterClass variable schema as JSON Schema: OpenAPI's `x-kubernetes-*` keys dropped.
fn json_schema(openapi: &Value) -> Value {
    match openapi {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !k.starts_with("x-kubernetes-"))
                .map(|(k, v)| (k.clone(), json_schema(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(json_schema).collect()),
        other => other.clone(),
    }
}

/// Checks a topology Cluster against its ClusterClass as CAPI's Cluster webhook would: the class
/// is the one referenced, every variable and override is defined and valid against its schema,
/// every required variable is set, every pool class exists.
fn check_cluster_against_class(cluster: &Value, class: &Value) {
    let topology = &cluster["spec"]["topology"];
    let class_name = topology.get("class").or_else(|| topology.pointer("/classRef/name")).unwrap();
    assert_eq!(class_name, &class["metadata"]["name"]);
    let definitions = class["spec"]["variables"].as_array().unwrap();
    let check = |variable: &Value, at: &str| {
        let name = variable["name"].as_str().unwrap();
        let definition = definitions
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("{at}: {name} is not a class variable"));
        let schema = json_schema(&definition["schema"]["openAPIV3Schema"]);
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator.iter_errors(&variable["value"]).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{at}: {name} = {}: {errors:?}", variable["value"]);
    };
    let set: Vec<&Value> = topology["variables"].as_array().unwrap().iter().collect();
    for variable in &set {
        check(variable, "spec.topology.variables");
    }
    for definition in definitions.iter().filter(|d| d["required"] == true) {
        assert!(
            set.iter().any(|v| v["name"] == definition["name"]),
            "required variable {} is not set",
            definition["name"]
        );
    }
    let classes: Vec<&Value> = class
        .pointer("/spec/workers/machinePools")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|p| &p["class"])
        .collect();
    for pool in topology.pointer("/workers/machinePools").and_then(Value::as_array).unwrap() {
        assert!(classes.contains(&&pool["class"]), "pool {} uses unknown class {}", pool["name"], pool["class"]);
        for variable in pool.pointer("/variables/overrides").and_then(Value::as_array).into_iter().flatten() {
            check(variable, &format!("pool {}", pool["name"]));
        }
    }
}

fn bundle(args: &[&str], env: &[(&str, &str)]) -> (String, Vec<Value>) {
    let out = run_ok(env, args);
    let objects = values(&out);
    (out, objects)
}

#[test]
fn aks_aso_topology_with_docs_env() {
    let out = run_ok(DOCS_ENV, &["render", "aks-aso-topology"]);
    let objects = values(&out);
    assert_eq!(objects.len(), 1);
    // Replicas 2 per pool, not CAPZ's 0 (clusterctl's WORKER_MACHINE_COUNT) nor the topology's 1.
    for pool in objects[0].pointer("/spec/topology/workers/machinePools").and_then(Value::as_array).unwrap() {
        assert_eq!(pool["replicas"], 2);
    }
    insta::assert_snapshot!(out);
}

#[test]
fn aks_aso_topology_every_variable_v1beta2() {
    let (out, objects) = bundle(&["render", "aks-aso-topology", "--values", ASO_VALUES, "--capi-api", "v1beta2"], &[]);
    assert_eq!(objects[0]["kind"], "Secret");
    assert_eq!(objects[1]["apiVersion"], "cluster.x-k8s.io/v1beta2");
    assert_eq!(objects[1].pointer("/spec/topology/classRef"), Some(&json!({"name": "aks-aso"})));
    assert!(objects[1].pointer("/spec/topology/class").is_none());
    insta::assert_snapshot!(out);
}

#[test]
fn aks_aso_with_class_is_one_consistent_bundle() {
    for capi in ["v1beta1", "v1beta2"] {
        let (_, objects) =
            bundle(&["render", "aks-aso-topology", "--values", ASO_VALUES, "--with-class", "--capi-api", capi], &[]);
        let kinds: Vec<&str> = objects.iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "ClusterClass",
                "AzureASOManagedControlPlaneTemplate",
                "AzureASOManagedClusterTemplate",
                "AzureASOManagedMachinePoolTemplate",
                "AzureASOManagedMachinePoolTemplate",
                "KubeadmConfigTemplate",
                "KubeadmConfigTemplate",
                "Secret",
                "Cluster"
            ],
            "{capi}"
        );
        check_cluster_against_class(&objects[8], &objects[0]);
        let (_, alone) = bundle(&["render", "aks-aso-clusterclass", "--capi-api", capi], &[]);
        assert_eq!(&objects[..7], &alone[..], "--with-class renders the class flavor unchanged");
    }
    let (_, objects) = bundle(&["render", "aks-aso-topology", "--with-class"], DOCS_ENV);
    check_cluster_against_class(objects.last().unwrap(), &objects[0]);
}

#[test]
fn aks_aso_topology_class_name_and_pool_overrides() {
    let (_, objects) = bundle(
        &[
            "render",
            "aks-aso-topology",
            "--with-class",
            "--set",
            "clusterClassName=shared",
            "--set",
            "pools[1].vmSize=Standard_D8s_v3",
            "--set",
            "pools[0].replicas=1",
        ],
        DOCS_ENV,
    );
    let cluster = objects.last().unwrap();
    assert_eq!(objects[0]["metadata"]["name"], "shared");
    assert_eq!(cluster.pointer("/spec/topology/class"), Some(&json!("shared")));
    let pools = cluster.pointer("/spec/topology/workers/machinePools").unwrap();
    assert_eq!(
        pools,
        &json!([
            {"class": "default-system", "name": "pool0", "replicas": 1},
            {"class": "default-worker", "name": "pool1", "replicas": 2,
             "variables": {"overrides": [{"name": "vmSize", "value": "Standard_D8s_v3"}]}}
        ])
    );
    check_cluster_against_class(cluster, &objects[0]);
}

#[test]
fn with_class_needs_a_topology_flavor() {
    let err = run_err(DOCS_ENV, &["render", "aks-aso", "--with-class"]);
    assert!(err.starts_with("error: --with-class applies to topology flavors (aks-aso-topology"), "{err}");
    assert!(err.contains("flavor aks-aso has no ClusterClass"), "{err}");
}

#[test]
fn overlay_outside_spec_is_an_error() {
    let err = run_err(DOCS_ENV, &["render", "aks-aso-topology", "--set", "pools[1].agentPool.metadata.labels.a=b"]);
    assert!(err.contains("pools[1].agentPool.metadata: only `spec` of the overlay can be set through the aks-aso ClusterClass (variable agentPoolSpec)"), "{err}");
}

#[test]
fn topology_needs_the_cluster_values() {
    let err = run_err(&[], &["render", "aks-aso-topology"]);
    insta::assert_snapshot!(err);
}

#[test]
fn params_aks_aso_topology() {
    insta::assert_snapshot!(run_ok(&[], &["params", "aks-aso-topology"]));
}

#[test]
#[should_panic(expected = "nodeTaints")]
fn the_variable_check_rejects_values_outside_the_schema() {
    let (_, objects) = bundle(&["render", "aks-aso-topology", "--with-class"], DOCS_ENV);
    let mut cluster = objects.last().unwrap().clone();
    cluster["spec"]["topology"]["workers"]["machinePools"][0]["variables"] =
        json!({"overrides": [{"name": "nodeTaints", "value": ["no-effect"]}]});
    check_cluster_against_class(&cluster, &objects[0]);
}

#[test]
fn aks_topology_with_docs_env() {
    let out = run_ok(DOCS_ENV, &["render", "aks-topology"]);
    let objects = values(&out);
    let kinds: Vec<&str> = objects.iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Cluster", "AzureClusterIdentity"]);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_topology_from_the_aks_example_v1beta2() {
    let out = run_ok(&[], &["render", "aks-topology", "--values", AKS_VALUES, "--capi-api", "v1beta2"]);
    let objects = values(&out);
    // The autoscaled pool has no replicas (AKS owns the count); the others keep theirs.
    let pools = objects[0].pointer("/spec/topology/workers/machinePools").and_then(Value::as_array).unwrap();
    let replicas: Vec<Option<&Value>> = pools.iter().map(|p| p.get("replicas")).collect();
    assert_eq!(replicas, [Some(&json!(2)), None, Some(&json!(1))]);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_with_class_is_one_consistent_bundle() {
    for capi in ["v1beta1", "v1beta2"] {
        let (_, objects) =
            bundle(&["render", "aks-topology", "--values", AKS_VALUES, "--with-class", "--capi-api", capi], &[]);
        let kinds: Vec<&str> = objects.iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "ClusterClass",
                "AzureManagedControlPlaneTemplate",
                "AzureManagedClusterTemplate",
                "AzureManagedMachinePoolTemplate",
                "AzureManagedMachinePoolTemplate",
                "KubeadmConfigTemplate",
                "KubeadmConfigTemplate",
                "Cluster",
                "AzureClusterIdentity"
            ],
            "{capi}"
        );
        check_cluster_against_class(&objects[7], &objects[0]);
        let identity =
            objects[0]["spec"]["variables"].as_array().unwrap().iter().any(|v| v["name"] == "clusterIdentityName");
        assert!(identity);
        let set = objects[7].pointer("/spec/topology/variables").unwrap().as_array().unwrap();
        let name = set.iter().find(|v| v["name"] == "clusterIdentityName").unwrap();
        assert_eq!(name["value"], objects[8]["metadata"]["name"], "the class refers to the rendered identity");
    }
    let (_, objects) = bundle(&["render", "aks-topology", "--with-class"], DOCS_ENV);
    check_cluster_against_class(&objects[7], &objects[0]);
}

#[test]
fn aks_topology_rejects_what_the_class_cannot_set() {
    let err = run_err(
        DOCS_ENV,
        &["render", "aks-topology", "--set", "sshPublicKey=c3No", "--set", "controlPlane.metadata.labels.a=b"],
    );
    assert!(err.contains("sshPublicKey: not used by flavor aks-topology (from --set sshPublicKey)"), "{err}");
    let err = run_err(DOCS_ENV, &["render", "aks-topology", "--set", "controlPlane.metadata.labels.a=b"]);
    assert!(err.contains("controlPlane.metadata: only `spec` of the overlay can be set through the aks ClusterClass (variable controlPlaneSpec)"), "{err}");
}

#[test]
fn params_aks_topology() {
    insta::assert_snapshot!(run_ok(&[], &["params", "aks-topology"]));
}
