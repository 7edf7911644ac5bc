//! The importer: the inputs of every schema release ([`super::releases`]: upstream CustomResourceDefinitions
//! committed in `upstream-crds/`; Kubernetes' OpenAPI v3 documents and the Flux and Argo CD CRDs that
//! `tools/schema-inputs/fetch.sh` fetches) -> `schemas/` (installable CRDs + one JSON schema per served
//! group/version/kind of each release).
//!
//! Output layout (deterministic, every file rewritten on each run; `<folder>` names the releases holding the
//! file byte for byte, see [`super::releases`]):
//! - `crds/<folder>/<group>_<plural>.yaml`: the CRD trimmed so a plain API server accepts it (string
//!   descriptions stripped from schemas, `conversion: None`, cert-manager CA injection dropped,
//!   only served versions kept, `status` dropped);
//! - `gvk/<folder>/<group>/<version>/<Kind>.json` (`core` for the core group): a [`KindSchema`] (the
//!   built-in kinds of `kubernetes-<version>` from the OpenAPI documents, [`super::openapi`]);
//! - `README.md`: provenance, targets, sha256 of every input file, the kinds and versions of each release.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::openapi;
use super::releases::{self, Release, Source};
use super::{KindSchema, SchemaError, for_each_schema_mut};
use crate::json_pointer::At;
use crate::manifest::{self, Document};

/// Every file of a `schemas/` tree, keyed by path relative to it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportOutput {
    pub files: BTreeMap<PathBuf, Vec<u8>>,
}

/// The CRDs of every YAML/JSON file below `dir` (sorted by path), with their locations.
fn crds_below(dir: &Path) -> Result<Vec<(String, Value)>, SchemaError> {
    let mut crds = Vec::new();
    for file in manifest::manifest_files(dir)? {
        let text = std::fs::read_to_string(&file).map_err(|source| SchemaError::Read { path: file.clone(), source })?;
        for document in manifest::parse_documents(&text, &file.display().to_string())? {
            if is_crd(&document) {
                crds.push((document.origin.to_string(), document.value));
            }
        }
    }
    if crds.is_empty() {
        return Err(SchemaError::NoCrds { path: dir.to_path_buf() });
    }
    Ok(crds)
}

/// Where the importer reads its inputs.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The committed `upstream-crds/` (CAPI, CAPZ, ASO).
    pub committed: &'a Path,
    /// The directory `tools/schema-inputs/fetch.sh` filled from the Go module proxy (`kubernetes/<version>/`:
    /// Kubernetes' OpenAPI v3 documents; `gitops/`: the Flux and Argo CD CRDs).
    pub fetched: &'a Path,
}

/// The CRDs of one schema release (none for a release of built-in kinds).
fn release_crds(inputs: Inputs, release: &Release) -> Result<Vec<(String, Value)>, SchemaError> {
    let from = inputs.committed;
    Ok(match &release.source {
        Source::FetchedOpenApi { .. } => Vec::new(),
        Source::FetchedCrds { dir } => crds_below(&inputs.fetched.join(dir))?,
        Source::Crds { dir, patterns } => {
            let crds = crds_below(&from.join(dir))?;
            if patterns.is_empty() {
                crds
            } else {
                let pattern = releases::read_patterns(from, patterns)?;
                crds.into_iter().filter(|(_, crd)| releases::in_pattern(crd, &pattern)).collect()
            }
        }
        Source::Derived(derivation) => {
            let pattern = releases::read_patterns(from, derivation.patterns)?;
            let values = |crds: Vec<(String, Value)>| crds.into_iter().map(|(_, crd)| crd).collect::<Vec<_>>();
            let base = values(crds_below(&from.join(derivation.base))?);
            let added = values(crds_below(&from.join(derivation.added_from))?);
            let location = format!("{} (derived)", release.name);
            releases::derive(derivation, base, added, &pattern).into_iter().map(|crd| (location.clone(), crd)).collect()
        }
    })
}

