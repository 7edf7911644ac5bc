//! `upgrade plan`: for each cluster its control plane and pool versions, where AKS support stands for each on a
//! day, and the steps to a target minor version. AKS upgrades a control plane one minor at a time (it refuses a
//! skipped minor outside the LTS plan; with it, only to the next minor too: supported-kubernetes-versions,
//! "Long-term support"), and a pool may not be newer than its control plane: each step raises the control plane
//! one minor, then the pools behind it to the same minor, the order Cluster API's topology controller follows for a
//! topology Cluster (control plane first, then its MachinePools). A step names the lines to edit.

use serde::Serialize;

use crate::aks_versions::{Date, Lifecycle, Minor, Patch, RegionVersions, Support, list_versions};
use crate::lint::aks_versions::inventory::{ClusterVersions, Pinned};

/// What to upgrade to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// This minor version.
    Minor(Minor),
    /// The newest minor in AKS community support on the day.
    LatestSupported,
}

/// Why no plan could be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error("`{0}` is not a Kubernetes minor version (such as v1.35) or `latest-supported`")]
    BadTarget(String),
    #[error("AKS has not released Kubernetes {minor} on {on} (the release calendar's newest is {newest})")]
    Unreleased { minor: Minor, on: Date, newest: Minor },
    #[error("AKS no longer supports Kubernetes {minor} on {on}: choose a supported minor")]
    Ended { minor: Minor, on: Date },
    #[error("AKS in {region} does not offer Kubernetes {minor} (it offers {offered}; {origin})")]
    NotInRegion { minor: Minor, region: String, offered: String, origin: String },
}

impl Target {
    /// `v1.35`, `1.35` (a patch is ignored: AKS offers its own) or `latest-supported`.
    pub fn parse(text: &str) -> Result<Target, PlanError> {
        if text == "latest-supported" {
            return Ok(Target::LatestSupported);
        }
        Minor::parse(text).map(Target::Minor).ok_or_else(|| PlanError::BadTarget(text.to_string()))
    }

    /// The minor version meant, on day `on`: a minor AKS has released and still supports (in community, platform
    /// or long-term support), and, with `az aks get-versions` of the region (`region`), offers there
    /// (`latest-supported`: the newest it offers other than as a preview).
    pub fn resolve(self, lifecycle: &Lifecycle, on: Date, region: Option<&RegionVersions>) -> Result<Minor, PlanError> {
        let (_, newest) = lifecycle.range();
        let in_region =
            |minor: Minor| region.is_none_or(|region| region.get(minor).is_some_and(|entry| !entry.preview));
        let minor = match self {
            Target::Minor(minor) => minor,
            Target::LatestSupported => lifecycle
                .versions
                .iter()
                .rev()
                .map(|entry| entry.minor)
                .find(|&minor| {
                    matches!(lifecycle.status(minor, on, false), Support::Supported { .. }) && in_region(minor)
                })
                .ok_or(PlanError::Unreleased { minor: newest, on, newest })?,
        };
        match lifecycle.status(minor, on, true) {
            Support::Unreleased { .. } => return Err(PlanError::Unreleased { minor, on, newest }),
            Support::Ended { .. } => return Err(PlanError::Ended { minor, on }),
            _ => {}
        }
        match region {
            Some(region) if region.get(minor).is_none() => Err(PlanError::NotInRegion {
                minor,
                region: region.describe(),
                offered: list_versions(&region.minors.iter().map(|entry| entry.minor).collect::<Vec<_>>()),
                origin: region.origin(),
            }),
            _ => Ok(minor),
        }
    }
}

/// The plan of every cluster.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The day support is judged on.
    pub on: String,
    /// The target minor version (`1.35`).
    pub target: String,
    pub clusters: Vec<ClusterPlan>,
}

impl Plan {
    /// How many steps all clusters need.
    pub fn steps(&self) -> usize {
        self.clusters.iter().map(|cluster| cluster.steps.len()).sum()
    }
}

/// One cluster's versions and steps.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterPlan {
    /// `namespace/name`.
    pub cluster: String,
    /// A topology Cluster: one version, its pools follow.
    pub topology: bool,
    #[serde(rename = "controlPlane")]
    pub control_plane: VersionStatus,
    pub pools: Vec<VersionStatus>,
    pub steps: Vec<Step>,
    /// Something the plan does not do, said (a version newer than the target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One pinned version and its support.
