//! Shared by every test harness (tests/<area>/main.rs includes it with `#[path = "../support/mod.rs"] mod support;`):
//! the repository root, the plugin binary, running it in CLI tests ([`cli_runner`]), and for live tests the ONE real
//! kube-apiserver + etcd of a test binary (tools/kube-testenv) with a fresh namespace per test and the real `kubectl`
//! pointed at that server.
//!
//! The first call to [`apiserver`] starts `tools/kube-testenv/bin/kube-testenv` with the trimmed CRDs of
//! `tests/fixtures/crds/` (audit logging on, for [`audited_apiserver`]) and waits for its `READY` line. Tests that need
//! more CRDs install them into that same server ([`apiserver_with_crds`]). The launcher's stdin stays open for the
//! life of this process; when the test binary exits (or dies) the pipe closes and the launcher stops etcd and
//! kube-apiserver and removes its temp dirs. Missing binaries stop a harness before its first test with one message
//! saying how to build them ([`prerequisites`]), never a skip.
#![allow(dead_code)] // each test binary uses a different subset

pub mod cli_runner;
pub mod prerequisites;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// The day every plugin run of the tests judges AKS version support on (`KUBECTL_CAPZ_AT`, `validate --at`): the
/// verdicts of the fixtures, whose clusters run v1.31 to v1.34, must not change with the wall clock. On this day
/// v1.32 to v1.34 are in AKS support, v1.30 and v1.31 in platform support, v1.35 and later not released.
pub const AKS_TEST_DAY: &str = "2025-11-15";

/// Before any test runs: every plugin process a test starts inherits [`AKS_TEST_DAY`] (those started with a
/// cleared environment get it from [`cli_runner::capz`]); a test that sets the variable itself wins.
#[ctor::ctor(unsafe)]
fn pin_the_aks_day() {
    if std::env::var_os("KUBECTL_CAPZ_AT").is_none() {
        // SAFETY: a constructor runs before main, while the process has one thread.
        unsafe { std::env::set_var("KUBECTL_CAPZ_AT", AKS_TEST_DAY) };
    }
}

/// How long the launcher may take to start etcd and kube-apiserver and install the CRDs. Generous: the
/// machine running the tests may be busy compiling other test binaries.
const START_TIMEOUT: Duration = Duration::from_secs(300);

/// A running test control plane. Lives until the test process exits.
pub struct ApiServer {
    /// The audit log of the server (level Metadata: user, verb, URI and user agent of every request), one JSON
    /// event per line.
    pub audit_log: PathBuf,
    /// Admin kubeconfig (client certificate in `system:masters`).
    pub kubeconfig: PathBuf,
    /// Kubeconfig of an authenticated user without any RBAC rights: every resource request is 403.
    pub forbidden_kubeconfig: PathBuf,
    /// The server URL (`https://127.0.0.1:PORT`).
    pub server: String,
    /// Held, never written: closing it (process exit) tells the launcher to shut down.
    _stdin: Mutex<ChildStdin>,
    _child: Mutex<Child>,
    /// The wrapper bin directory and the audit policy and log.
    _dir: tempfile::TempDir,
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The plugin binary cargo built for this test run (`kubectl-capz`).
/// Copies the directory `from` into `to` (made if missing), file by file.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A target's referee recordings (`fixtures/<target>/recordings.json`), or for a target stored as a delta
/// (`recordings.delta.json`, written by tools/capz-module/delta.py: the cases in which it differs from the target
/// its `base` names) the base's recordings with the delta's header and cases laid over them.
pub fn recordings(fixtures: &Path, target: &str) -> serde_json::Value {
    let read = |path: PathBuf| -> serde_json::Value {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
    };
    let full = fixtures.join(target).join("recordings.json");
    if full.exists() {
        return read(full);
    }
    let mut delta = read(fixtures.join(target).join("recordings.delta.json"));
    let base_name = delta["base"].as_str().expect("a delta names its base").to_string();
    let mut base = read(fixtures.join(&base_name).join("recordings.json"));
    let mut overrides: std::collections::BTreeMap<String, serde_json::Value> = delta["cases"]
        .as_array()
        .expect("a delta's cases")
        .iter()
        .map(|case| (case["case"].as_str().expect("a case name").to_string(), case.clone()))
        .collect();
    let cases = base["cases"].as_array_mut().expect("the base's cases");
    for case in cases.iter_mut() {
        if let Some(own) = overrides.remove(case["case"].as_str().expect("a case name")) {
            *case = own;
        }
    }
    assert!(overrides.is_empty(), "{target}'s delta names cases {base_name} does not record: {:?}", overrides.keys());
    delta["cases"] = base["cases"].take();
    delta
}

pub fn capz_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kubectl-capz"))
}

