//! The classic path's work grows linearly, counted, never timed (`capz::lint::Work`): translations of classic
//! clusters and documents given to the rules for N and 2N clusters, and for many copies of one cluster.
//! And copies of one object: `duplicate-object`, each copy judged with its own directory.

use capz::lint::{ApplyUnit, RuleSelection, StreamedBundle, Work, check, check_counting};
use capz::manifest::{Document, parse_documents};
use capz::report::Finding;

/// A classic cluster `c42` in `default` with control plane patches, two pools and an AzureClusterIdentity
/// `cluster-identity` (every cluster of a rendered `aks` fleet carries its own copy of the identity).
const CLUSTER: &str = include_str!("../fixtures/capz-translation/cases/42-cp-patch-order.yaml");

/// Cluster `i` of a fleet: distinct names, spread over 4 namespaces.
fn cluster(i: usize) -> String {
    CLUSTER
        .replace("c42", &format!("c{i}"))
        .replace("namespace: \"default\"", &format!("namespace: \"team-{}\"", i % 4))
}

/// Work of the streamed rules (what `validate FILE...` runs) over `documents`: (translations, documents judged).
fn streamed_work(documents: &[Document]) -> (usize, usize, Vec<Finding>) {
    let work = Work::default();
    let mut bundle = StreamedBundle::default();
    bundle.add(documents);
    let findings = bundle.check_counting(&RuleSelection::default(), &work);
    (work.translations(), work.documents_judged(), findings)
}

/// Translations of the whole-bundle rules (`render`, `migrate`, fleets) over `documents`.
fn whole_bundle_translations(documents: &[Document]) -> usize {
    let work = Work::default();
    check_counting(documents, &RuleSelection::default(), &work);
    work.translations()
}

fn fleet(clusters: usize) -> Vec<Document> {
    let text: String = (0..clusters).map(|i| cluster(i) + "\n---\n").collect();
    parse_documents(&text, "fleet.yaml").unwrap()
}

#[test]
fn work_per_classic_cluster_is_constant_from_n_to_2n_clusters() {
    let (one_translations, one_judged, _) = streamed_work(&fleet(1));
    assert!(one_translations > 0, "a cluster with patches is translated");
    for n in [12, 24, 48] {
        let documents = fleet(n);
        let (translations, judged, _) = streamed_work(&documents);
        assert_eq!(translations, n * one_translations, "{n} clusters: translations");
        // Each cluster's group holds its own objects and the first copy of the identity; each identity copy is
        // also judged alone. (The fleet used to put every copy of the identity of a namespace into the group of
        // each cluster of that namespace: quadratic.)
        assert_eq!(judged, n * one_judged, "{n} clusters: documents judged");
        assert_eq!(whole_bundle_translations(&documents), n * one_translations, "{n} clusters, whole bundle");
    }
}

#[test]
fn copies_of_one_cluster_in_one_file_are_translated_once() {
    let one = whole_bundle_translations(&parse_documents(CLUSTER, "one.yaml").unwrap());
    for copies in [10, 40] {
        // The copies differ (their location): each is reported, and the rules take the first, as lookups do.
        let text: String =
            (0..copies).map(|i| CLUSTER.replace("\"westeurope\"", &format!("\"region{i}\"")) + "\n---\n").collect();
        let documents = parse_documents(&text, "copies.yaml").unwrap();
        assert_eq!(whole_bundle_translations(&documents), one, "{copies} copies, whole bundle");
        let (translations, _, findings) = streamed_work(&documents);
        assert_eq!(translations, one, "{copies} copies, streamed");
        let duplicates = findings.iter().filter(|f| f.rule == "duplicate-object").count();
        assert_eq!(duplicates, copies - 1, "every copy of the control plane but the last: {findings:#?}");
    }
}

/// Copy `i` of the cluster in its own directory `copy{i}/`, differing by location; `edit` changes it further.
fn copies_in_directories(copies: usize, edit: impl Fn(usize, String) -> String) -> Vec<Document> {
    let mut documents = Vec::new();
    for i in 0..copies {
        let text = edit(i, CLUSTER.replace("\"westeurope\"", &format!("\"region{i}\"")));
        documents.extend(parse_documents(&text, &format!("copy{i}/cluster.yaml")).unwrap());
    }
    documents
}

#[test]
fn copies_in_directories_are_each_judged_once_with_their_own_objects() {
    let (one_translations, one_judged, _) = streamed_work(&parse_documents(CLUSTER, "copy0/cluster.yaml").unwrap());
    for copies in [10, 40] {
        let documents = copies_in_directories(copies, |_, text| text);
        let (translations, judged, _) = streamed_work(&documents);
        assert_eq!(translations, copies * one_translations, "{copies} copies: translations");
        assert_eq!(judged, copies * one_judged, "{copies} copies: documents judged");
        assert_eq!(whole_bundle_translations(&documents), copies * one_translations, "{copies} copies, whole bundle");
    }
}

