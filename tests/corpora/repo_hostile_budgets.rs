//! Repository mode on hostile repositories, as a pull request from a fork could make them: control characters and CI
//! workflow commands in file names, object names, kinds, field names, values and tools' messages reach no output raw;
//! values whose provenance is a Secret never show; YAML alias bombs, huge documents, charts that allocate or print
//! without bound and slow charts stay within the run's budgets, each source they stop counted as not built. Every
//! test asserts the exact outcome (the escaped text, the masked value, the refusal, the child's peak memory from its
//! rusage), never a time.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::ffi::OsString;
use std::path::Path;
use std::process::Output;

use capz::escape::is_unsafe_char;
use capz::source::{self, Budget, Limits, RepositoryOptions};
use serde_json::Value;

/// `PATH` with tools/helm/bin (helm v3.18.6) first.
fn path_with_helm() -> OsString {
    let dir = support::repo_root().join("tools/helm/bin");
    assert!(dir.join("helm").is_file(), "helm is missing from {}: run tools/helm/build.sh", dir.display());
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

fn capz(args: &[&str], cwd: &Path) -> Output {
    capz_command().current_dir(cwd).env("PATH", path_with_helm()).args(args).output().unwrap()
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn json_report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}\nstdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr)))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether a line would be a GitHub Actions workflow command (`::` after leading white space, as the runner trims
/// it) or carries a logging command GitHub Actions or Azure Pipelines reads anywhere in a line.
fn is_command(line: &str) -> bool {
    line.trim_start_matches(char::is_whitespace).starts_with("::") || line.contains("##[") || line.contains("##vso[")
}

/// Asserts that no line of `output` is a CI command (except, with `github`, the workflow commands of `-o github`
/// itself, one per finding) and that no character a terminal or CI log acts on is there raw.
fn assert_log_safe(what: &str, output: &str, github: bool) {
    for line in output.split('\n') {
        assert!(!line.chars().any(is_unsafe_char), "{what}: raw control character in {line:?}");
        if github && line.starts_with("::") {
            let command = line.split_once(' ').map_or(line, |(command, _)| command);
            assert!(["::error", "::warning", "::notice"].contains(&command), "{what}: {line:?}");
            let data = &line[2..].split_once("::").unwrap().1;
            assert!(!data.contains("##[") && !data.contains("##vso["), "{what}: {line:?}");
            continue;
        }
        assert!(!is_command(line), "{what}: a CI command in {line:?}");
    }
}

/// `text` as a YAML double-quoted scalar, every character outside printable ASCII as an escape (YAML allows no raw
/// C1 control).
fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A repository whose file names, object names, kinds, field names, values, Helm `fail` message and kustomize
/// error carry every kind of control character and CI command.
fn hostile_repository(root: &Path) {
    let hostile =
        "\u{1b}[31m\u{7}\u{0}\r\n::add-mask::x\u{85}\u{9b}2J\u{2028}\u{202e} ##[add-mask]y ##vso[task.complete]";
    let yaml_hostile = yaml_quoted(hostile);
    // A file name with ESC, BEL, a line break and a workflow command.
    let object = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {yaml_hostile}\n  labels:\n    team: {yaml_hostile}\n{}: 1\n",
        yaml_quoted(&format!("field{hostile}"))
    );
    write(root, "clusters/evil\u{1b}]0;title\u{7}\n::error::name.yaml", &object);
    write(root, "::error file=a.yaml,line=1::pwned.yaml", &object);
    let kind = yaml_quoted(&format!("Kind{hostile}"));
    write(root, "clusters/kind.yaml", &format!("apiVersion: example.com/v1\nkind: {kind}\nmetadata:\n  name: k\n"));
    // helm prints `fail`'s message as it is, control characters and all.
    write(root, "charts/failing/Chart.yaml", "apiVersion: v2\nname: failing\nversion: 0.1.0\n");
    write(
        root,
        "charts/failing/templates/fail.yaml",
        "{{ fail \"helm says\\n::error::from helm \\x1b[31m ##[add-mask]m\\r\\n\\u2028::stop-commands::t\" }}\n",
    );
    // kustomize quotes a patch it cannot read (it escapes ESC itself, not `##[`).
    write(root, "overlays/bad/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
    write(
        root,
        "overlays/bad/kustomization.yaml",
        "resources: [cm.yaml]\npatches:\n- patch: \"::error::kustomize says \\u001b[31m\\n::add-mask::k ##[add-mask]z\"\n",
    );
}

#[test]
fn control_characters_and_workflow_commands_from_the_repository_reach_no_output_raw() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    hostile_repository(root);
    let mut all = String::new();
    for format in ["text", "json", "yaml", "junit", "sarif", "github"] {
        let output = capz(&["validate", "-v", "--strict", "-o", format, "."], root);
        assert_eq!(output.status.code(), Some(1), "{format}: {}", text(&output.stderr));
        assert_log_safe(&format!("-o {format} stdout"), &text(&output.stdout), format == "github");
        assert_log_safe(&format!("-o {format} stderr"), &text(&output.stderr), false);
        all.push_str(&text(&output.stdout));
        all.push_str(&text(&output.stderr));
    }
    // The file whose name is a workflow command, given as a path: its name starts the lines of the text format.
    for format in ["text", "junit", "github"] {
        let output = capz(&["validate", "-o", format, "::error file=a.yaml,line=1::pwned.yaml"], root);
        assert_eq!(output.status.code(), Some(1), "{format}: {}", text(&output.stderr));
        assert_log_safe(&format!("-o {format} of one file"), &text(&output.stdout), format == "github");
        assert_log_safe(&format!("-o {format} of one file, stderr"), &text(&output.stderr), false);
        all.push_str(&text(&output.stdout));
    }
    // An error (exit 2) quoting a path.
    let output = capz(&["validate", "clusters/missing\n::error::gone\u{1b}[0m.yaml"], root);
    assert_eq!(output.status.code(), Some(2));
    assert_log_safe("an error", &text(&output.stderr), false);
    // An error may span lines (a list of deletions): each line is escaped and none starts a command.
    assert!(text(&output.stderr).contains("missing\n\\u{3a}:error::gone\\u{1b}[0m.yaml"), "{}", text(&output.stderr));
    // Not vacuous: the hostile texts are all there, escaped.
    for shown in [
        "\\u{3a}:error file=a.yaml,line=1::pwned.yaml:",
        "evil\\u{1b}]0;title\\u{7}\\n::error::name.yaml",
        "\\u{1b}[31m\\u{7}\\0\\r\\n::add-mask::x\\u{85}\\u{9b}2J\\u{2028}\\u{202e} #\\u{23}[add-mask]y #\\u{23}vso[task.complete]",
        "Kind\\u{1b}[31m",
        "helm says\\n::error::from helm \\u{1b}[31m #\\u{23}[add-mask]m\\r\\n\\u{2028}::stop-commands::t",
        "kustomize says",
        "#\\u{23}[add-mask]z",
        // -o github: GitHub's own encoding of line breaks, then the escapes.
        "helm says%0A::error::from helm \\u{1b}[31m #\\u{23}[add-mask]m%0D%0A\\u{2028}::stop-commands::t",
        // JSON: the data is exact, the escapes JSON's own.
        "\\u001b[31m\\u0007\\u0000\\r\\n::add-mask::x\\u0085\\u009b2J\\u2028\\u202e #\\u0023[add-mask]y",
    ] {
        assert!(all.contains(shown), "{shown:?} is not in the output:\n{all}");
    }
}

