//! What the tools of one run (helm, kustomize) may use together, and what they used: a deadline for the whole run
//! (`validate --timeout`), a limit for each tool process's run and memory, and a cap on everything they print. One
//! [`Budget`] is shared by every repository of a run, so N charts cost at most the run's deadline, not N times a
//! tool's limit.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::manifest::ReadBudget;

/// The limits of a run's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest one tool process may run.
    pub per_run: Duration,
    /// The time every tool of the run may take together, from the start of the run (`validate --timeout`).
    pub deadline: Duration,
    /// The memory each tool process may hold (its data segment: heap and private mappings, `RLIMIT_DATA`), bytes.
    pub memory: u64,
    /// What the run's tools may print in all (stdout and stderr, every process), bytes: their output is held and
    /// read into objects, so this bounds the memory it costs.
    pub output: u64,
}

/// The default deadline of a run's tools (`validate --timeout`).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

impl Default for Limits {
    fn default() -> Self {
        Limits { per_run: Duration::from_secs(120), deadline: DEFAULT_DEADLINE, memory: 1 << 30, output: 128 << 20 }
    }
}

/// What the tools of a run used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tool processes started.
    pub runs: usize,
    /// The largest peak resident memory of one of them (its `ru_maxrss`), bytes.
    pub peak_rss: u64,
    /// What they printed in all, bytes.
    pub output: u64,
}

/// The limits of a run and what its tools used; clones share the same budget.
#[derive(Debug, Clone)]
pub struct Budget {
    inner: Arc<State>,
}

#[derive(Debug)]
struct State {
    limits: Limits,
    /// What YAML aliases may expand in everything the run reads.
    read: ReadBudget,
    started: Instant,
    output: AtomicU64,
    runs: AtomicUsize,
    peak_rss: Mutex<u64>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Limits::default())
    }
}

impl Budget {
    /// A budget whose deadline counts from now.
    pub fn new(limits: Limits) -> Self {
        let state = State {
            limits,
            read: ReadBudget::default(),
            started: Instant::now(),
            output: AtomicU64::new(0),
            runs: AtomicUsize::new(0),
            peak_rss: Mutex::new(0),
        };
        Budget { inner: Arc::new(state) }
    }

    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// What YAML aliases may expand in everything the run reads (its files, what its tools print).
    pub fn read(&self) -> &ReadBudget {
        &self.inner.read
    }

    /// The time left before the run's deadline; None once it has passed.
    pub fn time_left(&self) -> Option<Duration> {
        self.inner.limits.deadline.checked_sub(self.inner.started.elapsed()).filter(|left| !left.is_zero())
    }

    /// What the run's tools may still print, bytes.
    pub fn output_left(&self) -> u64 {
        self.inner.limits.output.saturating_sub(self.inner.output.load(Ordering::Relaxed))
    }

    /// Counts what a tool printed.
    pub fn charge_output(&self, bytes: u64) {
        self.inner.output.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Counts one tool process and its peak memory.
    pub fn record_run(&self, peak_rss: u64) {
        self.inner.runs.fetch_add(1, Ordering::Relaxed);
        let mut peak = self.inner.peak_rss.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *peak = (*peak).max(peak_rss);
    }

    /// What the run's tools used so far.
    pub fn usage(&self) -> Usage {
        Usage {
            runs: self.inner.runs.load(Ordering::Relaxed),
            peak_rss: *self.inner.peak_rss.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
            output: self.inner.output.load(Ordering::Relaxed),
        }
    }
}

/// `5m0s`, `1m30s`, `45s`, `1.5s`: a duration as Go (and our flags) write it.
pub fn show_duration(duration: Duration) -> String {
    let total = duration.as_secs();
    let millis = duration.subsec_millis();
    let (minutes, seconds) = (total / 60, total % 60);
    let seconds = if millis == 0 {
        format!("{seconds}s")
    } else {
        format!("{seconds}.{}s", format!("{millis:03}").trim_end_matches('0'))
    };
    if minutes > 0 { format!("{minutes}m{seconds}") } else { seconds }
}

/// `1 GiB`, `256 MiB`, `300 KiB`, `12 bytes`.
pub fn show_bytes(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
        if bytes >= unit {
            return format!("{:.1} {name}", bytes as f64 / unit as f64);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_shared_by_its_clones_and_counts_down() {
        let budget = Budget::new(Limits { output: 100, ..Limits::default() });
        let clone = budget.clone();
        clone.charge_output(60);
        budget.record_run(5 << 20);
        clone.record_run(3 << 20);
        assert_eq!(budget.output_left(), 40);
        assert_eq!(budget.usage(), Usage { runs: 2, peak_rss: 5 << 20, output: 60 });
        clone.charge_output(60);
        assert_eq!(budget.output_left(), 0);
        assert!(budget.time_left().is_some_and(|left| left <= DEFAULT_DEADLINE));
        let expired = Budget::new(Limits { deadline: Duration::ZERO, ..Limits::default() });
        assert_eq!(expired.time_left(), None);
    }

    #[test]
    fn durations_and_sizes_are_shown_as_written() {
        assert_eq!(show_duration(Duration::from_secs(300)), "5m0s");
        assert_eq!(show_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(show_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(show_duration(Duration::from_millis(300)), "0.3s");
        assert_eq!(show_bytes(1 << 30), "1 GiB");
        assert_eq!(show_bytes(256 << 20), "256 MiB");
        assert_eq!(show_bytes(1536 << 10), "1.5 MiB");
        assert_eq!(show_bytes(12), "12 bytes");
    }
}
