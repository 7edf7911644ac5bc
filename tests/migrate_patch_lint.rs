//! `kubectl capz validate` on asoManagedClusterPatches / asoManagedClustersAgentPoolPatches: a broken patch is an
//! error and a no-op patch a warning, each at the patch's file:line with its index (rules capz-aso-patch-broken,
//! capz-aso-patch-no-op, computed with CAPZ's translation in src/migrate).

use assert_cmd::Command;

const CASES: &str = "tests/fixtures/capz-translation/cases";

fn validate(case: &str) -> (i32, String) {
    let out = Command::cargo_bin("kubectl-capz")
        .unwrap()
        .args(["validate", &format!("{CASES}/{case}.yaml")])
        .output()
        .unwrap();
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
    for case in ["40-cp-patch-single", "42-cp-patch-order", "50-pool-patch-single", "58-pool-patch-both-kinds"] {
        let (code, text) = validate(case);
        assert!(lines_with(&text, "capz-aso-patch").is_empty(), "{case}: {text}");
        assert_eq!(code, 0, "{case}: {text}");
    }
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
        assert_eq!(code, 0, "{case}: a warning only: {text}");
    }
    let (_, text) = validate("46-cp-patch-metadata");
    assert!(
        lines_with(&text, "[capz-aso-patch-owned-field]").is_empty(),
        "team label and example.com annotation are the user's: {text}"
    );
}

#[test]
fn a_patched_object_asos_schema_rejects_is_an_error() {
    let out = Command::cargo_bin("kubectl-capz")
        .unwrap()
        .args(["validate", "tests/corpus/invalid/aso-patched-object-schema-enum.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let schema = lines_with(&text, "[aso-patched-object-schema]");
    assert_eq!(schema.len(), 1, "{text}");
    assert!(schema[0].contains("/spec/networkProfile/networkPlugin"), "{}", schema[0]);
    assert!(schema[0].contains("/spec/asoManagedClusterPatches/0"), "{}", schema[0]);
}
