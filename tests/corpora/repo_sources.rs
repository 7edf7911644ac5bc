//! What repository mode reads from the Helm and Argo CD fixture repositories before any tool runs: the sources of
//! Argo CD Applications and ApplicationSets, the helm requests of Flux HelmReleases, and charts refused before helm
//! would have to download anything.

use std::path::{Path, PathBuf};

use capz::manifest::{Document, read_paths};
use capz::source::argo::{ArgoBuild, argo_sources};
use capz::source::helm::{self, HelmProblem, RenderRequest};
use serde_json::json;

fn repos() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos")
}

fn documents(root: &Path, file: &str) -> Vec<Document> {
    read_paths(&[root.join(file).display().to_string()]).unwrap()
}

/// Each source as one line: owner, then what is built.
fn describe(root: &Path, file: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for document in documents(root, file) {
        for source in argo_sources(&document, root) {
            let built = match &source.build {
                ArgoBuild::Directory { relative, recurse, include, exclude, .. } => {
                    format!("directory {relative} recurse={recurse} include={include:?} exclude={exclude:?}")
                }
                ArgoBuild::Kustomize { relative, .. } => format!("kustomize {relative}"),
                ArgoBuild::Helm { relative, request } => format!("helm {relative}: {}", command(root, request)),
                ArgoBuild::NotBuilt { reason } => format!("not built: {reason}"),
            };
            lines.push(format!("{} -> {built}", source.owner));
        }
    }
    lines
}

/// The request as the helm command it stands for, paths relative to `root`.
fn command(root: &Path, request: &RenderRequest) -> String {
    let relative = |path: &Path| path.strip_prefix(root).unwrap().display().to_string();
    let mut words = vec![request.release.clone(), relative(&request.chart_dir), format!("-n {}", request.namespace)];
    words.extend(request.values_files.iter().map(|file| format!("-f {}", relative(file))));
    words.extend(request.inline_values.iter().map(|inline| format!("-f <{}: {}>", inline.label, inline.value)));
    words.extend(request.set.iter().map(|set| format!("--set {set}")));
    words.extend(request.set_string.iter().map(|set| format!("--set-string {set}")));
    words.join(" ")
}

#[test]
fn app_of_apps_sources_are_a_directory_a_chart_a_kustomization_an_application_set_and_a_remote_chart() {
    let root = repos().join("argocd-app-of-apps");
    let mut all = Vec::new();
    for file in [
        "bootstrap/root-app.yaml",
        "apps/shop-prod.yaml",
        "apps/team-clusters.yaml",
        "apps/cluster-overlays.yaml",
        "apps/cert-manager.yaml",
    ] {
        all.extend(describe(&root, file));
    }
    assert_eq!(
        all,
        [
            r#"Application/root -> directory apps recurse=true include="*.yaml" exclude="""#,
            r#"Application/shop-prod -> helm charts/aks-aso-cluster: shop-prod charts/aks-aso-cluster -n shop -f charts/aks-aso-cluster/values-prod.yaml -f <Application/shop-prod helm.valuesObject: {"network":{"policy":"azure"}}> --set-string cluster.kubernetesVersion=v1.33.3"#,
            "Application/team-clusters -> kustomize clusters/overlays/prod",
            "ApplicationSet/cluster-overlays (team-staging) -> kustomize clusters/overlays/staging",
            "Application/cert-manager -> not built: chart `cert-manager` comes from the Helm repository \
             https://charts.jetstack.io: it would need a download; not built",
        ]
    );
}

#[test]
fn inline_values_of_an_application_keep_their_lines() {
    let root = repos().join("argocd-app-of-apps");
    let document = &documents(&root, "apps/shop-prod.yaml")[0];
    let sources = argo_sources(document, &root);
    let ArgoBuild::Helm { request, .. } = &sources[0].build else { panic!("{sources:?}") };
    let (file, lines) = request.inline_values[0].written_at.clone().unwrap();
    assert_eq!(file, root.join("apps/shop-prod.yaml"));
    // `policy: azure` under valuesObject.network is line 20 of the Application.
    assert_eq!(lines.get("/network/policy"), Some(&20));
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().nth(19).map(str::trim), Some("policy: azure"));
}

