//! External tools (helm, kustomize) run as subprocesses: a timeout, a clean environment, no network.
//!
//! A repository under validation may be a pull request from a fork, so what runs must not reach the
//! network nor read the user's configuration: the child sees only `PATH`, a temporary `HOME` and Helm
//! homes, a kubeconfig whose only server is a closed loopback port, proxies pointed at that port so that any
//! download attempt fails at once, and git without transports, ssh or credentials. Its stdin is empty, its output is capped and it is killed at the timeout.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Where the proxies of the child point: the discard port of the loopback interface, closed on any
/// machine we run on, so a download fails with "connection refused" instead of reaching the network.
pub const CLOSED_PROXY: &str = "http://127.0.0.1:9";

/// The kubeconfig of the child: one cluster at the closed port, no credentials.
const CLOSED_KUBECONFIG: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster:\n    server: \
                                 https://127.0.0.1:9\ncontexts:\n- name: none\n  context:\n    cluster: none\n\
                                 current-context: none\n";

/// The most a tool may print on stdout or on stderr; past it the tool is killed.
pub const OUTPUT_LIMIT: usize = 64 * 1024 * 1024;

/// What a tool printed, when it exited with status 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub stdout: String,
    pub stderr: String,
}

/// Why a tool gave no output.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("`{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("`{program}` did not finish within {}s and was stopped", after.as_secs_f64())]
    TimedOut { program: String, after: Duration },
    #[error("`{program}` failed ({status}): {stderr}")]
    Failed { program: String, status: ExitStatus, stderr: String },
    #[error("`{program}` printed more than {limit} bytes and was stopped")]
    OutputTooLarge { program: String, limit: usize },
    #[error("could not run `{program}`: {source}")]
    Io {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// The executable file named `program` in a directory of `PATH`, as a shell would find it. A name with a
/// slash is taken as a path.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return is_executable(&path).then_some(path);
    }
    let path_var = std::env::var_os("PATH")?;
    std::env::split_paths(&path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Runs `program` (found on `PATH`) with `args` in `cwd`, in the clean environment described at the top of
/// this module, and returns its output when it exits with status 0 within `timeout`.
pub fn run_tool(program: &str, args: &[OsString], cwd: &Path, timeout: Duration) -> Result<ToolOutput, ToolError> {
    run_tool_limited(program, args, cwd, timeout, OUTPUT_LIMIT)
}

fn run_tool_limited(
    program: &str,
    args: &[OsString],
    cwd: &Path,
    timeout: Duration,
    limit: usize,
) -> Result<ToolOutput, ToolError> {
    let io_error = |source| ToolError::Io { program: program.to_string(), source };
    let executable = find_on_path(program).ok_or_else(|| ToolError::NotFound { program: program.to_string() })?;
    let home = tempfile::Builder::new().prefix("kubectl-capz-tool-").tempdir().map_err(io_error)?;
    let mut command = Command::new(&executable);
    command.args(args).current_dir(cwd).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    clean_environment(&mut command, home.path()).map_err(io_error)?;
    let mut child = command.spawn().map_err(io_error)?;
    let stdout = capture(child.stdout.take(), limit);
    let stderr = capture(child.stderr.take(), limit);
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io_error)? {
            break status;
        }
        if stdout.overflowed() || stderr.overflowed() {
            stop(&mut child);
            return Err(ToolError::OutputTooLarge { program: program.to_string(), limit });
        }
        if Instant::now() >= deadline {
            stop(&mut child);
            return Err(ToolError::TimedOut { program: program.to_string(), after: timeout });
        }
        thread::sleep(Duration::from_millis(5));
    };
    let (stdout, stdout_overflowed) = stdout.finish();
    let (stderr, stderr_overflowed) = stderr.finish();
    if stdout_overflowed || stderr_overflowed {
        return Err(ToolError::OutputTooLarge { program: program.to_string(), limit });
    }
    if !status.success() {
        return Err(ToolError::Failed { program: program.to_string(), status, stderr: stderr.trim().to_string() });
    }
    Ok(ToolOutput { stdout, stderr })
}

