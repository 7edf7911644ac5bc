//! The validation corpus: every file under tests/corpus/{valid,invalid} states its expected verdict
//! in `# expect:` comment lines, and the CLI must produce exactly that:
//! - `# expect: valid`: exit 0, no error finding;
//! - `# expect: <rule-id> [<json-pointer>]` (one line per expected error finding): each appears as
//!   an error with that rule (and path, when given), no other error appears, exit 1;
//! - `# expect: input-error`: exit 2 (the file cannot be read as Kubernetes would read it).
//!
//! An optional `# args: ...` line adds command-line flags.

use crate::support::cli_runner::capz_command;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[derive(Debug)]
enum Expectation {
    Valid,
    InputError,
    Errors(Vec<(String, Option<String>)>),
}

fn parse_expectations(text: &str, file: &Path) -> (Expectation, Vec<String>) {
    let mut errors = Vec::new();
    let mut valid = false;
    let mut input_error = false;
    let mut args = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# expect:") {
            let mut parts = rest.trim().splitn(2, ' ');
            match parts.next().unwrap_or("") {
                "valid" => valid = true,
                "input-error" => input_error = true,
                rule => errors.push((rule.to_string(), parts.next().map(|p| p.trim().to_string()))),
            }
        } else if let Some(rest) = line.strip_prefix("# args:") {
            args.extend(rest.split_whitespace().map(str::to_string));
        }
    }
    let expectation = match (valid, input_error, errors.is_empty()) {
        (true, false, true) => Expectation::Valid,
        (false, true, true) => Expectation::InputError,
        (false, false, false) => Expectation::Errors(errors),
        _ => panic!(
            "{}: needs `# expect: valid`, `# expect: input-error`, or error expectations (only one kind)",
            file.display()
        ),
    };
    (expectation, args)
}

fn corpus_files(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus files in {}", dir.display());
    files
}

fn check_file(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).unwrap();
    let (expectation, args) = parse_expectations(&text, file);
    let output = capz_command().arg("validate").arg("-o").arg("json").args(&args).arg(file).output().unwrap();
    let code = output.status.code().unwrap_or(-1);
    let name = file.display();
    if let Expectation::InputError = expectation {
        return if code == 2 { Ok(()) } else { Err(format!("{name}: expected exit 2 (input error), got {code}")) };
    }
    let report: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("{name}: no JSON report ({e}); stderr: {}", String::from_utf8_lossy(&output.stderr)))?;
    let mut actual: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    match expectation {
        Expectation::Valid => {
            if code != 0 || !actual.is_empty() {
                return Err(format!("{name}: expected valid, got exit {code} and errors {actual:#?}"));
            }
        }
        Expectation::Errors(expected) => {
            for (rule, path) in &expected {
                let found = actual.iter().position(|(r, p, _)| r == rule && path.as_ref().is_none_or(|path| path == p));
                match found {
                    Some(i) => {
                        actual.remove(i);
                    }
                    None => return Err(format!("{name}: expected error {rule} {path:?} not reported")),
                }
            }
            if !actual.is_empty() {
                return Err(format!("{name}: unexpected errors {actual:#?}"));
            }
            if code != 1 {
                return Err(format!("{name}: expected exit 1, got {code}"));
            }
        }
        Expectation::InputError => unreachable!(),
    }
    Ok(())
}

fn check_all(kind: &str) {
    let failures: Vec<String> = corpus_files(kind).iter().filter_map(|f| check_file(f).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn valid_corpus_is_valid() {
    check_all("valid");
}

#[test]
fn invalid_corpus_reports_exactly_the_expected_errors() {
    check_all("invalid");
}
