//! How many threads the parallel parts of a run (reading, schema checks, CAPZ rules) use: one per core, at most 16.

use std::sync::OnceLock;

/// One per core the process may run on, at least 1 and at most 16; asked once per process (the standard library
/// reads the cgroup files each time it is asked, and the CAPZ rules ask for every group of objects).
pub fn available() -> usize {
    static AVAILABLE: OnceLock<usize> = OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16))
}
