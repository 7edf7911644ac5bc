//! Picking the CAPZ release a run checks against, through the CLI: `--capz-version` > `CAPZ_VERSION` >
//! `.kubectl-capz.yaml` (nearest above the input) > the default, on every command that takes it; the config file's
//! rules, CRD folders and its errors. (The cluster's CAPZ, between the file and the default: tests/live/live_validate.rs.)

use crate::support::{self, cli_runner};

use std::path::{Path, PathBuf};

use cli_runner::capz;

const RENDER_ENV: &[(&str, &str)] = &[
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "westeurope"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
];

fn repo(path: &str) -> PathBuf {
    support::repo_root().join(path)
}

/// A repository in a temporary directory: `clusters/demo.yaml` (a valid aks-aso bundle) and, if given, the config.
fn repository(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("clusters")).unwrap();
    std::fs::copy(repo("tests/fixtures/lint/aks-aso.yaml"), dir.path().join("clusters/demo.yaml")).unwrap();
    if let Some(config) = config {
        std::fs::write(dir.path().join(".kubectl-capz.yaml"), config).unwrap();
    }
    dir
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> Run {
    let out = capz(env).current_dir(cwd).args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The `-v` lines of a run (`target: ...`, `config: ...`), the temporary directory shown as `[REPO]`.
fn verbose_lines(run: &Run, dir: &Path) -> String {
    run.stderr
        .lines()
        .filter(|line| line.starts_with("target: ") || line.starts_with("config: "))
        .map(|line| line.replace(&dir.display().to_string(), "[REPO]") + "\n")
        .collect()
}

#[test]
fn flag_beats_environment_beats_file_beats_default() {
    let pinned = repository(Some("# the release our management clusters run\ncapzVersion: v1.26\n"));
    let bare = repository(None);
    /// What a case shows, in which repository, with which environment and flags.
    type Case<'a> = (&'a str, &'a tempfile::TempDir, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 5] = [
        ("nothing pins: the default", &bare, &[], &[]),
        ("the file", &pinned, &[], &[]),
        ("an empty CAPZ_VERSION is unset: the file", &pinned, &[("CAPZ_VERSION", "")], &[]),
        ("CAPZ_VERSION over the file", &pinned, &[("CAPZ_VERSION", "1.27.0")], &[]),
        ("--capz-version over CAPZ_VERSION", &pinned, &[("CAPZ_VERSION", "v1.27")], &["--capz-version", "v1.26"]),
    ];
    let mut shown = String::new();
    for (case, dir, env, flags) in cases {
        let mut args = vec!["validate", "-v", "clusters/demo.yaml"];
        args.extend_from_slice(flags);
        let out = run(dir.path(), env, &args);
        assert_eq!(out.code, Some(0), "{case}: {}", out.stderr);
        shown.push_str(&format!("# {case}\n{}", verbose_lines(&out, dir.path())));
    }
    insta::assert_snapshot!("precedence", shown);
}