#[derive(Debug, Clone, Serialize)]
pub struct VersionStatus {
    /// `Kind/name`.
    pub object: String,
    pub version: String,
    /// `file:line` of the version.
    pub at: String,
    /// `supported`, `platform-support`, `ended`, `unreleased`.
    pub support: &'static str,
    /// The support, in words with its dates.
    pub detail: String,
}

/// One step of an upgrade.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// `control plane` or `pools`.
    pub what: &'static str,
    /// The minor version the step goes to.
    pub to: String,
    /// The objects the step upgrades, each `Kind/name` from its version.
    pub objects: Vec<String>,
    /// The line to edit for each (`file:line`: where its value is set, a Helm values file or Argo CD `valuesObject`
    /// line for a chart's render, else where it is written), in the order of `objects`.
    pub edit: Vec<String>,
    /// The newest patch of `to` AKS offers in the cluster's region (with `--aks-versions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
}

/// What the plan knows: the release calendar, the day, and what AKS offers in the clusters' region (with
/// `--aks-versions`).
#[derive(Debug, Clone, Copy)]
pub struct Knowledge<'a> {
    pub lifecycle: &'a Lifecycle,
    pub on: Date,
    pub region: Option<&'a RegionVersions>,
}

/// The plan of `clusters` to `target`.
pub fn plan(clusters: &[ClusterVersions], knowledge: Knowledge<'_>, target: Minor) -> Plan {
    let clusters = clusters.iter().map(|cluster| plan_cluster(cluster, knowledge, target)).collect();
    Plan { on: knowledge.on.to_string(), target: target.to_string(), clusters }
}

fn plan_cluster(cluster: &ClusterVersions, knowledge: Knowledge<'_>, target: Minor) -> ClusterPlan {
    let Knowledge { lifecycle, on, .. } = knowledge;
    let region = knowledge.region.filter(|region| region.covers(cluster.location.as_deref()));
    let status = |pinned: &Pinned| {
        let mut status = version_status(pinned, lifecycle, on, cluster.lts);
        if let Some(region) = region
            && let Some(offered) = region.offers(&pinned.version, cluster.lts)
            && offered != crate::aks_versions::Offered::Yes
        {
            let what = match offered {
                crate::aks_versions::Offered::Preview => "a preview",
                crate::aks_versions::Offered::LtsOnly => "offered only with the LTS plan",
                _ => "not offered",
            };
            status.detail = format!("{}; {what} in {}", status.detail, region.describe());
        }
        status
    };
    let mut steps = Vec::new();
    let mut note = None;
    let current = cluster.control_plane.minor;
    if current.major != target.major {
        note = Some(format!("the control plane is on {}, another major version than the target", current));
    } else if current > target {
        note = Some(format!("the control plane ({current}) is newer than the target: AKS does not downgrade"));
    }
    let mut minor = current;
    let behind = |pool: &Pinned, minor: Minor| pool.minor.major == minor.major && pool.minor < minor;
    // Pools already behind the control plane come level with it first (then every step keeps them level).
    if note.is_none() && cluster.pools.iter().any(|pool| behind(pool, minor)) && minor <= target {
        let pools: Vec<&Pinned> = cluster.pools.iter().filter(|pool| behind(pool, minor)).collect();
        steps.push(pools_step(&pools, minor));
    }
    while note.is_none() && minor < target {
        minor = minor.plus(1);
        steps.push(Step {
            what: "control plane",
            to: minor.to_string(),
            objects: vec![cluster.control_plane.object.clone()],
            edit: vec![cluster.control_plane.edit_at().to_string()],
            patch: None,
        });
        let pools: Vec<&Pinned> = cluster.pools.iter().filter(|pool| behind(pool, minor)).collect();
        if !pools.is_empty() {
            steps.push(pools_step(&pools, minor));
        }
    }
    if let Some(region) = region {
        note = region_patches(&mut steps, &cluster.control_plane, region, note);
    }
    ClusterPlan {
        cluster: cluster.name.clone(),
        topology: cluster.topology,
        control_plane: status(&cluster.control_plane),
        pools: cluster.pools.iter().map(status).collect(),
        steps,
        note,
    }
}

