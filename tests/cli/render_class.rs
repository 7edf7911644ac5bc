//! The ClusterClass flavors (`aks-clusterclass`, `aks-aso-clusterclass`) through the binary:
//! snapshots for both CAPI API versions, names derived from the class only, `params` listings.

use crate::support::cli_runner;

use cli_runner::{capz, run_ok, values};
use serde_json::Value;

/// Every object name a ClusterClass refers to, with the referring field.
fn class_refs(class: &Value) -> Vec<(String, String)> {
    let mut refs = Vec::new();
    let mut push = |field: &str, r: Option<&Value>| {
        if let Some(r) = r {
            refs.push((field.to_string(), format!("{}/{}", r["kind"].as_str().unwrap(), r["name"].as_str().unwrap())));
        }
    };
    let spec = &class["spec"];
    for (field, key) in [("controlPlane", "controlPlane"), ("infrastructure", "infrastructure")] {
        push(field, spec[key].get("ref").or_else(|| spec[key].get("templateRef")));
    }
    for pool in spec.pointer("/workers/machinePools").and_then(Value::as_array).unwrap() {
        let base = pool.get("template").unwrap_or(pool);
        for key in ["bootstrap", "infrastructure"] {
            push(key, base[key].get("ref").or_else(|| base[key].get("templateRef")));
        }
    }
    refs
}

fn check_class_bundle(objects: &[Value], class_name: &str) {
    assert_eq!(objects[0]["kind"], "ClusterClass");
    assert_eq!(objects[0]["metadata"]["name"], class_name);
    let rendered: Vec<String> = objects[1..]
        .iter()
        .map(|o| format!("{}/{}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap()))
        .collect();
    let refs = class_refs(&objects[0]);
    // Every reference resolves to a rendered template and every template is referenced.
    for (field, target) in &refs {
        assert!(rendered.contains(target), "{field} refers to {target}, which is not rendered");
    }
    for name in &rendered {
        assert!(refs.iter().any(|(_, t)| t == name), "{name} is rendered but not referenced by the class");
    }
    // One class, many clusters: names come from the class, never from a cluster.
    for object in objects {
        let name = object["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with(class_name), "{name} is not named after the class");
        assert!(!name.contains("demo"), "{name} depends on the cluster name");
        assert_eq!(object["metadata"]["namespace"], "default");
    }
}

/// Variables a patch reads (`valueFrom.variable` and `.name` in templates) are all defined.
fn check_patches_use_defined_variables(class: &Value) {
    let defined: Vec<&str> = class
        .pointer("/spec/variables")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    let re = regex::Regex::new(r"(?:^|[\s(])\.([a-zA-Z][a-zA-Z0-9]*)").unwrap();
    for patch in class.pointer("/spec/patches").and_then(Value::as_array).unwrap() {
        for definition in patch["definitions"].as_array().unwrap() {
            for json_patch in definition["jsonPatches"].as_array().unwrap() {
                let from = &json_patch["valueFrom"];
                if let Some(variable) = from.get("variable").and_then(Value::as_str) {
                    let top = variable.split(['.', '[']).next().unwrap();
                    assert!(
                        top == "builtin" || defined.contains(&top),
                        "patch {} reads undefined variable {variable}",
                        patch["name"]
                    );
                }
                if let Some(template) = from.get("template").and_then(Value::as_str) {
                    for capture in re.captures_iter(template) {
                        let name = &capture[1];
                        // Fields of `.` inside with/range blocks are fields of the variable.
                        if ["minCount", "maxCount", "plugin", "pluginMode", "policy"].contains(&name) {
                            continue;
                        }
                        assert!(
                            name == "builtin" || defined.contains(&name),
                            "patch {} reads undefined variable .{name}",
                            patch["name"]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn aks_aso_class_v1beta1() {
    let out = run_ok(&[("CLUSTER_NAME", "demo")], &["render", "aks-aso-clusterclass"]);
    let objects = values(&out);
    check_class_bundle(&objects, "aks-aso");
    check_patches_use_defined_variables(&objects[0]);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_aso_class_v1beta2() {
    let out = run_ok(&[], &["render", "aks-aso-clusterclass", "--capi-api", "v1beta2"]);
    let objects = values(&out);
    check_class_bundle(&objects, "aks-aso");
    assert_eq!(objects[0]["apiVersion"], "cluster.x-k8s.io/v1beta2");
    // v1beta2: templateRef, and machine pool classes without the `template:` wrapper.
    assert!(objects[0].pointer("/spec/controlPlane/templateRef/name").is_some());
    let pool = objects[0].pointer("/spec/workers/machinePools/0").unwrap();
    assert!(pool.get("template").is_none() && pool.pointer("/infrastructure/templateRef").is_some());
    insta::assert_snapshot!(out);
}

#[test]
fn class_name_from_env_names_every_template() {
    let out = run_ok(
        &[("CLUSTER_CLASS_NAME", "team-a-aks"), ("CLUSTER_NAME", "demo")],
        &["render", "aks-aso-clusterclass", "-n", "capz"],
    );
    let objects = values(&out);
    for object in &objects {
        assert_eq!(object["metadata"]["namespace"], "capz");
    }
    let names: Vec<&str> = objects.iter().map(|o| o["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "team-a-aks",
            "team-a-aks-control-plane",
            "team-a-aks",
            "team-a-aks-default-system",
            "team-a-aks-default-worker",
            "team-a-aks-default-system",
            "team-a-aks-default-worker"
        ]
    );
}

#[test]
fn class_flavor_rejects_per_cluster_values() {
    let output = capz(&[]).args(["render", "aks-aso-clusterclass", "--set", "location=westeurope"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("location: not used by flavor aks-aso-clusterclass (from --set location)"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn params_aks_aso_clusterclass() {
    insta::assert_snapshot!(run_ok(&[], &["params", "aks-aso-clusterclass"]));
}

#[test]
fn aks_class_v1beta1() {
    let out = run_ok(&[("CLUSTER_NAME", "demo")], &["render", "aks-clusterclass"]);
    let objects = values(&out);
    check_class_bundle(&objects, "aks");
    check_patches_use_defined_variables(&objects[0]);
    insta::assert_snapshot!(out);
}

#[test]
fn aks_class_v1beta2() {
    let out = run_ok(&[], &["render", "aks-clusterclass", "--capi-api", "v1beta2"]);
    let objects = values(&out);
    check_class_bundle(&objects, "aks");
    assert_eq!(objects[0]["apiVersion"], "cluster.x-k8s.io/v1beta2");
    let pool = objects[0].pointer("/spec/workers/machinePools/1").unwrap();
    assert!(
        pool.get("template").is_none()
            && pool.pointer("/bootstrap/templateRef/apiVersion") == Some(&"bootstrap.cluster.x-k8s.io/v1beta2".into())
    );
    // v1beta2 KubeadmConfigTemplate needs a non-empty spec (minProperties: 1).
    let bootstrap = objects.iter().find(|o| o["kind"] == "KubeadmConfigTemplate").unwrap();
    assert_eq!(bootstrap["apiVersion"], "bootstrap.cluster.x-k8s.io/v1beta2");
    assert!(!bootstrap.pointer("/spec/template/spec").unwrap().as_object().unwrap().is_empty());
    insta::assert_snapshot!(out);
}

#[test]
fn params_aks_clusterclass() {
    insta::assert_snapshot!(run_ok(&[], &["params", "aks-clusterclass"]));
}
