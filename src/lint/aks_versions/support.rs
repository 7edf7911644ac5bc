//! `aks-version-unsupported` and `aks-version-unreleased`: each pinned version's AKS support status on the run's
//! day, from the release calendar (supported-kubernetes-versions).

use super::sites::{Role, Site, Sites};
use super::{UNRELEASED, UNSUPPORTED};
use crate::aks_versions::{Date, Lifecycle, Offered, RegionVersions, Support, list_versions};
use crate::lint::Sink;
use crate::report::Severity;

pub(super) fn check(sites: &Sites<'_>, sink: &mut Sink<'_>) {
    let data = Lifecycle::bundled();
    for site in &sites.all {
        let rejected = match sink.date() {
            Some(on) => judge(data, site, on, sink),
            // Without a day only what no day changes: a minor newer than any the calendar lists.
            None => {
                let (_, newest) = data.range();
                let unknown = site.minor > newest;
                if unknown {
                    unreleased(data, site, None, None, sink);
                }
                unknown
            }
        };
        // What the region offers, when the run has `az aks get-versions` for it: a version the calendar already
        // rejects is not said twice.
        if !rejected
            && let Some(region) = sink.region()
            && region.covers(site.location)
        {
            judge_in_region(region, site, sink);
        }
    }
}

/// `aks-version-unreleased` for a patch or minor the region does not offer (or offers as a preview),
/// `aks-version-unsupported` for a minor it offers only with the long-term support plan to a cluster without it.
fn judge_in_region(region: &RegionVersions, site: &Site<'_>, sink: &mut Sink<'_>) {
    let Some(offered) = region.offers(site.written, site.lts) else { return };
    let (minor, written, role) = (site.minor, site.written, what(site));
    let (place, origin) = (region.describe(), region.origin());
    match offered {
        Offered::Yes => {}
        Offered::PatchNotOffered { offered } => {
            let offered = if offered.is_empty() { "none".to_string() } else { list_versions(&offered) };
            let message = format!(
                "{role} version {written:?}: AKS in {place} does not offer this patch of {minor} (its patches: \
                 {offered}; {origin}). AKS rejects a version it does not offer"
            );
            sink.emit(UNRELEASED, site.doc, &site.pointer, message);
        }
        Offered::MinorNotOffered { offered } => {
            let message = format!(
                "{role} version {written:?}: AKS in {place} does not offer {minor} (it offers {}; {origin}). AKS \
                 rejects a version it does not offer",
                list_versions(&offered)
            );
            sink.emit(UNRELEASED, site.doc, &site.pointer, message);
        }
        Offered::LtsOnly => {
            let message = format!(
                "{role} version {written:?}: AKS in {place} offers {minor} only with the long-term support plan \
                 ({origin}); the cluster's ManagedCluster has no spec.supportPlan: AKSLongTermSupport (and the \
                 Premium tier it needs), so AKS rejects it"
            );
            sink.emit(UNSUPPORTED, site.doc, &site.pointer, message);
        }
        Offered::Preview => {
            let message = format!(
                "{role} version {written:?}: AKS in {place} offers {minor} as a preview only ({origin}): not \
                 covered by AKS support, not for production clusters"
            );
            sink.emit_as(UNRELEASED, Some(Severity::Warning), site.doc, &site.pointer, message);
        }
    }
}

fn what(site: &Site<'_>) -> &'static str {
    match site.role {
        Role::ControlPlane => "control plane",
        Role::Pool => "node pool",
    }
}

/// Judges `site` by the calendar on day `on`; true when the calendar says AKS rejects it (ended, unreleased).
fn judge(data: &Lifecycle, site: &Site<'_>, on: Date, sink: &mut Sink<'_>) -> bool {
    let status = data.status(site.minor, on, site.lts);
    let (minor, written, role) = (site.minor, site.written, what(site));
    let warning = Some(Severity::Warning);
    let message = match status {
        Support::Unreleased { ga } => {
            unreleased(data, site, ga, Some(on), sink);
            return true;
        }
        Support::Ended { ended: Some(ended), lts } => {
            let support = if lts { "long-term support" } else { "platform support" };
            let message = format!(
                "{role} version {written:?}: AKS {minor} left {support} after {ended} (on {on}); AKS no longer \
                 supports it, and upgrading out of it is AKS's unsupported recovery path. Upgrade to a supported minor"
            );
            sink.emit_as(UNSUPPORTED, None, site.doc, &site.pointer, message);
            return true;
        }
        Support::Ended { ended: None, .. } => {
            let (oldest, _) = data.range();
            let message = format!(
                "{role} version {written:?}: AKS {minor} left platform support before {oldest}, the oldest minor of \
                 the AKS release calendar (as of {}). Upgrade to a supported minor",
                data.as_of
            );
            sink.emit_as(UNSUPPORTED, None, site.doc, &site.pointer, message);
            return true;
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
                return false;
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
    false
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