#[test]
fn every_checking_command_takes_the_target_and_shows_it_with_v() {
    let dir = repository(Some("capzVersion: v1.26\n"));
    let topology = repo("tests/fixtures/topology/custom");
    let classic = repo("tests/fixtures/capz-translation/cases/05-cluster-network.yaml");
    let convert = repo("tests/fixtures/convert/commented.yaml");
    let (class, cluster) = (topology.join("class.yaml"), topology.join("cluster.yaml"));
    let commands: Vec<(&str, Vec<&str>, i32)> = vec![
        ("validate", vec!["validate", "clusters/demo.yaml"], 0),
        ("render", vec!["render", "aks-aso", "demo", "--validate"], 0),
        ("plan", vec!["plan", "-f", class.to_str().unwrap(), "-f", cluster.to_str().unwrap()], 0),
        ("migrate", vec!["migrate", "-f", classic.to_str().unwrap()], 0),
        ("convert", vec!["convert", convert.to_str().unwrap()], 0),
    ];
    for (name, args, code) in commands {
        // The file decides for inputs below it, and for render (no input file) from the current directory.
        let mut with_v = args.clone();
        with_v.push("-v");
        let out = run(dir.path(), RENDER_ENV, &with_v);
        assert_eq!(out.code, Some(code), "{name}: {}", out.stderr);
        let expected = if ["validate", "render"].contains(&name) {
            format!("capzVersion at {}", dir.path().join(".kubectl-capz.yaml:1").display())
        } else {
            // Inputs outside the repository: no config file above them.
            "the default: the newest published CAPZ release".to_string()
        };
        let release = if expected.starts_with("capzVersion") { "v1.26 (v1.26.0" } else { "v1.27 (v1.27.0" };
        assert!(out.stderr.contains(&format!("target: CAPZ {release}")), "{name}: {}", out.stderr);
        assert!(out.stderr.contains(&expected), "{name}: {}", out.stderr);
        // The flag on each of them, and nothing said without -v.
        let mut flagged = args.clone();
        flagged.extend(["--capz-version", "v1.26", "-v"]);
        let out = run(dir.path(), RENDER_ENV, &flagged);
        assert_eq!(out.code, Some(code), "{name}: {}", out.stderr);
        assert!(out.stderr.contains("target: CAPZ v1.26 (v1.26.0, CAPI v1.13.3, ASO v2.18.0), from --capz-version"));
        let quiet = run(dir.path(), RENDER_ENV, &args);
        assert!(!quiet.stderr.contains("target:"), "{name}: {}", quiet.stderr);
        // A release we do not support is a usage error, before anything is read.
        let mut bad = args.clone();
        bad.extend(["--capz-version", "v1.25"]);
        let out = run(dir.path(), RENDER_ENV, &bad);
        assert_eq!(out.code, Some(2), "{name}: {}", out.stderr);
        assert_eq!(
            out.stderr,
            "error: --capz-version v1.25: CAPZ version `v1.25` is not supported; supported: v1.28 (provisional), v1.27, v1.26\n",
            "{name}"
        );
        assert!(out.stdout.is_empty(), "{name}: {}", out.stdout);
    }
    let out = run(dir.path(), &[("CAPZ_VERSION", "main")], &["validate", "clusters/demo.yaml"]);
    assert_eq!(out.code, Some(2));
    assert_eq!(
        out.stderr,
        "error: CAPZ_VERSION=main: CAPZ version `main` is not supported; supported: v1.28 (provisional), v1.27, v1.26\n"
    );
}

#[test]
fn the_nearest_config_file_above_the_input_counts_and_stdin_starts_at_the_current_directory() {
    let dir = repository(Some("capzVersion: v1.27\n"));
    std::fs::write(dir.path().join("clusters/.kubectl-capz.yaml"), "capzVersion: v1.26\n").unwrap();
    let bundle = std::fs::read_to_string(dir.path().join("clusters/demo.yaml")).unwrap();
    let nested = run(dir.path(), &[], &["validate", "-v", "clusters/demo.yaml"]);
    let out = capz(&[]).current_dir(dir.path()).args(["validate", "-v", "-"]).write_stdin(bundle).output().unwrap();
    let stdin = Run { code: out.status.code(), stdout: String::new(), stderr: String::from_utf8(out.stderr).unwrap() };
    assert_eq!((nested.code, stdin.code), (Some(0), Some(0)), "{}{}", nested.stderr, stdin.stderr);
    insta::assert_snapshot!(
        "nearest_file",
        format!(
            "# clusters/demo.yaml\n{}# stdin\n{}",
            verbose_lines(&nested, dir.path()),
            verbose_lines(&stdin, dir.path())
        )
    );
}

