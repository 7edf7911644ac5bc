//! Each target's CAPI kinds, Cluster API Operator providers and the ASO kinds bundled for `ADDITIONAL_ASO_CRDS`:
//! one sample of every kind and version it serves (tests/fixtures/target-kinds/) is accepted by a real
//! kube-apiserver serving that target's CRDs (a server of its own per target, with the CRDs of its schema
//! releases trimmed by tools/kube-testenv/trim-crds.sh as the shared server's are; a server-side dry-run create
//! with strict field validation) and by `validate`'s schema checks; and every such kind and version has a sample.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use capz::manifest::parse_documents;
use capz::schema::crd_pattern::CrdPattern;
use capz::schema::{AdditionalAsoCrds, Gvk, ObjectStatus, Registry, ValidateOptions, Validator, embedded, releases};
use capz::versions::{ASO_EXTRA_KINDS, TARGETS, Target};

fn samples_dir() -> PathBuf {
    support::repo_root().join("tests/fixtures/target-kinds")
}

/// The sample files, sorted.
fn sample_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(samples_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// The releases of `target` whose kinds the samples cover: its CAPI and Cluster API Operator releases.
fn covered_releases(target: &Target) -> Vec<&'static str> {
    target.schema_sets.iter().copied().filter(|r| r.starts_with("capi-")).collect()
}

/// Every (group, version, kind) of `target`'s CAPI and operator releases, and of the extra ASO kinds in its ASO
/// release, that the API server serves for users (not ASO's `...storage` versions), from the embedded schemas.
fn served_kinds(target: &Target) -> BTreeSet<(String, String, String)> {
    let aso = target.schema_sets.iter().find(|r| r.starts_with("aso-")).unwrap();
    let mut kinds = BTreeSet::new();
    for (path, _) in embedded::sizes() {
        let parts: Vec<&str> = path.split('/').collect();
        let [_, folder, group, version, file] = parts[..] else { continue };
        let kind = file.trim_end_matches(".json");
        let held = releases::releases_of_folder(folder);
        let capi = held.iter().any(|r| covered_releases(target).contains(&r.as_str()));
        let extra = held.iter().any(|r| r == aso) && ASO_EXTRA_KINDS.contains(&format!("{group}/{kind}").as_str());
        if (capi || extra) && !version.ends_with("storage") {
            kinds.insert((group.to_string(), version.to_string(), kind.to_string()));
        }
    }
    kinds
}

/// The trimmed CRDs of `target`'s schema releases (not the GitOps ones), as trim-crds.sh makes them, in `out`.
fn target_crds(target: &Target, out: &Path) {
    let source = tempfile::tempdir().unwrap();
    let crds = support::repo_root().join("schemas/crds");
    let mut copied = 0;
    for entry in std::fs::read_dir(&crds).unwrap() {
        let folder = entry.unwrap().path();
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let held = releases::releases_of_folder(&name);
        if name == "gitops" || !held.iter().any(|r| target.schema_sets.contains(&r.as_str())) {
            continue;
        }
        for file in std::fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, source.path().join(file.file_name().unwrap())).unwrap();
            copied += 1;
        }
    }
    assert!(copied > 40, "{}: only {copied} CRDs", target.name);
    let script = support::repo_root().join("tools/kube-testenv/trim-crds.sh");
    let run = std::process::Command::new("bash").arg(&script).arg(out).env("CRD_SRC", source.path()).output().unwrap();
    assert!(run.status.success(), "{} failed:\n{}", script.display(), String::from_utf8_lossy(&run.stderr));
}

#[test]
fn every_kind_of_every_target_has_a_sample_the_api_server_and_validate_accept() {
    let mut sampled = BTreeSet::new();
    for file in sample_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for document in parse_documents(&text, &file.display().to_string()).unwrap() {
            sampled.insert((document.group().to_string(), document.version().to_string(), document.kind().to_string()));
        }
    }
    for target in TARGETS {
        let served = served_kinds(target);
        assert!(served.len() >= 47, "{}: only {} kinds", target.name, served.len());
        let missing: Vec<_> = served.difference(&sampled).collect();
        let unknown: Vec<_> = sampled.difference(&served).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "{}: no sample of {missing:?}; not served: {unknown:?}",
            target.name
        );

        // Our verdict: the target's schemas, its crd-pattern widened by the extra ASO kinds.
        let mut registry = Registry::for_target(target);
        registry.set_additional_aso_crds(AdditionalAsoCrds {
            pattern: CrdPattern::parse(&ASO_EXTRA_KINDS.join(";")),
            origin: "the test".into(),
        });
        let validator = Validator::new(&registry, ValidateOptions::default());
        let crds = tempfile::tempdir().unwrap();
        target_crds(target, crds.path());
        let api = support::private_apiserver(&[crds.path().to_path_buf()]);
        let namespace = api.namespace("target-kinds");
        let mut accepted = 0;
        for file in sample_files() {
            let text = std::fs::read_to_string(&file).unwrap();
            let rel = file.strip_prefix(support::repo_root()).unwrap().display().to_string();
            for document in parse_documents(&text, &rel).unwrap() {
                let outcome = validator.validate_document(&document);
                let gvk = Gvk::new(document.group(), document.version(), document.kind());
                assert_eq!(outcome.status, ObjectStatus::Valid, "{} {rel} {gvk}: {:#?}", target.name, outcome.findings);
                assert!(registry.get(&gvk).unwrap().is_some(), "{gvk}");
            }
            // The server's verdict on every document of the file (one call: each is named if refused).
            let out = api.kubectl_stdin(
                &["create", "--dry-run=server", "--validate=strict", "-n", &namespace, "-o", "name", "-f", "-"],
                &text,
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{}: the server refuses {rel}:\n{stderr}", target.name);
            accepted += String::from_utf8_lossy(&out.stdout).lines().count();
        }
        assert_eq!(accepted, sampled.len(), "{}: every sample created", target.name);
    }
}
