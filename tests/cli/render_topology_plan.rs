//! Acceptance for our ClusterClasses: a topology Cluster of `aks-aso` (or `aks`), planned
//! by `capz::topology` together with its class (`--with-class`), gives the same control plane,
//! infrastructure cluster, agent pools and MachinePools as the non-class flavor for the same
//! values. Names of planned objects follow the controller's naming, so objects are matched by role
//! (and pools by their AKS name).

use crate::support::cli_runner::capz;
use capz::manifest::parse_documents;
use capz::topology::plan_all;
use serde_json::{Value, json};

fn render(args: &[&str]) -> String {
    let output = capz(&[]).arg("render").args(args).output().unwrap();
    assert!(output.status.success(), "render {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn plan(flavor: &str, values: &str) -> Vec<Value> {
    let text = render(&[flavor, "--values", values, "--with-class"]);
    let docs = parse_documents(&text, flavor).unwrap();
    let planned = plan_all(&docs).unwrap_or_else(|e| panic!("planning {flavor}: {e}"));
    assert_eq!(planned.len(), 1);
    planned.into_iter().next().unwrap().objects
}

fn flavor(flavor: &str, values: &str) -> Vec<Value> {
    parse_documents(&render(&[flavor, "--values", values]), flavor).unwrap().into_iter().map(|d| d.value).collect()
}

fn by_kind<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = by_kind(objects, kind);
    assert_eq!(found.len(), 1, "expected one {kind}");
    found[0]
}

/// `spec`, with a missing spec read as `{}` (a template's empty spec is copied as `{}`).
fn spec(object: &Value) -> Value {
    object.get("spec").cloned().unwrap_or_else(|| json!({}))
}

/// MachinePools of both sides match by the AKS pool name of the infrastructure object they point to.
fn compare_pools(plan: &[Value], want: &[Value], pool_kind: &str, aks_name: fn(&Value) -> String, autoscaled: &[&str]) {
    let planned_pools = by_kind(plan, pool_kind);
    let flavor_pools = by_kind(want, pool_kind);
    assert_eq!(planned_pools.len(), flavor_pools.len(), "{pool_kind} count");
    for want_pool in &flavor_pools {
        let name = aks_name(want_pool);
        let got_pool =
            planned_pools.iter().find(|p| aks_name(p) == name).unwrap_or_else(|| panic!("pool {name} not planned"));
        assert_eq!(spec(got_pool), spec(want_pool), "{pool_kind} of pool {name}");

        let mp_for = |objects: &[Value], pool: &Value| -> Value {
            by_kind(objects, "MachinePool")
                .into_iter()
                .find(|mp| mp.pointer("/spec/template/spec/infrastructureRef/name") == pool.pointer("/metadata/name"))
                .cloned()
                .unwrap_or_else(|| panic!("no MachinePool for pool {name}"))
        };
        let (got_mp, want_mp) = (mp_for(plan, got_pool), mp_for(want, want_pool));
        let mut pointers = vec![
            "/spec/clusterName",
            "/spec/template/spec/version",
            "/spec/template/spec/clusterName",
            "/spec/template/spec/infrastructureRef/kind",
        ];
        if !autoscaled.contains(&name.as_str()) {
            pointers.push("/spec/replicas");
        }
        for pointer in pointers {
            assert_eq!(got_mp.pointer(pointer), want_mp.pointer(pointer), "MachinePool of pool {name}: {pointer}");
        }
    }
}

#[test]
fn aks_aso_class_plans_like_the_aks_aso_flavor() {
    for values in [
        "tests/fixtures/clusterclass/aks-aso-topology.values.yaml",
        "tests/fixtures/clusterclass/aks-aso-minimal.values.yaml",
        "tests/fixtures/clusterclass/aks-aso-local-accounts-disabled.values.yaml",
    ] {
        let plan = plan("aks-aso-topology", values);
        let want = flavor("aks-aso", values);
        for kind in ["AzureASOManagedControlPlane", "AzureASOManagedCluster"] {
            assert_eq!(spec(one(&plan, kind)), spec(one(&want, kind)), "{kind} spec ({values})");
        }
        assert_eq!(
            one(&plan, "Cluster").pointer("/spec/clusterNetwork"),
            one(&want, "Cluster").pointer("/spec/clusterNetwork")
        );
        let aks_name = |pool: &Value| {
            pool.pointer("/spec/resources/0/spec/azureName").and_then(Value::as_str).unwrap().to_string()
        };
        compare_pools(&plan, &want, "AzureASOManagedMachinePool", aks_name, &["user"]);
    }
}

#[test]
fn aks_class_plans_like_the_aks_flavor() {
    let values = "examples/aks.values.yaml";
    let plan = plan("aks-topology", values);
    let want = flavor("aks", values);
    // The flavor's control plane also has `sshPublicKey: ""` (CAPZ's template), a field
    // AzureManagedControlPlaneTemplate does not have; CAPZ's webhook generates a key either way.
    let mut want_cp = spec(one(&want, "AzureManagedControlPlane"));
    assert_eq!(want_cp["sshPublicKey"], "");
    want_cp.as_object_mut().unwrap().remove("sshPublicKey");
    assert_eq!(spec(one(&plan, "AzureManagedControlPlane")), want_cp);
    assert_eq!(spec(one(&plan, "AzureManagedCluster")), spec(one(&want, "AzureManagedCluster")));
    assert_eq!(
        one(&plan, "Cluster").pointer("/spec/clusterNetwork"),
        one(&want, "Cluster").pointer("/spec/clusterNetwork")
    );
    let aks_name = |pool: &Value| pool.pointer("/spec/name").and_then(Value::as_str).unwrap().to_string();
    compare_pools(&plan, &want, "AzureManagedMachinePool", aks_name, &["spark"]);
}