/// Imports the schema releases ([`releases::RELEASES`]) from `inputs`: per release its installable CRDs and one
/// schema per served GVK, each file written once into the folder of the releases that hold it byte for byte
/// (`gvk/<folder>/<group>/<version>/<Kind>.json`, `crds/<folder>/<file>`).
pub fn import(inputs: Inputs) -> Result<ImportOutput, SchemaError> {
    let mut hashes = Vec::new();
    for file in all_files(inputs.committed)? {
        let bytes = std::fs::read(&file).map_err(|source| SchemaError::Read { path: file.clone(), source })?;
        let relative = file.strip_prefix(inputs.committed).unwrap_or(&file);
        hashes.push((Path::new("upstream-crds").join(relative), hex(&Sha256::digest(&bytes))));
    }
    let mut fetched_sources = Vec::new();
    for release in releases::RELEASES {
        let (Source::FetchedCrds { dir } | Source::FetchedOpenApi { dir }) = release.source else { continue };
        let root = inputs.fetched.join(dir);
        for file in all_files(&root)? {
            let bytes = std::fs::read(&file).map_err(|source| SchemaError::Read { path: file.clone(), source })?;
            let relative = Path::new("(fetched)").join(dir).join(file.strip_prefix(&root).unwrap_or(&file));
            if file.file_name().is_some_and(|n| n == "SOURCES") {
                fetched_sources.push((release.name, String::from_utf8_lossy(&bytes).trim().to_string()));
            }
            hashes.push((relative, hex(&Sha256::digest(&bytes))));
        }
    }
    // Relative path inside a release -> (bytes -> releases holding exactly those bytes).
    let mut files: BTreeMap<PathBuf, BTreeMap<Vec<u8>, Vec<&'static str>>> = BTreeMap::new();
    let mut kinds_by_release: Vec<(&'static str, Vec<KindSchema>)> = Vec::new();
    for release in releases::RELEASES {
        let mut kinds = Vec::new();
        for (location, crd) in release_crds(inputs, release)? {
            let installable = installable_crd(&crd, &location)?;
            let name = crd_file_name(&installable, &location)?;
            let yaml = manifest::to_yaml(&installable).into_bytes();
            files.entry(PathBuf::from("crds").join(name)).or_default().entry(yaml).or_default().push(release.name);
            kinds.extend(kind_schemas_from_crd(&installable, &location)?);
        }
        if let Source::FetchedOpenApi { dir } = release.source {
            kinds.extend(openapi::kind_schemas_from_openapi_dir(&inputs.fetched.join(dir))?.0);
        }
        for kind in &kinds {
            let path = gvk_relative_path(&kind.group, &kind.version, &kind.kind);
            files
                .entry(PathBuf::from("gvk").join(path))
                .or_default()
                .entry(kind_file_bytes(kind))
                .or_default()
                .push(release.name);
        }
        kinds_by_release.push((release.name, kinds));
    }
    let mut out = ImportOutput::default();
    for (path, variants) in files {
        let (top, rest) = (path.iter().next().unwrap_or_default(), path.iter().skip(1).collect::<PathBuf>());
        for (bytes, holders) in variants {
            let folder = releases::folder_name(&holders).ok_or_else(|| SchemaError::InvalidCrd {
                location: path.display().to_string(),
                message: format!("held by releases of different projects: {}", holders.join(", ")),
            })?;
            out.files.insert(Path::new(top).join(folder).join(&rest), bytes);
        }
    }
    let readme = readme(&hashes, &fetched_sources, &kinds_by_release, &out);
    out.files.insert(PathBuf::from("README.md"), readme.into_bytes());
    Ok(out)
}

/// Every file below `dir`, sorted.
fn all_files(dir: &Path) -> Result<Vec<PathBuf>, SchemaError> {
    let tree = read_tree(dir)?;
    Ok(tree.files.into_keys().map(|relative| dir.join(relative)).collect())
}

/// Writes `output` as the directory `dir`, replacing it whole: a new tree is built next to it and
/// swapped in, so an error never leaves a half-written `schemas/`.
pub fn write_output(output: &ImportOutput, dir: &Path) -> Result<(), SchemaError> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SchemaError::Write { path, source }
    };
    std::fs::create_dir_all(&parent).map_err(write_err(&parent))?;
    let staging = tempfile::Builder::new().prefix(".schemas-new-").tempdir_in(&parent).map_err(write_err(&parent))?;
    for (relative, bytes) in &output.files {
        let path = staging.path().join(relative);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(write_err(p))?;
        }
        std::fs::write(&path, bytes).map_err(write_err(&path))?;
    }
    let staged = staging.keep();
    if dir.exists() {
        let old = parent.join(format!(".schemas-old-{}", std::process::id()));
        std::fs::rename(dir, &old).map_err(write_err(dir))?;
        std::fs::rename(&staged, dir).map_err(write_err(dir))?;
        std::fs::remove_dir_all(&old).map_err(write_err(&old))?;
    } else {
        std::fs::rename(&staged, dir).map_err(write_err(dir))?;
    }
    Ok(())
}

