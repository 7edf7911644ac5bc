//! Replays Azure Service Operator's generated API-version conversions, recorded by
//! `tools/aso-conversion-oracle/regen.sh` inside copies of ASO v2.18.0's and v2.20.0's modules (`ConvertTo` the
//! kind's hub, then `ConvertFrom` into the destination version), against `convert --aso`'s conversion of one object
//! (`capz::convert::aso::convert_object`), field for field.
//!
//! Each recording (tests/fixtures/aso-conversion/<release>.jsonl) is one source object (random ones drawn from the
//! source version's schema, dense ones with every field, ASO's own samples and the objects of CAPZ's aks-aso
//! templates) and what ASO made of it in every other API version of its kind. Ours must be the same object, and
//! the fields ours reports dropped must be exactly the input's fields ASO's output lacks.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use capz::convert::aso::copy::{DropReason, Dropped};
use capz::convert::aso::{convert_object, crossed_previews};
use capz::schema::{Gvk, Registry};

const FIXTURES: &str = "tests/fixtures/aso-conversion";

/// The leaf pointers of a value (objects and arrays descended; empty ones are leaves).
fn leaves(value: &Value, at: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                leaves(child, &format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, child) in items.iter().enumerate() {
                leaves(child, &format!("{at}/{index}"), out);
            }
        }
        _ => {
            out.insert(at.to_string());
        }
    }
}

/// Where two values differ (pointers), with both sides.
fn differences(ours: &Value, theirs: &Value, at: &str, out: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys()).collect::<BTreeSet<_>>() {
                let child = format!("{at}/{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences(x, y, &child, out),
                    (x, y) => out.push(format!("{child}: ours {x:?}, ASO's {y:?}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{at}/{index}"), out);
            }
        }
        _ if ours == theirs => {}
        _ => out.push(format!("{at}: ours {ours}, ASO's {theirs}")),
    }
}

struct Release {
    name: &'static str,
    cases: usize,
    pairs: BTreeMap<(String, String, String), usize>,
    /// The names of the cases from the repository's files (CAPZ's templates, our fixtures).
    capz: Vec<String>,
}