#[test]
fn json_reports_carry_the_target_and_its_source() {
    let dir = repository(Some("capzVersion: v1.26\nkubernetesVersion: v1.36.1\n"));
    let out = run(dir.path(), &[], &["validate", "-o", "json", "clusters/demo.yaml"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let shown = report["target"].to_string().replace(&dir.path().display().to_string(), "[REPO]");
    insta::assert_snapshot!("json_target", shown);
}

#[test]
fn the_config_files_rules_sit_under_the_command_line() {
    let dir = repository(None);
    let findings = |dir: &Path, extra: &[&str]| -> Vec<String> {
        let mut args = vec!["validate", "-o", "json", "clusters/demo.yaml"];
        args.extend_from_slice(extra);
        let out = run(dir, &[], &args);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|_| panic!("{}", out.stderr));
        report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
    };
    // capi-v1beta1 is off by default and fires on the fixture's CAPI v1beta1 objects.
    assert!(!findings(dir.path(), &[]).contains(&"capi-v1beta1".to_string()));
    std::fs::write(dir.path().join(".kubectl-capz.yaml"), "rules:\n  enable: [capi-v1beta1]\n").unwrap();
    assert!(findings(dir.path(), &[]).contains(&"capi-v1beta1".to_string()), "the file enables it");
    assert!(!findings(dir.path(), &["--disable", "capi-v1beta1"]).contains(&"capi-v1beta1".to_string()));
    std::fs::write(dir.path().join(".kubectl-capz.yaml"), "rules:\n  disable: [capi-v1beta1]\n").unwrap();
    assert!(findings(dir.path(), &["--enable", "capi-v1beta1"]).contains(&"capi-v1beta1".to_string()));
    assert!(!findings(dir.path(), &[]).contains(&"capi-v1beta1".to_string()));
}

#[test]
fn the_config_files_crd_folders_are_relative_to_it() {
    let dir = repository(Some("crds: [vendor/crds]\n"));
    std::fs::create_dir_all(dir.path().join("vendor/crds")).unwrap();
    std::fs::copy(repo("tests/fixtures/validate/crds/widgets.yaml"), dir.path().join("vendor/crds/widgets.yaml"))
        .unwrap();
    std::fs::copy(repo("tests/fixtures/validate/widgets-valid.yaml"), dir.path().join("clusters/widgets.yaml"))
        .unwrap();
    let inside = run(&dir.path().join("clusters"), &[], &["validate", "widgets.yaml"]);
    assert_eq!(inside.code, Some(0), "{}{}", inside.stdout, inside.stderr);
    std::fs::remove_file(dir.path().join(".kubectl-capz.yaml")).unwrap();
    let without = run(dir.path(), &[], &["validate", "clusters/widgets.yaml"]);
    // Without the folder the kind is unknown: not checked (a warning, exit 0), never counted valid.
    assert_eq!(without.code, Some(0), "{}", without.stdout);
    assert!(without.stdout.contains("warning: Widget/a: no schema for Widget"), "{}", without.stdout);
    assert!(
        format!("{}{}", without.stdout, without.stderr).contains(" 0 valid"),
        "{}{}",
        without.stdout,
        without.stderr
    );
}

#[test]
fn bad_config_files_are_usage_errors_naming_file_line_and_key() {
    let cases = [
        "capzVersion: v1.26\ncapz_version: v1.27\n",
        "capzVersion: v1.24\n",
        "kubernetesVersion: v1.30\n",
        "rules:\n  enable:\n    - capz-sytem-pool\n",
        "rules:\n  disable: [schema-missing]\n",
        "crds: [missing]\n",
        "exclude: vendor/\n",
        "capzVersion: [v1.27\n",
    ];
    let mut shown = String::new();
    for text in cases {
        let dir = repository(Some(text));
        let out = run(dir.path(), &[], &["validate", "clusters/demo.yaml"]);
        assert_eq!(out.code, Some(2), "{text}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{text}: {}", out.stdout);
        shown.push_str(&format!("# {text:?}\n{}", out.stderr.replace(&dir.path().display().to_string(), "[REPO]")));
    }
    insta::assert_snapshot!("bad_config", shown);
}

#[test]
fn a_config_file_given_or_refused_replaces_the_trees_own() {
    // The tree's own file (a pull request's) turns a rule off and excludes everything.
    let dir = repository(Some("exclude: [\"**\"]\n"));
    // The rules of the findings and the number of objects read.
    let rules = |args: &[&str]| -> (Vec<String>, usize) {
        let mut all = vec!["validate", "-o", "json"];
        all.extend_from_slice(args);
        all.push(".");
        let out = run(dir.path(), &[], &all);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|_| panic!("{}", out.stderr));
        let rules = report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string());
        (rules.collect(), report["resources"].as_array().unwrap().len())
    };
    assert_eq!(rules(&[]), (Vec::new(), 0), "the tree's own file hides everything");
    // The base branch's file, kept outside the tree: its globs start at the current directory.
    let base = tempfile::tempdir().unwrap();
    let base_file = base.path().join("base.yaml");
    std::fs::write(&base_file, "rules:\n  enable: [capi-v1beta1]\nexclude: [\"vendor/**\"]\n").unwrap();
    let base_file = base_file.display().to_string();
    let (with_base, read) = rules(&["--config", &base_file]);
    assert!(with_base.contains(&"capi-v1beta1".to_string()) && read > 5, "{with_base:?} {read}");
    let (with_none, read_without) = rules(&["--no-config"]);
    assert!(!with_none.contains(&"capi-v1beta1".to_string()) && read_without == read, "{with_none:?}");
    let shown = |args: &[&str]| {
        let mut all = vec!["validate", "-v"];
        all.extend_from_slice(args);
        all.push(".");
        verbose_lines(&run(dir.path(), &[], &all), base.path())
    };
    assert_eq!(shown(&["--no-config"]).lines().last(), Some("config: none read (--no-config)"));
    assert_eq!(shown(&["--config", &base_file]).lines().last(), Some("config: [REPO]/base.yaml"));
    let both = run(dir.path(), &[], &["validate", "--no-config", "--config", &base_file, "."]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
    let missing = run(dir.path(), &[], &["validate", "--config", "absent.yaml", "."]);
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.starts_with("error: cannot read `absent.yaml`"), "{}", missing.stderr);
}