/// Reads a `schemas/` tree back into an [`ImportOutput`] (to compare with a fresh import).
pub fn read_tree(dir: &Path) -> Result<ImportOutput, SchemaError> {
    fn walk(root: &Path, dir: &Path, out: &mut ImportOutput) -> Result<(), SchemaError> {
        let read_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| SchemaError::Read { path, source }
        };
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).map_err(read_err(dir))?.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out)?;
            } else {
                let bytes = std::fs::read(&path).map_err(read_err(&path))?;
                out.files.insert(path.strip_prefix(root).unwrap_or(&path).to_path_buf(), bytes);
            }
        }
        Ok(())
    }
    let mut out = ImportOutput::default();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

fn is_crd(document: &Document) -> bool {
    document.kind() == "CustomResourceDefinition" && document.group() == "apiextensions.k8s.io"
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Path of the schema file of one GVK inside a release folder.
fn gvk_relative_path(group: &str, version: &str, kind: &str) -> PathBuf {
    let group = if group.is_empty() { "core" } else { group };
    PathBuf::from(group).join(version).join(format!("{kind}.json"))
}

/// Relative path (below `schemas/`) of the schema file of one GVK in a release folder (`aso-v2.18+v2.19`).
pub fn gvk_file_path(folder: &str, group: &str, version: &str, kind: &str) -> PathBuf {
    PathBuf::from("gvk").join(folder).join(gvk_relative_path(group, version, kind))
}

pub(crate) fn kind_file_bytes(kind: &KindSchema) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(kind).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn crd_file_name(crd: &Value, location: &str) -> Result<String, SchemaError> {
    let group = required_str(crd, "/spec/group", location)?;
    let plural = required_str(crd, "/spec/names/plural", location)?;
    Ok(format!("{group}_{plural}.yaml"))
}

/// The non-empty string at `pointer` of a CRD, or the error naming the missing field.
fn required_str<'a>(value: &'a Value, pointer: &str, location: &str) -> Result<&'a str, SchemaError> {
    value.str_at(pointer).filter(|s| !s.is_empty()).ok_or_else(|| SchemaError::InvalidCrd {
        location: location.to_string(),
        message: format!("`{}` is missing", pointer.trim_start_matches('/').replace('/', ".")),
    })
}

/// Removes the `description` of every schema node (never a property that is named
/// `description`), in place.
pub fn strip_descriptions(schema: &mut Value) {
    for_each_schema_mut(schema, &mut |node| {
        if node.get("description").is_some_and(Value::is_string) {
            node.remove("description");
        }
    });
}

/// The CRD trimmed to what an API server needs to serve it without webhooks, keeping every
/// served version with its full schema and `x-kubernetes-*` extensions.
pub fn installable_crd(crd: &Value, location: &str) -> Result<Value, SchemaError> {
    let invalid =
        |message: &str| SchemaError::InvalidCrd { location: location.to_string(), message: message.to_string() };
    let mut crd = crd.clone();
    let object = crd.as_object_mut().ok_or_else(|| invalid("not a mapping"))?;
    object.remove("status");
    if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
        for key in ["creationTimestamp", "resourceVersion", "uid", "generation", "managedFields"] {
            metadata.remove(key);
        }
        if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
            annotations.remove("cert-manager.io/inject-ca-from");
            annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
    }
    let spec = object.get_mut("spec").and_then(Value::as_object_mut).ok_or_else(|| invalid("`spec` is missing"))?;
    spec.insert("conversion".into(), json!({"strategy": "None"}));
    let versions =
        spec.get_mut("versions").and_then(Value::as_array_mut).ok_or_else(|| invalid("`spec.versions` is missing"))?;
    versions.retain(|v| {
        v.get("served").and_then(Value::as_bool).unwrap_or(false)
            || v.get("storage").and_then(Value::as_bool).unwrap_or(false)
    });
    for version in versions.iter_mut() {
        if let Some(schema) = version.pointer_mut("/schema/openAPIV3Schema") {
            strip_descriptions(schema);
        }
    }
    if versions.is_empty() {
        return Err(invalid("no served version"));
    }
    crd_file_name(&crd, location)?;
    Ok(crd)
}

