//! The importer: committed `schemas/` equals a fresh import of the committed upstream CRDs (`upstream-crds/`) and
//! of what tools/schema-inputs/fetch.sh fetches from the Go module proxy into a cache (Kubernetes' OpenAPI v3
//! documents, the Flux and Argo CD CRDs; nothing outside the repository and its cache), the per-target releases
//! hold what their upstream releases serve (ASO v2.19 derived as upstream-crds/SOURCES.md says), the Kubernetes
//! release holds every kind kube-apiserver serves by default, and the trimming keeps what an API server and the
//! validator need.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use capz::schema::{Registry, import, releases};
use capz::versions::TARGETS;
use serde_json::{Value, json};

use crate::support;

fn upstream_crds() -> PathBuf {
    support::repo_root().join("upstream-crds")
}

/// The fetched inputs: tools/schema-inputs/fetch.sh (cached in target/schema-inputs).
fn fetched_inputs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Command::new("bash")
            .arg(support::repo_root().join("tools/schema-inputs/fetch.sh"))
            .output()
            .expect("run fetch.sh");
        assert!(out.status.success(), "tools/schema-inputs/fetch.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        PathBuf::from(stdout.lines().last().expect("fetch.sh prints its output directory"))
    })
}

fn import_now() -> import::ImportOutput {
    let upstream = upstream_crds();
    import::import(import::Inputs { committed: &upstream, fetched: fetched_inputs() }).expect("import")
}

/// A fresh import (made once per test binary: it parses every input).
fn fresh() -> &'static import::ImportOutput {
    static FRESH: OnceLock<import::ImportOutput> = OnceLock::new();
    FRESH.get_or_init(import_now)
}

/// Whether the import holds a schema of this GVK for `release`.
fn has(output: &import::ImportOutput, release: &str, group: &str, version: &str, kind: &str) -> bool {
    output.files.keys().any(|path| {
        let mut parts = path.iter().map(|p| p.to_string_lossy().into_owned());
        let (Some(top), Some(folder)) = (parts.next(), parts.next()) else { return false };
        let group_dir = if group.is_empty() { "core" } else { group };
        top == "gvk"
            && releases::releases_of_folder(&folder).iter().any(|r| r == release)
            && parts.collect::<Vec<_>>() == [group_dir.to_string(), version.to_string(), format!("{kind}.json")]
    })
}

/// The served versions of each CRD (`group/Kind`) below `dir`.
fn served_versions(dir: &Path) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for file in files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "yaml")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let crd = capz::manifest::parse_documents(&text, "crd").unwrap().remove(0).value;
        let versions = crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["served"] == json!(true))
            .map(|v| v["name"].as_str().unwrap().to_string())
            .collect();
        out.push((
            format!("{}/{}", crd["spec"]["group"].as_str().unwrap(), crd["spec"]["names"]["kind"].as_str().unwrap()),
            versions,
        ));
    }
    out
}

#[test]
fn committed_schemas_equal_a_fresh_import() {
    let fresh = fresh();
    let committed = import::read_tree(&support::repo_root().join("schemas")).expect("read schemas/");
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
    let first = fresh();
    import::write_output(first, &out).unwrap();
    // Writing again replaces the tree whole (no stale files survive).
    std::fs::write(out.join("stale.txt"), "x").unwrap();
    import::write_output(first, &out).unwrap();
    assert_eq!(&import::read_tree(&out).unwrap(), first);
    assert_eq!(&import_now(), first);
}

