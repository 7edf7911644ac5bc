//! Per target (CAPZ v1.27 = default, v1.26, the provisional v1.28): the embedded ASO objects of every API version the target's ASO
//! serves are validated against that version's schema, removed and not-yet-added versions are errors naming the
//! target, kinds outside CAPZ's --crd-pattern are warnings and not checked unless ADDITIONAL_ASO_CRDS adds them,
//! the Cluster API Operator's providers are checked, other providers' kinds in shared groups are not bundled, and
//! CAPZ's own templates of each release validate clean under their target.

use crate::support::cli_runner::{CAPZ_DOCS_ENV, capz_command};
use capz::manifest::{Document, parse_documents};
use capz::report::Severity;
use capz::schema::crd_pattern::CrdPattern;
use capz::schema::{AdditionalAsoCrds, ObjectStatus, Registry, ValidateOptions, Validator};
use capz::versions::{TARGETS, Target, default_target, find_target};
use serde_json::{Value, json};

fn control_plane_with(resource: Value) -> Document {
    let value = json!({
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedControlPlane",
        "metadata": {"name": "demo", "namespace": "default"},
        "spec": {"version": "v1.33.2", "resources": [resource]}
    });
    let text = serde_json::to_string(&value).unwrap();
    parse_documents(&text, "test.yaml").unwrap().remove(0)
}

/// (rule, severity, message) of the findings on an embedded object.
fn check_embedded(target: &'static Target, resource: Value) -> Vec<(String, Severity, String)> {
    let registry = Registry::for_target(target);
    let validator = Validator::new(&registry, ValidateOptions::default());
    let outcome = validator.validate_document(&control_plane_with(resource));
    outcome.findings.into_iter().map(|f| (f.rule, f.severity, format!("{}: {}", f.path, f.message))).collect()
}

fn aso(api_version: &str, kind: &str, spec: Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "demo"}, "spec": spec})
}

/// What each target's ASO serves of the kinds the tests look at (without the storage versions), as ASO's own
/// api/ packages hold them (v2.18.0 and v2.20.0; v2.19 derived: upstream-crds/SOURCES.md). ASO v2.20 (the
/// provisional v1.28) serves the same versions of these kinds as the derived v2.19.
fn expected_versions(target: &Target, group: &str, kind: &str) -> Vec<&'static str> {
    let v126 = target.name == "v1.26";
    match (group, kind) {
        ("containerservice.azure.com", "ManagedCluster" | "ManagedClustersAgentPool") if v126 => {
            vec!["v1api20240402preview", "v1api20240901", "v1api20250801", "v20251002preview"]
        }
        ("containerservice.azure.com", "ManagedCluster" | "ManagedClustersAgentPool") => {
            vec!["v1api20240901", "v1api20250801", "v20251002preview"]
        }
        ("network.azure.com", "VirtualNetwork" | "VirtualNetworksSubnet") if v126 => {
            vec!["v1api20201101", "v1api20240301"]
        }
        ("network.azure.com", "VirtualNetwork" | "VirtualNetworksSubnet") => {
            vec!["v1api20201101", "v1api20240301", "v20250301"]
        }
        ("network.azure.com", "NatGateway" | "PrivateEndpoint" | "BastionHost") if v126 => {
            vec!["v1api20220701", "v1api20240301"]
        }
        ("network.azure.com", "NatGateway" | "PrivateEndpoint" | "BastionHost") => {
            vec!["v1api20220701", "v1api20240301", "v20250301"]
        }
        ("resources.azure.com", "ResourceGroup") => vec!["v1api20200601"],
        _ => panic!("no expectation for {group}/{kind}"),
    }
}

const KINDS: &[(&str, &str)] = &[
    ("containerservice.azure.com", "ManagedCluster"),
    ("containerservice.azure.com", "ManagedClustersAgentPool"),
    ("network.azure.com", "VirtualNetwork"),
    ("network.azure.com", "VirtualNetworksSubnet"),
    ("network.azure.com", "NatGateway"),
    ("network.azure.com", "PrivateEndpoint"),
    ("network.azure.com", "BastionHost"),
    ("resources.azure.com", "ResourceGroup"),
];

