//! `validate` agrees with the real kube-apiserver: every object of the validation corpus is submitted
//! with `kubectl create --dry-run=server --validate=strict` (what `kubectl create`/a first `kubectl apply`
//! sends: a create with `fieldValidation=Strict`) to the kube-apiserver of tools/kube-testenv, and the
//! server's verdict must equal ours, object by object. Differences are allowed only where the server is
//! known not to look, each named below with the reason ([`not_the_servers_business`]).
//!
//! The embedded ASO objects of CAPZ's `spec.resources` are submitted on their own as well (the server serves
//! ASO's CRDs), and must get our verdict for them.
//!
//! Also: `validate --crds-from-cluster` against that server, and the server accepting what `render`
//! produces.

use crate::support;
use crate::support::cli_runner::capz_command;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

// ---------------------------------------------------------------------------------------------------------
// Helpers

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn capz(args: &[&str]) -> Output {
    capz_command().args(args).output().unwrap()
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for kind in ["valid", "invalid"] {
        let dir = support::repo_root().join("tests/corpus").join(kind);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The documents of a multi-document YAML text, as the raw text kubectl would read (so YAML 1.1 quirks
/// like unquoted `yes` reach the server unchanged). Documents holding only comments are dropped.
fn split_documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.lines() {
        if line == "---" || line.starts_with("--- ") {
            docs.push(String::new());
        } else {
            let doc = docs.last_mut().unwrap();
            doc.push_str(line);
            doc.push('\n');
        }
    }
    docs.into_iter().filter(|d| d.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))).collect()
}

/// Moves the object to `namespace`: rewrites a top-level `metadata.namespace` line (two-space indent,
/// the corpus' style) in the raw text. Objects without one get the namespace from `kubectl -n`.
fn in_namespace(doc: &str, namespace: &str) -> String {
    let mut out = String::new();
    let mut in_metadata = false;
    for line in doc.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') && !line.is_empty() {
            in_metadata = line.starts_with("metadata:");
        }
        if in_metadata && line.starts_with("  namespace:") {
            out.push_str(&format!("  namespace: {namespace}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `# args:` of a corpus file (flags for `validate`).
fn corpus_args(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# args:"))
        .flat_map(|rest| rest.split_whitespace().map(str::to_string))
        .collect()
}

/// One error finding of ours.
#[derive(Debug, Clone)]
struct Finding {
    rule: String,
    kind: String,
    path: String,
}

/// Our error findings for a whole corpus file (so rules that look across objects see them all), per
/// object in document order: a finding belongs to the object whose first line is the last at or before
/// the finding's line.
fn our_errors(file: &Path, args: &[String]) -> Vec<Vec<Finding>> {
    let mut cmd_args: Vec<String> = vec!["validate".into(), "-o".into(), "json".into()];
    cmd_args.extend(args.iter().cloned());
    cmd_args.push(file.to_string_lossy().into_owned());
    let out = capz_command().args(&cmd_args).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("validate printed no JSON report for {} ({e}); stderr:\n{}", file.display(), text(&out.stderr))
    });
    let starts: Vec<u64> =
        report["resources"].as_array().unwrap().iter().map(|r| r["line"].as_u64().expect("resource line")).collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{}: resources out of order: {starts:?}", file.display());
    let mut per_object = vec![Vec::new(); starts.len()];
    for f in report["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "error") {
        let line = f["line"].as_u64().expect("finding line");
        let index = starts
            .iter()
            .rposition(|&start| start <= line)
            .unwrap_or_else(|| panic!("{}: finding at line {line} precedes every object: {f}", file.display()));
        per_object[index].push(Finding {
            rule: f["rule"].as_str().unwrap_or_default().to_owned(),
            kind: f["object"].as_str().unwrap_or_default().split('/').next().unwrap_or_default().to_owned(),
            path: f["path"].as_str().unwrap_or_default().to_owned(),
        });
    }
    per_object
}

/// Kinds whose `spec.resources` (or `spec.template.spec.resources` for templates) hold embedded ASO
/// objects.
const ASO_EMBEDDING_KINDS: &[&str] = &[
    "AzureASOManagedCluster",
    "AzureASOManagedControlPlane",
    "AzureASOManagedMachinePool",
    "AzureASOManagedClusterTemplate",
    "AzureASOManagedControlPlaneTemplate",
    "AzureASOManagedMachinePoolTemplate",
];

/// Why the API server does not see what this finding reports, or `None` when it must reject the object
/// for it. Every allowed difference between our verdict and the server's is one of these reasons.
fn not_the_servers_business(f: &Finding) -> Option<&'static str> {
    if capz::lint::rules().iter().any(|rule| rule.id == f.rule) {
        // The lint rules (capz-*, aks-*, aso-*, capi-*, clusterctl-*) restate CAPZ/CAPI webhooks and what AKS,
        // ASO or CAPI reject at reconcile; the test server runs no webhooks (tools/kube-testenv/README.md).
        return Some("lint rule: webhook/controller behaviour, not the CRD schema");
    }
    if f.rule == "yaml-duplicate-key" {
        // kubectl's YAML decoding silently keeps the last of two equal keys, so the server never sees the
        // duplicate; we report it on purpose (the first value is lost). yaml-syntax and not-an-object are
        // rejected by kubectl too and are compared like any other verdict.
        return Some("reader rule: kubectl keeps the last duplicate before any request");
    }
    if ASO_EMBEDDING_KINDS.contains(&f.kind.as_str()) {
        let rest =
            f.path.strip_prefix("/spec/template/spec/resources/").or_else(|| f.path.strip_prefix("/spec/resources/"));
        if rest.is_some_and(|r| r.split('/').next().is_some_and(|i| i.parse::<usize>().is_ok())) {
            // CAPZ's CRDs declare `resources` items as `type: object` with
            // x-kubernetes-preserve-unknown-fields: the server stores any embedded ASO object unchecked;
            // ASO rejects it only when CAPZ's controller applies it. Checking it up front is the point of
            // `validate`; embedded_aso_objects_get_the_api_servers_verdict_on_their_own compares those
            // findings with the server's verdict on each embedded object submitted on its own.
            return Some("embedded ASO object: the server stores spec.resources unchecked");
        }
    }
    None
}

