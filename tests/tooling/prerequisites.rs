//! The check every harness runs before its tests (tests/support/prerequisites.rs): one message naming everything
//! the suite lacks and how to get it, only when the harness itself needs something missing.

use crate::support::prerequisites::{Prerequisite, missing_message};

#[test]
fn a_fresh_clone_gets_one_message_naming_every_missing_tool_and_its_build_command() {
    let root = tempfile::tempdir().unwrap();
    let message = missing_message(root.path(), "corpora", &[Prerequisite::Helm]).expect("helm is missing");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines[0], "the `corpora` tests need what cargo does not build; missing:");
    assert!(
        lines.contains(
            &"  - tools/kube-testenv/bin/kube-apiserver, tools/kube-testenv/bin/etcd, tools/kube-testenv/bin/kube-testenv: tools/kube-testenv/build.sh"
        ),
        "{message}"
    );
    assert!(lines.contains(&"  - tools/helm/bin/helm: tools/helm/build.sh"), "{message}");
    assert!(
        lines.contains(&"  - tools/krew/bin/krew, tools/krew/bin/validate-krew-manifest: tools/krew/build.sh"),
        "{message}"
    );
    assert_eq!(
        lines.last(),
        Some(&"./scripts/test-all.sh builds and installs all of them (Go module proxy, apt) and then runs every test.")
    );
}

#[test]
fn a_harness_whose_own_tools_are_there_runs_whatever_else_is_missing() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("tools/helm/bin")).unwrap();
    std::fs::write(root.path().join("tools/helm/bin/helm"), "").unwrap();
    assert_eq!(missing_message(root.path(), "corpora", &[Prerequisite::Helm]), None);
    let live = missing_message(root.path(), "live", &[Prerequisite::ApiServer]).expect("the server is missing");
    assert!(!live.contains("tools/helm/bin/helm"), "{live}");
}
