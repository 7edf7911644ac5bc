//! One `-o` vocabulary: every command that prints data takes `-o yaml` and `-o json` (plus its own
//! formats), and the two carry the same data. (`diff -o yaml|json` needs a cluster: tests/live/live_diff.rs.)

use crate::support::cli_runner;

use cli_runner::capz;
use serde_json::Value;

const ENV: &[(&str, &str)] = &[
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "westeurope"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
];

/// stdout of a run that must exit with `code`.
fn stdout(args: &[&str], code: i32) -> String {
    let out = capz(ENV).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The YAML stream as values (one per document).
fn yaml_values(text: &str) -> Vec<Value> {
    capz::manifest::parse_documents(text, "stdout").expect("YAML output parses").into_iter().map(|d| d.value).collect()
}

fn json_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("JSON output: {e}\n{text}"))
}

/// `-o yaml` and `-o json` of `args` carry the same data (a JSON List's items for object streams).
fn same_data(args: &[&str], code: i32, list: bool) {
    let with = |format: &str| {
        let mut all = args.to_vec();
        all.extend(["-o", format]);
        stdout(&all, code)
    };
    let yaml = yaml_values(&with("yaml"));
    let json = json_value(&with("json"));
    if list {
        assert_eq!(json["kind"], "List");
        assert_eq!(json["items"].as_array().unwrap(), &yaml, "{args:?}");
    } else {
        assert_eq!(yaml.len(), 1, "{args:?}: one YAML document");
        assert_eq!(json, yaml[0], "{args:?}");
    }
}

#[test]
fn render_plan_params_and_validate_speak_yaml_and_json() {
    same_data(&["render", "aks-aso", "demo"], 0, true);
    same_data(&["plan", "--no-validate", "-f", "tests/fixtures/topology/custom"], 0, true);
    same_data(&["params", "aks-aso"], 0, false);
    same_data(&["params"], 0, false);
    same_data(&["params", "--schema"], 0, false);

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, stdout(&["render", "aks-aso", "demo"], 0).replace("westeurope", "")).unwrap();
    same_data(&["validate", bad.to_str().unwrap()], 1, false);
    let report = json_value(&stdout(&["validate", bad.to_str().unwrap(), "-o", "json"], 1));
    assert!(report.to_string().contains("location"), "the finding is in the data: {report:#}");
}

#[test]
fn params_data_names_the_required_parameters() {
    let data = json_value(&stdout(&["params", "aks-aso", "-o", "json"], 0));
    assert_eq!(data["flavor"], "aks-aso");
    let required: Vec<&str> =
        data["required"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    let text = stdout(&["params", "aks-aso"], 0);
    for path in &required {
        assert!(text.contains(path), "{path} is in the table too");
    }
    assert!(!required.is_empty());
    assert!(data["optional"].as_array().unwrap().iter().all(|r| r["path"].is_string() && r["type"].is_string()));
}