/// For the kinds with a CAPZ defaulting webhook (which the test server does not run), the object as that webhook
/// returns it (`capz::schema::defaulting`, checked against CAPZ's recorded patches), so that the server's schema
/// check sees what it sees in a real cluster; other objects unchanged.
fn as_capz_defaults_it(doc: &str) -> String {
    let Ok(parsed) = capz::manifest::parse_documents(doc, "doc") else { return doc.to_string() };
    let [document] = parsed.as_slice() else { return doc.to_string() };
    let (group, version) = capz::manifest::split_api_version(document.api_version());
    let mut value = document.value.clone();
    if capz::schema::defaulting::apply(group, version, document.kind(), &mut value) {
        serde_json::to_string(&value).unwrap()
    } else {
        doc.to_string()
    }
}

/// What `kubectl create` and a first client-side `kubectl apply` send: a create with `fieldValidation=Strict`.
const CREATE: &[&str] = &["create", "--dry-run=server", "--validate=strict"];
/// Server-side apply as `kubectl apply --server-side` and Flux do it.
const SERVER_SIDE_APPLY: &[&str] = &["apply", "--server-side", "--dry-run=server", "--field-manager=capz-test"];

/// `kubectl create --dry-run=server --validate=strict` of one raw document in `namespace` (see [`server_verdicts`]).
fn server_verdict(api: &support::ApiServer, doc: &str, namespace: &str) -> Result<(), String> {
    server_verdicts(api, CREATE, &as_submitted(&[doc], namespace), namespace).pop().expect("one verdict")
}

/// Corpus documents as they are submitted: in `namespace`, and as CAPZ's defaulting webhook returns them.
fn as_submitted<D: AsRef<str>>(documents: &[D], namespace: &str) -> Vec<String> {
    documents.iter().map(|doc| as_capz_defaults_it(&in_namespace(doc.as_ref(), namespace))).collect()
}

/// The server's verdict on each document (YAML or JSON text) with `kubectl <command> -n namespace -o name -f -`:
/// `Ok` when it is accepted, else kubectl's message.
///
/// kubectl sends every object of a stream as its own request and exits 0 only when each one succeeded, printing
/// one name per object: so when a whole stream comes back with exit 0 and one name per document, every document
/// is accepted, in one kubectl process instead of one per document (kubectl's start-up is most of a dry run's
/// cost). Otherwise each document of that stream is submitted alone, so that every rejection carries its own
/// message. YAML and JSON documents go in separate streams: kubectl reads a stream starting with `{` as JSON
/// throughout, and JSON text read as YAML 1.1 is not always the same value.
fn server_verdicts(
    api: &support::ApiServer,
    command: &[&str],
    submitted: &[String],
    namespace: &str,
) -> Vec<Result<(), String>> {
    let mut args = command.to_vec();
    args.extend(["-n", namespace, "-o", "name", "-f", "-"]);
    let mut verdicts = vec![Ok(()); submitted.len()];
    for json in [false, true] {
        let members: Vec<usize> =
            (0..submitted.len()).filter(|&i| submitted[i].trim_start().starts_with('{') == json).collect();
        if members.is_empty() {
            continue;
        }
        if members.len() > 1 {
            let stream = if json {
                members.iter().map(|&i| format!("{}\n", submitted[i].trim_end())).collect::<String>()
            } else {
                members.iter().map(|&i| submitted[i].as_str()).collect::<Vec<_>>().join("---\n")
            };
            let out = api.kubectl_stdin(&args, &stream);
            if out.status.success() && text(&out.stdout).lines().count() == members.len() {
                continue;
            }
        }
        for &i in &members {
            let out = api.kubectl_stdin(&args, &submitted[i]);
            if !out.status.success() {
                verdicts[i] = Err(text(&out.stderr).trim().to_owned());
            }
        }
    }
    verdicts
}

