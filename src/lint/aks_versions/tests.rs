//! The `aks-version-*` rules at fixed days, on classic and ASO clusters.

use super::*;
use crate::aks_versions::Date;
use crate::lint::{RuleSelection, check};
use crate::manifest::parse_documents;
use crate::report::{Finding, Severity};

const RULES: &[&str] = &[UNSUPPORTED, UNRELEASED, SKEW, AUTO_UPGRADE_PINNED, TOPOLOGY_PINNED, TEMPLATE_PINNED];

fn on(yaml: &str, day: Option<&str>) -> Vec<Finding> {
    let documents = parse_documents(yaml, "test.yaml").expect("test YAML parses");
    let mut selection = RuleSelection::all();
    if let Some(day) = day {
        selection = selection.on_date(Date::parse(day).unwrap());
    }
    check(&documents, &selection).into_iter().filter(|f| RULES.contains(&f.rule.as_str())).collect()
}

fn at(yaml: &str, day: &str) -> Vec<Finding> {
    on(yaml, Some(day))
}

/// `(rule, severity, pointer)` of each finding.
fn summary(found: &[Finding]) -> Vec<(&str, Severity, &str)> {
    found.iter().map(|f| (f.rule.as_str(), f.severity, f.path.as_str())).collect()
}

/// A classic cluster: Cluster, AzureManagedControlPlane at `cp`, a MachinePool at `pool`.
fn classic(cp: &str, pool: &str) -> String {
    format!(
        "apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {{name: c1, namespace: ns}}
spec:
  controlPlaneRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureManagedControlPlane, name: c1}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {{name: c1, namespace: ns}}
spec:
  version: {cp}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata: {{name: pool0, namespace: ns}}
spec:
  clusterName: c1
  template:
    spec:
      version: {pool}
      infrastructureRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureManagedMachinePool, name: pool0}}
"
    )
}

/// An ASO cluster: control plane at `cp` embedding a ManagedCluster with `cluster` under spec (indented by 6), an
/// AzureASOManagedMachinePool embedding an agent pool with `agent_pool` under spec, its MachinePool at `pool`.
fn aso(cp: &str, cluster: &str, pool: &str, agent_pool: &str) -> String {
    format!(
        "apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {{name: c1, namespace: ns}}
spec:
  controlPlaneRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedControlPlane, name: c1}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {{name: c1, namespace: ns}}
spec:
  version: {cp}
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {{name: c1}}
    spec:
      location: eastus
{cluster}---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {{name: pool0, namespace: ns}}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {{name: pool0}}
    spec:
      mode: System
{agent_pool}---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata: {{name: pool0, namespace: ns}}
spec:
  clusterName: c1
  template:
    spec:
      version: {pool}
      infrastructureRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: AzureASOManagedMachinePool, name: pool0}}
"
    )
}

const CP: &str = "/spec/version";
const POOL: &str = "/spec/template/spec/version";

#[test]
fn supported_versions_pass() {
    assert!(at(&classic("v1.33.2", "v1.33.2"), "2026-01-15").is_empty());
    assert!(at(&aso("v1.34.1", "", "v1.34.1", ""), "2026-01-15").is_empty());
}

#[test]
fn the_last_day_of_the_end_of_support_month_warns_and_the_next_day_is_platform_support() {
    // 1.32: "End of life: Mar 2026" (the last day of March), platform support until 1.36 GA (Jun 2026).
    let yaml = classic("v1.32.5", "v1.32.5");
    let last_day = at(&yaml, "2026-03-31");
    assert_eq!(summary(&last_day), [(UNSUPPORTED, Severity::Warning, CP), (UNSUPPORTED, Severity::Warning, POOL)]);
    assert!(last_day[0].message.contains("community support ends 2026-03-31, in 0 days"), "{}", last_day[0].message);
    let next_day = at(&yaml, "2026-04-01");
    assert_eq!(summary(&next_day), [(UNSUPPORTED, Severity::Warning, CP), (UNSUPPORTED, Severity::Warning, POOL)]);
    assert!(next_day[0].message.contains("platform support only"), "{}", next_day[0].message);
    assert!(next_day[0].message.contains("through 2026-06-30"), "{}", next_day[0].message);
    // Platform support counts through June: July is past it, an error naming the date.
    assert!(summary(&at(&yaml, "2026-06-30")).iter().all(|(_, severity, _)| *severity == Severity::Warning));
    let past = at(&yaml, "2026-07-01");
    assert_eq!(summary(&past), [(UNSUPPORTED, Severity::Error, CP), (UNSUPPORTED, Severity::Error, POOL)]);
    assert!(past[0].message.contains("left platform support after 2026-06-30"), "{}", past[0].message);
}