#[test]
fn every_kind_the_issue_names_is_covered_by_every_target() {
    let fresh = fresh();
    for target in TARGETS {
        let release = |family: &str| *target.schema_sets.iter().find(|r| r.starts_with(family)).unwrap();
        let (capi, capz, aso) = (release("capi-"), release("capz-"), release("aso-"));
        // The CAPI release whole: core, addons, ipam, runtime, and the kubeadm providers clusterctl installs.
        for version in ["v1beta1", "v1beta2"] {
            for (group, kinds) in [
                (
                    "cluster.x-k8s.io",
                    &[
                        "Cluster",
                        "ClusterClass",
                        "Machine",
                        "MachineSet",
                        "MachineDeployment",
                        "MachinePool",
                        "MachineHealthCheck",
                        "MachineDrainRule",
                    ][..],
                ),
                ("addons.cluster.x-k8s.io", &["ClusterResourceSet", "ClusterResourceSetBinding"]),
                ("ipam.cluster.x-k8s.io", &["IPAddress", "IPAddressClaim"]),
                ("bootstrap.cluster.x-k8s.io", &["KubeadmConfig", "KubeadmConfigTemplate"]),
                ("controlplane.cluster.x-k8s.io", &["KubeadmControlPlane", "KubeadmControlPlaneTemplate"]),
            ] {
                for kind in kinds {
                    assert!(has(fresh, capi, group, version, kind), "{capi} {group} {kind} {version}");
                }
            }
        }
        assert!(has(fresh, capi, "ipam.cluster.x-k8s.io", "v1alpha1", "IPAddressClaim"));
        for version in ["v1alpha1", "v1beta2"] {
            assert!(has(fresh, capi, "runtime.cluster.x-k8s.io", version, "ExtensionConfig"), "{capi} {version}");
        }
        // The Cluster API Operator's providers, in the version its release serves.
        let operator = *target.schema_sets.iter().find(|r| r.starts_with("capi-operator-")).unwrap();
        assert_eq!(operator, format!("capi-operator-{}", target.capi_operator.rsplit_once('.').unwrap().0));
        for kind in [
            "CoreProvider",
            "BootstrapProvider",
            "ControlPlaneProvider",
            "InfrastructureProvider",
            "AddonProvider",
            "IPAMProvider",
            "RuntimeExtensionProvider",
        ] {
            assert!(has(fresh, operator, "operator.cluster.x-k8s.io", "v1alpha2", kind), "{operator} {kind}");
            assert!(!has(fresh, operator, "operator.cluster.x-k8s.io", "v1alpha1", kind), "{operator} {kind}");
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
            assert!(has(fresh, capz, "infrastructure.cluster.x-k8s.io", "v1beta1", kind), "{capz} {kind}");
        }
        for version in ["v1api20240901", "v1api20250801", "v20251002preview"] {
            assert!(has(fresh, aso, "containerservice.azure.com", version, "ManagedCluster"), "{aso} {version}");
            assert!(
                has(fresh, aso, "containerservice.azure.com", version, "ManagedClustersAgentPool"),
                "{aso} {version}"
            );
        }
        // Removed before ASO v2.18.
        for version in ["v1api20230201", "v1api20231001"] {
            assert!(!has(fresh, aso, "containerservice.azure.com", version, "ManagedCluster"), "{aso} {version}");
        }
        assert!(has(fresh, aso, "resources.azure.com", "v1api20200601", "ResourceGroup"));
        // The kinds bundled for ADDITIONAL_ASO_CRDS, in the versions both ASO releases hold.
        for (group, kind, versions) in [
            ("managedidentity.azure.com", "UserAssignedIdentity", &["v1api20181130", "v1api20230131"][..]),
            ("managedidentity.azure.com", "FederatedIdentityCredential", &["v1api20220131preview", "v1api20230131"]),
            ("authorization.azure.com", "RoleAssignment", &["v1api20200801preview", "v1api20220401"]),
        ] {
            for version in versions {
                assert!(has(fresh, aso, group, version, kind), "{aso} {kind} {version}");
                assert!(has(fresh, aso, group, &format!("{version}storage"), kind), "{aso} {kind} {version}storage");
            }
        }
        // Only what CAPZ's --crd-pattern installs, and those.
        for entry in target.aso_crd_pattern {
            let (group, kind) = entry.split_once('/').unwrap();
            assert!(
                fresh.files.keys().any(|p| p.to_string_lossy().contains(&format!("/{group}/")) && p.ends_with(format!("{kind}.json"))),
                "{aso} has no {entry}"
            );
        }
    }
}

