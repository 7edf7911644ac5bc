//! The importer: upstream CustomResourceDefinitions -> `schemas/` (installable CRDs + one JSON
//! schema per served group/version/kind).
//!
//! Output layout (deterministic, every file rewritten on each run):
//! - `crds/<group>_<plural>.yaml`: the CRD trimmed so a plain API server accepts it (string
//!   descriptions stripped from schemas, `conversion: None`, cert-manager CA injection dropped,
//!   only served versions kept, `status` dropped);
//! - `gvk/<group>/<version>/<Kind>.json` (`core` for the core group): a [`KindSchema`];
//! - `README.md`: provenance, sha256 of every input file, the list of kinds and versions.
//!
//! `schemas/` holds nested sets imported on their own ([`NESTED_SETS`]): `gitops/` (Flux and Argo CD
//! CRDs, [`import_gitops_dir`]) and `kubernetes/<version>/` (built-in kinds, [`super::openapi`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{KindSchema, SchemaError, for_each_schema_mut};
use crate::manifest::{self, Document};

/// Sub-directories of `schemas/` imported separately: writing the main set keeps them.
pub const NESTED_SETS: &[&str] = &["gitops", "kubernetes"];

/// API groups of the Flux and Argo CD CRDs: bundled in the `gitops/` set (from their own modules),
/// never in the main set.
pub const GITOPS_GROUPS: &[&str] = &[
    "argoproj.io",
    "helm.toolkit.fluxcd.io",
    "image.toolkit.fluxcd.io",
    "kustomize.toolkit.fluxcd.io",
    "notification.toolkit.fluxcd.io",
    "source.toolkit.fluxcd.io",
];

/// Every file of a `schemas/` tree, keyed by path relative to it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportOutput {
    pub files: BTreeMap<PathBuf, Vec<u8>>,
}

fn is_gitops_group(group: &str) -> bool {
    GITOPS_GROUPS.contains(&group)
}

/// Imports every CRD found below `from` (recursively, `*.yaml|*.yml|*.json`) except Flux and Argo
/// CD's ([`GITOPS_GROUPS`]): the main set (CAPI, CAPZ, ASO).
pub fn import_dir(from: &Path) -> Result<ImportOutput, SchemaError> {
    import_crds(from, |group| !is_gitops_group(group), MAIN_README)
}

/// Imports the Flux and Argo CD CRDs found below `from`: the `gitops/` set.
pub fn import_gitops_dir(from: &Path) -> Result<ImportOutput, SchemaError> {
    import_crds(from, is_gitops_group, GITOPS_README)
}

fn import_crds(from: &Path, keep: fn(&str) -> bool, heading: &str) -> Result<ImportOutput, SchemaError> {
    let files = manifest::manifest_files(from)?;
    let mut crds: Vec<(PathBuf, Document)> = Vec::new();
    let mut inputs = Vec::new();
    let wanted = |d: &Document| is_crd(d) && keep(d.value.pointer("/spec/group").and_then(Value::as_str).unwrap_or(""));
    for file in &files {
        let bytes = std::fs::read(file).map_err(|source| SchemaError::Read { path: file.clone(), source })?;
        let relative = file.strip_prefix(from).unwrap_or(file).to_path_buf();
        let text = String::from_utf8_lossy(&bytes);
        let documents = manifest::parse_documents(&text, &file.display().to_string())?;
        let count = documents.iter().filter(|d| wanted(d)).count();
        if count > 0 {
            inputs.push((relative.clone(), hex(&Sha256::digest(&bytes)), count));
        }
        crds.extend(documents.into_iter().filter(|d| wanted(d)).map(|d| (relative.clone(), d)));
    }
    if crds.is_empty() {
        return Err(SchemaError::NoCrds { path: from.to_path_buf() });
    }
    let mut out = ImportOutput::default();
    let mut kinds: Vec<KindSchema> = Vec::new();
    for (_, crd) in &crds {
        let location = crd.origin.to_string();
        let installable = installable_crd(&crd.value, &location)?;
        let name = crd_file_name(&installable, &location)?;
        out.files.insert(PathBuf::from("crds").join(name), manifest::to_yaml(&installable).into_bytes());
        kinds.extend(kind_schemas_from_crd(&installable, &location)?);
    }
    for kind in &kinds {
        out.files.insert(gvk_file_path(&kind.group, &kind.version, &kind.kind), kind_file_bytes(kind));
    }
    let sources = std::fs::read_to_string(from.join("SOURCES")).unwrap_or_default();
    out.files.insert(PathBuf::from("README.md"), readme(heading, sources.trim(), &inputs, &kinds).into_bytes());
    Ok(out)
}

