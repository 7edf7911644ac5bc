//! `upgrade --to VERSION`: the next step of each cluster's plan as edits of the repository's text, at the line
//! that sets the version. That is the version field itself when the line writes the version; otherwise (the field
//! is a Flux `${VARIABLE}`, a Helm template, a kustomize replacement) the one YAML line below the repository's root
//! that sets a scalar to the version being replaced (a `postBuild.substitute` entry, a ConfigMap of
//! `substituteFrom`, a values file). Only that scalar of that line changes: comments, quotes and layout stay.
//!
//! What AKS refuses is refused with the reason: a downgrade, a skipped minor (AKS upgrades one minor at a time, so
//! `--to` names the next minor's patch), a version the release calendar does not know. A file `render --fleet`
//! wrote is not edited (the next render would undo it): its value is set in the fleet file, which is searched (with
//! the values files beside it) for the one line that sets the version when the fleet file is given.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::aks_versions::{Minor, Patch, RegionVersions, list_versions};
use crate::lint::aks_versions::inventory::{ClusterVersions, Pinned};

/// One edit: on `line` (1-based) of `file`, the scalar `from` becomes `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edit {
    pub file: PathBuf,
    pub line: usize,
    pub from: String,
    pub to: String,
    /// The objects whose versions the edit moves (`Kind/name`).
    pub objects: Vec<String>,
}

/// A cluster the step is refused for, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub cluster: String,
    pub reason: String,
}

/// The edits of one run, and what was refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits {
    pub edits: Vec<Edit>,
    pub refusals: Vec<Refusal>,
}

/// A full version `vX.Y.Z` (`v` optional; written as given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullVersion {
    pub written: String,
    pub minor: Minor,
    pub patch: u32,
}

impl FullVersion {
    /// `v1.34.3` or `1.34.3`; `None` without a patch or with anything after it.
    pub fn parse(text: &str) -> Option<FullVersion> {
        let bare = text.strip_prefix('v').unwrap_or(text);
        let mut parts = bare.split('.');
        let (major, minor, patch) = (parts.next()?, parts.next()?, parts.next()?);
        let number = |part: &str| {
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) && (part == "0" || !part.starts_with('0')))
                .then(|| part.parse::<u32>().ok())
                .flatten()
        };
        if parts.next().is_some() {
            return None;
        }
        let minor = Minor { major: number(major)?, minor: number(minor)? };
        Some(FullVersion { written: text.to_string(), minor, patch: number(patch)? })
    }
}

/// The patch of a pinned version (`v1.33.2` is 2), when it has one.
fn patch_of(version: &str) -> Option<u32> {
    FullVersion::parse(version).map(|v| v.patch)
}

/// The edits that take each cluster one step towards `to`, the repository's YAML files below `root` searched for
/// where a version is set, and for the files `render --fleet` wrote, the directory of `fleet` (the fleet file).
pub fn next_step(
    clusters: &[ClusterVersions],
    to: &FullVersion,
    root: &Path,
    fleet: Option<&Path>,
    region: Option<&RegionVersions>,
) -> Edits {
    let mut out = Edits::default();
    let mut edits: BTreeMap<(PathBuf, usize), Edit> = BTreeMap::new();
    let mut finder = SettingFinder::new(root);
    let mut fleet_finder = fleet.map(|file| SettingFinder::new(&parent_dir(file)));
    for cluster in clusters {
        let region = region.filter(|region| region.covers(cluster.location.as_deref()));
        let moved =
            match what_moves(cluster, to).and_then(|moved| upgrade_path(cluster, &moved, to, region).map(|()| moved)) {
                Ok(moved) => moved,
                Err(reason) => {
                    out.refusals.push(Refusal { cluster: cluster.name.clone(), reason });
                    continue;
                }
            };
        for pinned in moved {
            let site = match finder.site_of(pinned) {
                Err(Unsettable::Generated(file)) => match fleet_finder.as_mut() {
                    Some(fleet_finder) => fleet_finder.setting_of(pinned, "the fleet file's directory"),
                    None => Err(format!(
                        "{} is written by `kubectl capz render --fleet` (its directory's ownership marker lists it): \
                         give the fleet file with --fleet FILE to edit the version there, then render again",
                        file.display()
                    )),
                },
                Err(Unsettable::Because(reason)) => Err(reason),
                Ok(site) => Ok(site),
            };
            match site {
                Ok((file, line)) => {
                    let edit = edits.entry((file.clone(), line)).or_insert_with(|| Edit {
                        file,
                        line,
                        from: pinned.version.clone(),
                        to: to.written.clone(),
                        objects: Vec::new(),
                    });
                    edit.objects.push(pinned.object.clone());
                }
                Err(reason) => {
                    out.refusals.push(Refusal { cluster: cluster.name.clone(), reason });
                }
            }
        }
    }
    out.edits = edits.into_values().collect();
    out
}