#[test]
fn every_served_version_is_checked_against_its_own_schema() {
    for target in TARGETS {
        let registry = Registry::for_target(target);
        for (group, kind) in KINDS {
            let served: Vec<String> =
                registry.versions_of(group, kind).into_iter().filter(|v| !v.ends_with("storage")).collect();
            assert_eq!(served, expected_versions(target, group, kind), "{} {group}/{kind}", target.name);
            for version in &served {
                // A field no version declares: the schema of exactly this version was applied.
                let findings = check_embedded(
                    target,
                    aso(&format!("{group}/{version}"), kind, json!({"notAFieldOfAnyVersion": 1})),
                );
                assert!(
                    findings.iter().any(|(rule, severity, message)| rule == "unknown-field"
                        && *severity == Severity::Error
                        && message.contains("/spec/resources/0/spec/notAFieldOfAnyVersion")),
                    "{} {group}/{version} {kind}: {findings:?}",
                    target.name
                );
                assert!(!findings.iter().any(|(rule, ..)| rule == "api-version"), "{findings:?}");
                // The same version with the field gone has no unknown-field finding.
                let clean = check_embedded(target, aso(&format!("{group}/{version}"), kind, json!({})));
                assert!(!clean.iter().any(|(rule, ..)| rule == "unknown-field" || rule == "api-version"), "{clean:?}");
            }
        }
    }
}

#[test]
fn removed_versions_are_errors_naming_the_target() {
    for (target, aso_line) in [
        ("v1.28", "ASO v2.20 that CAPZ v1.28 installs"),
        ("v1.27", "ASO v2.19 that CAPZ v1.27 installs"),
        ("v1.26", "ASO v2.18 that CAPZ v1.26 installs"),
    ] {
        let target = find_target(target).unwrap();
        for version in ["v1api20230201", "v1api20231001"] {
            let findings = check_embedded(
                target,
                aso(
                    &format!("containerservice.azure.com/{version}"),
                    "ManagedCluster",
                    json!({"location": "westeurope"}),
                ),
            );
            let error = findings
                .iter()
                .find(|(rule, severity, _)| rule == "api-version" && *severity == Severity::Error)
                .unwrap_or_else(|| panic!("{} {version}: {findings:?}", target.name));
            assert!(error.2.contains(&format!("not served by {aso_line}; served: ")), "{}", error.2);
            assert!(error.2.contains("v20251002preview"), "the served versions are listed: {}", error.2);
        }
    }
    // v1api20240402preview: served by ASO v2.18 (CAPZ v1.26), removed in v2.19 (CAPZ v1.27).
    let preview = || aso("containerservice.azure.com/v1api20240402preview", "ManagedCluster", json!({}));
    assert!(!check_embedded(find_target("v1.26").unwrap(), preview()).iter().any(|(r, ..)| r == "api-version"));
    let v127 = check_embedded(find_target("v1.27").unwrap(), preview());
    assert!(v127.iter().any(|(r, _, m)| r == "api-version" && m.contains("ASO v2.19 that CAPZ v1.27")), "{v127:?}");
    // Not back in ASO v2.20 (the provisional v1.28).
    let v128 = check_embedded(find_target("v1.28").unwrap(), preview());
    assert!(v128.iter().any(|(r, _, m)| r == "api-version" && m.contains("ASO v2.20 that CAPZ v1.28")), "{v128:?}");
}

