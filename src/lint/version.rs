//! Kubernetes version format of AzureManagedControlPlane[Template]; mirrors `validateVersion`
//! (internal/webhooks/azuremanagedcontrolplane_validation.go) and `NormalizeVersion` (internal/api/v1beta1/util.go).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::Sink;
use super::bundle::{At, Bundle, spec_root};

pub(crate) const VERSION_FORMAT: &str = "capz-version-format";
pub(crate) const VERSION_V_PREFIX: &str = "capz-version-v-prefix";

/// CAPZ's `kubeSemver`: the `v` is required (the defaulting webhook adds it first).
static KUBE_SEMVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_\.+]*)?$").expect("valid regex")
});

/// What the defaulting webhook makes of a version: a `v` is prepended unless empty or present.
pub(crate) fn normalize_version(version: &str) -> String {
    if version.is_empty() || version.starts_with('v') { version.to_string() } else { format!("v{version}") }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[VERSION_FORMAT, VERSION_V_PREFIX]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        let pointer = format!("{}/version", spec_root(doc));
        let version = match doc.value.at(&pointer) {
            Some(Value::String(version)) => version.as_str(),
            // A missing or non-string version is the schema's business (the field is required there).
            _ => continue,
        };
        let normalized = normalize_version(version);
        if !KUBE_SEMVER.is_match(&normalized) {
            sink.emit(
                VERSION_FORMAT,
                index,
                &pointer,
                format!(
                    "version {version:?} is not a valid Kubernetes semantic version; CAPZ's webhook rejects it. \
                     Write it as vMAJOR.MINOR.PATCH, e.g. v1.33.2"
                ),
            );
        } else if normalized != version {
            sink.emit(
                VERSION_V_PREFIX,
                index,
                &pointer,
                format!(
                    "version {version:?} lacks the leading `v`; CAPZ's defaulting webhook stores {normalized:?}, \
                     so Git and the cluster always differ. Write {normalized:?}"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, ids};
    use super::*;

    fn findings(yaml: &str) -> Vec<crate::report::Finding> {
        findings_among(yaml, &[VERSION_FORMAT, VERSION_V_PREFIX])
    }

    const AMCP: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: c1, namespace: default}
spec:
  version: VERSION
";

    #[test]
    fn valid_version_passes() {
        assert!(findings(&AMCP.replace("VERSION", "v1.33.2")).is_empty());
        assert!(findings(&AMCP.replace("VERSION", "v1.33.0-rc.1+build")).is_empty());
    }

    #[test]
    fn bad_versions_fire_format() {
        for bad in ["\"\"", "v1.33", "latest", "v01.2.3", "\"1.2\""] {
            let found = findings(&AMCP.replace("VERSION", bad));
            assert_eq!(ids(&found), [VERSION_FORMAT], "{bad}");
            assert_eq!(found[0].path, "/spec/version");
            assert_eq!(found[0].line, 5);
        }
    }

    #[test]
    fn missing_v_is_a_warning_not_an_error() {
        let found = findings(&AMCP.replace("VERSION", "1.33.2"));
        assert_eq!(ids(&found), [VERSION_V_PREFIX]);
        assert!(found[0].message.contains("\"v1.33.2\""), "{}", found[0].message);
    }

    #[test]
    fn template_version_is_checked_too() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: t}
spec:
  template:
    spec:
      version: v1.33
";
        let found = findings(yaml);
        assert_eq!(ids(&found), [VERSION_FORMAT]);
        assert_eq!(found[0].path, "/spec/template/spec/version");
    }

    #[test]
    fn aso_control_plane_version_is_not_this_rule() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: c1}
spec:
  version: 1.33
  resources: []
";
        assert!(findings(yaml).is_empty());
    }
}
