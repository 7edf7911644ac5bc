//! Replays Azure Service Operator's real update admission, recorded by `tools/aso-update-oracle/regen.sh` from
//! ASO v2.20.0's generated webhooks (defaulting, then `ValidateUpdate` on a created resource), against the
//! change review's update rules (`capz::lint::update::check_update`), pair by pair.
//!
//! Each pair (tests/fixtures/aso-updates/cases/NAME.old.yaml + NAME.new.yaml) is one stored ASO object and the one
//! a change applies. The `aso-write-once` findings must be exactly ASO's errors (each error's property as the
//! JSON pointer the finding names), for the object as a document of its own and for the same object embedded in
//! an AzureASOManagedControlPlane's `spec.resources` (which CAPZ applies at reconcile, where the same webhook
//! decides). The `aks-immutable-property` findings judge what ASO lets through, so on a pair ASO refuses the
//! referee has nothing to say of them; where ASO admits the update they are AKS's, which no recording covers.

use serde_json::Value;

use capz::lint::update::{ASO_WRITE_ONCE, UpdateBundles, check_update};
use capz::manifest::parse_documents;
use capz::schema::{Registry, ValidateOptions, Validator};

use crate::support;

const FIXTURES: &str = "tests/fixtures/aso-updates";

/// The property an ASO write-once error names, as the JSON pointer of the finding.
fn pointer_of_error(error: &str) -> &'static str {
    if error.starts_with("updating 'spec.azureName' is not allowed") {
        "/spec/azureName"
    } else if error.starts_with("updating 'spec.owner.name' is not allowed") {
        "/spec/owner/name"
    } else if error.starts_with("updating 'spec.owner.armId' is not allowed") {
        "/spec/owner/armId"
    } else if error.starts_with("removing 'spec.owner' is not allowed") {
        "/spec"
    } else if error.starts_with("adding an owner to an already created resource is not allowed") {
        "/spec/owner"
    } else {
        panic!("an ASO error this referee does not map: {error}")
    }
}

/// `text` (one ASO object) as the only item of an AzureASOManagedControlPlane's `spec.resources`.
fn embedded(text: &str) -> String {
    let mut out = String::from(
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedControlPlane\nmetadata:\n  \
         name: c1\n  namespace: default\nspec:\n  version: v1.33.2\n  resources:\n",
    );
    for (i, line) in text.lines().enumerate() {
        out.push_str(if i == 0 { "  - " } else { "    " });
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn write_once_paths(old: &str, new: &str, name: &str, validator: &Validator<'_>) -> Vec<String> {
    let old = parse_documents(old, &format!("{name}.old.yaml")).expect("the old side parses");
    let new = parse_documents(new, &format!("{name}.new.yaml")).expect("the new side parses");
    let selection = capz::lint::RuleSelection::all();
    let mut paths: Vec<String> = check_update(UpdateBundles { old: &old, new: &new }, validator, &selection)
        .into_iter()
        .filter(|f| f.rule == ASO_WRITE_ONCE)
        .map(|f| f.path)
        .collect();
    paths.sort();
    paths
}

#[test]
fn aso_write_once_properties_on_update() {
    let fixtures = support::repo_root().join(FIXTURES);
    let text = std::fs::read_to_string(fixtures.join("recordings.json")).expect("the recordings");
    let recordings: Value = serde_json::from_str(&text).expect("the recordings are JSON");
    assert_eq!(recordings["aso"].as_str(), Some("v2.20.0"), "recorded from another ASO release");
    let registry = Registry::for_target(capz::versions::find_target("v1.27").expect("the v1.27 target"));
    let validator = Validator::new(&registry, ValidateOptions::default());
    let cases = recordings["cases"].as_array().expect("cases");
    let on_disk = std::fs::read_dir(fixtures.join("cases")).expect("the cases").count();
    assert_eq!(on_disk, 2 * cases.len(), "every pair (old + new file) is recorded, and only those");
    let (mut allowed, mut refused, mut disagreements) = (0, 0, Vec::new());
    for case in cases {
        let name = case["case"].as_str().expect("a case name");
        let read = |side: &str| {
            let path = fixtures.join("cases").join(format!("{name}.{side}.yaml"));
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let (old, new) = (read("old"), read("new"));
        assert_eq!(
            case["input_fnv1a64"].as_str(),
            Some(format!("{:016x}", support::fnv1a64(format!("{old}{new}").as_bytes())).as_str()),
            "{name}: the pair changed since it was recorded: run tools/aso-update-oracle/regen.sh"
        );
        let errors: Vec<&str> = case["errors"].as_array().expect("errors").iter().filter_map(Value::as_str).collect();
        if case["allowed"].as_bool() == Some(true) {
            allowed += 1;
        } else {
            refused += 1;
        }
        let mut expected: Vec<String> = errors.iter().map(|e| pointer_of_error(e).to_string()).collect();
        expected.sort();
        let standalone = write_once_paths(&old, &new, name, &validator);
        if standalone != expected {
            disagreements.push(format!("{name}: ASO refuses at {expected:?}, ours at {standalone:?}"));
        }
        let inside: Vec<String> = expected.iter().map(|p| format!("/spec/resources/0{p}")).collect();
        let ours_inside = write_once_paths(&embedded(&old), &embedded(&new), name, &validator);
        if ours_inside != inside {
            disagreements.push(format!("{name} (embedded): ASO refuses at {inside:?}, ours at {ours_inside:?}"));
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements with ASO:\n{}", disagreements.len(), disagreements.join("\n"));
    assert!(allowed >= 5 && refused >= 5, "both verdicts occur ({allowed} allowed, {refused} refused)");
}
