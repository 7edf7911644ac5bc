//! Tests of a fleet render that reuses the units an earlier run recorded: every reuse gives the tree a full
//! render gives, and anything the record cannot vouch for is rendered again.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::fleet::record::RenderRecord;
use crate::out_tree::{Ownership, Plan};

const FLEET: &str = "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\ngitops:\n  kind: flux\nclusters:\n- name: a\n  namespace: team-a\n  flavor: aks-aso\n- name: b\n  namespace: team-b\n  flavor: aks-aso\n  valuesFiles: [b-values.yaml]\n- name: c\n  namespace: team-a\n  flavor: aks-aso\n  values:\n    poolDefaults:\n      replicas: 2\n";

/// A fleet file in `dir` with its values file.
fn write_fleet(dir: &Path, text: &str, b_values: &str) -> Fleet {
    std::fs::write(dir.join("b-values.yaml"), b_values).unwrap();
    let path = dir.join("fleet.yaml");
    std::fs::write(&path, text).unwrap();
    Fleet::read(&path).unwrap()
}

/// Renders `fleet` (reusing from `record` if given), counting the units validated; returns the result, the
/// count and the record of this run.
fn render(
    fleet: &Fleet,
    record: Option<&RenderRecord>,
    context: &str,
    out: &Path,
) -> (RenderedFleet, usize, RenderRecord) {
    let validated = AtomicUsize::new(0);
    let validator = |_: &[Document]| {
        validated.fetch_add(1, Ordering::Relaxed);
        Vec::new()
    };
    let options = FleetOptions {
        capi: CapiVersion::V1beta1,
        validator: Some(&validator),
        progress: &|_| {},
        schemas: crate::target_schemas::TargetSchemas::builtin(crate::versions::default_target()),
        context,
        reuse: record,
    };
    let rendered = render_fleet(fleet, &Engine::new(None), &options).unwrap();
    let mut next = RenderRecord::new("test build", out);
    for (key, unit) in &rendered.units {
        next.insert(key.clone(), unit.clone());
    }
    (rendered, validated.into_inner(), next)
}

/// The tree a render without any record gives.
fn full(fleet: &Fleet, out: &Path) -> DesiredTree {
    render(fleet, None, "ctx", out).0.tree
}

#[test]
fn unchanged_units_are_taken_from_the_tree_and_changed_ones_rendered() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let fleet = write_fleet(work.path(), FLEET, "location: northeurope\n");
    let (first, validated, record) = render(&fleet, None, "ctx", &out);
    assert_eq!((first.reused, validated), (0, 3));
    Plan::compute(&out, &first.tree, Ownership::Marked).unwrap().apply().unwrap();

    // Nothing changed: nothing rendered or validated, the same tree.
    let (again, validated, _) = render(&fleet, Some(&record), "ctx", &out);
    assert_eq!((again.reused, validated), (3, 0));
    assert_eq!(again.tree, first.tree);

    // Another validator configuration: every unit again.
    let (other, validated, _) = render(&fleet, Some(&record), "other rules", &out);
    assert_eq!((other.reused, validated), (0, 3));
    assert_eq!(other.tree, first.tree);

    // A changed entry and a changed values file: those units only.
    let edited = FLEET.replace("replicas: 2", "replicas: 3");
    let fleet = write_fleet(work.path(), &edited, "location: swedencentral\n");
    let (changed, validated, _) = render(&fleet, Some(&record), "ctx", &out);
    assert_eq!((changed.reused, validated), (1, 2));
    assert_eq!(changed.tree, full(&fleet, &out));
    assert_ne!(changed.tree, first.tree);

    // A changed default: every cluster.
    let fleet = write_fleet(work.path(), &FLEET.replace("westeurope", "uksouth"), "location: northeurope\n");
    let (defaults, validated, _) = render(&fleet, Some(&record), "ctx", &out);
    assert_eq!((defaults.reused, validated), (0, 3));
    assert_eq!(defaults.tree, full(&fleet, &out));
}

#[test]
fn edited_or_missing_files_are_rendered_again() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let fleet = write_fleet(work.path(), FLEET, "location: northeurope\n");
    let (first, _, record) = render(&fleet, None, "ctx", &out);
    Plan::compute(&out, &first.tree, Ownership::Marked).unwrap().apply().unwrap();

    std::fs::write(out.join("clusters/team-a/a/cluster.yaml"), "edited by hand\n").unwrap();
    std::fs::remove_file(out.join("flux/clusters/team-b-b.yaml")).unwrap();
    let (again, validated, _) = render(&fleet, Some(&record), "ctx", &out);
    assert_eq!((again.reused, validated), (1, 2));
    assert_eq!(again.tree, first.tree, "the rendered content, not the edited file");
    let plan = Plan::compute(&out, &again.tree, Ownership::Marked).unwrap();
    let changes: Vec<String> = plan.changes().iter().map(|c| format!("{} {}", c.verb(), c.path().display())).collect();
    assert_eq!(changes, ["update clusters/team-a/a/cluster.yaml", "create flux/clusters/team-b-b.yaml"]);
}

#[test]
fn a_record_of_another_build_or_directory_or_a_corrupt_one_reuses_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let fleet = write_fleet(work.path(), FLEET, "location: northeurope\n");
    let (first, _, record) = render(&fleet, None, "ctx", &out);
    Plan::compute(&out, &first.tree, Ownership::Marked).unwrap().apply().unwrap();
    let file = work.path().join("cache/fleet/out.record");
    record.save(&file).unwrap();
    assert_eq!(render(&fleet, Some(&RenderRecord::load(&file, "test build", &out)), "ctx", &out).0.reused, 3);

    let text = std::fs::read_to_string(&file).unwrap();
    for loaded in [
        RenderRecord::load(&file, "another build", &out),
        RenderRecord::load(&file, "test build", &work.path().join("elsewhere")),
        {
            std::fs::write(&file, text.replacen("unit\t", "unit\tx", 1)).unwrap();
            RenderRecord::load(&file, "test build", &out)
        },
    ] {
        let (again, validated, _) = render(&fleet, Some(&loaded), "ctx", &out);
        assert_eq!((again.reused, validated), (0, 3));
        assert_eq!(again.tree, first.tree);
    }
}
