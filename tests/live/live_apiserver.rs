//! Proves the live-test harness: a real kube-apiserver (built from k8s.io/kubernetes by
//! tools/kube-testenv/build.sh) with the trimmed CAPI/CAPZ/ASO CRDs established, server-side apply of CAPZ's
//! own aks-aso template, strict field validation in a server-side dry run, and a 403 for a user without
//! RBAC rights.

use crate::support;

use std::collections::BTreeSet;

use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("kubectl printed invalid JSON ({e}):\n{text}"))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The Kubernetes version tools/kube-testenv builds (from its versions.env).
fn pinned_k8s_version() -> String {
    let path = support::repo_root().join("tools/kube-testenv/versions.env");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .find_map(|l| l.strip_prefix("K8S_VERSION="))
        .map(|v| format!("v{}", v.trim()))
        .unwrap_or_else(|| panic!("{} has no K8S_VERSION", path.display()))
}

#[test]
fn real_kube_apiserver_serves_the_trimmed_crds_established() {
    let api = support::apiserver();
    assert!(api.server.starts_with("https://127.0.0.1:"), "server {}", api.server);

    let version = json(&api.kubectl_ok(&["version", "-o", "json"]));
    assert_eq!(
        version["serverVersion"]["gitVersion"].as_str(),
        Some(pinned_k8s_version().as_str()),
        "not the kube-apiserver built by tools/kube-testenv: {version:#}"
    );

    let expected: BTreeSet<String> = support::crd_fixture_names().into_iter().collect();
    assert!(expected.len() >= 20, "too few CRD fixtures: {expected:?}");

    let crds = json(&api.kubectl_ok(&["get", "crd", "-o", "json"]));
    let established: BTreeSet<String> = crds["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|crd| {
            crd["status"]["conditions"]
                .as_array()
                .is_some_and(|conds| conds.iter().any(|c| c["type"] == "Established" && c["status"] == "True"))
        })
        .map(|crd| crd["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    let missing: Vec<_> = expected.difference(&established).collect();
    assert!(missing.is_empty(), "CRDs not established: {missing:?}");

    // Both CAPI versions are served (our manifests use v1beta1, the CRDs store v1beta2).
    let resources = api.kubectl_ok(&["api-resources", "--api-group=cluster.x-k8s.io", "-o", "name"]);
    assert!(resources.lines().any(|l| l == "clusters.cluster.x-k8s.io"), "{resources}");
    let versions = api.kubectl_ok(&["api-versions"]);
    for v in ["cluster.x-k8s.io/v1beta1", "cluster.x-k8s.io/v1beta2", "containerservice.azure.com/v1api20240901"] {
        assert!(versions.lines().any(|l| l == v), "{v} not served; api-versions:\n{versions}");
    }
}

/// tests/fixtures/crds is what tools/kube-testenv/trim-crds.sh makes of schemas/crds today.
#[test]
fn trimmed_crd_fixtures_match_schemas() {
    let out = tempfile::tempdir().unwrap();
    let script = support::repo_root().join("tools/kube-testenv/trim-crds.sh");
    let run = std::process::Command::new("bash").arg(&script).arg(out.path()).output().unwrap();
    assert!(run.status.success(), "{} failed:\n{}", script.display(), stderr(&run));

    let fixtures = support::crd_fixture_dir();
    let mut stale = Vec::new();
    let mut generated = BTreeSet::new();
    for entry in std::fs::read_dir(out.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let committed = std::fs::read(fixtures.join(&name)).ok();
        if committed.as_deref() != Some(std::fs::read(&path).unwrap().as_slice()) {
            stale.push(name.clone());
        }
        generated.insert(name.trim_end_matches(".yaml").to_owned());
    }
    let committed: BTreeSet<String> = support::crd_fixture_names().into_iter().collect();
    let extra: Vec<_> = committed.difference(&generated).collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "tests/fixtures/crds is out of date (run tools/kube-testenv/trim-crds.sh): differing {stale:?}, \
         no longer generated {extra:?}"
    );
}

