//! Rancher Fleet bundles: a directory with a `fleet.yaml` (or `fleet.yml`) is a bundle, deployed as Fleet deploys
//! it (rancher/fleet internal/bundlereader, internal/helmdeployer, internal/cmd/controller/options and target):
//! a Helm chart (`helm.chart` a directory of the bundle, or a `Chart.yaml` at its root) rendered with the values
//! Fleet merges, else a kustomization (`kustomize.dir`, or the bundle's root) built, else the bundle's YAML files
//! as they are; once for the default target and once per `targetCustomizations` entry ([`plan`]), each a unit
//! of its own while validated ([`units`]).

pub mod ignore;
pub mod names;
pub mod plan;
pub mod spec;
pub mod units;

pub use plan::{Layer, Variant, variants};
pub use spec::{FleetYaml, Options, SpecError};
pub use units::{Unit, Units};

/// The file names that make a directory a bundle, in Fleet's order (internal/fleetyaml `GetFleetYamlPath`).
pub const FLEET_FILES: [&str; 2] = ["fleet.yaml", "fleet.yml"];

/// API group of Fleet's objects (GitRepo, Bundle, ...).
pub const FLEET_GROUP: &str = "fleet.cattle.io";

/// Whether a GitRepo's `paths` (globs from the repository root; `.` when none) reach the bundle directory `dir`
/// (repository-relative, `""` for the root): `fleet apply` walks each matched directory for bundles
/// (internal/cmd/cli/apply/apply.go `CreateBundles`, `globDirs`).
pub fn paths_reach(paths: &[String], dir: &str) -> bool {
    let paths: Vec<&str> = if paths.is_empty() { vec!["."] } else { paths.iter().map(String::as_str).collect() };
    let segments: Vec<&str> = dir.split('/').filter(|part| !part.is_empty()).collect();
    paths.iter().any(|path| {
        let pattern: Vec<&str> =
            path.trim_start_matches('/').split('/').filter(|part| !part.is_empty() && *part != ".").collect();
        // The walk starts at the matched directory: it reaches the bundle when that is the bundle or above it.
        pattern.len() <= segments.len()
            && pattern
                .iter()
                .zip(&segments)
                .all(|(pattern, segment)| ignore::is_ignored(&[pattern.to_string()], segment, false))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_repo_paths_reach_the_bundles_below_them() {
        let paths = |list: &[&str]| list.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert!(paths_reach(&[], "fleet/aks"));
        assert!(paths_reach(&paths(&["fleet"]), "fleet/aks"));
        assert!(paths_reach(&paths(&["/fleet/*"]), "fleet/aks"));
        assert!(paths_reach(&paths(&["fleet/aks"]), "fleet/aks"));
        assert!(!paths_reach(&paths(&["fleet/aks"]), "fleet"));
        assert!(!paths_reach(&paths(&["apps"]), "fleet/aks"));
    }
}
