//! The importer: committed `schemas/` equals a fresh import of the upstream CRDs (and its nested sets,
//! `gitops/` and `kubernetes/<version>/`, fresh imports of the inputs tools/schema-inputs/fetch.sh gathers
//! from the Go module proxy), and the trimming keeps what an API server and the validator need.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use capz::schema::{Registry, import, openapi};
use serde_json::{Value, json};

/// The inputs of the nested sets: tools/schema-inputs/fetch.sh (cached in target/schema-inputs).
fn fetched_inputs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = Command::new("bash").arg(root.join("tools/schema-inputs/fetch.sh")).output().expect("run fetch.sh");
        assert!(out.status.success(), "tools/schema-inputs/fetch.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        PathBuf::from(stdout.lines().last().expect("fetch.sh prints its output directory"))
    })
}

fn committed(relative: &str) -> import::ImportOutput {
    import::read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas").join(relative)).expect("read schemas/")
}

fn assert_same_tree(fresh: &import::ImportOutput, committed: &import::ImportOutput, place: &str) {
    let fresh_names: Vec<_> = fresh.files.keys().collect();
    let committed_names: Vec<_> = committed.files.keys().collect();
    assert_eq!(fresh_names, committed_names, "{place} lists other files than a fresh import: run import-schemas");
    for (path, bytes) in &fresh.files {
        assert!(
            committed.files[path] == *bytes,
            "{place}/{} differs from a fresh import: run import-schemas",
            path.display()
        );
    }
}

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
    let mut main = committed("");
    main.files.retain(|path, _| !import::NESTED_SETS.iter().any(|nested| path.starts_with(nested)));
    assert_same_tree(&fresh, &main, "schemas");
}

#[test]
fn committed_gitops_schemas_equal_a_fresh_import() {
    let fresh = import::import_gitops_dir(&fetched_inputs().join("gitops")).expect("import gitops");
    assert_same_tree(&fresh, &committed("gitops"), "schemas/gitops");
}

#[test]
fn committed_kubernetes_schemas_equal_a_fresh_import() {
    assert!(!Registry::kubernetes_versions().is_empty());
    for version in Registry::kubernetes_versions() {
        let fresh =
            openapi::import_openapi_dir(&fetched_inputs().join("kubernetes").join(version)).expect("import openapi");
        assert_same_tree(
            &fresh,
            &committed(&format!("kubernetes/{version}")),
            &format!("schemas/kubernetes/{version}"),
        );
    }
}

#[test]
fn writing_the_main_set_keeps_the_nested_sets() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("schemas");
    std::fs::create_dir_all(out.join("kubernetes/v1.36/gvk")).unwrap();
    std::fs::write(out.join("kubernetes/v1.36/README.md"), "k").unwrap();
    std::fs::create_dir_all(out.join("gvk")).unwrap();
    std::fs::write(out.join("gvk/stale.json"), "{}").unwrap();
    let mut output = import::ImportOutput::default();
    output.files.insert(PathBuf::from("README.md"), b"main".to_vec());
    import::write_output(&output, &out).unwrap();
    let tree = import::read_tree(&out).unwrap();
    let names: Vec<String> = tree.files.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(names, ["README.md", "kubernetes/v1.36/README.md"]);
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
    for version in ["v1api20231001", "v1api20240901", "v1api20250801"] {
        assert!(has("containerservice.azure.com", version, "ManagedCluster"), "{version}");
        assert!(has("containerservice.azure.com", version, "ManagedClustersAgentPool"), "{version}");
    }
    assert!(has("resources.azure.com", "v1api20200601", "ResourceGroup"));
    assert!(!fresh.files.keys().any(|p| p.starts_with("gvk/argoproj.io")), "Argo CD comes from the gitops set");
}

#[test]
fn every_gitops_kind_is_covered() {
    let fresh = import::import_gitops_dir(&fetched_inputs().join("gitops")).unwrap();
    let has =
        |group: &str, version: &str, kind: &str| fresh.files.contains_key(&import::gvk_file_path(group, version, kind));
    assert!(has("kustomize.toolkit.fluxcd.io", "v1", "Kustomization"));
    for kind in ["GitRepository", "HelmRepository", "HelmChart", "Bucket", "OCIRepository"] {
        assert!(has("source.toolkit.fluxcd.io", "v1", kind), "{kind}");
    }
    assert!(has("helm.toolkit.fluxcd.io", "v2", "HelmRelease"));
    assert!(has("notification.toolkit.fluxcd.io", "v1", "Receiver"));
    for kind in ["Alert", "Provider"] {
        assert!(has("notification.toolkit.fluxcd.io", "v1beta3", kind), "{kind}");
    }
    for kind in ["ImageRepository", "ImagePolicy", "ImageUpdateAutomation"] {
        assert!(has("image.toolkit.fluxcd.io", "v1", kind), "{kind}");
    }
    for kind in ["Application", "ApplicationSet", "AppProject"] {
        assert!(has("argoproj.io", "v1alpha1", kind), "{kind}");
    }
}

#[test]
fn every_served_builtin_kind_is_covered() {
    let version = Registry::kubernetes_versions()[0];
    let fresh = openapi::import_openapi_dir(&fetched_inputs().join("kubernetes").join(version)).unwrap();
    let has =
        |group: &str, version: &str, kind: &str| fresh.files.contains_key(&import::gvk_file_path(group, version, kind));
    for kind in [
        "ConfigMap",
        "Secret",
        "Namespace",
        "Service",
        "ServiceAccount",
        "Pod",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "LimitRange",
        "ResourceQuota",
        "Endpoints",
        "Node",
        "ReplicationController",
        "Event",
    ] {
        assert!(has("", "v1", kind), "{kind}");
    }
    for (group, version, kinds) in [
        ("apps", "v1", &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision"][..]),
        ("batch", "v1", &["Job", "CronJob"]),
        ("networking.k8s.io", "v1", &["Ingress", "IngressClass", "NetworkPolicy"]),
        ("rbac.authorization.k8s.io", "v1", &["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]),
        ("policy", "v1", &["PodDisruptionBudget"]),
        ("autoscaling", "v2", &["HorizontalPodAutoscaler"]),
        ("autoscaling", "v1", &["HorizontalPodAutoscaler"]),
        ("storage.k8s.io", "v1", &["StorageClass", "CSIDriver", "VolumeAttachment"]),
        ("apiextensions.k8s.io", "v1", &["CustomResourceDefinition"]),
        ("admissionregistration.k8s.io", "v1", &["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]),
        ("coordination.k8s.io", "v1", &["Lease"]),
        ("discovery.k8s.io", "v1", &["EndpointSlice"]),
        ("scheduling.k8s.io", "v1", &["PriorityClass"]),
        ("node.k8s.io", "v1", &["RuntimeClass"]),
        ("certificates.k8s.io", "v1", &["CertificateSigningRequest"]),
        ("apiregistration.k8s.io", "v1", &["APIService"]),
    ] {
        for kind in kinds {
            assert!(has(group, version, kind), "{group}/{version} {kind}");
        }
    }
    // Off by default in kube-apiserver: not bundled.
    assert!(!has("networking.k8s.io", "v1beta1", "ServiceCIDR"));
    assert!(!has("", "v1", "DeploymentList"));
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
