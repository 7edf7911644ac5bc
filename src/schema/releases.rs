//! The schema releases the importer builds (one per upstream release a target serves: CAPI, CAPZ and ASO from
//! the committed `upstream-crds/`, ASO v2.19 derived, CAPZ v1.28 provisional; Kubernetes' built-in kinds per Kubernetes version and the
//! Flux and Argo CD CRDs from the inputs `tools/schema-inputs/fetch.sh` fetches), and the folders they are
//! written to: a file several releases hold byte for byte is written once, into a folder named after all of
//! them (`aso-v2.18+v2.19`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::SchemaError;
use crate::json_pointer::At;

/// Where the schemas of one schema release come from (paths relative to the committed `upstream-crds/`, or, for
/// the `Fetched*` sources, to the directory `tools/schema-inputs/fetch.sh` fills).
#[derive(Debug)]
pub enum Source {
    /// Every CRD of a committed folder; with `patterns`, only the kinds the `--crd-pattern`s in those files name.
    Crds { dir: &'static str, patterns: &'static [&'static str] },
    /// Every CRD of a fetched folder.
    FetchedCrds { dir: &'static str },
    /// The built-in kinds of a Kubernetes release, from its OpenAPI v3 documents (a fetched folder).
    FetchedOpenApi { dir: &'static str },
    /// A release the Go module proxy does not serve, derived from two it serves.
    Derived(Derivation),
}

/// `base` minus the `removed` group/versions plus the `added` group/versions taken from `added_from`, for the
/// kinds of `patterns`.
#[derive(Debug)]
pub struct Derivation {
    pub base: &'static str,
    pub removed: &'static [&'static str],
    pub added_from: &'static str,
    pub added: &'static [&'static str],
    pub patterns: &'static [&'static str],
}

/// One schema release: what a target's management cluster serves of one upstream project.
#[derive(Debug)]
pub struct Release {
    /// `family-version` (`aso-v2.19`, `kubernetes-v1.36`), or a bare family (`gitops`).
    pub name: &'static str,
    pub source: Source,
}

/// The family of the Kubernetes releases: `kubernetes-v1.36` is Kubernetes 1.36's built-in kinds.
pub const KUBERNETES_FAMILY: &str = "kubernetes";

/// The ASO kinds bundled beside CAPZ's crd-pattern, for repositories that add them with ADDITIONAL_ASO_CRDS.
pub const ASO_EXTRA_KINDS: &str = "aso-extra-kinds.txt";

/// The releases, in the order folders name them.
pub const RELEASES: &[Release] = &[
    Release { name: "kubernetes-v1.35", source: Source::FetchedOpenApi { dir: "kubernetes/v1.35" } },
    Release { name: "kubernetes-v1.36", source: Source::FetchedOpenApi { dir: "kubernetes/v1.36" } },
    Release { name: "gitops", source: Source::FetchedCrds { dir: "gitops" } },
    Release { name: "capi-v1.13", source: Source::Crds { dir: "capi-v1.13.3", patterns: &[] } },
    Release { name: "capi-v1.14", source: Source::Crds { dir: "capi-v1.14.0", patterns: &[] } },
    Release { name: "capi-operator-v0.29", source: Source::Crds { dir: "capi-operator-v0.29.0", patterns: &[] } },
    Release { name: "capz-v1.26", source: Source::Crds { dir: "capz-v1.26.0", patterns: &[] } },
    Release { name: "capz-v1.27", source: Source::Crds { dir: "capz-v1.27.0", patterns: &[] } },
    // Provisional: CAPZ v1.28.0 is not released and the Go module proxy serves no CAPZ source after v1.27.0
    // (upstream-crds/capz-v1.28-refused.txt), so CAPZ v1.28's own CRDs are v1.27.0's.
    Release { name: "capz-v1.28", source: Source::Crds { dir: "capz-v1.27.0", patterns: &[] } },
    Release {
        name: "aso-v2.18",
        source: Source::Crds { dir: "aso-v2.18.0", patterns: &["capz-v1.26.0/aso-crd-pattern.txt", ASO_EXTRA_KINDS] },
    },
    Release {
        name: "aso-v2.19",
        source: Source::Derived(Derivation {
            base: "aso-v2.18.0",
            // ASO v2.19 breaking changes: "Removed containerservice v1api20240402preview versions of
            // ManagedCluster, ManagedClustersAgentPool, and TrustedAccessRoleBinding".
            removed: &[
                "containerservice.azure.com/v1api20240402preview",
                "containerservice.azure.com/v1api20240402previewstorage",
            ],
            // ASO v2.19 release notes: "The network group has been updated to API version v20250301".
            added_from: "aso-v2.20.0",
            added: &["network.azure.com/v20250301", "network.azure.com/v20250301storage"],
            patterns: &["capz-v1.27.0/aso-crd-pattern.txt", ASO_EXTRA_KINDS],
        }),
    },
    // What CAPZ main pins (for v1.28); its crd-pattern is v1.27.0's, the newest CAPZ source the proxy serves.
    Release {
        name: "aso-v2.20",
        source: Source::Crds { dir: "aso-v2.20.0", patterns: &["capz-v1.27.0/aso-crd-pattern.txt", ASO_EXTRA_KINDS] },
    },
];

/// The `group/Kind` entries of `--crd-pattern` files (`;`-separated), together.
pub fn read_patterns(from: &Path, files: &[&str]) -> Result<BTreeSet<String>, SchemaError> {
    let mut entries = BTreeSet::new();
    for file in files {
        let path = from.join(file);
        let text = std::fs::read_to_string(&path).map_err(|source| SchemaError::Read { path, source })?;
        entries.extend(text.split(';').map(str::trim).filter(|e| !e.is_empty()).map(str::to_string));
    }
    Ok(entries)
}

fn group_kind(crd: &Value) -> String {
    let at = |p: &str| crd.str_at(p).unwrap_or_default().to_string();
    format!("{}/{}", at("/spec/group"), at("/spec/names/kind"))
}

/// Whether a CRD's kind is in `pattern`.
pub fn in_pattern(crd: &Value, pattern: &BTreeSet<String>) -> bool {
    pattern.contains(&group_kind(crd))
}

fn group_version(crd: &Value, version: &Value) -> String {
    format!(
        "{}/{}",
        crd.str_at("/spec/group").unwrap_or_default(),
        version.get("name").and_then(Value::as_str).unwrap_or_default()
    )
}

/// The derived CRDs: each kind of `base` (in the pattern) without the removed versions, plus the added versions
/// of the same kind in `added`; a kind only `added` has keeps its added versions. When an added version is the
/// storage version there, it is the storage version of the derived CRD too.
pub fn derive(derivation: &Derivation, base: Vec<Value>, added: Vec<Value>, pattern: &BTreeSet<String>) -> Vec<Value> {
    let removed: BTreeSet<&str> = derivation.removed.iter().copied().collect();
    let wanted: BTreeSet<&str> = derivation.added.iter().copied().collect();
    let mut by_kind: BTreeMap<String, Value> = BTreeMap::new();
    for mut crd in base.into_iter().filter(|c| in_pattern(c, pattern)) {
        let snapshot = crd.clone();
        if let Some(Value::Array(versions)) = crd.pointer_mut("/spec/versions") {
            versions.retain(|v| !removed.contains(group_version(&snapshot, v).as_str()));
        }
        by_kind.insert(group_kind(&crd), crd);
    }
    for crd in added.into_iter().filter(|c| in_pattern(c, pattern)) {
        let new_versions: Vec<Value> = crd
            .items_at("/spec/versions")
            .filter(|v| wanted.contains(group_version(&crd, v).as_str()))
            .cloned()
            .collect();
        if new_versions.is_empty() {
            continue;
        }
        let takes_storage = new_versions.iter().any(|v| v.get("storage").and_then(Value::as_bool) == Some(true));
        let key = group_kind(&crd);
        let target = by_kind.entry(key).or_insert_with(|| {
            let mut empty = crd.clone();
            if let Some(Value::Array(versions)) = empty.pointer_mut("/spec/versions") {
                versions.clear();
            }
            empty
        });
        if let Some(Value::Array(versions)) = target.pointer_mut("/spec/versions") {
            if takes_storage {
                for version in versions.iter_mut() {
                    version["storage"] = Value::Bool(false);
                }
            }
            versions.extend(new_versions);
        }
    }
    by_kind.into_values().collect()
}

/// The folder of a file that exactly `releases` hold (in [`RELEASES`] order): `aso-v2.18+v2.19`, `gitops`,
/// `capi-operator-v0.29` (the version follows the last `-`); `None` when they are of different projects (no file
/// is).
pub fn folder_name(releases: &[&str]) -> Option<String> {
    let mut parts = releases.iter().map(|r| r.rsplit_once('-'));
    match parts.next()? {
        None if releases.len() == 1 => Some(releases[0].to_string()),
        Some((family, first)) => {
            let mut versions = vec![first];
            for part in parts {
                let (other, version) = part?;
                if other != family {
                    return None;
                }
                versions.push(version);
            }
            Some(format!("{family}-{}", versions.join("+")))
        }
        None => None,
    }
}

/// The releases a folder's files belong to (the inverse of [`folder_name`]).
pub fn releases_of_folder(folder: &str) -> Vec<String> {
    match folder.rsplit_once('-') {
        Some((family, versions)) => versions.split('+').map(|v| format!("{family}-{v}")).collect(),
        None => vec![folder.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folder_names_round_trip() {
        for releases in [
            vec!["aso-v2.18", "aso-v2.19"],
            vec!["aso-v2.18", "aso-v2.19", "aso-v2.20"],
            vec!["capz-v1.26", "capz-v1.27", "capz-v1.28"],
            vec!["gitops"],
            vec!["capz-v1.27"],
            vec!["capi-v1.13", "capi-v1.14"],
            vec!["kubernetes-v1.35", "kubernetes-v1.36"],
            vec!["capi-operator-v0.29"],
        ] {
            let folder = folder_name(&releases).unwrap();
            assert_eq!(releases_of_folder(&folder), releases, "{folder}");
        }
        assert_eq!(folder_name(&["aso-v2.18", "aso-v2.19"]).unwrap(), "aso-v2.18+v2.19");
        assert_eq!(folder_name(&["aso-v2.18", "capz-v1.27"]), None);
        assert_eq!(folder_name(&["gitops", "kubernetes-v1.36"]), None);
        assert_eq!(folder_name(&["capi-v1.14", "capi-operator-v0.29"]), None);
        assert_eq!(releases_of_folder("capi-operator-v0.29"), ["capi-operator-v0.29"]);
    }

    fn crd(group: &str, kind: &str, versions: &[(&str, bool)]) -> Value {
        json!({
            "kind": "CustomResourceDefinition",
            "spec": {
                "group": group,
                "names": {"kind": kind, "plural": format!("{}s", kind.to_lowercase())},
                "versions": versions.iter().map(|(name, storage)| json!({"name": name, "served": true, "storage": storage})).collect::<Vec<_>>()
            }
        })
    }

    fn names(crd: &Value) -> Vec<(String, bool)> {
        crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["name"].as_str().unwrap().to_string(), v["storage"].as_bool().unwrap()))
            .collect()
    }

    #[test]
    fn derivation_removes_and_adds_versions_and_moves_storage() {
        let derivation = Derivation {
            base: "b",
            removed: &["g.azure.com/v1", "g.azure.com/v1storage"],
            added_from: "a",
            added: &["g.azure.com/v3", "g.azure.com/v3storage"],
            patterns: &["p"],
        };
        let base = vec![crd(
            "g.azure.com",
            "Thing",
            &[("v1", false), ("v1storage", false), ("v2", false), ("v2storage", true)],
        )];
        let added = vec![crd(
            "g.azure.com",
            "Thing",
            &[("v2", false), ("v2storage", false), ("v3", false), ("v3storage", true), ("v4", false)],
        )];
        let pattern: BTreeSet<String> = ["g.azure.com/Thing".to_string()].into();
        let derived = derive(&derivation, base, added, &pattern);
        assert_eq!(derived.len(), 1);
        let expected: Vec<(String, bool)> = [("v2", false), ("v2storage", false), ("v3", false), ("v3storage", true)]
            .iter()
            .map(|(n, s)| (n.to_string(), *s))
            .collect();
        assert_eq!(names(&derived[0]), expected);
        // A kind outside the pattern is left out.
        let other = vec![crd("g.azure.com", "Other", &[("v2", true)])];
        assert!(derive(&derivation, other, vec![], &pattern).is_empty());
    }
}
