//! The schema registry: per-GVK schemas embedded from `schemas/gvk/<folder>/` (pre-parsed per file by build.rs),
//! those of one target's schema releases and one Kubernetes release's built-in kinds only, decoded on first
//! use, plus CRDs the user adds (`--crds DIR`, or fetched from a cluster), which win.
//! Shared by the threads of one run (`Sync`): every schema is parsed once per process.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

use super::crd_pattern::{CrdPattern, PatternEntry};
use super::embedded::{self, KUBERNETES_VERSIONS};
use super::{Gvk, KindSchema, SchemaError, import, packed, releases};
use crate::fast_hash::HashMap;
use crate::manifest;
use crate::versions::{self, Target};

/// Parsed embedded schemas by GVK (looked up by reference: no key is built per object).
type SchemaCache = HashMap<Gvk, CachedKind>;

/// What is known of one embedded kind.
#[derive(Default)]
struct CachedKind {
    /// Read whole and without `status` (`Some(None)`: no schema), indexed by whether `status` was left out.
    read: [Option<Option<Arc<KindSchema>>>; 2],
    /// How many objects had it read for themselves ([`Registry::get_for_object`]); from
    /// [`OBJECTS_READ_FOR_THEMSELVES`] on, objects share the whole reading.
    read_for_one: u8,
}

/// The objects of a kind that get a schema read for themselves: a cluster's bundle holds up to a few objects of
/// a kind (pools); a fleet reads each kind whole once after these.
pub(crate) const OBJECTS_READ_FOR_THEMSELVES: u8 = 3;

/// Where schemas come from; lookups are cached, so each GVK is parsed at most once.
#[derive(Default)]
pub struct Registry {
    user: BTreeMap<Gvk, Arc<KindSchema>>,
    /// The target whose schema releases are served (`None`: no embedded schemas).
    target: Option<&'static Target>,
    /// The Kubernetes release whose built-in kinds are served (`v1.36`).
    kubernetes_version: &'static str,
    /// The embedded folders (`schemas/gvk/<folder>/`) holding the served releases.
    folders: Vec<&'static str>,
    /// Embedded schemas by GVK.
    cache: RwLock<SchemaCache>,
    /// The ASO kinds the repository adds to CAPZ's crd-pattern (`ADDITIONAL_ASO_CRDS`).
    additional_aso_crds: Option<AdditionalAsoCrds>,
}

/// `ADDITIONAL_ASO_CRDS` as the checked inputs set it: CAPZ appends it to ASO's `--crd-pattern`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdditionalAsoCrds {
    pub pattern: CrdPattern,
    /// Where it was set, for messages (`ADDITIONAL_ASO_CRDS at clusters/mgmt/capz.yaml:12`).
    pub origin: String,
}

/// Whether the target's ASO installs the CRD of an ASO kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsoInstall<'r> {
    /// CAPZ's own `--crd-pattern` names it.
    ByCapz,
    /// `ADDITIONAL_ASO_CRDS` adds it: the entry that matches, and where the value was set.
    Added { entry: &'r PatternEntry, origin: &'r str },
    /// Neither: ASO does not install it.
    No,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").field("user_kinds", &self.user.len()).finish()
    }
}