/// The provisional v1.28 checks against ASO v2.20.0's own schemas, not the derived v2.19's: v2.20.0's operatorSpec
/// lets a secret destination carry labels and annotations, which v2.18.0's (and so the derived v2.19's, whose
/// fields are v2.18.0's: upstream-crds/SOURCES.md) does not have.
#[test]
fn the_provisional_v1_28_checks_aso_v2_20s_own_fields() {
    let cluster = || {
        aso(
            "containerservice.azure.com/v1api20250801",
            "ManagedCluster",
            json!({"location": "westeurope", "owner": {"name": "demo"}, "operatorSpec": {"secrets": {
                "adminCredentials": {"name": "demo-kubeconfig", "key": "value", "labels": {"team": "platform"}}
            }}}),
        )
    };
    let v128 = check_embedded(find_target("v1.28").unwrap(), cluster());
    assert!(!v128.iter().any(|(_, s, _)| *s == Severity::Error), "{v128:?}");
    let v127 = check_embedded(find_target("v1.27").unwrap(), cluster());
    assert!(
        v127.iter().any(|(r, s, m)| r == "unknown-field"
            && *s == Severity::Error
            && m.contains("/spec/resources/0/spec/operatorSpec/secrets/adminCredentials/labels")),
        "{v127:?}"
    );
}

#[test]
fn preview_managed_cluster_is_served_by_all_and_network_v20250301_not_by_v1_26() {
    for target in TARGETS {
        let findings = check_embedded(
            target,
            aso(
                "containerservice.azure.com/v20251002preview",
                "ManagedCluster",
                json!({"location": "westeurope", "owner": {"name": "demo"}}),
            ),
        );
        assert!(!findings.iter().any(|(_, s, _)| *s == Severity::Error), "{}: {findings:?}", target.name);
    }
    let vnet = || {
        aso(
            "network.azure.com/v20250301",
            "VirtualNetwork",
            json!({"location": "westeurope", "owner": {"name": "demo"}, "addressSpace": {"addressPrefixes": ["10.0.0.0/8"]}}),
        )
    };
    let v127 = check_embedded(find_target("v1.27").unwrap(), vnet());
    assert!(!v127.iter().any(|(_, s, _)| *s == Severity::Error), "{v127:?}");
    let v128 = check_embedded(find_target("v1.28").unwrap(), vnet());
    assert!(!v128.iter().any(|(_, s, _)| *s == Severity::Error), "{v128:?}");
    let v126 = check_embedded(find_target("v1.26").unwrap(), vnet());
    assert!(
        v126.iter().any(|(r, s, m)| r == "api-version"
            && *s == Severity::Error
            && m.contains("not served by ASO v2.18 that CAPZ v1.26 installs; served: v1api20201101")),
        "{v126:?}"
    );
    // The default target is v1.27.
    assert_eq!(check_embedded(default_target(), vnet()), v127);
}

#[test]
fn aso_kinds_outside_the_crd_pattern_are_warnings_and_not_checked() {
    // PrivateLinkService: in CAPZ v1.27's --crd-pattern (and so the provisional v1.28's), not in v1.26's.
    let pls = || aso("network.azure.com/v1api20240301", "PrivateLinkService", json!({"location": "westeurope"}));
    for target in ["v1.27", "v1.28"] {
        let found = check_embedded(find_target(target).unwrap(), pls());
        assert!(!found.iter().any(|(r, ..)| r == "aso-crd-pattern"), "{target}: {found:?}");
    }
    let v126 = check_embedded(find_target("v1.26").unwrap(), pls());
    assert!(
        v126.iter().any(|(r, s, m)| r == "aso-crd-pattern"
            && *s == Severity::Warning
            && m.contains("CAPZ does not install this CRD unless it is added to ADDITIONAL_ASO_CRDS")),
        "{v126:?}"
    );
    assert!(v126.iter().any(|(r, s, _)| r == "aso-crd-pattern" && *s == Severity::NotChecked), "{v126:?}");
    assert!(!v126.iter().any(|(_, s, _)| *s == Severity::Error), "{v126:?}");
    // With its CRD supplied (--crds), the object is checked against it and no longer warned about.
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "userassignedidentities.managedidentity.azure.com"},
        "spec": {
            "group": "managedidentity.azure.com",
            "names": {"kind": "UserAssignedIdentity", "plural": "userassignedidentities"},
            "scope": "Namespaced",
            "versions": [{"name": "v1api20230131", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"location": {"type": "string"}}}}
            }}}]
        }
    });
    let identity = || aso("managedidentity.azure.com/v1api20230131", "UserAssignedIdentity", json!({"locaton": "x"}));
    let without = check_embedded(default_target(), identity());
    assert!(without.iter().any(|(r, s, _)| r == "aso-crd-pattern" && *s == Severity::Warning), "{without:?}");
    let mut registry = Registry::for_target(default_target());
    registry.add_crd(&crd, "crds/identity.yaml").unwrap();
    let validator = Validator::new(&registry, ValidateOptions::default());
    let outcome = validator.validate_document(&control_plane_with(identity()));
    let rules: Vec<&str> = outcome.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["unknown-field"], "{:?}", outcome.findings);
}

