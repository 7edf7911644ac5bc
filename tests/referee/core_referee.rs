//! Our verdict on core Kubernetes objects equals the real kube-apiserver's: the corpus of
//! tests/fixtures/core-referee/cases.yaml, whose verdicts tests/live/live_core_referee.rs recorded from kube-apiserver
//! 1.36 (server-side dry-run, fieldValidation=Strict), replayed against the bundled built-in schemas.
//!
//! Every class a schema can decide (valid objects, unknown fields, wrong types, missing required fields,
//! int-or-string, quantities, int32 range) must agree case by case. The class `go-validation` holds checks of
//! the API server's Go validation that no schema expresses (enums included: the published spec has none): the server rejects each of them and we
//! do not (docs/rules.md lists them); a case we start catching fails here so it can move to its class.

use crate::support::cli_runner::capz_command;
use capz::manifest;
use capz::report::Severity;
use capz::schema::{Registry, ValidateOptions, Validator};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/core-referee");

/// Whether our validator accepts the object, and its errors.
fn our_verdict(validator: &Validator, case: &str, object: &str) -> (bool, Vec<String>) {
    let documents = manifest::parse_documents(object, case).unwrap_or_else(|e| panic!("{case}: {e}"));
    assert_eq!(documents.len(), 1, "{case}");
    let outcome = validator.validate_document(&documents[0]);
    let errors: Vec<String> = outcome
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} {}: {}", f.rule, f.path, f.message))
        .collect();
    assert!(
        !outcome.findings.iter().any(|f| f.rule == "schema-missing"),
        "{case}: no built-in schema: {:?}",
        outcome.findings
    );
    (errors.is_empty(), errors)
}

#[test]
fn our_verdicts_equal_the_recorded_api_server_verdicts() {
    let text = std::fs::read_to_string(format!("{DIR}/cases.yaml")).unwrap();
    let recording: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/verdicts.json")).unwrap()).unwrap();
    let recorded = recording["cases"].as_array().unwrap();
    let documents: Vec<&str> = text.split("\n---\n").collect();
    assert_eq!(documents.len(), recorded.len(), "verdicts.json is stale: re-record (tests/live/live_core_referee.rs)");
    let registry = Registry::embedded();
    let validator = Validator::new(&registry, ValidateOptions::default());
    let mut disagreements = Vec::new();
    let mut go_only = Vec::new();
    for (document, verdict) in documents.iter().zip(recorded) {
        let case = document.lines().find_map(|l| l.strip_prefix("# case: ")).unwrap().trim();
        assert_eq!(verdict["case"], case, "verdicts.json is stale: re-record (tests/live/live_core_referee.rs)");
        let server_accepts = verdict["accepted"].as_bool().unwrap();
        let (we_accept, errors) = our_verdict(&validator, case, document);
        let class = case.split('/').next().unwrap();
        assert_eq!(server_accepts, class == "valid", "{case}: the corpus says {class}, the server {verdict}");
        if class == "go-validation" {
            if we_accept {
                go_only.push(case.to_string());
            } else {
                disagreements.push(format!("{case}: now caught ({errors:?}): move it to its class"));
            }
        } else if we_accept != server_accepts {
            disagreements.push(format!(
                "{case}: server {}, we {} {errors:?} (server: {})",
                if server_accepts { "accepts" } else { "rejects" },
                if we_accept { "accept" } else { "reject" },
                verdict["message"]
            ));
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
    assert!(!go_only.is_empty());
}

/// What a user sees for the corpus: one finding per rejected field, at its line.
#[test]
fn validate_reports_the_corpus_at_file_and_line() {
    let out = capz_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["validate", "tests/fixtures/core-referee/cases.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("core_corpus_text", String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "79 objects: 45 valid, 34 invalid, 0 skipped (37 errors, 0 warnings, 0 not checked)\n"
    );
}