#[test]
fn the_sixty_day_window_before_the_end_of_support() {
    // 1.33 ends 2026-07-31: warned from 2026-06-01 (60 days before), not on 2026-05-31.
    let yaml = classic("v1.33.2", "v1.33.2");
    assert!(at(&yaml, "2026-05-31").is_empty());
    let found = at(&yaml, "2026-06-01");
    assert_eq!(summary(&found), [(UNSUPPORTED, Severity::Warning, CP), (UNSUPPORTED, Severity::Warning, POOL)]);
    assert!(found[0].message.contains("ends 2026-07-31, in 60 days"), "{}", found[0].message);
}

#[test]
fn platform_support_n_minus_3_without_a_known_end() {
    // 1.34 ends 2026-11-30; its platform support lasts until 1.38, which the calendar does not list yet.
    let found = at(&classic("v1.34.3", "v1.34.3"), "2026-12-02");
    assert_eq!(summary(&found)[0], (UNSUPPORTED, Severity::Warning, CP));
    assert!(found[0].message.contains("until AKS 1.38 is GA"), "{}", found[0].message);
}

#[test]
fn lts_plan_extends_support_to_the_lts_end() {
    // 1.30 LTS ends Jul 2026; without the plan 1.30 left platform support in November 2025.
    let lts = aso("v1.30.9", "      supportPlan: AKSLongTermSupport\n      sku: {tier: Premium}\n", "v1.30.9", "");
    assert!(at(&lts, "2026-05-01").is_empty());
    let window = at(&lts, "2026-06-15");
    assert_eq!(summary(&window), [(UNSUPPORTED, Severity::Warning, CP), (UNSUPPORTED, Severity::Warning, POOL)]);
    assert!(window[0].message.contains("long-term support ends 2026-07-31"), "{}", window[0].message);
    let ended = at(&lts, "2026-08-01");
    assert_eq!(summary(&ended)[0], (UNSUPPORTED, Severity::Error, CP));
    assert!(ended[0].message.contains("left long-term support after 2026-07-31"), "{}", ended[0].message);
    let plain = at(&aso("v1.30.9", "", "v1.30.9", ""), "2026-05-01");
    assert_eq!(summary(&plain)[0], (UNSUPPORTED, Severity::Error, CP));
    assert!(plain[0].message.contains("after 2025-11-30"), "{}", plain[0].message);
}

#[test]
fn a_minor_older_than_the_calendar_is_past_support() {
    let found = at(&classic("v1.27.9", "v1.27.9"), "2026-01-15");
    assert_eq!(summary(&found), [(UNSUPPORTED, Severity::Error, CP), (UNSUPPORTED, Severity::Error, POOL)]);
    assert!(found[0].message.contains("before 1.29"), "{}", found[0].message);
}

#[test]
fn unreleased_versions_are_errors() {
    // 1.37's GA is October 2026: unreleased in September, released from 2026-10-01.
    let yaml = classic("v1.37.0", "v1.37.0");
    let september = at(&yaml, "2026-09-30");
    assert_eq!(summary(&september), [(UNRELEASED, Severity::Error, CP), (UNRELEASED, Severity::Error, POOL)]);
    assert!(september[0].message.contains("plans it for 2026-10"), "{}", september[0].message);
    assert!(at(&yaml, "2026-10-01").is_empty());
    // A minor the calendar does not list: on any day, and without one.
    let unknown = classic("v1.45.0", "v1.45.0");
    assert_eq!(
        summary(&at(&unknown, "2026-10-01")),
        [(UNRELEASED, Severity::Error, CP), (UNRELEASED, Severity::Error, POOL)]
    );
    assert_eq!(summary(&on(&unknown, None)), [(UNRELEASED, Severity::Error, CP), (UNRELEASED, Severity::Error, POOL)]);
}

#[test]
fn without_a_day_support_is_not_judged() {
    assert!(on(&classic("v1.27.9", "v1.27.9"), None).is_empty());
    assert!(on(&classic("v1.37.0", "v1.37.0"), None).is_empty());
}

