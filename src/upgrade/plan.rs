//! `upgrade plan`: for each cluster its control plane and pool versions, where AKS support stands for each on a
//! day, and the steps to a target minor version. AKS upgrades a control plane one minor at a time (it refuses a
//! skipped minor outside the LTS plan; with it, only to the next minor too: supported-kubernetes-versions,
//! "Long-term support"), and a pool may not be newer than its control plane: each step raises the control plane
//! one minor, then the pools behind it to the same minor, the order Cluster API's topology controller follows for a
//! topology Cluster (control plane first, then its MachinePools). A step names the lines to edit.

use serde::Serialize;

use crate::aks_versions::{Date, Lifecycle, Minor, Support};
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
    /// or long-term support).
    pub fn resolve(self, lifecycle: &Lifecycle, on: Date) -> Result<Minor, PlanError> {
        let (_, newest) = lifecycle.range();
        let minor = match self {
            Target::Minor(minor) => minor,
            Target::LatestSupported => lifecycle
                .versions
                .iter()
                .rev()
                .map(|entry| entry.minor)
                .find(|&minor| matches!(lifecycle.status(minor, on, false), Support::Supported { .. }))
                .ok_or(PlanError::Unreleased { minor: newest, on, newest })?,
        };
        match lifecycle.status(minor, on, true) {
            Support::Unreleased { .. } => Err(PlanError::Unreleased { minor, on, newest }),
            Support::Ended { .. } => Err(PlanError::Ended { minor, on }),
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
    /// Where each of their versions is written (`file:line`), in the order of `objects`.
    pub edit: Vec<String>,
}

/// The plan of `clusters` to `target` on day `on`.
pub fn plan(clusters: &[ClusterVersions], lifecycle: &Lifecycle, on: Date, target: Minor) -> Plan {
    let clusters = clusters.iter().map(|cluster| plan_cluster(cluster, lifecycle, on, target)).collect();
    Plan { on: on.to_string(), target: target.to_string(), clusters }
}

fn plan_cluster(cluster: &ClusterVersions, lifecycle: &Lifecycle, on: Date, target: Minor) -> ClusterPlan {
    let status = |pinned: &Pinned| version_status(pinned, lifecycle, on, cluster.lts);
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
            edit: vec![cluster.control_plane.at.clone()],
        });
        let pools: Vec<&Pinned> = cluster.pools.iter().filter(|pool| behind(pool, minor)).collect();
        if !pools.is_empty() {
            steps.push(pools_step(&pools, minor));
        }
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

fn pools_step(pools: &[&Pinned], to: Minor) -> Step {
    Step {
        what: "pools",
        to: to.to_string(),
        objects: pools.iter().map(|pool| pool.object.clone()).collect(),
        edit: pools.iter().map(|pool| pool.at.clone()).collect(),
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

    fn pinned(object: &str, version: &str) -> Pinned {
        Pinned {
            object: object.to_string(),
            version: version.to_string(),
            minor: Minor::parse(version).unwrap(),
            pointer: "/spec/version".to_string(),
            at: format!("{object}.yaml:1"),
        }
    }

    fn cluster(control_plane: &str, pools: &[&str]) -> ClusterVersions {
        ClusterVersions {
            name: "default/a".to_string(),
            control_plane: pinned("AzureASOManagedControlPlane/a", control_plane),
            pools: pools.iter().enumerate().map(|(i, v)| pinned(&format!("MachinePool/a-{i}"), v)).collect(),
            lts: false,
            topology: false,
        }
    }

    fn steps(plan: &ClusterPlan) -> Vec<String> {
        plan.steps.iter().map(|s| format!("{} {} {}", s.what, s.to, s.objects.join(","))).collect()
    }

    #[test]
    fn one_minor_at_a_time_each_followed_by_the_pools() {
        let on = Date::parse("2026-01-15").unwrap();
        let plan = plan_cluster(
            &cluster("v1.32.4", &["v1.32.4", "v1.31.9"]),
            Lifecycle::bundled(),
            on,
            Minor::parse("1.34").unwrap(),
        );
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
        let at =
            plan_cluster(&cluster("v1.33.2", &["v1.33.2"]), Lifecycle::bundled(), on, Minor::parse("1.33").unwrap());
        assert!(at.steps.is_empty() && at.note.is_none());
        let newer = plan_cluster(&cluster("v1.34.1", &[]), Lifecycle::bundled(), on, Minor::parse("1.33").unwrap());
        assert!(newer.steps.is_empty());
        assert!(newer.note.as_deref().unwrap().contains("does not downgrade"), "{:?}", newer.note);
    }

    #[test]
    fn targets_resolve_to_what_aks_supports_on_the_day() {
        let lifecycle = Lifecycle::bundled();
        let on = Date::parse("2026-01-15").unwrap();
        let latest = Target::LatestSupported.resolve(lifecycle, on).unwrap();
        assert!(matches!(lifecycle.status(latest, on, false), Support::Supported { .. }));
        assert!(!matches!(lifecycle.status(latest.plus(1), on, false), Support::Supported { .. }));
        assert!(matches!(
            Target::Minor(Minor::parse("1.99").unwrap()).resolve(lifecycle, on),
            Err(PlanError::Unreleased { .. })
        ));
        assert!(matches!(
            Target::Minor(Minor::parse("1.20").unwrap()).resolve(lifecycle, on),
            Err(PlanError::Ended { .. })
        ));
        assert_eq!(Target::parse("v1.35.2"), Ok(Target::Minor(Minor::parse("1.35").unwrap())));
        assert!(Target::parse("latest").is_err());
    }
}
