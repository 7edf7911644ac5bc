//! Replays every scenario of tests/fixtures/envsubst/cli-cases.json (recorded from the real
//! `clusterctl generate cluster --from`, v1.14.2, by tools/clusterctl-oracle/regen-cli.sh) against
//! `kubectl capz render --from`:
//! - `--list-variables`: byte-identical stdout;
//! - rendering: the same objects, in the same order, with the same keys in the same order and the
//!   same values (the YAML text may quote differently: our emitter is not go-yaml);
//! - errors: clusterctl's message appears in our stderr, and we exit 2.

use crate::support::cli_runner::capz_command;
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/envsubst/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Equal values with equal key order everywhere (serde_json's map equality ignores order).
fn same_in_order(a: &Value, b: &Value, path: &str, diffs: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let xk: Vec<&String> = x.keys().collect();
            let yk: Vec<&String> = y.keys().collect();
            if xk != yk {
                diffs.push(format!("{path}: keys {xk:?} vs {yk:?}"));
                return;
            }
            for k in xk {
                same_in_order(&x[k], &y[k], &format!("{path}/{k}"), diffs);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same_in_order(p, q, &format!("{path}/{i}"), diffs);
            }
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() && x.is_f64() == y.is_f64() => {}
        _ if a == b => {}
        _ => diffs.push(format!("{path}: {a} vs {b}")),
    }
}

fn documents(text: &str, source: &str) -> Vec<Value> {
    capz::manifest::parse_documents(text, source)
        .unwrap_or_else(|err| panic!("{source} does not parse: {err}\n{text}"))
        .into_iter()
        .map(|d| d.value)
        .collect()
}

#[test]
fn render_from_matches_recorded_clusterctl_runs() {
    let text = std::fs::read_to_string(fixture("cli-cases.json")).expect("recorded cases exist");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() >= 41, "recorded cases went missing");
    let home_config_cases = cases.iter().filter(|c| c["home_files"].is_object()).count();
    assert!(home_config_cases >= 10, "the cases with a clusterctl config file in HOME went missing");
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let mut cmd = capz_command();
        cmd.env_clear().args(["render", "--from"]).arg(fixture(case["template"].as_str().unwrap()));
        cmd.arg(case["cluster_name"].as_str().unwrap()).args(["-n", case["namespace"].as_str().unwrap()]);
        if let Some(version) = case["kubernetes_version"].as_str() {
            cmd.args(["--kubernetes-version", version]);
        }
        if let Some(config) = case["config"].as_str() {
            let path = scratch.path().join(format!("clusterctl-{i}.yaml"));
            std::fs::write(&path, config).unwrap();
            cmd.arg("--config").arg(&path);
        }
        if case["list_variables"].as_bool().unwrap() {
            cmd.arg("--list-variables");
        }
        for flag in ["worker_machine_count", "control_plane_machine_count"] {
            if let Some(count) = case[flag].as_i64() {
                cmd.arg(format!("--{}", flag.replace('_', "-"))).arg(count.to_string());
            }
        }
        // A HOME of its own per case, with the files clusterctl found there (its config file).
        let home = scratch.path().join(format!("home-{i}"));
        std::fs::create_dir_all(&home).unwrap();
        if let Some(files) = case["home_files"].as_object() {
            for (relative, content) in files {
                let path = home.join(relative);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, content.as_str().unwrap()).unwrap();
            }
        }
        cmd.env("HOME", &home);
        match case["xdg_config_home"].as_str() {
            None => {
                cmd.env("XDG_CONFIG_HOME", &home);
            }
            Some("") => {}
            Some(relative) => {
                cmd.env("XDG_CONFIG_HOME", home.join(relative));
            }
        }
        for (k, v) in case["env"].as_object().unwrap() {
            cmd.env(k, v.as_str().unwrap());
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let expected_stdout = case["stdout"].as_str().unwrap();
        if case["exit_code"].as_i64() != Some(0) {
            let message = case["stderr"].as_str().unwrap().trim_end().trim_start_matches("Error: ");
            if out.status.code() != Some(2) || !stderr.contains(message) || !stdout.is_empty() {
                failures.push(format!(
                    "{name}: clusterctl failed with {message:?}; we exited {:?} with {stderr:?}",
                    out.status.code()
                ));
            }
            continue;
        }
        if !out.status.success() {
            failures.push(format!("{name}: clusterctl succeeded; we failed: {stderr}"));
            continue;
        }
        if case["list_variables"].as_bool().unwrap() {
            if stdout != expected_stdout {
                failures.push(format!("{name}: --list-variables\nclusterctl:\n{expected_stdout}\nours:\n{stdout}"));
            }
            continue;
        }
        let theirs = documents(expected_stdout, "clusterctl");
        let ours = documents(&stdout, "kubectl-capz");
        if theirs.len() != ours.len() {
            failures.push(format!("{name}: {} objects from clusterctl, {} from us", theirs.len(), ours.len()));
            continue;
        }
        let mut diffs = Vec::new();
        for (j, (t, o)) in theirs.iter().zip(&ours).enumerate() {
            same_in_order(t, o, &format!("[{j}]"), &mut diffs);
        }
        if !diffs.is_empty() {
            failures.push(format!("{name}:\n  {}", diffs.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios differ from clusterctl:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