#[test]
fn skew_behind_by_more_than_three_or_ahead() {
    let day = "2025-12-01";
    assert!(at(&classic("v1.33.2", "v1.30.4"), day).iter().all(|f| f.rule != SKEW), "three behind is allowed");
    let behind: Vec<_> = at(&classic("v1.34.1", "v1.30.4"), day).into_iter().filter(|f| f.rule == SKEW).collect();
    assert_eq!(summary(&behind), [(SKEW, Severity::Error, POOL)]);
    assert!(behind[0].message.contains("4 minors behind") && behind[0].message.contains("at least 1.31"));
    let ahead = at(&classic("v1.33.2", "v1.34.1"), day);
    assert_eq!(summary(&ahead), [(SKEW, Severity::Error, POOL)]);
    assert!(ahead[0].message.contains("ahead of its control plane \"c1\""), "{}", ahead[0].message);
    // Patch versions do not count.
    assert!(at(&classic("v1.33.2", "v1.33.5"), day).is_empty());
}

#[test]
fn skew_of_an_aso_agent_pool_and_a_control_plane_from_the_managed_cluster() {
    let day = "2025-12-01";
    // The agent pool's own orchestratorVersion, when the MachinePool says another minor.
    let found = at(&aso("v1.33.2", "", "v1.33.2", "      orchestratorVersion: 1.34.1\n"), day);
    assert_eq!(summary(&found), [(SKEW, Severity::Error, "/spec/resources/0/spec/orchestratorVersion")]);
    // The same minor as the MachinePool is one pin.
    assert!(at(&aso("v1.33.2", "", "v1.33.2", "      orchestratorVersion: 1.33.2\n"), day).is_empty());
    // A MachinePool that is not an AKS pool is not judged.
    let docker = classic("v1.33.2", "v1.20.0").replace("AzureManagedMachinePool", "DockerMachinePool");
    assert!(at(&docker, day).is_empty());
}

#[test]
fn an_embedded_kubernetes_version_of_another_minor_is_judged_too() {
    let found = at(&aso("v1.33.2", "      kubernetesVersion: 1.27.3\n", "v1.33.2", ""), "2026-01-15");
    assert_eq!(summary(&found), [(UNSUPPORTED, Severity::Error, "/spec/resources/0/spec/kubernetesVersion")]);
    assert!(at(&aso("v1.33.2", "      kubernetesVersion: 1.33.2\n", "v1.33.2", ""), "2026-01-15").is_empty());
}

#[test]
fn auto_upgrade_channels_against_a_pinned_version() {
    let day = "2026-01-15";
    let channel = |value: &str| {
        classic("v1.33.2", "v1.33.2").replace(
            "  version: v1.33.2\n---",
            &format!("  version: v1.33.2\n  autoUpgradeProfile:\n    upgradeChannel: {value}\n---"),
        )
    };
    for moving in ["stable", "rapid", "patch"] {
        let found = at(&channel(moving), day);
        assert_eq!(
            summary(&found),
            [(AUTO_UPGRADE_PINNED, Severity::Warning, "/spec/autoUpgradeProfile/upgradeChannel")]
        );
        assert!(found[0].message.contains("spec.version \"v1.33.2\""), "{}", found[0].message);
    }
    for still in ["none", "node-image"] {
        assert!(at(&channel(still), day).is_empty(), "{still}");
    }
    let aso_channel = aso("v1.33.2", "      autoUpgradeProfile: {upgradeChannel: stable}\n", "v1.33.2", "");
    let found = at(&aso_channel, day);
    assert_eq!(
        summary(&found),
        [(AUTO_UPGRADE_PINNED, Severity::Warning, "/spec/resources/0/spec/autoUpgradeProfile/upgradeChannel")]
    );
    assert!(found[0].message.contains("AzureASOManagedControlPlane spec.version"), "{}", found[0].message);
}

#[test]
fn a_standalone_managed_cluster_is_judged_on_its_own_fields() {
    let yaml = "apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata: {name: c1, namespace: ns}
spec:
  kubernetesVersion: 1.37.1
  autoUpgradeProfile: {upgradeChannel: rapid}
";
    let found = at(yaml, "2026-09-01");
    assert_eq!(
        summary(&found),
        [
            (UNRELEASED, Severity::Error, "/spec/kubernetesVersion"),
            (AUTO_UPGRADE_PINNED, Severity::Warning, "/spec/autoUpgradeProfile/upgradeChannel"),
        ]
    );
}

#[test]
fn disabled_rules_stay_quiet() {
    let documents = parse_documents(&classic("v1.27.9", "v1.45.0"), "test.yaml").unwrap();
    let selection = RuleSelection::new(&[], &RULES.iter().map(|id| id.to_string()).collect::<Vec<_>>())
        .unwrap()
        .on_date(Date::parse("2026-01-15").unwrap());
    assert!(check(&documents, &selection).iter().all(|f| !RULES.contains(&f.rule.as_str())));
}

