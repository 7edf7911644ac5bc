//! Held-out cases from ASO's own data: the samples of ASO's Go module (`samples/containerservice`, `network`,
//! `resources`; fetched from the Go module proxy by tools/aso-samples/fetch.sh into a cache, never committed) of every
//! API version a target's ASO serves validate under that target, top level and embedded in an
//! AzureASOManagedControlPlane: ASO v2.18.0's under CAPZ v1.26 (ASO v2.18.0), v2.18.0's and v2.20.0's under CAPZ v1.27
//! (ASO v2.19, derived from them), and again under the provisional CAPZ v1.28 (ASO v2.20.0: v2.18.0's samples of
//! versions v2.20 still serves validate against v2.20.0's schemas, those of versions it removed are errors). A sample of a version the target's ASO does not serve is an error naming the target;
//! one of a kind outside CAPZ's --crd-pattern is a warning and never counted valid.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use capz::manifest::{Document, parse_documents};
use capz::report::Severity;
use capz::schema::{ObjectStatus, Registry, ValidateOptions, Validator};
use capz::versions::{Target, find_target};
use serde_json::json;

/// Samples that do not validate for reasons of the sample, not of our schemas or rules: (ASO release, path below
/// the release's folder, the rule that fires, why). Each must still fire, so the list cannot go stale.
const SAMPLE_PROBLEMS: &[(&str, &str, &str, &str)] = &[];

/// The fetched samples: tools/aso-samples/fetch.sh (cached in target/aso-samples).
fn samples_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash").arg(root.join("tools/aso-samples/fetch.sh")).output().expect("run fetch.sh");
    assert!(out.status.success(), "tools/aso-samples/fetch.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last().expect("fetch.sh prints its output directory"))
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

fn embedded_in_control_plane(document: &Document) -> Document {
    let value = json!({
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedControlPlane",
        "metadata": {"name": "demo", "namespace": "default"},
        "spec": {"version": "v1.33.2", "resources": [document.value]}
    });
    parse_documents(&serde_json::to_string(&value).unwrap(), "embedded.yaml").unwrap().remove(0)
}

/// (rule, message) of the errors of a validation.
fn errors(findings: &[capz::report::Finding]) -> Vec<(String, String)> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.rule.clone(), format!("{}: {}", f.path, f.message)))
        .collect()
}

/// What one target's check of the samples found.
#[derive(Default)]
struct Tally {
    clean: usize,
    unserved: usize,
    outside_pattern: usize,
    known_problems: BTreeSet<String>,
    /// Served versions of kinds the target installs that some sample of these releases covers.
    covered: BTreeSet<String>,
}

fn check_target(target: &'static Target, releases: &[&str], samples: &Path) -> Tally {
    let registry = Registry::for_target(target);
    let validator = Validator::new(&registry, ValidateOptions::default());
    let mut tally = Tally::default();
    for release in releases {
        let root = samples.join(release);
        let mut files = Vec::new();
        yaml_files(&root, &mut files);
        assert!(files.len() > 100, "{release}: {} sample files", files.len());
        for file in files {
            let relative = file.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            for document in parse_documents(&text, &relative).unwrap() {
                let Some((group, version)) = document.api_version().split_once('/') else { continue };
                if !Target::is_aso_group(group) {
                    continue;
                }
                let kind = document.kind().to_string();
                let what = format!("{} ASO {release} {relative}: {kind} {group}/{version}", target.name);
                let top = validator.validate_document(&document);
                let embedded = validator.validate_document(&embedded_in_control_plane(&document));
                let known = SAMPLE_PROBLEMS.iter().find(|(r, path, ..)| r == release && *path == relative);
                if !target.installs_aso_kind(group, &kind) {
                    assert!(top.findings.iter().any(|f| f.rule == "aso-crd-pattern"), "{what}: {:?}", top.findings);
                    assert_ne!(top.status, ObjectStatus::Valid, "{what}");
                    tally.outside_pattern += 1;
                } else if !registry.versions_of(group, &kind).iter().any(|v| v == version) {
                    // A version this target's ASO does not serve (removed, or newer than it).
                    let found = errors(&top.findings);
                    assert!(
                        found.iter().any(|(rule, message)| rule == "api-version"
                            && message.contains(&format!(
                                "not served by ASO {} that CAPZ {} installs",
                                minor(target.aso),
                                target.name
                            ))),
                        "{what}: {found:?}"
                    );
                    assert!(!errors(&embedded.findings).is_empty(), "{what} embedded");
                    tally.unserved += 1;
                } else if let Some((_, _, rule, _)) = known {
                    assert!(errors(&top.findings).iter().any(|(r, _)| r == rule), "{what}: the known problem is gone");
                    tally.known_problems.insert(relative.clone());
                } else {
                    assert_eq!(errors(&top.findings), [], "{what}");
                    assert_eq!(top.status, ObjectStatus::Valid, "{what}: {:?}", top.findings);
                    assert_eq!(errors(&embedded.findings), [], "{what} embedded");
                    tally.clean += 1;
                    tally.covered.insert(format!("{group}/{version} {kind}"));
                }
            }
        }
    }
    tally
}