#[test]
fn application_sources_outside_the_tree_or_with_unknown_generators_are_not_built() {
    let root = repos().join("argocd-app-of-apps");
    let application = json!({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "elsewhere"},
        "spec": {"sources": [
            {"repoURL": "https://github.com/other/repo.git", "path": "deploy/prod"},
            {"repoURL": "https://github.com/example-org/fleet-gitops.git", "ref": "values"},
            {"repoURL": "https://github.com/example-org/fleet-gitops.git", "path": "../outside"},
            {"repoURL": "https://github.com/example-org/fleet-gitops.git", "path": "charts/aks-aso-cluster",
             "helm": {"valueFiles": ["$values/charts/aks-aso-cluster/values-prod.yaml", "missing.yaml"],
                      "ignoreMissingValueFiles": true}}
        ]}
    });
    let set = json!({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "metadata": {"name": "per-cluster"},
        "spec": {"generators": [{"clusters": {}}], "template": {"metadata": {"name": "{{name}}"}, "spec": {}}}
    });
    let source: std::sync::Arc<str> = std::sync::Arc::from("inline.yaml");
    let mut lines = Vec::new();
    for value in [application, set] {
        for found in argo_sources(&Document::from_value(value, &source, 0), &root) {
            lines.push(match found.build {
                ArgoBuild::NotBuilt { reason } => format!("{}: {reason}", found.owner),
                ArgoBuild::Helm { request, .. } => format!("{}: helm {}", found.owner, command(&root, &request)),
                other => format!("{}: {other:?}", found.owner),
            });
        }
    }
    assert_eq!(
        lines,
        [
            "Application/elsewhere: path `deploy/prod` of https://github.com/other/repo.git is not a directory of this \
             repository: not built",
            "Application/elsewhere: path `../outside` of https://github.com/example-org/fleet-gitops.git is not a \
             directory of this repository: not built",
            "Application/elsewhere: helm elsewhere charts/aks-aso-cluster -n default -f \
             charts/aks-aso-cluster/values-prod.yaml",
            "ApplicationSet/per-cluster: its `clusters` generator needs the clusters Argo CD knows: no cluster Secret \
             (labelled argocd.argoproj.io/secret-type: cluster) is in this repository and .kubectl-capz.yaml declares \
             none (`argocd.clusters`): not built",
        ]
    );
}

#[test]
fn a_helm_release_of_a_chart_in_the_tree_renders_with_its_values_in_flux_order() {
    let root = repos().join("flux-helmrelease");
    let all = documents(&root, "clusters/prod");
    let lookup = |kind: &str, namespace: &str, name: &str| {
        all.iter().find(|d| d.kind() == kind && d.name() == name && d.namespace() == Some(namespace)).cloned()
    };
    let mut lines = Vec::new();
    for release in all.iter().filter(|document| helm::is_helm_release(document)) {
        lines.push(match helm::helm_release_request(release, &root, &lookup) {
            Ok(request) => format!("{}: {}", release.name(), command(&root, &request)),
            Err(reason) => format!("{}: {reason}", release.name()),
        });
    }
    assert_eq!(
        lines,
        [
            "ingress-nginx: its chart `ingress-nginx` comes from HelmRepository/ingress-nginx: it would need a download",
            "team-b: team-b-team-b charts/aks-cluster -n team-b \
             -f <ConfigMap/team-b-cluster-values values.yaml: {\"location\":\"westeurope\",\"resourceGroupName\":\"rg-team-b\",\
             \"machinePools\":{\"pool0\":{\"mode\":\"System\",\"sku\":\"Standard_D4s_v5\",\"replicas\":3}}}> \
             -f <HelmRelease/team-b spec.values: {\"clusterName\":\"team-b\",\"namespace\":\"team-b\",\"identity\":{\"name\":\"team-b-identity\"}}>",
        ]
    );
    // Without the ConfigMap in the tree, the release is not rendered.
    let nothing = |_: &str, _: &str, _: &str| None;
    let team_b = all.iter().find(|d| d.name() == "team-b" && helm::is_helm_release(d)).unwrap();
    assert_eq!(
        helm::helm_release_request(team_b, &root, &nothing).unwrap_err(),
        "its valuesFrom ConfigMap/team-b-cluster-values (key values.yaml) is not in this repository"
    );
}

