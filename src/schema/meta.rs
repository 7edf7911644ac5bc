//! `metadata` as the API server checks it for every object: the ObjectMeta fields (strictly
//! decoded) and the rules of `ValidateObjectMeta` (names, namespace, labels, annotations,
//! finalizers).

use std::sync::LazyLock;

use serde_json::{Value, json};

use super::issue::Issue;
use crate::json_pointer::Fields;
use crate::report::Severity;

/// The structural schema of `metadata` (k8s.io/apimachinery ObjectMeta).
pub(crate) static OBJECT_META: LazyLock<Value> = LazyLock::new(|| {
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let time = json!({"type": "string", "format": "date-time", "nullable": true});
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "generateName": {"type": "string"},
            "namespace": {"type": "string"},
            "selfLink": {"type": "string"},
            "uid": {"type": "string"},
            "resourceVersion": {"type": "string"},
            "generation": {"type": "integer"},
            "creationTimestamp": time,
            "deletionTimestamp": time,
            "deletionGracePeriodSeconds": {"type": "integer"},
            "labels": string_map,
            "annotations": string_map,
            "ownerReferences": {"type": "array", "items": {
                "type": "object",
                "required": ["apiVersion", "kind", "name", "uid"],
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "name": {"type": "string"},
                    "uid": {"type": "string"},
                    "controller": {"type": "boolean"},
                    "blockOwnerDeletion": {"type": "boolean"}
                }
            }},
            "finalizers": {"type": "array", "items": {"type": "string"}},
            "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
        }
    })
});

// The patterns of k8s.io/apimachinery's validation, matched by hand: compiling them as regexes was ~6% of a
// one-bundle `validate`. Each is equal to its pattern (Go's RE2 and Rust's `regex` agree on these
// ASCII classes; the unit test `hand_written_patterns_match_the_regexes` compares them on every short string).

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
fn is_dns1123_label(s: &str) -> bool {
    let bytes = s.as_bytes();
    let alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    bytes.first().is_some_and(alphanumeric)
        && bytes.last().is_some_and(alphanumeric)
        && bytes.iter().all(|b| alphanumeric(b) || *b == b'-')
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(is_dns1123_label)
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn is_qualified_name_part(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
fn is_label_value(s: &str) -> bool {
    s.is_empty() || is_qualified_name_part(s)
}

/// `Some(reason)` when `name` is not a DNS-1123 label (namespaces, label-named kinds).
pub(crate) fn dns1123_label_error(name: &str) -> Option<String> {
    if name.len() > 63 {
        return Some("must be no more than 63 characters".into());
    }
    (!is_dns1123_label(name)).then(|| {
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character".into()
    })
}

/// `Some(reason)` when `name` cannot be a path segment (`content.IsPathSegmentName`: RBAC names, embedded
/// resources); `prefix`: a generateName prefix, which may be `.` or `..` (a suffix follows).
pub(crate) fn path_segment_error(name: &str, prefix: bool) -> Option<String> {
    if !prefix && (name == "." || name == "..") {
        return Some(format!("may not be '{name}'"));
    }
    let contained: Vec<String> = ["/", "%"]
        .iter()
        .filter(|illegal| name.contains(*illegal))
        .map(|illegal| format!("may not contain '{illegal}'"))
        .collect();
    (!contained.is_empty()).then(|| contained.join(", "))
}

/// `Some(reason)` when `name` is not a DNS-1123 subdomain (most object names).
pub(crate) fn dns1123_subdomain_error(name: &str) -> Option<String> {
    if name.len() > 253 {
        return Some("must be no more than 253 characters".into());
    }
    (!is_dns1123_subdomain(name)).then(|| {
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character".into()
    })
}

/// `Some(reason)` when `key` is not a qualified name (`[prefix/]name`), as label keys must be.
pub(crate) fn qualified_name_error(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Some("prefix part must be non-empty".into());
        }
        if let Some(reason) = dns1123_subdomain_error(prefix) {
            return Some(format!("prefix part {reason}"));
        }
    }
    if name.is_empty() {
        return Some("name part must be non-empty".into());
    }
    if name.len() > 63 {
        return Some("name part must be no more than 63 characters".into());
    }
    (!is_qualified_name_part(name)).then(|| {
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character".into()
    })
}