#[test]
fn copies_in_plain_files_are_no_duplicates_and_each_copy_gets_its_own_findings() {
    // copy1's pools are both User pools: only copy1 lacks a System pool. Judged as one bundle (first copy wins),
    // copy1's cluster would borrow copy0's pools and the finding would be lost.
    let documents = copies_in_directories(3, |i, text| match i {
        1 => text.replace("mode: \"System\"", "mode: \"User\""),
        _ => text,
    });
    let whole = check(&documents, &RuleSelection::default());
    let (_, _, mut streamed) = streamed_work(&documents);
    streamed.sort_by(|a, b| {
        (&a.source, a.line, &a.rule, &a.path, &a.message).cmp(&(&b.source, b.line, &b.rule, &b.path, &b.message))
    });
    assert_eq!(whole, streamed, "the whole-bundle and the streamed rules agree");
    let system_pool: Vec<&str> =
        whole.iter().filter(|f| f.rule == "aks-system-pool-required").map(|f| f.source.as_str()).collect();
    assert!(!system_pool.is_empty() && system_pool.iter().all(|s| *s == "copy1/cluster.yaml"), "{whole:#?}");
    // Three plain files are three apply units nothing in the bundle applies together (alternatives, as CAPZ's
    // addon files): no duplicate.
    assert!(!whole.iter().any(|f| f.rule == "duplicate-object"), "{whole:#?}");
}

/// The copies of `documents` built in one unit (what one Flux Kustomization applies), or each directory in a unit
/// of its own with the same target: findings by file and line.
fn in_units(documents: &[Document], one_unit: bool) -> Vec<Finding> {
    let mut bundle = StreamedBundle::default();
    let mut units: Vec<(String, u32)> = Vec::new();
    for document in documents {
        let directory = match one_unit {
            true => String::new(),
            false => document.origin.source.split('/').next().unwrap().to_string(),
        };
        let id = match units.iter().find(|(known, _)| *known == directory) {
            Some((_, id)) => *id,
            None => {
                let label =
                    format!("Flux Kustomization {} (./{directory})", if one_unit { "fleet" } else { &directory });
                let target = Some(("the cluster whose Flux reads flux/".into(), Some("default".into())));
                let id = bundle.add_unit(ApplyUnit { label: label.into(), target });
                units.push((directory, id));
                id
            }
        };
        bundle.add_in_unit(std::slice::from_ref(document), id);
    }
    let mut findings = bundle.check(&RuleSelection::default());
    findings.sort_by(|a, b| (&a.source, a.line, &a.rule, &a.message).cmp(&(&b.source, b.line, &b.rule, &b.message)));
    findings
}

#[test]
fn duplicate_object_names_the_copies_within_one_unit_and_the_owners_across_units() {
    let documents = copies_in_directories(3, |i, text| match i {
        1 => text.replace("mode: \"System\"", "mode: \"User\""),
        _ => text,
    });
    // One Flux Kustomization applies the three directories: `kubectl apply` keeps the last copy.
    let one = in_units(&documents, true);
    let duplicates: Vec<&Finding> = one.iter().filter(|f| f.rule == "duplicate-object").collect();
    // The control plane differs in all three copies, copy1's pools from the others: reported on every copy but
    // the last, which `kubectl apply` keeps.
    let on = |duplicates: &[&Finding], object: &str| {
        duplicates.iter().filter(|f| f.object == object).map(|f| (f.source.clone(), f.line)).collect::<Vec<_>>()
    };
    let at = |file: &str, line: usize| (file.to_string(), line);
    assert_eq!(
        on(&duplicates, "AzureManagedControlPlane/c42"),
        [at("copy0/cluster.yaml", 19), at("copy1/cluster.yaml", 19)]
    );
    assert_eq!(
        on(&duplicates, "AzureManagedMachinePool/c42-pool0"),
        [at("copy0/cluster.yaml", 63), at("copy1/cluster.yaml", 63)],
        "{duplicates:#?}"
    );
    assert!(on(&duplicates, "Cluster/c42").is_empty(), "identical copies are not reported");
    let first = duplicates.iter().find(|f| f.object == "AzureManagedControlPlane/c42").unwrap();
    assert_eq!(first.severity, capz::report::Severity::Warning);
    assert!(
        first.message.contains("is defined 3 times with different content in Flux Kustomization fleet (./)")
            && first.message.contains("also at copy1/cluster.yaml:19, copy2/cluster.yaml:19")
            && first.message.contains("keeps the last copy, at copy2/cluster.yaml:19"),
        "{}",
        first.message
    );
    // Three Flux Kustomizations of one Flux put the copies on one cluster and namespace: one finding per object
    // names the three owners, and each copy is judged with its own objects.
    let apart = in_units(&documents, false);
    let owners: Vec<&Finding> = apart.iter().filter(|f| f.rule == "duplicate-object").collect();
    let control_plane: Vec<&&Finding> = owners.iter().filter(|f| f.object == "AzureManagedControlPlane/c42").collect();
    assert_eq!(control_plane.len(), 1, "{owners:#?}");
    assert!(
        control_plane[0].message.starts_with(
            "AzureManagedControlPlane default/c42 has 3 owners that apply it with different content to the cluster \
             whose Flux reads flux/, namespace default: Flux Kustomization copy0 (./copy0) (at copy0/cluster.yaml:19) \
             and Flux Kustomization copy1 (./copy1) (at copy1/cluster.yaml:19) and Flux Kustomization copy2"
        ),
        "{}",
        control_plane[0].message
    );
    let cluster: Vec<&&Finding> = owners.iter().filter(|f| f.object == "Cluster/c42").collect();
    assert_eq!(cluster.len(), 1, "identical copies have owners too: {owners:#?}");
    let system_pool: Vec<&str> =
        apart.iter().filter(|f| f.rule == "aks-system-pool-required").map(|f| f.source.as_str()).collect();
    assert!(!system_pool.is_empty() && system_pool.iter().all(|s| *s == "copy1/cluster.yaml"), "{apart:#?}");
}
