//! Packs the embedded schemas (every `*.json` below `schemas/gvk/`) into one blob, each file deflated on
//! its own so a kind is inflated and parsed only when first used, with a sorted index, the release folders
//! and the bundled Kubernetes versions (`schemas_index.rs`); and rebuilds the crate when embedded template
//! or schema trees change (include_dir! does not track files added to a directory on stable Rust).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    for dir in ["flavors", "clusterclasses", "schemas"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    link_binary_at_a_fixed_address();
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let root = manifest_dir.join("schemas");
    let mut files = Vec::new();
    walk(&root, &root.join("gvk"), &mut files);
    files.sort();
    let mut blob = Vec::new();
    let mut index = String::from(
        "/// Embedded schema files: (path below `schemas/`, offset, deflated length, inflated length), sorted.\n\
         pub(super) static INDEX: &[(&str, u32, u32, u32)] = &[\n",
    );
    for (relative, path) in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 9);
        writeln!(index, "    ({relative:?}, {}, {}, {}),", blob.len(), packed.len(), bytes.len()).unwrap();
        blob.extend_from_slice(&packed);
    }
    index.push_str("];\n");
    // Release folders below gvk/ (`aso-v2.18+v2.19`, `kubernetes-v1.36`), sorted.
    let mut folders: Vec<String> = std::fs::read_dir(root.join("gvk"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    writeln!(
        index,
        "/// The release folders of `schemas/gvk/`, sorted.\npub(crate) static GVK_FOLDERS: &[&str] = &{folders:?};"
    )
    .unwrap();
    // Kubernetes releases: `kubernetes-v1.36`, or a shared folder `kubernetes-v1.35+v1.36`.
    let mut versions: Vec<String> = folders
        .iter()
        .filter_map(|f| f.strip_prefix("kubernetes-"))
        .flat_map(|versions| versions.split('+').map(str::to_string))
        .collect();
    versions.sort_by_key(|v| {
        std::cmp::Reverse(
            v.trim_start_matches('v').split('.').map(|n| n.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>(),
        )
    });
    versions.dedup();
    writeln!(
        index,
        "/// The Kubernetes versions with bundled built-in schemas (`schemas/gvk/kubernetes-<version>`), newest first.\n\
         pub static KUBERNETES_VERSIONS: &[&str] = &{versions:?};"
    )
    .unwrap();
    std::fs::write(out_dir.join("schemas.bin"), &blob).expect("write schemas.bin");
    std::fs::write(out_dir.join("schemas_index.rs"), index).expect("write schemas_index.rs");
}

/// Every `*.json` file below `dir`, as (path relative to `root` with `/`, path).
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            walk(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push((parts.join("/"), path));
        }
    }
}

/// Start-up (issue 22): a position-independent `kubectl-capz` makes the dynamic loader apply ~45,000 relative
/// relocations (every pointer in the embedded template and schema tables, clap's and serde's static tables)
/// before `main`: about half the instructions of `kubectl-capz version`, and a copy-on-write page fault for
/// every page of `.data.rel.ro` they touch. Linked at a fixed address (`-no-pie`) the linker resolves them once.
/// Only the binaries (tests and the library are unchanged), only with the GNU toolchain on Linux, where the
/// code rustc emits for PIE links into a fixed-address executable as it is.
fn link_binary_at_a_fixed_address() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