#[test]
fn helm_releases_of_a_helm_repository_or_an_oci_repository_take_the_vendored_copy_of_an_exact_version() {
    let root = repos().join("remote-charts");
    let text = "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata:\n  name: platform\n  \
                namespace: flux-system\nspec:\n  url: oci://ghcr.io/example-org/charts/aks-aso-cluster\n  ref:\n    tag: 0.4.2\n\
                ---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: oci\n  namespace: flux-system\n\
                spec:\n  chartRef:\n    kind: OCIRepository\n    name: platform\n";
    let documents = capz::manifest::parse_documents(text, "oci.yaml").unwrap();
    let lookup = |kind: &str, namespace: &str, name: &str| {
        documents.iter().find(|d| d.kind() == kind && d.name() == name && d.namespace() == Some(namespace)).cloned()
    };
    let files: Vec<String> = vec!["vendor/charts/aks-aso-cluster/Chart.yaml".into()];
    let locator = helm::ChartLocator::new(&root, &files, None);
    let resolve = |chart: &helm::RemoteChart| locator.locate(chart);
    let request = helm::helm_release_request_with(&documents[1], &root, &lookup, &resolve).unwrap();
    assert_eq!(request.chart_dir, root.join("vendor/charts/aks-aso-cluster"));
    let releases = documents_of(&root, "flux/releases.yaml");
    let billing = releases.iter().find(|d| d.name() == "billing").unwrap();
    let request = helm::helm_release_request_with(billing, &root, &lookup, &resolve).unwrap();
    assert_eq!((request.release.as_str(), request.namespace.as_str()), ("billing-billing", "billing"));
    let canary = releases.iter().find(|d| d.name() == "canary").unwrap();
    let reason = helm::helm_release_request_with(canary, &root, &lookup, &resolve).unwrap_err();
    assert!(reason.contains("its version `0.4.x` is a range"), "{reason}");
}

fn documents_of(root: &Path, file: &str) -> Vec<Document> {
    documents(root, file)
}

#[test]
fn charts_needing_a_download_or_absent_dependencies_are_refused_before_helm_runs() {
    let root = repos().join("helm-needs-download");
    // Refused before any process starts: the same answer whatever is on PATH.
    let platform =
        helm::render_chart(&root.join("charts/platform"), &root, &capz::source::Budget::default()).unwrap_err();
    assert_eq!(
        platform,
        HelmProblem::NeedsDownload {
            chart: root.join("charts/platform"),
            dependency: "cert-manager".into(),
            repository: "https://charts.jetstack.io".into(),
        }
    );
    let local =
        helm::render_chart(&root.join("charts/local-deps"), &root, &capz::source::Budget::default()).unwrap_err();
    assert_eq!(
        local,
        HelmProblem::MissingDependencies { chart: root.join("charts/local-deps"), names: vec!["common".into()] }
    );
    assert!(local.to_string().contains("run `helm dependency build "), "{local}");
    assert_eq!(local.file(), root.join("charts/local-deps/Chart.yaml"));
}

#[test]
fn a_chart_with_a_symlink_out_of_the_repository_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), "token: x\n").unwrap();
    let repo = tempfile::tempdir().unwrap();
    let chart = repo.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: linked\nversion: 0.1.0\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), chart.join("templates/secret.yaml")).unwrap();
    let problem = helm::render_chart(&chart, repo.path(), &capz::source::Budget::default()).unwrap_err();
    assert_eq!(
        problem,
        HelmProblem::SymlinkOutOfRepository { chart: chart.clone(), link: chart.join("templates/secret.yaml") }
    );
}
