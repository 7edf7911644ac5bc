//! Replays CAPZ's real update admission, recorded per target by `tools/capz-webhook-oracle/regen.sh <release>
//! updates` from CAPZ v1.27.0 and v1.26.0 (internal/webhooks `ValidateUpdate`), against `capz::lint::update`, pair
//! by pair.
//!
//! Each pair (tests/fixtures/capz-updates/cases/NAME.old.yaml + NAME.new.yaml) is a stored bundle and the objects a
//! change replaces. For every changed object the oracle recorded whether CAPZ admits the update and the field path
//! of each `field.Error`; `update_issues` must give the same verdict and, when an update rule refuses it, exactly
//! CAPZ's field paths (as a multiset, spelled as CAPZ spells them). Where CAPZ's update rules pass and its create
//! checks (which the control plane webhooks run next) refuse the new object, `capz::lint::check` of the new bundle
//! must report a `capz-*` error at or under each path CAPZ names. Nothing here is tolerated: there is no
//! known-differences file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use capz::lint::update::{UpdateBundles, matching, update_issues};
use capz::manifest::{Document, parse_documents};
use capz::schema::{Registry, ValidateOptions, Validator};

use crate::support;

const FIXTURES: &str = "tests/fixtures/capz-updates";

/// A CAPZ field path as a JSON pointer (`spec.extensions.[0].scope` -> `/spec/extensions/0/scope`), lower-cased
/// (CAPZ spells some paths with Go field names).
fn pointer_of(field: &str) -> String {
    field
        .split(['.', '['])
        .map(|s| s.trim_end_matches(']'))
        .filter(|s| !s.is_empty())
        .map(|s| format!("/{}", s.to_lowercase()))
        .collect()
}

struct Outcome {
    pairs: usize,
    allowed: usize,
    denied_by_update_rules: usize,
    denied_by_create_rules: usize,
    skipped: usize,
    disagreements: Vec<String>,
}