fn group_dir(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

impl Registry {
    /// The schemas built into the binary for the default target and the newest bundled Kubernetes release.
    pub fn embedded() -> Self {
        Registry::for_target(versions::default_target())
    }

    /// The schemas of one target's management cluster running the newest bundled Kubernetes release: exactly the
    /// kinds and versions of the target's schema releases and of that Kubernetes release.
    pub fn for_target(target: &'static Target) -> Self {
        let newest = KUBERNETES_VERSIONS.first().copied().unwrap_or_default();
        Registry { target: Some(target), ..Registry::default() }.serving(newest)
    }

    /// Like [`Registry::for_target`], with the built-in kinds of Kubernetes `version` (`v1.36`, `1.36` or
    /// `v1.36.3`); an error names the bundled versions when it is not one of them.
    pub fn for_target_and_kubernetes(target: &'static Target, version: &str) -> Result<Self, SchemaError> {
        Registry::for_target(target).with_kubernetes_version(version)
    }

    /// The Kubernetes versions whose built-in schemas are bundled, newest first (`v1.36`).
    pub fn kubernetes_versions() -> &'static [&'static str] {
        KUBERNETES_VERSIONS
    }

    /// Uses the built-in schemas of Kubernetes `version` (`v1.36`, `1.36` or `v1.36.3`) instead of the
    /// newest bundled ones.
    pub fn with_kubernetes_version(self, version: &str) -> Result<Self, SchemaError> {
        let wanted = version.trim().trim_start_matches('v');
        let found = KUBERNETES_VERSIONS.iter().find(|v| {
            let minor = v.trim_start_matches('v');
            wanted == minor || wanted.strip_prefix(minor).is_some_and(|patch| patch.starts_with('.'))
        });
        let Some(found) = found else {
            return Err(SchemaError::UnknownKubernetesVersion {
                version: version.to_string(),
                bundled: KUBERNETES_VERSIONS.join(", "),
            });
        };
        Ok(self.serving(found))
    }

    /// The Kubernetes version whose built-in schemas this registry uses.
    pub fn kubernetes_version(&self) -> &'static str {
        self.kubernetes_version
    }

    /// This registry serving the target's releases and Kubernetes `version`'s built-in kinds.
    fn serving(mut self, version: &'static str) -> Self {
        self.kubernetes_version = version;
        let kubernetes = format!("{}-{version}", releases::KUBERNETES_FAMILY);
        self.folders = match self.target {
            Some(target) => embedded::GVK_FOLDERS
                .iter()
                .copied()
                .filter(|folder| {
                    releases::releases_of_folder(folder)
                        .iter()
                        .any(|r| *r == kubernetes || target.schema_sets.contains(&r.as_str()))
                })
                .collect(),
            None => Vec::new(),
        };
        self.cache.get_mut().unwrap_or_else(PoisonError::into_inner).clear();
        self
    }

    /// Whether `group` is a built-in API group of the Kubernetes release served.
    pub fn is_builtin_group(&self, group: &str) -> bool {
        let kubernetes = format!("{}-{}", releases::KUBERNETES_FAMILY, self.kubernetes_version);
        self.folders.iter().any(|folder| {
            releases::releases_of_folder(folder).contains(&kubernetes)
                && embedded::paths_under(&format!("gvk/{folder}/{}/", group_dir(group))).next().is_some()
        })
    }

    /// The other bundled Kubernetes releases whose built-in kinds include `gvk` (newest first): for saying why an
    /// object of a kind this release does not serve has no schema.
    pub fn other_kubernetes_releases_serving(&self, gvk: &Gvk) -> Vec<&'static str> {
        if self.target.is_none() {
            return Vec::new();
        }
        let relative = format!("{}/{}/{}.json", group_dir(&gvk.group), gvk.version, gvk.kind);
        KUBERNETES_VERSIONS
            .iter()
            .copied()
            .filter(|version| *version != self.kubernetes_version)
            .filter(|version| {
                let release = format!("{}-{version}", releases::KUBERNETES_FAMILY);
                embedded::GVK_FOLDERS.iter().any(|folder| {
                    releases::releases_of_folder(folder).contains(&release)
                        && embedded::paths_under(&format!("gvk/{folder}/{relative}")).next().is_some()
                })
            })
            .collect()
    }

    /// Only user-provided schemas (for tests of the engine itself).
    pub fn empty() -> Self {
        Registry::default()
    }

    /// The target whose schemas are served, if any.
    pub fn target(&self) -> Option<&'static Target> {
        self.target
    }

    /// Widens the target's ASO `--crd-pattern` with `ADDITIONAL_ASO_CRDS`, as CAPZ does.
    pub fn set_additional_aso_crds(&mut self, additional: AdditionalAsoCrds) {
        self.additional_aso_crds = Some(additional);
    }

    /// What `ADDITIONAL_ASO_CRDS` adds, if anything was set.
    pub fn additional_aso_crds(&self) -> Option<&AdditionalAsoCrds> {
        self.additional_aso_crds.as_ref()
    }

    /// Whether the target's ASO installs the CRD of the ASO kind `group`/`kind`: CAPZ's `--crd-pattern` with
    /// `ADDITIONAL_ASO_CRDS` appended.
    pub fn aso_install(&self, group: &str, kind: &str) -> AsoInstall<'_> {
        if self.target.is_some_and(|target| target.installs_aso_kind(group, kind)) {
            return AsoInstall::ByCapz;
        }
        match &self.additional_aso_crds {
            Some(added) => match added.pattern.matching(group, kind) {
                Some(entry) => AsoInstall::Added { entry, origin: &added.origin },
                None => AsoInstall::No,
            },
            None => AsoInstall::No,
        }
    }

    /// Whether the user added a schema of `group`/`kind` (`--crds`, a cluster's CRDs).
    pub fn user_has_kind(&self, group: &str, kind: &str) -> bool {
        self.user.keys().any(|g| g.group == group && g.kind == kind)
    }

    /// Adds every CRD found below `dir` (files, recursively); returns how many kinds were added.
    pub fn add_crd_dir(&mut self, dir: &Path) -> Result<usize, SchemaError> {
        let mut added = 0;
        for file in manifest::manifest_files(dir)? {
            let text =
                std::fs::read_to_string(&file).map_err(|source| SchemaError::Read { path: file.clone(), source })?;
            for document in manifest::parse_documents(&text, &file.display().to_string())? {
                if document.kind() == "CustomResourceDefinition" {
                    added += self.add_crd(&document.value, &document.origin.to_string())?;
                }
            }
        }
        if added == 0 {
            return Err(SchemaError::NoCrds { path: dir.to_path_buf() });
        }
        Ok(added)
    }

    /// Adds one CRD (as JSON); returns how many served versions it brought.
    pub fn add_crd(&mut self, crd: &Value, location: &str) -> Result<usize, SchemaError> {
        let kinds = import::kind_schemas_from_crd(crd, location)?;
        let count = kinds.len();
        for kind in kinds {
            let gvk = kind.gvk();
            self.forget(&gvk);
            self.user.insert(gvk, Arc::new(kind));
        }
        Ok(count)
    }

    /// Adds a schema directly.
    pub fn add_kind(&mut self, kind: KindSchema) {
        let gvk = kind.gvk();
        self.forget(&gvk);
        self.user.insert(gvk, Arc::new(kind));
    }

    fn forget(&mut self, gvk: &Gvk) {
        self.cache.get_mut().unwrap_or_else(PoisonError::into_inner).remove(gvk);
    }

    /// The schema of `gvk`, if any source has it.
    pub fn get(&self, gvk: &Gvk) -> Result<Option<Arc<KindSchema>>, SchemaError> {
        self.lookup(gvk, false)
    }

    /// Like [`Registry::get`], for an object without `status`: an embedded schema may then be read
    /// without its `status` subtree (a third of an ASO schema), which such an object never consults.
    pub fn get_without_status(&self, gvk: &Gvk) -> Result<Option<Arc<KindSchema>>, SchemaError> {
        self.lookup(gvk, true)
    }

    /// The schema of `gvk` for checking `object` (the schema walk, without CAPZ's defaulting webhooks, which add
    /// fields): the first objects of an embedded kind get only the part of the schema their walk reads (see
    /// `packed::Part::For`; an ASO ManagedCluster uses a few of its hundreds of properties, and a one-bundle
    /// `validate` spent a third of its instructions decoding schemas whole); after the first
    /// [`OBJECTS_READ_FOR_THEMSELVES`] objects of the kind, the whole schema, decoded once and shared
    /// ([`Registry::get`] or [`Registry::get_without_status`]).
    pub fn get_for_object(&self, gvk: &Gvk, object: &Value) -> Result<Option<Arc<KindSchema>>, SchemaError> {
        let without_status = object.get("status").is_none();
        if self.user.contains_key(gvk) || self.cached(gvk, without_status).is_some() {
            return self.lookup(gvk, without_status);
        }
        let read_for_itself = {
            let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
            let entry = cache.entry(gvk.clone()).or_default();
            entry.read_for_one = entry.read_for_one.saturating_add(1);
            entry.read_for_one <= OBJECTS_READ_FOR_THEMSELVES
        };
        let found = if read_for_itself { embedded_tree(&self.folders, gvk) } else { None };
        let Some((path, tree)) = found else {
            return self.lookup(gvk, without_status);
        };
        match packed::read_kind_for(tree, object).map_err(|message| SchemaError::Embedded { path, message })? {
            Some(kind) => Ok(Some(Arc::new(kind))),
            None => self.lookup(gvk, without_status),
        }
    }

    /// The cached reading of `gvk` (`Some(None)`: it has no embedded schema).
    fn cached(&self, gvk: &Gvk, without_status: bool) -> Option<Option<Arc<KindSchema>>> {
        let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
        cache.get(gvk).and_then(|kind| kind.read[usize::from(without_status)].clone())
    }

    fn lookup(&self, gvk: &Gvk, without_status: bool) -> Result<Option<Arc<KindSchema>>, SchemaError> {
        if let Some(kind) = self.user.get(gvk) {
            return Ok(Some(kind.clone()));
        }
        if let Some(hit) = self.cached(gvk, without_status) {
            return Ok(hit);
        }
        let loaded = load_embedded(&self.folders, gvk, without_status)?;
        // Two threads may both parse a schema the first time; the first one stored wins.
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        let slot = &mut cache.entry(gvk.clone()).or_default().read[usize::from(without_status)];
        Ok(slot.get_or_insert(loaded).clone())
    }

    /// Every version in which `group`/`kind` has a schema (sorted), e.g. to say which versions a
    /// release serves when an object uses another one.
    pub fn versions_of(&self, group: &str, kind: &str) -> Vec<String> {
        let mut versions = BTreeSet::new();
        let file = format!("/{kind}.json");
        for folder in &self.folders {
            let prefix = format!("gvk/{folder}/{}/", group_dir(group));
            for path in embedded::paths_under(&prefix) {
                if let Some(version) = path[prefix.len()..].strip_suffix(&file).filter(|v| !v.contains('/')) {
                    versions.insert(version.to_string());
                }
            }
        }
        versions.extend(self.user.keys().filter(|g| g.group == group && g.kind == kind).map(|g| g.version.clone()));
        versions.into_iter().collect()
    }

    /// The versions the target serves of `group`/`kind` (sorted): those with a schema ([`Registry::versions_of`]) and
    /// those of a kind the target's CAPZ defines without a bundled schema. Empty: the kind is not the target's.
    pub fn owned_versions(&self, group: &str, kind: &str) -> Vec<String> {
        let mut versions: BTreeSet<String> = self.versions_of(group, kind).into_iter().collect();
        if let Some(served) = self.target.and_then(|target| target.capz_kind_without_schema(group, kind)) {
            versions.extend(served.iter().map(|v| v.to_string()));
        }
        versions.into_iter().collect()
    }

    /// Every version in which any kind of `group` has a schema (sorted): the versions of the group served.
    pub fn versions_of_group(&self, group: &str) -> Vec<String> {
        let mut versions = BTreeSet::new();
        for folder in &self.folders {
            let prefix = format!("gvk/{folder}/{}/", group_dir(group));
            for path in embedded::paths_under(&prefix) {
                if let Some((version, _)) = path[prefix.len()..].split_once('/') {
                    versions.insert(version.to_string());
                }
            }
        }
        versions.extend(self.user.keys().filter(|g| g.group == group).map(|g| g.version.clone()));
        versions.into_iter().collect()
    }

    /// Whether any schema of this API group is known.
    pub fn knows_group(&self, group: &str) -> bool {
        self.folders
            .iter()
            .any(|folder| embedded::paths_under(&format!("gvk/{folder}/{}/", group_dir(group))).next().is_some())
            || self.user.keys().any(|g| g.group == group)
    }
}

