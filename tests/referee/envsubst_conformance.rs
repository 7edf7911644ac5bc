//! Checks `capz::render::envsubst` against every row of tests/fixtures/envsubst/cases.json, a table
//! produced by running clusterctl's own template processor (tools/clusterctl-oracle/regen.sh).

use std::collections::BTreeMap;

use capz::render::envsubst::{self, EvalError, ProcessError};
use serde_json::Value;

fn expected_bytes(result: &Value) -> Option<Vec<u8>> {
    if let Some(s) = result.get("output").and_then(Value::as_str) {
        return Some(s.as_bytes().to_vec());
    }
    result
        .get("output_bytes")
        .and_then(Value::as_array)
        .map(|bytes| bytes.iter().map(|b| b.as_u64().expect("byte") as u8).collect())
}

/// Compares one outcome; returns a description of the difference.
fn compare(what: &str, expected: &Value, actual: Result<Vec<u8>, String>, negative_length: bool) -> Option<String> {
    if let Some(bytes) = expected_bytes(expected) {
        return match actual {
            Ok(out) if out == bytes => None,
            Ok(out) => Some(format!(
                "{what}: expected {:?}, got {:?}",
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(&out)
            )),
            Err(err) => Some(format!("{what}: expected {:?}, got error {err}", String::from_utf8_lossy(&bytes))),
        };
    }
    if let Some(message) = expected.get("error").and_then(Value::as_str) {
        return match actual {
            Err(err) if err == message => None,
            other => Some(format!("{what}: expected error {message:?}, got {other:?}")),
        };
    }
    if expected.get("panic").is_some() {
        // Upstream panics (negative substring length); we must return our error instead.
        return if negative_length {
            None
        } else {
            Some(format!("{what}: expected the negative-length error, got {actual:?}"))
        };
    }
    Some(format!("{what}: unreadable expectation {expected}"))
}

#[test]
fn envsubst_matches_clusterctl_on_every_case() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/envsubst/cases.json"))
        .expect("conformance table exists");
    let rows: Vec<Value> = serde_json::from_str(&text).expect("conformance table is JSON");
    assert!(rows.len() >= 150, "the table lost rows: {}", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let name = row["name"].as_str().expect("name");
        let input = row["input"].as_str().expect("input");
        let env: BTreeMap<String, String> = serde_json::from_value(row["env"].clone()).expect("env");
        let lookup = |n: &str| env.get(n).cloned();

        // GetVariableMap
        match (envsubst::variable_map(input), row.get("variables_error").and_then(Value::as_str)) {
            (Err(err), Some(message)) if err.kind.to_string() == message => {}
            (Ok(map), None) => {
                let expected: BTreeMap<String, Option<String>> =
                    serde_json::from_value(row["variables"].clone()).expect("variables");
                if map != expected {
                    failures.push(format!("{name}: variables: expected {expected:?}, got {map:?}"));
                }
            }
            (got, expected) => failures.push(format!("{name}: variables: expected error {expected:?}, got {got:?}")),
        }

        // Process (legacy rewrite, missing check, substitution)
        let processed = envsubst::process_bytes(input, lookup);
        let negative = matches!(processed, Err(ProcessError::Eval(EvalError::NegativeSubstringLength { .. })));
        let processed = processed.map_err(|err| match err {
            ProcessError::Parse(parse) => parse.kind.to_string(),
            other => other.to_string(),
        });
        if let Some(diff) = compare("process", &row["process"], processed, negative) {
            failures.push(format!("{name}: {diff}"));
        }
        // The String API refuses what is not UTF-8.
        if row["process"].get("output_bytes").is_some() {
            let err = envsubst::process(input, lookup).expect_err("invalid UTF-8 is an error");
            assert_eq!(err, ProcessError::Eval(EvalError::InvalidUtf8), "{name}");
        }

        // envsubst.Eval on the raw text ("" for unset names)
        let evaluated = match envsubst::parse(input) {
            Err(err) => Err(err.kind.to_string()),
            Ok(template) => {
                template.execute_bytes(|n| env.get(n).cloned().unwrap_or_default()).map_err(|e| e.to_string())
            }
        };
        let negative = evaluated.as_ref().is_err_and(|e| e.contains("has a negative length"));
        if let Some(diff) = compare("eval", &row["eval"], evaluated, negative) {
            failures.push(format!("{name}: {diff}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from clusterctl:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