/// CAPZ's aks-aso flavor (tests/fixtures/capz) with its clusterctl variables substituted and every object
/// moved to `namespace`: what a user applies after `clusterctl generate cluster --flavor aks-aso`.
pub fn aks_aso_manifests(namespace: &str, cluster: &str) -> String {
    let path = repo_root().join("tests/fixtures/capz/cluster-template-aks-aso.yaml");
    let template = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = template
        .replace("${CLUSTER_NAME}", cluster)
        .replace("${WORKER_MACHINE_COUNT:=2}", "2")
        .replace("${KUBERNETES_VERSION}", "v1.33.2")
        .replace("${AZURE_LOCATION}", "westeurope")
        .replace("${AZURE_NODE_MACHINE_TYPE}", "Standard_D2s_v3")
        .replace("${ASO_CREDENTIAL_SECRET_NAME}", "aso-credentials")
        .replace("namespace: default", &format!("namespace: {namespace}"));
    assert!(!text.contains("${"), "unsubstituted variable left in {}:\n{text}", path.display());
    text
}

/// Directory of the trimmed CRDs the server installs (generated by tools/kube-testenv/trim-crds.sh).
pub fn crd_fixture_dir() -> PathBuf {
    repo_root().join("tests/fixtures/crds")
}

/// Names of the CRDs in [`crd_fixture_dir`] (file stems), sorted.
pub fn crd_fixture_names() -> Vec<String> {
    let dir = crd_fixture_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| p.file_stem().unwrap_or_default().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The shared API server of this test binary, started on first use. A test thread holds a shared claim on it
/// until the test ends (see [`apiserver_exclusive`]).
pub fn apiserver() -> &'static ApiServer {
    claim(Claim::Shared);
    server()
}

/// The shared API server, for a test that changes what every other test sees (controller Deployments that the
/// plugin detects cluster-wide): it waits until the running live tests are done, and tests that start meanwhile wait
/// until it is done. Call it first in the test, instead of [`apiserver`].
pub fn apiserver_exclusive() -> &'static ApiServer {
    claim(Claim::Exclusive);
    server()
}

fn server() -> &'static ApiServer {
    static SERVER: OnceLock<ApiServer> = OnceLock::new();
    SERVER.get_or_init(start)
}

/// Which tests run while a test changes cluster-wide state.
static CLUSTER_WIDE: RwLock<()> = RwLock::new(());

enum Claim {
    Shared,
    Exclusive,
}

