//! `aks-version-skew`: a node pool more than three minors behind its control plane, or ahead of it, which AKS
//! rejects (supported-kubernetes-versions, "version skew"; upgrade-aks-control-plane).

use super::SKEW;
use super::sites::{Role, Sites, control_plane_of_pool, control_plane_version};
use crate::lint::Sink;
use crate::lint::bundle::Bundle;

/// How many minors a pool may be behind its control plane (Kubernetes's skew policy since 1.28, which AKS follows).
pub(super) const MAX_BEHIND: i64 = 3;

pub(super) fn check(bundle: &Bundle<'_>, sites: &Sites<'_>, sink: &mut Sink<'_>) {
    for site in sites.all.iter().filter(|site| site.role == Role::Pool) {
        let Some(control_plane) = control_plane_of_pool(bundle, site.doc) else { continue };
        let Some((cp_minor, cp_written)) = control_plane_version(bundle, control_plane) else { continue };
        let Some(ahead) = cp_minor.minors_after(site.minor) else { continue };
        let cp_name = bundle.meta_name(control_plane);
        let message = if ahead < 0 {
            format!(
                "node pool version {:?} is ahead of its control plane {cp_name:?} ({cp_written:?}): AKS rejects a \
                 node pool newer than the control plane. Upgrade the control plane first",
                site.written
            )
        } else if ahead > MAX_BEHIND {
            format!(
                "node pool version {:?} is {ahead} minors behind its control plane {cp_name:?} ({cp_written:?}): \
                 AKS allows at most {MAX_BEHIND}. Upgrade the pool to at least {}",
                site.written,
                crate::aks_versions::Minor { minor: cp_minor.minor - MAX_BEHIND as u32, ..cp_minor }
            )
        } else {
            continue;
        };
        sink.emit(SKEW, site.doc, &site.pointer, message);
    }
}