// ---------------------------------------------------------------------------------------------------------
// 1. The corpus: our verdict equals the server's

#[test]
fn corpus_verdicts_equal_the_api_servers() {
    let api = support::apiserver();
    let ns = api.namespace("corpus");

    let mut disagreements = Vec::new();
    let (mut compared, mut rejected_by_both, mut accepted_by_both, mut explained) = (0, 0, 0, 0);
    for file in corpus_files() {
        let content = std::fs::read_to_string(&file).unwrap();
        let rel = file.strip_prefix(support::repo_root()).unwrap().display().to_string();
        if content.lines().any(|l| l.trim() == "# expect: input-error") {
            // Input errors (e.g. duplicate keys) are about reading the file; validate_corpus covers them.
            continue;
        }
        let args = corpus_args(&content);
        let documents = split_documents(&content);
        let ours_per_object = our_errors(&file, &args);
        assert_eq!(ours_per_object.len(), documents.len(), "{rel}: validate saw another number of objects");
        let server_per_object = server_verdicts(api, CREATE, &as_submitted(&documents, &ns), &ns);
        for (index, (ours, server)) in ours_per_object.iter().zip(server_per_object).enumerate() {
            let (server_relevant, other): (Vec<&Finding>, Vec<&Finding>) =
                ours.iter().partition(|f| not_the_servers_business(f).is_none());
            compared += 1;
            match (&server, server_relevant.is_empty()) {
                (Ok(()), true) => {
                    accepted_by_both += 1;
                    explained += usize::from(!other.is_empty());
                }
                (Err(message), false) => {
                    rejected_by_both += 1;
                    // The server names at least one of the fields we name (it may stop at the first
                    // class of error, e.g. unknown fields before schema errors).
                    let named = server_relevant
                        .iter()
                        .any(|f| server_names_field(message, f) || explains_fieldless(message, f));
                    if !named {
                        disagreements.push(format!(
                            "{rel} document {index}: both reject, but the server names none of our fields \
                             {:?}:\n  server: {message}",
                            server_relevant.iter().map(|f| &f.path).collect::<Vec<_>>()
                        ));
                    }
                }
                (Ok(()), false) => disagreements
                    .push(format!("{rel} document {index}: the server ACCEPTS, we report {server_relevant:#?}")),
                (Err(message), true) => disagreements.push(format!(
                    "{rel} document {index}: the server REJECTS, we report no server-side error \
                     (other findings: {other:?}):\n  server: {message}"
                )),
            }
        }
    }
    eprintln!(
        "{compared} objects: {rejected_by_both} rejected by both, {accepted_by_both} accepted by both \
         ({explained} of them with findings the server does not check)"
    );
    assert!(disagreements.is_empty(), "{} disagreement(s):\n{}", disagreements.len(), disagreements.join("\n\n"));
    // The comparison is not vacuous: both verdicts occur, and some objects differ only for named reasons.
    assert!(compared >= 200, "only {compared} objects compared");
    assert!(rejected_by_both >= 15, "only {rejected_by_both} objects rejected by both");
    assert!(accepted_by_both >= 150, "only {accepted_by_both} objects accepted by both");
    assert!(explained >= 25, "only {explained} accepted objects carry findings the server does not check");
}

/// Decoding errors the server reports without a field (Go's decoder stops at the first one), each with
/// what our finding for it looks like.
const FIELDLESS_SERVER_ERRORS: &[(&str, &str, &str)] = &[
    // Secret.data values are []byte: encoding/base64 fails before any field validation runs.
    ("illegal base64 data", "schema", "/data/"),
];

fn explains_fieldless(message: &str, f: &Finding) -> bool {
    FIELDLESS_SERVER_ERRORS
        .iter()
        .any(|(server, rule, path)| message.contains(server) && f.rule == *rule && f.path.starts_with(path))
}

/// Whether the server's error message names the field of our finding (or a parent of it): the JSON
/// pointer in the server's notation, `spec.a.b[1].c`.
fn server_names_field(message: &str, f: &Finding) -> bool {
    let segments: Vec<String> =
        f.path.trim_start_matches('/').split('/').map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
    // From the full path down to its first segment below the root field (`spec.x`, `metadata.name`, `data`).
    (1..=segments.len()).rev().any(|n| {
        let mut dotted = String::new();
        for s in &segments[..n] {
            if s.parse::<usize>().is_ok() {
                dotted.push_str(&format!("[{s}]"));
            } else {
                if !dotted.is_empty() {
                    dotted.push('.');
                }
                dotted.push_str(s);
            }
        }
        (n >= 2 || segments.len() == 1) && message.contains(&dotted) || message.contains(&format!("\"{dotted}\""))
    })
}

// ---------------------------------------------------------------------------------------------------------
// 2. --crds-from-cluster