/// Replaces the inherited environment: `PATH` only, homes in `home`, no kubeconfig, proxies that refuse, git
/// without transports, ssh or credentials.
fn clean_environment(command: &mut Command, home: &Path) -> std::io::Result<()> {
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    let homes: [(&str, &str); 3] =
        [("HELM_CACHE_HOME", "cache"), ("HELM_CONFIG_HOME", "config"), ("HELM_DATA_HOME", "data")];
    for (variable, dir) in homes {
        let dir = home.join(dir);
        std::fs::create_dir_all(&dir)?;
        command.env(variable, dir);
    }
    // A kubeconfig whose only cluster is the closed port: a kubectl that asks a server anything (Google Cloud SDK's
    // kubectl dispatcher asks for the server's version before every command, `kubectl kustomize` too) gets
    // "connection refused" instead of reaching whatever listens on localhost:8080, the default without one.
    let kubeconfig = home.join("kubeconfig");
    std::fs::write(&kubeconfig, CLOSED_KUBECONFIG)?;
    command.env("HOME", home).env("KUBECONFIG", kubeconfig);
    for variable in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
        command.env(variable, CLOSED_PROXY);
    }
    command.env("NO_PROXY", OsStr::new("")).env("no_proxy", OsStr::new(""));
    // Should anything still run git (a remote base repository mode failed to recognise), it can use no transport at
    // all (not even `file`, which could clone a repository outside the tree, nor `ext`, which runs a command), run
    // no ssh, ask for no password and read no configuration: no system or global config, no credential helper.
    command.env("GIT_ALLOW_PROTOCOL", "none").env("GIT_PROTOCOL_FROM_USER", "0");
    command.env("GIT_SSH_COMMAND", "false").env("GIT_SSH", "false").env("GIT_ASKPASS", "false");
    command.env("SSH_ASKPASS", "false").env("GIT_TERMINAL_PROMPT", "0");
    command.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
    command.env("GIT_CONFIG_COUNT", "1").env("GIT_CONFIG_KEY_0", "credential.helper").env("GIT_CONFIG_VALUE_0", "");
    Ok(())
}

/// Kills a tool that overran and reaps it (its readers are left to finish on their own: a grandchild
/// holding the pipe open must not block us).
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// One output stream of the child, read on its own thread up to a limit.
struct Capture {
    buffer: Arc<Mutex<(Vec<u8>, bool)>>,
    reader: Option<thread::JoinHandle<()>>,
}

fn capture(pipe: Option<impl Read + Send + 'static>, limit: usize) -> Capture {
    let buffer = Arc::new(Mutex::new((Vec::new(), false)));
    let reader = pipe.map(|mut pipe| {
        let buffer = Arc::clone(&buffer);
        thread::spawn(move || {
            let mut chunk = [0u8; 64 * 1024];
            loop {
                let read = match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => read,
                };
                let mut guard = buffer.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if guard.0.len() + read > limit {
                    guard.1 = true;
                    break;
                }
                guard.0.extend_from_slice(&chunk[..read]);
            }
        })
    });
    Capture { buffer, reader }
}

impl Capture {
    fn overflowed(&self) -> bool {
        self.buffer.lock().map(|guard| guard.1).unwrap_or(true)
    }

