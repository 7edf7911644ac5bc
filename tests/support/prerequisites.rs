//! What the test harnesses run besides the plugin, built or installed outside cargo: checked once when a harness
//! starts (before libtest runs a test), so that a plain `cargo test` on a fresh clone stops at the first harness
//! that needs one with a single message naming everything missing and the command that provides it, instead of
//! failures deep inside tests.

use std::path::{Path, PathBuf};

/// One thing a harness needs that cargo does not build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prerequisite {
    /// kube-apiserver, etcd and the launcher (tools/kube-testenv): the live tests' server.
    ApiServer,
    /// helm v3.18.6 (tools/helm): repository mode renders charts with it.
    Helm,
    /// krew and validate-krew-manifest v0.5.0 (tools/krew): the krew manifest test.
    Krew,
    /// kubectl on PATH (or built by kube-testenv): kustomize builds and the live tests.
    Kubectl,
    /// bash-completion and fish: the completion tests run real shells.
    Shells,
}

const ALL: [Prerequisite; 5] =
    [Prerequisite::ApiServer, Prerequisite::Helm, Prerequisite::Krew, Prerequisite::Kubectl, Prerequisite::Shells];

impl Prerequisite {
    /// The files (repository-relative, or absolute) it consists of.
    fn files(self) -> Vec<PathBuf> {
        match self {
            Prerequisite::ApiServer => ["kube-apiserver", "etcd", "kube-testenv"]
                .iter()
                .map(|name| PathBuf::from("tools/kube-testenv/bin").join(name))
                .collect(),
            Prerequisite::Helm => vec![PathBuf::from("tools/helm/bin/helm")],
            Prerequisite::Krew => {
                vec![PathBuf::from("tools/krew/bin/krew"), PathBuf::from("tools/krew/bin/validate-krew-manifest")]
            }
            Prerequisite::Kubectl => Vec::new(),
            Prerequisite::Shells => vec![PathBuf::from("/usr/share/bash-completion/bash_completion")],
        }
    }

    /// What is missing of it under `root`, as the message names it (`None`: all there).
    fn missing(self, root: &Path) -> Option<String> {
        let absent: Vec<String> =
            self.files().iter().filter(|file| !root.join(file).is_file()).map(|f| f.display().to_string()).collect();
        let on_path = |program: &str| {
            std::env::var_os("PATH")
                .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        };
        match self {
            Prerequisite::Kubectl if !on_path("kubectl") && !root.join("tools/kube-testenv/bin/kubectl").is_file() => {
                Some("kubectl (not on PATH)".to_string())
            }
            Prerequisite::Shells if !on_path("fish") || !absent.is_empty() => {
                Some("bash-completion and fish (Debian packages)".to_string())
            }
            Prerequisite::Kubectl | Prerequisite::Shells => None,
            _ if absent.is_empty() => None,
            _ => Some(absent.join(", ")),
        }
    }

    /// The command that provides it.
    fn remedy(self) -> &'static str {
        match self {
            Prerequisite::ApiServer => "tools/kube-testenv/build.sh",
            Prerequisite::Helm => "tools/helm/build.sh",
            Prerequisite::Krew => "tools/krew/build.sh",
            Prerequisite::Kubectl => "install kubectl, or KUBE_TESTENV_KUBECTL=1 tools/kube-testenv/build.sh",
            Prerequisite::Shells => "apt-get install bash-completion fish",
        }
    }
}

/// The message for what is missing under `root` when a harness needs `needed`: `None` when none of `needed` is
/// missing; otherwise every missing prerequisite of the whole suite (so one round of building is enough).
pub fn missing_message(root: &Path, harness: &str, needed: &[Prerequisite]) -> Option<String> {
    if !needed.iter().any(|prerequisite| prerequisite.missing(root).is_some()) {
        return None;
    }
    let mut message = format!("the `{harness}` tests need what cargo does not build; missing:\n");
    for prerequisite in ALL {
        if let Some(what) = prerequisite.missing(root) {
            message.push_str(&format!("  - {what}: {}\n", prerequisite.remedy()));
        }
    }
    message.push_str(
        "./scripts/test-all.sh builds and installs all of them (Go module proxy, apt) and then runs every test.\n",
    );
    Some(message)
}

/// Stops the harness at once (exit status 2) when one of `needed` is missing, with [`missing_message`].
pub fn require(harness: &str, needed: &[Prerequisite]) {
    if let Some(message) = missing_message(&super::repo_root(), harness, needed) {
        eprintln!("error: {message}");
        std::process::exit(2);
    }
}