/// The versions of `cluster` the next step towards `to` moves: its control plane to the next minor, or, once the
/// control plane is on `to`, the pools behind it.
fn what_moves<'c>(cluster: &'c ClusterVersions, to: &FullVersion) -> Result<Vec<&'c Pinned>, String> {
    let cp = &cluster.control_plane;
    let cp_patch = patch_of(&cp.version).unwrap_or(0);
    if cp.minor.major != to.minor.major || cp.minor > to.minor || (cp.minor == to.minor && cp_patch > to.patch) {
        return Err(format!("its control plane is on {}: AKS does not downgrade to {}", cp.version, to.written));
    }
    if cp.minor.minors_after(to.minor).is_some_and(|behind| behind < -1) {
        return Err(format!(
            "its control plane is on {}: AKS upgrades one minor at a time, so the next step is {} (give --to v{}.P, \
             a patch AKS offers: az aks get-versions)",
            cp.version,
            cp.minor.plus(1),
            cp.minor.plus(1)
        ));
    }
    if cp.minor < to.minor || cp_patch < to.patch {
        return Ok(vec![cp]);
    }
    let behind: Vec<&Pinned> = cluster
        .pools
        .iter()
        .filter(|pool| pool.minor < to.minor || (pool.minor == to.minor && patch_of(&pool.version) < Some(to.patch)))
        .collect();
    Ok(behind)
}

/// With `az aks get-versions` of the cluster's region: a control plane step AKS offers from the patch the control
/// plane is on (`patchVersions.<from>.upgrades`). A patch the region no longer lists is not judged (AKS keeps its
/// upgrades: `az aks get-upgrades` on the cluster).
fn upgrade_path(
    cluster: &ClusterVersions,
    moved: &[&Pinned],
    to: &FullVersion,
    region: Option<&RegionVersions>,
) -> Result<(), String> {
    let cp = &cluster.control_plane;
    let (Some(region), true) = (region, moved.iter().any(|pinned| std::ptr::eq(*pinned, cp))) else { return Ok(()) };
    let Some(from) = Patch::parse(&cp.version) else { return Ok(()) };
    let target = Patch { minor: to.minor, patch: to.patch };
    match region.upgrades_from(from) {
        Some(upgrades) if !upgrades.contains(&target) => Err(format!(
            "its control plane is on {}: AKS in {} does not upgrade {from} to {target} (its upgrades from {from}: {}; \
             {})",
            cp.version,
            region.describe(),
            if upgrades.is_empty() { "none".to_string() } else { list_versions(upgrades) },
            region.origin()
        )),
        _ => Ok(()),
    }
}

/// Why no line to edit was found.
enum Unsettable {
    /// The line is in a file `render --fleet` wrote.
    Generated(PathBuf),
    Because(String),
}

/// Finds the line that sets a pinned version.
struct SettingFinder {
    root: PathBuf,
    /// Every YAML file below the root with its text, read on first need.
    files: Option<Vec<(PathBuf, String)>>,
}

impl SettingFinder {
    fn new(root: &Path) -> Self {
        SettingFinder { root: root.to_path_buf(), files: None }
    }

    /// `(file, line)` of the line that sets `pinned`: its own line when that writes the version, else the one line
    /// below the root that does.
    fn site_of(&mut self, pinned: &Pinned) -> Result<(PathBuf, usize), Unsettable> {
        let sets_it = |location: &str| {
            let (file, line) = split_location(location)?;
            let text = std::fs::read_to_string(&file).ok()?;
            let written = text.lines().nth(line - 1)?;
            (crate::manifest::scalar_of_line(written) == Some(pinned.version.as_str())).then_some((file, line))
        };
        if split_location(&pinned.at).is_none() {
            return Err(Unsettable::Because(format!("{}: no location", pinned.object)));
        }
        // Where repository mode traced the value to (a values file, a valuesObject, a patch), then the field itself,
        // then the one line below the root that sets the value.
        let site = match pinned.set_at.as_deref().and_then(sets_it).or_else(|| sets_it(&pinned.at)) {
            Some(site) => site,
            None => self.setting_of(pinned, &format!("below {}", self.root.display())).map_err(Unsettable::Because)?,
        };
        if crate::out_tree::is_generated(&site.0) {
            return Err(Unsettable::Generated(site.0));
        }
        Ok(site)
    }