    /// Waits for the end of the stream and returns it as text (invalid UTF-8 replaced) and whether it was cut.
    fn finish(mut self) -> (String, bool) {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let guard = self.buffer.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        (String::from_utf8_lossy(&guard.0).into_owned(), guard.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn sh(script: &str, timeout: Duration) -> Result<ToolOutput, ToolError> {
        let cwd = std::env::temp_dir();
        run_tool("sh", &args(&["-c", script]), &cwd, timeout)
    }

    #[test]
    fn output_of_a_successful_run_is_returned() {
        let output = sh("echo out; echo err >&2", Duration::from_secs(10)).unwrap();
        assert_eq!(output.stdout, "out\n");
        assert_eq!(output.stderr, "err\n");
    }

    #[test]
    fn runs_in_the_given_directory() {
        let dir = tempfile::tempdir().unwrap();
        let output = run_tool("pwd", &[], dir.path(), Duration::from_secs(10)).unwrap();
        let printed = PathBuf::from(output.stdout.trim());
        assert_eq!(printed.canonicalize().unwrap(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn environment_is_clean_and_points_downloads_at_a_closed_port() {
        let output = sh("env | sort", Duration::from_secs(10)).unwrap();
        let names: Vec<&str> = output
            .stdout
            .lines()
            .filter_map(|line| line.split_once('=').map(|(name, _)| name))
            .filter(|name| !["PWD", "SHLVL", "_", "OLDPWD"].contains(name))
            .collect();
        assert_eq!(
            names,
            [
                "GIT_ALLOW_PROTOCOL",
                "GIT_ASKPASS",
                "GIT_CONFIG_COUNT",
                "GIT_CONFIG_GLOBAL",
                "GIT_CONFIG_KEY_0",
                "GIT_CONFIG_NOSYSTEM",
                "GIT_CONFIG_VALUE_0",
                "GIT_PROTOCOL_FROM_USER",
                "GIT_SSH",
                "GIT_SSH_COMMAND",
                "GIT_TERMINAL_PROMPT",
                "HELM_CACHE_HOME",
                "HELM_CONFIG_HOME",
                "HELM_DATA_HOME",
                "HOME",
                "HTTPS_PROXY",
                "HTTP_PROXY",
                "KUBECONFIG",
                "NO_PROXY",
                "PATH",
                "SSH_ASKPASS",
                "http_proxy",
                "https_proxy",
                "no_proxy",
            ]
        );
        for setting in ["GIT_ALLOW_PROTOCOL=none\n", "GIT_SSH_COMMAND=false\n", "GIT_CONFIG_GLOBAL=/dev/null\n"] {
            assert!(output.stdout.contains(setting), "{setting}");
        }
        assert!(output.stdout.contains("HTTPS_PROXY=http://127.0.0.1:9\n"));
        let kubeconfig = output.stdout.lines().find_map(|line| line.strip_prefix("KUBECONFIG=")).unwrap();
        assert!(kubeconfig.ends_with("/kubeconfig"), "{kubeconfig}");
        assert!(output.stdout.contains("NO_PROXY=\n"));
    }

    #[test]
    fn git_in_the_clean_environment_uses_no_transport_and_no_ssh() {
        if find_on_path("git").is_none() {
            panic!("git is not on PATH: the test needs it to show that git can fetch nothing");
        }
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("source");
        let init = std::process::Command::new("git").args(["init", "-q"]).arg(&source).status().unwrap();
        assert!(init.success());
        for address in [format!("file://{}", source.display()), source.display().to_string()] {
            let error = run_tool("git", &args(&["clone", "-q", &address, "copy"]), dir.path(), Duration::from_secs(30))
                .unwrap_err();
            assert!(error.to_string().contains("transport 'file' not allowed"), "{address}: {error}");
        }
        let error = run_tool(
            "git",
            &args(&["ls-remote", "git@example.invalid:org/repo.git"]),
            dir.path(),
            Duration::from_secs(30),
        )
        .unwrap_err();
        assert!(error.to_string().contains("transport 'ssh' not allowed"), "{error}");
        assert!(!dir.path().join("copy").exists());
    }

    #[test]
    fn kubectl_asks_no_server_but_the_closed_port() {
        let output = sh("cat \"$KUBECONFIG\"", Duration::from_secs(10)).unwrap();
        assert_eq!(output.stdout, CLOSED_KUBECONFIG);
        let config = crate::manifest::parse_plain_value(&output.stdout, "kubeconfig").unwrap();
        assert_eq!(config.pointer("/clusters/0/cluster/server").and_then(|s| s.as_str()), Some("https://127.0.0.1:9"));
        assert_eq!(config["current-context"], "none");
    }

    #[test]
    fn home_is_a_fresh_temporary_directory_removed_afterwards() {
        let output =
            sh("test -d \"$HELM_CONFIG_HOME\" && test -w \"$HOME\" && echo $HOME", Duration::from_secs(10)).unwrap();
        let home = PathBuf::from(output.stdout.trim());
        assert_ne!(Some(home.as_os_str()), std::env::var_os("HOME").as_deref());
        assert!(!home.exists(), "{} was not removed", home.display());
    }

    #[test]
    fn stdin_is_empty() {
        let output = sh("cat; echo done", Duration::from_secs(10)).unwrap();
        assert_eq!(output.stdout, "done\n");
    }

    #[test]
    fn a_failing_tool_reports_its_status_and_stderr() {
        let error = sh("echo 'Error: broken chart' >&2; exit 3", Duration::from_secs(10)).unwrap_err();
        match &error {
            ToolError::Failed { program, status, stderr } => {
                assert_eq!(program, "sh");
                assert_eq!(status.code(), Some(3));
                assert_eq!(stderr, "Error: broken chart");
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        assert_eq!(error.to_string(), "`sh` failed (exit status: 3): Error: broken chart");
    }

    #[test]
    fn a_tool_past_its_timeout_is_killed() {
        let started = Instant::now();
        let error = sh("sleep 30", Duration::from_millis(300)).unwrap_err();
        assert!(
            matches!(&error, ToolError::TimedOut { program, after } if program == "sh" && *after == Duration::from_millis(300)),
            "{error:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(error.to_string(), "`sh` did not finish within 0.3s and was stopped");
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let error = run_tool("kubectl-capz-no-such-tool", &[], Path::new("."), Duration::from_secs(1)).unwrap_err();
        assert!(matches!(error, ToolError::NotFound { .. }), "{error:?}");
        assert_eq!(error.to_string(), "`kubectl-capz-no-such-tool` was not found on PATH");
        assert_eq!(find_on_path("kubectl-capz-no-such-tool"), None);
    }

    #[test]
    fn find_on_path_finds_an_executable() {
        let sh = find_on_path("sh").expect("sh on PATH");
        assert!(sh.is_absolute() || sh.starts_with("."));
        assert_eq!(find_on_path(sh.to_str().unwrap()), Some(sh));
    }

    #[test]
    fn output_past_the_limit_stops_the_tool() {
        let started = Instant::now();
        let script = "head -c 100000 /dev/zero; sleep 30";
        let error = run_tool_limited("sh", &args(&["-c", script]), Path::new("."), Duration::from_secs(60), 50_000)
            .unwrap_err();
        assert!(matches!(error, ToolError::OutputTooLarge { limit: 50_000, .. }), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_download_through_the_proxy_is_refused() {
        // Whatever a tool fetches over HTTP goes through the closed proxy port and fails at once
        // (curl honours the proxy variables as Go's net/http does).
        let started = Instant::now();
        let error = run_tool(
            "curl",
            &args(&["-sS", "--max-time", "20", "http://example.com/"]),
            Path::new("."),
            Duration::from_secs(30),
        )
        .unwrap_err();
        match &error {
            ToolError::Failed { stderr, .. } => {
                assert!(stderr.contains("127.0.0.1") || stderr.contains("proxy"), "{stderr}")
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