/// One [`KindSchema`] per served version of a CRD (descriptions stripped).
pub fn kind_schemas_from_crd(crd: &Value, location: &str) -> Result<Vec<KindSchema>, SchemaError> {
    let group = required_str(crd, "/spec/group", location)?.to_string();
    let kind = required_str(crd, "/spec/names/kind", location)?.to_string();
    let plural = required_str(crd, "/spec/names/plural", location)?.to_string();
    let scope = crd.str_at("/spec/scope").unwrap_or("Namespaced").to_string();
    let versions = crd.array_at("/spec/versions").ok_or_else(|| SchemaError::InvalidCrd {
        location: location.to_string(),
        message: "`spec.versions` is missing".into(),
    })?;
    // apiextensions.k8s.io/v1beta1 CRDs could carry one top-level schema for all versions.
    let shared_schema = crd.pointer("/spec/validation/openAPIV3Schema");
    let mut out = Vec::new();
    for version in versions {
        if !version.get("served").and_then(Value::as_bool).unwrap_or(false) {
            continue;
        }
        let name = version.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            return Err(SchemaError::InvalidCrd {
                location: location.to_string(),
                message: "a version has no name".into(),
            });
        }
        let mut schema = version
            .pointer("/schema/openAPIV3Schema")
            .or(shared_schema)
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
        strip_descriptions(&mut schema);
        let mut cel = false;
        for_each_schema_mut(&mut schema, &mut |node| cel |= node.contains_key("x-kubernetes-validations"));
        let deprecation_warning = if version.get("deprecated").and_then(Value::as_bool).unwrap_or(false) {
            Some(
                version
                    .get("deprecationWarning")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{group}/{name} {kind} is deprecated")),
            )
        } else {
            None
        };
        out.push(KindSchema {
            group: group.clone(),
            version: name,
            kind: kind.clone(),
            plural: plural.clone(),
            scope: scope.clone(),
            status_subresource: version.pointer("/subresources/status").is_some(),
            deprecation_warning,
            cel,
            typed: false,
            status_omitted: false,
            defaults: Default::default(),
            schema,
        });
    }
    Ok(out)
}