    /// The one line of the root's YAML files that sets `pinned`'s version (`where_` says where that was looked for).
    fn setting_of(&mut self, pinned: &Pinned, where_: &str) -> Result<(PathBuf, usize), String> {
        let found: Vec<(PathBuf, usize)> = self
            .setting(&pinned.version)
            .into_iter()
            .filter(|(file, _)| !crate::out_tree::is_generated(file))
            .collect();
        match found.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(format!(
                "the version of {} ({}) is written at {} through a template or variable, and no YAML line {where_} \
                 sets {}",
                pinned.object, pinned.version, pinned.at, pinned.version
            )),
            many => {
                // The lines whose key is the variable the field is written with (`version: ${KUBERNETES_VERSION}`).
                let named = variables_at(&pinned.at);
                let keyed: Vec<&(PathBuf, usize)> = many
                    .iter()
                    .filter(|(file, line)| key_of_line(file, *line).is_some_and(|key| named.contains(&key)))
                    .collect();
                if let [one] = keyed.as_slice() {
                    return Ok((*one).clone());
                }
                let places: Vec<String> = many.iter().map(|(f, l)| format!("{}:{l}", f.display())).collect();
                Err(format!(
                    "{} ({}) comes from one of {} lines that set it ({}): edit the one of this cluster",
                    pinned.object,
                    pinned.version,
                    many.len(),
                    places.join(", ")
                ))
            }
        }
    }

    /// Every line of the root's YAML files that sets a scalar to `value`.
    fn setting(&mut self, value: &str) -> Vec<(PathBuf, usize)> {
        let root = self.root.clone();
        let files = self.files.get_or_insert_with(|| yaml_files(&root));
        let mut out = Vec::new();
        for (file, text) in files.iter() {
            for (index, line) in text.lines().enumerate() {
                if crate::manifest::scalar_of_line(line) == Some(value) {
                    out.push((file.clone(), index + 1));
                }
            }
        }
        out
    }
}

/// The `${NAME}` variables (Flux's and clusterctl's, with or without a default) of the line at `location`.
fn variables_at(location: &str) -> Vec<String> {
    let Some((file, line)) = split_location(location) else { return Vec::new() };
    let Some(text) = std::fs::read_to_string(file).ok() else { return Vec::new() };
    let Some(written) = text.lines().nth(line - 1) else { return Vec::new() };
    crate::source::flux::variables_in(written)
}

/// The key of line `line` of `file` (`KUBERNETES_VERSION` of `  KUBERNETES_VERSION: v1.33.2`), unquoted.
fn key_of_line(file: &Path, line: usize) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let written = text.lines().nth(line - 1)?.trim_start().trim_start_matches("- ");
    let (key, _) = written.split_once(':')?;
    Some(key.trim().trim_matches(['"', '\'']).to_string())
}

