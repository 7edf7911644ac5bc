//! A classic cluster whose ManagedCluster / ManagedClustersAgentPools, as CAPZ creates them at
//! reconcile, fail ASO's schema (`schemas/crds/aso-*/containerservice.azure.com_managedclusters*.yaml`) is not
//! valid: `aso-classic-object-schema`, on the classic field the value comes from, once per cause, and in the
//! streamed rules (`validate FILE...`) as in the whole-bundle rules.

use capz::lint::{RuleSelection, StreamedBundle, check};
use capz::manifest::parse_documents;
use capz::report::{Finding, Severity};

const RULE: &str = "aso-classic-object-schema";

/// A complete classic cluster `c01` (one System and one User pool) that `validate` finds clean.
fn clean() -> String {
    include_str!("../fixtures/capz-translation/cases/01-minimal.yaml")
        .replace("  location: \"westeurope\"", "  location: \"westeurope\"\n  resourceGroupName: \"rg\"")
}

/// `clean()` with the AzureManagedControlPlane's spec given `lines` (two-space indented YAML under spec).
fn with_control_plane_spec(lines: &str) -> String {
    clean().replace("  resourceGroupName: \"rg\"", &format!("  resourceGroupName: \"rg\"\n{lines}"))
}

/// `clean()` with the AzureManagedControlPlane (and the Cluster's reference to it) named `name`.
fn control_plane_named(name: &str, dns_prefix: &str) -> String {
    clean()
        .replace(
            "kind: \"AzureManagedControlPlane\"\n    name: \"c01\"",
            &format!("kind: \"AzureManagedControlPlane\"\n    name: \"{name}\""),
        )
        .replace(
            "kind: \"AzureManagedControlPlane\"\nmetadata:\n  name: \"c01\"",
            &format!("kind: \"AzureManagedControlPlane\"\nmetadata:\n  name: \"{name}\""),
        )
        .replace("  resourceGroupName: \"rg\"", &format!("  resourceGroupName: \"rg\"\n  dnsPrefix: \"{dns_prefix}\""))
}

/// The errors of the whole-bundle rules, after checking that the streamed rules give the same.
fn errors(text: &str) -> Vec<Finding> {
    let documents = parse_documents(text, "cluster.yaml").unwrap();
    let whole = check(&documents, &RuleSelection::default());
    let mut streamed = StreamedBundle::default();
    streamed.add(&documents);
    let mut streamed = streamed.check(&RuleSelection::default());
    streamed.sort_by(|a, b| (a.line, &a.rule, &a.path).cmp(&(b.line, &b.rule, &b.path)));
    let mut sorted = whole.clone();
    sorted.sort_by(|a, b| (a.line, &a.rule, &a.path).cmp(&(b.line, &b.rule, &b.path)));
    assert_eq!(sorted, streamed, "the streamed rules agree with the whole-bundle rules");
    whole.into_iter().filter(|f| f.severity == Severity::Error).collect()
}

fn only(findings: &[Finding]) -> &Finding {
    assert_eq!(findings.len(), 1, "{findings:#?}");
    &findings[0]
}

#[test]
fn the_clean_cluster_has_no_error() {
    assert_eq!(errors(&clean()), [], "the base of every case below is clean");
}

#[test]
fn a_control_plane_name_with_a_dot_breaks_the_managed_clusters_azure_name() {
    // ASO's ManagedCluster azureName: ^[a-zA-Z0-9]$|^[a-zA-Z0-9][-_a-zA-Z0-9]{0,61}[a-zA-Z0-9]$ (v1api20250801).
    for name in ["demo.prod", "team.a.cluster1"] {
        let errors = errors(&control_plane_named(name, "demo-prod"));
        let finding = only(&errors);
        assert_eq!(finding.rule, RULE);
        assert_eq!(finding.object, format!("AzureManagedControlPlane/{name}"));
        assert_eq!(finding.path, "/metadata/name", "the field the azureName comes from");
        assert_eq!(finding.line, 19);
        assert!(
            finding.message.contains("ASO rejects the ManagedCluster")
                && finding.message.contains("that CAPZ's reconcile creates from this value, at /spec/azureName")
                && finding.message.contains(&format!("\"{name}\" does not match the pattern"))
                && finding.message.contains("the apply succeeds, the cluster never provisions"),
            "{}",
            finding.message
        );
    }
}

