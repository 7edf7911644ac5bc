//! `kubectl capz diff` failures that happen before or instead of talking to an API server: they
//! exit 2 and say what is wrong. (Everything that needs a server is in live_diff.rs.)

use crate::support::cli_runner::capz_command;

fn capz(args: &[&str]) -> std::process::Output {
    capz_command()
        .arg("diff")
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("KUBECTL_EXTERNAL_DIFF")
        .env("HOME", "/nonexistent-home")
        .output()
        .unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const KUBECONFIG: &str = "apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\ncontexts:\n- name: dev\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n";
const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n";

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        let files = Files { dir: tempfile::tempdir().unwrap() };
        files.write("kubeconfig", KUBECONFIG);
        files.write("cm.yaml", CONFIGMAP);
        files
    }
    fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }
}

#[test]
fn nothing_to_diff_is_a_usage_error() {
    let out = capz(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nothing to diff"), "{}", stderr(&out));
}

#[test]
fn unreachable_server_names_the_server_and_context() {
    let f = Files::new();
    let out = capz(&["--kubeconfig", &f.path("kubeconfig"), "-f", &f.path("cm.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("cannot reach the API server https://127.0.0.1:1 (context `dev`)"), "{err}");
    assert_eq!(out.stdout, b"");
}

#[test]
fn unknown_context_lists_the_contexts() {
    let f = Files::new();
    let out = capz(&["--kubeconfig", &f.path("kubeconfig"), "--context", "prod", "-f", &f.path("cm.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("context `prod` not found in kubeconfig"), "{}", stderr(&out));
    assert!(stderr(&out).contains("(contexts: dev)"), "{}", stderr(&out));
}

#[test]
fn bad_kubeconfig_says_which_file() {
    let f = Files::new();
    let bad = f.write("broken", "contexts: [oops\n");
    let out = capz(&["--kubeconfig", &bad, "-f", &f.path("cm.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("bad kubeconfig `{bad}`")), "{}", stderr(&out));
    let out = capz(&["-f", &f.path("cm.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("neither --kubeconfig nor KUBECONFIG is set"), "{}", stderr(&out));
}

#[test]
fn kubeconfig_env_is_used_without_the_flag() {
    let f = Files::new();
    let out = capz_command()
        .args(["diff", "-f", &f.path("cm.yaml"), "--context", "elsewhere"])
        .env("KUBECONFIG", f.path("kubeconfig"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("context `elsewhere` not found in kubeconfig from $KUBECONFIG"), "{err}");
}

#[test]
fn bad_request_timeout_is_rejected() {
    let f = Files::new();
    let out = capz(&["--kubeconfig", &f.path("kubeconfig"), "--request-timeout", "soon", "-f", &f.path("cm.yaml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--request-timeout: invalid duration `soon`"), "{}", stderr(&out));
}

#[test]
fn object_without_a_name_is_reported_at_its_line() {
    let f = Files::new();
    let path = f.write("noname.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: x-\n");
    let out = capz(&["--kubeconfig", &f.path("kubeconfig"), "-f", &path]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("{path}:6: ConfigMap/ has no metadata.name")), "{err}");
}