/// The path and tree of `gvk`'s schema in the first of the embedded `folders` that has it.
fn embedded_tree(folders: &[&str], gvk: &Gvk) -> Option<(String, &'static [u8])> {
    // Path components come from user input: refuse anything that could walk the tree.
    let safe = |s: &str| !s.is_empty() && !s.contains('/') && !s.contains('\\') && s != "." && s != "..";
    if !(safe(group_dir(&gvk.group)) && safe(&gvk.version) && safe(&gvk.kind)) {
        return None;
    }
    let relative = format!("{}/{}/{}.json", group_dir(&gvk.group), gvk.version, gvk.kind);
    folders.iter().find_map(|folder| {
        let path = format!("gvk/{folder}/{relative}");
        embedded::tree(&path).map(|tree| (path, tree))
    })
}

/// The schema of `gvk` in the first of the embedded `folders` that has it.
fn load_embedded(folders: &[&str], gvk: &Gvk, without_status: bool) -> Result<Option<Arc<KindSchema>>, SchemaError> {
    let Some((path, tree)) = embedded_tree(folders, gvk) else {
        return Ok(None);
    };
    let corrupt = |message: String| SchemaError::Embedded { path: path.clone(), message };
    if without_status && let Some(kind) = packed::read_kind_without_status(tree).map_err(corrupt)? {
        return Ok(Some(Arc::new(kind)));
    }
    Ok(Some(Arc::new(packed::read_kind(tree).map_err(corrupt)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_pointer::At;

    #[test]
    fn the_bundled_kubernetes_releases_are_the_ones_versions_names() {
        assert_eq!(KUBERNETES_VERSIONS, versions::KUBERNETES_VERSIONS);
    }

    #[test]
    fn the_first_object_of_a_kind_gets_the_schema_its_walk_reads() {
        let registry = Registry::embedded();
        let gvk = Gvk::new("containerservice.azure.com", "v1api20240901", "ManagedCluster");
        let object = serde_json::json!({
            "apiVersion": "containerservice.azure.com/v1api20240901",
            "kind": "ManagedCluster",
            "metadata": {"name": "demo"},
            "spec": {"location": "westeurope", "networkProfile": {"networkPlugin": "azure"}},
        });
        let first = registry.get_for_object(&gvk, &object).unwrap().unwrap();
        let spec = first.schema.object_at("/properties/spec/properties").unwrap();
        assert_eq!(spec.keys().collect::<Vec<_>>(), ["location", "networkProfile"]);
        assert!(first.schema.pointer("/properties/status").is_none());
        let network = first.schema.pointer("/properties/spec/properties/networkProfile/properties").unwrap();
        assert_eq!(network.as_object().unwrap().keys().collect::<Vec<_>>(), ["networkPlugin"]);
        // After the first few objects, the next object of the kind gets the whole schema (without status), shared.
        for _ in 1..OBJECTS_READ_FOR_THEMSELVES {
            let again = registry.get_for_object(&gvk, &object).unwrap().unwrap();
            assert_eq!(again.schema, first.schema);
        }
        let next = registry.get_for_object(&gvk, &object).unwrap().unwrap();
        assert_eq!(next.schema, registry.get_without_status(&gvk).unwrap().unwrap().schema);
        assert!(next.schema.pointer("/properties/spec/properties/agentPoolProfiles").is_some());
    }

    #[test]
    fn each_kubernetes_release_serves_its_own_kinds() {
        // MutatingAdmissionPolicy went GA (admissionregistration.k8s.io/v1) in Kubernetes 1.36; 1.35 serves it only
        // as v1beta1, off by default.
        let gvk = Gvk::new("admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy");
        let target = versions::default_target();
        let newest = Registry::for_target_and_kubernetes(target, "v1.36").unwrap();
        let older = Registry::for_target_and_kubernetes(target, "1.35.4").unwrap();
        assert_eq!(older.kubernetes_version(), "v1.35");
        assert!(newest.get(&gvk).unwrap().is_some());
        assert!(older.get(&gvk).unwrap().is_none());
        assert_eq!(older.other_kubernetes_releases_serving(&gvk), ["v1.36"]);
        assert!(newest.other_kubernetes_releases_serving(&gvk).is_empty());
        assert!(older.other_kubernetes_releases_serving(&Gvk::new("apps", "v1", "Nothing")).is_empty());
        assert!(older.get(&Gvk::new("apps", "v1", "Deployment")).unwrap().is_some());
        assert_eq!(Registry::for_target(target).kubernetes_version(), "v1.36");
        assert_eq!(
            Registry::for_target_and_kubernetes(target, "v1.34").unwrap_err().to_string(),
            Registry::for_target(target).with_kubernetes_version("v1.34").unwrap_err().to_string()
        );
    }

    #[test]
    fn every_embedded_set_is_looked_up() {
        let registry = Registry::embedded();
        // (group, version, kind, plural, namespaced, a built-in Go type)
        for (group, version, kind, plural, namespaced, typed) in [
            ("", "v1", "ConfigMap", "configmaps", true, true),
            ("", "v1", "Namespace", "namespaces", false, true),
            ("apps", "v1", "Deployment", "deployments", true, true),
            ("networking.k8s.io", "v1", "Ingress", "ingresses", true, true),
            ("kustomize.toolkit.fluxcd.io", "v1", "Kustomization", "kustomizations", true, false),
            ("helm.toolkit.fluxcd.io", "v2", "HelmRelease", "helmreleases", true, false),
            ("argoproj.io", "v1alpha1", "ApplicationSet", "applicationsets", true, false),
            ("cluster.x-k8s.io", "v1beta2", "Cluster", "clusters", true, false),
        ] {
            let gvk = Gvk::new(group, version, kind);
            let schema = registry.get(&gvk).unwrap().unwrap_or_else(|| panic!("{gvk}"));
            assert_eq!(
                (schema.plural.as_str(), schema.namespaced(), schema.typed),
                (plural, namespaced, typed),
                "{gvk}"
            );
        }
        assert_eq!(registry.versions_of("autoscaling", "HorizontalPodAutoscaler"), ["v1", "v2"]);
        assert!(registry.knows_group("apps") && registry.knows_group("source.toolkit.fluxcd.io"));
        assert!(registry.get(&Gvk::new("networking.k8s.io", "v1beta1", "ServiceCIDR")).unwrap().is_none());
        assert!(Registry::empty().get(&Gvk::new("", "v1", "ConfigMap")).unwrap().is_none());
    }

    #[test]
    fn the_kubernetes_version_is_chosen_among_the_bundled_ones() {
        let newest = Registry::kubernetes_versions()[0];
        assert_eq!(Registry::embedded().kubernetes_version(), newest);
        for spelling in [newest.to_string(), newest.trim_start_matches('v').to_string(), format!("{newest}.3")] {
            let registry = Registry::embedded().with_kubernetes_version(&spelling).unwrap();
            assert_eq!(registry.kubernetes_version(), newest, "{spelling}");
            assert!(registry.get(&Gvk::new("", "v1", "Secret")).unwrap().is_some());
        }
        let err = Registry::embedded().with_kubernetes_version("v1.2").unwrap_err().to_string();
        assert!(err.contains("v1.2") && err.contains(newest), "{err}");
        assert!(Registry::embedded().with_kubernetes_version(&format!("{newest}0")).is_err());
    }

    /// Every `*.json` file below `dir`, relative to `root` with `/`.
    fn json_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                json_files(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                let relative = path.strip_prefix(root).unwrap();
                out.push(relative.components().map(|c| c.as_os_str().to_str().unwrap()).collect::<Vec<_>>().join("/"));
            }
        }
    }

    /// The same `Value`s, keys in the same order.
    fn assert_same_kind(decoded: &KindSchema, expected: &KindSchema, path: &str) {
        assert_eq!(decoded, expected, "{path}");
        let text = |kind: &KindSchema| serde_json::to_string(kind).unwrap();
        assert_eq!(text(decoded), text(expected), "{path}: order of keys");
    }

    #[test]
    fn every_embedded_tree_decodes_to_exactly_what_the_json_reader_gives() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
        let mut on_disk = Vec::new();
        json_files(&root, &root.join("gvk"), &mut on_disk);
        on_disk.sort();
        let embedded: Vec<&str> = embedded::sizes().map(|(path, _)| path).collect();
        assert_eq!(embedded, on_disk);
        assert!(embedded.len() >= 204, "{}", embedded.len());
        let (mut whole, mut without_status, mut status_with_default) = (0, 0, 0);
        for (path, size) in embedded::sizes() {
            let json = std::fs::read(root.join(path)).unwrap();
            let expected: KindSchema = serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
            let tree = embedded::tree(path).unwrap();
            assert!((size as usize) < json.len() / 2, "{path}: a tree of {size} bytes for {} of JSON", json.len());
            assert!(path.ends_with(&format!("/{}/{}.json", expected.version, expected.kind)), "{path}");
            assert_same_kind(&packed::read_kind(tree).unwrap(), &expected, path);
            whole += 1;
            // Without status: what the JSON reader gives with the status schema emptied.
            let mut lean = expected.clone();
            let status = lean.schema.pointer_mut("/properties/status");
            let status_default = status.as_ref().map(|status| status.get("default").is_some());
            if let Some(status) = status {
                *status = Value::Object(serde_json::Map::new());
                lean.status_omitted = true;
            }
            match (packed::read_kind_without_status(tree).unwrap(), status_default) {
                (None, Some(true)) => status_with_default += 1,
                (Some(decoded), None | Some(false)) => {
                    assert_same_kind(&decoded, &lean, path);
                    without_status += usize::from(decoded.status_omitted);
                }
                (decoded, _) => panic!("{path}: {:?} without status", decoded.map(|k| k.status_omitted)),
            }
        }
        assert_eq!(whole, on_disk.len());
        assert!(without_status > 100, "{without_status}");
        assert!(embedded::tree("gvk/nope/v1/Nope.json").is_none());
        // Flux's kinds default their status (`observedGeneration: -1`): those are read whole.
        assert_eq!(status_with_default, 11);
    }

    #[test]
    fn schemas_without_status_equal_the_whole_schema_minus_status() {
        let registry = Registry::embedded();
        let mut checked = 0;
        for gvk in [
            Gvk::new("cluster.x-k8s.io", "v1beta1", "Cluster"),
            Gvk::new("containerservice.azure.com", "v1api20240901", "ManagedCluster"),
            Gvk::new("infrastructure.cluster.x-k8s.io", "v1beta1", "AzureASOManagedControlPlane"),
            Gvk::new("", "v1", "Secret"),
        ] {
            let full = registry.get(&gvk).unwrap().unwrap();
            let lean = registry.get_without_status(&gvk).unwrap().unwrap();
            let mut expected = full.schema.clone();
            if let Some(status) = expected.pointer_mut("/properties/status") {
                *status = Value::Object(serde_json::Map::new());
                checked += 1;
                assert!(lean.status_omitted, "{gvk}");
            } else {
                assert!(!lean.status_omitted, "{gvk}");
            }
            assert!(!full.status_omitted);
            assert_eq!(lean.schema, expected, "{gvk}");
            assert_eq!(
                (lean.plural.as_str(), lean.status_subresource, lean.cel),
                (full.plural.as_str(), full.status_subresource, full.cel)
            );
        }
        assert_eq!(checked, 3, "three of the kinds have a status schema");
    }

    #[test]
    fn a_target_serves_the_built_in_kinds_of_the_kubernetes_release_picked() {
        let target = crate::versions::default_target();
        let newest = Registry::kubernetes_versions()[0];
        let default = Registry::for_target(target);
        assert_eq!(default.kubernetes_version(), newest);
        let picked =
            Registry::for_target_and_kubernetes(target, &format!("{}.3", newest.trim_start_matches('v'))).unwrap();
        assert_eq!(picked.kubernetes_version(), newest);
        let deployment = Gvk::new("apps", "v1", "Deployment");
        assert!(picked.get(&deployment).unwrap().is_some_and(|k| k.typed));
        assert!(picked.is_builtin_group("apps") && !picked.is_builtin_group("cluster.x-k8s.io"));
        let err = Registry::for_target_and_kubernetes(target, "v1.20").unwrap_err().to_string();
        assert!(err.contains("v1.20") && err.contains(newest), "{err}");
        // Without a target nothing is embedded.
        assert!(Registry::empty().get(&deployment).unwrap().is_none());
    }
}
