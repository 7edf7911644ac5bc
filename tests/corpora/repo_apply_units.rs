//! Every apply unit of a repository built or counted: Rancher Fleet bundles built as Fleet builds them (each
//! target customization a unit of its own), Argo CD ApplicationSets' `clusters` generators evaluated against the
//! cluster Secrets of the tree and the clusters `.kubectl-capz.yaml` declares, remote charts rendered from a copy
//! vendored in the tree or in the helm cache `--helm-cache` names; whatever is not built is counted.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

use capz::source::{self, RepositoryOptions};
use serde_json::Value;

fn repos() -> PathBuf {
    support::repo_root().join("tests/fixtures/repos")
}

/// `PATH` with tools/helm/bin (helm v3.18.6, tools/helm/build.sh) first.
fn path_with_helm() -> OsString {
    let helm = support::repo_root().join("tools/helm/bin");
    assert!(helm.join("helm").is_file(), "helm is missing from {}: run tools/helm/build.sh", helm.display());
    let mut dirs = vec![helm];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

fn validate(cwd: &Path, args: &[&str]) -> Output {
    capz_command().current_dir(cwd).env("PATH", path_with_helm()).arg("validate").args(args).output().unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{err}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// What a snapshot shows of `validate DIR`: the text report, stderr, every file's class, the summary and what was
/// not built.
fn report_of(cwd: &Path, dir: &str, extra: &[&str]) -> (String, Value, Option<i32>) {
    let mut args = vec![dir];
    args.extend_from_slice(extra);
    let text = validate(cwd, &args);
    let mut json_args = vec!["-o", "json", dir];
    json_args.extend_from_slice(extra);
    let report = json(&validate(cwd, &json_args));
    let files: Vec<String> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}: {} ({})",
                f["path"].as_str().unwrap(),
                f["class"].as_str().unwrap(),
                f["reason"].as_str().unwrap()
            )
        })
        .collect();
    let shown = format!(
        "{}--- stderr\n{}--- files\n{}\n--- summary\n{:#}\n--- notBuilt\n{:#}",
        String::from_utf8_lossy(&text.stdout),
        String::from_utf8_lossy(&text.stderr),
        files.join("\n"),
        report["summary"],
        report["notBuilt"]
    );
    (shown, report, text.status.code())
}

/// Errors as `source:line object path (…target…)`.
fn errors(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            let message = f["message"].as_str().unwrap();
            let unit = message.rfind(" (Fleet bundle").map_or("", |at| &message[at..]);
            format!(
                "{}:{} {} {}{unit}",
                f["source"].as_str().unwrap(),
                f["line"],
                f["object"].as_str().unwrap(),
                f["path"].as_str().unwrap()
            )
        })
        .collect()
}

/// The line of `text` in `file` (1-based), to hold the expected lines to the fixture.
fn line_of(file: &Path, text: &str) -> usize {
    let content = std::fs::read_to_string(file).unwrap();
    1 + content
        .lines()
        .position(|line| line.trim() == text)
        .unwrap_or_else(|| panic!("{text:?} not in {}", file.display()))
}

