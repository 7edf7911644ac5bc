//! CAPZ's own AKS flavors (expanded in tests/fixtures/lint) must not produce error findings; the warnings
//! and infos they do produce are snapshotted so every one of them is reviewed.

use capz::lint::{RuleSelection, check};
use capz::manifest::read_paths;
use capz::report::{Finding, Severity};

const FIXTURES: &str = "tests/fixtures/lint";

fn lint(files: &[&str]) -> Vec<Finding> {
    let paths: Vec<String> = files.iter().map(|file| format!("{FIXTURES}/{file}")).collect();
    let documents = read_paths(&paths).expect("fixtures parse");
    assert!(!documents.is_empty());
    check(&documents, &RuleSelection::new(&[], &[]).expect("default selection"))
}

fn assert_no_errors(files: &[&str]) -> Vec<Finding> {
    let findings = lint(files);
    let errors: Vec<_> = findings.iter().filter(|f| f.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "{files:?} has error findings: {errors:#?}");
    findings
}

/// `rule severity object path: message`, one finding per line (source and line are in the snapshot name).
fn summary(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{} {:?} {} {} (line {}): {}", f.rule, f.severity, f.object, f.path, f.line, f.message))
        .collect()
}

macro_rules! flavor_test {
    ($name:ident, $($file:literal),+) => {
        #[test]
        fn $name() {
            let findings = assert_no_errors(&[$($file),+]);
            insta::assert_yaml_snapshot!(summary(&findings));
        }
    };
}

flavor_test!(aks, "aks.yaml");
flavor_test!(aks_aso, "aks-aso.yaml");
flavor_test!(aks_aso_maintenance, "aks-aso-maintenance.yaml");
flavor_test!(aks_clusterclass, "aks-clusterclass.yaml");
flavor_test!(aks_aso_clusterclass, "aks-aso-clusterclass.yaml");
flavor_test!(aks_topology, "aks-topology.yaml");
flavor_test!(aks_aso_topology, "aks-aso-topology.yaml");
flavor_test!(aks_clusterclass_with_topology, "aks-clusterclass.yaml", "aks-topology.yaml");
flavor_test!(aks_aso_clusterclass_with_topology, "aks-aso-clusterclass.yaml", "aks-aso-topology.yaml");

#[test]
fn every_fixture_is_covered() {
    let mut files: Vec<_> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "aks-aso-clusterclass.yaml",
            "aks-aso-maintenance.yaml",
            "aks-aso-topology.yaml",
            "aks-aso.yaml",
            "aks-clusterclass.yaml",
            "aks-topology.yaml",
            "aks.yaml"
        ]
    );
}

/// The same flavor with its System pool turned into a User pool must fail: the no-error tests above
/// can only mean something if the rules look at these objects at all.
#[test]
fn breaking_a_flavor_is_noticed() {
    let text =
        std::fs::read_to_string(format!("{FIXTURES}/aks-aso.yaml")).unwrap().replace("mode: System", "mode: User");
    let documents = capz::manifest::parse_documents(&text, "aks-aso-broken.yaml").unwrap();
    let findings = check(&documents, &RuleSelection::new(&[], &[]).unwrap());
    let errors: Vec<_> = findings.iter().filter(|f| f.severity == Severity::Error).map(|f| f.rule.as_str()).collect();
    assert_eq!(errors, ["aks-system-pool-required"]);
}

#[test]
fn breaking_a_cluster_class_is_noticed_through_the_topology() {
    let class = std::fs::read_to_string(format!("{FIXTURES}/aks-clusterclass.yaml"))
        .unwrap()
        .replace("mode: System", "mode: User");
    let topology = std::fs::read_to_string(format!("{FIXTURES}/aks-topology.yaml")).unwrap();
    let mut documents = capz::manifest::parse_documents(&class, "class.yaml").unwrap();
    documents.extend(capz::manifest::parse_documents(&topology, "topology.yaml").unwrap());
    let findings = check(&documents, &RuleSelection::new(&[], &[]).unwrap());
    let errors: Vec<_> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.rule.as_str(), f.object.as_str()))
        .collect();
    assert_eq!(errors, [("aks-system-pool-required", "Cluster/my-cluster")]);
}