enum Held {
    Shared(RwLockReadGuard<'static, ()>),
    Exclusive(RwLockWriteGuard<'static, ()>),
}

thread_local! {
    /// The claim of the test running on this thread, released when the test's thread ends.
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Takes a claim for the test of this thread, once. Only test threads claim (libtest names them after the test,
/// `module::test`): threads a test spawns must not wait for a claim their test already holds.
fn claim(claim: Claim) {
    if !std::thread::current().name().is_some_and(|name| name.contains("::")) {
        return;
    }
    HELD.with(|held| {
        let mut held = held.borrow_mut();
        match (&*held, claim) {
            (None, Claim::Shared) => {
                *held = Some(Held::Shared(CLUSTER_WIDE.read().unwrap_or_else(PoisonError::into_inner)))
            }
            (None, Claim::Exclusive) => {
                *held = Some(Held::Exclusive(CLUSTER_WIDE.write().unwrap_or_else(PoisonError::into_inner)))
            }
            (Some(Held::Shared(_)), Claim::Exclusive) => {
                panic!("apiserver_exclusive() must come before any apiserver() call of the test")
            }
            (Some(_), _) => {}
        }
    });
}

/// The shared API server with the CRDs of [`crd_fixture_dir`] and also those of `extra_crd_dir`, installed into it
/// at the first call naming that directory (server-side apply, then waiting until they are Established).
pub fn apiserver_with_crds(extra_crd_dir: &Path) -> &'static ApiServer {
    static INSTALLED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    let api = apiserver();
    let mut installed = INSTALLED.lock().unwrap_or_else(PoisonError::into_inner);
    if !installed.contains(extra_crd_dir) {
        let dir = extra_crd_dir.to_string_lossy();
        api.kubectl_ok(&["apply", "--server-side", "--force-conflicts", "-f", &dir]);
        api.wait_established(&["-f", &dir]);
        installed.insert(extra_crd_dir.to_path_buf());
    }
    api
}

/// A server of the test's own, not the shared one, serving only the CRDs of `crd_dirs`: for a test about another
/// management cluster's CRDs (another target's). It stops when dropped (its launcher sees its stdin close).
pub fn private_apiserver(crd_dirs: &[PathBuf]) -> ApiServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let audit_log = dir.path().join("audit.log");
    start_from(&repo_root().join("tools/kube-testenv/bin"), crd_dirs, audit_log, dir)
}

/// The shared API server and its audit log, for tests about what requests carry.
pub struct AuditedApiServer {
    pub api: &'static ApiServer,
    /// The audit log: one JSON event per line (the last one may be still being written).
    pub audit_log: PathBuf,
}

/// The shared API server with its audit log (the server always writes one).
pub fn audited_apiserver() -> AuditedApiServer {
    let api = apiserver();
    AuditedApiServer { api, audit_log: api.audit_log.clone() }
}

/// Starts the shared server: kube-testenv runs the real kube-apiserver through a wrapper in a temporary bin
/// directory that adds the audit flags.
fn start() -> ApiServer {
    let real = repo_root().join("tools/kube-testenv/bin");
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let policy = dir.path().join("audit-policy.yaml");
    std::fs::write(&policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n").unwrap();
    let audit_log = dir.path().join("audit.log");
    let wrapper = format!(
        "#!/bin/sh\nexec '{}' \"$@\" --audit-policy-file='{}' --audit-log-path='{}'\n",
        real.join("kube-apiserver").display(),
        policy.display(),
        audit_log.display()
    );
    std::fs::write(bin.join("kube-apiserver"), wrapper).unwrap();
    let mut perms = std::fs::metadata(bin.join("kube-apiserver")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(bin.join("kube-apiserver"), perms).unwrap();
    std::os::unix::fs::symlink(real.join("etcd"), bin.join("etcd")).unwrap();
    start_from(&bin, &[crd_fixture_dir()], audit_log, dir)
}

/// Starts kube-testenv with the kube-apiserver and etcd of `server_bin_dir` and waits for READY.
fn start_from(server_bin_dir: &Path, crd_dirs: &[PathBuf], audit_log: PathBuf, dir: tempfile::TempDir) -> ApiServer {
    let bin_dir = repo_root().join("tools/kube-testenv/bin");
    for name in ["kube-testenv", "kube-apiserver", "etcd"] {
        let path = bin_dir.join(name);
        assert!(
            path.is_file(),
            "{} is missing: live tests need a real kube-apiserver and etcd. Build them with \
             `tools/kube-testenv/build.sh` (first build: 5-20 minutes; later builds: seconds), \
             or run `scripts/test-all.sh`, which does that for you.",
            path.display()
        );
    }

    let mut cmd = Command::new(bin_dir.join("kube-testenv"));
    for dir in crd_dirs {
        cmd.arg("-crd-dir").arg(dir);
    }
    cmd.arg("-bin-dir").arg(server_bin_dir);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", bin_dir.join("kube-testenv").display()));

    // Collect the launcher's stderr (shown if start-up fails) and keep draining both pipes afterwards so
    // the launcher never blocks on a full pipe.
    let stderr_log = Arc::new(Mutex::new(String::new()));
    {
        let mut stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::clone(&stderr_log);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut log) = log.lock() {
                    log.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
    }
    let (tx, rx) = mpsc::channel::<String>();
    {
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
    }

    let stderr_text = |log: &Arc<Mutex<String>>| log.lock().map(|s| s.clone()).unwrap_or_default();
    let ready = loop {
        match rx.recv_timeout(START_TIMEOUT) {
            Ok(line) if line.starts_with("READY ") => break line,
            Ok(other) => eprintln!("kube-testenv stdout: {other}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Closing stdin makes the launcher stop whatever it started (a kill would orphan them).
                drop(child.stdin.take());
                panic!(
                    "kube-testenv did not print READY within {START_TIMEOUT:?}; its stderr:\n{}",
                    stderr_text(&stderr_log)
                );
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = child.wait();
                // Give the stderr thread a moment to take the last bytes.
                std::thread::sleep(Duration::from_millis(200));
                panic!("kube-testenv exited before READY ({status:?}); its stderr:\n{}", stderr_text(&stderr_log));
            }
        }
    };
    let parts: Vec<&str> = ready.split_whitespace().collect();
    assert_eq!(parts.len(), 3, "malformed READY line from kube-testenv: {ready:?}");
    let kubeconfig = PathBuf::from(parts[1]);
    let forbidden_kubeconfig = PathBuf::from(parts[2]);
    let server = server_of(&kubeconfig);

    let stdin = child.stdin.take().expect("piped stdin");
    ApiServer {
        audit_log,
        kubeconfig,
        forbidden_kubeconfig,
        server,
        _stdin: Mutex::new(stdin),
        _child: Mutex::new(child),
        _dir: dir,
    }
}

fn server_of(kubeconfig: &Path) -> String {
    let config = kube::config::Kubeconfig::read_from(kubeconfig)
        .unwrap_or_else(|e| panic!("reading {}: {e}", kubeconfig.display()));
    config
        .clusters
        .first()
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.as_deref().map(|s| s.trim_end_matches('/').to_owned()))
        .unwrap_or_else(|| panic!("{} names no server", kubeconfig.display()))
}

impl ApiServer {
    /// `kubectl --kubeconfig <admin> ARGS...`.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        run_kubectl(&self.kubeconfig, args, None)
    }

    /// Like [`Self::kubectl`], with `input` on kubectl's stdin (for `-f -`).
    pub fn kubectl_stdin(&self, args: &[&str], input: &str) -> Output {
        run_kubectl(&self.kubeconfig, args, Some(input))
    }

    /// `kubectl wait --for=condition=Established` on the CRDs `which` names (`["-f", DIR]`, `["crd/NAME"]`).
    /// kubectl fails at once, instead of waiting, on a CRD whose `status.conditions` the server has not written yet
    /// ("accessor error: <nil>"), which a loaded machine sees right after the apply: that answer is waited out (up to
    /// a minute), any other failure panics.
    pub fn wait_established(&self, which: &[&str]) {
        let mut args = vec!["wait", "--for=condition=Established", "--timeout=180s"];
        args.extend_from_slice(which);
        for _ in 0..120 {
            let out = self.kubectl(&args);
            if out.status.success()
                || !String::from_utf8_lossy(&out.stderr).contains(".status.conditions accessor error")
            {
                expect_success(&args, out);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        self.kubectl_ok(&args);
    }

    /// Runs kubectl as admin and returns stdout; panics with kubectl's stderr when it fails.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        expect_success(args, self.kubectl(args))
    }

    /// Like [`Self::kubectl_ok`], with `input` on stdin.
    pub fn kubectl_stdin_ok(&self, args: &[&str], input: &str) -> String {
        expect_success(args, self.kubectl_stdin(args, input))
    }

    /// `kubectl --kubeconfig <user without rights> ARGS...`.
    pub fn kubectl_forbidden_user(&self, args: &[&str]) -> Output {
        run_kubectl(&self.forbidden_kubeconfig, args, None)
    }

    /// Creates a fresh namespace named `<prefix>-<n>` (unique within this test binary) and returns its name. Tests
    /// share the server: each works in namespaces of its own.
    /// Namespaces are not deleted: the server has no namespace controller and is thrown away at exit.
    pub fn namespace(&self, prefix: &str) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let clean: String =
            prefix.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let clean = clean.trim_matches('-');
        let clean = &clean[..clean.len().min(50)];
        let name = format!("{clean}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        self.kubectl_ok(&["create", "namespace", &name]);
        name
    }

    /// A kube-rs client for the admin user.
    pub async fn client(&self) -> kube::Client {
        let kubeconfig = kube::config::Kubeconfig::read_from(&self.kubeconfig)
            .unwrap_or_else(|e| panic!("reading {}: {e}", self.kubeconfig.display()));
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap_or_else(|e| panic!("loading {}: {e}", self.kubeconfig.display()));
        kube::Client::try_from(config).unwrap_or_else(|e| panic!("kube client: {e}"))
    }
}

/// The kubectl the tests run: `tools/kube-testenv/bin/kubectl` when build.sh made one (machines without
/// kubectl, `KUBE_TESTENV_KUBECTL=1`), else `kubectl` from PATH.
pub fn kubectl_program() -> PathBuf {
    let built = repo_root().join("tools/kube-testenv/bin/kubectl");
    if built.is_file() { built } else { PathBuf::from("kubectl") }
}

fn run_kubectl(kubeconfig: &Path, args: &[&str], input: Option<&str>) -> Output {
    let mut cmd = Command::new(kubectl_program());
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("running kubectl (is it on PATH?): {e}"));
    if let Some(input) = input {
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input = input.to_owned();
        // Write from a thread: kubectl may start answering before it has read all of its input.
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("waiting for kubectl: {e}"))
}

fn expect_success(args: &[&str], out: Output) -> String {
    assert!(
        out.status.success(),
        "kubectl {} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `kubectl-capz diff --kubeconfig KUBECONFIG ARGS...` without colours, an external diff program or the user's
/// KUBECONFIG.
pub fn capz_diff(kubeconfig: &Path, args: &[&str]) -> Output {
    Command::new(capz_bin())
        .arg("diff")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("KUBECTL_EXTERNAL_DIFF")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run kubectl-capz diff")
}

/// FNV-1a, 64 bits: the hash the referees' recordings keep of their inputs, so a replay sees a changed case.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