/// A Rancher Turtles repository: a Fleet bundle whose chart is an AKS ClusterClass, with `helm.values`,
/// `helm.valuesFiles` and three target customizations (prod adds a values file, dev overrides a value and the
/// namespace, sandbox deploys nothing), and a plain-YAML bundle with a `.fleetignore`. Before bundles were built,
/// the chart was rendered on its own with its values.yaml, which lacks required values: one warning, exit 0, and
/// the three true errors were never seen (and the ignored draft was an error).
#[test]
fn a_fleet_bundle_is_built_per_target_with_fleets_values_and_findings_at_their_values_lines() {
    let (shown, report, code) = report_of(&repos(), "fleet-aks-classes", &[]);
    assert_eq!(code, Some(1), "{shown}");
    let bundle = repos().join("fleet-aks-classes/fleet/aks-classes");
    let fleet_yaml = line_of(&bundle.join("fleet.yaml"), "pluginMode: Overlay");
    let common = line_of(&bundle.join("values/common.yaml"), "tier: Platinum");
    let prod = line_of(&bundle.join("values/prod.yaml"), "osDiskSizeGB: 4096");
    let control_plane = "AzureASOManagedControlPlaneTemplate/aks-standard-control-plane";
    let plugin_mode = "/spec/template/spec/resources/0/spec/networkProfile/networkPluginMode";
    let tier = "/spec/template/spec/resources/0/spec/sku/tier";
    let unit = |target: &str| format!(" (Fleet bundle fleet-aks-classes/fleet/aks-classes, {target})");
    assert_eq!(
        errors(&report),
        [
            // fleet.yaml's helm.values (the dev target sets `overlay` over it: not there).
            format!(
                "fleet-aks-classes/fleet/aks-classes/fleet.yaml:{fleet_yaml} {control_plane} {plugin_mode}{}",
                unit("default target")
            ),
            format!(
                "fleet-aks-classes/fleet/aks-classes/fleet.yaml:{fleet_yaml} {control_plane} {plugin_mode}{}",
                unit("target prod")
            ),
            // values/common.yaml wins over fleet.yaml's `tier: Standard` (a block's values files over its values).
            format!(
                "fleet-aks-classes/fleet/aks-classes/values/common.yaml:{common} {control_plane} {tier}{}",
                unit("default target")
            ),
            format!(
                "fleet-aks-classes/fleet/aks-classes/values/common.yaml:{common} {control_plane} {tier}{}",
                unit("target dev")
            ),
            format!(
                "fleet-aks-classes/fleet/aks-classes/values/common.yaml:{common} {control_plane} {tier}{}",
                unit("target prod")
            ),
            // Only the prod target's values file.
            format!(
                "fleet-aks-classes/fleet/aks-classes/values/prod.yaml:{prod} AzureASOManagedMachinePoolTemplate/aks-standard-system \
                 /spec/template/spec/resources/0/spec/osDiskSizeGB{}",
                unit("target prod")
            ),
        ]
    );
    // Two targets of one bundle are never applied together: no duplicate-object between them.
    assert!(!shown.contains("duplicate-object"), "{shown}");
    assert_eq!(report["summary"]["notBuilt"], 0, "{shown}");
    insta::assert_snapshot!("fleet_aks_classes_validate", shown);
}

/// An ApplicationSet whose `clusters` generator selects the cluster Secrets of the tree (one with `stringData`,
/// one with base64 `data`) and a cluster `.kubectl-capz.yaml` declares: one Application per selected cluster, its
/// `{{name}}`, `{{server}}`, `{{metadata.labels.env}}` and `{{values.overlay}}` filled in; each overlay's seeded
/// defect found once, for the cluster whose environment it is.
#[test]
fn an_application_set_clusters_generator_builds_one_application_per_known_cluster() {
    let (shown, report, code) = report_of(&repos(), "argocd-clusters", &[]);
    assert_eq!(code, Some(1), "{shown}");
    let errors = errors(&report);
    // prod-weu's overlay (the schema and CAPZ's translation to ASO both reject it), staging-weu's (declared in
    // .kubectl-capz.yaml); dev-weu's is clean.
    assert_eq!(
        errors,
        [
            "argocd-clusters/workload/overlays/prod/control-plane.yaml:6 AzureManagedControlPlane/workload /spec/networkPlugin",
            "argocd-clusters/workload/overlays/prod/control-plane.yaml:6 AzureManagedControlPlane/workload /spec/networkPlugin",
            "argocd-clusters/workload/overlays/staging/pool.yaml:6 AzureManagedMachinePool/workload-pool0 /spec/maxPods",
        ]
    );
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["aso-classic-object-schema", "schema", "capz-max-pods"]);
    // Every cluster's build: prod-weu and dev-weu from the Secrets, staging-weu from .kubectl-capz.yaml.
    let objects: Vec<&str> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["object"] == "Cluster/workload")
        .map(|r| r["source"].as_str().unwrap())
        .collect();
    assert_eq!(objects.len(), 3, "{shown}");
    assert_eq!(report["summary"]["notBuilt"], 0, "{shown}");
    insta::assert_snapshot!("argocd_clusters_validate", shown);
}