/// `v2.19` of `v2.19.0`.
fn minor(version: &str) -> &str {
    version.rsplit_once('.').map_or(version, |(minor, _)| minor)
}

#[test]
fn aso_samples_of_every_served_version_validate_under_their_target() {
    let samples = samples_dir();
    for (name, releases) in
        [("v1.26", &["v2.18.0"][..]), ("v1.27", &["v2.18.0", "v2.20.0"][..]), ("v1.28", &["v2.18.0", "v2.20.0"][..])]
    {
        let target = find_target(name).unwrap();
        let tally = check_target(target, releases, &samples);
        assert!(tally.clean > 20, "{name}: {} clean", tally.clean);
        assert!(tally.outside_pattern > 50, "{name}: {} outside the crd-pattern", tally.outside_pattern);
        // Every API version of the three groups the target's ASO serves has a sample that validates clean, except
        // those ASO ships no sample of.
        let registry = Registry::for_target(target);
        let mut uncovered = Vec::new();
        for entry in target.aso_crd_pattern {
            let (group, kind) = entry.split_once('/').unwrap();
            if !["containerservice.azure.com", "network.azure.com", "resources.azure.com"].contains(&group) {
                continue;
            }
            for version in registry.versions_of(group, kind).iter().filter(|v| !v.ends_with("storage")) {
                let key = format!("{group}/{version} {kind}");
                if !tally.covered.contains(&key) {
                    uncovered.push(key);
                }
            }
        }
        assert_eq!(uncovered, Vec::<String>::new(), "{name}: served versions without a clean sample");
        let covered: Vec<&str> = tally.covered.iter().map(String::as_str).collect();
        let summary = format!(
            "{} documents clean, {} of versions the target does not serve (errors), {} of kinds outside the \
             crd-pattern (warnings)\nclean samples cover:\n{}",
            tally.clean,
            tally.unserved,
            tally.outside_pattern,
            covered.join("\n")
        );
        insta::assert_snapshot!(format!("samples_{name}"), summary);
        let unused: Vec<_> = SAMPLE_PROBLEMS
            .iter()
            .filter(|(release, path, ..)| releases.contains(release) && !tally.known_problems.contains(*path))
            .collect();
        assert!(name == "v1.26" || unused.is_empty(), "listed sample problems that no longer fire: {unused:?}");
        // v1.26's ASO v2.18 serves containerservice v1api20240402preview, which v1.27's and v1.28's do not; network
        // v20250301 the other way round: both directions are exercised by the samples.
        if name != "v1.26" {
            assert!(tally.unserved > 0, "{name}: no sample of a version it does not serve");
            assert!(tally.covered.contains("network.azure.com/v20250301 VirtualNetwork"), "{:?}", tally.covered);
        } else {
            assert!(tally.covered.contains("containerservice.azure.com/v1api20240402preview ManagedCluster"));
        }
    }
}
