//! `kubectl capz validate` through the CLI: output formats (snapshots), exit codes, flags, and
//! the API-server semantics of a user CRD (int-or-string, nullable, defaults, formats,
//! preserve-unknown-fields, embedded resources, list-type set, CEL).

use assert_cmd::Command;
use serde_json::Value;

fn validate(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("kubectl-capz")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("validate")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

const BUNDLE: &str = "tests/fixtures/validate/bundle.yaml";

#[test]
fn text_output_lists_findings_by_file_and_line() {
    let (code, stdout, stderr) = validate(&[BUNDLE]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("text", stdout);
    assert_eq!(stderr, "4 objects: 1 valid, 3 invalid, 0 skipped (4 errors, 0 warnings, 0 not checked)\n");
}

#[test]
fn json_output_has_findings_resources_and_summary() {
    let (code, stdout, _) = validate(&["-o", "json", BUNDLE]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    insta::assert_json_snapshot!("json", report);
}

#[test]
fn junit_output_has_one_case_per_object() {
    let (code, stdout, _) = validate(&["-o", "junit", BUNDLE]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("junit", stdout);
}

#[test]
fn ignore_missing_schemas_counts_unknown_kinds_as_skipped() {
    let (code, stdout, stderr) = validate(&["--ignore-missing-schemas", BUNDLE]);
    assert_eq!(code, 1, "the other errors remain");
    assert!(!stdout.contains("schema-missing"), "{stdout}");
    assert!(stderr.contains("1 skipped"), "{stderr}");
}

#[test]
fn disabling_schema_rules_filters_their_findings() {
    let (code, stdout, _) =
        validate(&["--disable", "unknown-field", "--disable", "schema", "--ignore-missing-schemas", BUNDLE]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn unknown_rule_ids_and_missing_files_are_usage_errors() {
    let (code, _, stderr) = validate(&["--disable", "no-such-rule", BUNDLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-rule"), "{stderr}");
    let (code, _, stderr) = validate(&["--disable", "schema-missing", BUNDLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--ignore-missing-schemas"), "{stderr}");
    let (code, _, stderr) = validate(&["tests/fixtures/validate/nope.yaml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("nope.yaml"), "{stderr}");
}

#[test]
fn stdin_is_read_with_dash() {
    let output = Command::cargo_bin("kubectl-capz")
        .unwrap()
        .args(["validate", "-"])
        .write_stdin("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad_Name\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout,
        "<stdin>:4: error: Namespace/Bad_Name: /metadata/name: invalid name \"Bad_Name\": a lowercase RFC 1123 label \
         must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character [metadata]\n"
    );
}

#[test]
fn user_crds_follow_api_server_semantics() {
    let crds = "tests/fixtures/validate/crds";
    let (code, stdout, _) = validate(&["--crds", crds, "tests/fixtures/validate/widgets-valid.yaml"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let (code, stdout, _) = validate(&["-o", "json", "--crds", crds, "tests/fixtures/validate/widgets-invalid.yaml"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let mut found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["path"].as_str().unwrap().to_string()))
        .collect();
    found.sort();
    let expected = [
        ("cel", "/spec"),                        // red without a note
        ("schema", "/spec/ports/1"),             // list-type set
        ("schema", "/spec/size"),                // int-or-string rejects a boolean
        ("schema", "/spec/template/apiVersion"), // embedded resource needs apiVersion
        ("schema", "/spec/template/kind"),       // ... and kind
        ("schema", "/spec/timeout"),             // format: duration
        ("unknown-field", "/spec/extra"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(r, p)| (r.to_string(), p.to_string())).collect();
    assert_eq!(found, expected);
    // Without the CRD the kind is unknown.
    let (code, stdout, _) = validate(&["tests/fixtures/validate/widgets-valid.yaml"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("[schema-missing]"), "{stdout}");
}

#[test]
fn an_invalid_crd_directory_is_an_input_error() {
    let (code, _, stderr) = validate(&["--crds", "tests/corpus/valid", BUNDLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no CustomResourceDefinitions"), "{stderr}");
}