#[test]
fn server_side_apply_of_capz_aks_aso_template() {
    let api = support::apiserver();
    let ns = api.namespace("ssa-aks-aso");
    let manifests = support::aks_aso_manifests(&ns, "capz-e2e");

    let out = api.kubectl_stdin_ok(&["apply", "--server-side", "--field-manager=capz-test", "-f", "-"], &manifests);
    let applied: BTreeSet<&str> = out.lines().collect();
    let want: BTreeSet<&str> = [
        "cluster.cluster.x-k8s.io/capz-e2e serverside-applied",
        "azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io/capz-e2e serverside-applied",
        "azureasomanagedcluster.infrastructure.cluster.x-k8s.io/capz-e2e serverside-applied",
        "machinepool.cluster.x-k8s.io/capz-e2e-pool0 serverside-applied",
        "azureasomanagedmachinepool.infrastructure.cluster.x-k8s.io/capz-e2e-pool0 serverside-applied",
        "machinepool.cluster.x-k8s.io/capz-e2e-pool1 serverside-applied",
        "azureasomanagedmachinepool.infrastructure.cluster.x-k8s.io/capz-e2e-pool1 serverside-applied",
    ]
    .into();
    assert_eq!(applied, want, "kubectl apply output:\n{out}");

    // Read back in the version we applied.
    let cluster = json(&api.kubectl_ok(&[
        "get",
        "clusters.v1beta1.cluster.x-k8s.io",
        "capz-e2e",
        "-n",
        &ns,
        "-o",
        "json",
        "--show-managed-fields",
    ]));
    assert_eq!(cluster["apiVersion"], "cluster.x-k8s.io/v1beta1");
    // Exactly as applied: with conversion None, a v1beta1 object stored as v1beta2 would lose
    // controlPlaneRef.apiVersion to pruning (v1beta2 has apiGroup), which is why the fixtures store v1beta1.
    assert_eq!(
        cluster["spec"]["controlPlaneRef"],
        serde_json::json!({
            "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
            "kind": "AzureASOManagedControlPlane",
            "name": "capz-e2e",
        }),
        "{cluster:#}"
    );
    assert_eq!(cluster["spec"]["infrastructureRef"]["name"], "capz-e2e", "{cluster:#}");
    let managers: Vec<(&str, &str)> = cluster["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields")
        .iter()
        .map(|m| (m["manager"].as_str().unwrap_or(""), m["operation"].as_str().unwrap_or("")))
        .collect();
    assert!(managers.contains(&("capz-test", "Apply")), "managedFields: {managers:?}");

    let pool = json(&api.kubectl_ok(&[
        "get",
        "machinepools.v1beta1.cluster.x-k8s.io",
        "capz-e2e-pool1",
        "-n",
        &ns,
        "-o",
        "json",
    ]));
    assert_eq!(pool["spec"]["replicas"], 2, "{pool:#}");
    assert_eq!(pool["spec"]["template"]["spec"]["version"], "v1.33.2", "{pool:#}");

    // spec.resources is preserve-unknown-fields: the embedded ASO object survives verbatim.
    let cp = json(&api.kubectl_ok(&[
        "get",
        "azureasomanagedcontrolplanes.infrastructure.cluster.x-k8s.io",
        "capz-e2e",
        "-n",
        &ns,
        "-o",
        "json",
    ]));
    let mc = &cp["spec"]["resources"][0];
    assert_eq!(mc["kind"], "ManagedCluster", "{cp:#}");
    assert_eq!(mc["spec"]["dnsPrefix"], "capz-e2e", "{cp:#}");
    assert_eq!(mc["spec"]["servicePrincipalProfile"]["clientId"], "msi", "{cp:#}");

    // Applying the same manifests again by the same manager is a no-op, not a conflict.
    api.kubectl_stdin_ok(&["apply", "--server-side", "--field-manager=capz-test", "-f", "-"], &manifests);
}

