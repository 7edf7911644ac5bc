//! Fuzz target `escape`: see `harness::escape` (shared with tests/corpora/fuzz_regressions.rs).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::escape(data));
