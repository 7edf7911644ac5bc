//! `plan` against the referee: every case of tests/fixtures/capi-topology/cases/ was run through
//! Cluster API's own offline planner (CAPI v1.10.10, `clusterctl alpha topology plan`'s code; see
//! tools/capi-topology-oracle) and its answer recorded in recordings.json. Here each case is
//! planned by `capz::topology` and compared (tests/plan_referee/mod.rs says how).
//!
//! A case that disagrees must be listed in `KNOWN_DIFFERENCES` with the docs/plan.md section
//! that explains why; a listed case that agrees fails too, so the list stays exact. Where CAPI
//! changed between v1.10 and v1.14 (our target; tests/referee/plan_capi_v114_referee.rs replays v1.14.2),
//! we follow v1.14 and the field is listed in `V1_14_FIELDS`.

use crate::plan_referee;

use std::collections::BTreeSet;

use plan_referee::{DIR, compare, recordings};

/// Cases where we knowingly differ from CAPI v1.10; each is explained in docs/plan.md.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    ("v08-mhc-from-class", "### Provider objects are not decoded into Go types"),
    ("x44-ref-other-namespace", "- CAPI changed this in v1.11+: a v1beta1 `ref.namespace`"),
];

/// Fields where we follow CAPI v1.14 (our target) and the v1.10 referee differs: (kind, JSON
/// pointer in the object, docs/plan.md section). A difference at such a field is not counted; each
/// entry must be seen in the corpus, so the list cannot go stale.
const V1_14_FIELDS: &[(&str, &str, &str)] = &[
    ("MachineHealthCheck", "/spec/maxUnhealthy", "- MachineHealthChecks: v1.14's webhook no longer defaults"),
    ("AzureManagedCluster", "/spec", "- CAPI changed this in v1.11+: an empty template spec"),
    ("KubeadmConfig", "/spec", "- CAPI changed this in v1.11+: an empty template spec"),
    (
        "MachineDeployment",
        "/spec/template/spec/bootstrap/configRef/apiVersion",
        "- CAPI changed this in v1.11+: references to kubeadm kinds",
    ),
    (
        "MachinePool",
        "/spec/template/spec/bootstrap/configRef/apiVersion",
        "- CAPI changed this in v1.11+: references to kubeadm kinds",
    ),
    ("Cluster", "/spec/controlPlaneRef/apiVersion", "- CAPI changed this in v1.11+: references to kubeadm kinds"),
];

/// Compares one case; `Err` describes how we differ from CAPI. Differences at `V1_14_FIELDS`
/// are left out and noted in `v1_14_seen`.
fn compare_v1_10(recording: &serde_json::Value, v1_14_seen: &mut BTreeSet<usize>) -> Result<(), String> {
    let mut problems = Vec::new();
    for problem in compare(recording) {
        let v1_14 = V1_14_FIELDS.iter().position(|(kind, pointer, _)| {
            problem.kind.as_deref() == Some(*kind) && problem.pointer.as_deref() == Some(*pointer)
        });
        match v1_14 {
            Some(i) => {
                v1_14_seen.insert(i);
            }
            None => problems.push(problem.key),
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n  ")) }
}

#[test]
fn the_corpus_is_big_enough_and_holds_invalid_cases() {
    let recordings = recordings("recordings.json");
    assert!(recordings.len() >= 20, "{} cases", recordings.len());
    let rejected = recordings.iter().filter(|r| r["error"].is_string()).count();
    assert!(rejected >= 10, "{rejected} rejected cases");
    assert!(recordings.iter().all(|r| r.get("panic").is_none()), "the referee panicked on a case");
    let files = std::fs::read_dir(format!("{DIR}/cases")).unwrap().count();
    assert_eq!(files, recordings.len(), "every case has a recording (run tools/capi-topology-oracle/regen.sh)");
}

#[test]
fn plan_agrees_with_capi_on_every_case_or_the_difference_is_documented() {
    let docs = std::fs::read_to_string("docs/plan.md").unwrap();
    let mut report = Vec::new();
    let mut differing = BTreeSet::new();
    let mut v1_14_seen = BTreeSet::new();
    for recording in recordings("recordings.json") {
        let name = recording["name"].as_str().unwrap().to_string();
        if let Err(why) = compare_v1_10(&recording, &mut v1_14_seen) {
            report.push(format!("{name}:\n  {why}"));
            differing.insert(name);
        }
    }
    let known: BTreeSet<String> = KNOWN_DIFFERENCES.iter().map(|(n, _)| n.to_string()).collect();
    for (case, section) in KNOWN_DIFFERENCES {
        assert!(docs.contains(section), "{case}: docs/plan.md has no {section:?}");
    }
    for (i, (kind, pointer, section)) in V1_14_FIELDS.iter().enumerate() {
        assert!(docs.contains(section), "{kind} {pointer}: docs/plan.md has no {section:?}");
        assert!(v1_14_seen.contains(&i), "{kind} {pointer}: no case differs there any more");
    }
    let unexpected: Vec<&String> = differing.difference(&known).collect();
    let fixed: Vec<&String> = known.difference(&differing).collect();
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "differs, not documented: {unexpected:?}\nagrees, still listed: {fixed:?}\n\n{}",
        report.join("\n\n")
    );
}
