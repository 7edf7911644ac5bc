//! Replays Cluster API's real update admission, recorded by `tools/capi-update-oracle/regen.sh` from CAPI v1.14.2's
//! webhooks (core/webhooks/admission: Cluster and MachinePool `Default`, then `ValidateUpdate` of Cluster,
//! ClusterClass and MachinePool; `ValidateCreate` of the same object beside), against the change review's CAPI
//! rules (`capz::lint::update::capi_update_issues`, wired into `check_update`), pair by pair.
//!
//! Each pair (tests/fixtures/capi-updates/cases/NAME.old.yaml + NAME.new.yaml) is a stored bundle and the bundle
//! after a change. For every recorded subject (a changed Cluster, ClusterClass or MachinePool; every one of them in
//! a no-op pair) CAPI's errors that its create checks of the same object do not also give are the update rules':
//! ours must name exactly those field paths (a multiset, as CAPI spells them), so the verdicts agree wherever the
//! new object is admissible on create. `check_update` must report each of them once, saying who rejects it.
//! Nothing is tolerated: there is no known-differences list.

use std::collections::BTreeMap;

use serde_json::Value;

use capz::lint::update::{UpdateBundles, capi_update_issues, check_update};
use capz::manifest::{Document, parse_documents};
use capz::schema::{Registry, ValidateOptions, Validator};

use crate::support;

const FIXTURES: &str = "tests/fixtures/capi-updates";

/// A recorded error: (type, field, message).
fn errors(value: &Value) -> Vec<(String, String, String)> {
    value
        .as_array()
        .expect("a list of errors")
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("type"), s("field"), s("message"))
        })
        .collect()
}

