//! `validate --capz-version v1.27,v1.28`: one run judged against several CAPZ targets, each finding saying on which
//! it holds; the other commands refuse several targets.

use serde_json::Value;

use crate::support::{self, cli_runner::capz};

fn example(name: &str) -> String {
    support::repo_root().join("examples").join(name).display().to_string()
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(env: &[(&str, &str)], args: &[&str]) -> Run {
    let out = capz(env).current_dir(support::repo_root()).args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

const LABELLED: &str = "tests/fixtures/validate-targets/labelled-admin-secret.yaml";
const PREVIEW: &str = "tests/fixtures/convert-aso/preview-cluster.yaml";

/// The label on the admin kubeconfig Secret is ASO v2.20.0's (v1.28): valid there, an unknown field on v1.27; the
/// run fails (exit 1) because one target rejects it, and the finding says which.
#[test]
fn a_finding_on_one_target_says_so_and_fails_the_run() {
    let alone = run(&[], &["validate", "--capz-version", "v1.28", LABELLED]);
    assert_eq!(alone.code, Some(0), "{}{}", alone.stdout, alone.stderr);
    let old = run(&[], &["validate", "--capz-version", "v1.27", LABELLED]);
    assert_eq!(old.code, Some(1), "{}{}", old.stdout, old.stderr);

    let both = run(&[], &["validate", "--capz-version", "v1.27,v1.28", LABELLED]);
    assert_eq!(both.code, Some(1), "{}{}", both.stdout, both.stderr);
    insta::assert_snapshot!("validate_targets_text", both.stdout);
    assert!(both.stderr.contains("checked against CAPZ v1.27 and v1.28\n"), "{}", both.stderr);
    assert!(both.stderr.contains("note: CAPZ v1.28 is a provisional target"), "{}", both.stderr);
    // Every finding of the v1.27 run is there, the ones v1.28 does not share qualified.
    for line in old.stdout.lines().filter(|line| line.contains("error")) {
        let rule_at = line.rfind(" [").unwrap();
        let qualified = format!("{} (on v1.27; not on v1.28){}", &line[..rule_at], &line[rule_at..]);
        assert!(both.stdout.lines().any(|l| l == line || l == qualified), "{line}\nin:\n{}", both.stdout);
    }
    // The order of the list does not change the verdict.
    let reversed = run(&[], &["validate", "--capz-version", "v1.28,v1.27", LABELLED]);
    assert_eq!(reversed.code, Some(1));
    assert!(reversed.stdout.contains("(on v1.27; not on v1.28)"), "{}", reversed.stdout);
}

/// Valid on v1.26 (ASO v2.18 serves v1api20240402preview), not served on v1.27.
#[test]
fn a_version_one_target_no_longer_serves() {
    let both = run(&[], &["validate", "--capz-version", "v1.26,v1.27", "-o", "json", PREVIEW]);
    assert_eq!(both.code, Some(1), "{}", both.stderr);
    let report: Value = serde_json::from_str(&both.stdout).unwrap();
    let targets: Vec<&str> =
        report["targets"].as_array().unwrap().iter().map(|t| t["capzVersion"].as_str().unwrap()).collect();
    assert_eq!(targets, ["v1.26", "v1.27"]);
    assert!(report.get("target").is_none(), "one target or several: {report}");
    let findings = report["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["targets"].is_array()), "{findings:?}");
    let not_served = findings
        .iter()
        .find(|f| f["rule"] == "api-version" && f["severity"] == "error")
        .unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!(not_served["targets"], serde_json::json!(["v1.27"]));
    let message = not_served["message"].as_str().unwrap();
    assert!(
        message.contains("ASO v2.19 that CAPZ v1.27") && message.ends_with("(on v1.27; not on v1.26)"),
        "{message}"
    );
    let object = &report["resources"].as_array().unwrap()[0];
    assert_eq!(object["status"], "invalid", "invalid on one target is invalid: {object}");
    // One target: the report's `target` as before, no `targets` on findings.
    let one = run(&[], &["validate", "--capz-version", "v1.26", "-o", "json", PREVIEW]);
    let one: Value = serde_json::from_str(&one.stdout).unwrap();
    assert_eq!(one["target"]["capzVersion"], "v1.26");
    assert!(one["findings"].as_array().unwrap().iter().all(|f| f.get("targets").is_none()));
}

#[test]
fn sarif_results_carry_their_targets() {
    let both = run(&[], &["validate", "--capz-version", "v1.27,v1.28", "-o", "sarif", LABELLED]);
    assert_eq!(both.code, Some(1), "{}", both.stderr);
    let log: Value = serde_json::from_str(&both.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let labels = results
        .iter()
        .find(|r| r["message"]["text"].as_str().unwrap().contains("adminCredentials/labels"))
        .unwrap_or_else(|| panic!("{results:?}"));
    assert_eq!(labels["properties"]["targets"], serde_json::json!(["v1.27"]));
    assert!(results.iter().all(|r| r["properties"]["targets"].is_array()), "{results:?}");
}

/// `CAPZ_VERSION` may hold the list too; each target once; a bad entry is a usage error naming it.
#[test]
fn the_list_from_the_environment_and_bad_lists() {
    let from_env = run(&[("CAPZ_VERSION", "v1.27, v1.28")], &["validate", LABELLED]);
    assert_eq!(from_env.code, Some(1), "{}", from_env.stderr);
    assert!(from_env.stderr.contains("checked against CAPZ v1.27 and v1.28"), "{}", from_env.stderr);
    let twice = run(&[], &["validate", "--capz-version", "v1.28,1.28", LABELLED]);
    assert_eq!(twice.code, Some(0), "one target, named twice: {}", twice.stderr);
    assert!(!twice.stderr.contains("checked against"), "{}", twice.stderr);

    let unknown = run(&[], &["validate", "--capz-version", "v1.27,v1.25", LABELLED]);
    assert_eq!(unknown.code, Some(2));
    assert!(unknown.stdout.is_empty());
    assert!(
        unknown.stderr.starts_with("error: --capz-version v1.27,v1.25: CAPZ version `v1.25` is not supported"),
        "{}",
        unknown.stderr
    );
    let empty = run(&[], &["validate", "--capz-version", "v1.27,", LABELLED]);
    assert_eq!(empty.code, Some(2));
    assert!(empty.stderr.contains("an empty entry"), "{}", empty.stderr);
}

/// A cluster runs one CAPZ, a change is reviewed against one target, and the other commands check against one.
#[test]
fn several_targets_only_where_they_make_sense() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out").display().to_string();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "validate".into(),
            "--capz-version".into(),
            "v1.27,v1.28".into(),
            "--crds-from-cluster".into(),
            LABELLED.into(),
        ],
        vec![
            "validate".into(),
            "--capz-version".into(),
            "v1.27,v1.28".into(),
            "--base".into(),
            "main".into(),
            ".".into(),
        ],
        vec!["convert".into(), "--aso".into(), "--capz-version".into(), "v1.27,v1.28".into(), PREVIEW.into()],
        vec![
            "render".into(),
            "aks-aso".into(),
            "--capz-version".into(),
            "v1.27,v1.28".into(),
            "--values".into(),
            example("aks-aso.values.yaml"),
        ],
        vec!["plan".into(), "--capz-version".into(), "v1.27,v1.28".into(), "-f".into(), LABELLED.into()],
        vec![
            "migrate".into(),
            "-f".into(),
            LABELLED.into(),
            "--capz-version".into(),
            "v1.27,v1.28".into(),
            "--out-dir".into(),
            out,
        ],
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let refused = run(&[], &args);
        assert_eq!(refused.code, Some(2), "{args:?}: {}{}", refused.stdout, refused.stderr);
        assert!(refused.stdout.is_empty(), "{args:?}: {}", refused.stdout);
        let said = &refused.stderr;
        assert!(
            said.contains("only `kubectl capz validate` judges a run against several")
                || said.contains("a cluster runs one CAPZ")
                || said.contains("--base reviews a change against one CAPZ target"),
            "{args:?}: {said}"
        );
    }
    assert!(!dir.path().join("out").exists());
    let env = run(&[("CAPZ_VERSION", "v1.27,v1.28")], &["convert", "--aso", PREVIEW]);
    assert_eq!(env.code, Some(2));
    assert!(
        env.stderr.contains("CAPZ_VERSION=v1.27,v1.28: this command checks against one CAPZ target"),
        "{}",
        env.stderr
    );
}

/// `(rule, severity, source, line, path, message)` of a finding, its message without the targets qualifier.
type Key = (String, String, String, u64, String, String);

fn key(finding: &Value, message: &str) -> Key {
    let text = |field: &str| finding[field].as_str().unwrap_or_default().to_string();
    (
        text("rule"),
        text("severity"),
        text("source"),
        finding["line"].as_u64().unwrap(),
        text("path"),
        message.to_string(),
    )
}

/// The message of a multi-target finding without what the merge added (` (on v1.27; not on v1.28)`, ` (on v1.28)`).
fn unqualified(message: &str) -> &str {
    match message.rfind(" (on v") {
        Some(at) if message.ends_with(')') => &message[..at],
        _ => message,
    }
}

/// On real repository shapes (ASO's samples, a ClusterClass repository, the Flux tree) and every target: the findings
/// of one run against all targets that hold on a target are exactly those of the run against that target alone.
#[test]
fn several_targets_are_each_targets_run() {
    let targets = ["v1.26", "v1.27", "v1.28"];
    for path in [
        "tests/fixtures/repos/aso-samples",
        "tests/fixtures/repos/clusterclass",
        "tests/fixtures/repos/flux",
        LABELLED,
        PREVIEW,
    ] {
        let all = run(&[], &["validate", "-o", "json", "--capz-version", &targets.join(","), path]);
        assert!(matches!(all.code, Some(0 | 1)), "{path}: {}", all.stderr);
        assert!(all.stderr.contains("checked against CAPZ v1.26, v1.27 and v1.28\n"), "{}", all.stderr);
        let merged: Value = serde_json::from_str(&all.stdout).unwrap();
        let mut any_exit_1 = false;
        for target in targets {
            let one = run(&[], &["validate", "-o", "json", "--capz-version", target, path]);
            any_exit_1 |= one.code == Some(1);
            let single: Value = serde_json::from_str(&one.stdout).unwrap();
            let mut expected: Vec<Key> =
                single["findings"].as_array().unwrap().iter().map(|f| key(f, f["message"].as_str().unwrap())).collect();
            let mut found: Vec<Key> = merged["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["targets"].as_array().unwrap().iter().any(|t| t == target))
                .map(|f| key(f, unqualified(f["message"].as_str().unwrap())))
                .collect();
            expected.sort();
            found.sort();
            assert_eq!(found, expected, "{path} on {target}");
        }
        // Exit 1 exactly when some target has an error.
        assert_eq!(all.code == Some(1), any_exit_1, "{path}");
    }
}