fn replay(release: &'static str) -> Release {
    let path = format!("{FIXTURES}/{release}.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run tools/aso-conversion-oracle/regen.sh)"));
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header line")).expect("the header is JSON");
    assert_eq!(header["aso"], release, "{path}: the header names another release");
    // The release's own CRDs (upstream-crds/, what the importer bundles for the targets that pin it; v2.20.0's are
    // those of the provisional target and of the network group of v1.27's derived v2.19).
    let mut registry = Registry::empty();
    let crds = format!("upstream-crds/aso-{release}");
    let added = registry.add_crd_dir(std::path::Path::new(&crds)).unwrap_or_else(|e| panic!("{crds}: {e}"));
    assert!(added > 0, "{crds}: no CRDs");
    let mut pairs = BTreeMap::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut capz = Vec::new();
    let errors = &mut 0usize;
    for line in lines {
        let case: Value = serde_json::from_str(line).expect("each case is JSON");
        cases += 1;
        let name = case["name"].as_str().expect("a name");
        if case["origin"].as_str().is_some_and(|origin| origin.starts_with("capz fixture ")) {
            capz.push(name.to_string());
        }
        let (group, kind) = (case["group"].as_str().unwrap(), case["kind"].as_str().unwrap());
        let from = case["from"].as_str().unwrap();
        let input = &case["input"];
        let outputs = case["outputs"].as_object().expect("outputs");
        assert!(!outputs.is_empty(), "{name}: no outputs");
        for (to, expected) in outputs {
            *pairs.entry((format!("{group}/{kind}"), from.to_string(), to.clone())).or_insert(0) += 1;
            let gvk = Gvk::new(group, to, kind);
            let schema = registry
                .get(&gvk)
                .unwrap_or_else(|e| panic!("{gvk:?}: {e}"))
                .unwrap_or_else(|| panic!("{crds} has no CRD of {gvk:?}"));
            let mut dropped: Vec<Dropped> = Vec::new();
            let ours = convert_object(input, &gvk, &schema.schema, &mut dropped);
            // The shapes of the previews the conversion passes through refuse too.
            let mut through = Vec::new();
            for preview in crossed_previews(from, to, &registry.versions_of(group, kind)) {
                if let Some(preview) = registry.get(&Gvk::new(group, &preview, kind)).unwrap() {
                    convert_object(input, &gvk, &preview.schema, &mut through);
                }
            }
            dropped.extend(through.into_iter().filter(|d| matches!(d.reason, DropReason::OtherType(_))));
            // A field the destination holds as another type: ASO's conversion fails on it, and `convert --aso`
            // refuses the object; everywhere else neither does.
            let refused: Vec<&Dropped> =
                dropped.iter().filter(|d| matches!(d.reason, DropReason::OtherType(_))).collect();
            if let Some(error) = expected.get("error") {
                if refused.is_empty() {
                    failures.push(format!("{name} -> {to}: ASO's conversion fails ({error}), ours does not refuse"));
                }
                *errors += 1;
                continue;
            }
            if !refused.is_empty() {
                failures.push(format!("{name} -> {to}: ours refuses at {:?}, ASO converts", refused[0].pointer));
                continue;
            }
            let mut diffs = Vec::new();
            differences(&ours, expected, "", &mut diffs);
            if !diffs.is_empty() {
                failures.push(format!("{name} -> {to}:\n    {}", diffs.join("\n    ")));
                continue;
            }
            // What ours reports dropped is what ASO's output lacks of the input.
            let (mut had, mut kept) = (BTreeSet::new(), BTreeSet::new());
            leaves(input, "", &mut had);
            leaves(expected, "", &mut kept);
            let lost: BTreeSet<String> = had
                .into_iter()
                .filter(|leaf| !leaf.starts_with("/apiVersion") && !kept.contains(leaf))
                .filter(|leaf| input.pointer(leaf).is_some_and(|v| !v.is_null()))
                .collect();
            let reported: BTreeSet<String> = dropped.iter().map(|d| d.pointer.clone()).collect();
            let unexplained: Vec<&String> =
                lost.iter().filter(|leaf| !reported.iter().any(|r| leaf.starts_with(r.as_str()))).collect();
            let spurious: Vec<&String> =
                reported.iter().filter(|r| !lost.iter().any(|leaf| leaf.starts_with(r.as_str()))).collect();
            if !unexplained.is_empty() || !spurious.is_empty() {
                failures.push(format!(
                    "{name} -> {to}: lost but not reported {unexplained:?}; reported but kept {spurious:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{release}: {} of the conversions differ from ASO's:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(*errors < cases, "{release}: every conversion failed");
    Release { name: release, cases, pairs, capz }
}

/// Every pair of API versions of every kind recorded, with enough objects each.
fn check_coverage(release: &Release) {
    assert!(release.cases > 0, "{}: no cases", release.name);
    for ((kind, from, to), count) in &release.pairs {
        assert!(*count >= 60, "{}: {kind} {from} -> {to}: only {count} objects (at least 60)", release.name);
    }
    for group in ["containerservice.azure.com", "network.azure.com", "resources.azure.com"] {
        assert!(
            release.pairs.keys().any(|(kind, _, _)| kind.starts_with(group)),
            "{}: nothing of {group} recorded",
            release.name
        );
    }
}

/// The recorded objects of CAPZ's aks-aso templates and of our fixtures include these (name endings).
fn check_capz_cases(release: &Release, expected: &[&str]) {
    assert!(
        release.capz.len() >= 15,
        "{}: only {} objects of CAPZ's templates and our fixtures",
        release.name,
        release.capz.len()
    );
    for ending in expected {
        assert!(
            release.capz.iter().any(|name| name.contains(ending)),
            "{}: no case {ending}: {:?}",
            release.name,
            release.capz
        );
    }
}

#[test]
fn aso_v2_18_conversions_are_asos() {
    let release = replay("v2.18.0");
    check_coverage(&release);
    // The preview cluster convert --aso moves (its safeguards and GPU pool), and CAPZ's own aks-aso template.
    check_capz_cases(
        &release,
        &[
            "ManagedCluster/v1api20240402preview/capz-tests/fixtures/convert-aso/preview-cluster.yaml",
            "ManagedClustersAgentPool/v1api20240402preview/capz-tests/fixtures/convert-aso/preview-cluster.yaml",
            "ManagedCluster/v1api20240901/capz-tests/fixtures/capz/cluster-template-aks-aso.yaml",
        ],
    );
}

#[test]
fn aso_v2_20_conversions_are_asos() {
    let release = replay("v2.20.0");
    check_coverage(&release);
    check_capz_cases(
        &release,
        &[
            "ManagedCluster/v1api20240901/capz-tests/fixtures/capz/cluster-template-aks-aso.yaml",
            "MaintenanceConfiguration/v1api20240901/capz-tests/fixtures/capz/cluster-template-aks-aso-maintenance.yaml",
            "ManagedCluster/v1api20250801/capz-tests/fixtures/validate-targets/labelled-admin-secret.yaml",
        ],
    );
}