#[test]
fn server_side_dry_run_with_strict_field_validation_rejects_unknown_fields() {
    let api = support::apiserver();
    let ns = api.namespace("strict-dry-run");
    let object = |extra: &str| {
        format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n\
             kind: AzureASOManagedControlPlane\n\
             metadata:\n  name: strict\n  namespace: {ns}\n\
             spec:\n  version: v1.33.2\n  resources: []\n{extra}"
        )
    };
    let args = ["apply", "--server-side", "--dry-run=server", "--validate=strict", "-f", "-"];

    // Control: the valid object passes the same dry run (so the rejection below is about the field).
    let ok = api.kubectl_stdin_ok(&args, &object(""));
    assert!(ok.contains("serverside-applied (server dry run)"), "{ok}");

    let bad = api.kubectl_stdin(&args, &object("  notAField: 1\n"));
    assert!(!bad.status.success(), "unknown field accepted:\n{}", String::from_utf8_lossy(&bad.stdout));
    let err = stderr(&bad);
    assert!(err.contains(".spec.notAField: field not declared in schema"), "unexpected error: {err}");

    // Server-side apply refuses fields outside the schema whatever fieldValidation says (the apply
    // configuration cannot be converted to a typed object): with Ignore it fails the same way.
    let ignore = ["apply", "--server-side", "--dry-run=server", "--validate=false", "-f", "-"];
    let bad = api.kubectl_stdin(&ignore, &object("  notAField: 1\n"));
    assert!(!bad.status.success(), "SSA with fieldValidation=Ignore accepted an unknown field");
    assert!(stderr(&bad).contains(".spec.notAField: field not declared in schema"), "{}", stderr(&bad));

    // A create (POST) is where fieldValidation decides: Strict rejects, Ignore prunes the field and accepts.
    let strict_create = ["create", "--dry-run=server", "--validate=strict", "-f", "-"];
    let bad = api.kubectl_stdin(&strict_create, &object("  notAField: 1\n"));
    assert!(!bad.status.success(), "strict create accepted an unknown field");
    assert!(stderr(&bad).contains(r#"unknown field "spec.notAField""#), "unexpected error: {}", stderr(&bad));
    let ignore_create = ["create", "--dry-run=server", "--validate=false", "-o", "json", "-f", "-"];
    let pruned = json(&api.kubectl_stdin_ok(&ignore_create, &object("  notAField: 1\n")));
    assert!(pruned["spec"].get("notAField").is_none(), "not pruned: {pruned:#}");
    assert_eq!(pruned["spec"]["version"], "v1.33.2", "{pruned:#}");

    // A dry run persists nothing.
    let get =
        api.kubectl(&["get", "azureasomanagedcontrolplanes.infrastructure.cluster.x-k8s.io", "strict", "-n", &ns]);
    assert!(!get.status.success() && stderr(&get).contains("NotFound"), "dry run persisted: {}", stderr(&get));

    // Strict validation also applies inside typed ASO objects (not preserve-unknown-fields there).
    let rg = |extra: &str| {
        format!(
            "apiVersion: resources.azure.com/v1api20200601\n\
             kind: ResourceGroup\n\
             metadata:\n  name: rg\n  namespace: {ns}\n\
             spec:\n  location: westeurope\n{extra}"
        )
    };
    api.kubectl_stdin_ok(&args, &rg(""));
    let bad = api.kubectl_stdin(&args, &rg("  locaton: westeurope\n"));
    assert!(!bad.status.success(), "typo accepted in ResourceGroup");
    assert!(stderr(&bad).contains(".spec.locaton: field not declared in schema"), "unexpected error: {}", stderr(&bad));
}

#[test]
fn user_without_rbac_rights_gets_403() {
    let api = support::apiserver();
    let ns = api.namespace("forbidden");

    let out = api.kubectl_forbidden_user(&["get", "clusters.cluster.x-k8s.io", "-n", &ns]);
    assert!(!out.status.success(), "forbidden user could list clusters");
    let err = stderr(&out);
    assert!(
        err.contains(r#"User "capz-test-forbidden" cannot list resource "clusters" in API group "cluster.x-k8s.io""#),
        "unexpected error: {err}"
    );

    // The same request through kube-rs: a 403 Status from the server, not a client-side failure.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let kubeconfig = kube::config::Kubeconfig::read_from(&api.forbidden_kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let ar = kube::api::ApiResource {
            group: "cluster.x-k8s.io".into(),
            version: "v1beta1".into(),
            api_version: "cluster.x-k8s.io/v1beta1".into(),
            kind: "Cluster".into(),
            plural: "clusters".into(),
        };
        let clusters: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(client, &ns, &ar);
        match clusters.list(&Default::default()).await {
            Err(kube::Error::Api(status)) => {
                assert_eq!(status.code, 403, "{status:?}");
                assert_eq!(status.reason, "Forbidden", "{status:?}");
            }
            other => panic!("expected a 403, got {other:?}"),
        }
    });

    // The admin kubeconfig, by contrast, may list them.
    api.kubectl_ok(&["get", "clusters.cluster.x-k8s.io", "-n", &ns]);
}

/// Starts a private launcher without CRDs and returns it with the directory of its kubeconfigs.
fn private_launcher() -> (std::process::Child, std::path::PathBuf, String) {
    use std::io::BufRead;
    let bin = support::repo_root().join("tools/kube-testenv/bin/kube-testenv");
    let mut child = std::process::Command::new(&bin)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (run tools/kube-testenv/build.sh)", bin.display()));
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let parts: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(parts.first(), Some(&"READY"), "launcher said {line:?}");
    let kubeconfig = std::path::PathBuf::from(parts[1]);
    let server = kube::config::Kubeconfig::read_from(&kubeconfig).unwrap().clusters[0]
        .cluster
        .as_ref()
        .unwrap()
        .server
        .clone()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    (child, kubeconfig.parent().unwrap().to_path_buf(), server)
}

