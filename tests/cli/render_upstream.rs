//! Acceptance: `render aks` / `render aks-aso` equal CAPZ's own templates (tests/fixtures/capz, copied
//! from CAPZ `templates/`) expanded with the same clusterctl variables, after YAML parsing, except
//! for the deliberate differences the README lists (checked here one by one).

use crate::support::cli_runner::{CAPZ_DOCS_ENV as DOCS_ENV, capz};
use std::collections::BTreeMap;

use capz::manifest::parse_documents;
use serde_json::{Value, json};

/// A test-local clusterctl expansion: `${VAR}` and `${VAR:=default}` (default may nest `${X}`),
/// with clusterctl's injected `WORKER_MACHINE_COUNT`/`NAMESPACE`, then the target namespace set on
/// every object, as `clusterctl generate cluster -n NS` does.
fn clusterctl_expand(template: &str, vars: &BTreeMap<&str, &str>) -> String {
    fn expr(text: &str, vars: &BTreeMap<&str, &str>) -> (String, usize) {
        // `text` starts right after `${`; returns the value and the bytes consumed incl. `}`.
        let name_len = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
        let name = &text[..name_len];
        let rest = &text[name_len..];
        if let Some(after) = rest.strip_prefix('}') {
            let _ = after;
            return (vars.get(name).copied().unwrap_or("").to_string(), name_len + 1);
        }
        let op_len = if rest.starts_with(":=") || rest.starts_with(":-") {
            2
        } else {
            panic!("unsupported expression ${{{text}")
        };
        let mut default = String::new();
        let mut i = name_len + op_len;
        loop {
            let tail = &text[i..];
            if let Some(inner) = tail.strip_prefix("${") {
                let (value, used) = expr(inner, vars);
                default.push_str(&value);
                i += 2 + used;
            } else if tail.starts_with('}') {
                i += 1;
                break;
            } else {
                let c = tail.chars().next().expect("unterminated ${");
                default.push(c);
                i += c.len_utf8();
            }
        }
        let value = vars.get(name).copied().filter(|v| !v.is_empty()).map(str::to_string).unwrap_or(default);
        (value, i)
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let (value, used) = expr(&rest[start + 2..], vars);
        out.push_str(&value);
        rest = &rest[start + 2 + used..];
    }
    out.push_str(rest);
    out
}

fn upstream(file: &str, env: &[(&str, &str)], namespace: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("tests/fixtures/capz/{file}")).unwrap();
    let vars: BTreeMap<&str, &str> = env.iter().copied().collect();
    let expanded = clusterctl_expand(&text, &vars);
    parse_documents(&expanded, file)
        .unwrap()
        .into_iter()
        .map(|mut doc| {
            doc.value["metadata"]["namespace"] = json!(namespace);
            doc.value
        })
        .collect()
}

fn ours(flavor: &str, env: &[(&str, &str)], args: &[&str]) -> Vec<Value> {
    let output = capz(env).arg("render").arg(flavor).args(args).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    parse_documents(&String::from_utf8(output.stdout).unwrap(), "ours").unwrap().into_iter().map(|d| d.value).collect()
}

fn key(value: &Value) -> String {
    format!("{}/{}", value["kind"].as_str().unwrap_or(""), value["metadata"]["name"].as_str().unwrap_or(""))
}

/// Same kinds and names, and equal objects (JSON equality is order-independent for mappings).
fn assert_same_objects(ours: &[Value], theirs: &[Value]) {
    let ours: BTreeMap<String, &Value> = ours.iter().map(|v| (key(v), v)).collect();
    let theirs: BTreeMap<String, &Value> = theirs.iter().map(|v| (key(v), v)).collect();
    assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>(), "kinds/names differ");
    for (k, theirs) in &theirs {
        assert_eq!(ours[k], *theirs, "{k} differs");
    }
}

fn with(
    env: &[(&'static str, &'static str)],
    extra: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    let mut out = env.to_vec();
    for (k, v) in extra {
        out.retain(|(name, _)| name != k);
        out.push((k, v));
    }
    out
}

#[test]
fn aks_equals_capz_template() {
    assert_same_objects(&ours("aks", DOCS_ENV, &[]), &upstream("cluster-template-aks.yaml", DOCS_ENV, "default"));
}

#[test]
fn aks_aso_equals_capz_template() {
    assert_same_objects(
        &ours("aks-aso", DOCS_ENV, &[]),
        &upstream("cluster-template-aks-aso.yaml", DOCS_ENV, "default"),
    );
}

