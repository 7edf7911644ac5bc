//! Replays the fuzz targets' seeds and regression inputs (fuzz/seeds/<target>/*,
//! fuzz/regressions/<target>/*) through the same harness the cargo-fuzz binaries run, on stable
//! Rust: every input that once crashed a target stays fixed. See FUZZING.md.

#[path = "../../fuzz/harness.rs"]
mod harness;

use std::path::Path;

fn inputs(kind: &str, target: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new("fuzz").join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let (_, run) = harness::TARGETS.iter().find(|(name, _)| *name == target).expect("known target");
    let files: Vec<_> = ["regressions", "seeds"].iter().flat_map(|kind| inputs(kind, target)).collect();
    assert!(!files.is_empty(), "no inputs for fuzz target {target}");
    for file in files {
        let data = std::fs::read(&file).unwrap();
        // A panic names the input that caused it.
        let result = std::panic::catch_unwind(|| run(&data));
        assert!(result.is_ok(), "fuzz target {target} panicked on {}", file.display());
    }
}

#[test]
fn every_target_has_a_test() {
    let names: Vec<&str> = harness::TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        ["envsubst", "manifest_roundtrip", "params", "gotemplate", "validate", "plan", "escape", "read_budget"]
    );
}

#[test]
fn envsubst_inputs() {
    replay("envsubst");
}

#[test]
fn manifest_roundtrip_inputs() {
    replay("manifest_roundtrip");
}

#[test]
fn params_inputs() {
    replay("params");
}

#[test]
fn gotemplate_inputs() {
    replay("gotemplate");
}

#[test]
fn validate_inputs() {
    replay("validate");
}

#[test]
fn plan_inputs() {
    replay("plan");
}

#[test]
fn escape_inputs() {
    replay("escape");
}

#[test]
fn read_budget_inputs() {
    replay("read_budget");
}