#[test]
fn crds_outside_the_repository_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(repo("tests/fixtures/validate/crds/widgets.yaml"), outside.path().join("widgets.yaml")).unwrap();
    for (config, error) in [
        (
            "crds: [../elsewhere]\n".to_string(),
            "[REPO]/.kubectl-capz.yaml:1: crds[0]: `../elsewhere` is outside the repository (the folder of \
             .kubectl-capz.yaml); only its own folders are read, give others with --crds DIR\n",
        ),
        (
            format!("crds: [{}]\n", outside.path().display()),
            "[REPO]/.kubectl-capz.yaml:1: crds[0]: `[OUTSIDE]` is outside the repository (the folder of \
             .kubectl-capz.yaml); only its own folders are read, give others with --crds DIR\n",
        ),
        (
            "crds: [vendor/link]\n".to_string(),
            "[REPO]/.kubectl-capz.yaml:1: crds: `[REPO]/vendor/link` leads outside the repository (the folder of \
             .kubectl-capz.yaml) through a symlink; only its own folders are read, give others with --crds DIR\n",
        ),
    ] {
        let dir = repository(Some(&config));
        std::fs::create_dir_all(dir.path().join("vendor")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("vendor/link")).unwrap();
        let out = run(dir.path(), &[], &["validate", "clusters/demo.yaml"]);
        assert_eq!(out.code, Some(2), "{config}: {}", out.stderr);
        let shown = out
            .stderr
            .replace(&outside.path().display().to_string(), "[OUTSIDE]")
            .replace(&dir.path().display().to_string(), "[REPO]");
        assert_eq!(shown, format!("error: {error}"), "{config}");
    }
}

/// A Deployment using `schedulingGroup`, a pod field Kubernetes 1.36 has and 1.35 does not.
const SCHEDULING_GROUP_DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: gang
  namespace: default
spec:
  selector:
    matchLabels: {app: gang}
  template:
    metadata:
      labels: {app: gang}
    spec:
      schedulingGroup:
        podGroupName: trainers
      containers:
      - name: worker
        image: registry.example/worker:1.0
