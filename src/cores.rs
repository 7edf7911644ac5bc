//! How many threads the parallel parts of a run (reading, schema checks, CAPZ rules) use: one per core, at most 16.

/// One per core the process may run on, at least 1 and at most 16.
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16)
}
