//! Test support for live tests: one real kube-apiserver + etcd per test binary (tools/kube-testenv), a fresh
//! namespace per test, and the real `kubectl` pointed at that server.
//!
//! Use from a test binary with `mod support;`. The first call to [`apiserver`] starts
//! `tools/kube-testenv/bin/kube-testenv` with the trimmed CRDs of `tests/fixtures/crds/` and waits for its
//! `READY` line. The launcher's stdin stays open for the life of this process; when the test binary exits
//! (or dies) the pipe closes and the launcher stops etcd and kube-apiserver and removes its temp dirs.
//! Missing binaries are a test failure that says how to build them, never a skip.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long the launcher may take to start etcd and kube-apiserver and install the CRDs. Generous: the
/// machine running the tests may be busy compiling other test binaries.
const START_TIMEOUT: Duration = Duration::from_secs(300);

/// A running test control plane. Lives until the test process exits.
pub struct ApiServer {
    /// Admin kubeconfig (client certificate in `system:masters`).
    pub kubeconfig: PathBuf,
    /// Kubeconfig of an authenticated user without any RBAC rights: every resource request is 403.
    pub forbidden_kubeconfig: PathBuf,
    /// The server URL (`https://127.0.0.1:PORT`).
    pub server: String,
    /// Held, never written: closing it (process exit) tells the launcher to shut down.
    _stdin: Mutex<ChildStdin>,
    _child: Mutex<Child>,
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Directory of the trimmed CRD fixtures, one subdirectory per project (capi, capz, aso).
pub fn crd_fixture_dirs() -> Vec<PathBuf> {
    let base = repo_root().join("tests/fixtures/crds");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("reading {}: {e}", base.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no CRD directories under {}", base.display());
    dirs
}

/// The shared API server of this test binary, started on first use.
pub fn apiserver() -> &'static ApiServer {
    static SERVER: OnceLock<ApiServer> = OnceLock::new();
    SERVER.get_or_init(start)
}

fn start() -> ApiServer {
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
    for dir in crd_fixture_dirs() {
        cmd.arg("-crd-dir").arg(dir);
    }
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
                panic!(
                    "kube-testenv exited before READY ({status:?}); its stderr:\n{}",
                    stderr_text(&stderr_log)
                );
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
        kubeconfig,
        forbidden_kubeconfig,
        server,
        _stdin: Mutex::new(stdin),
        _child: Mutex::new(child),
    }
}

fn server_of(kubeconfig: &Path) -> String {
    let config = kube::config::Kubeconfig::read_from(kubeconfig)
        .unwrap_or_else(|e| panic!("reading {}: {e}", kubeconfig.display()));
    config
        .clusters
        .first()
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone())
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

    /// Creates a fresh namespace named `<prefix>-<n>` (unique within this test binary) and returns its name.
    /// Namespaces are not deleted: the server has no namespace controller and is thrown away at exit.
    pub fn namespace(&self, prefix: &str) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let clean: String = prefix
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
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
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("running kubectl (is it on PATH?): {e}"));
    if let Some(input) = input {
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input = input.to_owned();
        // Write from a thread: kubectl may start answering before it has read all of its input.
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for kubectl: {e}"))
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