#[test]
fn values_from_secrets_are_masked_in_findings_and_in_tools_messages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Flux substitutes a Secret's value into a field the schema rejects.
    write(
        root,
        "flux/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n\
         spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: repo\n  \
         postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: vars\n",
    );
    // `TIER: Hunter Two Tier Value` in base64 (a label value the API server rejects: spaces).
    write(
        root,
        "flux/vars.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: flux-system\ndata:\n  TIER: SHVudGVyIFR3byBUaWVyIFZhbHVl\n",
    );
    write(
        root,
        "apps/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: apps\n  labels:\n    tier: ${TIER}\nspec:\n  ports:\n    - port: 80\n",
    );
    // A HelmRelease takes its values from a Secret; the chart's `fail` quotes one of them.
    write(
        root,
        "flux/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: pw\n  namespace: flux-system\n\
         spec:\n  interval: 10m\n  chart:\n    spec:\n      chart: ./charts/pw\n      sourceRef:\n        kind: GitRepository\n        \
         name: repo\n  valuesFrom:\n    - kind: Secret\n      name: pw-values\n",
    );
    write(
        root,
        "flux/pw-values.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pw-values\n  namespace: flux-system\nstringData:\n  values.yaml: |\n    \
         password: S3cretPassw0rdValue\n",
    );
    write(root, "charts/pw/Chart.yaml", "apiVersion: v2\nname: pw\nversion: 0.1.0\n");
    write(root, "charts/pw/values.yaml", "password: \"\"\n");
    write(
        root,
        "charts/pw/templates/cm.yaml",
        "{{- if .Values.password }}{{ fail (printf \"the password %s is not allowed\" .Values.password) }}{{ end }}\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pw\n",
    );
    // A Secret's own value, copied into another object's label (which the API server rejects: spaces).
    write(
        root,
        "plain/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: apps\nstringData:\n  token: Top Secret Label Value\n",
    );
    write(
        root,
        "plain/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n  namespace: apps\n  labels:\n    token: Top Secret Label Value\n",
    );
    let secrets =
        ["Hunter Two Tier Value", "S3cretPassw0rdValue", "Top Secret Label Value", "SHVudGVyIFR3byBUaWVyIFZhbHVl"];
    let json = capz(&["validate", "-o", "json", "."], root);
    let report = json_report(&json);
    let mut outputs = vec![text(&json.stdout), text(&json.stderr)];
    for format in ["text", "github", "sarif", "junit", "yaml"] {
        let output = capz(&["validate", "-o", format, "."], root);
        outputs.push(text(&output.stdout));
        outputs.push(text(&output.stderr));
    }
    for output in &outputs {
        for secret in secrets {
            assert!(!output.contains(secret), "{secret} shows:\n{output}");
        }
    }
    let findings = report["findings"].as_array().unwrap();
    let message_at = |path: &str, object: &str| -> String {
        let finding = findings.iter().find(|f| f["path"] == path && f["object"] == object);
        finding.unwrap_or_else(|| panic!("no finding at {object} {path}: {findings:#?}"))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(message_at("/metadata/labels/tier", "Service/web").contains("\"***\""), "{findings:#?}");
    assert!(message_at("/metadata/labels/token", "ConfigMap/labelled").contains("***"), "{findings:#?}");
    let helm = findings
        .iter()
        .find(|f| f["rule"] == "repository-source" && f["source"].as_str().unwrap().ends_with("flux/release.yaml"))
        .unwrap_or_else(|| panic!("no note about the HelmRelease: {findings:#?}"));
    assert!(helm["message"].as_str().unwrap().contains("the password *** is not allowed"), "{helm:#}");
    let not_built = report["notBuilt"].as_array().unwrap();
    assert!(
        not_built.iter().any(|entry| entry["reason"].as_str().unwrap().contains("the password *** is not allowed"))
    );
}

