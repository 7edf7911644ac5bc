//! `kubectl capz validate` on asoManagedClusterPatches / asoManagedClustersAgentPoolPatches: a broken patch is an
//! error and a no-op patch a warning, each at the patch's file:line with its index (rules capz-aso-patch-broken,
//! capz-aso-patch-no-op, computed with CAPZ's translation in src/migrate).

use crate::support::cli_runner::capz_command;

const CASES: &str = "tests/fixtures/capz-translation/cases";

fn validate(case: &str) -> (i32, String) {
    let out = capz_command().args(["validate", &format!("{CASES}/{case}.yaml")]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn lines_with<'a>(text: &'a str, rule: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(rule)).collect()
}

#[test]
fn broken_patches_are_errors_at_their_line_and_index() {
    let (code, text) = validate("48-cp-patch-broken-yaml");
    assert_eq!(code, 1, "{text}");
    let broken = lines_with(&text, "[capz-aso-patch-broken]");
    assert_eq!(broken.len(), 1, "{text}");
    assert!(broken[0].starts_with(&format!("{CASES}/48-cp-patch-broken-yaml.yaml:32: error:")), "{}", broken[0]);
    assert!(broken[0].contains("/spec/asoManagedClusterPatches/1") && broken[0].contains("index 1"), "{}", broken[0]);

    let (code, text) = validate("49-cp-patch-wrong-type");
    assert_eq!(code, 1, "{text}");
    assert!(lines_with(&text, "[capz-aso-patch-broken]")[0].contains("spec.enableRBAC"), "{text}");

    let (code, text) = validate("57-pool-patch-broken");
    assert_eq!(code, 1, "{text}");
    let broken = lines_with(&text, "[capz-aso-patch-broken]");
    assert!(broken[0].contains("AzureManagedMachinePool/c57-pool0") && broken[0].contains("index 2"), "{text}");
}

#[test]
fn no_op_patches_are_warnings_and_real_patches_are_quiet() {
    let (_, text) = validate("57-pool-patch-broken");
    let no_op = lines_with(&text, "[capz-aso-patch-no-op]");
    assert_eq!(no_op.len(), 1, "{text}");
    assert!(no_op[0].contains("/spec/asoManagedClustersAgentPoolPatches/0"), "{}", no_op[0]);
    for case in ["42-cp-patch-order", "50-pool-patch-single", "58-pool-patch-both-kinds"] {
        let (code, text) = validate(case);
        assert!(lines_with(&text, "capz-aso-patch").is_empty(), "{case}: {text}");
        assert_eq!(code, 0, "{case}: {text}");
    }
    // CAPZ applies case 40's patch, but the ManagedCluster it creates has disableLocalAccounts without an
    // aadProfile, which AKS rejects: the embedded-object rule reports it at the patch.
    let (code, text) = validate("40-cp-patch-single");
    assert!(lines_with(&text, "capz-aso-patch").is_empty(), "{text}");
    let local = lines_with(&text, "[aks-disable-local-accounts]");
    assert_eq!(local.len(), 1, "{text}");
    assert!(local[0].contains("/spec/asoManagedClusterPatches/0") && local[0].contains("index 0"), "{}", local[0]);
    assert_eq!(code, 1, "{text}");
}

#[test]
fn patches_of_fields_capz_owns_are_warnings() {
    for (case, field) in
        [("47-cp-patch-agentpoolprofiles", "/spec/agentPoolProfiles"), ("56-pool-patch-owner", "/spec/owner")]
    {
        let (code, text) = validate(case);
        let owned = lines_with(&text, "[capz-aso-patch-owned-field]");
        assert_eq!(owned.len(), 1, "{case}: {text}");
        assert!(owned[0].contains(field) && owned[0].contains("index 0"), "{case}: {}", owned[0]);
        // The pool's owner now names a ManagedCluster the bundle does not have while the cluster's own
        // ManagedCluster is there under its name: ASO waits for the patched name forever.
        let unresolved = lines_with(&text, "[aso-misnamed-owner]");
        if case.starts_with("56") {
            assert_eq!(unresolved.len(), 1, "{text}");
            assert!(unresolved[0].contains("/spec/asoManagedClustersAgentPoolPatches/0"), "{}", unresolved[0]);
            assert_eq!(code, 1, "{case}: {text}");
        } else {
            assert!(unresolved.is_empty(), "{text}");
            assert_eq!(code, 0, "{case}: a warning only: {text}");
        }
    }
    let (_, text) = validate("46-cp-patch-metadata");
    assert!(
        lines_with(&text, "[capz-aso-patch-owned-field]").is_empty(),
        "team label and example.com annotation are the user's: {text}"
    );
}

