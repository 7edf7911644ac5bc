//! `kubectl capz validate` through the CLI: output formats (snapshots), exit codes, flags, and
//! the API-server semantics of a user CRD (int-or-string, nullable, defaults, formats,
//! preserve-unknown-fields, embedded resources, list-type set, CEL).

use crate::support::cli_runner::capz_command;
use serde_json::Value;

fn validate(args: &[&str]) -> (i32, String, String) {
    let output = capz_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CAPZ_VERSION")
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
    assert_eq!(stderr, "4 objects: 1 valid, 2 invalid, 1 skipped (3 errors, 1 warnings, 0 not checked)\n");
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
    let output = capz_command()
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

/// `validate <(kustomize build)` and `validate /dev/stdin`: a pipe has no canonical path (`/proc/self/fd/0` links to
/// `pipe:[…]`), and was an input error ("No such file or directory") before.
#[test]
fn a_pipe_given_by_path_is_read() {
    let output = capz_command()
        .args(["validate", "/dev/stdin"])
        .write_stdin("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad_Name\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("/dev/stdin:4: error: Namespace/Bad_Name: /metadata/name: invalid name"), "{stdout}");
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
    // Without the CRD the kind is unknown: a warning (not checked, not counted valid), exit 0.
    let (code, stdout, _) = validate(&["tests/fixtures/validate/widgets-valid.yaml"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("warning: ") && stdout.contains("[schema-missing]"), "{stdout}");
}

#[test]
fn an_invalid_crd_directory_is_an_input_error() {
    let (code, _, stderr) = validate(&["--crds", "tests/corpus/valid", BUNDLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no CustomResourceDefinitions"), "{stderr}");
}

/// A directory of manifests with every kind of unreadable text next to valid and invalid objects.
const MIXED: &str = "tests/fixtures/validate/mixed";

#[test]
fn one_bad_file_never_hides_the_rest_json() {
    let (code, stdout, stderr) = validate(&["-o", "json", MIXED]);
    assert_eq!(code, 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one complete JSON document");
    let findings = report["findings"].as_array().unwrap();
    let at = |f: &Value| {
        format!(
            "{}:{}:{} {} {}",
            f["source"].as_str().unwrap().trim_start_matches("tests/fixtures/validate/mixed/"),
            f["line"],
            f.get("column").map_or("-".to_string(), Value::to_string),
            f["rule"].as_str().unwrap(),
            f["object"].as_str().unwrap()
        )
    };
    let found: Vec<String> = findings.iter().map(at).collect();
    let expected = [
        "20-syntax.yaml:13:9 yaml-syntax ",
        "20-syntax.yaml:20:- unknown-field ConfigMap/after-the-error",
        "20-syntax.yaml:23:1 not-an-object ",
        "20-syntax.yaml:25:1 not-an-object ",
        "20-syntax.yaml:28:- schema-missing Gadget/no-schema",
        "30-duplicate.yaml:5:3 yaml-duplicate-key ",
        "40-invalid.yaml:6:- schema Cluster/demo",
        "40-invalid.yaml:7:- unknown-field Cluster/demo",
        "40-invalid.yaml:15:- schema AzureClusterIdentity/demo",
        "40-invalid.yaml:27:- schema-missing Gadget/unknown",
        "50-not-utf8.yaml:4:12 yaml-syntax ",
    ];
    assert_eq!(found, expected, "{stdout}");
    for f in findings {
        // An object without a schema is not checked: a warning, never an error.
        let severity = if f["rule"] == "schema-missing" { "warning" } else { "error" };
        assert_eq!(f["severity"], severity);
        let message = f["message"].as_str().unwrap();
        assert!(!message.contains("Options") && !message.contains("DuplicateKeyPolicy"), "{message}");
    }
    // Every readable object of every file is a resource, the unreadable parts too, in file order.
    let resources: Vec<(String, String)> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["object"].as_str().unwrap().to_string(), r["status"].as_str().unwrap().to_string()))
        .collect();
    let resources: Vec<(&str, &str)> = resources.iter().map(|(o, s)| (o.as_str(), s.as_str())).collect();
    assert_eq!(
        resources,
        [
            ("ConfigMap/settings", "valid"),
            ("Secret/token", "valid"),
            ("ConfigMap/before-the-error", "valid"),
            ("", "invalid"),
            ("ConfigMap/after-the-error", "invalid"),
            ("", "invalid"),
            ("", "invalid"),
            ("Gadget/no-schema", "skipped"),
            ("", "invalid"),
            ("ConfigMap/next-to-the-duplicate", "valid"),
            ("Cluster/demo", "invalid"),
            ("AzureClusterIdentity/demo", "invalid"),
            ("ConfigMap/fine", "valid"),
            ("Gadget/unknown", "skipped"),
            ("", "invalid"),
        ]
    );
    assert_eq!(report["summary"]["errors"], 9);
    assert_eq!(stderr, "15 objects: 5 valid, 8 invalid, 2 skipped (9 errors, 2 warnings, 0 not checked)\n");
    assert!(!stdout.contains("not-printed-anywhere"));
}

#[test]
fn one_bad_file_never_hides_the_rest_text_and_junit() {
    let (code, stdout, _) = validate(&[MIXED]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("mixed_text", stdout);
    let (code, stdout, _) = validate(&["-o", "junit", MIXED]);
    assert_eq!(code, 1);
    // Well formed enough for CI: every suite and case closed, one failure per error finding.
    assert_eq!(stdout.matches("<testsuite ").count(), stdout.matches("</testsuite>").count());
    assert_eq!(stdout.matches("<testcase ").count(), 15);
    assert_eq!(stdout.matches("<testcase ").count(), stdout.matches("</testcase>").count());
    assert_eq!(stdout.matches("<failure ").count(), 9);
    assert!(stdout.ends_with("</testsuites>\n"));
    insta::assert_snapshot!("mixed_junit", stdout);
}

#[test]
fn reader_rules_cannot_be_disabled() {
    let (code, _, stderr) = validate(&["--disable", "yaml-syntax", MIXED]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot be disabled"), "{stderr}");
}

#[test]
fn secret_values_never_show_whatever_the_shape_of_data() {
    // Each shape the API server rejects, with a value that must never be printed.
    let shapes = [
        "data: scalar-secret-1\n",
        "stringData: scalar-secret-2\n",
        "data: [list-secret-3, list-secret-4]\n",
        "stringData:\n  key: [list-secret-5]\n",
        "data:\n  key:\n    nested: nested-secret-6\n",
        "stringData:\n  key: {deeper: {deepest: nested-secret-7}}\n",
        "data:\n  flag: true\n",
        "stringData: true\n",
        "data:\n  number: 987654321\n",
        "data:\n  key: \"not base64 secret-8!\"\n",
        "data: {key: \"long-secret-9-long-secret-9-long-secret-9-long-secret-9-long-secret-9-long-secret-9-long\"}\n",
        "stringData: {\"bad key!\": secret-10}\n",
    ];
    let bundle: String = shapes
        .iter()
        .enumerate()
        .map(|(i, shape)| {
            format!("---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s{i}\n  namespace: default\n{shape}")
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secrets.yaml");
    std::fs::write(&file, &bundle).unwrap();
    let file = file.display().to_string();
    let secrets = ["secret-", "true", "987654321"];
    for format in ["text", "json", "junit"] {
        let (code, stdout, stderr) = validate(&["-o", format, &file]);
        assert_eq!(code, 1, "{format}: every shape is an error\n{stdout}");
        for secret in secrets {
            assert!(!stdout.contains(secret), "{format} shows {secret}:\n{stdout}");
            assert!(!stderr.contains(secret), "{format} shows {secret} on stderr:\n{stderr}");
        }
    }
    // Every Secret has at least one finding (nothing was dropped to hide a value).
    let (_, stdout, _) = validate(&["-o", "json", &file]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let invalid = report["resources"].as_array().unwrap().iter().filter(|r| r["status"] == "invalid").count();
    assert_eq!(invalid, shapes.len(), "{stdout}");
}

/// Our own default output (CAPI v1beta1, as CAPZ's templates) draws no deprecation warnings: the API
/// server's `deprecated-api` for CAPI v1beta1 is shown with `capi-v1beta1`, which is off by default.
#[test]
fn rendered_default_output_has_no_capi_deprecation_warnings_unless_asked() {
    let rendered = capz_command()
        .args(["render", "aks-aso", "demo", "--values", "examples/aks-aso.values.yaml"])
        .output()
        .unwrap();
    assert!(rendered.status.success());
    let run = |extra: &[&str]| {
        let out = capz_command()
            .args(["validate", "-", "-o", "json"])
            .args(extra)
            .write_stdin(rendered.stdout.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let default = run(&[]);
    assert!(!default.contains("deprecated-api") && !default.contains("capi-v1beta1"), "{default}");
    let enabled = run(&["--enable", "capi-v1beta1"]);
    assert!(enabled.contains("\"deprecated-api\"") && enabled.contains("\"capi-v1beta1\""), "{enabled}");
}

#[test]
fn a_document_over_the_size_limit_is_a_finding_and_the_rest_is_validated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    // 17 MiB in one ConfigMap between two small objects (the second invalid).
    let filler = format!("  big: \"{}\"\n", "x".repeat(17 * 1024 * 1024));
    let text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  \
         name: b\ndata:\n{filler}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nbogus: 1\n"
    );
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let (code, stdout, stderr) = validate(&[&file]);
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(
        lines[0],
        format!(
            "{file}:6:1: error: the document is 17.1 MiB of YAML, over the limit of 16 MiB per document (the API \
             server accepts at most 3 MiB per object); it is not read [yaml-too-large]"
        )
    );
    assert!(lines[1].starts_with(&format!("{file}:17: error: ConfigMap/c: /bogus: ")), "{stdout}");
    assert_eq!(stderr, "3 objects: 1 valid, 2 invalid, 0 skipped (2 errors, 0 warnings, 0 not checked)\n");
}

#[test]
fn a_float_that_overflows_is_read_as_its_string_as_kubernetes_reads_it() {
    // go-yaml v2 (kubectl, the API server) keeps `1e1000` as the string "1e1000": a ConfigMap value is fine.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("overflow.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: default}\ndata:\n  x: 1e1000\n",
    )
    .unwrap();
    let (code, stdout, stderr) = validate(&[path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("yaml-syntax"), "{stdout}");
}

/// A bundle with findings of every kind of location: a syntax error (with a column), schema and CAPZ rule findings.
fn sarif_inputs(dir: &std::path::Path) -> Vec<String> {
    std::fs::write(dir.join("broken.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n").unwrap();
    vec![
        BUNDLE.to_string(),
        "tests/fixtures/lint/aks-aso.yaml".to_string(),
        dir.join("broken.yaml").display().to_string(),
    ]
}

#[test]
fn sarif_output_is_valid_sarif_2_1_0_with_our_rules_and_repository_paths() {
    let schema_text = std::fs::read_to_string("tests/fixtures/sarif/sarif-schema-2.1.0.json").unwrap();
    let schema: Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let inputs = sarif_inputs(dir.path());
    let mut args = vec!["-o", "sarif"];
    args.extend(inputs.iter().map(String::as_str));
    let (code, stdout, stderr) = validate(&args);
    assert_eq!(code, 1, "{stderr}");
    let log: Value = serde_json::from_str(&stdout).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema is not a formality: a result without its message fails it.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0].as_object_mut().unwrap().remove("message");
    assert!(!validator.is_valid(&broken));

    // The same findings as -o json, at the same places; rule ids indexed into tool.driver.rules, each with help.
    let mut json_args = vec!["-o", "json"];
    json_args.extend(inputs.iter().map(String::as_str));
    let report: Value = serde_json::from_str(&validate(&json_args).1).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    for (result, finding) in results.iter().zip(findings) {
        assert_eq!(result["ruleId"], finding["rule"]);
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], finding["rule"]);
        assert!(rule["help"]["text"].as_str().unwrap().len() > 20, "{rule}");
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["region"]["startLine"], finding["line"]);
        let source = finding["source"].as_str().unwrap();
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        if source.starts_with("tests/") {
            // Relative to the current directory (no .kubectl-capz.yaml above it).
            assert_eq!((uri, &location["artifactLocation"]["uriBaseId"]), (source, &Value::from("SRCROOT")));
        } else {
            assert_eq!(uri, format!("file://{source}"), "outside the root: an absolute file URI");
        }
    }
    let levels: std::collections::BTreeSet<&str> = results.iter().map(|r| r["level"].as_str().unwrap()).collect();
    assert!(levels.contains("error") && levels.contains("warning"), "{levels:?}");
    let mut shown = log.clone();
    shown["runs"][0]["tool"]["driver"]["rules"] = Value::from(format!("{} rules", rules.len()));
    shown["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] = Value::from("file://[CWD]/");
    for result in shown["runs"][0]["results"].as_array_mut().unwrap() {
        let location = &mut result["locations"][0]["physicalLocation"]["artifactLocation"];
        if location.get("uriBaseId").is_none() {
            location["uri"] = Value::from("file://[TMP]/broken.yaml");
        }
    }
    shown["runs"][0]["tool"]["driver"]["version"] = Value::from("[VERSION]");
    shown["runs"][0]["tool"]["driver"]["semanticVersion"] = Value::from("[VERSION]");
    insta::assert_json_snapshot!("sarif", shown);
}

#[test]
fn github_output_is_one_escaped_workflow_command_per_finding() {
    let dir = tempfile::tempdir().unwrap();
    // A file name with the characters GitHub's properties escape, and a value that puts `%` into a message.
    std::fs::write(
        dir.path().join("team,a:prod.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    share: 50%\n",
    )
    .unwrap();
    let output = capz_command()
        .current_dir(dir.path())
        .env_remove("CAPZ_VERSION")
        .args(["validate", "-o", "github", "team,a:prod.yaml", "-"])
        .write_stdin("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad_Name\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    insta::assert_snapshot!("github", stdout);
    for line in stdout.lines() {
        assert!(line.starts_with("::error ") || line.starts_with("::warning ") || line.starts_with("::notice "));
        let (properties, message) = line.split_once("::").unwrap().1.split_once("::").unwrap();
        assert!(!message.contains('\r') && !properties.contains("%,"), "{line}");
    }
    assert!(stdout.contains("file=team%2Ca%3Aprod.yaml,line=6,"), "{stdout}");
    assert!(stdout.contains("50%25"), "{stdout}");
}

/// Objects in API versions no longer served (old `exp.` groups, `v1alpha*`) still take part in
/// the cross-object rules as what they are: the schema check says once that the version is not
/// served, and no rule claims the pool is missing.
#[test]
fn objects_in_unserved_versions_are_reported_once_and_still_count_as_what_they_are() {
    let minimal = std::fs::read_to_string("tests/corpus/valid/capz-aks-minimal.yaml").unwrap();
    let pool = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool";
    let infra = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePool";
    let infra_ref = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n        kind: AzureManagedMachinePool";
    let cases = [
        ("exp pool", minimal.replace(pool, "apiVersion: exp.cluster.x-k8s.io/v1alpha3\nkind: MachinePool"), 1),
        (
            "exp pool and infrastructure",
            minimal
                .replace(pool, "apiVersion: exp.cluster.x-k8s.io/v1alpha3\nkind: MachinePool")
                .replace(
                    infra,
                    "apiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha3\nkind: AzureManagedMachinePool",
                )
                .replace(
                    infra_ref,
                    "apiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha3\n        kind: AzureManagedMachinePool",
                ),
            2,
        ),
        ("v1alpha4 pool", minimal.replace(pool, "apiVersion: cluster.x-k8s.io/v1alpha4\nkind: MachinePool"), 1),
    ];
    for (name, text, unserved) in cases {
        assert_ne!(text, minimal, "{name}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cluster.yaml");
        std::fs::write(&path, &text).unwrap();
        let (code, stdout, _) = validate(&[path.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {stdout}");
        let errors: Vec<&str> = stdout.lines().filter(|l| l.contains(": error: ")).collect();
        assert_eq!(errors.len(), unserved, "{name}: {stdout}");
        assert!(errors.iter().all(|l| l.contains("is not served") && l.ends_with("[api-version]")), "{name}: {stdout}");
        for rule in ["aks-system-pool-required", "capi-unresolved-ref", "schema-missing"] {
            assert!(!stdout.contains(rule), "{name}: {rule}: {stdout}");
        }
    }
}

/// A value CAPZ's defaulting webhook cannot decode (a JSON type the Go field does not take): the
/// webhook rejects the request with the decode error before anything is defaulted or checked, so
/// that error is the only schema finding (not "required field ... is missing" for what the webhook
/// would have defaulted, nor the other checks that never run).
#[test]
fn a_value_capz_cannot_decode_is_reported_alone() {
    let cases = [
        (
            "control plane template, tag of another type",
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlaneTemplate\nmetadata:\n  name: t\n  namespace: default\nspec:\n  template:\n    spec:\n      location: westeurope\n      subscriptionID: 00000000-0000-0000-0000-000000000001\n      version: v1.33.2\n      additionalTags:\n        team: 5\n",
            "/spec/template/spec/additionalTags/team",
        ),
        (
            "machine pool, maxPods as a string",
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePool\nmetadata:\n  name: pool0\n  namespace: default\nspec:\n  sku: Standard_D2s_v3\n  maxPods: \"30\"\n",
            "/spec/maxPods",
        ),
        (
            "control plane, a list where an object goes",
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata:\n  name: c1\n  namespace: default\nspec:\n  location: westeurope\n  version: v1.33.2\n  aadProfile: [managed]\n",
            "/spec/aadProfile",
        ),
    ];
    for (name, text, pointer) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("object.yaml");
        std::fs::write(&path, text).unwrap();
        let (code, stdout, _) = validate(&[path.to_str().unwrap(), "--disable", "capz-deprecated-api"]);
        assert_eq!(code, 1, "{name}: {stdout}");
        let schema: Vec<&str> = stdout.lines().filter(|l| l.ends_with("[schema]")).collect();
        assert_eq!(schema.len(), 1, "{name}: {stdout}");
        assert!(schema[0].contains(&format!("{pointer}: must be of type")), "{name}: {stdout}");
    }
}

/// An `aks-*` twin without an AKS document behind it (only CAPZ's classic webhook checks the
/// field, on its own kinds) is a warning on an embedded ASO object, exit 0, and its message says what AKS does.
#[test]
fn undocumented_aks_twins_warn_and_say_what_aks_does() {
    for (file, rule, aks_does) in [
        (
            "tests/corpus/valid/aks-node-public-ip-without-enable.yaml",
            "aks-node-public-ip",
            "AKS gives nodes public IPs, from the prefix too, only with enableNodePublicIP: true",
        ),
        (
            "tests/corpus/valid/aks-load-balancer-profile-two-sources.yaml",
            "aks-load-balancer-profile",
            "AKS documents managed outbound IPs, your own outbound IPs and your own outbound IP prefixes as alternative",
        ),
        (
            "tests/corpus/valid/aks-security-profile-workload-identity.yaml",
            "aks-security-profile",
            "AKS workload identity federates through the cluster's OIDC issuer",
        ),
    ] {
        let (code, stdout, _) = validate(&["-o", "json", file]);
        assert_eq!(code, 0, "{file}: a warning does not fail validate\n{stdout}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let findings: Vec<&Value> =
            report["findings"].as_array().unwrap().iter().filter(|finding| finding["rule"] == rule).collect();
        assert_eq!(findings.len(), 1, "{file}: {stdout}");
        assert_eq!(findings[0]["severity"], "warning", "{file}");
        let message = findings[0]["message"].as_str().unwrap();
        assert!(message.contains(aks_does), "{file}: {message}");
        assert!(message.contains("no AKS document says AKS rejects"), "{file}: {message}");
    }
}

/// Removed versions of the groups the target knows (CAPI's v1alpha3, Kubernetes' policy/v1beta1 and
/// extensions/v1beta1) are `api-version` errors naming the release, never "no schema, add its CRD"; a kind the
/// bundle lacks (CAPD's DockerMachineTemplate, a self-managed AzureCluster whose schema is not bundled) stays a
/// warning.
#[test]
fn removed_versions_of_known_groups_are_api_version_errors() {
    let (code, stdout, stderr) = validate(&["tests/fixtures/validate/removed-api-versions.yaml"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("removed_api_versions", stdout);
    assert_eq!(stderr, "7 objects: 0 valid, 5 invalid, 2 skipped (5 errors, 2 warnings, 0 not checked)\n");
}
