//! Replays the recordings of each target's CAPZ release's own translation (tools/capz-translation-oracle: CAPZ's
//! defaulting webhooks, scopes, specs and ASO reconciler run on a fake client; v1.26.0 and v1.27.0, in
//! tests/fixtures/capz-translation/<target>/, an older target as a delta) against `capz::migrate::translate` for that target,
//! for every classic bundle in tests/fixtures/capz-translation/cases.

use std::path::Path;

use capz::manifest::parse_documents;
use capz::migrate::{TranslateError, find_classic_clusters, translate};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/capz-translation");

/// JSON equality where numbers compare by value (Go writes `-1`, serde may hold `-1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The first path where two values differ, for the failure message.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let p = format!("{path}/{key}");
                match (x.get(key), y.get(key)) {
                    (Some(v), Some(w)) => {
                        if let Some(d) = first_difference(v, w, &p) {
                            return Some(d);
                        }
                    }
                    (v, w) => return Some(format!("{p}: ours {v:?}, CAPZ {w:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}/{i}")))
        }
        _ if same(a, b) => None,
        _ => Some(format!("{path}: ours {a}, CAPZ {b}")),
    }
}

fn ours(case: &str, target: &'static capz::versions::Target) -> Result<Vec<Value>, TranslateError> {
    let path = Path::new(FIXTURES).join("cases").join(format!("{case}.yaml"));
    let text = std::fs::read_to_string(&path).expect("case file");
    let documents = parse_documents(&text, &path.display().to_string()).expect("case parses");
    let clusters = find_classic_clusters(&documents)?;
    assert_eq!(clusters.len(), 1, "{case}: one classic cluster per case");
    let translation = translate(&clusters[0], capz::target_schemas::TargetSchemas::builtin(target))?;
    let mut objects = translation.resource_groups;
    objects.push(translation.managed_cluster);
    objects.extend(translation.agent_pools);
    Ok(objects)
}

#[test]
fn translation_matches_capz_v1_27_recordings() {
    translation_matches_capz_recordings("v1.27");
}

#[test]
fn translation_matches_capz_v1_26_recordings() {
    translation_matches_capz_recordings("v1.26");
}

/// The recordings' header must name the target's CAPZ release and the CAPI and ASO releases it pins (with the
/// ASO `replace` the referee's build used where the pinned release is not served).
fn check_header(header: &Value, target: &capz::versions::Target) {
    assert_eq!(header["capz"], target.capz, "{}: recorded from another CAPZ release", target.name);
    assert_eq!(header["capi"], target.capi, "{}: the referee linked another CAPI release", target.name);
    assert_eq!(header["aso"], target.aso, "{}: the referee's CAPZ pins another ASO release", target.name);
    if let Some(replace) = header.get("aso_replace").and_then(Value::as_str) {
        assert!(
            replace.starts_with("github.com/Azure/azure-service-operator/v2 => "),
            "{}: unexpected replace {replace}",
            target.name
        );
        assert!(target.aso_note.is_some(), "{}: ASO replaced although {} is served", target.name, target.aso);
    }
}

fn translation_matches_capz_recordings(target_name: &str) {
    let target = capz::versions::find_target(target_name).expect("a supported target");
    let header = crate::support::recordings(Path::new(FIXTURES), target_name);
    check_header(&header, target);
    let recordings = header["cases"].as_array().expect("cases");
    let case_files = std::fs::read_dir(Path::new(FIXTURES).join("cases")).expect("cases/").count();
    assert_eq!(recordings.len(), case_files, "{target_name}: re-record with tools/capz-translation-oracle/regen.sh");
    assert!(recordings.len() >= 30, "the corpus has {} cases", recordings.len());
    let mut failures = Vec::new();
    let (mut agreed, mut errors_agreed) = (0, 0);
    for recording in recordings {
        let case = recording["case"].as_str().expect("case name");
        let result = ours(case, target);
        match (recording.get("error").and_then(Value::as_str), result) {
            (Some(capz_error), Err(our_error)) => {
                // A patch error names the same index as CAPZ's, when CAPZ's names one.
                if let TranslateError::Patch { error, .. } = &our_error
                    && capz_error.contains("at index ")
                    && !capz_error.contains(&format!("at index {}", error.index()))
                {
                    failures.push(format!("{case}: CAPZ says {capz_error:?}, we say {our_error}"));
                } else {
                    errors_agreed += 1;
                }
            }
            (Some(capz_error), Ok(_)) => failures.push(format!("{case}: CAPZ fails ({capz_error}), we translate")),
            (None, Err(our_error)) => failures.push(format!("{case}: CAPZ translates, we fail: {our_error}")),
            (None, Ok(objects)) => {
                let expected = recording["objects"].as_array().expect("objects");
                if objects.len() != expected.len() {
                    failures.push(format!("{case}: {} objects, CAPZ created {}", objects.len(), expected.len()));
                    continue;
                }
                let mut ok = true;
                for (i, (mine, theirs)) in objects.iter().zip(expected).enumerate() {
                    if let Some(difference) = first_difference(mine, theirs, "") {
                        failures.push(format!("{case}: object {i}: {difference}"));
                        ok = false;
                    }
                }
                if ok {
                    agreed += 1;
                }
            }
        }
    }
    eprintln!(
        "{target_name}: {agreed} translations and {errors_agreed} errors agree with CAPZ {}; {} differ",
        target.capz,
        failures.len()
    );
    assert!(failures.is_empty(), "differences from CAPZ {}:\n{}", target.capz, failures.join("\n"));
}