fn readme(
    inputs: &[(PathBuf, String)],
    fetched_sources: &[(&str, String)],
    kinds_by_release: &[(&str, Vec<KindSchema>)],
    out: &ImportOutput,
) -> String {
    let mut text = String::from(
        "# schemas/ (generated: do not edit)\n\n\
         Written by `kubectl-capz import-schemas --from upstream-crds --fetched target/schema-inputs --out schemas` \
         after `tools/schema-inputs/fetch.sh`; `tests/tooling/importer.rs` regenerates it and fails if anything \
         here differs. Inputs: the committed `upstream-crds/` (CAPI, CAPZ, ASO; Go module and path of each in \
         `upstream-crds/SOURCES.md`, rewritten by `tools/target-crds/gen.sh`) and what `tools/schema-inputs/fetch.sh` \
         fetches from the Go module proxy into a cache (`target/schema-inputs`: Kubernetes' OpenAPI v3 documents, \
         the Flux and Argo CD CRDs; see `tools/schema-inputs/README.md`).\n\n\
         A schema release is what a management cluster serves of one upstream release (`src/schema/releases.rs`); \
         a target (`kubectl capz version`, `src/versions.rs`) serves exactly the kinds and versions of its releases \
         plus the built-in kinds of one Kubernetes release (`kubernetes-<version>`, default the newest bundled). \
         Each file is written once, into the folder of the releases that hold it byte for byte: `aso-v2.18+v2.19` \
         holds what ASO v2.18 and v2.19 share.\n\n\
         - `crds/<folder>/<group>_<plural>.yaml`: the CRDs made installable into a plain API server (string \
         `description`s of schema nodes removed, `conversion: None`, cert-manager CA injection dropped, unserved \
         versions dropped). Every served version and every `x-kubernetes-*` extension is kept.\n\
         - `gvk/<folder>/<group>/<version>/<Kind>.json` (`core` = the core group): one schema per served version, \
         embedded in the binary as pre-parsed trees (build.rs) and decoded and compiled on first use.\n\
         - `gvk/kubernetes-<version>/`: one schema per kind kube-apiserver serves by default (alpha and beta group \
         versions are off by default), from the OpenAPI v3 documents: every `$ref` inlined (a recursive reference \
         becomes a free-form value), descriptions and defaults dropped, `x-kubernetes-*` kept, `int32` fields \
         bounded, `IntOrString` as `x-kubernetes-int-or-string`, `Quantity` a number or a string of the quantity \
         syntax.\n\n\
         ASO v2.19.0 (pinned by CAPZ v1.27.0) is refused by the Go module proxy \
         (`upstream-crds/aso-v2.19-refused.txt`); release `aso-v2.19` is ",
    );
    text.push_str(crate::versions::ASO_V2_19_NOTE);
    text.push_str(".\n\nTarget v1.28 is provisional: ");
    text.push_str(crate::versions::CAPZ_V1_28_PROVISIONAL);
    text.push_str(
        ". The proxy's refusal of CAPZ v1.28.0 and main is in `upstream-crds/capz-v1.28-refused.txt`; release \
         `capz-v1.28` is imported from CAPZ v1.27.0's CRDs, `aso-v2.20` holds ASO v2.20.0's CRDs of the kinds of \
         CAPZ v1.27.0's crd-pattern, and `capi-v1.14` serves for CAPI v1.14.2, whose CRDs equal v1.14.0's \
         (`upstream-crds/SOURCES.md`)",
    );
    let kubernetes: Vec<String> = releases::RELEASES
        .iter()
        .filter(|r| r.name.starts_with(releases::KUBERNETES_FAMILY))
        .map(|r| r.name.to_string())
        .collect();
    text.push_str(
        ".\n\n## Targets\n\n| target | CAPZ | CAPI | ASO | releases | Kubernetes (one of) | Cluster API Operator |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for target in crate::versions::TARGETS {
        text.push_str(&format!(
            "| {} | {} | {} | {}{} | {} | {} | {} |\n",
            target.labelled_name(),
            target.capz,
            target.capi,
            target.aso,
            if target.aso_note.is_some() { " (derived)" } else { "" },
            target.schema_sets.join(", "),
            kubernetes.join(", "),
            target.capi_operator
        ));
    }
    if !fetched_sources.is_empty() {
        text.push_str("\n## Fetched sources\n");
        for (release, sources) in fetched_sources {
            text.push_str(&format!("\n{release}:\n\n{sources}\n"));
        }
    }
    text.push_str("\n## Folders\n\n| folder | files |\n|---|---|\n");
    let mut folders: BTreeMap<String, usize> = BTreeMap::new();
    for path in out.files.keys() {
        let mut parts = path.iter();
        if let (Some(top), Some(folder)) = (parts.next(), parts.next()) {
            *folders.entry(format!("{}/{}", top.to_string_lossy(), folder.to_string_lossy())).or_default() += 1;
        }
    }
    for (folder, count) in folders {
        text.push_str(&format!("| {folder} | {count} |\n"));
    }
    text.push_str("\n## Inputs\n\n| file | sha256 |\n|---|---|\n");
    for (path, sha) in inputs {
        text.push_str(&format!("| {} | `{sha}` |\n", path.display()));
    }
    for (release, kinds) in kinds_by_release {
        text.push_str(&format!("\n## Release {release}\n\n| group | kind | served versions |\n|---|---|---|\n"));
        let mut by_kind: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
        for kind in kinds {
            by_kind.entry((kind.group.as_str(), kind.kind.as_str())).or_default().push(kind.version.as_str());
        }
        for ((group, kind), versions) in by_kind {
            let group = if group.is_empty() { "(core)" } else { group };
            text.push_str(&format!("| {group} | {kind} | {} |\n", versions.join(", ")));
        }
    }
    text
}