/// `errors` minus one occurrence of each of `create` (a multiset difference).
fn update_only(
    errors: Vec<(String, String, String)>,
    create: &[(String, String, String)],
) -> Vec<(String, String, String)> {
    let mut remaining: BTreeMap<&(String, String, String), usize> = BTreeMap::new();
    for e in create {
        *remaining.entry(e).or_default() += 1;
    }
    errors
        .into_iter()
        .filter(|e| match remaining.get_mut(e) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

fn index_of(bundle: &[Document], kind: &str, namespace: &str, name: &str) -> Option<usize> {
    bundle.iter().position(|d| {
        d.group() == "cluster.x-k8s.io"
            && d.kind() == kind
            && d.name() == name
            && d.namespace().unwrap_or("default") == namespace
    })
}

#[test]
fn capi_update_webhooks_on_recorded_pairs() {
    let fixtures = support::repo_root().join(FIXTURES);
    let text = std::fs::read_to_string(fixtures.join("recordings.json")).expect("the recordings");
    let recordings: Value = serde_json::from_str(&text).expect("the recordings are JSON");
    assert_eq!(recordings["capi"].as_str(), Some("v1.14.2"), "recorded from another CAPI release");
    let registry = Registry::for_target(capz::versions::default_target());
    let validator = Validator::new(&registry, ValidateOptions::default());
    let selection = capz::lint::RuleSelection::all();
    let cases = recordings["cases"].as_array().expect("cases");
    let on_disk = std::fs::read_dir(fixtures.join("cases")).expect("the cases").count();
    assert_eq!(on_disk, 2 * cases.len(), "every pair (old + new file) is recorded, and only those");
    let (mut subjects, mut allowed, mut denied_by_update, mut denied_by_create) = (0, 0, 0, 0);
    let mut by_rule: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for case in cases {
        let name = case["case"].as_str().expect("a case name");
        assert!(case["error"].is_null(), "{name}: the oracle could not run the case: {}", case["error"]);
        let read = |side: &str| {
            let path = fixtures.join("cases").join(format!("{name}.{side}.yaml"));
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let (old_text, new_text) = (read("old"), read("new"));
        assert_eq!(
            case["input_fnv1a64"].as_str(),
            Some(format!("{:016x}", support::fnv1a64(format!("{old_text}{new_text}").as_bytes())).as_str()),
            "{name}: the pair changed since it was recorded: run tools/capi-update-oracle/regen.sh"
        );
        let old = parse_documents(&old_text, &format!("{name}.old.yaml")).expect("the old side parses");
        let new = parse_documents(&new_text, &format!("{name}.new.yaml")).expect("the new side parses");
        let bundles = UpdateBundles { old: &old, new: &new };
        let findings = check_update(bundles, &validator, &selection);
        let recorded = case["subjects"].as_array().expect("subjects");
        assert!(!recorded.is_empty(), "{name}: nothing was judged");
        for subject in recorded {
            subjects += 1;
            let (kind, namespace, object) = (
                subject["kind"].as_str().expect("kind"),
                subject["namespace"].as_str().expect("namespace"),
                subject["name"].as_str().expect("name"),
            );
            let what = format!("{name}: {kind} {namespace}/{object}");
            let (Some(old_index), Some(new_index)) =
                (index_of(&old, kind, namespace, object), index_of(&new, kind, namespace, object))
            else {
                panic!("{what}: not in both bundles");
            };
            let capi_errors = errors(&subject["errors"]);
            let create_errors = errors(&subject["create_errors"]);
            let capi_allowed = subject["allowed"].as_bool().expect("allowed");
            assert_eq!(capi_allowed, capi_errors.is_empty(), "{what}: a verdict without errors or the reverse");
            let expected = update_only(capi_errors, &create_errors);
            let mut expected: Vec<String> = expected.into_iter().map(|(_, field, _)| field).collect();
            expected.sort();
            let issues = capi_update_issues(bundles, old_index, new_index);
            let mut ours: Vec<String> = issues.iter().map(|i| i.field.clone()).collect();
            ours.sort();
            match (capi_allowed, expected.is_empty()) {
                (true, _) => allowed += 1,
                (false, false) => denied_by_update += 1,
                (false, true) => denied_by_create += 1,
            }
            if ours != expected {
                disagreements.push(format!("{what}: CAPI refuses on update at {expected:?}, ours at {ours:?}"));
                continue;
            }
            for issue in &issues {
                *by_rule.entry(issue.rule).or_default() += 1;
            }
            // check_update reports each issue once, on the changed object only, and says who rejects it.
            let changed = old[old_index].value != new[new_index].value;
            let display = new[new_index].display_name();
            let reported: Vec<_> =
                findings.iter().filter(|f| f.rule.starts_with("capi-") && f.object == display).collect();
            let want = if changed { issues.len() } else { 0 };
            if reported.len() != want
                || reported.iter().any(|f| !f.message.contains("rejected on update by Cluster API's webhook"))
            {
                disagreements.push(format!("{what}: check_update reported {reported:?}, expected {want} findings"));
            }
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements with CAPI:\n{}", disagreements.len(), disagreements.join("\n"));
    assert!(cases.len() >= 150 && subjects >= cases.len(), "{} pairs, {subjects} subjects", cases.len());
    assert!(
        allowed >= 50 && denied_by_update >= 50,
        "both verdicts occur ({allowed} allowed, {denied_by_update} refused)"
    );
    // Every rule is exercised by the recordings.
    for rule in [
        "capi-ref-removed",
        "capi-topology-removed",
        "capi-topology-class-set",
        "capi-topology-version-downgrade",
        "capi-topology-version-skip",
        "capi-topology-class-change",
        "capi-clusterclass-incompatible",
        "capi-clusterclass-in-use",
        "capi-immutable-field",
    ] {
        assert!(by_rule.contains_key(rule), "no recorded pair exercises {rule}: {by_rule:?}");
    }
    eprintln!(
        "{} pairs, {subjects} subjects: {allowed} allowed, {denied_by_update} refused by update rules, \
         {denied_by_create} refused only by create rules",
        cases.len()
    );
}
