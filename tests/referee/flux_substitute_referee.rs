//! Checks `capz::source::flux::substitute` against tests/fixtures/flux-substitute/cases.json, the outcomes of Flux's
//! own post-build substitution (github.com/fluxcd/pkg/kustomize SubstituteVariables, recorded by
//! tools/flux-substitute-oracle/regen.sh) on the same objects and variables.

use std::collections::BTreeMap;

use capz::manifest;
use capz::source::flux::{self, SubstituteError};
use serde_json::Value;

/// Errors are compared up to the first detail Go's YAML reader adds (its line numbers count lines of Go's own
/// rendering of the object).
fn error_kind(message: &str) -> &str {
    match message.find("YAMLToJSON: ") {
        Some(at) => &message[..at + "YAMLToJSON: ".len()],
        None => message,
    }
}

#[test]
fn substitution_matches_flux_on_every_case() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flux-substitute/cases.json"))
            .expect("recorded cases exist");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("recorded cases are JSON");
    assert!(cases.len() >= 50, "the recording lost cases: {}", cases.len());
    let mut failures = Vec::new();
    let mut disabled = 0;
    for case in &cases {
        let name = case["name"].as_str().expect("name");
        let object =
            manifest::parse_plain_value(case["object"].as_str().expect("object"), name).expect("object is YAML");
        // The oracle gives the variables as the Kustomization's postBuild.substitute, which Flux reads as
        // `variable_value` does.
        let vars: BTreeMap<String, String> = serde_json::from_value::<BTreeMap<String, String>>(case["vars"].clone())
            .expect("vars")
            .into_iter()
            .map(|(name, value)| (name, flux::variable_value(&value)))
            .collect();
        let strict = case["strict"].as_bool().unwrap_or(false);
        // Flux substitutes only when the Kustomization has variables (SubstituteVariables without `Always`).
        let ours: Result<Option<Value>, SubstituteError> =
            if vars.is_empty() { Ok(Some(object.clone())) } else { flux::substitute(&object, &vars, strict, false) };
        let expected_error = case.get("error").and_then(Value::as_str);
        match (ours, expected_error) {
            (Err(err), Some(expected)) => {
                if error_kind(&err.to_string()) != error_kind(expected) {
                    failures.push(format!("{name}: error {err} instead of {expected}"));
                }
            }
            (Ok(None), None) if case["disabled"] == Value::Bool(true) => disabled += 1,
            (Ok(Some(value)), None) if case.get("output") == Some(&value) => {}
            (ours, _) => failures.push(format!(
                "{name}: got {ours:?}, Flux gave {}",
                case.get("output").or(case.get("error")).or(case.get("disabled")).unwrap_or(&Value::Null)
            )),
        }
    }
    assert_eq!(disabled, 2, "the label and the annotation that turn substitution off");
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Flux:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
