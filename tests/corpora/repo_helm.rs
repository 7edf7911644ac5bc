//! Repository mode on Helm charts: `validate DIR` renders each chart with the real helm (tools/helm/build.sh) and
//! its findings equal those of `helm template ... | kubectl capz validate -` with file:line mapped back to the
//! template (or to the values file line the value came from); charts that cannot be rendered offline are one
//! warning each, and nothing is downloaded or run for them.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

use capz::source::helm::{HelmRender, RenderRequest};
use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

/// tools/helm/bin, where tools/helm/build.sh puts helm v3.18.6.
fn helm_dir() -> PathBuf {
    let dir = support::repo_root().join("tools/helm/bin");
    assert!(
        dir.join("helm").is_file(),
        "helm is missing from {}: run tools/helm/build.sh (scripts/test-all.sh does)",
        dir.display()
    );
    dir
}

/// `PATH` with tools/helm/bin first.
fn path_with_helm() -> OsString {
    let mut dirs = vec![helm_dir()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

fn capz(args: &[&str], cwd: &Path, path: &OsString, stdin: Option<&str>) -> Output {
    let mut command = capz_command();
    command.current_dir(cwd).env("PATH", path).args(args);
    if let Some(input) = stdin {
        command.write_stdin(input.to_string());
    }
    command.output().unwrap()
}

fn report(output: &Output, what: &str) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{what}: {err}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn findings(report: &Value) -> Vec<Value> {
    report["findings"].as_array().cloned().unwrap_or_default()
}

/// `helm template` run by the test itself, as a user would.
fn helm_template(cwd: &Path, release: &str, chart: &str, args: &[String]) -> String {
    let mut command = std::process::Command::new(helm_dir().join("helm"));
    command.current_dir(cwd).args(["template", release, chart]).args(args);
    let home = tempfile::tempdir().unwrap();
    command.env("HOME", home.path()).env("HELM_CACHE_HOME", home.path().join("cache"));
    command.env("HELM_CONFIG_HOME", home.path().join("config")).env("HELM_DATA_HOME", home.path().join("data"));
    let output = command.output().unwrap();
    assert!(output.status.success(), "helm template: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Maps a line of helm's output to (template, line of the template file), as repository mode maps the lines of
/// what it renders (`HelmRender::locate_output_line`, template files read below `cwd`).
fn map_line(helm_output: &str, cwd: &Path, chart_dir: &str, line: usize) -> (String, usize) {
    let request = RenderRequest { chart_dir: PathBuf::from(chart_dir), ..RenderRequest::default() };
    let render = HelmRender::from_output(request, helm_output.to_string(), cwd);
    render.locate_output_line(line).expect("a line inside a document")
}

/// A finding as compared: everything but the column.
fn key(finding: &Value) -> String {
    format!(
        "{} {} {}:{} {} {} {}",
        finding["severity"].as_str().unwrap(),
        finding["rule"].as_str().unwrap(),
        finding["source"].as_str().unwrap().trim_start_matches("./"),
        finding["line"],
        finding["object"].as_str().unwrap(),
        finding["path"].as_str().unwrap(),
        finding["message"].as_str().unwrap()
    )
}

/// The same without where: what the finding says about which field.
fn what(finding: &Value) -> String {
    format!(
        "{} {} {} {} {}",
        finding["severity"].as_str().unwrap(),
        finding["rule"].as_str().unwrap(),
        finding["object"].as_str().unwrap(),
        finding["path"].as_str().unwrap(),
        finding["message"].as_str().unwrap()
    )
}

/// `--namespace default --values FILE...`: how a chart of the tree is rendered.
fn chart_args(values: &[&str]) -> Vec<String> {
    let mut args = vec!["--namespace".to_string(), "default".to_string()];
    for file in values {
        args.extend(["--values".to_string(), file.to_string()]);
    }
    args
}

/// For each render of the chart (`helm template RELEASE CHART ARGS`), the findings of `helm template | validate -`
/// with their lines mapped to the template; repository mode must report exactly these (among its findings that
/// `keep` selects), except that a finding on a value from a values file is at that file's line.
fn assert_differential(
    repo: &str,
    chart_dir: &str,
    release: &str,
    renders: &[Vec<String>],
    keep: &dyn Fn(&Value) -> bool,
) -> Vec<Value> {
    let cwd = repos().join(repo);
    let path = path_with_helm();
    let repository = capz(&["validate", "-o", "json", "."], &cwd, &path, None);
    let repository: Vec<Value> = findings(&report(&repository, "validate .")).into_iter().filter(|f| keep(f)).collect();
    let mut piped_findings = Vec::new();
    for args in renders {
        let text = helm_template(&cwd, release, chart_dir, args);
        let piped = capz(&["validate", "-o", "json", "-"], &cwd, &path, Some(&text));
        for mut finding in findings(&report(&piped, "validate -")) {
            let line = finding["line"].as_u64().unwrap() as usize;
            let (template, line) = map_line(&text, &cwd, chart_dir.trim_start_matches("./"), line);
            finding["source"] = Value::from(template);
            finding["line"] = Value::from(line);
            piped_findings.push(finding);
        }
    }
    let expected: BTreeSet<String> = piped_findings.iter().map(key).collect();
    let mut actual = BTreeSet::new();
    for finding in &repository {
        let source = finding["source"].as_str().unwrap();
        if !source.contains("/templates/") {
            // Traced to the values file: the piped run has the same finding at the template.
            // A value from a Secret is masked in repository mode (never in the piped run, which sees no Secret).
            let masked = finding["message"].as_str().unwrap().contains("\"***\"");
            let same_field = |piped: &&Value| {
                ["severity", "rule", "object", "path"].iter().all(|field| piped[field] == finding[field])
            };
            let twin =
                piped_findings.iter().find(|piped| what(piped) == what(finding) || (masked && same_field(piped)));
            let twin = twin.unwrap_or_else(|| panic!("{} has no twin in helm template | validate -", key(finding)));
            actual.insert(key(twin));
            let line = finding["line"].as_u64().unwrap() as usize;
            let text = std::fs::read_to_string(cwd.join(source)).unwrap();
            assert!(text.lines().nth(line - 1).is_some_and(|l| l.contains(':')), "{source}:{line} is no values key");
        } else {
            actual.insert(key(finding));
        }
    }
    assert_eq!(actual, expected, "repository mode vs helm template | validate -");
    repository
}

#[test]
fn aks_aso_chart_findings_equal_helm_template_piped_into_validate_with_the_seeded_default_at_values_yaml() {
    let chart = "./charts/aks-aso-cluster";
    let values = "./charts/aks-aso-cluster/values.yaml";
    let repository = assert_differential(
        "helm-aks-aso",
        chart,
        "aks-aso-cluster",
        &[
            chart_args(&[values]),
            chart_args(&[values, "./charts/aks-aso-cluster/ci/minimal-values.yaml"]),
            chart_args(&[values, "./charts/aks-aso-cluster/ci/prod-values.yaml"]),
        ],
        &|_| true,
    );
    // The seeded defect: `pluginMode: Overlay` (line 14 of values.yaml), which the ManagedCluster's enum
    // (`overlay`) rejects, in the default render only (both ci files set `overlay`); nothing else is an error: the
    // templates themselves are never read as manifests.
    let errors: Vec<String> = repository.iter().filter(|f| f["severity"] == "error").map(key).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(
            "error schema charts/aks-aso-cluster/values.yaml:14 AzureASOManagedControlPlane/aks-dev \
             /spec/resources/0/spec/networkProfile/networkPluginMode embedded ManagedCluster/aks-dev: unsupported \
             value \"Overlay\""
        ),
        "{}",
        errors[0]
    );
    let values_text = std::fs::read_to_string(repos().join("helm-aks-aso/charts/aks-aso-cluster/values.yaml")).unwrap();
    assert_eq!(values_text.lines().nth(13), Some("  pluginMode: Overlay"));
    // The credential Secret the chart names but does not ship: each warning at the values line that names it, in
    // values.yaml (default and ci/minimal renders) or in ci/prod-values.yaml (which sets its own).
    let credential: BTreeSet<String> = repository
        .iter()
        .filter(|f| f["rule"] == "aso-credential-secret")
        .map(|f| format!("{}:{}", f["source"].as_str().unwrap().trim_start_matches("./"), f["line"]))
        .collect();
    assert_eq!(
        credential,
        BTreeSet::from([
            "charts/aks-aso-cluster/ci/prod-values.yaml:6".to_string(),
            "charts/aks-aso-cluster/values.yaml:10".to_string()
        ])
    );
    // One warning per missing Secret and render (values.yaml, ci/minimal-values.yaml, ci/prod-values.yaml), naming
    // every object that uses it.
    assert_eq!(repository.iter().filter(|f| f["rule"] == "aso-credential-secret").count(), 3);
}

#[test]
fn classic_aks_chart_findings_equal_helm_template_piped_into_validate() {
    let repository = assert_differential(
        "helm-aks",
        "./helm/aks-cluster",
        "aks-cluster",
        &[chart_args(&["./helm/aks-cluster/values.yaml"])],
        &|_| true,
    );
    let errors: Vec<String> = repository.iter().filter(|f| f["severity"] == "error").map(key).collect();
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn a_value_written_in_a_template_is_reported_at_its_template_line() {
    // charts/lines/templates/controlplane.yaml writes `networkPolicy: calicoo` itself, after an `if` block, an
    // `include ... | nindent` and a `range`: helm's document has more lines than the template file.
    let chart = "./charts/lines";
    let repository = assert_differential(
        "helm-template-lines",
        chart,
        "lines",
        &[chart_args(&["./charts/lines/values.yaml"])],
        &|_| true,
    );
    let template = "charts/lines/templates/controlplane.yaml";
    let text = std::fs::read_to_string(repos().join("helm-template-lines").join(template)).unwrap();
    let line = 1 + text.lines().position(|line| line == "  networkPolicy: calicoo").unwrap();
    let seeded: Vec<&Value> = repository.iter().filter(|f| f["path"] == "/spec/networkPolicy").collect();
    assert_eq!(seeded.len(), 1, "{repository:#?}");
    assert_eq!(seeded[0]["source"].as_str().unwrap().trim_start_matches("./"), template);
    assert_eq!(seeded[0]["line"], line, "{:#?}", seeded[0]);
    assert!(seeded[0]["message"].as_str().unwrap().contains("\"calicoo\""));
    // Within its rendered document the value is further down than the template's last line.
    let cwd = repos().join("helm-template-lines");
    let output = helm_template(&cwd, "lines", chart, &chart_args(&["./charts/lines/values.yaml"]));
    let document_start =
        1 + output.lines().position(|l| l.starts_with("# Source: lines/templates/controlplane")).unwrap();
    let rendered_line = output.lines().position(|l| l == "  networkPolicy: calicoo").unwrap() + 1 - document_start;
    assert!(rendered_line > text.lines().count(), "{rendered_line}");
}

/// The 1-based line of `file` (in fixture repository `repo`) that is `text`.
fn line_of(repo: &str, file: &str, text: &str) -> usize {
    let content = std::fs::read_to_string(repos().join(repo).join(file)).unwrap();
    1 + content.lines().position(|line| line == text).unwrap_or_else(|| panic!("{file} has no line `{text}`"))
}

/// The one finding of `findings` on `object` at `path`, as `file:line message`.
fn finding_at(findings: &[Value], object: &str, path: &str) -> String {
    let found: Vec<&Value> = findings.iter().filter(|f| f["object"] == object && f["path"] == path).collect();
    assert_eq!(found.len(), 1, "{object} {path}: {findings:#?}");
    let source = found[0]["source"].as_str().unwrap().trim_start_matches("./");
    format!("{source}:{} {}", found[0]["line"], found[0]["message"].as_str().unwrap())
}

#[test]
fn values_from_config_maps_secrets_and_application_parameters_are_reported_where_they_are_written() {
    // flux/team-a.yaml takes values from two ConfigMaps (one through `targetPath`) and a Secret of the tree;
    // argocd/team-b.yaml sets one with `helm.parameters`. Each seeds one value the CRD enum rejects.
    let repo = "helm-values-from";
    let team_a = |f: &Value| f["object"] == "AzureManagedControlPlane/team-a-team-a";
    let team_b = |f: &Value| f["object"] == "AzureManagedControlPlane/team-b";
    let config_map = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config_map.path(), "location: westeurope\nnetworkPolicy: calicoo\n").unwrap();
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "loadBalancerSKU: PremiumSecretSku\n").unwrap();
    let spec_values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(spec_values.path(), "location: northeurope\n").unwrap();
    let mut flux_args = vec!["--namespace".to_string(), "team-a".to_string()];
    for file in [&config_map, &secret, &spec_values] {
        flux_args.extend(["--values".to_string(), file.path().to_str().unwrap().to_string()]);
    }
    flux_args.extend(["--set-string", "networkPlugin=kubenett", "--include-crds"].map(String::from));
    let flux = assert_differential(repo, "./charts/plane", "team-a-team-a", &[flux_args], &team_a);
    let argo_args =
        ["--namespace", "team-b", "--set", "location=westus", "--set", "networkPolicy=ciliumm", "--include-crds"];
    let argo_args: Vec<String> = argo_args.map(String::from).to_vec();
    let argo = assert_differential(repo, "./charts/plane", "team-b", &[argo_args], &team_b);

    let values = "flux/team-a-values.yaml";
    let object = "AzureManagedControlPlane/team-a-team-a";
    assert_eq!(
        finding_at(&flux, object, "/spec/networkPolicy"),
        format!(
            "{values}:{} unsupported value \"calicoo\": supported values: \"azure\", \"calico\", \"cilium\"",
            line_of(repo, values, "    networkPolicy: calicoo")
        )
    );
    assert_eq!(
        finding_at(&flux, object, "/spec/networkPlugin"),
        format!(
            "{values}:{} unsupported value \"kubenett\": supported values: \"azure\", \"kubenet\", \"none\"",
            line_of(repo, values, "  plugin: kubenett")
        )
    );
    // The Secret's value is never shown.
    assert_eq!(
        finding_at(&flux, object, "/spec/loadBalancerSKU"),
        format!(
            "{values}:{} unsupported value \"***\": supported values: \"Basic\", \"Standard\"",
            line_of(repo, values, "    loadBalancerSKU: PremiumSecretSku")
        )
    );
    let application = "argocd/team-b.yaml";
    assert_eq!(
        finding_at(&argo, "AzureManagedControlPlane/team-b", "/spec/networkPolicy"),
        format!(
            "{application}:{} unsupported value \"ciliumm\": supported values: \"azure\", \"calico\", \"cilium\"",
            line_of(repo, application, "          value: ciliumm")
        )
    );
    let path = path_with_helm();
    for format in ["json", "text", "github", "sarif"] {
        let output = capz(&["validate", "-o", format, "."], &repos().join(repo), &path, None);
        let all = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(all.contains("***") && !all.contains("PremiumSecretSku"), "-o {format}: {all}");
    }
}

/// Every `file:line` of `-o FORMAT` output that names a file of `cwd`.
fn locations(format: &str, stdout: &str) -> Vec<(String, usize)> {
    match format {
        "json" => findings(&serde_json::from_str(stdout).unwrap())
            .iter()
            .map(|f| (f["source"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap() as usize))
            .collect(),
        "sarif" => {
            let sarif: Value = serde_json::from_str(stdout).unwrap();
            let mut found = Vec::new();
            for result in sarif["runs"][0]["results"].as_array().unwrap() {
                let location = &result["locations"][0]["physicalLocation"];
                let uri = location["artifactLocation"]["uri"].as_str().unwrap().to_string();
                found.push((uri, location["region"]["startLine"].as_u64().unwrap() as usize));
            }
            found
        }
        "github" => {
            let pattern = regex::Regex::new(r"^::\w+ file=([^,]+),line=(\d+),").unwrap();
            stdout
                .lines()
                .filter_map(|line| pattern.captures(line))
                .map(|c| (c[1].replace("%2C", ",").replace("%3A", ":"), c[2].parse().unwrap()))
                .collect()
        }
        _ => {
            let pattern = regex::Regex::new(r"^(\S+):(\d+): (error|warning|info):").unwrap();
            stdout
                .lines()
                .filter_map(|line| pattern.captures(line))
                .map(|c| (c[1].to_string(), c[2].parse().unwrap()))
                .collect()
        }
    }
}

#[test]
fn no_finding_of_a_fixture_chart_is_beyond_its_file_in_any_output_format() {
    let path = path_with_helm();
    let repositories = [
        "helm-aks",
        "helm-aks-aso",
        "helm-template-lines",
        "helm-values-from",
        "flux-helmrelease",
        "argocd-app-of-apps",
    ];
    for repo in repositories {
        let cwd = repos().join(repo);
        for format in ["json", "text", "github", "sarif"] {
            let output = capz(&["validate", "-o", format, "."], &cwd, &path, None);
            assert_ne!(
                output.status.code(),
                Some(2),
                "{repo} -o {format}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let stdout = String::from_utf8(output.stdout).unwrap();
            let found = locations(format, &stdout);
            let mut checked = 0;
            for (file, line) in found {
                let Ok(text) = std::fs::read_to_string(cwd.join(&file)) else { continue };
                let count = text.lines().count().max(1);
                assert!((1..=count).contains(&line), "{repo} -o {format}: {file}:{line} is beyond its {count} lines");
                checked += usize::from(file.contains("/templates/") || file.contains("values"));
            }
            assert!(checked > 0, "{repo} -o {format}: no finding at a chart's file\n{stdout}");
        }
    }
}

#[test]
fn argo_cd_helm_source_findings_equal_helm_template_with_the_applications_values() {
    // apps/shop-prod.yaml: release shop-prod, namespace shop, valueFiles, valuesObject, a forceString parameter;
    // Argo CD includes the chart's crds/ unless `skipCrds`.
    let values_object = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(values_object.path(), "network:\n  policy: azure\n").unwrap();
    let args: Vec<String> = [
        "--namespace",
        "shop",
        "--values",
        "./charts/aks-aso-cluster/values-prod.yaml",
        "--values",
        values_object.path().to_str().unwrap(),
        "--set-string",
        "cluster.kubernetesVersion=v1.33.3",
        "--include-crds",
    ]
    .iter()
    .map(|arg| arg.to_string())
    .collect();
    let shop = |finding: &Value| finding["object"].as_str().unwrap_or("").contains("shop-prod");
    let repository = assert_differential("argocd-app-of-apps", "./charts/aks-aso-cluster", "shop-prod", &[args], &shop);
    let at: BTreeSet<String> = repository
        .iter()
        .map(|f| {
            format!(
                "{}:{} {}",
                f["source"].as_str().unwrap().trim_start_matches("./"),
                f["line"],
                f["rule"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(at, BTreeSet::from(["charts/aks-aso-cluster/values-prod.yaml:6 aso-credential-secret".to_string()]));
}

#[test]
fn argo_cd_app_of_apps_builds_every_source_of_the_tree_and_notes_the_remote_chart() {
    let cwd = repos().join("argocd-app-of-apps");
    let output = capz(&["validate", "-o", "json", "."], &cwd, &path_with_helm(), None);
    let report = report(&output, "validate .");
    let objects: BTreeSet<String> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!("{} {}", r["object"].as_str().unwrap(), r["source"].as_str().unwrap().trim_start_matches("./"))
        })
        .collect();
    for expected in [
        // The chart on its own (values.yaml) and as the Application's helm source (values-prod.yaml).
        "AzureASOManagedControlPlane/aks-dev charts/aks-aso-cluster/templates/list.yaml",
        "AzureASOManagedControlPlane/shop-prod charts/aks-aso-cluster/templates/list.yaml",
        // The Applications the root Application reads from apps/.
        "Application/shop-prod apps/shop-prod.yaml",
        "Application/cert-manager apps/cert-manager.yaml",
    ] {
        assert!(objects.contains(expected), "{expected} not in {objects:#?}");
    }
    // The kustomize overlays: prod through team-clusters, staging through the ApplicationSet.
    let control_planes = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["object"] == "AzureManagedControlPlane/team-a")
        .count();
    assert_eq!(control_planes, 2, "{objects:#?}");
    let notes: Vec<String> = findings(&report)
        .iter()
        .filter(|f| f["rule"] == "repository-source")
        .map(|f| {
            format!(
                "{} {}:{} {}",
                f["severity"].as_str().unwrap(),
                f["source"].as_str().unwrap().trim_start_matches("./"),
                f["line"],
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        notes,
        [
            "info apps/cert-manager.yaml:1 Application/cert-manager: chart `cert-manager` comes from the Helm repository \
          https://charts.jetstack.io: it would need a download, and no copy of cert-manager v1.17.2 is in this \
          repository (a chart directory with that name and version in its Chart.yaml, or cert-manager-1.17.2.tgz); \
          not built"
        ]
    );
}

#[test]
fn flux_helm_release_findings_equal_helm_template_with_its_values_from_the_tree() {
    // clusters/prod/team-b.yaml: release `<targetNamespace>-<name>`, valuesFrom the ConfigMap of the tree, then
    // spec.values; Flux applies the chart's crds/ too.
    let from_config_map = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        from_config_map.path(),
        "location: westeurope\nresourceGroupName: rg-team-b\nmachinePools:\n  pool0:\n    mode: System\n    \
         sku: Standard_D4s_v5\n    replicas: 3\n",
    )
    .unwrap();
    let spec_values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(spec_values.path(), "clusterName: team-b\nnamespace: team-b\nidentity:\n  name: team-b-identity\n")
        .unwrap();
    let args: Vec<String> = [
        "--namespace",
        "team-b",
        "--values",
        from_config_map.path().to_str().unwrap(),
        "--values",
        spec_values.path().to_str().unwrap(),
        "--include-crds",
    ]
    .iter()
    .map(|arg| arg.to_string())
    .collect();
    // What the release renders (not the HelmRelease and ConfigMap objects themselves).
    let team_b = |finding: &Value| {
        let object = finding["object"].as_str().unwrap_or("");
        object.contains("team-b") && !object.starts_with("HelmRelease/") && !object.starts_with("ConfigMap/")
    };
    let repository = assert_differential("flux-helmrelease", "./charts/aks-cluster", "team-b-team-b", &[args], &team_b);
    // The deprecated classic kinds of the chart, rendered for team-b: three kinds, four objects.
    assert_eq!(repository.iter().filter(|f| f["rule"] == "capz-deprecated-api").count(), 4, "{repository:#?}");
}

/// A `helm` that only records that it ran: the hostile charts must never reach it.
fn recording_helm(dir: &Path) -> (OsString, PathBuf) {
    let marker = dir.join("helm-ran");
    let script = dir.join("helm");
    std::fs::write(&script, format!("#!/bin/sh\necho \"$@\" >> '{}'\nexit 1\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    (std::env::join_paths(dirs).unwrap(), marker)
}

#[test]
fn charts_whose_dependencies_are_absent_are_one_warning_each_and_helm_never_runs() {
    let fake = tempfile::tempdir().unwrap();
    let (path, marker) = recording_helm(fake.path());
    let output = capz(&["validate", "-o", "json", "."], &repos().join("helm-needs-download"), &path, None);
    assert_eq!(output.status.code(), Some(0), "warnings only: {}", String::from_utf8_lossy(&output.stderr));
    let all: Vec<String> = findings(&report(&output, "validate .")).iter().map(key).collect();
    assert_eq!(
        all,
        [
            "warning repository-source charts/local-deps/Chart.yaml:1   chart ./charts/local-deps needs its dependencies: \
             run `helm dependency build ./charts/local-deps` (not in charts/: common)",
            "warning repository-source charts/platform/Chart.yaml:1   chart ./charts/platform was not rendered: its \
             dependency `cert-manager` would have to be downloaded from https://charts.jetstack.io; only local charts \
             are rendered (vendor it into charts/ with `helm dependency build`)",
        ]
    );
    assert!(!marker.exists(), "helm ran: {}", std::fs::read_to_string(&marker).unwrap_or_default());
}

#[test]
fn without_helm_each_chart_is_one_warning_saying_so() {
    let empty = tempfile::tempdir().unwrap();
    let path = OsString::from(empty.path());
    let output = capz(&["validate", "-o", "json", "."], &repos().join("helm-aks-aso"), &path, None);
    let all: Vec<String> = findings(&report(&output, "validate .")).iter().map(key).collect();
    assert_eq!(
        all,
        ["warning repository-source charts/aks-aso-cluster/Chart.yaml:1   chart ./charts/aks-aso-cluster was not \
          rendered: `helm` is not on PATH (install helm v3 to validate what it renders)"]
    );
}

#[test]
fn a_template_error_is_one_warning_with_helms_message() {
    let repo = tempfile::tempdir().unwrap();
    let chart = repo.path().join("charts/broken");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n").unwrap();
    std::fs::write(chart.join("values.yaml"), "name: x\n").unwrap();
    std::fs::write(
        chart.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name | nosuchfunction }}\n",
    )
    .unwrap();
    let output = capz(&["validate", "-o", "json", "."], repo.path(), &path_with_helm(), None);
    let all = findings(&report(&output, "validate ."));
    assert_eq!(all.len(), 1, "{all:#?}");
    let message = all[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("chart ./charts/broken could not be rendered (./charts/broken with values.yaml): ")
            && message.contains("function \"nosuchfunction\" not defined"),
        "{message}"
    );
    assert_eq!(all[0]["severity"], "warning");
}

/// A chart whose template calls `required` on a value its values.yaml lacks: one warning naming the value and
/// how to give it (ci/*-values.yaml, an Argo CD or Flux values source), without helm's `--debug` advice.
#[test]
fn a_required_value_the_chart_lacks_is_one_warning_naming_it() {
    let repo = tempfile::tempdir().unwrap();
    let chart = repo.path().join("charts/needs-name");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: needs-name\nversion: 0.1.0\n").unwrap();
    std::fs::write(chart.join("values.yaml"), "location: westeurope\n").unwrap();
    std::fs::write(
        chart.join("templates/cluster.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"clusterName is required\" .Values.clusterName }}\n",
    )
    .unwrap();
    let output = capz(&["validate", "-o", "json", "."], repo.path(), &path_with_helm(), None);
    let all = findings(&report(&output, "validate ."));
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["severity"], "warning");
    assert_eq!(
        all[0]["message"],
        "chart ./charts/needs-name could not be rendered (./charts/needs-name with values.yaml): it needs the value \
         `.Values.clusterName` that its values do not set (templates/cluster.yaml:4 calls `required`: \"clusterName is \
         required\"); a ci/*-values.yaml in the chart that sets it (repository mode renders each, as chart-testing \
         does) or an Argo CD Application or Flux HelmRelease giving it values lets it render"
    );
}

/// A release name from the repository that helm would read as one of its flags (`--post-renderer=./run.sh` runs a
/// program of the repository, `--output-dir` writes outside it) is refused before helm runs: one warning, and the
/// program never runs.
#[test]
fn a_release_name_that_is_a_helm_flag_is_refused_and_runs_nothing() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    let marker = root.join("ran");
    std::fs::create_dir_all(root.join("chart/templates")).unwrap();
    std::fs::write(root.join("chart/Chart.yaml"), "apiVersion: v2\nname: chart\nversion: 0.1.0\n").unwrap();
    std::fs::write(root.join("chart/templates/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
        .unwrap();
    std::fs::write(root.join("run.sh"), format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for (file, text) in [
        (
            "app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\nspec:\n  source:\n    \
             repoURL: https://example.com/r.git\n    path: chart\n    helm:\n      releaseName: --post-renderer=./run.sh\n  \
             destination:\n    namespace: x\n",
        ),
        ("fleet/fleet.yaml", "helm:\n  chart: ../chart\n"),
        ("bundle/fleet.yaml", "helm:\n  releaseName: --post-renderer=./run.sh\n"),
    ] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::write(root.join(file), text).unwrap();
    }
    std::fs::create_dir_all(root.join("bundle/templates")).unwrap();
    std::fs::write(root.join("bundle/Chart.yaml"), "apiVersion: v2\nname: bundle\nversion: 0.1.0\n").unwrap();
    std::fs::write(root.join("bundle/templates/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")
        .unwrap();
    let output = capz(&["validate", "-o", "json", "."], root, &path_with_helm(), None);
    let report = report(&output, "validate .");
    assert!(!marker.exists(), "the release name ran a program");
    let refused: Vec<String> = findings(&report)
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("is not a Helm release name"))
        .map(|f| f["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(refused, ["./app.yaml", "./bundle/fleet.yaml"], "{report:#}");
}
