//! The day a run judges AKS version support on: `--at`, else `$KUBECTL_CAPZ_AT`, else today (UTC). The only
//! place that reads the clock for it; the rules and the lifecycle data take the day as a value.

use anyhow::anyhow;

use crate::aks_versions::{Date, Lifecycle};

/// The environment variable that stands for `--at` (for CI that pins the day once for every run).
pub(crate) const ENV_VAR: &str = "KUBECTL_CAPZ_AT";

/// The run's day.
pub(crate) fn run_date(at: Option<Date>) -> anyhow::Result<Date> {
    if let Some(at) = at {
        return Ok(at);
    }
    if let Some(text) = std::env::var(ENV_VAR).ok().filter(|text| !text.trim().is_empty()) {
        return Date::parse(text.trim()).map_err(|err| anyhow!("{ENV_VAR}: {err}"));
    }
    Ok(today())
}

/// Today, in UTC.
fn today() -> Date {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or_default();
    Date::from_unix_days((seconds / 86_400) as i64)
}

/// The one warning of a run whose day is long after the bundled data's date.
pub(crate) fn warn_if_stale(on: Date) {
    if let Some(warning) = Lifecycle::bundled().staleness_warning(on) {
        anstream::eprintln!("warning: {warning}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_wins_and_today_is_after_the_data() {
        let day = Date::parse("2026-03-31").unwrap();
        assert_eq!(run_date(Some(day)).unwrap(), day);
        assert!(today() > Date::parse("2026-01-01").unwrap());
    }
}