/// What the derivation of ASO v2.19 claims (upstream-crds/SOURCES.md), checked on the import.
#[test]
fn aso_v2_19_is_v2_18_minus_v1api20240402preview_plus_network_v20250301() {
    let fresh = fresh();
    let cs = "containerservice.azure.com";
    for kind in ["ManagedCluster", "ManagedClustersAgentPool"] {
        assert!(has(fresh, "aso-v2.18", cs, "v1api20240402preview", kind));
        assert!(!has(fresh, "aso-v2.19", cs, "v1api20240402preview", kind));
        assert!(!has(fresh, "aso-v2.19", cs, "v1api20240402previewstorage", kind));
    }
    for kind in ["VirtualNetwork", "VirtualNetworksSubnet", "NatGateway", "PrivateEndpoint", "BastionHost"] {
        assert!(has(fresh, "aso-v2.19", "network.azure.com", "v20250301", kind), "{kind}");
        assert!(!has(fresh, "aso-v2.18", "network.azure.com", "v20250301", kind), "{kind}");
        assert!(has(fresh, "aso-v2.19", "network.azure.com", "v1api20240301", kind), "{kind}");
    }
    // PrivateLinkService: only CAPZ v1.27's crd-pattern names it.
    assert!(has(fresh, "aso-v2.19", "network.azure.com", "v20250301", "PrivateLinkService"));
    assert!(!has(fresh, "aso-v2.18", "network.azure.com", "v1api20240301", "PrivateLinkService"));
    // Everything v2.19 holds apart from the added versions is v2.18.0's, byte for byte (the shared folder).
    for path in fresh.files.keys() {
        let parts: Vec<String> = path.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts[0] == "gvk" && parts[1] == "aso-v2.19" {
            // Its own: the added versions, and PrivateLinkService (only CAPZ v1.27's crd-pattern names it).
            assert!(
                parts[3].starts_with("v20250301") || parts[4] == "PrivateLinkService.json",
                "{} is v2.19's own but not an added version",
                path.display()
            );
        }
    }
    // Each derived kind serves what ASO v2.20.0 serves (v2.20 changed no version of these kinds; SOURCES.md).
    for (kind, versions) in served_versions(&upstream_crds().join("aso-v2.20.0")) {
        let (group, kind_name) = kind.split_once('/').unwrap();
        for version in &versions {
            assert!(
                has(fresh, "aso-v2.19", group, version, kind_name),
                "v2.20.0 serves {kind} {version}; derived v2.19 does not"
            );
        }
        let removed_since = served_versions(&upstream_crds().join("aso-v2.18.0"))
            .into_iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, v18)| v18.into_iter().filter(|v| !versions.contains(v)).collect::<BTreeSet<_>>())
            .unwrap_or_default();
        for version in removed_since {
            assert!(
                !has(fresh, "aso-v2.19", group, &version, kind_name),
                "{kind} {version} is gone in v2.20.0 and should be in v2.19"
            );
        }
    }
}

#[test]
fn targets_list_known_releases_and_the_crd_pattern_their_capz_release_passes() {
    let names: BTreeSet<&str> = releases::RELEASES.iter().map(|r| r.name).collect();
    for target in TARGETS {
        for release in target.schema_sets {
            assert!(names.contains(release), "{}: unknown release {release}", target.name);
            assert!(
                !release.starts_with(releases::KUBERNETES_FAMILY),
                "{}: Kubernetes is picked on its own",
                target.name
            );
        }
        let pattern =
            std::fs::read_to_string(upstream_crds().join(format!("capz-{}/aso-crd-pattern.txt", target.capz_source)))
                .unwrap();
        let pattern: Vec<&str> = pattern.trim().split(';').collect();
        assert_eq!(pattern, target.aso_crd_pattern, "{}", target.name);
    }
}

