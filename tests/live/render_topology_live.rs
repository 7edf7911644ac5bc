//! Our ClusterClasses and topology Clusters against a real kube-apiserver with the CAPI/CAPZ CRDs:
//! `render TOPOLOGY --with-class --validate` is clean, and the API server accepts every object of
//! the bundle (`kubectl create --dry-run=server --validate=strict`), for both CAPI API versions.

use crate::support;
use crate::support::cli_runner::capz_command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn render(flavor: &str, values: &str, capi: &str, namespace: &str) -> String {
    let args =
        ["render", flavor, "--values", values, "-n", namespace, "--capi-api", capi, "--with-class", "--validate"];
    let out = capz_command().env_clear().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "render {args:?}:\n{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn class_and_topology_bundles_are_accepted_by_the_api_server() {
    let api = support::apiserver();
    let cases = [
        ("aks-aso-topology", "tests/fixtures/clusterclass/aks-aso-topology.values.yaml", 9),
        ("aks-aso-topology", "tests/fixtures/clusterclass/aks-aso-minimal.values.yaml", 8),
        ("aks-topology", "examples/aks.values.yaml", 9),
    ];
    for (flavor, values, count) in cases {
        for capi in ["v1beta1", "v1beta2"] {
            let ns = api.namespace(&format!("{flavor}-{capi}"));
            let manifests = render(flavor, values, capi, &ns);
            let out = api.kubectl_stdin(
                &["create", "--dry-run=server", "--validate=strict", "-n", &ns, "-o", "name", "-f", "-"],
                &manifests,
            );
            assert!(
                out.status.success(),
                "the API server rejects {flavor} ({values}) --capi-api {capi}:\n{}\nmanifests:\n{manifests}",
                text(&out.stderr)
            );
            let created = text(&out.stdout);
            assert_eq!(created.lines().count(), count, "{flavor} {capi}: not every object created:\n{created}");
            assert!(
                created.lines().next().is_some_and(|l| l.starts_with("clusterclass.cluster.x-k8s.io/")),
                "{created}"
            );
        }
    }
}
