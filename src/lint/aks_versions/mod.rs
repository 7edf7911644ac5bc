//! AKS's Kubernetes version lifecycle on the versions a repository pins: support status on the run's day
//! ([`support`]), control plane and pool skew ([`skew`]) and auto-upgrade channels against pinned versions
//! ([`auto_upgrade`]), versions pinned against a topology's ([`topology`]). The lifecycle data is [`crate::aks_versions`].
//!
//! The versions read: a control plane's (AzureManagedControlPlane and AzureASOManagedControlPlane
//! `spec.version`, an ASO ManagedCluster's `spec.kubernetesVersion`, embedded or not) and a pool's (the
//! `spec.template.spec.version` of a MachinePool of an AKS pool kind, an ASO ManagedClustersAgentPool's
//! `spec.orchestratorVersion`).

mod auto_upgrade;
pub mod inventory;
mod sites;
mod skew;
mod support;
pub(crate) mod topology;

use super::Sink;
use super::bundle::Bundle;

pub(crate) const UNSUPPORTED: &str = "aks-version-unsupported";
pub(crate) const UNRELEASED: &str = "aks-version-unreleased";
pub(crate) const SKEW: &str = "aks-version-skew";
pub(crate) const AUTO_UPGRADE_PINNED: &str = "aks-version-auto-upgrade-pinned";
pub(crate) const TOPOLOGY_PINNED: &str = "aks-version-topology-pinned";
pub(crate) const TEMPLATE_PINNED: &str = "capz-topology-version-pinned";

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[UNSUPPORTED, UNRELEASED, SKEW, AUTO_UPGRADE_PINNED, TOPOLOGY_PINNED, TEMPLATE_PINNED]) {
        return;
    }
    let sites = sites::Sites::read(bundle);
    support::check(&sites, sink);
    skew::check(bundle, &sites, sink);
    auto_upgrade::check(bundle, sink);
    topology::check(bundle, sink);
}

#[cfg(test)]
mod tests;