/// A document of "billion laughs": lists of ten aliases of the list before, five deep, then seven aliases of the
/// last: ~900,000 nodes from ~300 bytes, within serde-saphyr's own budget of a document (a million replayed events,
/// at most ten aliases per anchor).
fn alias_bomb(name: &str) -> String {
    let mut text = format!("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: {name}\nspec:\n");
    text.push_str(&format!("  l0: &l0 [{}]\n", ["x"; 10].join(", ")));
    for level in 1..5 {
        text.push_str(&format!("  l{level}: &l{level} [{}]\n", vec![format!("*l{}", level - 1); 10].join(", ")));
    }
    text.push_str(&format!("  bomb: [{}]\n", ["*l4"; 7].join(", ")));
    text
}

#[test]
fn alias_bombs_across_documents_and_files_stay_within_the_budgets_of_a_file_and_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    for file in 0..10 {
        let documents: Vec<String> = (0..10).map(|i| alias_bomb(&format!("f{file}-b{i}"))).collect();
        write(dir.path(), &format!("bombs/{file}.yaml"), &documents.join("---\n"));
    }
    let output = capz(&["validate", "-o", "json", "."], dir.path());
    let report = json_report(&output);
    let mut read: Vec<&str> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|resource| resource["object"].as_str())
        .filter(|object| object.starts_with("Bomb/"))
        .collect();
    read.sort();
    // Two documents per file (a file's 2,000,000), four files (the run's 8,000,000); nothing with aliases after.
    assert_eq!(
        read,
        [
            "Bomb/f0-b0",
            "Bomb/f0-b1",
            "Bomb/f1-b0",
            "Bomb/f1-b1",
            "Bomb/f2-b0",
            "Bomb/f2-b1",
            "Bomb/f3-b0",
            "Bomb/f3-b1"
        ]
    );
    let refused: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "yaml-too-large").collect();
    assert_eq!(refused.len(), 92);
    let messages = |file: &str| -> Vec<String> {
        refused
            .iter()
            .filter(|f| f["source"].as_str().unwrap().ends_with(file))
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect()
    };
    let first = messages("bombs/0.yaml");
    assert_eq!(first.len(), 8);
    assert!(
        first[0].ends_with("the documents of one file past the limit of 2000000 nodes; it is not read"),
        "{first:?}"
    );
    assert!(first[1].starts_with("what aliases (*name) repeat in the documents of this file reached the limit"));
    let fifth = messages("bombs/4.yaml");
    assert!(fifth[0].ends_with("all the documents of this run past the limit of 8000000 nodes; it is not read"));
    assert!(fifth[1..].iter().all(|m| m.starts_with("what aliases (*name) repeat in all the documents of this run")));
}