/// Waits (bounded) for the launcher to exit and checks that it left nothing behind.
fn assert_clean_exit(mut child: std::process::Child, work_dir: &std::path::Path, server: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("launcher still running 60 s after being told to stop");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(status.success(), "launcher exit status {status}");
    assert!(!work_dir.exists(), "{} left behind", work_dir.display());
    let addr = server.trim_start_matches("https://");
    assert!(std::net::TcpStream::connect(addr).is_err(), "kube-apiserver still listening on {addr}");
}

#[test]
fn launcher_stops_everything_when_stdin_closes() {
    let (mut child, work_dir, server) = private_launcher();
    let addr = server.trim_start_matches("https://").to_owned();
    assert!(std::net::TcpStream::connect(&addr).is_ok(), "kube-apiserver not listening on {addr}");
    drop(child.stdin.take());
    assert_clean_exit(child, &work_dir, &server);
}

#[test]
fn launcher_stops_everything_on_sigterm() {
    let (child, work_dir, server) = private_launcher();
    let addr = server.trim_start_matches("https://").to_owned();
    assert!(std::net::TcpStream::connect(&addr).is_ok(), "kube-apiserver not listening on {addr}");
    let kill = std::process::Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    assert!(kill.success());
    assert_clean_exit(child, &work_dir, &server);
}

/// The committed fixtures follow the trim rules of tools/kube-testenv/trim.go.
#[test]
fn trimmed_crds_follow_the_trim_rules() {
    fn string_descriptions(v: &Value, path: &str, field_names: bool, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let here = format!("{path}/{k}");
                    if !field_names && k == "description" && child.is_string() {
                        out.push(here.clone());
                    }
                    if !field_names && matches!(k.as_str(), "default" | "example" | "enum") {
                        continue;
                    }
                    let next = !field_names && (k == "properties" || k == "patternProperties");
                    string_descriptions(child, &here, next, out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    string_descriptions(child, &format!("{path}/{i}"), false, out);
                }
            }
            _ => {}
        }
    }

    fn has_description_property(v: &Value) -> bool {
        match v {
            Value::Object(map) => {
                map.get("properties").and_then(|p| p.get("description")).is_some_and(Value::is_object)
                    || map.values().any(has_description_property)
            }
            Value::Array(items) => items.iter().any(has_description_property),
            _ => false,
        }
    }

    let mut description_properties = 0;
    for name in support::crd_fixture_names() {
        let path = support::crd_fixture_dir().join(format!("{name}.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        let docs = capz::manifest::parse_documents(&text, &path.display().to_string()).unwrap();
        assert_eq!(docs.len(), 1, "{name}: one CRD per file");
        let crd = &docs[0].value;
        assert_eq!(crd["metadata"]["name"], name.as_str());
        assert_eq!(crd["spec"]["conversion"], serde_json::json!({"strategy": "None"}), "{name}");
        assert!(
            crd["metadata"]["annotations"].get("cert-manager.io/inject-ca-from").is_none(),
            "{name}: cert-manager annotation kept"
        );
        let versions = crd["spec"]["versions"].as_array().unwrap();
        let storage: Vec<&str> =
            versions.iter().filter(|v| v["storage"] == true).map(|v| v["name"].as_str().unwrap()).collect();
        assert_eq!(storage.len(), 1, "{name}: storage versions {storage:?}");
        for v in versions {
            let vname = v["name"].as_str().unwrap();
            assert!(!vname.ends_with("storage"), "{name}: ASO hub version {vname} kept");
        }
        let group = crd["spec"]["group"].as_str().unwrap();
        if group == "cluster.x-k8s.io" || group == "bootstrap.cluster.x-k8s.io" {
            assert_eq!(storage, ["v1beta1"], "{name}");
            let served: Vec<&str> =
                versions.iter().filter(|v| v["served"] == true).map(|v| v["name"].as_str().unwrap()).collect();
            assert_eq!(served, ["v1beta1", "v1beta2"], "{name}");
        }
        let mut found = Vec::new();
        string_descriptions(crd, "", false, &mut found);
        assert!(found.is_empty(), "{name}: string descriptions left at {found:?}");
        if has_description_property(crd) {
            description_properties += 1;
        }
    }
    // Properties *named* description (CAPI has some) survive the trim.
    assert!(description_properties > 0, "no schema property named `description` left in any fixture");
}