#[test]
fn a_patched_object_asos_schema_rejects_is_an_error() {
    let out =
        capz_command().args(["validate", "tests/corpus/invalid/aso-patched-object-schema-enum.yaml"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let schema = lines_with(&text, "[aso-patched-object-schema]");
    assert_eq!(schema.len(), 1, "{text}");
    assert!(schema[0].contains("/spec/networkProfile/networkPlugin"), "{}", schema[0]);
    assert!(schema[0].contains("/spec/asoManagedClusterPatches/0"), "{}", schema[0]);
}

const PATCH_LINT: &str = "tests/fixtures/patch-lint";

fn validate_file(path: &str) -> (i32, String) {
    let out = capz_command().args(["validate", path]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_patched_managed_cluster_goes_through_the_embedded_aso_rules() {
    let path = format!("{PATCH_LINT}/cp-patch-dns-prefix.yaml");
    let (code, text) = validate_file(&path);
    assert_eq!(code, 1, "{text}");
    let dns = lines_with(&text, "[aks-dns-prefix]");
    assert_eq!(dns.len(), 1, "{text}");
    assert!(dns[0].starts_with(&format!("{path}:33: error:")), "at the second patch's line: {}", dns[0]);
    assert!(dns[0].contains("/spec/asoManagedClusterPatches/1") && dns[0].contains("index 1"), "{}", dns[0]);
    assert!(dns[0].contains("/spec/dnsPrefix"), "names the field of the patched object: {}", dns[0]);
}

#[test]
fn the_patched_agent_pool_goes_through_the_embedded_aso_rules() {
    let path = format!("{PATCH_LINT}/pool-patch-max-pods.yaml");
    let (code, text) = validate_file(&path);
    assert_eq!(code, 1, "{text}");
    let max_pods = lines_with(&text, "[aks-max-pods]");
    assert_eq!(max_pods.len(), 1, "{text}");
    assert!(max_pods[0].starts_with(&format!("{path}:99: error:")), "{}", max_pods[0]);
    assert!(max_pods[0].contains("AzureManagedMachinePool/c40-pool1"), "{}", max_pods[0]);
    assert!(max_pods[0].contains("/spec/asoManagedClustersAgentPoolPatches/0"), "{}", max_pods[0]);
}

#[test]
fn the_preview_version_is_checked_against_its_own_schema() {
    let path = format!("{PATCH_LINT}/preview-checked.yaml");
    let (code, text) = validate_file(&path);
    assert!(lines_with(&text, "[aso-patched-object-unchecked]").is_empty(), "{text}");
    // The pool's patch breaks the pool CAPZ creates and, through agentPoolProfiles, the ManagedCluster.
    let schema = lines_with(&text, "[aso-patched-object-schema]");
    assert_eq!(schema.len(), 2, "{text}");
    assert!(schema[0].contains("/spec/asoManagedClusterPatches/0"), "{}", schema[0]);
    assert!(schema[0].contains("/spec/agentPoolProfiles/1/kubeletDiskType"), "{}", schema[0]);
    assert!(schema[1].contains("/spec/asoManagedClustersAgentPoolPatches/0"), "{}", schema[1]);
    for line in &schema {
        assert!(line.contains("fails ASO's schema (containerservice.azure.com/v20251002preview)"), "{line}");
        assert!(line.contains("kubeletDiskType: unsupported value \"Bogus\""), "{line}");
    }
    assert_eq!(code, 1, "{text}");
}

#[test]
fn template_patches_get_every_check() {
    let path = format!("{PATCH_LINT}/templates.yaml");
    let (code, text) = validate_file(&path);
    assert_eq!(code, 1, "{text}");
    let broken = lines_with(&text, "[capz-aso-patch-broken]");
    assert_eq!(broken.len(), 1, "{text}");
    assert!(broken[0].starts_with(&format!("{path}:22: error:")), "{}", broken[0]);
    assert!(broken[0].contains("/spec/template/spec/asoManagedClusterPatches/1"), "{}", broken[0]);
    assert!(broken[0].contains("spec.enableRBAC"), "{}", broken[0]);

    let schema = lines_with(&text, "[aso-patched-object-schema]");
    assert_eq!(schema.len(), 1, "{text}");
    assert!(schema[0].contains("AzureManagedControlPlaneTemplate/aks-control-plane-enum"), "{}", schema[0]);
    assert!(schema[0].contains("/spec/template/spec/asoManagedClusterPatches/0"), "{}", schema[0]);
    assert!(schema[0].contains("/spec/networkProfile/networkPlugin"), "{}", schema[0]);

    let no_op = lines_with(&text, "[capz-aso-patch-no-op]");
    assert_eq!(no_op.len(), 1, "{text}");
    assert!(no_op[0].contains("/spec/template/spec/asoManagedClustersAgentPoolPatches/0"), "{}", no_op[0]);

    let max_pods = lines_with(&text, "[aks-max-pods]");
    assert_eq!(max_pods.len(), 1, "{text}");
    assert!(max_pods[0].contains("/spec/template/spec/asoManagedClustersAgentPoolPatches/1"), "{}", max_pods[0]);
}
