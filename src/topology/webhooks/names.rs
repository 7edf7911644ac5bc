//! Kubernetes' name, label and annotation rules (`apimachinery/pkg/util/validation`) with their messages.

use serde_json::Value;

use super::field_error::{FieldError, invalid, quoted};

/// Kubernetes' `IsDNS1123Subdomain` message, as CAPI reports a naming template's sample name.
pub(super) const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// The pattern of the v1beta2 CRD schema for worker topology names.
pub(super) const DNS1123_SUBDOMAIN_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

pub(super) fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Kubernetes' `IsQualifiedName`: `[prefix/]name`, name of at most 63 alphanumerics, `-`, `_`, `.`.
pub(super) fn is_qualified_name(value: &str) -> bool {
    let name = value.rsplit_once('/').map(|(_, n)| n).unwrap_or(value);
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
}

pub(super) const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const QUALIFIED_NAME_MESSAGE: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// Kubernetes' `IsValidLabelValue`.
pub(super) fn is_label_value(value: &str) -> bool {
    value.is_empty()
        || (value.len() <= 63
            && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()))
}

/// `IsQualifiedName` with the prefix checked as a DNS-1123 subdomain.
fn is_qualified_key(key: &str) -> bool {
    match key.split_once('/') {
        Some((prefix, name)) => is_dns1123_subdomain(prefix) && is_qualified_name(name) && !name.contains('/'),
        None => is_qualified_name(key),
    }
}

/// Label and annotation keys and label values of a `metadata` block (`ObjectMeta.Validate`).
pub(super) fn validate_metadata(metadata: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    let Some(metadata) = metadata else { return };
    for (key, value) in metadata.get("labels").and_then(Value::as_object).into_iter().flatten() {
        if !is_qualified_key(key) {
            errors.push(invalid(format!("{path}.labels"), quoted(key), QUALIFIED_NAME_MESSAGE));
        }
        let value = value.as_str().unwrap_or("");
        if !is_label_value(value) {
            errors.push(invalid(format!("{path}.labels[{key}]"), quoted(value), LABEL_VALUE_MESSAGE));
        }
    }
    for key in metadata.get("annotations").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k) {
        if !is_qualified_key(&key.to_lowercase()) {
            errors.push(invalid(format!("{path}.annotations"), quoted(key), QUALIFIED_NAME_MESSAGE));
        }
    }
}