#[test]
fn a_document_over_the_limit_is_refused_and_the_rest_of_its_file_read() {
    let dir = tempfile::tempdir().unwrap();
    let huge = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  \
         name: huge\ndata:\n  a: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n",
        "x".repeat(20 << 20)
    );
    write(dir.path(), "big.yaml", &huge);
    let report = json_report(&capz(&["validate", "-o", "json", "."], dir.path()));
    let objects: Vec<&str> =
        report["resources"].as_array().unwrap().iter().filter_map(|r| r["object"].as_str()).collect();
    assert_eq!(objects, ["ConfigMap/before", "", "ConfigMap/after"]);
    let finding = &report["findings"][0];
    assert_eq!((finding["rule"].as_str(), finding["line"].as_u64()), (Some("yaml-too-large"), Some(6)));
    assert!(
        finding["message"].as_str().unwrap().starts_with("the document is 20.1 MiB of YAML, over the limit of 16 MiB")
    );
}

/// A chart of one template.
fn chart(root: &Path, name: &str, template: &str) {
    write(root, &format!("charts/{name}/Chart.yaml"), &format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n"));
    write(root, &format!("charts/{name}/templates/t.yaml"), template);
}

fn not_built(report: &Value) -> Vec<(String, String)> {
    report["notBuilt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| (entry["what"].as_str().unwrap().to_string(), entry["reason"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn a_chart_that_allocates_past_the_memory_limit_is_not_built_and_fails_a_strict_run() {
    let dir = tempfile::tempdir().unwrap();
    // 1.6 GB in one string: more than a tool may hold (1 GiB), refused at once. (The tool runner's own tests hold
    // a chart that grows its output step by step to its memory limit, its peak read from the child's rusage.)
    chart(dir.path(), "bomb", "data: {{ repeat 200000000 \"xxxxxxxx\" }}\n");
    chart(dir.path(), "fine", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n");
    let output = capz(&["validate", "--strict", "-o", "json", "."], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report = json_report(&output);
    assert_eq!(
        not_built(&report),
        [(
            "Helm chart ./charts/bomb".to_string(),
            "chart ./charts/bomb could not be rendered: `helm` needed more than 1 GiB of memory and was stopped \
             (--strict: a source that is not built fails the run)"
                .to_string()
        )]
    );
    assert!(report["resources"].as_array().unwrap().iter().any(|r| r["object"] == "ConfigMap/fine"));
    // Without --strict it is a warning, counted.
    let output = capz(&["validate", "-o", "json", "."], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(json_report(&output)["summary"]["notBuilt"], 1);
    assert!(
        text(&output.stderr)
            .contains("1 source not built, so what they would apply is not checked: Helm chart ./charts/bomb")
    );
}

#[test]
fn slow_charts_stop_at_the_runs_deadline_not_one_limit_each() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["slow-a", "slow-b", "slow-c"] {
        // Ten billion empty iterations over small lists: hours of helm each, in little memory.
        chart(dir.path(), name, "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n");
    }
    let output = capz(&["validate", "--strict", "--timeout", "3s", "-o", "json", "."], dir.path());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let strict = " (--strict: a source that is not built fails the run)";
    assert_eq!(
        not_built(&json_report(&output)),
        [
            (
                "Helm chart ./charts/slow-a".to_string(),
                format!(
                    "chart ./charts/slow-a could not be rendered: `helm` was stopped: the tools of this run reached its \
                     time limit (--timeout 3s){strict}"
                )
            ),
            (
                "Helm chart ./charts/slow-b".to_string(),
                format!(
                    "chart ./charts/slow-b could not be rendered: `helm` was not run: the tools of this run reached its \
                     time limit (--timeout 3s){strict}"
                )
            ),
            (
                "Helm chart ./charts/slow-c".to_string(),
                format!(
                    "chart ./charts/slow-c could not be rendered: `helm` was not run: the tools of this run reached its \
                     time limit (--timeout 3s){strict}"
                )
            ),
        ]
    );
    let output = capz(&["validate", "--timeout", "3 parsecs", "."], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).starts_with("error: --timeout: invalid duration `3 parsecs`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn what_the_tools_of_a_run_print_is_capped_for_the_whole_run() {
    // Two kustomizations printing ~700 KB each, in a run whose tools may print 1 MiB in all: the first is built, the
    // second stopped.
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        let data = "x".repeat(700 << 10);
        write(
            dir.path(),
            &format!("{name}/cm.yaml"),
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  big: {data}\n"),
        );
        write(dir.path(), &format!("{name}/kustomization.yaml"), "resources: [cm.yaml]\nnamePrefix: p-\n");
    }
    let budget = Budget::new(Limits { output: 1 << 20, ..Limits::default() });
    let options = RepositoryOptions { budget: budget.clone(), ..RepositoryOptions::default() };
    let repository = source::load(dir.path(), &options).unwrap();
    let built: Vec<String> =
        repository.built.iter().flat_map(|b| b.documents.iter().map(|d| d.display_name())).collect();
    assert_eq!(built, ["ConfigMap/p-a"]);
    let reasons: Vec<&str> = repository.not_built.iter().map(|entry| entry.reason.as_str()).collect();
    assert_eq!(reasons.len(), 1);
    assert!(
        reasons[0].ends_with("was stopped: the tools of this run printed 1 MiB in all, their limit"),
        "{reasons:?}"
    );
    let usage = budget.usage();
    assert_eq!(usage.runs, 2);
    assert!(usage.output > 700 << 10 && usage.output <= (1 << 20) + (64 << 10), "{usage:?}");
}
