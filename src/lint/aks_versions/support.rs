//! `aks-version-unsupported` and `aks-version-unreleased`: each pinned version's AKS support status on the run's
//! day, from the release calendar (supported-kubernetes-versions).

use super::sites::{Role, Site, Sites};
use super::{UNRELEASED, UNSUPPORTED};
use crate::aks_versions::{Date, Lifecycle, Support};
use crate::lint::Sink;
use crate::report::Severity;

pub(super) fn check(sites: &Sites<'_>, sink: &mut Sink<'_>) {
    let data = Lifecycle::bundled();
    for site in &sites.all {
        match sink.date() {
            Some(on) => judge(data, site, on, sink),
            // Without a day only what no day changes: a minor newer than any the calendar lists.
            None => {
                let (_, newest) = data.range();
                if site.minor > newest {
                    unreleased(data, site, None, None, sink);
                }
            }
        }
    }
}

fn what(site: &Site<'_>) -> &'static str {
    match site.role {
        Role::ControlPlane => "control plane",
        Role::Pool => "node pool",
    }
}

fn judge(data: &Lifecycle, site: &Site<'_>, on: Date, sink: &mut Sink<'_>) {
    let status = data.status(site.minor, on, site.lts);
    let (minor, written, role) = (site.minor, site.written, what(site));
    let warning = Some(Severity::Warning);
    let message = match status {
        Support::Unreleased { ga } => return unreleased(data, site, ga, Some(on), sink),
        Support::Ended { ended: Some(ended), lts } => {
            let support = if lts { "long-term support" } else { "platform support" };
            let message = format!(
                "{role} version {written:?}: AKS {minor} left {support} after {ended} (on {on}); AKS no longer \
                 supports it, and upgrading out of it is AKS's unsupported recovery path. Upgrade to a supported minor"
            );
            return sink.emit_as(UNSUPPORTED, None, site.doc, &site.pointer, message);
        }
        Support::Ended { ended: None, .. } => {
            let (oldest, _) = data.range();
            let message = format!(
                "{role} version {written:?}: AKS {minor} left platform support before {oldest}, the oldest minor of \
                 the AKS release calendar (as of {}). Upgrade to a supported minor",
                data.as_of
            );
            return sink.emit_as(UNSUPPORTED, None, site.doc, &site.pointer, message);
        }
        Support::PlatformSupport { since, ends } => {
            let until = match ends {
                Some(ends) => format!("through {ends}"),
                None => format!("until AKS {} is GA", minor.plus(4)),
            };
            format!(
                "{role} version {written:?}: AKS {minor} is in platform support only (community support ended \
                 {since}; platform support lasts {until}): no security patches, bug fixes or new clusters. Upgrade \
                 to a supported minor"
            )
        }
        Support::Supported { ends, lts } => {
            if status.ending_soon(on).is_none() {
                return;
            }
            let support = if lts { "long-term support" } else { "community support" };
            let days = ends.days_since(on);
            format!(
                "{role} version {written:?}: AKS {minor}'s {support} ends {ends}, in {days} days (on {on}). Plan \
                 the upgrade to the next minor"
            )
        }
    };
    sink.emit_as(UNSUPPORTED, warning, site.doc, &site.pointer, message);
}

fn unreleased(data: &Lifecycle, site: &Site<'_>, ga: Option<Date>, on: Option<Date>, sink: &mut Sink<'_>) {
    let (minor, written, role) = (site.minor, site.written, what(site));
    let message = match (ga, on) {
        (Some(ga), Some(on)) => {
            let (year, month, _) = ga.ymd();
            format!(
                "{role} version {written:?}: AKS {minor} is not generally available on {on}; the AKS release \
                 calendar plans it for {year:04}-{month:02}. AKS rejects a version it does not offer"
            )
        }
        _ => {
            let (_, newest) = data.range();
            format!(
                "{role} version {written:?}: AKS has not released {minor}; the newest minor of the AKS release \
                 calendar (as of {}) is {newest}. AKS rejects a version it does not offer",
                data.as_of
            )
        }
    };
    sink.emit(UNRELEASED, site.doc, &site.pointer, message);
}