fn document(value: Value) -> Document {
    parse_documents(&serde_json::to_string(&value).unwrap(), "test.yaml").unwrap().remove(0)
}

/// (rule, severity, message) of the findings on a top-level object, and its verdict.
fn check_top_level(registry: &Registry, value: Value) -> (Vec<(String, Severity, String)>, ObjectStatus) {
    let validator = Validator::new(registry, ValidateOptions::default());
    let outcome = validator.validate_document(&document(value));
    let findings = outcome.findings.into_iter().map(|f| (f.rule, f.severity, format!("{}: {}", f.path, f.message)));
    (findings.collect(), outcome.status)
}

/// Every target serves the Cluster API Operator's providers in v1alpha2 (the version its release serves) and
/// checks them; v1alpha1 is an api-version error naming the operator release.
#[test]
fn the_operators_providers_are_checked_in_the_version_its_release_serves() {
    for target in TARGETS {
        let registry = Registry::for_target(target);
        for kind in ["CoreProvider", "InfrastructureProvider", "IPAMProvider", "RuntimeExtensionProvider"] {
            let provider = |version: &str, spec: Value| {
                json!({"apiVersion": format!("operator.cluster.x-k8s.io/{version}"), "kind": kind,
                       "metadata": {"name": "p", "namespace": "capi-system"}, "spec": spec})
            };
            let (findings, status) = check_top_level(&registry, provider("v1alpha2", json!({"version": "v1.2.3"})));
            assert_eq!((findings.len(), status), (0, ObjectStatus::Valid), "{} {kind}: {findings:?}", target.name);
            let (findings, _) = check_top_level(&registry, provider("v1alpha2", json!({"versoin": "v1.2.3"})));
            assert!(findings.iter().any(|(r, s, _)| r == "unknown-field" && *s == Severity::Error), "{findings:?}");
            let (findings, status) = check_top_level(&registry, provider("v1alpha1", json!({"version": "v1.2.3"})));
            assert_eq!(status, ObjectStatus::Invalid);
            assert_eq!(
                findings,
                [(
                    "api-version".to_string(),
                    Severity::Error,
                    format!(
                        "/apiVersion: operator.cluster.x-k8s.io/v1alpha1 {kind} is not served by the Cluster API \
                         Operator {}; served: v1alpha2",
                        target.capi_operator
                    )
                )],
                "{}",
                target.name
            );
        }
    }
}

