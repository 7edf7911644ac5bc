//! AKS's Kubernetes version lifecycle: per minor version its GA, end of community support, end of platform
//! support (N-3) and end of long-term support, from the AKS release calendar (bundled as data.json, with the date
//! it is as of; tools/aks-versions/ regenerates it), and the support status of a version on a given day.
//!
//! What AKS offers in one region (its patch versions and upgrade paths) comes from `az aks get-versions`
//! ([`RegionVersions`]) when the user gives it.
//!
//! Nothing here reads the clock: callers pass the day (`validate --at`, or the run's date read by the command).

mod data;
mod date;
mod region;
mod status;
mod version;

pub use data::{Lifecycle, MinorLifecycle};
pub use date::{Date, DateError};
pub use region::{Offered, Patch, RegionError, RegionMinor, RegionVersions, list as list_versions, normalize_location};
pub use status::{ENDING_SOON_DAYS, Support};
pub use version::Minor;

/// How old the bundled data may be before a command that uses it warns.
pub const STALE_AFTER_DAYS: i64 = 120;

impl Lifecycle {
    /// The warning a run on day `on` prints when the data is more than [`STALE_AFTER_DAYS`] days older.
    pub fn staleness_warning(&self, on: Date) -> Option<String> {
        let age = on.days_since(self.as_of);
        (age > STALE_AFTER_DAYS).then(|| {
            format!(
                "the AKS version data is {age} days old (as of {}): versions AKS released or retired since are not \
                 known to the aks-version-* rules; a newer kubectl-capz has newer data",
                self.as_of
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_after_120_days() {
        let data = Lifecycle::bundled();
        assert_eq!(data.staleness_warning(data.as_of.plus_days(STALE_AFTER_DAYS)), None);
        let warning = data.staleness_warning(data.as_of.plus_days(STALE_AFTER_DAYS + 1)).unwrap();
        assert!(warning.contains("121 days old"), "{warning}");
        assert_eq!(data.staleness_warning(data.as_of.plus_days(-400)), None);
    }
}