/// The patch each step takes in the region (`steps[].patch`): a control plane step the newest of that minor among
/// the upgrades the region offers from the patch before (the newest patch of the minor when the region does not
/// list that patch), a pools step the control plane's; a note when the region offers no patch of a step's minor.
fn region_patches(
    steps: &mut [Step],
    control_plane: &Pinned,
    region: &RegionVersions,
    note: Option<String>,
) -> Option<String> {
    let mut on = Patch::parse(&control_plane.version);
    let mut missing = None;
    for step in steps.iter_mut() {
        let Some(minor) = Minor::parse(&step.to) else { continue };
        if step.what == "control plane" {
            let offered_from = on.and_then(|from| region.upgrades_from(from));
            on = match offered_from {
                Some(upgrades) => upgrades.iter().rev().find(|patch| patch.minor == minor).copied(),
                None => region.newest_patch(minor),
            };
        }
        step.patch = on.filter(|patch| patch.minor == minor).map(|patch| format!("v{patch}"));
        if step.patch.is_none() && missing.is_none() {
            missing = Some(minor);
        }
    }
    let Some(minor) = missing else { return note };
    let offered = region.get(minor).is_some();
    let said = if offered {
        format!("AKS in {} offers no upgrade to {minor} from the patch before ({})", region.describe(), region.origin())
    } else {
        format!("AKS in {} does not offer {minor} ({})", region.describe(), region.origin())
    };
    Some(note.map_or(said.clone(), |note| format!("{note}; {said}")))
}

fn pools_step(pools: &[&Pinned], to: Minor) -> Step {
    Step {
        what: "pools",
        to: to.to_string(),
        objects: pools.iter().map(|pool| pool.object.clone()).collect(),
        edit: pools.iter().map(|pool| pool.edit_at().to_string()).collect(),
        patch: None,
    }
}

