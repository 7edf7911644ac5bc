//! How many threads the parallel parts of a run (reading, schema checks, CAPZ rules) use: one per core, at most 16.

/// One per core the process may run on, at least 1 and at most 16. Read once per process: std reads the cgroup's
/// CPU quota from /sys on every call (a dozen system calls), and a fleet's `validate` asks once per group.
pub fn available() -> usize {
    static AVAILABLE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16))
}