/// Another provider's kind in a Cluster API group is the target's to judge in no version: a "not bundled" warning
/// (skipped); the target's own kinds in the same groups are judged per kind, by their CRD's served versions.
#[test]
fn other_providers_kinds_in_shared_groups_are_not_bundled_whatever_their_version() {
    for target in TARGETS {
        let registry = Registry::for_target(target);
        for (api_version, kind) in [
            ("infrastructure.cluster.x-k8s.io/v1beta2", "AWSManagedMachinePool"),
            ("infrastructure.cluster.x-k8s.io/v1beta1", "DockerCluster"),
            ("infrastructure.cluster.x-k8s.io/v1alpha4", "DockerMachineTemplate"),
            ("ipam.cluster.x-k8s.io/v1alpha2", "InClusterIPPool"),
            ("bootstrap.cluster.x-k8s.io/v1alpha3", "TalosConfigTemplate"),
            ("controlplane.cluster.x-k8s.io/v1beta2", "AWSManagedControlPlane"),
            ("addons.cluster.x-k8s.io/v1alpha1", "HelmChartProxy"),
        ] {
            let object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "d"}});
            let (findings, status) = check_top_level(&registry, object);
            assert_eq!(status, ObjectStatus::Skipped, "{} {kind}: {findings:?}", target.name);
            assert_eq!(findings.len(), 1, "{findings:?}");
            let (rule, severity, message) = &findings[0];
            assert_eq!((rule.as_str(), *severity), ("schema-missing", Severity::Warning), "{message}");
            assert!(message.contains("another provider's kind in a shared Cluster API group"), "{message}");
        }
        // CAPI's own kinds of the same groups: a version CAPI does not serve is an error naming the kind's versions.
        for (api_version, kind, served) in [
            ("ipam.cluster.x-k8s.io/v1alpha2", "IPAddressClaim", "v1alpha1, v1beta1, v1beta2"),
            ("bootstrap.cluster.x-k8s.io/v1alpha3", "KubeadmConfig", "v1beta1, v1beta2"),
            ("addons.cluster.x-k8s.io/v1alpha3", "ClusterResourceSet", "v1beta1, v1beta2"),
            ("runtime.cluster.x-k8s.io/v1beta1", "ExtensionConfig", "v1alpha1, v1beta2"),
            ("infrastructure.cluster.x-k8s.io/v1alpha4", "AzureMachineTemplate", "v1beta1"),
        ] {
            let object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "d"}});
            let (findings, status) = check_top_level(&registry, object);
            assert_eq!(status, ObjectStatus::Invalid, "{} {kind}: {findings:?}", target.name);
            assert!(
                findings.iter().any(|(r, s, m)| r == "api-version" && *s == Severity::Error && m.ends_with(served)),
                "{} {kind}: {findings:?}",
                target.name
            );
        }
    }
}

/// The ASO kinds bundled for ADDITIONAL_ASO_CRDS are checked once the target's crd-pattern is widened, against the
/// versions the target's ASO serves; a widened kind without a bundled schema is not checked, saying so.
#[test]
fn kinds_additional_aso_crds_adds_are_checked_per_version() {
    let identity = |version: &str| {
        json!({"apiVersion": format!("managedidentity.azure.com/{version}"), "kind": "UserAssignedIdentity",
               "metadata": {"name": "id", "namespace": "d"},
               "spec": {"location": "westeurope", "owner": {"name": "rg"}}})
    };
    for target in TARGETS {
        let mut registry = Registry::for_target(target);
        let (findings, status) = check_top_level(&registry, identity("v1api20230131"));
        assert_eq!(status, ObjectStatus::Skipped, "{findings:?}");
        assert!(findings.iter().any(|(r, s, _)| r == "aso-crd-pattern" && *s == Severity::Warning), "{findings:?}");
        registry.set_additional_aso_crds(AdditionalAsoCrds {
            pattern: CrdPattern::parse("managedidentity.azure.com/*;cache.azure.com/Redis"),
            origin: "ADDITIONAL_ASO_CRDS at test.yaml:1".into(),
        });
        for version in ["v1api20181130", "v1api20230131"] {
            let (findings, status) = check_top_level(&registry, identity(version));
            assert_eq!((findings.len(), status), (0, ObjectStatus::Valid), "{} {version}: {findings:?}", target.name);
        }
        let mut typo = identity("v1api20230131");
        typo["spec"]["locaton"] = json!("x");
        let (findings, _) = check_top_level(&registry, typo);
        assert!(findings.iter().any(|(r, _, m)| r == "unknown-field" && m.contains("locaton")), "{findings:?}");
        let (findings, status) = check_top_level(&registry, identity("v1api20241130"));
        assert_eq!(status, ObjectStatus::Invalid);
        assert!(
            findings.iter().any(|(r, _, m)| r == "api-version"
                && m.contains(&format!(
                    "that CAPZ {} installs; served: v1api20181130, v1api20181130storage",
                    target.name
                ))),
            "{findings:?}"
        );
        // Added but without a bundled schema: not checked, naming the entry and where it was set.
        let redis = json!({"apiVersion": "cache.azure.com/v1api20230801", "kind": "Redis",
                           "metadata": {"name": "r", "namespace": "d"}, "spec": {}});
        let (findings, status) = check_top_level(&registry, redis);
        assert_eq!(status, ObjectStatus::Skipped);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].1, Severity::NotChecked);
        assert!(
            findings[0].2.contains("`cache.azure.com/Redis` of ADDITIONAL_ASO_CRDS at test.yaml:1"),
            "{findings:?}"
        );
        // Not named: still a warning, saying the value does not name it.
        let role = json!({"apiVersion": "authorization.azure.com/v1api20220401", "kind": "RoleAssignment",
                          "metadata": {"name": "r", "namespace": "d"}, "spec": {}});
        let (findings, _) = check_top_level(&registry, role);
        assert!(
            findings.iter().any(|(_, s, m)| *s == Severity::Warning && m.contains("does not name it either")),
            "{findings:?}"
        );
    }
}