#[test]
fn clusterclass_templates_are_not_judged() {
    // Their version is a placeholder: CAPI's topology controller writes the topology's over it.
    let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: t, namespace: ns}
spec:
  template:
    spec:
      version: v0.0.0
      autoUpgradeProfile: {upgradeChannel: stable}
";
    assert!(at(yaml, "2026-01-15").is_empty());
}

/// The rules with `az aks get-versions` of one region (`--aks-versions`).
fn in_region(yaml: &str, day: &str, region: &'static crate::aks_versions::RegionVersions) -> Vec<Finding> {
    let documents = parse_documents(yaml, "test.yaml").expect("test YAML parses");
    let selection = RuleSelection::all().on_date(Date::parse(day).unwrap()).with_region(Some(region));
    check(&documents, &selection).into_iter().filter(|f| RULES.contains(&f.rule.as_str())).collect()
}

fn region(location: &str) -> &'static crate::aks_versions::RegionVersions {
    let text = format!(
        r#"{{"id": "/subscriptions/s/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions/default",
            "values": [
              {{"version": "1.30", "capabilities": {{"supportPlan": ["AKSLongTermSupport"]}},
               "patchVersions": {{"1.30.9": {{}}}}}},
              {{"version": "1.34", "patchVersions": {{"1.34.1": {{}}}}}},
              {{"version": "1.35", "isPreview": true, "patchVersions": {{"1.35.0": {{}}}}}}]}}"#
    );
    Box::leak(Box::new(crate::aks_versions::RegionVersions::from_json(&text).unwrap()))
}

#[test]
fn the_regions_offer_judges_clusters_in_it() {
    let eastus = region("eastus");
    // The ASO cluster is in eastus: offered, nothing to say; a patch not offered is an error on both pins.
    assert!(in_region(&aso("v1.34.1", "", "v1.34.1", ""), "2026-01-15", eastus).is_empty());
    let found = in_region(&aso("v1.34.2", "", "v1.34.2", ""), "2026-01-15", eastus);
    assert_eq!(summary(&found), [(UNRELEASED, Severity::Error, CP), (UNRELEASED, Severity::Error, POOL)]);
    assert!(found[0].message.contains("AKS in eastus does not offer this patch of 1.34 (its patches: 1.34.1;"));
    // A minor the region does not list.
    let found = in_region(&aso("v1.33.2", "", "v1.33.2", ""), "2026-01-15", eastus);
    assert!(found.iter().any(|f| f.message.contains("AKS in eastus does not offer 1.33 (it offers 1.30, 1.34, 1.35")));
    // Data of another region says nothing of an eastus cluster.
    assert!(in_region(&aso("v1.34.2", "", "v1.34.2", ""), "2026-01-15", region("westeurope")).is_empty());
    // A minor the region offers as a preview only (GA by the calendar on the day) is a warning.
    let preview = in_region(&aso("v1.35.0", "", "v1.35.0", ""), "2026-06-15", eastus);
    assert!(
        preview
            .iter()
            .any(|f| f.rule == UNRELEASED && f.severity == Severity::Warning && f.message.contains("as a preview")),
        "{preview:?}"
    );
}

#[test]
fn a_minor_the_region_offers_only_with_lts_needs_the_plan() {
    let eastus = region("eastus");
    // 1.30 on 2025-08-01: in community support by the calendar, offered only with LTS in this region.
    let plain = in_region(&aso("v1.30.9", "", "v1.30.9", ""), "2025-08-01", eastus);
    assert!(
        plain.iter().any(|f| f.rule == UNSUPPORTED
            && f.severity == Severity::Error
            && f.message.contains("offers 1.30 only with the long-term support plan")),
        "{plain:?}"
    );
    let lts = aso("v1.30.9", "      supportPlan: AKSLongTermSupport\n      sku: {tier: Premium}\n", "v1.30.9", "");
    let with_plan = in_region(&lts, "2025-08-01", eastus);
    assert!(!with_plan.iter().any(|f| f.message.contains("only with the long-term support plan")), "{with_plan:?}");
}

/// A ClusterClass of AzureASOManaged* templates (the control plane's ManagedCluster with `cluster`, the pool's agent
/// pool with `agent_pool`, each indented under spec) and a topology Cluster of it at `version`.
fn topology(cluster: &str, agent_pool: &str, version: &str) -> String {
    format!(
        "apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {{name: aks, namespace: ns}}
spec:
  controlPlane:
    ref: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedControlPlaneTemplate, name: cp}}
  workers:
    machinePools:
    - class: default
      template:
        infrastructure:
          ref: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePoolTemplate, name: pool}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlaneTemplate
metadata: {{name: cp, namespace: ns}}
spec:
  template:
    spec:
      resources:
      - apiVersion: containerservice.azure.com/v1api20240901
        kind: ManagedCluster
        metadata: {{name: \"{{{{ .builtin.cluster.name }}}}\"}}
        spec:
          location: eastus
{cluster}---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePoolTemplate
metadata: {{name: pool, namespace: ns}}
spec:
  template:
    spec:
      resources:
      - apiVersion: containerservice.azure.com/v1api20240901
        kind: ManagedClustersAgentPool
        metadata: {{name: pool}}
        spec:
          mode: System
{agent_pool}---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {{name: c1, namespace: ns}}
spec:
  topology:
    class: aks
    version: {version}
    workers:
      machinePools:
      - {{class: default, name: mp-0}}
"
    )
}

fn topology_pins(found: &[Finding]) -> Vec<(Severity, &str, &str)> {
    found
        .iter()
        .filter(|f| f.rule == TOPOLOGY_PINNED || f.rule == TEMPLATE_PINNED)
        .map(|f| (f.severity, f.object.as_str(), f.path.as_str()))
        .collect()
}

#[test]
fn versions_pinned_in_a_cluster_class_block_the_topologys() {
    let clean = at(&topology("", "", "v1.33.2"), "2026-01-15");
    assert!(topology_pins(&clean).is_empty(), "{clean:?}");
    // Pinned to another version than the topology's: CAPZ's Incompatible error now.
    let pinned =
        topology("          kubernetesVersion: 1.32.4\n", "          orchestratorVersion: 1.32.4\n", "v1.33.2");
    let found = at(&pinned, "2026-01-15");
    assert_eq!(
        topology_pins(&found),
        [
            (
                Severity::Error,
                "AzureASOManagedControlPlaneTemplate/cp",
                "/spec/template/spec/resources/0/spec/kubernetesVersion"
            ),
            (
                Severity::Error,
                "AzureASOManagedMachinePoolTemplate/pool",
                "/spec/template/spec/resources/0/spec/orchestratorVersion"
            ),
        ]
    );
    assert!(found.iter().filter(|f| f.severity == Severity::Error).all(|f| f.rule == TEMPLATE_PINNED), "{found:?}");
    let message = &found.iter().find(|f| f.rule == TEMPLATE_PINNED).unwrap().message;
    assert!(message.contains("topology Cluster(s) \"c1\" (\"v1.33.2\") run another version"), "{message}");
    // Pinned to the topology's own version: a warning, the next upgrade fails.
    let same = topology("          kubernetesVersion: 1.33.2\n", "", "v1.33.2");
    let found = at(&same, "2026-01-15");
    assert_eq!(
        topology_pins(&found),
        [(
            Severity::Warning,
            "AzureASOManagedControlPlaneTemplate/cp",
            "/spec/template/spec/resources/0/spec/kubernetesVersion"
        )]
    );
}

#[test]
fn a_machine_pool_beside_a_topology_cluster_keeps_its_own_version() {
    let machine_pool = |version: &str, labels: &str| {
        format!(
            "---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {{name: extra, namespace: ns{labels}}}
spec:
  clusterName: c1
  template:
    spec:
      clusterName: c1
      version: {version}
      infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: extra}}
"
        )
    };
    let base = topology("", "", "v1.34.1");
    let judged = |version: &str, labels: &str| at(&format!("{base}{}", machine_pool(version, labels)), "2026-01-15");
    assert!(topology_pins(&judged("v1.34.1", "")).is_empty());
    let behind = judged("v1.33.2", "");
    assert_eq!(topology_pins(&behind), [(Severity::Warning, "MachinePool/extra", POOL)]);
    assert_eq!(behind.iter().find(|f| f.path == POOL).map(|f| f.rule.as_str()), Some(TOPOLOGY_PINNED));
    assert_eq!(topology_pins(&judged("v1.30.9", "")), [(Severity::Error, "MachinePool/extra", POOL)]);
    let ahead = judged("v1.35.0", "");
    assert_eq!(topology_pins(&ahead), [(Severity::Error, "MachinePool/extra", POOL)]);
    assert!(ahead.iter().any(|f| f.message.contains("AKS rejects a node pool newer than its control plane")));
    // One the topology controller made (labelled) is the topology's.
    let owned = ", labels: {topology.cluster.x-k8s.io/owned: \"\"}";
    assert!(topology_pins(&judged("v1.33.2", owned)).is_empty());
}
