//! The schema files built into the binary: deflated one by one by build.rs, inflated on first use.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/schemas_index.rs"));
}

pub(crate) use generated::GVK_FOLDERS;
pub use generated::KUBERNETES_VERSIONS;

static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schemas.bin"));

/// The contents of the embedded file at `path` (relative to `schemas/`), if there is one.
pub(crate) fn file(path: &str) -> Option<Result<Vec<u8>, String>> {
    let i = generated::INDEX.binary_search_by(|(p, ..)| (*p).cmp(path)).ok()?;
    let (_, offset, packed, size) = generated::INDEX[i];
    let packed = BLOB.get(offset as usize..(offset + packed) as usize)?;
    Some(
        miniz_oxide::inflate::decompress_to_vec_with_limit(packed, size as usize)
            .map_err(|err| format!("cannot inflate: {err}")),
    )
}

/// Paths of the embedded files that start with `prefix`, in order.
pub(crate) fn paths_under(prefix: &str) -> impl Iterator<Item = &'static str> + '_ {
    let start = generated::INDEX.partition_point(|(p, ..)| *p < prefix);
    generated::INDEX[start..].iter().map(|(p, ..)| *p).take_while(move |p| p.starts_with(prefix))
}

/// Every embedded file with its inflated size (for measurements and tests).
pub fn sizes() -> impl Iterator<Item = (&'static str, u32, u32)> {
    generated::INDEX.iter().map(|(p, _, packed, size)| (*p, *packed, *size))
}
