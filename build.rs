//! Packs the embedded schemas (every `*.json` below `schemas/gvk/`) into one blob of pre-parsed trees, one per
//! file so a kind is decoded only when first used, with a shared string table, a sorted index, the release
//! folders and the bundled Kubernetes versions (`schemas_index.rs`); and rebuilds the crate when embedded
//! template or schema trees change (include_dir! does not track files added to a directory on stable Rust).

use std::collections::HashMap;
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
    // The values files' JSON Schema, packed beside them (a render reads it), not listed with the kinds.
    println!("cargo:rerun-if-changed=src/params/values.schema.json");
    let values_schema = manifest_dir.join("src/params/values.schema.json");
    let mut index = pack_schema_trees(&files, &values_schema, &out_dir);
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

/// Start-up: a position-independent `kubectl-capz` makes the dynamic loader apply ~45,000 relative
/// relocations (every pointer in the embedded template and schema tables, clap's and serde's static tables)
/// before `main`: about half the instructions of `kubectl-capz version`, and a copy-on-write page fault for
/// every page of `.data.rel.ro` they touch. Linked at a fixed address (`-no-pie`) the linker resolves them once.
/// Only the binaries (tests and the library are unchanged), only with the GNU toolchain on Linux, where the
/// code rustc emits for PIE links into a fixed-address executable as it is. Listed with the other build and
/// start-up settings above the profiles in Cargo.toml.
fn link_binary_at_a_fixed_address() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

/// Schema loading: every schema file as a pre-parsed tree, so that loading a kind builds its
/// `serde_json::Value` straight from the tree (no JSON tokenizing, unescaping, number parsing or UTF-8
/// checks). The format, read by `src/schema/packed.rs`:
///
/// - a node is a tag byte and its body: `0` null, `1` false, `2` true, `3` a non-negative integer (varint),
///   `4` a negative integer (8 bytes, little-endian two's complement), `5` any other number (the 8 bytes of
///   the `f64`, little-endian), `6` a string (varint index in the string table), `7` an array (varint count,
///   then the items), `8` an object (varint count, then per entry the key's varint string index and the value);
/// - varints are LEB128 (7 bits a byte, low bits first);
/// - the string table is shared by all files (`schema_strings.txt`, the strings concatenated, and
///   `schema_string_ends.bin`, the end offset of each as a little-endian `u32`), most used strings first so
///   their indexes take one byte.
///
/// Each file's tree is stored as it is (not deflated): a tree is about a third of its JSON, and inflating
/// costs more than the pages it saves. The values files' JSON Schema (`values_schema`) follows the files' trees,
/// at `VALUES_SCHEMA` rather than in the index. Writes `schemas.bin` and `schema_strings.txt`/
/// `schema_string_ends.bin`; returns the start of `schemas_index.rs` (the index of files).
fn pack_schema_trees(files: &[(String, PathBuf)], values_schema: &Path, out_dir: &Path) -> String {
    let read = |path: &Path| -> serde_json::Value {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let mut documents: Vec<serde_json::Value> = files.iter().map(|(_, path)| read(path)).collect();
    documents.push(read(values_schema));
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for document in &documents {
        count_strings(document, &mut uses);
    }
    let mut strings: Vec<(&str, usize)> = uses.into_iter().collect();
    strings.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| a.cmp(b)));
    let numbers: HashMap<&str, u64> = strings.iter().enumerate().map(|(i, (s, _))| (*s, i as u64)).collect();
    let mut text = String::new();
    let mut ends = Vec::new();
    for (s, _) in &strings {
        text.push_str(s);
        ends.extend_from_slice(&u32::try_from(text.len()).expect("string table below 4 GiB").to_le_bytes());
    }
    let mut blob = Vec::new();
    let mut index = String::from(
        "/// Embedded schema files: (path below `schemas/`, offset and length of its tree in the blob), sorted.\n\
         pub(super) static INDEX: &[(&str, u32, u32)] = &[\n",
    );
    for ((relative, _), document) in files.iter().zip(&documents) {
        let start = blob.len();
        write_node(document, &numbers, &mut blob);
        writeln!(index, "    ({relative:?}, {start}, {}),", blob.len() - start).unwrap();
    }
    index.push_str("];\n");
    let start = blob.len();
    write_node(documents.last().expect("the values schema"), &numbers, &mut blob);
    writeln!(
        index,
        "/// The tree of `src/params/values.schema.json` (offset and length in the blob).\n\
         pub(super) static VALUES_SCHEMA: (u32, u32) = ({start}, {});",
        blob.len() - start
    )
    .unwrap();
    std::fs::write(out_dir.join("schemas.bin"), &blob).expect("write schemas.bin");
    std::fs::write(out_dir.join("schema_strings.txt"), &text).expect("write schema_strings.txt");
    std::fs::write(out_dir.join("schema_string_ends.bin"), &ends).expect("write schema_string_ends.bin");
    index
}

/// Counts every key and string value of `value`.
fn count_strings<'a>(value: &'a serde_json::Value, uses: &mut HashMap<&'a str, usize>) {
    match value {
        serde_json::Value::String(s) => *uses.entry(s).or_default() += 1,
        serde_json::Value::Array(items) => items.iter().for_each(|item| count_strings(item, uses)),
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                *uses.entry(key).or_default() += 1;
                count_strings(item, uses);
            }
        }
        _ => {}
    }
}

/// Appends `value` as a tree node (see [`pack_schema_trees`]).
fn write_node(value: &serde_json::Value, numbers: &HashMap<&str, u64>, out: &mut Vec<u8>) {
    use serde_json::Value;
    match value {
        Value::Null => out.push(0),
        Value::Bool(false) => out.push(1),
        Value::Bool(true) => out.push(2),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(3);
                write_varint(u, out);
            } else if let Some(i) = n.as_i64() {
                out.push(4);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(5);
                out.extend_from_slice(&n.as_f64().expect("a JSON number").to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(6);
            write_varint(numbers[s.as_str()], out);
        }
        Value::Array(items) => {
            out.push(7);
            write_varint(items.len() as u64, out);
            items.iter().for_each(|item| write_node(item, numbers, out));
        }
        Value::Object(map) => {
            out.push(8);
            write_varint(map.len() as u64, out);
            for (key, item) in map {
                write_varint(numbers[key.as_str()], out);
                write_node(item, numbers, out);
            }
        }
    }
}

fn write_varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}
