//! Shell completion in a real bash: the script of `kubectl-capz completion bash` driven through its
//! completion function, and `kubectl capz ...` through kubectl's own bash completion (kubectl 1.26+
//! runs the kubectl_complete-capz helper shipped in the krew archive). Also the cobra protocol of
//! `__complete` for contexts, and the helper's text.

use std::path::Path;
use std::process::Command;

use crate::support;

/// A PATH directory with `kubectl-capz` (the test binary) and `kubectl_complete-capz` (the committed helper).
fn plugin_path(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(support::capz_bin(), bin.join("kubectl-capz")).unwrap();
    std::os::unix::fs::symlink(
        support::repo_root().join("scripts/kubectl_complete-capz"),
        bin.join("kubectl_complete-capz"),
    )
    .unwrap();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

/// The words bash makes of `line` for completion: split at blanks, and each run of COMP_WORDBREAKS
/// characters other than blanks (`=`, `:`, ...) a word of its own; a trailing blank starts an empty
/// word.
fn comp_words(line: &str) -> Vec<String> {
    const BREAKS: &[char] = &['"', '\'', '>', '<', '=', ';', '|', '&', '(', ':'];
    let mut words = Vec::new();
    for blank_word in line.split_whitespace() {
        let mut current = String::new();
        let mut in_break = false;
        for c in blank_word.chars() {
            let is_break = BREAKS.contains(&c);
            if !current.is_empty() && is_break != in_break {
                words.push(std::mem::take(&mut current));
            }
            in_break = is_break;
            current.push(c);
        }
        words.push(current);
    }
    if line.ends_with(' ') {
        words.push(String::new());
    }
    words
}

/// bash-completion, which kubectl's own completion needs (kubectl's docs ask for it).
const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

/// Runs `setup` then completes `line` (the cursor at its end) in a real bash through `function`,
/// with COMP_WORDS split as bash splits them; returns COMPREPLY.
fn bash_complete(path: &str, setup: &str, function: &str, line: &str) -> Vec<String> {
    let words: Vec<String> = comp_words(line).iter().map(|w| format!("{w:?}")).collect();
    let script = format!(
        r#"{setup}
COMP_LINE={line:?}
COMP_POINT=${{#COMP_LINE}}
COMP_WORDS=({words})
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_TYPE=9
COMPREPLY=()
{function} "${{COMP_WORDS[0]}}" "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        words = words.join(" ")
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .env("PATH", path)
        .env_remove("KUBECONFIG")
        .output()
        .expect("bash");
    assert!(out.status.success(), "bash: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

/// The flavors shipped in flavors/ (each a directory with a flavor.yaml), sorted.
fn shipped_flavors() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(support::repo_root().join("flavors"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("flavor.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const OWN_SCRIPT: &str = "source <(kubectl-capz completion bash)";

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn own_bash_script_completes_after_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let path = plugin_path(dir.path());
    let complete = |line: &str| bash_complete(&path, OWN_SCRIPT, "_kubectl_capz_complete", line);
    let subcommands = complete("kubectl-capz ");
    for sub in ["render", "params", "validate", "diff", "plan", "version", "completion"] {
        assert!(subcommands.contains(&sub.to_string()), "{sub} missing: {subcommands:?}");
    }
    assert!(!subcommands.iter().any(|s| s.starts_with("__") || s == "import-schemas"), "{subcommands:?}");
    assert_eq!(complete("kubectl-capz render --gitops "), ["flux", "argocd"]);
    assert_eq!(complete("kubectl-capz render --gitops=ar"), ["argocd"], "after `=`, only the value part");
    assert_eq!(complete("kubectl-capz render --capi-api "), ["v1beta1", "v1beta2"]);
    assert_eq!(sorted(complete("kubectl-capz render ")), shipped_flavors());
    assert_eq!(sorted(complete("kubectl-capz params ")), shipped_flavors());
    assert_eq!(sorted(complete("kubectl-capz diff ")), shipped_flavors());
    for (sub, formats) in [
        ("render", &["yaml", "json"][..]),
        ("validate x.yaml", &["text", "json", "junit", "yaml", "sarif", "github"][..]),
        ("diff", &["diff", "json", "markdown", "yaml"][..]),
    ] {
        assert_eq!(
            sorted(complete(&format!("kubectl-capz {sub} -o "))),
            sorted(formats.iter().map(|s| s.to_string()).collect()),
            "{sub}"
        );
    }
    let set = complete("kubectl-capz render aks-aso demo --set pools");
    assert!(set.contains(&"pools[0].replicas=".to_string()), "--set offers parameter paths: {set:?}");
    let flags = complete("kubectl-capz diff --for");
    assert_eq!(flags, ["--force-conflicts"]);
    let every = complete("kubectl-capz plan --");
    assert!(every.contains(&"--from-cluster".to_string()) && every.contains(&"--kubeconfig".to_string()), "{every:?}");
}

#[test]
fn kubectl_capz_completes_through_kubectls_own_bash_completion() {
    let dir = tempfile::tempdir().unwrap();
    let path = plugin_path(dir.path());
    assert!(
        Path::new(BASH_COMPLETION).is_file(),
        "{BASH_COMPLETION} is missing: install bash-completion (kubectl's completion needs it; .ci/run installs it)"
    );
    let setup = format!("source {BASH_COMPLETION}\nsource <(kubectl completion bash)");
    let setup = setup.as_str();
    let complete = |line: &str| bash_complete(&path, setup, "__start_kubectl", line);
    assert_eq!(complete("kubectl capz render --gitops "), ["flux", "argocd"]);
    assert_eq!(sorted(complete("kubectl capz render ")), shipped_flavors());
    let subcommands = complete("kubectl capz ");
    assert!(
        subcommands.contains(&"diff".to_string()) && subcommands.contains(&"render".to_string()),
        "{subcommands:?}"
    );
    assert_eq!(complete("kubectl capz render --capi-api v1beta"), ["v1beta1", "v1beta2"]);
    assert_eq!(complete("kubectl capz diff -o "), ["diff", "json", "yaml", "markdown"]);
}

#[test]
fn words_split_as_bash_splits_them() {
    assert_eq!(comp_words("k render --gitops=ar"), ["k", "render", "--gitops", "=", "ar"]);
    assert_eq!(comp_words("k render "), ["k", "render", ""]);
}

#[test]
fn contexts_come_from_the_kubeconfig_and_the_helper_is_the_one_printed() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncurrent-context: mgmt\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:1}\n\
         users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: mgmt\n  context: {cluster: c, user: u}\n\
         - name: prod-westeurope\n  context: {cluster: c, user: u}\n",
    )
    .unwrap();
    let path = plugin_path(dir.path());
    let line = format!("kubectl-capz diff --kubeconfig {} --context ", kubeconfig.display());
    assert_eq!(bash_complete(&path, OWN_SCRIPT, "_kubectl_capz_complete", &line), ["mgmt", "prod-westeurope"]);
    let out = Command::new(support::capz_bin())
        .args(["__complete", "validate", "--context", "pr"])
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "prod-westeurope\n:4\n");

    let printed = Command::new(support::capz_bin()).args(["completion", "kubectl"]).output().unwrap();
    let committed = std::fs::read_to_string(support::repo_root().join("scripts/kubectl_complete-capz")).unwrap();
    assert_eq!(String::from_utf8_lossy(&printed.stdout), committed);
}

/// The fish script in a real fish (`complete -C` runs fish's completion of a command line).
#[test]
fn own_fish_script_completes_values_and_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    let path = plugin_path(dir.path());
    let complete = |line: &str| {
        let script = format!("source (kubectl-capz completion fish | psub); complete -C {line:?}");
        let out = Command::new("fish")
            .args(["--no-config", "-c", &script])
            .env("PATH", &path)
            .output()
            .expect("fish is installed (.ci/run installs it)");
        assert!(out.status.success(), "fish: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(sorted(complete("kubectl-capz render --gitops ")), ["argocd", "flux"]);
    assert_eq!(sorted(complete("kubectl-capz render ")), shipped_flavors());
    assert_eq!(complete("kubectl-capz ren"), ["render"]);
    assert_eq!(complete("kubectl-capz render --gitops=a"), ["--gitops=argocd"]);
}
