//! Fuzz target `read_budget`: see `harness::read_budget` (shared with tests/corpora/fuzz_regressions.rs).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::read_budget(data));
