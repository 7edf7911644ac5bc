//! `aks-version-auto-upgrade-pinned`: an auto-upgrade channel that moves the Kubernetes version, on a cluster whose
//! version Git pins (AKS auto-upgrade-cluster): AKS upgrades past the version in Git, so CAPZ works against the
//! channel or Git no longer says what runs.

use super::AUTO_UPGRADE_PINNED;
use crate::lint::Sink;
use crate::lint::bundle::{At, Bundle, CONTAINERSERVICE_GROUP};

/// The channels that do not change the Kubernetes version: `none`, and `node-image` (node images only).
const STILL_CHANNELS: &[&str] = &["none", "node-image"];

fn moves_the_version(channel: &str) -> bool {
    !STILL_CHANNELS.iter().any(|still| still.eq_ignore_ascii_case(channel))
}

fn message(channel: &str, pinned: &str, field: &str) -> String {
    format!(
        "upgradeChannel {channel:?} lets AKS upgrade the cluster past the version Git pins ({field} {pinned:?}): \
         CAPZ then works against the channel, or Git no longer says what runs. Use upgradeChannel none (or \
         node-image) and upgrade in Git, or stop pinning the version"
    )
}

pub(super) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    // Not the templates: their version is a placeholder the topology's replaces.
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane"]) {
        let pointer = "/spec/autoUpgradeProfile/upgradeChannel";
        if let (Some(channel), Some(version)) = (doc.value.str_at(pointer), doc.value.str_at("/spec/version"))
            && moves_the_version(channel)
        {
            sink.emit(AUTO_UPGRADE_PINNED, index, pointer, message(channel, version, "spec.version"));
        }
    }
    for object in bundle.aso_objects().iter().filter(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedCluster")) {
        let Some(channel) = object.value.str_at("/spec/autoUpgradeProfile/upgradeChannel") else { continue };
        if !moves_the_version(channel) {
            continue;
        }
        // CAPZ sets an embedded ManagedCluster's kubernetesVersion from its control plane's spec.version.
        let holder = object.slot.and_then(|_| bundle.docs[object.doc].value.str_at("/spec/version"));
        let pinned = match (holder, object.value.str_at("/spec/kubernetesVersion")) {
            (Some(version), _) => (version, "AzureASOManagedControlPlane spec.version"),
            (None, Some(version)) => (version, "kubernetesVersion"),
            (None, None) => continue,
        };
        let pointer = object.pointer("/spec/autoUpgradeProfile/upgradeChannel");
        sink.emit(AUTO_UPGRADE_PINNED, object.doc, &pointer, message(channel, pinned.0, pinned.1));
    }
}