/// CAPZ's own templates of v1.26.0 and v1.27.0 (byte for byte tests/fixtures/capz, checked by
/// tools/target-crds/gen.sh), with the variables CAPZ's docs export, validate clean under their target (v1.27.0's
/// under the provisional v1.28 too, the release it is modelled on).
#[test]
fn capz_templates_of_each_release_validate_clean_under_their_target() {
    let vars: Vec<(&str, &str)> =
        CAPZ_DOCS_ENV.iter().copied().chain([("NAMESPACE", "default"), ("CI_RG", "demo-ci")]).collect();
    let lookup = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capz");
    let mut checked = 0;
    for target in TARGETS {
        let registry = Registry::for_target(target);
        let validator = Validator::new(&registry, ValidateOptions::default());
        for file in
            ["cluster-template-aks.yaml", "cluster-template-aks-aso.yaml", "cluster-template-aks-aso-maintenance.yaml"]
        {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            let expanded = capz::render::envsubst::process(&text, lookup).unwrap();
            for document in parse_documents(&expanded, file).unwrap() {
                let outcome = validator.validate_document(&document);
                let errors: Vec<_> = outcome.findings.iter().filter(|f| f.severity != Severity::Warning).collect();
                assert!(errors.is_empty(), "{} {file} {}: {errors:?}", target.name, document.display_name());
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} objects");
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let output = capz_command().env_clear().args(args).write_stdin(stdin).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// An object in an API version the target does not serve is never counted valid: an error, or with
/// `--disable api-version` "not checked" (skipped, not valid).
#[test]
fn unserved_objects_are_errors_or_not_checked_never_valid() {
    let manifest = "apiVersion: containerservice.azure.com/v1api20231001\nkind: ManagedCluster\nmetadata:\n  name: demo\n  \
                    namespace: default\nspec:\n  location: westeurope\n";
    let (code, stdout, stderr) = run(&["validate", "-", "-o", "json"], manifest);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["summary"]["invalid"], 1, "{report:#}");
    assert!(
        report["findings"][0]["message"].as_str().unwrap().contains("not served by ASO v2.19 that CAPZ v1.27 installs"),
        "{report:#}"
    );

    let (code, stdout, stderr) = run(&["validate", "-", "-o", "json", "--disable", "api-version"], manifest);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let summary = &report["summary"];
    assert_eq!((summary["valid"].as_u64(), summary["skipped"].as_u64()), (Some(0), Some(1)), "{report:#}");
    assert_eq!(summary["notChecked"], 1, "{report:#}");
    assert_eq!(report["findings"][0]["severity"], "notchecked", "{report:#}");
}

/// `kubectl capz version` lists the targets with exact versions and where their schemas came from.
#[test]
fn version_lists_the_targets() {
    let (code, stdout, stderr) = run(&["version"], "");
    assert_eq!(code, 0, "{stderr}");
    let stdout = stdout.replacen(&format!("kubectl-capz v{}", env!("CARGO_PKG_VERSION")), "kubectl-capz v[VERSION]", 1);
    insta::assert_snapshot!(stdout);
}