fn version_status(pinned: &Pinned, lifecycle: &Lifecycle, on: Date, lts: bool) -> VersionStatus {
    let (support, detail) = match lifecycle.status(pinned.minor, on, lts) {
        Support::Supported { ends, lts: true } => ("supported", format!("in long-term support through {ends}")),
        Support::Supported { ends, .. } => ("supported", format!("supported through {ends}")),
        Support::PlatformSupport { since, ends: Some(ends) } => {
            ("platform-support", format!("out of community support since {since}, platform support through {ends}"))
        }
        Support::PlatformSupport { since, ends: None } => {
            ("platform-support", format!("out of community support since {since}, in platform support"))
        }
        Support::Ended { ended: Some(ended), .. } => ("ended", format!("out of AKS support since {ended}")),
        Support::Ended { ended: None, .. } => ("ended", "out of AKS support".to_string()),
        Support::Unreleased { ga: Some(ga) } => ("unreleased", format!("not released by AKS before {ga}")),
        Support::Unreleased { ga: None } => ("unreleased", "not released by AKS".to_string()),
    };
    VersionStatus {
        object: pinned.object.clone(),
        version: pinned.version.clone(),
        at: pinned.at.clone(),
        support,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knows(on: Date) -> Knowledge<'static> {
        Knowledge { lifecycle: Lifecycle::bundled(), on, region: None }
    }

    fn pinned(object: &str, version: &str) -> Pinned {
        Pinned {
            object: object.to_string(),
            version: version.to_string(),
            minor: Minor::parse(version).unwrap(),
            pointer: "/spec/version".to_string(),
            at: format!("{object}.yaml:1"),
            set_at: None,
        }
    }

    fn cluster(control_plane: &str, pools: &[&str]) -> ClusterVersions {
        ClusterVersions {
            name: "default/a".to_string(),
            control_plane: pinned("AzureASOManagedControlPlane/a", control_plane),
            pools: pools.iter().enumerate().map(|(i, v)| pinned(&format!("MachinePool/a-{i}"), v)).collect(),
            lts: false,
            topology: false,
            location: None,
        }
    }

    fn steps(plan: &ClusterPlan) -> Vec<String> {
        plan.steps.iter().map(|s| format!("{} {} {}", s.what, s.to, s.objects.join(","))).collect()
    }

    #[test]
    fn one_minor_at_a_time_each_followed_by_the_pools() {
        let on = Date::parse("2026-01-15").unwrap();
        let plan = plan_cluster(&cluster("v1.32.4", &["v1.32.4", "v1.31.9"]), knows(on), Minor::parse("1.34").unwrap());
        assert_eq!(
            steps(&plan),
            [
                "pools 1.32 MachinePool/a-1",
                "control plane 1.33 AzureASOManagedControlPlane/a",
                "pools 1.33 MachinePool/a-0,MachinePool/a-1",
                "control plane 1.34 AzureASOManagedControlPlane/a",
                "pools 1.34 MachinePool/a-0,MachinePool/a-1",
            ]
        );
        assert_eq!(plan.steps[1].edit, ["AzureASOManagedControlPlane/a.yaml:1"]);
    }

    #[test]
    fn nothing_to_do_at_the_target_and_no_downgrade() {
        let on = Date::parse("2026-01-15").unwrap();
        let at = plan_cluster(&cluster("v1.33.2", &["v1.33.2"]), knows(on), Minor::parse("1.33").unwrap());
        assert!(at.steps.is_empty() && at.note.is_none());
        let newer = plan_cluster(&cluster("v1.34.1", &[]), knows(on), Minor::parse("1.33").unwrap());
        assert!(newer.steps.is_empty());
        assert!(newer.note.as_deref().unwrap().contains("does not downgrade"), "{:?}", newer.note);
    }

    #[test]
    fn targets_resolve_to_what_aks_supports_on_the_day() {
        let lifecycle = Lifecycle::bundled();
        let on = Date::parse("2026-01-15").unwrap();
        let latest = Target::LatestSupported.resolve(lifecycle, on, None).unwrap();
        assert!(matches!(lifecycle.status(latest, on, false), Support::Supported { .. }));
        assert!(!matches!(lifecycle.status(latest.plus(1), on, false), Support::Supported { .. }));
        assert!(matches!(
            Target::Minor(Minor::parse("1.99").unwrap()).resolve(lifecycle, on, None),
            Err(PlanError::Unreleased { .. })
        ));
        assert!(matches!(
            Target::Minor(Minor::parse("1.20").unwrap()).resolve(lifecycle, on, None),
            Err(PlanError::Ended { .. })
        ));
        assert_eq!(Target::parse("v1.35.2"), Ok(Target::Minor(Minor::parse("1.35").unwrap())));
        assert!(Target::parse("latest").is_err());
    }

    #[test]
    fn with_the_regions_versions_each_step_names_its_patch() {
        let region = RegionVersions::from_json(
            r#"{"id": "/subscriptions/s/providers/Microsoft.ContainerService/locations/westeurope/kubernetesVersions/default",
                "values": [
                  {"version": "1.33", "patchVersions": {"1.33.2": {"upgrades": ["1.34.1"]}}},
                  {"version": "1.34", "patchVersions": {"1.34.1": {}, "1.34.2": {}}}]}"#,
        )
        .unwrap();
        let on = Date::parse("2026-01-15").unwrap();
        let knowledge = Knowledge { region: Some(&region), ..knows(on) };
        let plan = plan_cluster(&cluster("v1.33.2", &["v1.33.2"]), knowledge, Minor::parse("1.34").unwrap());
        let patches: Vec<Option<&str>> = plan.steps.iter().map(|step| step.patch.as_deref()).collect();
        // From 1.33.2 the region upgrades to 1.34.1 only, though it offers 1.34.2 too.
        assert_eq!(patches, [Some("v1.34.1"), Some("v1.34.1")]);
        assert!(plan.note.is_none(), "{:?}", plan.note);
        // A cluster elsewhere is not judged by this region's data.
        let elsewhere = ClusterVersions { location: Some("eastus".into()), ..cluster("v1.33.2", &[]) };
        let plan = plan_cluster(&elsewhere, knowledge, Minor::parse("1.34").unwrap());
        assert_eq!(plan.steps[0].patch, None);
        // A minor the region does not offer: the target is refused, naming what it offers.
        let err = Target::Minor(Minor::parse("1.32").unwrap()).resolve(Lifecycle::bundled(), on, Some(&region));
        let err = err.unwrap_err().to_string();
        assert!(err.starts_with("AKS in westeurope does not offer Kubernetes 1.32 (it offers 1.33, 1.34"), "{err}");
        let latest = Target::LatestSupported.resolve(Lifecycle::bundled(), on, Some(&region)).unwrap();
        assert_eq!(latest, Minor::parse("1.34").unwrap());
    }
}