fn replay(target_name: &str) -> Outcome {
    let root = support::repo_root();
    let fixtures = root.join(FIXTURES);
    let recordings = support::recordings(&fixtures, target_name);
    let target = capz::versions::find_target(target_name).expect("a supported target");
    assert_eq!(
        recordings["capz"].as_str().map(|v| v.rsplit_once('.').map_or(v, |(minor, _)| minor)),
        Some(target_name),
        "the recordings of {target_name} come from another CAPZ release"
    );
    let registry = Registry::for_target(target);
    let validator = Validator::new(&registry, ValidateOptions::default());
    let selection = capz::lint::RuleSelection::all().with_target(target);
    let mut outcome = Outcome {
        pairs: 0,
        allowed: 0,
        denied_by_update_rules: 0,
        denied_by_create_rules: 0,
        skipped: 0,
        disagreements: Vec::new(),
    };
    let cases = recordings["cases"].as_array().expect("cases");
    let on_disk = std::fs::read_dir(fixtures.join("cases")).expect("the cases").count();
    assert_eq!(on_disk, 2 * cases.len(), "every pair (old + new file) is recorded, and only those");
    for case in cases {
        let name = case["case"].as_str().expect("a case name");
        let read = |side: &str| {
            let path = fixtures.join("cases").join(format!("{name}.{side}.yaml"));
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let (old_text, new_text) = (read("old"), read("new"));
        let hash = support::fnv1a64(format!("{old_text}{new_text}").as_bytes());
        assert_eq!(
            case["input_fnv1a64"].as_str(),
            Some(format!("{hash:016x}").as_str()),
            "{name}: the pair changed since it was recorded: run tools/capz-webhook-oracle/regen.sh v1.27.0 updates \
             (then v1.26.0 updates)"
        );
        let old = parse_documents(&old_text, &format!("{name}.old.yaml")).expect("the old bundle parses");
        let changed = parse_documents(&new_text, &format!("{name}.new.yaml")).expect("the new objects parse");
        // The new bundle: the old one with the changed objects replaced.
        let mut new: Vec<Document> = old.clone();
        for doc in changed {
            let at = matching(&new, &doc)
                .unwrap_or_else(|| panic!("{name}: {} is not in the old bundle", doc.display_name()));
            new[at] = doc;
        }
        let bundles = UpdateBundles { old: &old, new: &new };
        for object in case["objects"].as_array().expect("objects") {
            outcome.pairs += 1;
            let kind = object["kind"].as_str().unwrap_or("");
            let object_name = object["name"].as_str().unwrap_or("");
            let Some(update) = object["update"].as_object() else {
                outcome.skipped += 1;
                continue;
            };
            let new_index = new
                .iter()
                .position(|d| d.kind() == kind && d.name() == object_name)
                .unwrap_or_else(|| panic!("{name}: {kind}/{object_name} is not in the new bundle"));
            let old_index = matching(&old, &new[new_index]).expect("in the old bundle");
            let ours = update_issues(bundles, old_index, new_index, &validator);
            let mut our_fields: Vec<String> = ours.iter().map(|i| i.field.clone()).collect();
            our_fields.sort();
            let allowed = update["allowed"].as_bool().unwrap_or(false);
            let mut capz_fields: Vec<String> = update
                .get("errors")
                .and_then(Value::as_array)
                .map(|errors| errors.iter().map(|e| e["field"].as_str().unwrap_or("").to_string()).collect())
                .unwrap_or_default();
            capz_fields.sort();
            let what = format!("{target_name} {name} {kind}/{object_name}");
            if allowed {
                outcome.allowed += 1;
                if !ours.is_empty() {
                    outcome.disagreements.push(format!("{what}: CAPZ allows the update, ours refuses {our_fields:?}"));
                }
                continue;
            }
            if update.get("stage").and_then(Value::as_str) != Some("webhook") {
                outcome.disagreements.push(format!("{what}: denied at stage {:?}, not replayed", update.get("stage")));
                continue;
            }
            if !ours.is_empty() {
                outcome.denied_by_update_rules += 1;
                if our_fields != capz_fields {
                    outcome
                        .disagreements
                        .push(format!("{what}: CAPZ refuses at {capz_fields:?}, ours at {our_fields:?}"));
                }
                continue;
            }
            // CAPZ's update rules passed; its create checks refused the new object.
            outcome.denied_by_create_rules += 1;
            let findings = capz::lint::check(&new, &selection);
            let display = new[new_index].display_name();
            let ours: Vec<String> = findings
                .iter()
                .filter(|f| {
                    f.object == display && f.rule.starts_with("capz-") && f.severity == capz::report::Severity::Error
                })
                .map(|f| f.path.to_lowercase())
                .collect();
            for field in &capz_fields {
                let pointer = pointer_of(field);
                if !ours.iter().any(|p| p == &pointer || p.starts_with(&format!("{pointer}/"))) {
                    outcome.disagreements.push(format!(
                        "{what}: CAPZ refuses at {field} (a create check after the update rules passed), ours: update \
                         rules pass, create rules at {ours:?}"
                    ));
                }
            }
        }
    }
    outcome
}

fn check_target(target_name: &str) {
    let outcome = replay(target_name);
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for line in &outcome.disagreements {
        *by_kind.entry(line.split_whitespace().nth(2).unwrap_or("")).or_default() += 1;
    }
    assert!(
        outcome.disagreements.is_empty(),
        "{} disagreements with CAPZ {target_name}'s ValidateUpdate ({by_kind:?}):\n{}",
        outcome.disagreements.len(),
        outcome.disagreements.join("\n")
    );
    assert!(outcome.pairs >= 150, "{target_name}: only {} recorded pairs", outcome.pairs);
    assert!(outcome.allowed > 0 && outcome.denied_by_update_rules > 0, "both verdicts occur");
    assert!(outcome.skipped <= 3, "{target_name}: {} pairs whose old object CAPZ did not store", outcome.skipped);
    eprintln!(
        "{target_name}: {} pairs: {} allowed, {} denied by update rules, {} denied by create checks, {} skipped",
        outcome.pairs, outcome.allowed, outcome.denied_by_update_rules, outcome.denied_by_create_rules, outcome.skipped
    );
}

#[test]
fn capz_v1_27_update_admission() {
    check_target("v1.27");
}

#[test]
fn capz_v1_26_update_admission() {
    if !Path::new(&support::repo_root().join(FIXTURES).join("v1.26")).exists() {
        panic!("tests/fixtures/capz-updates/v1.26 is missing: run tools/capz-webhook-oracle/regen.sh v1.26.0 updates");
    }
    check_target("v1.26");
}

#[test]
fn capz_field_paths_as_pointers() {
    assert_eq!(pointer_of("spec.extensions.[1].scope"), "/spec/extensions/1/scope");
    assert_eq!(pointer_of("Spec.AutoUpgradeProfile.UpgradeChannel"), "/spec/autoupgradeprofile/upgradechannel");
}