/// The provisional v1.28's releases: CAPZ's own are v1.27.0's byte for byte (no later CAPZ source is served), ASO
/// v2.20 holds ASO v2.20.0's CRDs of CAPZ v1.27.0's crd-pattern and the extra kinds, whole, and nothing else; the
/// proxy's refusal of CAPZ v1.28.0 is recorded.
#[test]
fn the_provisional_v1_28_takes_capz_v1_27_0_and_aso_v2_20_0() {
    let fresh = fresh();
    let mut capz_files = 0;
    for path in fresh.files.keys() {
        let Some(folder) = path.iter().nth(1) else { continue };
        let releases = releases::releases_of_folder(&folder.to_string_lossy());
        if releases.iter().any(|r| r == "capz-v1.28") {
            assert!(releases.iter().any(|r| r == "capz-v1.27"), "{} is capz-v1.28's but not v1.27's", path.display());
            capz_files += 1;
        }
        if releases.iter().any(|r| r == "capz-v1.27") {
            assert!(releases.iter().any(|r| r == "capz-v1.28"), "{} is capz-v1.27's but not v1.28's", path.display());
        }
    }
    assert!(capz_files > 20, "{capz_files}");
    let pattern: BTreeSet<String> = ["capz-v1.27.0/aso-crd-pattern.txt", releases::ASO_EXTRA_KINDS]
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(upstream_crds().join(f))
                .unwrap()
                .trim()
                .split(';')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut imported = BTreeSet::new();
    for (kind, versions) in served_versions(&upstream_crds().join("aso-v2.20.0")) {
        assert!(pattern.contains(&kind), "aso-v2.20.0/ holds {kind}, outside the pattern");
        let (group, kind_name) = kind.split_once('/').unwrap();
        for version in &versions {
            assert!(has(fresh, "aso-v2.20", group, version, kind_name), "aso-v2.20 lacks {kind} {version}");
        }
        imported.insert(kind);
    }
    assert_eq!(imported, pattern, "aso-v2.20.0/ lacks a kind of the pattern");
    assert!(!has(fresh, "aso-v2.20", "containerservice.azure.com", "v1api20240402preview", "ManagedCluster"));
    let refusal = std::fs::read_to_string(upstream_crds().join("capz-v1.28-refused.txt")).unwrap();
    assert!(refusal.contains("cluster-api-provider-azure@v1.28.0") && refusal.contains("403"), "{refusal}");
}

/// Every CRD the CAPI and Cluster API Operator folders of upstream-crds/ hold is imported with all its served
/// versions: the releases are bundled whole.
#[test]
fn the_capi_and_operator_releases_are_bundled_whole() {
    let fresh = fresh();
    for (folder, release) in [
        ("capi-v1.14.0", "capi-v1.14"),
        ("capi-v1.13.3", "capi-v1.13"),
        ("capi-operator-v0.29.0", "capi-operator-v0.29"),
    ] {
        let crds = served_versions(&upstream_crds().join(folder));
        assert!(crds.len() >= 7, "{folder}: {crds:?}");
        for (kind, versions) in crds {
            let (group, kind_name) = kind.split_once('/').unwrap();
            for version in versions {
                assert!(has(fresh, release, group, &version, kind_name), "{release} lacks {kind} {version}");
            }
        }
    }
    assert_eq!(served_versions(&upstream_crds().join("capi-v1.14.0")).len(), 17);
}

/// The CAPZ kinds a target lists as having no bundled schema are exactly those of CAPZ's config/crd/bases
/// (served-kinds.txt) that the import lacks, with the versions CAPZ serves.
#[test]
fn capz_kinds_without_a_schema_are_the_unbundled_kinds_of_capzs_crds() {
    let fresh = fresh();
    for target in TARGETS {
        let release = *target.schema_sets.iter().find(|r| r.starts_with("capz-")).unwrap();
        let listed =
            std::fs::read_to_string(upstream_crds().join(format!("capz-{}/served-kinds.txt", target.capz_source)))
                .unwrap();
        let mut unbundled = Vec::new();
        for line in listed.lines() {
            let (kind, versions) = line.split_once(' ').unwrap();
            let (group, kind_name) = kind.split_once('/').unwrap();
            let versions: Vec<&str> = versions.split(',').collect();
            let bundled: Vec<bool> = versions.iter().map(|v| has(fresh, release, group, v, kind_name)).collect();
            assert!(bundled.iter().all(|b| *b) || bundled.iter().all(|b| !*b), "{release}: {line} half bundled");
            if !bundled[0] {
                unbundled.push((group.to_string(), kind_name.to_string(), versions.join(",")));
            }
        }
        let expected: Vec<(String, String, String)> = target
            .capz_kinds_without_schema
            .iter()
            .map(|k| (k.group.to_string(), k.kind.to_string(), k.versions.join(",")))
            .collect();
        assert_eq!(unbundled, expected, "{}", target.name);
        assert_eq!(unbundled.len(), 6, "{}", target.name);
    }
    // The ASO kinds bundled beside CAPZ's pattern are the ones versions.rs names.
    let extra = std::fs::read_to_string(upstream_crds().join(releases::ASO_EXTRA_KINDS)).unwrap();
    assert_eq!(extra.trim().split(';').collect::<Vec<_>>(), capz::versions::ASO_EXTRA_KINDS);
}

