//! The importer: committed `schemas/` equals a fresh import of the upstream CRDs, and the
//! trimming keeps what an API server and the validator need.

use std::path::{Path, PathBuf};

use capz::schema::import;
use serde_json::{Value, json};

/// The upstream CRDs (`../shared/crds` from the main checkout, `../../shared/crds` from a worktree
/// under `wt/`), or `KUBECTL_CAPZ_UPSTREAM_CRDS`.
fn upstream_crds() -> PathBuf {
    if let Ok(dir) = std::env::var("KUBECTL_CAPZ_UPSTREAM_CRDS") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for candidate in [root.join("../shared/crds"), root.join("../../shared/crds")] {
        if candidate.join("SOURCES.md").exists() {
            return candidate;
        }
    }
    panic!("upstream CRDs not found: set KUBECTL_CAPZ_UPSTREAM_CRDS to the directory holding capi/, capz/, aso/");
}

#[test]
fn committed_schemas_equal_a_fresh_import() {
    let fresh = import::import_dir(&upstream_crds()).expect("import");
    let committed = import::read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")).expect("read schemas/");
    let fresh_names: Vec<_> = fresh.files.keys().collect();
    let committed_names: Vec<_> = committed.files.keys().collect();
    assert_eq!(fresh_names, committed_names, "schemas/ lists other files than a fresh import: run import-schemas");
    for (path, bytes) in &fresh.files {
        assert!(
            committed.files[path] == *bytes,
            "schemas/{} differs from a fresh import: run import-schemas",
            path.display()
        );
    }
}

#[test]
fn import_is_deterministic_and_writes_a_complete_tree() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("schemas");
    let first = import::import_dir(&upstream_crds()).unwrap();
    import::write_output(&first, &out).unwrap();
    // Writing again replaces the tree whole (no stale files survive).
    std::fs::write(out.join("stale.txt"), "x").unwrap();
    import::write_output(&first, &out).unwrap();
    assert_eq!(import::read_tree(&out).unwrap(), first);
    assert_eq!(import::import_dir(&upstream_crds()).unwrap(), first);
}

#[test]
fn every_kind_the_issue_names_is_covered() {
    let fresh = import::import_dir(&upstream_crds()).unwrap();
    let has =
        |group: &str, version: &str, kind: &str| fresh.files.contains_key(&import::gvk_file_path(group, version, kind));
    for version in ["v1beta1", "v1beta2"] {
        for kind in ["Cluster", "MachinePool", "ClusterClass"] {
            assert!(has("cluster.x-k8s.io", version, kind), "{kind} {version}");
        }
        assert!(has("bootstrap.cluster.x-k8s.io", version, "KubeadmConfigTemplate"));
    }
    for kind in [
        "AzureManagedCluster",
        "AzureManagedClusterTemplate",
        "AzureManagedControlPlane",
        "AzureManagedControlPlaneTemplate",
        "AzureManagedMachinePool",
        "AzureManagedMachinePoolTemplate",
        "AzureASOManagedCluster",
        "AzureASOManagedClusterTemplate",
        "AzureASOManagedControlPlane",
        "AzureASOManagedControlPlaneTemplate",
        "AzureASOManagedMachinePool",
        "AzureASOManagedMachinePoolTemplate",
        "AzureClusterIdentity",
    ] {
        assert!(has("infrastructure.cluster.x-k8s.io", "v1beta1", kind), "{kind}");
    }
    for kind in ["Secret", "ConfigMap", "Namespace"] {
        assert!(has("", "v1", kind), "{kind}");
    }
    for version in ["v1api20231001", "v1api20240901", "v1api20250801"] {
        assert!(has("containerservice.azure.com", version, "ManagedCluster"), "{version}");
        assert!(has("containerservice.azure.com", version, "ManagedClustersAgentPool"), "{version}");
    }
    assert!(has("resources.azure.com", "v1api20200601", "ResourceGroup"));
}

fn crd(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com", "annotations": {"cert-manager.io/inject-ca-from": "ns/cert", "keep": "me"}},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "conversion": {"strategy": "Webhook", "webhook": {"clientConfig": {"service": {"name": "x", "namespace": "y"}}}},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema.clone()},
                 "subresources": {"status": {}}},
                {"name": "v0", "served": false, "storage": false, "schema": {"openAPIV3Schema": schema}},
                {"name": "v1old", "served": true, "storage": false, "deprecated": true,
                 "schema": {"openAPIV3Schema": {"type": "object"}}}
            ]
        },
        "status": {"storedVersions": ["v1"]}
    })
}

fn extensions_schema() -> Value {
    json!({
        "type": "object",
        "description": "a widget",
        "properties": {
            "spec": {
                "type": "object",
                "description": "spec",
                "properties": {
                    "description": {"type": "string", "description": "a property named description"},
                    "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "note": {"type": "string", "nullable": true},
                    "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                                 "x-kubernetes-preserve-unknown-fields": true},
                    "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                              "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}
                },
                "x-kubernetes-validations": [{"rule": "self.port != 0", "message": "no zero"}]
            }
        }
    })
}

#[test]
fn installable_crd_is_trimmed_but_keeps_every_extension() {
    let installable = import::installable_crd(&crd(extensions_schema()), "test").unwrap();
    assert_eq!(installable["spec"]["conversion"], json!({"strategy": "None"}));
    assert!(installable.get("status").is_none());
    assert_eq!(installable["metadata"]["annotations"], json!({"keep": "me"}));
    let versions: Vec<&str> =
        installable["spec"]["versions"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(versions, ["v1", "v1old"]);
    let spec = &installable["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert!(spec.get("description").is_none());
    // A property named `description` stays; only its own description string goes.
    assert_eq!(spec["properties"]["description"], json!({"type": "string"}));
    assert_eq!(spec["properties"]["port"]["x-kubernetes-int-or-string"], json!(true));
    assert_eq!(spec["properties"]["note"]["nullable"], json!(true));
    assert_eq!(spec["properties"]["raw"]["x-kubernetes-preserve-unknown-fields"], json!(true));
    assert_eq!(spec["properties"]["template"]["x-kubernetes-embedded-resource"], json!(true));
    assert_eq!(spec["properties"]["items"]["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(spec["x-kubernetes-validations"][0]["rule"], json!("self.port != 0"));
}

#[test]
fn kind_schemas_cover_served_versions_with_their_flags() {
    let kinds = import::kind_schemas_from_crd(&crd(extensions_schema()), "test").unwrap();
    assert_eq!(kinds.len(), 2);
    assert_eq!((kinds[0].version.as_str(), kinds[0].status_subresource, kinds[0].cel), ("v1", true, true));
    assert_eq!(kinds[0].deprecation_warning, None);
    assert_eq!((kinds[1].version.as_str(), kinds[1].status_subresource, kinds[1].cel), ("v1old", false, false));
    assert_eq!(kinds[1].deprecation_warning.as_deref(), Some("example.com/v1old Widget is deprecated"));
    assert!(kinds[0].namespaced());
}

#[test]
fn a_crd_without_group_is_an_error_naming_where() {
    let mut bad = crd(extensions_schema());
    bad["spec"].as_object_mut().unwrap().remove("group");
    let err = import::installable_crd(&bad, "crds.yaml:3").unwrap_err().to_string();
    assert!(err.contains("crds.yaml:3") && err.contains("spec.group"), "{err}");
}