";

/// A MutatingAdmissionPolicy of admissionregistration.k8s.io/v1: GA in Kubernetes 1.36, beta (off by default) in 1.35.
const MUTATING_ADMISSION_POLICY: &str = "apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-team-label
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {\"team\": \"platform\"}}}'
";

/// The `kubernetes: ...` line of a `-v` run, the temporary directory shown as `[REPO]`.
fn kubernetes_line(run: &Run, dir: &Path) -> String {
    let line = run.stderr.lines().find(|line| line.starts_with("kubernetes: ")).unwrap_or("(none)");
    line.replace(&dir.display().to_string(), "[REPO]")
}

#[test]
fn management_kubernetes_version_flag_beats_file_beats_default_and_picks_the_built_in_schemas() {
    let pinned = repository(Some("capzVersion: v1.26\nkubernetesVersion: v1.35\n"));
    let bare = repository(None);
    for dir in [&pinned, &bare] {
        std::fs::write(dir.path().join("clusters/deployment.yaml"), SCHEDULING_GROUP_DEPLOYMENT).unwrap();
        std::fs::write(dir.path().join("clusters/admission.yaml"), MUTATING_ADMISSION_POLICY).unwrap();
    }
    type Case<'a> = (&'a str, &'a tempfile::TempDir, &'a [&'a str]);
    let cases: [Case; 5] = [
        ("nothing pins: the newest bundled", &bare, &[]),
        ("the file", &pinned, &[]),
        ("--management-kubernetes-version over the file", &pinned, &["--management-kubernetes-version", "v1.36"]),
        ("validate --kubernetes-version over the file", &pinned, &["--kubernetes-version", "1.36.3"]),
        ("the flag where no file pins", &bare, &["--management-kubernetes-version", "1.35"]),
    ];
    let mut shown = String::new();
    for (case, dir, flags) in cases {
        let mut args = vec!["validate", "-v", "clusters"];
        args.extend_from_slice(flags);
        let out = run(dir.path(), &[], &args);
        // schedulingGroup is a field of Kubernetes 1.36's pod spec only, MutatingAdmissionPolicy v1 a kind of 1.36 only.
        let expected = if kubernetes_line(&out, dir.path()).contains("v1.35") { 1 } else { 0 };
        assert_eq!(out.code, Some(expected), "{case}: {}\n{}", out.stdout, out.stderr);
        if expected == 1 {
            assert!(
                out.stdout.contains("/spec/template/spec/schedulingGroup: unknown field \"schedulingGroup\""),
                "{case}: {}",
                out.stdout
            );
            assert!(
                out.stdout.contains(
                    "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy is not served by Kubernetes v1.35 \
                     (served by Kubernetes v1.36; the management cluster's release is picked with \
                     --management-kubernetes-version) [api-version]"
                ),
                "{case}: {}",
                out.stdout
            );
        }
        shown.push_str(&format!("# {case}: exit {expected}\n{}\n", kubernetes_line(&out, dir.path())));
    }
    insta::assert_snapshot!("kubernetes_precedence", shown);
}

#[test]
fn every_checking_command_takes_the_management_kubernetes_version() {
    let dir = repository(None);
    let topology = repo("tests/fixtures/topology/custom");
    let classic = repo("tests/fixtures/capz-translation/cases/05-cluster-network.yaml");
    let convert = repo("tests/fixtures/convert/commented.yaml");
    let (class, cluster) = (topology.join("class.yaml"), topology.join("cluster.yaml"));
    let commands: Vec<(&str, Vec<&str>)> = vec![
        ("validate", vec!["validate", "clusters/demo.yaml"]),
        ("render", vec!["render", "aks-aso", "demo", "--validate"]),
        ("plan", vec!["plan", "-f", class.to_str().unwrap(), "-f", cluster.to_str().unwrap()]),
        ("migrate", vec!["migrate", "-f", classic.to_str().unwrap()]),
        ("convert", vec!["convert", convert.to_str().unwrap()]),
    ];
    for (name, args) in commands {
        let mut flagged = args.clone();
        flagged.extend(["--management-kubernetes-version", "v1.35", "-v"]);
        let out = run(dir.path(), RENDER_ENV, &flagged);
        assert_eq!(out.code, Some(0), "{name}: {}", out.stderr);
        assert_eq!(
            kubernetes_line(&out, dir.path()),
            "kubernetes: Kubernetes v1.35, from --management-kubernetes-version",
            "{name}"
        );
        // A release whose built-in schemas are not bundled is a usage error listing the bundled ones.
        let mut bad = args.clone();
        bad.extend(["--management-kubernetes-version", "v1.30"]);
        let out = run(dir.path(), RENDER_ENV, &bad);
        assert_eq!(out.code, Some(2), "{name}: {}", out.stderr);
        assert_eq!(
            out.stderr,
            "error: --management-kubernetes-version v1.30: Kubernetes version `v1.30` is not bundled; bundled: v1.36, \
             v1.35\n",
            "{name}"
        );
        assert!(out.stdout.is_empty(), "{name}: {}", out.stdout);
    }
    // render and diff keep --kubernetes-version for the workload cluster; validate takes it as kubeconform does, and
    // not together with the long name.
    let out = run(
        dir.path(),
        &[],
        &[
            "validate",
            "clusters/demo.yaml",
            "--kubernetes-version",
            "v1.35",
            "--management-kubernetes-version",
            "v1.36",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

/// The (apiVersion, kind) pairs of the ASO objects embedded in `spec.resources` of a YAML stream, sorted, deduplicated.
fn embedded_api_versions(yaml: &str) -> Vec<(String, String)> {
    let mut found = std::collections::BTreeSet::new();
    for document in capz::manifest::parse_documents(yaml, "<migrated>").unwrap() {
        let resources = document.value.pointer("/spec/resources").and_then(|r| r.as_array()).cloned();
        for resource in resources.unwrap_or_default() {
            let at = |key: &str| resource[key].as_str().unwrap_or_default().to_string();
            found.insert((at("apiVersion"), at("kind")));
        }
    }
    found.into_iter().collect()
}

/// A classic cluster with `enablePreviewFeatures: true` migrates under CAPZ v1.26 and v1.27 into the API versions
/// their CAPZ writes (both import containerservice v20251002preview for preview clusters, v1api20250801 otherwise,
/// and resources v1api20200601: azure/services of the v1.26.0 and v1.27.0 modules; the recordings of CAPZ
/// v1.26.0's and v1.27.0's own translation, tests/fixtures/capz-translation/<target>/, say the same), and the result
/// validates clean under the same target.
#[test]
fn preview_clusters_migrate_into_the_targets_api_versions_and_validate_under_it() {
    let recordings_of =
        |target: &str| -> serde_json::Value { support::recordings(&repo("tests/fixtures/capz-translation"), target) };
    // The provisional v1.28 translates as CAPZ v1.27.0 does, the release it is modelled on: v1.27's recordings.
    let recordings =
        [("v1.26", recordings_of("v1.26")), ("v1.27", recordings_of("v1.27")), ("v1.28", recordings_of("v1.27"))];
    let dir = tempfile::tempdir().unwrap();
    for case in ["33-basic-lb-udr-preview", "45-cp-patch-preview", "54-pool-patch-preview"] {
        let input = repo(&format!("tests/fixtures/capz-translation/cases/{case}.yaml"));
        assert!(std::fs::read_to_string(&input).unwrap().contains("enablePreviewFeatures: true"), "{case}");
        for (target, target_recordings) in &recordings {
            let recorded: std::collections::BTreeSet<(String, String)> = target_recordings["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["case"] == case)
                .and_then(|r| r["objects"].as_array())
                .unwrap_or_else(|| panic!("{case} {target}: no recorded objects"))
                .iter()
                .map(|o| (o["apiVersion"].as_str().unwrap().to_string(), o["kind"].as_str().unwrap().to_string()))
                .collect();
            let out = run(dir.path(), &[], &["migrate", "-f", input.to_str().unwrap(), "--capz-version", *target]);
            assert_eq!(out.code, Some(0), "{case} {target}: {}", out.stderr);
            let written = embedded_api_versions(&out.stdout);
            assert_eq!(
                written,
                [
                    ("containerservice.azure.com/v20251002preview".to_string(), "ManagedCluster".to_string()),
                    ("containerservice.azure.com/v20251002preview".to_string(), "ManagedClustersAgentPool".to_string()),
                    ("resources.azure.com/v1api20200601".to_string(), "ResourceGroup".to_string()),
                ],
                "{case} {target}"
            );
            assert_eq!(written.into_iter().collect::<std::collections::BTreeSet<_>>(), recorded, "{case} {target}");
            let migrated = dir.path().join(format!("{case}-{target}.yaml"));
            std::fs::write(&migrated, &out.stdout).unwrap();
            let checked = run(
                dir.path(),
                &[],
                &["validate", "-o", "json", "--capz-version", *target, migrated.to_str().unwrap()],
            );
            assert_eq!(checked.code, Some(0), "{case} {target}: {}\n{}", checked.stdout, checked.stderr);
            let report: serde_json::Value = serde_json::from_str(&checked.stdout).unwrap();
            assert_eq!(report["summary"]["errors"], 0, "{case} {target}: {}", checked.stdout);
            assert_eq!(report["summary"]["invalid"], 0, "{case} {target}: {}", checked.stdout);
            assert_eq!(report["summary"]["notChecked"], 0, "{case} {target}: {}", checked.stdout);
            assert_eq!(report["target"]["capzVersion"], *target);
        }
    }
}

/// The provisional v1.28 is picked only when asked for (flag, environment, file), never by default, and every run
/// against it says so: a note on stderr (with or without -v), the `-v` target line, the JSON report's `provisional`.
#[test]
fn the_provisional_target_is_picked_only_when_asked_for_and_says_so() {
    let pinned = repository(Some("capzVersion: v1.28\n"));
    let bare = repository(None);
    type Case<'a> = (&'a str, &'a tempfile::TempDir, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 4] = [
        ("nothing pins: the default is the newest published", &bare, &[], &["-v"]),
        ("--capz-version v1.28", &bare, &[], &["--capz-version", "v1.28", "-v"]),
        ("CAPZ_VERSION=1.28.0", &bare, &[("CAPZ_VERSION", "1.28.0")], &["-v"]),
        ("the file, without -v", &pinned, &[], &[]),
    ];
    let mut shown = String::new();
    for (case, dir, env, flags) in cases {
        let mut args = vec!["validate", "clusters/demo.yaml"];
        args.extend_from_slice(flags);
        let out = run(dir.path(), env, &args);
        assert_eq!(out.code, Some(0), "{case}: {}{}", out.stdout, out.stderr);
        let notes: String = out
            .stderr
            .lines()
            .filter(|line| line.starts_with("note: CAPZ v1.28"))
            .map(|line| line.to_string() + "\n")
            .collect();
        shown.push_str(&format!("# {case}\n{}{notes}", verbose_lines(&out, dir.path())));
    }
    insta::assert_snapshot!("provisional", shown);
    let out = run(bare.path(), &[], &["validate", "-o", "json", "--capz-version", "v1.28", "clusters/demo.yaml"]);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["target"]["capzVersion"], "v1.28");
    assert_eq!(
        (report["target"]["capi"].as_str(), report["target"]["aso"].as_str()),
        (Some("v1.14.2"), Some("v2.20.0"))
    );
    assert!(
        report["target"]["provisional"].as_str().unwrap().starts_with("CAPZ v1.28.0 is not released"),
        "{}",
        report["target"]
    );
    let out = run(bare.path(), &[], &["validate", "-o", "json", "clusters/demo.yaml"]);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["target"]["capzVersion"], "v1.27");
    assert!(report["target"].get("provisional").is_none(), "{}", report["target"]);
}
