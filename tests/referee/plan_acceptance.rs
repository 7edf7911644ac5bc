//! Acceptance: CAPZ's upstream `aks-aso-clusterclass` + `aks-aso-topology`, planned, give the
//! same control plane, infrastructure cluster and pools as the non-class `aks-aso` flavor for the
//! same values. Names differ by the documented naming rule, so objects are compared by role.

use capz::manifest::{Document, parse_documents};
use capz::topology::plan_all;
use serde_json::Value;

const VALUES: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "my-aks"),
    ("CLUSTER_CLASS_NAME", "aks-aso-class"),
    ("KUBERNETES_VERSION", "v1.31.2"),
    ("AZURE_LOCATION", "westeurope"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    // The topology asks for 1 replica per pool; give the flavor the same count.
    ("WORKER_MACHINE_COUNT", "1"),
];

/// Expands a template with clusterctl's variable processor, as `clusterctl generate` would.
fn expand_with(file: &str, values: &[(&str, &str)]) -> Vec<Document> {
    let path = format!("tests/fixtures/topology/upstream/{file}");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = capz::render::envsubst::process(&text, |name| {
        values.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    })
    .unwrap();
    assert!(!text.contains("${"), "{file} has variables left");
    parse_documents(&text, &path).unwrap()
}

fn expand(file: &str) -> Vec<Document> {
    expand_with(file, VALUES)
}

fn by_kind<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = by_kind(objects, kind);
    assert_eq!(found.len(), 1, "expected one {kind}");
    found[0]
}

fn azure_name(pool: &Value) -> &str {
    pool.pointer("/spec/resources/0/spec/azureName").and_then(Value::as_str).unwrap()
}

#[test]
fn upstream_aks_aso_class_plans_like_the_aks_aso_flavor() {
    let mut docs = expand("cluster-template-aks-aso-clusterclass.yaml");
    docs.extend(expand("cluster-template-aks-aso-topology.yaml"));
    let planned = plan_all(&docs).unwrap();
    assert_eq!(planned.len(), 1);
    let plan = &planned[0].objects;
    let flavor: Vec<Value> = expand("cluster-template-aks-aso.yaml").into_iter().map(|d| d.value).collect();

    // Control plane and infrastructure cluster: identical specs.
    for kind in ["AzureASOManagedControlPlane", "AzureASOManagedCluster"] {
        assert_eq!(one(plan, kind)["spec"], one(&flavor, kind)["spec"], "{kind} spec differs");
    }

    // Pools: the same AzureASOManagedMachinePool specs, matched by Azure pool name.
    let planned_pools = by_kind(plan, "AzureASOManagedMachinePool");
    let flavor_pools = by_kind(&flavor, "AzureASOManagedMachinePool");
    assert_eq!(planned_pools.len(), flavor_pools.len());
    for want in &flavor_pools {
        let got = planned_pools.iter().find(|p| azure_name(p) == azure_name(want)).expect("pool planned");
        assert_eq!(got["spec"], want["spec"], "pool {} differs", azure_name(want));
    }

    // MachinePools: same replicas, version and cluster, and each points at its planned pool.
    let flavor_mps = by_kind(&flavor, "MachinePool");
    let planned_mps = by_kind(plan, "MachinePool");
    assert_eq!(planned_mps.len(), flavor_mps.len());
    for want in &flavor_mps {
        let want_infra = want.pointer("/spec/template/spec/infrastructureRef/name").unwrap();
        let want_pool = flavor_pools.iter().find(|p| &p["metadata"]["name"] == want_infra).unwrap();
        let got = planned_mps
            .iter()
            .find(|mp| {
                let infra = mp.pointer("/spec/template/spec/infrastructureRef/name").unwrap();
                planned_pools.iter().any(|p| &p["metadata"]["name"] == infra && azure_name(p) == azure_name(want_pool))
            })
            .expect("MachinePool for the pool");
        for pointer in [
            "/spec/clusterName",
            "/spec/replicas",
            "/spec/template/spec/version",
            "/spec/template/spec/clusterName",
            "/spec/template/spec/infrastructureRef/kind",
            "/spec/template/spec/infrastructureRef/apiVersion",
        ] {
            assert_eq!(got.pointer(pointer), want.pointer(pointer), "MachinePool {pointer}");
        }
    }

    // The Cluster points at the planned control plane and infrastructure cluster.
    let cluster = one(plan, "Cluster");
    let cp = one(plan, "AzureASOManagedControlPlane");
    let infra = one(plan, "AzureASOManagedCluster");
    assert_eq!(cluster.pointer("/spec/controlPlaneRef/name"), cp.pointer("/metadata/name"));
    assert_eq!(cluster.pointer("/spec/infrastructureRef/name"), infra.pointer("/metadata/name"));
    assert_eq!(
        cluster.pointer("/spec/controlPlaneRef/kind"),
        one(&flavor, "Cluster").pointer("/spec/controlPlaneRef/kind")
    );

    // Every planned object carries the ownership labels.
    for object in plan {
        assert_eq!(object.pointer("/metadata/labels/cluster.x-k8s.io~1cluster-name"), Some(&Value::from("my-aks")));
        assert_eq!(object.pointer("/metadata/labels/topology.cluster.x-k8s.io~1owned"), Some(&Value::from("")));
    }
}

#[test]
fn upstream_aks_class_without_patches_copies_its_templates() {
    let values = [
        ("CLUSTER_NAME", "my-aks"),
        ("CLUSTER_CLASS_NAME", "aks-class"),
        ("KUBERNETES_VERSION", "v1.31.2"),
        ("AZURE_LOCATION", "westeurope"),
        ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000000"),
        ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
        ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
        ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "11111111-1111-1111-1111-111111111111"),
        ("AZURE_TENANT_ID", "22222222-2222-2222-2222-222222222222"),
    ];
    let mut docs = expand_with("cluster-template-aks-clusterclass.yaml", &values);
    docs.extend(expand_with("cluster-template-aks-topology.yaml", &values));
    let planned = plan_all(&docs).unwrap();
    let plan = &planned[0].objects;
    let cp = one(plan, "AzureManagedControlPlane");
    // The template's spec, with the topology's version set by the controller.
    assert_eq!(cp.pointer("/spec/location"), Some(&Value::from("westeurope")));
    assert_eq!(cp.pointer("/spec/identityRef/name"), Some(&Value::from("cluster-identity")));
    assert_eq!(cp.pointer("/spec/version"), Some(&Value::from("v1.31.2")));
    let pools = by_kind(plan, "AzureManagedMachinePool");
    let modes: Vec<&Value> = pools.iter().map(|p| &p["spec"]["mode"]).collect();
    assert_eq!(modes, [&Value::from("System"), &Value::from("User")]);
    assert_eq!(by_kind(plan, "MachinePool").len(), 2);
}