#[test]
fn target_namespace_is_set_on_every_object_like_clusterctl() {
    assert_same_objects(
        &ours("aks-aso", DOCS_ENV, &["-n", "team-a"]),
        &upstream("cluster-template-aks-aso.yaml", DOCS_ENV, "team-a"),
    );
    assert_same_objects(
        &ours("aks", DOCS_ENV, &["-n", "team-a"]),
        &upstream("cluster-template-aks.yaml", DOCS_ENV, "team-a"),
    );
}

#[test]
fn aks_aso_maintenance_equals_capz_template() {
    assert_same_objects(
        &ours("aks-aso", DOCS_ENV, &["--set", "maintenance.enabled=true"]),
        &upstream("cluster-template-aks-aso-maintenance.yaml", DOCS_ENV, "default"),
    );
}

/// Deliberate difference 6 (README): the credential Secret carries `clusterctl.cluster.x-k8s.io/move`
/// (newer CAPZ revisions add it), so `clusterctl move` takes it along.
#[test]
fn aso_credential_secret_equals_capz_credentials_yaml() {
    let mut theirs = upstream("cluster-template-aks-aso.yaml", DOCS_ENV, "default");
    let mut secret = upstream("aks-aso-credentials.yaml", DOCS_ENV, "default");
    assert_eq!(secret.len(), 1);
    assert!(secret[0]["metadata"].get("labels").is_none(), "CAPZ's file at our revision has no labels");
    secret[0]["metadata"]["labels"] = json!({"clusterctl.cluster.x-k8s.io/move": "true"});
    theirs.extend(secret);
    assert_same_objects(&ours("aks-aso", DOCS_ENV, &["--set", "asoCredentialSecret.create=true"]), &theirs);
}

/// Deliberate difference 1 (README): with WORKER_MACHINE_COUNT unset, clusterctl injects 0 and
/// CAPZ's `${WORKER_MACHINE_COUNT:=2}` renders `replicas: 0` (an invalid System pool); we render 2.
#[test]
fn replicas_default_to_2_when_worker_machine_count_is_unset() {
    let env: Vec<_> = DOCS_ENV.iter().copied().filter(|(k, _)| *k != "WORKER_MACHINE_COUNT").collect();
    let clusterctl_env = with(&env, &[("WORKER_MACHINE_COUNT", "0")]);
    let mut theirs = upstream("cluster-template-aks-aso.yaml", &clusterctl_env, "default");
    for value in &mut theirs {
        if value["kind"] == "MachinePool" {
            assert_eq!(value["spec"]["replicas"], json!(0), "clusterctl renders 0");
            value["spec"]["replicas"] = json!(2);
        }
    }
    assert_same_objects(&ours("aks-aso", &env, &[]), &theirs);
}

/// Deliberate difference 2 (README): a Kubernetes version without `v` gets one, as CAPZ's webhooks do.
#[test]
fn version_without_v_is_normalised() {
    let env = with(DOCS_ENV, &[("KUBERNETES_VERSION", "1.33.2")]);
    assert_same_objects(&ours("aks", &env, &[]), &upstream("cluster-template-aks.yaml", DOCS_ENV, "default"));
}

/// Deliberate difference 3 (README): AZURE_RESOURCE_GROUP also names the aks-aso ResourceGroup
/// (CAPZ's aks-aso template ignores it and always uses the cluster name).
#[test]
fn aks_aso_resource_group_name_becomes_azure_name() {
    let env = with(DOCS_ENV, &[("AZURE_RESOURCE_GROUP", "rg-demo")]);
    let mut theirs = upstream("cluster-template-aks-aso.yaml", &env, "default");
    for value in &mut theirs {
        if value["kind"] == "AzureASOManagedCluster" {
            value["spec"]["resources"][0]["spec"]["azureName"] = json!("rg-demo");
        }
    }
    assert_same_objects(&ours("aks-aso", &env, &[]), &theirs);
}

#[test]
fn the_local_expansion_follows_clusterctl_defaults() {
    let vars: BTreeMap<&str, &str> = [("A", "a"), ("E", "")].into_iter().collect();
    assert_eq!(clusterctl_expand("${A} ${B:=b} ${E:=e} ${C:=${A}-x} ${D}", &vars), "a b e a-x ");
}
