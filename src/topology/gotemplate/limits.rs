//! What one template may make the engine do. Go's `text/template` has none of these limits (CAPI
//! would run out of memory or time); ours sit far above anything a patch value can use — the API
//! server stores objects of at most 1.5 MiB — and each error names the limit.

/// Largest string a template may build: the output, any intermediate value, `printf` output.
pub const MAX_STRING_BYTES: usize = 4 << 20;
/// Longest list a function may build (`until`, `untilStep`, `seq`, `splitList`, ...).
pub const MAX_LIST_ITEMS: usize = 1 << 20;
/// `range` iterations over one execution, all loops together.
pub const MAX_RANGE_ITERATIONS: u64 = 1_000_000;
/// How deep blocks (`if`, `range`, `with`, ...) and parenthesised pipelines may nest.
pub const MAX_NESTING: usize = 100;
/// How deep `{{template}}` calls may recurse (Go: 100000; our stack is smaller).
pub const MAX_TEMPLATE_CALLS: usize = 100;
/// How deep lists and maps may nest inside each other when printed or converted.
pub const MAX_VALUE_DEPTH: usize = 100;

pub(super) fn string_too_long(what: &str) -> String {
    format!("{what}: the result would be longer than {MAX_STRING_BYTES} bytes (kubectl-capz's limit)")
}

pub(super) fn list_too_long(what: &str) -> String {
    format!("{what}: the result would have more than {MAX_LIST_ITEMS} items (kubectl-capz's limit)")
}

pub(super) fn value_too_deep() -> String {
    format!("a value nests lists and maps more than {MAX_VALUE_DEPTH} deep (kubectl-capz's limit)")
}

/// Fails when a string of `len` bytes would pass [`MAX_STRING_BYTES`].
pub(super) fn check_len(what: &str, len: usize) -> Result<(), String> {
    if len > MAX_STRING_BYTES { Err(string_too_long(what)) } else { Ok(()) }
}

/// The size of `count` copies of `unit` bytes, if within [`MAX_STRING_BYTES`].
pub(super) fn repeated_len(what: &str, unit: usize, count: usize) -> Result<usize, String> {
    match unit.checked_mul(count) {
        Some(len) if len <= MAX_STRING_BYTES => Ok(len),
        _ => Err(string_too_long(what)),
    }
}
