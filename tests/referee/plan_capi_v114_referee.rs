//! `plan` against Cluster API v1.14.2, the version the project targets: every case of
//! tests/fixtures/capi-topology/cases/ (and cases-v1.14/, cases only this referee runs) was run
//! through v1.14.2's own conversion webhook, ClusterClass and Cluster webhooks, ClusterClass
//! reconciler and topology desired-state generator (tools/capi-topology-oracle-v114) and its answer
//! recorded in recordings-v1.14.2.json. Each case is planned by `capz::topology` and compared as
//! tests/plan_referee/mod.rs says.
//!
//! Every difference must be listed in tests/fixtures/capi-topology/known-differences-v1.14.2.yaml with
//! its reason; a listed difference that no longer occurs fails too, so the list stays exact.
//! `UPDATE_KNOWN_DIFFERENCES=1` rewrites the file (keeping written reasons; new ones get `why: TODO`,
//! which fails).

use crate::plan_referee;

use std::collections::{BTreeMap, BTreeSet};

use plan_referee::{DIR, compare, recordings};
use serde::{Deserialize, Serialize};

const RECORDINGS: &str = "recordings-v1.14.2.json";
const KNOWN: &str = "known-differences-v1.14.2.yaml";

#[derive(Debug, Serialize, Deserialize)]
struct KnownDifference {
    case: String,
    differs: String,
    why: String,
}

fn case_files() -> usize {
    ["cases", "cases-v1.14"]
        .iter()
        .filter_map(|d| std::fs::read_dir(format!("{DIR}/{d}")).ok())
        .map(|entries| entries.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "yaml")).count())
        .sum()
}

#[test]
fn every_case_has_a_v1_14_recording_and_the_referee_did_not_panic() {
    let recordings = recordings(RECORDINGS);
    assert_eq!(
        case_files(),
        recordings.len(),
        "every case has a recording (run tools/capi-topology-oracle-v114/regen.sh)"
    );
    assert!(recordings.iter().all(|r| r.get("panic").is_none()), "the referee panicked on a case");
    let rejected = recordings.iter().filter(|r| r["error"].is_string()).count();
    assert!(rejected >= 10 && recordings.len() - rejected >= 20, "{rejected} of {} rejected", recordings.len());
}

#[test]
fn plan_agrees_with_capi_v1_14_or_the_difference_is_known() {
    let mut found: BTreeSet<(String, String)> = BTreeSet::new();
    for recording in recordings(RECORDINGS) {
        let name = recording["name"].as_str().unwrap().to_string();
        for problem in compare(&recording) {
            found.insert((name.clone(), problem.key));
        }
    }
    let path = format!("{DIR}/{KNOWN}");
    let known: Vec<KnownDifference> = match std::fs::read_to_string(&path) {
        Ok(text) => serde_saphyr::from_str(&text).unwrap(),
        Err(_) => Vec::new(),
    };
    let reasons: BTreeMap<(String, String), String> =
        known.iter().map(|k| ((k.case.clone(), k.differs.clone()), k.why.clone())).collect();
    if std::env::var_os("UPDATE_KNOWN_DIFFERENCES").is_some() {
        let rewritten: Vec<KnownDifference> = found
            .iter()
            .map(|(case, differs)| KnownDifference {
                case: case.clone(),
                differs: differs.clone(),
                why: reasons.get(&(case.clone(), differs.clone())).cloned().unwrap_or_else(|| "TODO".into()),
            })
            .collect();
        let header = "# Where `kubectl capz plan` and Cluster API v1.14.2 (tests/fixtures/capi-topology/recordings-v1.14.2.json)\n\
# disagree. tests/referee/plan_capi_v114_referee.rs fails on any disagreement not listed here, on an entry that no\n\
# longer occurs, and on `why: TODO`. Regenerate: UPDATE_KNOWN_DIFFERENCES=1 cargo test --test referee plan_capi_v114_referee\n";
        std::fs::write(&path, format!("{header}{}", serde_saphyr::to_string(&rewritten).unwrap())).unwrap();
    }
    let listed: BTreeSet<(String, String)> = reasons.keys().cloned().collect();
    let unexpected: Vec<_> = found.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&found).collect();
    let todo: Vec<_> = known.iter().filter(|k| k.why.trim().is_empty() || k.why == "TODO").map(|k| &k.case).collect();
    assert!(
        unexpected.is_empty() && gone.is_empty() && todo.is_empty(),
        "differs, not listed: {unexpected:#?}\nlisted, no longer differs: {gone:#?}\nno reason: {todo:?}"
    );
}