#[test]
fn the_project_reads_nothing_beside_the_repository() {
    for file in [
        "tests/tooling/importer.rs",
        "tests/cli/docs_commands.rs",
        "src/schema/import.rs",
        "src/schema/releases.rs",
        "tools/schema-inputs/fetch.sh",
    ] {
        let text = std::fs::read_to_string(support::repo_root().join(file)).unwrap();
        let needle = ["..", "/shared"].concat();
        assert!(!text.contains(&needle), "{file} reads {needle}");
    }
}

#[test]
fn every_kubernetes_release_is_bundled_and_the_newest_is_the_default() {
    let bundled: Vec<String> = Registry::kubernetes_versions().iter().map(|v| format!("kubernetes-{v}")).collect();
    let imported: Vec<String> =
        releases::RELEASES.iter().filter(|r| r.name.starts_with("kubernetes-")).map(|r| r.name.to_string()).collect();
    assert!(!imported.is_empty());
    let mut sorted = bundled.clone();
    sorted.sort();
    let mut imported_sorted = imported.clone();
    imported_sorted.sort();
    assert_eq!(sorted, imported_sorted, "the binary bundles other Kubernetes releases than the importer writes");
    let registry = Registry::for_target(capz::versions::default_target());
    assert_eq!(registry.kubernetes_version(), Registry::kubernetes_versions()[0]);
}

#[test]
fn every_gitops_kind_is_covered() {
    let fresh = fresh();
    assert!(has(fresh, "gitops", "kustomize.toolkit.fluxcd.io", "v1", "Kustomization"));
    for kind in ["GitRepository", "HelmRepository", "HelmChart", "Bucket", "OCIRepository"] {
        assert!(has(fresh, "gitops", "source.toolkit.fluxcd.io", "v1", kind), "{kind}");
    }
    assert!(has(fresh, "gitops", "helm.toolkit.fluxcd.io", "v2", "HelmRelease"));
    assert!(has(fresh, "gitops", "notification.toolkit.fluxcd.io", "v1", "Receiver"));
    for kind in ["Alert", "Provider"] {
        assert!(has(fresh, "gitops", "notification.toolkit.fluxcd.io", "v1beta3", kind), "{kind}");
    }
    for kind in ["ImageRepository", "ImagePolicy", "ImageUpdateAutomation"] {
        assert!(has(fresh, "gitops", "image.toolkit.fluxcd.io", "v1", kind), "{kind}");
    }
    for kind in ["Application", "ApplicationSet", "AppProject"] {
        assert!(has(fresh, "gitops", "argoproj.io", "v1alpha1", kind), "{kind}");
    }
    // Every target serves them.
    assert!(TARGETS.iter().all(|t| t.schema_sets.contains(&"gitops")));
}

#[test]
fn every_served_builtin_kind_is_covered() {
    let fresh = fresh();
    let release = format!("kubernetes-{}", Registry::kubernetes_versions()[0]);
    let has = |group: &str, version: &str, kind: &str| has(fresh, &release, group, version, kind);
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
    // Built-in kinds come with no installable CRD.
    assert!(!fresh.files.keys().any(|p| p.starts_with(format!("crds/{release}"))));
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
