//! The schema files built into the binary: pre-parsed trees written by build.rs, decoded on first use.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/schemas_index.rs"));
}

pub(crate) use generated::GVK_FOLDERS;
pub use generated::KUBERNETES_VERSIONS;

/// Every file's tree, one after the other (see `build.rs`, `pack_schema_trees`).
static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schemas.bin"));
/// The strings of the trees, concatenated.
static STRINGS: &str = include_str!(concat!(env!("OUT_DIR"), "/schema_strings.txt"));
/// The end of each string in [`STRINGS`], little-endian `u32`s.
static STRING_ENDS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schema_string_ends.bin"));

/// The tree of the embedded file at `path` (relative to `schemas/`, e.g. `gvk/capi-v1.14/.../Cluster.json`).
pub(crate) fn tree(path: &str) -> Option<&'static [u8]> {
    let i = generated::INDEX.binary_search_by(|(p, ..)| (*p).cmp(path)).ok()?;
    let (_, offset, length) = generated::INDEX[i];
    tree_at(offset, length)
}

/// The tree of the JSON Schema of a values file (`src/params/values.schema.json`).
pub(crate) fn values_schema_tree() -> Option<&'static [u8]> {
    let (offset, length) = generated::VALUES_SCHEMA;
    tree_at(offset, length)
}

/// The `length` bytes of [`BLOB`] from `offset`.
fn tree_at(offset: u32, length: u32) -> Option<&'static [u8]> {
    BLOB.get(offset as usize..offset as usize + length as usize)
}

/// String number `index` of the trees' string table.
pub(crate) fn string(index: usize) -> Option<&'static str> {
    let end = |i: usize| -> Option<usize> {
        let bytes = STRING_ENDS.get(i * 4..i * 4 + 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?) as usize)
    };
    let start = if index == 0 { 0 } else { end(index - 1)? };
    STRINGS.get(start..end(index)?)
}

/// Paths of the embedded files that start with `prefix`, in order.
pub(crate) fn paths_under(prefix: &str) -> impl Iterator<Item = &'static str> + '_ {
    let start = generated::INDEX.partition_point(|(p, ..)| *p < prefix);
    generated::INDEX[start..].iter().map(|(p, ..)| *p).take_while(move |p| p.starts_with(prefix))
}

/// Every embedded file with the size of its tree (for measurements and tests).
pub fn sizes() -> impl Iterator<Item = (&'static str, u32)> {
    generated::INDEX.iter().map(|(p, _, length)| (*p, *length))
}