#[test]
fn a_control_plane_name_longer_than_63_characters() {
    let name = "a".repeat(64);
    let errors = errors(&control_plane_named(&name, "demo"));
    let finding = only(&errors);
    assert_eq!((finding.rule.as_str(), finding.path.as_str()), (RULE, "/metadata/name"));
    assert!(finding.message.contains("/spec/azureName"), "{}", finding.message);
}

#[test]
fn a_value_the_classic_crd_accepts_and_asos_enum_or_pattern_rejects() {
    // keyVaultNetworkAccess: a free string in CAPZ's CRD, enum Private/Public in ASO's (CAPZ fixes the case only).
    let kms = with_control_plane_spec(
        "  identity:\n    type: \"UserAssigned\"\n    userAssignedIdentityResourceID: \
         \"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/\
         Microsoft.ManagedIdentity/userAssignedIdentities/id1\"\n  securityProfile:\n    azureKeyVaultKms:\n      \
         enabled: true\n      keyID: \"https://kv.vault.azure.net/keys/k/1\"\n      keyVaultNetworkAccess: \"Internal\"",
    );
    let errors_kms = errors(&kms);
    let finding = only(&errors_kms);
    assert_eq!(
        (finding.rule.as_str(), finding.path.as_str()),
        (RULE, "/spec/securityProfile/azureKeyVaultKms/keyVaultNetworkAccess")
    );
    assert!(finding.message.contains("unsupported value \"Internal\""), "{}", finding.message);
    // Case only: CAPZ decodes the value into ASO's enum, no finding.
    assert_eq!(errors(&kms.replace("\"Internal\"", "\"public\"")), []);

    // logAnalyticsWorkspaceResourceID: a free string in CAPZ's CRD, an ARM id (armId pattern) in ASO's.
    let defender = with_control_plane_spec(
        "  securityProfile:\n    defender:\n      logAnalyticsWorkspaceResourceID: \"my-workspace\"\n      \
         securityMonitoring:\n        enabled: true",
    );
    let errors_defender = errors(&defender);
    let finding = only(&errors_defender);
    assert_eq!(
        (finding.rule.as_str(), finding.path.as_str()),
        (RULE, "/spec/securityProfile/defender/logAnalyticsWorkspaceResourceID")
    );
    assert!(finding.message.contains("logAnalyticsWorkspaceResourceReference/armId"), "{}", finding.message);
}

#[test]
fn a_pool_name_asos_pattern_rejects_is_reported_once_by_the_classic_rule() {
    // ManagedClustersAgentPool azureName: ^[a-z][a-z0-9]{0,11}$; CAPZ's webhook checks the same (capz-pool-name).
    let uppercase = clean().replace("name: \"pool1\"", "name: \"Pool1\"");
    let defaulted = clean().replace("  name: \"pool1\"\n", "").replace("c01-pool1", "pool.one");
    for text in [uppercase, defaulted] {
        let errors = errors(&text);
        let finding = only(&errors);
        assert_eq!(finding.rule, "capz-pool-name", "one finding per cause: {errors:#?}");
    }
}

#[test]
fn disabling_the_rule_silences_it() {
    let documents = parse_documents(&control_plane_named("demo.prod", "demo-prod"), "cluster.yaml").unwrap();
    let selection = RuleSelection::new(&[], &[RULE.to_string()]).unwrap();
    assert!(check(&documents, &selection).iter().all(|f| f.rule != RULE));
}