/// How the kind's names are checked (the name validator each kind's `ValidateObjectMeta` call passes in
/// k8s.io/kubernetes pkg/apis/*/validation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameRule {
    Dns1123Subdomain,
    Dns1123Label,
    /// `ValidateRBACName`: only `/`, `%`, `.` and `..` are refused, so `system:azure-file` is a name.
    PathSegment,
}

/// The name rule of a kind: kube-apiserver 1.36's own kinds whose names are not DNS-1123 subdomains
/// (pkg/apis/core, apps and rbac validation); every other kind, custom resources included, uses subdomains.
pub(crate) fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        // Service names are DNS-1123 labels since RelaxedServiceNameValidation (on in 1.36; recorded:
        // tests/fixtures/core-referee, valid/service-leading-digit).
        ("", "Namespace" | "Service") | ("apps", "StatefulSet") => NameRule::Dns1123Label,
        ("rbac.authorization.k8s.io", "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding") => {
            NameRule::PathSegment
        }
        _ => NameRule::Dns1123Subdomain,
    }
}

const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", "orphan", "foregroundDeletion"];

/// The API groups whose kinds kube-apiserver 1.36 serves itself; every other group is a CRD's.
const BUILT_IN_GROUPS: &[&str] = &[
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

/// Whether `group` is served by kube-apiserver itself rather than by a CRD.
pub(crate) fn is_built_in_group(group: &str) -> bool {
    BUILT_IN_GROUPS.contains(&group)
}
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Checks `metadata` (already type-checked against [`OBJECT_META`]) of an object at `path`.
/// `resource_root`: a top-level object (name required, checked per `name_rule`); otherwise an
/// embedded resource (`x-kubernetes-embedded-resource`), whose name is optional and only has to
/// be a valid path segment.
/// `built_in`: a kind kube-apiserver serves itself ([`is_built_in_group`]), not a custom resource.
pub(crate) fn check(
    meta: Option<&Value>,
    path: &str,
    name_rule: NameRule,
    namespaced: bool,
    resource_root: bool,
    built_in: bool,
    out: &mut Vec<Issue>,
) {
    let empty = serde_json::Map::new();
    let meta = meta.and_then(Value::as_object).unwrap_or(&empty);
    let str_of = |key: &str| meta.field(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    check_name(str_of("name"), str_of("generateName"), path, name_rule, resource_root, out);
    if namespaced
        && let Some(namespace) = str_of("namespace")
        && let Some(reason) = dns1123_label_error(namespace)
    {
        out.push(Issue::error(
            "metadata",
            format!("{path}/namespace"),
            format!("invalid namespace {namespace:?}: {reason}"),
        ));
    }
    if let Some(Value::Object(labels)) = meta.field("labels") {
        check_labels(labels, path, out);
    }
    if let Some(Value::Object(annotations)) = meta.field("annotations") {
        check_annotations(annotations, path, out);
    }
    if let Some(Value::Array(finalizers)) = meta.field("finalizers") {
        check_finalizers(finalizers, path, built_in, out);
    }
}

/// `name`, or `generateName` without one: per `name_rule` for a top-level object, a valid path segment for an
/// embedded one (whose name is optional).
fn check_name(
    name: Option<&str>,
    generate_name: Option<&str>,
    path: &str,
    name_rule: NameRule,
    resource_root: bool,
    out: &mut Vec<Issue>,
) {
    let name_error = |name: &str, prefix: bool| match name_rule {
        NameRule::Dns1123Subdomain => dns1123_subdomain_error(name),
        NameRule::Dns1123Label => dns1123_label_error(name),
        NameRule::PathSegment => path_segment_error(name, prefix),
    };
    match (name, generate_name) {
        (Some(name), _) if !resource_root => {
            if name == "." || name == ".." || name.contains('/') || name.contains('%') {
                out.push(Issue::error(
                    "metadata",
                    format!("{path}/name"),
                    format!("invalid name {name:?}: may not be '.' or '..' or contain '/' or '%'"),
                ));
            }
        }
        (None, _) if !resource_root => {}
        (Some(name), _) => {
            if let Some(reason) = name_error(name, false) {
                out.push(Issue::error("metadata", format!("{path}/name"), format!("invalid name {name:?}: {reason}")));
            }
        }
        (None, Some(prefix)) => {
            // The prefix is checked as the name it starts (a trailing '-' is fine).
            let masked = prefix.trim_end_matches('-');
            if let Some(reason) = name_error(if masked.is_empty() { "a" } else { masked }, true) {
                out.push(Issue::error(
                    "metadata",
                    format!("{path}/generateName"),
                    format!("invalid generateName {prefix:?}: {reason}"),
                ));
            }
        }
        (None, None) => {
            out.push(Issue::error("metadata", format!("{path}/name"), "name or generateName is required".into()));
        }
    }
}

/// Label keys (qualified names) and values (at most 63 characters of a label value's alphabet).
fn check_labels(labels: &serde_json::Map<String, Value>, path: &str, out: &mut Vec<Issue>) {
    for (key, value) in labels {
        let field = format!("{path}/labels/{}", crate::json_pointer::escape_token(key));
        if let Some(reason) = qualified_name_error(key) {
            out.push(Issue::error("metadata", field.clone(), format!("invalid label key {key:?}: {reason}")));
        }
        if let Some(value) = value.as_str() {
            if value.len() > 63 {
                out.push(Issue::error(
                    "metadata",
                    field,
                    format!("invalid label value {value:?}: must be no more than 63 characters"),
                ));
            } else if !is_label_value(value) {
                out.push(Issue::error("metadata", field, format!("invalid label value {value:?}: must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")));
            }
        }
    }
}

/// Annotation keys (qualified names, in any case) and the annotations' total size.
fn check_annotations(annotations: &serde_json::Map<String, Value>, path: &str, out: &mut Vec<Issue>) {
    let mut total = 0;
    for (key, value) in annotations {
        total += key.len() + value.as_str().map_or(0, str::len);
        if let Some(reason) = qualified_name_error(&key.to_lowercase()) {
            let field = format!("{path}/annotations/{}", crate::json_pointer::escape_token(key));
            out.push(Issue::error("metadata", field, format!("invalid annotation key {key:?}: {reason}")));
        }
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        out.push(Issue::error(
            "metadata",
            format!("{path}/annotations"),
            format!("annotations are {total} bytes, more than the limit of {TOTAL_ANNOTATION_SIZE_LIMIT}"),
        ));
    }
}

/// Finalizers: qualified names, and either standard or domain-qualified (an error on built-in kinds, a
/// warning on custom resources).
fn check_finalizers(finalizers: &[Value], path: &str, built_in: bool, out: &mut Vec<Issue>) {
    for (i, finalizer) in finalizers.iter().enumerate() {
        let Some(finalizer) = finalizer.as_str() else { continue };
        let field = format!("{path}/finalizers/{i}");
        if let Some(reason) = qualified_name_error(finalizer) {
            out.push(Issue::error("metadata", field, format!("invalid finalizer {finalizer:?}: {reason}")));
        } else if !finalizer.contains('/') && !STANDARD_FINALIZERS.contains(&finalizer) {
            // kube-apiserver rejects it on the kinds it serves itself, and only warns on custom resources
            // (checked against kube-apiserver 1.36: tests/corpus, live_validate).
            out.push(if built_in {
                Issue::error(
                    "metadata",
                    field,
                    format!(
                        "finalizer {finalizer:?} is neither a standard finalizer name nor fully qualified \
                         (domain/name)"
                    ),
                )
            } else {
                Issue::new(
                    "metadata",
                    Severity::Warning,
                    field,
                    format!(
                        "finalizer {finalizer:?} is not domain-qualified: the API server accepts it with a \
                         warning (prefer a name with a path, e.g. example.com/{finalizer})"
                    ),
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern and the function matching it by hand.
    type HandWritten = (&'static str, fn(&str) -> bool);

    #[test]
    fn hand_written_patterns_match_the_regexes() {
        let patterns: [HandWritten; 4] = [
            (r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", is_dns1123_label),
            (r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", is_dns1123_subdomain),
            (r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$", is_qualified_name_part),
            (r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$", is_label_value),
        ];
        // Every string of up to 4 characters over an alphabet with one character of each class.
        let alphabet = ['a', 'Z', '7', '-', '_', '.', '/', 'é', ' ', '\n'];
        let mut strings = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last.iter().flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}"))).collect();
            strings.extend(last.iter().cloned());
        }
        assert_eq!(strings.len(), 11_111);
        for (pattern, matches) in patterns {
            let regex = regex::Regex::new(pattern).unwrap();
            let mut matched = 0;
            for s in &strings {
                assert_eq!(matches(s), regex.is_match(s), "{pattern} on {s:?}");
                matched += usize::from(regex.is_match(s));
            }
            assert!(matched > 10, "{pattern}: {matched}");
        }
    }

    #[test]
    fn names_follow_dns_rules() {
        assert_eq!(dns1123_subdomain_error("my-cluster.example"), None);
        assert!(dns1123_subdomain_error("My_Cluster").is_some());
        assert!(dns1123_label_error("a.b").is_some());
        assert!(dns1123_label_error(&"a".repeat(64)).is_some());
    }

    #[test]
    fn rbac_names_are_path_segments() {
        assert_eq!(name_rule("rbac.authorization.k8s.io", "ClusterRole"), NameRule::PathSegment);
        assert_eq!(name_rule("rbac.authorization.k8s.io", "RoleBinding"), NameRule::PathSegment);
        assert_eq!(path_segment_error("system:azure-file", false), None);
        assert_eq!(path_segment_error("Mixed_Case:ok", false), None);
        assert_eq!(path_segment_error("..", false).as_deref(), Some("may not be '..'"));
        assert_eq!(path_segment_error("..", true), None);
        assert_eq!(path_segment_error("a/b%", false).as_deref(), Some("may not contain '/', may not contain '%'"));
        let mut out = Vec::new();
        let meta = json!({"name": "system:azure-file"});
        check(Some(&meta), "/metadata", NameRule::PathSegment, false, true, true, &mut out);
        assert!(out.is_empty(), "{out:?}");
        check(Some(&meta), "/metadata", NameRule::Dns1123Subdomain, false, true, true, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn qualified_names_allow_a_dns_prefix() {
        assert_eq!(qualified_name_error("cluster.x-k8s.io/cluster-name"), None);
        assert_eq!(qualified_name_error("app"), None);
        assert!(qualified_name_error("Bad_Prefix/x").is_some());
        assert!(qualified_name_error("x/").is_some());
        assert!(qualified_name_error("-x").is_some());
    }

    #[test]
    fn metadata_rules() {
        let mut out = Vec::new();
        let meta = json!({"name": "ok", "namespace": "Bad", "labels": {"a": "has space"}, "finalizers": ["custom"]});
        check(Some(&meta), "/metadata", NameRule::Dns1123Subdomain, true, true, true, &mut out);
        let paths: Vec<&str> = out.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["/metadata/namespace", "/metadata/labels/a", "/metadata/finalizers/0"]);
        assert!(out.iter().all(|issue| issue.severity == Severity::Error));
        out.clear();
        // On a custom resource, a finalizer without a domain is only a warning.
        check(Some(&meta), "/metadata", NameRule::Dns1123Subdomain, true, true, false, &mut out);
        let finalizer: Vec<Severity> =
            out.iter().filter(|i| i.path == "/metadata/finalizers/0").map(|i| i.severity).collect();
        assert_eq!(finalizer, [Severity::Warning]);
        out.clear();
        check(Some(&json!({})), "/metadata", NameRule::Dns1123Subdomain, true, true, true, &mut out);
        assert_eq!(out[0].message, "name or generateName is required");
    }
}
