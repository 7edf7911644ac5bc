//! `convert` against the referee: every object of tests/fixtures/capi-conversion/corpus/ was
//! converted by CAPI v1.14.2's own conversion webhook (and the API server's conversion of CAPZ
//! v1.26.0's AzureASOManaged* CRDs; see tools/capi-conversion-oracle) and the answer recorded in
//! recorded.json. Here each object is converted by `capz::convert::convert_object` and compared
//! as JSON, after the normalisation the oracle documents (`metadata.creationTimestamp: null`
//! dropped, `status: {}` dropped, `status` dropped when the input has none).
//!
//! Fails on a different object, on an error where CAPI converted (or the reverse), on a corpus
//! file edited since it was recorded, and on a corpus file without a recording.

use std::collections::BTreeSet;

use capz::convert::{TargetVersion, convert_object};
use capz::manifest::parse_documents;
use serde_json::Value;
use sha2::{Digest, Sha256};

const DIR: &str = "tests/fixtures/capi-conversion";

fn recorded() -> Value {
    let text = std::fs::read_to_string(format!("{DIR}/recorded.json")).expect("recorded.json");
    serde_json::from_str(&text).expect("recorded.json is JSON")
}

fn normalize(object: &mut Value, input_has_status: bool) {
    let Some(map) = object.as_object_mut() else { return };
    if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut)
        && meta.get("creationTimestamp") == Some(&Value::Null)
    {
        meta.remove("creationTimestamp");
    }
    let empty_status = map.get("status").and_then(Value::as_object).is_some_and(|s| s.is_empty());
    if empty_status || !input_has_status {
        map.remove("status");
    }
}

/// Our answer for one corpus file: the converted object, or the error text.
fn convert(bytes: &[u8], name: &str) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).expect("corpus files are UTF-8");
    let mut documents = parse_documents(text, name).expect("corpus files are YAML");
    assert_eq!(documents.len(), 1, "{name}: one object per corpus file");
    let input = documents.remove(0).value;
    match convert_object(&input, TargetVersion::V1beta2) {
        Ok(Some(conversion)) => Ok(conversion.value),
        Ok(None) => Ok(input),
        Err(err) => Err(err.to_string()),
    }
}

#[test]
fn every_corpus_object_converts_as_the_real_conversion_code_does() {
    let recorded = recorded();
    assert_eq!(recorded["capi"], "v1.14.2");
    assert_eq!(recorded["capz"], "v1.26.0");
    let cases = recorded["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    let mut names = BTreeSet::new();
    for case in cases {
        let name = case["name"].as_str().expect("case name");
        names.insert(name.to_string());
        let path = format!("{DIR}/corpus/{name}.yaml");
        let bytes = std::fs::read(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
        let sha = format!("{:x}", Sha256::digest(&bytes));
        if case["input_sha256"] != sha {
            failures.push(format!("{name}: corpus file edited since it was recorded (run regen.sh)"));
            continue;
        }
        let input_has_status = String::from_utf8_lossy(&bytes).lines().any(|l| l.starts_with("status:"));
        match (convert(&bytes, name), case["error"].as_str()) {
            (Ok(mut ours), None) => {
                normalize(&mut ours, input_has_status);
                let mut theirs = case["output"].clone();
                normalize(&mut theirs, input_has_status);
                if ours != theirs {
                    let mut differences = Vec::new();
                    differences_at("", &theirs, &ours, &mut differences);
                    failures.push(format!("{name}: differs from CAPI at\n  {}", differences.join("\n  ")));
                }
            }
            (Err(_), Some(_)) => {}
            (Ok(_), Some(error)) => failures.push(format!("{name}: CAPI rejects it ({error}), we convert it")),
            (Err(ours), None) => failures.push(format!("{name}: CAPI converts it, we reject it: {ours}")),
        }
    }
    let corpus: BTreeSet<String> = std::fs::read_dir(format!("{DIR}/corpus"))
        .expect("corpus dir")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".yaml")).map(str::to_string))
        .collect();
    for unrecorded in corpus.difference(&names) {
        failures.push(format!("{unrecorded}: corpus file without a recording (run regen.sh)"));
    }
    assert!(cases.len() >= 10, "too few recorded cases: {}", cases.len());
    assert!(failures.is_empty(), "{} of {} cases fail:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

/// The JSON pointers where `theirs` and `ours` differ, with both values.
fn differences_at(pointer: &str, theirs: &Value, ours: &Value, out: &mut Vec<String>) {
    match (theirs, ours) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let child = format!("{pointer}/{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences_at(&child, x, y, out),
                    (Some(x), None) => out.push(format!("{child}: CAPI {x}, ours missing")),
                    (None, Some(y)) => out.push(format!("{child}: CAPI missing, ours {y}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differences_at(&format!("{pointer}/{index}"), x, y, out);
            }
        }
        _ if theirs != ours => out.push(format!("{pointer}: CAPI {theirs}, ours {ours}")),
        _ => {}
    }
}

/// Whether a value carries information (not a zero value Go would drop anyway).
fn informative(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => items.iter().any(informative),
        Value::Object(map) => map.values().any(informative),
    }
}

/// dropped.json (tools/capi-conversion-oracle -dropped) lists, per corpus case, the fields the real
/// conversion loses (v1beta1 → v1beta2 → v1beta1 through the same webhook). Every one that held
/// information must be named by one of our warnings (the warning's field or a parent of it); and
/// every warning must name a field the real conversion loses, or a field v1beta1 does not know.
#[test]
fn warnings_name_every_field_the_real_conversion_loses() {
    let text = std::fs::read_to_string(format!("{DIR}/dropped.json")).expect("dropped.json");
    let dropped: Value = serde_json::from_str(&text).expect("dropped.json is JSON");
    let covers = |warning: &str, path: &str| {
        path == warning || path.starts_with(&format!("{warning}.")) || path.starts_with(&format!("{warning}["))
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in dropped["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let bytes = std::fs::read(format!("{DIR}/corpus/{name}.yaml")).expect("corpus file");
        let text = String::from_utf8(bytes).unwrap();
        let input = parse_documents(&text, name).unwrap().remove(0).value;
        let Ok(Some(conversion)) = convert_object(&input, TargetVersion::V1beta2) else { continue };
        let warned: Vec<(String, String)> = conversion
            .warnings
            .iter()
            .map(|w| (capz::convert::files::field_path(&w.pointer), w.message.clone()))
            .collect();
        let lost: Vec<&str> = case["dropped"].as_array().unwrap().iter().filter_map(|d| d["path"].as_str()).collect();
        for entry in case["dropped"].as_array().unwrap() {
            let path = entry["path"].as_str().unwrap();
            if informative(&entry["before"]) && !warned.iter().any(|(w, _)| covers(w, path)) {
                failures.push(format!("{name}: no warning for {path} (was {})", entry["before"]));
            }
            checked += 1;
        }
        for (field, message) in &warned {
            let unknown = message.contains("(a typo?)");
            if !unknown && !lost.iter().any(|path| covers(field, path) || covers(path, field)) {
                failures.push(format!("{name}: warning about {field}, which the real conversion keeps"));
            }
        }
    }
    assert!(checked >= 10, "too few dropped fields recorded: {checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
