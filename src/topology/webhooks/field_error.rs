//! A rejected field as Kubernetes' `field.Error` prints it, and how CAPI v1.14 names a v1beta1 field.

/// CAPI v1.14 validates v1beta1 objects after converting them to v1beta2, so its messages name the
/// v1beta2 fields: for a v1beta1 path whose v1beta2 spelling differs, ` (v1beta2: PATH)`, else "".
pub fn v1beta2_path_hint(path: &str) -> String {
    let v1beta2 = path
        .replace("infrastructureNamingStrategy.", "infrastructure.naming.")
        .replace(".namingStrategy.", ".naming.")
        .replace(".machineHealthCheck", ".healthCheck");
    if v1beta2 == path { String::new() } else { format!(" (v1beta2: {v1beta2})") }
}

/// One rejected field, as Kubernetes' `field.Error` prints it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}{}: {kind}{}: {detail}", .context.as_ref().map(|c| format!(" ({c})")).unwrap_or_default(), .value.as_ref().map(|v| format!(": {v}")).unwrap_or_default())]
pub struct FieldError {
    /// CAPI's field path (`spec.patches[1].definitions[0].jsonPatches[1].path`).
    pub path: String,
    /// What the path is about in words, e.g. `patch "bad"`.
    pub context: Option<String>,
    /// `Invalid value`, `Required value`, `Unsupported value`, `Forbidden`, `Duplicate value`.
    pub kind: &'static str,
    /// The offending value as Go quotes it, when the error kind shows one.
    pub value: Option<String>,
    pub detail: String,
}

pub(super) fn invalid(path: String, value: String, detail: impl Into<String>) -> FieldError {
    FieldError { path, context: None, kind: "Invalid value", value: Some(value), detail: detail.into() }
}

pub(super) fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1beta1_paths_name_their_v1beta2_spelling() {
        assert_eq!(
            v1beta2_path_hint("spec.workers.machineDeployments[md].namingStrategy.template"),
            " (v1beta2: spec.workers.machineDeployments[md].naming.template)"
        );
        assert_eq!(
            v1beta2_path_hint("spec.topology.controlPlane.machineHealthCheck"),
            " (v1beta2: spec.topology.controlPlane.healthCheck)"
        );
        assert_eq!(v1beta2_path_hint("spec.topology.version"), "");
    }
}
