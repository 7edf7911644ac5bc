//! The schema registry: per-GVK schemas embedded from `schemas/gvk`, loaded and parsed on first
//! use only, plus CRDs the user adds (`--crds DIR`, or fetched from a cluster), which win.
//! Shared by the threads of one run (`Sync`): every schema is parsed once per process.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use include_dir::{Dir, include_dir};
use serde_json::Value;

use super::{Gvk, KindSchema, SchemaError, import};
use crate::manifest;

static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/schemas/gvk");

/// Where schemas come from; lookups are cached, so each GVK is parsed at most once.
#[derive(Default)]
pub struct Registry {
    user: BTreeMap<Gvk, Arc<KindSchema>>,
    no_embedded: bool,
    cache: RwLock<HashMap<Gvk, Option<Arc<KindSchema>>>>,
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
    /// The schemas built into the binary (CAPI, CAPZ, ASO, core v1).
    pub fn embedded() -> Self {
        Registry::default()
    }

    /// Only user-provided schemas (for tests of the engine itself).
    pub fn empty() -> Self {
        Registry { no_embedded: true, ..Registry::default() }
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
            self.cache.get_mut().unwrap_or_else(PoisonError::into_inner).remove(&gvk);
            self.user.insert(gvk, Arc::new(kind));
        }
        Ok(count)
    }

    /// Adds a schema directly.
    pub fn add_kind(&mut self, kind: KindSchema) {
        let gvk = kind.gvk();
        self.cache.get_mut().unwrap_or_else(PoisonError::into_inner).remove(&gvk);
        self.user.insert(gvk, Arc::new(kind));
    }

    /// The schema of `gvk`, if any source has it.
    pub fn get(&self, gvk: &Gvk) -> Result<Option<Arc<KindSchema>>, SchemaError> {
        if let Some(kind) = self.user.get(gvk) {
            return Ok(Some(kind.clone()));
        }
        if let Some(hit) = self.cache.read().unwrap_or_else(PoisonError::into_inner).get(gvk) {
            return Ok(hit.clone());
        }
        let loaded = if self.no_embedded { None } else { load_embedded(gvk)? };
        // Two threads may both parse a schema the first time; the first one stored wins.
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        Ok(cache.entry(gvk.clone()).or_insert(loaded).clone())
    }

    /// Every version in which `group`/`kind` has a schema (sorted), e.g. to say which versions a
    /// release serves when an object uses another one.
    pub fn versions_of(&self, group: &str, kind: &str) -> Vec<String> {
        let mut versions = BTreeSet::new();
        if !self.no_embedded
            && let Some(dir) = EMBEDDED.get_dir(group_dir(group))
        {
            for version_dir in dir.dirs() {
                let version = version_dir.path().file_name().and_then(|n| n.to_str()).unwrap_or_default();
                let file = format!("{}/{version}/{kind}.json", group_dir(group));
                if EMBEDDED.get_file(&file).is_some() {
                    versions.insert(version.to_string());
                }
            }
        }
        versions.extend(self.user.keys().filter(|g| g.group == group && g.kind == kind).map(|g| g.version.clone()));
        versions.into_iter().collect()
    }

    /// Whether any schema of this API group is known.
    pub fn knows_group(&self, group: &str) -> bool {
        (!self.no_embedded && EMBEDDED.get_dir(group_dir(group)).is_some())
            || self.user.keys().any(|g| g.group == group)
    }
}

fn load_embedded(gvk: &Gvk) -> Result<Option<Arc<KindSchema>>, SchemaError> {
    // Path components come from user input: refuse anything that could walk the tree.
    let safe = |s: &str| !s.is_empty() && !s.contains('/') && !s.contains('\\') && s != "." && s != "..";
    if !(safe(group_dir(&gvk.group)) && safe(&gvk.version) && safe(&gvk.kind)) {
        return Ok(None);
    }
    let path = format!("{}/{}/{}.json", group_dir(&gvk.group), gvk.version, gvk.kind);
    let Some(file) = EMBEDDED.get_file(&path) else { return Ok(None) };
    let kind: KindSchema = serde_json::from_slice(file.contents())
        .map_err(|err| SchemaError::Embedded { path: path.clone(), message: err.to_string() })?;
    Ok(Some(Arc::new(kind)))
}