/// Writes `output` as the directory `dir`, replacing it whole: a new tree is built next to it and
/// swapped in, so an error never leaves a half-written `schemas/`. The nested sets ([`NESTED_SETS`])
/// of the old tree that `output` does not write are carried over.
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
    for nested in NESTED_SETS {
        let (old, new) = (dir.join(nested), staged.join(nested));
        if old.is_dir() && !new.exists() {
            std::fs::rename(&old, &new).map_err(write_err(&old))?;
        }
    }
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

/// Relative path of the registry file of one GVK.
pub fn gvk_file_path(group: &str, version: &str, kind: &str) -> PathBuf {
    let group = if group.is_empty() { "core" } else { group };
    PathBuf::from("gvk").join(group).join(version).join(format!("{kind}.json"))
}

pub(crate) fn kind_file_bytes(kind: &KindSchema) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(kind).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn crd_file_name(crd: &Value, location: &str) -> Result<String, SchemaError> {
    let group = str_at(crd, "/spec/group", location)?;
    let plural = str_at(crd, "/spec/names/plural", location)?;
    Ok(format!("{group}_{plural}.yaml"))
}

fn str_at<'a>(value: &'a Value, pointer: &str, location: &str) -> Result<&'a str, SchemaError> {
    value.pointer(pointer).and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or_else(|| SchemaError::InvalidCrd {
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
    let group = str_at(crd, "/spec/group", location)?.to_string();
    let kind = str_at(crd, "/spec/names/kind", location)?.to_string();
    let plural = str_at(crd, "/spec/names/plural", location)?.to_string();
    let scope = crd.pointer("/spec/scope").and_then(Value::as_str).unwrap_or("Namespaced").to_string();
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).ok_or_else(|| SchemaError::InvalidCrd {
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
            schema,
        });
    }
    Ok(out)
}

const MAIN_README: &str = "# schemas/ (generated: do not edit)\n\n\
     Written by `kubectl-capz import-schemas --from <upstream crds> --out schemas`; \
     `tests/importer.rs` regenerates it and fails if anything here differs.\n\n\
     - `crds/`: the upstream CRDs made installable into a plain API server (string `description`s \
     of schema nodes removed, `conversion: None`, cert-manager CA injection dropped, unserved \
     versions dropped). Every served version and every `x-kubernetes-*` extension is kept.\n\
     - `gvk/<group>/<version>/<Kind>.json` (`core` = the core group): one schema per served \
     version, embedded in the binary (compressed) and compiled on first use.\n\
     - `gitops/`: the Flux and Argo CD CRDs, imported the same way from their own modules \
     (`gitops/README.md`).\n\
     - `kubernetes/<version>/`: the built-in kinds of a Kubernetes release, from its OpenAPI v3 spec \
     (`kubernetes/<version>/README.md`).\n\n\
     Upstream revisions are listed in the input's SOURCES.md (CAPI v1.14 line @ae7ff047, \
     CAPZ @69ec3a40, ASO v2.16.1 as bundled by CAPZ).\n\n";

const GITOPS_README: &str = "# schemas/gitops/ (generated: do not edit)\n\n\
     Flux and Argo CD CRDs, written by `kubectl-capz import-schemas --set gitops --from <inputs> --out \
     schemas/gitops` from the inputs `tools/schema-inputs/fetch.sh` gathers from the Go module proxy; \
     `tests/importer.rs` regenerates it and fails if anything here differs. Same layout and trimming as \
     `schemas/` (`crds/`, `gvk/`).\n\n";

fn readme(heading: &str, sources: &str, inputs: &[(PathBuf, String, usize)], kinds: &[KindSchema]) -> String {
    let mut out = heading.to_string();
    if !sources.is_empty() {
        out.push_str(&format!("## Sources\n\n{sources}\n\n"));
    }
    out.push_str("## Inputs\n\n| file | CRDs | sha256 |\n|---|---|---|\n");
    for (path, sha, count) in inputs {
        out.push_str(&format!("| {} | {count} | `{sha}` |\n", path.display()));
    }
    out.push_str("\n## Kinds\n\n| group | kind | served versions |\n|---|---|---|\n");
    let mut by_kind: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for kind in kinds {
        by_kind.entry((kind.group.as_str(), kind.kind.as_str())).or_default().push(kind.version.as_str());
    }
    for ((group, kind), versions) in by_kind {
        let group = if group.is_empty() { "(core)" } else { group };
        out.push_str(&format!("| {group} | {kind} | {} |\n", versions.join(", ")));
    }
    out
}
