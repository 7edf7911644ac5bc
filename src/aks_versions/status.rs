//! The support status of a Kubernetes minor version on AKS on a given day, by the release calendar.

use super::data::Lifecycle;
use super::date::Date;
use super::version::Minor;

/// How close to its end a support period counts as ending (`aks-version-unsupported` warns).
pub const ENDING_SOON_DAYS: i64 = 60;

/// Where a minor version stands on AKS on one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// In community support, or in long-term support on a cluster with the LTS plan, through `ends`.
    Supported { ends: Date, lts: bool },
    /// Past community support (since the day after `since`), in platform support (N-3) through `ends`, `None`
    /// while the minor that ends it is not in the calendar.
    PlatformSupport { since: Date, ends: Option<Date> },
    /// Past the end of platform support (or of LTS) on `ended` (its last day); `None` for a minor older than
    /// any the calendar lists.
    Ended { ended: Option<Date>, lts: bool },
    /// Not generally available on AKS on that day: GA in the month of `ga`, `None` for a minor newer than any the
    /// calendar lists.
    Unreleased { ga: Option<Date> },
}

impl Support {
    /// For a supported or platform-supported minor, the last day of that support, when it is at most
    /// [`ENDING_SOON_DAYS`] days after `on`.
    pub fn ending_soon(&self, on: Date) -> Option<Date> {
        let ends = match *self {
            Support::Supported { ends, .. } => ends,
            Support::PlatformSupport { ends: Some(ends), .. } => ends,
            _ => return None,
        };
        (ends.days_since(on) <= ENDING_SOON_DAYS).then_some(ends)
    }
}

impl Lifecycle {
    /// The support status of `minor` on day `on`, for a cluster with (`lts`) or without the long-term support
    /// plan (`lts` counts only for minors the calendar offers LTS for).
    pub fn status(&self, minor: Minor, on: Date, lts: bool) -> Support {
        let (oldest, _) = self.range();
        let Some(entry) = self.get(minor) else {
            // AKS retires minors in order: one older than the calendar's oldest left support before it. Another
            // major (a `v0.0.0` placeholder, a 2.x) AKS never released.
            return if minor < oldest && minor.major == oldest.major {
                Support::Ended { ended: None, lts: false }
            } else {
                Support::Unreleased { ga: None }
            };
        };
        if on < entry.ga {
            return Support::Unreleased { ga: Some(entry.ga) };
        }
        if on <= entry.end_of_support {
            return Support::Supported { ends: entry.end_of_support, lts: false };
        }
        if lts && let Some(lts_end) = entry.lts_end {
            return if on <= lts_end {
                Support::Supported { ends: lts_end, lts: true }
            } else {
                Support::Ended { ended: Some(lts_end), lts: true }
            };
        }
        match entry.platform_support_end {
            Some(ends) if on > ends => Support::Ended { ended: Some(ends), lts: false },
            ends => Support::PlatformSupport { since: entry.end_of_support, ends },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> Date {
        Date::parse(text).unwrap()
    }

    fn status(minor: &str, on: &str, lts: bool) -> Support {
        Lifecycle::bundled().status(Minor::parse(minor).unwrap(), date(on), lts)
    }

    #[test]
    fn the_last_day_of_the_end_of_support_month_is_still_supported() {
        // The calendar: 1.32 "End of life: Mar 2026", the last day of March.
        assert_eq!(status("1.32", "2026-03-31", false), Support::Supported { ends: date("2026-03-31"), lts: false });
        assert_eq!(
            status("1.32", "2026-04-01", false),
            Support::PlatformSupport { since: date("2026-03-31"), ends: Some(date("2026-06-30")) }
        );
    }

    #[test]
    fn an_explicit_end_of_life_day_is_that_day() {
        // 1.30: "Aug 22, 2025".
        assert!(matches!(status("1.30", "2025-08-22", false), Support::Supported { .. }));
        assert!(matches!(status("1.30", "2025-08-23", false), Support::PlatformSupport { .. }));
    }

    #[test]
    fn platform_support_lasts_until_the_fourth_later_minor_is_ga() {
        // 1.32's platform support: until 1.36 GA (Jun 2026), counted through June.
        assert!(matches!(status("1.32", "2026-06-30", false), Support::PlatformSupport { .. }));
        assert_eq!(status("1.32", "2026-07-01", false), Support::Ended { ended: Some(date("2026-06-30")), lts: false });
        // 1.34's ends with 1.38, which the calendar does not list yet.
        assert_eq!(
            status("1.34", "2026-12-01", false),
            Support::PlatformSupport { since: date("2026-11-30"), ends: None }
        );
    }

    #[test]
    fn lts_extends_support_to_the_lts_end() {
        // 1.30 LTS: "LTS End of life: Jul 2026".
        assert_eq!(status("1.30", "2026-07-31", true), Support::Supported { ends: date("2026-07-31"), lts: true });
        assert_eq!(status("1.30", "2026-08-01", true), Support::Ended { ended: Some(date("2026-07-31")), lts: true });
        // Without the plan, 1.30 left platform support with 1.34's GA month.
        assert_eq!(status("1.30", "2026-07-31", false), Support::Ended { ended: Some(date("2025-11-30")), lts: false });
        // Before its community end the plan changes nothing.
        assert_eq!(status("1.33", "2026-01-01", true), Support::Supported { ends: date("2026-07-31"), lts: false });
    }

    #[test]
    fn unreleased_and_unknown_minors() {
        // 1.37 goes GA in October 2026: released from the month's first day.
        assert_eq!(status("1.37", "2026-09-30", false), Support::Unreleased { ga: Some(date("2026-10-01")) });
        assert!(matches!(status("1.37", "2026-10-01", false), Support::Supported { .. }));
        assert_eq!(status("1.38", "2026-10-01", false), Support::Unreleased { ga: None });
        assert_eq!(status("2.0", "2026-10-01", false), Support::Unreleased { ga: None });
        assert_eq!(status("0.0", "2026-10-01", false), Support::Unreleased { ga: None });
        assert_eq!(status("1.28", "2026-10-01", false), Support::Ended { ended: None, lts: false });
    }

    #[test]
    fn ending_soon_is_the_last_sixty_days() {
        let on = date("2026-01-30");
        // 1.32 ends 2026-03-31: 60 days after 2026-01-30.
        assert_eq!(status("1.32", "2026-01-30", false).ending_soon(on), Some(date("2026-03-31")));
        let before = date("2026-01-29");
        assert_eq!(status("1.32", "2026-01-29", false).ending_soon(before), None);
        let platform = status("1.32", "2026-05-15", false);
        assert_eq!(platform.ending_soon(date("2026-05-15")), Some(date("2026-06-30")));
        assert_eq!(status("1.34", "2026-12-01", false).ending_soon(date("2026-12-01")), None);
    }
}
