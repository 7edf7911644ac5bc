//! Fuzz target `manifest_roundtrip`: see `harness::manifest_roundtrip` (shared with tests/corpora/fuzz_regressions.rs).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::manifest_roundtrip(data));
