//! The Go-template engine against outputs recorded from real Go `text/template` + sprig v3.3.0
//! (`HermeticTxtFuncMap`, as CAPI uses it). The recorder is tools/gotemplate-oracle (`regen.sh`
//! runs it on its `cases.jsonl`); the data is tests/fixtures/topology/gotemplate_data.json.

use crate::support::cli_runner::capz_command;
use capz::topology::gotemplate::{GoValue, render};
use serde_json::Value;

fn data() -> Value {
    let text = std::fs::read_to_string("tests/fixtures/topology/gotemplate_data.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Cases where our message differs from Go's but both fail: Go checks a constant argument
/// against the function's parameter type before the call and points at the constant; Go's JSON
/// decoder words syntax errors differently from serde_json.
const BOTH_FAIL_ONLY: &[&str] = &["{{ upper 1 }}", "{{ mustFromJson \"{bad\" }}"];

/// Known differences, each with its reason. Our values have one integer type (Go's `int`) and one
/// list type (`[]interface {}`), while sprig's arithmetic returns `int64` and `splitList` a
/// `[]string`; only `%T` and the type in `%!verb(type=value)` show it. The data CAPI passes
/// (float64, string, bool, nil, maps, lists) prints its Go type exactly.
const KNOWN_DIFFERENCES: &[&str] = &[
    "{{ printf \"%T %T %T\" (add 1 2) (len .list) (int64 3) }}",
    "{{ printf \"%T\" (splitList \",\" \"a,b\") }}",
    "{{ printf \"%s\" (add 1 2) }}",
    // Our strings are UTF-8: a character cut by sprig's byte slicing becomes U+FFFD (3 bytes) at
    // once, where Go keeps the raw byte until its output is JSON-encoded. The text agrees.
    "{{ len (trunc 2 \"héllo\") }}",
];

#[test]
fn matches_go_text_template_and_sprig() {
    let text = std::fs::read_to_string("tests/fixtures/topology/gotemplate_go_reference.jsonl").unwrap();
    let json = data();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        count += 1;
        let case: Value = serde_json::from_str(line).unwrap();
        let tpl = case["tpl"].as_str().unwrap();
        // Fresh data per case, as the recorder decoded it per case (templates may mutate maps).
        let got = render(tpl, &GoValue::from_json(&json));
        match (case.get("out").and_then(Value::as_str), case.get("err").and_then(Value::as_str), &got) {
            (Some(want), _, Ok(out)) if out == want => {}
            (_, Some(want), Err(err)) if err.message == want => {}
            (_, Some(_), Err(_)) if BOTH_FAIL_ONLY.contains(&tpl) => {}
            _ if KNOWN_DIFFERENCES.contains(&tpl) => {}
            _ => failures.push(format!("{tpl}\n   go:  {}\n   ours: {got:?}", case)),
        }
    }
    assert!(count > 400, "reference file too short");
    assert!(failures.is_empty(), "{} of {count} differ from Go:\n{}", failures.len(), failures.join("\n"));
}

/// Every function we offer is a Go template builtin or one of sprig's hermetic functions (the
/// list was printed by Go from sprig v3.3.0), so templates that work here work in CAPI.
#[test]
fn functions_are_go_builtins_or_hermetic_sprig() {
    let text = std::fs::read_to_string("tests/fixtures/topology/sprig_hermetic_functions.txt").unwrap();
    let sprig: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(sprig.len() > 150);
    let go_builtins = [
        "and", "or", "not", "len", "index", "slice", "print", "printf", "println", "eq", "ne", "lt", "le", "gt", "ge",
        "html", "js", "urlquery",
    ];
    let foreign: Vec<&&str> = capz::topology::gotemplate::FUNCTIONS
        .iter()
        .filter(|f| !sprig.contains(f) && !go_builtins.contains(f))
        .collect();
    assert!(foreign.is_empty(), "not in Go or sprig: {foreign:?}");
}

/// A template bomb in a ClusterClass patch (8 GB from `repeat`) stops `plan` with exit 2 and an
/// error naming the class, the patch and the limit, instead of exhausting memory.
#[test]
fn plan_stops_a_template_bomb_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let class = std::fs::read_to_string("tests/fixtures/topology/custom/class.yaml").unwrap();
    let bomb =
        class.replace(r#"template: "{{ .builtin.cluster.name }}""#, r#"template: "{{ repeat 2000000000 \"xxxx\" }}""#);
    assert_ne!(bomb, class, "the fixture's patch template moved");
    std::fs::write(dir.path().join("class.yaml"), bomb).unwrap();
    std::fs::copy("tests/fixtures/topology/custom/cluster.yaml", dir.path().join("cluster.yaml")).unwrap();
    let out = capz_command().args(["plan", "-f"]).arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains("ClusterClass fleet/aks-aso-vars: spec.patches[1] (\"managed-cluster\")"), "{stderr}");
    assert!(stderr.contains("longer than 4194304 bytes (kubectl-capz's limit)"), "{stderr}");
}
