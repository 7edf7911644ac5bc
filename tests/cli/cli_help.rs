//! Help text: usage reads `kubectl capz ...`, every subcommand has an example, and completions work.

use assert_cmd::Command;

use crate::support;

fn capz() -> Command {
    Command::new(support::capz_bin())
}

const SUBCOMMANDS: &[&str] = &["render", "params", "validate", "diff", "plan", "version", "completion"];

/// `--help` of the plugin and of each subcommand, as users see it through kubectl.
#[test]
fn help_snapshots() {
    let top = capz().arg("--help").output().unwrap();
    assert!(top.status.success());
    insta::assert_snapshot!("help", String::from_utf8(top.stdout).unwrap());
    for sub in SUBCOMMANDS {
        let out = capz().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub} --help");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&format!("Usage: kubectl capz {sub}")), "{sub}: {text}");
        assert!(text.contains("Example"), "{sub} --help has an example");
        insta::assert_snapshot!(format!("help_{sub}"), text);
    }
}

/// A usage error is exit 2 and names the plugin as kubectl users call it.
#[test]
fn usage_errors_exit_2() {
    let out = capz().args(["render", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kubectl capz render"));
}

/// Completion scripts for the shells kubectl users have.
#[test]
fn completion_scripts() {
    for (shell, marker) in [("bash", "complete -F"), ("zsh", "#compdef"), ("fish", "complete -c")] {
        let out = capz().args(["completion", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(marker), "{shell} script: {}", &text[..text.len().min(200)]);
        // The scripts ask the binary (`__complete`), so subcommands, flags and values are never stale;
        // tests/tooling/completion.rs drives them in a real bash.
        assert!(text.contains("__complete") && text.contains("kubectl-capz"), "{shell} asks the binary");
    }
}