/// The directory of `file` (`.` for a bare file name).
pub fn parent_dir(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn split_location(at: &str) -> Option<(PathBuf, usize)> {
    let (file, line) = at.rsplit_once(':')?;
    Some((PathBuf::from(file), line.parse().ok().filter(|l| *l > 0)?))
}

/// Files larger than this are not searched.
const MAX_FILE: u64 = 1 << 20;
/// At most this many files are searched.
const MAX_FILES: usize = 20_000;

/// The `.yaml`/`.yml` regular files below `root` (symlinks and `.git` left out), in path order, with their text.
fn yaml_files(root: &Path) -> Vec<(PathBuf, String)> {
    let below = crate::manifest::FilesBelow { json: false, max_bytes: MAX_FILE, max_files: MAX_FILES };
    below
        .list(root)
        .into_iter()
        .filter_map(|path| std::fs::read_to_string(&path).ok().map(|text| (path, text)))
        .collect()
}

/// `text` with each edit of its file applied: on the edit's line, the old scalar (the value after the key)
/// replaced. `None` when a line no longer holds what the edit expects.
pub fn apply(text: &str, edits: &[&Edit]) -> Option<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for edit in edits {
        let line = lines.get_mut(edit.line - 1)?;
        if crate::manifest::scalar_of_line(line) != Some(edit.from.as_str()) {
            return None;
        }
        // The value after the key (or the list dash), not a comment after it.
        let start = line.find(": ").or_else(|| line.find("- ")).map_or(0, |i| i + 2);
        let at = start + line.get(start..)?.find(&edit.from)?;
        line.replace_range(at..at + edit.from.len(), &edit.to);
    }
    Some(lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned(object: &str, version: &str, at: &str) -> Pinned {
        Pinned {
            object: object.into(),
            version: version.into(),
            minor: Minor::parse(version).unwrap(),
            pointer: "/spec/version".into(),
            at: at.into(),
            set_at: None,
        }
    }

    fn cluster(cp: &str, pools: &[&str]) -> ClusterVersions {
        ClusterVersions {
            name: "default/a".into(),
            control_plane: pinned("AzureASOManagedControlPlane/a", cp, "cp.yaml:1"),
            pools: pools.iter().map(|v| pinned("MachinePool/p", v, "pool.yaml:1")).collect(),
            lts: false,
            topology: false,
            location: None,
        }
    }

    #[test]
    fn the_regions_upgrade_paths_refuse_a_step_aks_does_not_offer() {
        let region = RegionVersions::from_json(
            r#"{"id": "/subscriptions/s/providers/Microsoft.ContainerService/locations/westeurope/kubernetesVersions/default",
                "values": [{"version": "1.33", "patchVersions": {"1.33.2": {"upgrades": ["1.33.5", "1.34.1"]}}},
                           {"version": "1.34", "patchVersions": {"1.34.1": {}, "1.34.3": {}}}]}"#,
        )
        .unwrap();
        let check = |cluster: &ClusterVersions, to: &str| {
            let to = FullVersion::parse(to).unwrap();
            let moved = what_moves(cluster, &to).unwrap();
            upgrade_path(cluster, &moved, &to, Some(&region))
        };
        let on_133 = cluster("v1.33.2", &["v1.33.2"]);
        assert_eq!(check(&on_133, "v1.34.1"), Ok(()));
        let refused = check(&on_133, "v1.34.3").unwrap_err();
        assert!(
            refused.contains(
                "AKS in westeurope does not upgrade 1.33.2 to 1.34.3 (its upgrades from 1.33.2: 1.33.5, 1.34.1"
            ),
            "{refused}"
        );
        // A patch the region no longer lists is not judged; pools are not judged by the control plane's paths.
        assert_eq!(check(&cluster("v1.33.1", &[]), "v1.34.3"), Ok(()));
        assert_eq!(check(&cluster("v1.34.3", &["v1.33.2"]), "v1.34.3"), Ok(()));
    }

    #[test]
    fn the_next_step_is_the_control_plane_then_its_pools() {
        let to = FullVersion::parse("v1.34.3").unwrap();
        let moved =
            |c: &ClusterVersions| what_moves(c, &to).map(|m| m.iter().map(|p| p.object.clone()).collect::<Vec<_>>());
        assert_eq!(moved(&cluster("v1.33.2", &["v1.33.2"])), Ok(vec!["AzureASOManagedControlPlane/a".to_string()]));
        assert_eq!(moved(&cluster("v1.34.3", &["v1.33.2"])), Ok(vec!["MachinePool/p".to_string()]));
        assert_eq!(moved(&cluster("v1.34.1", &["v1.33.2"])), Ok(vec!["AzureASOManagedControlPlane/a".to_string()]));
        assert_eq!(moved(&cluster("v1.34.3", &["v1.34.3"])), Ok(vec![]));
        assert!(moved(&cluster("v1.32.9", &[])).unwrap_err().contains("one minor at a time"));
        assert!(moved(&cluster("v1.35.0", &[])).unwrap_err().contains("does not downgrade"));
        assert!(moved(&cluster("v1.34.5", &[])).unwrap_err().contains("does not downgrade"));
    }

    #[test]
    fn full_versions_need_a_patch() {
        assert_eq!(FullVersion::parse("v1.34.3").map(|v| (v.minor.minor, v.patch)), Some((34, 3)));
        assert!(FullVersion::parse("v1.34").is_none());
        assert!(FullVersion::parse("v1.34.3-rc.1").is_none());
    }

    #[test]
    fn only_the_scalar_of_the_line_changes() {
        let text = "data:\n  KUBERNETES_VERSION: \"v1.33.2\" # was v1.33.2\n  OTHER: v1.33.2\n";
        let edit = Edit { file: "x".into(), line: 2, from: "v1.33.2".into(), to: "v1.34.3".into(), objects: vec![] };
        assert_eq!(
            apply(text, &[&edit]).unwrap(),
            "data:\n  KUBERNETES_VERSION: \"v1.34.3\" # was v1.33.2\n  OTHER: v1.33.2\n"
        );
        let stale = Edit { line: 1, ..edit };
        assert_eq!(apply(text, &[&stale]), None);
    }
}