fn fixture(name: &str) -> PathBuf {
    support::repo_root().join("tests/fixtures/live_validate").join(name)
}

/// Installs the Gadget CRD (known only to the live server) once and waits until it is served.
fn install_gadget_crd(api: &support::ApiServer) {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let crd = fixture("gadgets-crd.yaml");
        api.kubectl_ok(&["apply", "-f", &crd.to_string_lossy()]);
        api.wait_established(&["crd/gadgets.verdicts.kubectl-capz.invalid"]);
    });
}

fn findings(out: &Output) -> Vec<(String, String)> {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{}", text(&out.stderr)));
    let mut found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| (f["rule"].as_str().unwrap().to_owned(), f["path"].as_str().unwrap().to_owned()))
        .collect();
    found.sort();
    found
}

#[test]
fn crds_from_cluster_validates_a_kind_only_the_cluster_knows() {
    let api = support::apiserver();
    install_gadget_crd(api);
    let kubeconfig = api.kubeconfig.to_string_lossy().into_owned();
    let valid = fixture("gadget-valid.yaml").to_string_lossy().into_owned();
    let invalid = fixture("gadget-invalid.yaml").to_string_lossy().into_owned();

    // Without the cluster's CRDs the kind is unknown: a warning, the object not checked.
    let offline = capz(&["validate", "-o", "json", &valid]);
    assert_eq!(offline.status.code(), Some(0), "stderr:\n{}", text(&offline.stderr));
    assert_eq!(findings(&offline), vec![]);
    let report: Value = serde_json::from_slice(&offline.stdout).unwrap();
    assert_eq!(report["findings"][0]["rule"], "schema-missing");
    assert_eq!(report["findings"][0]["severity"], "warning");
    assert_eq!(report["summary"]["skipped"], 1);

    let ok = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "-o", "json", &valid]);
    assert_eq!(ok.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", text(&ok.stdout), text(&ok.stderr));
    assert_eq!(findings(&ok), vec![]);

    let bad = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "-o", "json", &invalid]);
    assert_eq!(bad.status.code(), Some(1), "stdout:\n{}\nstderr:\n{}", text(&bad.stdout), text(&bad.stderr));
    let found = findings(&bad);
    assert_eq!(
        found,
        vec![("cel".to_owned(), "/spec".to_owned()), ("schema".to_owned(), "/spec/color".to_owned())],
        "{}",
        text(&bad.stdout)
    );

    // The server agrees, for the same reasons (one object per reason: the server skips CEL rules when the
    // schema already failed, "some validation rules were not checked because the object was invalid").
    let ns = api.namespace("gadgets");
    let server_ok = api.kubectl(&["create", "--dry-run=server", "--validate=strict", "-n", &ns, "-f", &valid]);
    assert!(server_ok.status.success(), "server rejects the valid Gadget:\n{}", text(&server_ok.stderr));
    let documents = split_documents(&std::fs::read_to_string(&invalid).unwrap());
    let expected = ["spec.color: Unsupported value: \"green\"", "size must not exceed maxSize"];
    assert_eq!(documents.len(), expected.len());
    for (doc, reason) in documents.iter().zip(expected) {
        match server_verdict(api, doc, &ns) {
            Ok(()) => panic!("server accepts an invalid Gadget:\n{doc}"),
            Err(message) => assert!(message.contains(reason), "server message lacks {reason:?}:\n{message}"),
        }
    }
}

#[test]
fn crds_from_cluster_with_a_bad_kubeconfig_is_an_error() {
    let api = support::apiserver();
    let valid = fixture("gadget-valid.yaml").to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();

    // A kubeconfig file that does not exist.
    let missing = dir.path().join("missing.kubeconfig").to_string_lossy().into_owned();
    let out = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &missing, &valid]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("error: cannot fetch CRDs from the cluster") && stderr.contains(&missing),
        "stderr:\n{stderr}"
    );
    assert!(out.stdout.is_empty(), "no report on a cluster error:\n{}", text(&out.stdout));

    // A kubeconfig that is not one.
    let garbage = dir.path().join("garbage.kubeconfig");
    std::fs::write(&garbage, "clusters: [oops\n").unwrap();
    let garbage = garbage.to_string_lossy().into_owned();
    let out = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &garbage, &valid]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains(&garbage), "stderr does not name the kubeconfig:\n{stderr}");

    // A context the kubeconfig does not have.
    let kubeconfig = api.kubeconfig.to_string_lossy().into_owned();
    let out = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "--context", "nope", &valid]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("nope"), "stderr does not name the context:\n{stderr}");

    // A server nobody listens on: the same kubeconfig pointed at a closed port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let original = std::fs::read_to_string(&api.kubeconfig).unwrap();
    let unreachable = dir.path().join("unreachable.kubeconfig");
    std::fs::write(&unreachable, original.replace(&api.server, &format!("https://127.0.0.1:{port}"))).unwrap();
    let unreachable = unreachable.to_string_lossy().into_owned();
    let out = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &unreachable, &valid]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("cannot fetch CRDs from the cluster"), "stderr:\n{stderr}");

    assert!(stderr.contains(&format!("cannot reach the API server https://127.0.0.1:{port}")), "stderr:\n{stderr}");

    // A user without RBAC rights: the server answers 403; one line that says who may not do what.
    let forbidden = api.forbidden_kubeconfig.to_string_lossy().into_owned();
    let out = capz(&["validate", "--crds-from-cluster", "--kubeconfig", &forbidden, &valid]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(
        stderr.starts_with("error: cannot fetch CRDs from the cluster: forbidden: the user of context `")
            && stderr.contains("may not list CustomResourceDefinition: ")
            && stderr.contains("cannot list resource \"customresourcedefinitions\""),
        "stderr:\n{stderr}"
    );
    assert!(!stderr.contains("Status {") && !stderr.contains("ErrorResponse"), "debug form leaked:\n{stderr}");
    assert!(out.stdout.is_empty(), "no report on a cluster error:\n{}", text(&out.stdout));

    // A bad --request-timeout is a usage error.
    let out =
        capz(&["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "--request-timeout", "soon", &valid]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--request-timeout: invalid duration `soon`"), "{}", text(&out.stderr));
}