/// The clusters an ApplicationSet sees: the cluster Secrets of the tree, and those the options declare (from
/// `.kubectl-capz.yaml`); without either, its `clusters` generator is not built, and counted.
#[test]
fn an_application_set_sees_the_secrets_of_the_tree_and_the_declared_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    support::copy_tree(&repos().join("argocd-clusters"), &root);
    let applications = |options: &RepositoryOptions| -> (Vec<String>, Vec<String>) {
        let repository = source::load(&root, options).unwrap();
        let mut built: Vec<String> = repository
            .built
            .iter()
            .filter_map(|built| {
                built.label.strip_prefix("Argo CD ApplicationSet/workload (")?.split(')').next().map(str::to_string)
            })
            .collect();
        built.sort();
        (built, repository.not_built.iter().map(|entry| entry.reason.clone()).collect())
    };
    let options = RepositoryOptions::default();
    assert_eq!(applications(&options), (vec!["workload-dev-weu".to_string(), "workload-prod-weu".to_string()], vec![]));
    let staging = capz::source::argo::ArgoCluster {
        name: "staging-weu".into(),
        server: "https://staging.example.com".into(),
        labels: [("env", "staging"), ("argocd.argoproj.io/secret-type", "cluster")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    let declared = RepositoryOptions { argo_clusters: vec![staging], ..options.clone() };
    assert_eq!(applications(&declared).0, ["workload-dev-weu", "workload-prod-weu", "workload-staging-weu"]);
    std::fs::remove_file(root.join("argocd/clusters/prod-weu.yaml")).unwrap();
    let (built, not_built) = applications(&options);
    assert!(built.is_empty(), "{built:?}");
    assert_eq!(not_built.len(), 1, "{not_built:?}");
    assert!(not_built[0].contains("its `clusters` generator needs the clusters Argo CD knows"), "{not_built:?}");
}

/// Remote charts: an Argo CD `chart:` source and a Flux HelmRelease of a HelmRepository rendered from the chart
/// vendored in vendor/charts, a Fleet bundle's OCI chart from the archive in vendor/archives, each finding at the
/// line of the value that caused it; a chart with no copy and a version range are not built, and counted.
#[test]
fn remote_charts_are_rendered_from_vendored_copies_and_counted_otherwise() {
    let (shown, report, code) = report_of(&repos(), "remote-charts", &[]);
    assert_eq!(code, Some(1), "{shown}");
    let root = repos().join("remote-charts");
    let payments = line_of(&root.join("apps/payments.yaml"), "pluginMode: Overlay");
    let billing = line_of(&root.join("flux/releases.yaml"), "policy: calicoo");
    let identity = line_of(&root.join("fleet/identity/fleet.yaml"), "type: WorkloadIdentityy");
    assert_eq!(
        errors(&report),
        [
            format!(
                "remote-charts/apps/payments.yaml:{payments} AzureASOManagedControlPlane/payments-prod \
                 /spec/resources/0/spec/networkProfile/networkPluginMode"
            ),
            format!(
                "remote-charts/fleet/identity/fleet.yaml:{identity} AzureClusterIdentity/payments-identity /spec/type \
                 (Fleet bundle remote-charts/fleet/identity)"
            ),
            format!(
                "remote-charts/flux/releases.yaml:{billing} AzureASOManagedControlPlane/billing-prod \
                 /spec/resources/0/spec/networkProfile/networkPolicy"
            ),
        ]
    );
    let not_built: Vec<&str> =
        report["notBuilt"].as_array().unwrap().iter().map(|entry| entry["what"].as_str().unwrap()).collect();
    assert_eq!(not_built, ["Argo CD Application/cert-manager", "Flux HelmRelease/canary"]);
    insta::assert_snapshot!("remote_charts_validate", shown);
}

/// `--helm-cache DIR`: a chart of the cache stands for the remote chart nothing vendors; without the flag the
/// cache is never read.
#[test]
fn a_helm_cache_is_read_only_when_the_command_line_names_it() {
    let work = tempfile::tempdir().unwrap();
    let chart = work.path().join("src/cert-manager");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: cert-manager\nversion: 1.17.2\n").unwrap();
    std::fs::write(
        chart.join("templates/ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .Release.Namespace }}\n  labels:\n    a: {{ .Values.label | quote }}\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "label: ok\n").unwrap();
    let cache = work.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let package = std::process::Command::new(support::repo_root().join("tools/helm/bin/helm"))
        .env("HOME", work.path())
        .args(["package", chart.to_str().unwrap(), "-d", cache.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(package.status.success(), "{}", String::from_utf8_lossy(&package.stderr));
    let without = json(&validate(&repos(), &["-o", "json", "remote-charts"]));
    let with = json(&validate(&repos(), &["-o", "json", "remote-charts", "--helm-cache", cache.to_str().unwrap()]));
    let namespaces = |report: &Value| {
        report["resources"].as_array().unwrap().iter().filter(|r| r["object"] == "Namespace/cert-manager").count()
    };
    assert_eq!((namespaces(&without), namespaces(&with)), (0, 1));
    let what: Vec<&str> = with["notBuilt"].as_array().unwrap().iter().map(|e| e["what"].as_str().unwrap()).collect();
    assert_eq!(what, ["Flux HelmRelease/canary"]);
}

/// The rules of Fleet's bundle reader and Helm deployer, one bundle each, with the Fleet source file each comes
/// from; what every target builds (or why not) is the snapshot.
#[test]
fn fleet_rules_each_as_fleets_source_has_it() {
    let repo = tempfile::tempdir().unwrap();
    // A fixed name: it stands in for the GitRepo's in the release names.
    let root = &repo.path().join("rules-repo");
    let write = |path: &str, text: &str| {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    };
    let config_map =
        |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: b\n");
    let chart = |dir: &str| {
        write(&format!("{dir}/Chart.yaml"), "apiVersion: v2\nname: rules\nversion: 0.1.0\n");
        write(&format!("{dir}/values.yaml"), "data: {}\n");
        write(
            &format!("{dir}/templates/cm.yaml"),
            // The release, its namespace and the merged values, in the name.
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}.{{ .Release.Namespace }}.{{ .Values.data.from | default \"none\" }}.{{ .Values.data.keep | default \"none\" }}.{{ .Values.data.only | default \"none\" }}\n",
        );
    };
    // style.go DetermineStyle: a Chart.yaml at the bundle's root without `helm.chart` makes it a chart; the release
    // is the bundle's name (deployer.go getOpts), derived from the GitRepo's name by `fleet apply`
    // (apply.go bundleFromDir, names.HelmReleaseName): no GitRepo here, so the directory's name stands in.
    chart("root-chart");
    write("root-chart/fleet.yaml", "helm:\n  values:\n    data: {x: \"1\"}\n");
    // resources.go generateValues, calculate.go Merge: values, then values files; a target's over the bundle's;
    // namespace over defaultNamespace for the release (namespaces.go GetDeploymentNS).
    chart("merge/chart");
    write("merge/a.yaml", "data: {from: a, keep: a}\n");
    write("merge/b.yaml", "data: {from: b}\n");
    write(
        "merge/fleet.yaml",
        "defaultNamespace: base\nhelm:\n  chart: chart\n  releaseName: merged\n  values:\n    data: {from: inline, only: inline}\n  \
         valuesFiles: [a.yaml]\ntargetCustomizations:\n- clusterName: one\n  namespace: target\n  helm:\n    valuesFiles: [b.yaml]\n",
    );
    // render/helm.go manifests, patch.go Process, loaddirectory.go .fleetignore: plain files, not overlays/, not
    // .fleetignore'd, not below a Chart.yaml or another bundle; postrender.go: `namespace` sets every object's.
    write("plain/fleet.yaml", "targetCustomizations:\n- name: moved\n  namespace: moved\n");
    write("plain/a.yaml", &config_map("plain-a"));
    write("plain/sub/b.yaml", &config_map("plain-b"));
    write("plain/overlays/x/a.yaml", &config_map("overlay"));
    write("plain/ignored.yaml", &config_map("ignored"));
    write("plain/.fleetignore", "ignored.yaml\n");
    write("plain/nested/fleet.yaml", "");
    write("plain/nested/c.yaml", &config_map("nested-c"));
    // style.go kustomizePath: `kustomize.dir` per target (only kustomization.yaml).
    write("kustomized/base/kustomization.yaml", "resources: [cm.yaml]\n");
    write("kustomized/base/cm.yaml", &config_map("base"));
    write("kustomized/dev/kustomization.yaml", "resources: [../base]\nnamePrefix: dev-\n");
    write(
        "kustomized/fleet.yaml",
        // builder.go Targets: with AllMatches a cluster gets every matching customization merged; each alone here.
        "kustomize:\n  dir: base\ntargetCustomizationMode: AllMatches\ntargetCustomizations:\n- name: dev\n  \
         kustomize:\n    dir: dev\n- name: also\n  namespace: also\n",
    );
    // Not built, each counted: values from the downstream cluster (install.go getValues), values templated per
    // cluster (builder.go preprocessHelmValues), a chart to download with no copy (resources.go addRemoteCharts),
    // a values file that is not there (resources.go generateValues fails: nothing of the bundle is deployed),
    // overlays (patch.go).
    chart("not-built/chart");
    write(
        "not-built/fleet.yaml",
        "helm:\n  chart: chart\ntargetCustomizations:\n- name: from-cluster\n  helm:\n    valuesFrom:\n    - configMapKeyRef: {name: v, key: values.yaml}\n\
         - name: templated\n  helm:\n    values:\n      data: {name: \"${ .ClusterName }\"}\n- name: remote\n  helm:\n    repo: https://charts.example.com\n    chart: other\n    version: 1.0.0\n\
         - name: skipped\n  doNotDeploy: true\n",
    );
    write("broken/fleet.yaml", "helm:\n  valuesFiles: [missing.yaml]\n");
    write("broken/cm.yaml", &config_map("broken"));
    write("overlaid/fleet.yaml", "targetCustomizations:\n- name: patched\n  yaml:\n    overlays: [x]\n");
    write("overlaid/cm.yaml", &config_map("overlaid"));
    let output = capz_command()
        .current_dir(root)
        .env("PATH", path_with_helm())
        .args(["validate", "-o", "json", "."])
        .output()
        .unwrap();
    let report = json(&output);
    let mut lines: Vec<String> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["object"].as_str().unwrap(), r["source"].as_str().unwrap()))
        .collect();
    lines.sort();
    let not_built: Vec<String> = report["notBuilt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{}:{} {}", e["source"].as_str().unwrap(), e["line"], e["reason"].as_str().unwrap()))
        .collect();
    let notes: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["rule"] == "repository-source"
                && f["severity"] == "info"
                && !f["message"].as_str().unwrap().contains("not built")
        })
        .map(|f| format!("{}:{} {}", f["source"].as_str().unwrap(), f["line"], f["message"].as_str().unwrap()))
        .collect();
    // The namespaces each plain and kustomize target put its objects in, read from the library's builds.
    let repository = source::load(root, &RepositoryOptions::default()).unwrap();
    let plain: Vec<String> = repository
        .built
        .iter()
        .filter(|built| {
            built.label.starts_with("Fleet bundle plain") || built.label.starts_with("Fleet bundle kustomized")
        })
        .flat_map(|built| {
            built.documents.iter().map(move |d| {
                format!(
                    "{}: {} in {}",
                    built.label.split(':').next().unwrap(),
                    d.display_name(),
                    d.namespace().unwrap_or("-")
                )
            })
        })
        .collect();
    // diff applies the default targets, not the customizations (which cluster gets which is Fleet's choice).
    let applied: Vec<String> = repository
        .applied_documents()
        .iter()
        .filter(|d| d.name() == "plain-a")
        .map(|d| format!("{} {}", d.namespace().unwrap_or("-"), d.origin.source))
        .collect();
    assert_eq!(applied, [format!("- {}", root.join("plain/a.yaml").display())]);
    insta::assert_snapshot!(
        "fleet_rules",
        format!(
            "--- objects\n{}\n--- plain and kustomize targets\n{}\n--- not built\n{}\n--- notes\n{}\n",
            lines.join("\n"),
            plain.join("\n"),
            not_built.join("\n"),
            notes.join("\n")
        )
    );
}