/// A server that accepts connections and never answers: without --request-timeout the fetch would
/// wait for the 30s default; with 1s it gives up after one second and says so.
#[test]
fn crds_from_cluster_honours_the_request_timeout() {
    let api = support::apiserver();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("https://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("silent.kubeconfig");
    std::fs::write(&kubeconfig, std::fs::read_to_string(&api.kubeconfig).unwrap().replace(&api.server, &server))
        .unwrap();
    let valid = fixture("gadget-valid.yaml").to_string_lossy().into_owned();
    let out = capz(&[
        "validate",
        "--crds-from-cluster",
        "--kubeconfig",
        &kubeconfig.to_string_lossy(),
        "--request-timeout",
        "1s",
        &valid,
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot fetch CRDs from the cluster: list CustomResourceDefinition: no answer from the API server \
             {server} within the request timeout of 1s\n"
        )
    );
    drop(silent);
}

/// The CRD list is read in pages (kubectl's --chunk-size); with a small page size every CRD of the
/// server still arrives once, the same set kubectl lists.
#[test]
fn cluster_crd_listing_pages_through_every_crd() {
    // Alone on the shared server: another test installing CRDs (Flux's, at first use) between the listings
    // and kubectl's would change the set under the comparison.
    let api = support::apiserver_exclusive();
    install_gadget_crd(api);
    let names = |crds: &[Value]| {
        let mut names: Vec<String> = crds.iter().map(|c| c["metadata"]["name"].as_str().unwrap().to_string()).collect();
        names.sort();
        names
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let list = |page: u32| {
        let options = capz::cluster::ClusterOptions {
            kubeconfig: Some(api.kubeconfig.clone()),
            list_page_size: page,
            ..Default::default()
        };
        runtime.block_on(async {
            let cluster = capz::cluster::Cluster::connect(&options).await.unwrap();
            cluster.custom_resource_definitions().await.unwrap()
        })
    };
    let paged = list(3);
    let whole = list(0);
    let kubectl: Vec<String> = {
        let mut names: Vec<String> = api
            .kubectl_ok(&["get", "crd", "-o", "name"])
            .lines()
            .map(|l| l.trim_start_matches("customresourcedefinition.apiextensions.k8s.io/").to_string())
            .collect();
        names.sort();
        names
    };
    assert!(kubectl.len() > 3 * 2, "enough CRDs for several pages: {kubectl:?}");
    assert_eq!(names(&paged), kubectl);
    assert_eq!(names(&whole), kubectl);
    assert!(
        paged.iter().all(|c| c["kind"] == "CustomResourceDefinition" && c["apiVersion"] == "apiextensions.k8s.io/v1")
    );
    assert!(kubectl.contains(&"gadgets.verdicts.kubectl-capz.invalid".to_string()));
}

// ---------------------------------------------------------------------------------------------------------
// 3. What `render` produces, the API server accepts ("the CAPI and CAPZ CRD schemas accept")

/// `render FLAVOR demo -n NAMESPACE --capi-api CAPI --validate` with every required parameter.
fn render(flavor: &str, capi: &str, namespace: &str) -> String {
    let mut args = vec![
        "render",
        flavor,
        "demo",
        "-n",
        namespace,
        "--kubernetes-version",
        "v1.33.2",
        "--capi-api",
        capi,
        "--validate",
        "--set",
        "location=westeurope",
        "--set",
        "poolDefaults.vmSize=Standard_D2s_v3",
        "--set",
        "subscriptionId=00000000-0000-0000-0000-000000000000",
        "--set",
        "tenantId=00000000-0000-0000-0000-000000000000",
        "--set",
        "identity.clientId=00000000-0000-0000-0000-000000000000",
    ];
    if flavor == "aks" {
        args.extend(["--set", "identity.name=demo-identity"]);
    } else {
        args.extend([
            "--set",
            "asoCredentialSecret.name=demo-aso-credentials",
            "--set",
            "asoCredentialSecret.create=true",
        ]);
    }
    let out = capz_command().env_clear().args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "render {flavor} --capi-api {capi} --validate:\n{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn rendered_flavors_are_accepted_by_the_api_server() {
    let api = support::apiserver();
    for flavor in ["aks", "aks-aso"] {
        for capi in ["v1beta1", "v1beta2"] {
            let ns = api.namespace(&format!("render-{flavor}-{capi}"));
            let manifests = render(flavor, capi, &ns);
            let objects = split_documents(&manifests);
            assert!(objects.len() >= 5, "{flavor} {capi}: only {} objects rendered", objects.len());
            let out = api.kubectl_stdin(
                &["create", "--dry-run=server", "--validate=strict", "-n", &ns, "-o", "name", "-f", "-"],
                &manifests,
            );
            assert!(
                out.status.success(),
                "the API server rejects render {flavor} --capi-api {capi}:\n{}\nmanifests:\n{manifests}",
                text(&out.stderr)
            );
            let created = text(&out.stdout);
            assert_eq!(created.lines().count(), objects.len(), "{flavor} {capi}: not every object created:\n{created}");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// 1b. Embedded ASO objects: the server never checks them inside CAPZ's objects, but it serves ASO's own CRDs,
// so each embedded object submitted on its own must get our verdict for it.

/// The object as our reader reads it (YAML 1.1 like Kubernetes; the comparison of whole objects above checks
/// that reading against the server's). kubectl's client-side decoding cannot be used: it refuses objects
/// whose metadata is invalid (a boolean label) before showing their embedded objects.
fn parsed(doc: &str) -> Value {
    let documents = capz::manifest::parse_documents(doc, "corpus").unwrap_or_else(|e| panic!("{e}:\n{doc}"));
    assert_eq!(documents.len(), 1, "one object per document:\n{doc}");
    documents[0].value.clone()
}

#[test]
fn embedded_aso_objects_get_the_api_servers_verdict_on_their_own() {
    let api = support::apiserver();
    let ns = api.namespace("embedded");
    let (mut compared, mut rejected) = (0, 0);
    let mut disagreements = Vec::new();
    for file in corpus_files() {
        let content = std::fs::read_to_string(&file).unwrap();
        let rel = file.strip_prefix(support::repo_root()).unwrap().display().to_string();
        if content.lines().any(|l| l.trim() == "# expect: input-error") {
            continue;
        }
        let documents = split_documents(&content);
        let ours_per_object = our_errors(&file, &corpus_args(&content));
        // Every embedded object of the file: (label, our findings), and the object as JSON.
        let (mut embedded, mut submitted) = (Vec::new(), Vec::new());
        for (index, (doc, ours)) in documents.iter().zip(&ours_per_object).enumerate() {
            let kind = doc.lines().find_map(|l| l.strip_prefix("kind: ")).unwrap_or_default().trim();
            if !ASO_EMBEDDING_KINDS.contains(&kind) {
                continue;
            }
            let object = parsed(doc);
            let pointer = if kind.ends_with("Template") { "/spec/template/spec/resources" } else { "/spec/resources" };
            let Some(resources) = object.pointer(pointer).and_then(Value::as_array) else { continue };
            for (i, resource) in resources.iter().enumerate() {
                let prefix = format!("{pointer}/{i}");
                let ours: Vec<&Finding> = ours
                    .iter()
                    .filter(|f| !capz::lint::rules().iter().any(|rule| rule.id == f.rule))
                    .filter(|f| f.path == prefix || f.path.starts_with(&format!("{prefix}/")))
                    .collect();
                embedded.push((format!("{rel} document {index} {prefix}"), ours));
                submitted.push(serde_json::to_string(resource).unwrap());
            }
        }
        for ((label, ours), server) in embedded.iter().zip(server_verdicts(api, CREATE, &submitted, &ns)) {
            compared += 1;
            match (server, ours.is_empty()) {
                (Ok(()), true) => {}
                (Err(_), false) => rejected += 1,
                (Ok(()), false) => disagreements.push(format!("{label}: the server ACCEPTS, we report {ours:#?}")),
                (Err(message), true) => {
                    disagreements.push(format!("{label}: the server REJECTS, we report nothing:\n  server: {message}"))
                }
            }
        }
    }
    eprintln!("{compared} embedded objects: {rejected} rejected by both");
    assert!(disagreements.is_empty(), "{} disagreement(s):\n{}", disagreements.len(), disagreements.join("\n\n"));
    assert!(compared >= 40, "only {compared} embedded objects compared");
    assert!(rejected >= 4, "only {rejected} embedded objects rejected by both");
}

// ---------------------------------------------------------------------------------------------------------
// 1c. Server-side apply (kubectl apply --server-side, Flux): where its verdict differs from create's

/// Objects of the corpus that server-side apply rejects although create (and `validate`) accepts them:
/// (corpus file, document index, part of the server's message, why). `validate` follows create /
/// client-side `kubectl apply` semantics; with server-side apply these objects fail.
const SERVER_SIDE_APPLY_REJECTS_TOO: &[(&str, usize, &str, &str)] = &[
    (
        "tests/corpus/valid/nulls-pruned.yaml",
        0,
        "spec.paused in body must be of type boolean: \"null\"",
        "SSA keeps the nulls of the applied configuration (create prunes non-nullable nulls)",
    ),
    (
        "tests/corpus/valid/null-map-values-pruned.yaml",
        1,
        "spec.nodeLabels.env in body must be of type string: \"null\"",
        "SSA keeps a null map value too (create prunes it)",
    ),
    (
        "tests/corpus/valid/status-dropped.yaml",
        0,
        ".status.ready: expected boolean",
        "SSA builds a typed patch of the whole object, status included, before status is dropped",
    ),
    (
        "tests/corpus/valid/whole-float-integer.yaml",
        0,
        "cannot use generate name with apply",
        "apply needs metadata.name (kubectl refuses generateName)",
    ),
];

#[test]
fn server_side_apply_differs_from_create_only_where_listed() {
    let api = support::apiserver();
    let ns = api.namespace("ssa");
    let mut unexpected = Vec::new();
    let mut seen = Vec::new();
    for file in corpus_files() {
        let content = std::fs::read_to_string(&file).unwrap();
        let rel = file.strip_prefix(support::repo_root()).unwrap().display().to_string();
        if content.lines().any(|l| l.trim() == "# expect: input-error") {
            continue;
        }
        let documents = split_documents(&content);
        let ours_per_object = our_errors(&file, &corpus_args(&content));
        let server_per_object = server_verdicts(api, SERVER_SIDE_APPLY, &as_submitted(&documents, &ns), &ns);
        for (index, (ours, server)) in ours_per_object.iter().zip(server_per_object).enumerate() {
            let we_reject = ours.iter().any(|f| not_the_servers_business(f).is_none());
            let message = server.as_ref().err().cloned().unwrap_or_default();
            let listed = SERVER_SIDE_APPLY_REJECTS_TOO.iter().find(|(f, i, _, _)| *f == rel && *i == index);
            match (server.is_ok(), we_reject, listed) {
                (true, false, None) | (false, true, None) => {}
                (false, false, Some((_, _, fragment, _))) if message.contains(fragment) => {
                    seen.push((rel.clone(), index))
                }
                (ok, _, listed) => unexpected.push(format!(
                    "{rel} document {index}: server-side apply {}, we {}{}:\n  server: {}",
                    if ok { "accepts" } else { "rejects" },
                    if we_reject { "reject" } else { "accept" },
                    if listed.is_some() { " (listed as an SSA-only rejection)" } else { "" },
                    message.trim()
                )),
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n\n"));
    assert_eq!(seen.len(), SERVER_SIDE_APPLY_REJECTS_TOO.len(), "listed SSA differences not seen: {seen:?}");
}

// ---------------------------------------------------------------------------------------------------------
// 3. The cluster's CAPZ release: the target when nothing pins one (flag > env > file > cluster > default)

const CAPZ_IMAGE: &str = "registry.k8s.io/cluster-api-azure/cluster-api-azure-controller";
const ASO_IMAGE: &str = "mcr.microsoft.com/k8s/azureserviceoperator";

/// A Deployment with one `manager` container (as CAPZ's and ASO's are), optionally with clusterctl's provider label.
fn controller_deployment(namespace: &str, name: &str, image: &str, labelled: bool) -> String {
    let labels = if labelled { "\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-azure" } else { "" };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {namespace}{labels}\nspec:\n  \
         selector:\n    matchLabels: {{control-plane: {name}}}\n  template:\n    metadata:\n      labels: \
         {{control-plane: {name}}}\n    spec:\n      containers:\n      - name: kube-rbac-proxy\n        image: \
         gcr.io/kubebuilder/kube-rbac-proxy:v0.8.0\n      - name: manager\n        image: {image}\n"
    )
}

#[test]
fn the_clusters_capz_release_is_the_target_unless_one_is_pinned() {
    // Alone on the server: every live test's `diff`, `validate` and `migrate` would see these controllers.
    let api = support::apiserver_exclusive();
    let kubeconfig = api.kubeconfig.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n").unwrap();
    let mut shown = String::new();
    let mut check = |case: &str, env: &[(&str, &str)], flags: &[&str]| {
        let mut command = capz_command();
        command.current_dir(dir.path()).env_remove("CAPZ_VERSION").envs(env.iter().copied());
        command.args(["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "-v", "cm.yaml"]).args(flags);
        let out = command.output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{case}:\n{stderr}");
        let lines: String = stderr
            .lines()
            .filter(|l| !l.starts_with("config: ") && !l.contains(" objects: "))
            .map(|l| l.replace(&dir.path().display().to_string(), "[DIR]") + "\n")
            .collect();
        shown.push_str(&format!("# {case}\n{lines}"));
    };

    // No CAPZ in the cluster: a note, and the default.
    check("no CAPZ controller", &[], &[]);

    // Found by clusterctl's provider label in another namespace (with ASO beside it).
    let elsewhere = api.namespace("capz-elsewhere");
    for (name, image) in [
        ("capz-controller-manager", format!("{CAPZ_IMAGE}:v1.26.0")),
        ("azureserviceoperator-controller-manager", format!("{ASO_IMAGE}:v2.18.0")),
    ] {
        api.kubectl_stdin_ok(&["apply", "-f", "-"], &controller_deployment(&elsewhere, name, &image, true));
    }
    check("CAPZ v1.26 by label, nothing pinned: the cluster decides", &[], &[]);
    check("CAPZ_VERSION pins v1.27: a warning naming both", &[("CAPZ_VERSION", "v1.27")], &[]);
    check(
        "--capz-version pins the cluster's release: nothing to say",
        &[("CAPZ_VERSION", "v1.27")],
        &["--capz-version", "1.26"],
    );
    std::fs::write(dir.path().join(".kubectl-capz.yaml"), "capzVersion: v1.27\n").unwrap();
    check("the config file pins v1.27", &[], &[]);
    std::fs::remove_file(dir.path().join(".kubectl-capz.yaml")).unwrap();

    // capz-system/capz-controller-manager comes first (no label needed); a release we do not support: a note.
    api.kubectl_stdin_ok(&["apply", "-f", "-"], "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capz-system\n");
    let unsupported =
        controller_deployment("capz-system", "capz-controller-manager", &format!("{CAPZ_IMAGE}:v1.20.3"), false);
    api.kubectl_stdin_ok(&["apply", "-f", "-"], &unsupported);
    check("capz-system runs CAPZ v1.20.3: a note, and the default", &[], &[]);
    check("pinned, and the cluster runs a release we do not support", &[], &["--capz-version", "v1.26"]);

    // The other tests of this binary see no CAPZ again.
    api.kubectl_ok(&["delete", "deployment", "-n", "capz-system", "capz-controller-manager"]);
    api.kubectl_ok(&["delete", "deployment", "-n", &elsewhere, "--all"]);
    insta::assert_snapshot!("cluster_capz_release", shown);
}

// ---------------------------------------------------------------------------------------------------------
// 4. The cluster's Kubernetes version and the versions its CAPZ and ASO CRDs serve

#[test]
fn the_clusters_kubernetes_version_and_served_crd_versions_are_read() {
    let api = support::apiserver();
    let kubeconfig = api.kubeconfig.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n").unwrap();
    let mut shown = String::new();
    let mut check = |case: &str, flags: &[&str]| {
        let mut command = capz_command();
        command.current_dir(dir.path()).env_remove("CAPZ_VERSION");
        command.args(["validate", "--crds-from-cluster", "--kubeconfig", &kubeconfig, "-v", "cm.yaml"]).args(flags);
        let out = command.output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{case}:\n{stderr}");
        // The controller lines belong to the test above (which runs CAPZ Deployments in this server meanwhile).
        let lines: String = stderr
            .lines()
            .filter(|l| l.starts_with("kubernetes: ") || l.contains(" Kubernetes ") || l.contains(" serve"))
            .map(|l| l.replace(&dir.path().display().to_string(), "[DIR]") + "\n")
            .collect();
        shown.push_str(&format!("# {case}\n{lines}"));
    };
    // The server is tools/kube-testenv's kube-apiserver (Kubernetes 1.36) serving the CRDs of the default target.
    // CAPZ v1.27 pinned (the test above runs a CAPZ v1.26 controller in this server meanwhile).
    let v127 = ["--capz-version", "v1.27"];
    check("nothing pins: the API server's version, the CRDs agree with CAPZ v1.27", &v127);
    check(
        "the flag pins Kubernetes 1.35: a warning naming both",
        &[&v127[..], &["--management-kubernetes-version", "v1.35"]].concat(),
    );
    std::fs::write(dir.path().join(".kubectl-capz.yaml"), "kubernetesVersion: v1.36\n").unwrap();
    check("the config file pins the server's release: nothing to say", &v127);
    std::fs::remove_file(dir.path().join(".kubectl-capz.yaml")).unwrap();
    // CAPZ v1.26's ASO v2.18 serves containerservice v1api20240402preview and no network v20250301; the cluster
    // (ASO v2.19's CRDs) the other way round. PrivateLinkService is not in v1.26's crd-pattern: not compared.
    check("CAPZ v1.26 pinned against ASO v2.19's CRDs: a warning per kind and side", &["--capz-version", "v1.26"]);
    insta::assert_snapshot!("cluster_kubernetes_and_served_versions", shown);
}
