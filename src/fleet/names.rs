//! Names from the fleet file that become paths of the output tree (cluster and ClusterClass names,
//! namespaces) or name a flavor to load: checked always, whatever `--no-validate` says, so that no entry of
//! a fleet file can point a write outside its own directory.

use super::spec::FleetSpec;

/// A Kubernetes object name (RFC 1123 subdomain): lowercase letters, digits, `-` and `.`, each dot-separated
/// part starting and ending with a letter or digit, at most 253 characters.
fn is_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_label_part)
}

/// A namespace (RFC 1123 label): lowercase letters, digits and `-`, starting and ending with a letter or
/// digit, at most 63 characters.
fn is_label(name: &str) -> bool {
    name.len() <= 63 && is_label_part(name)
}

fn is_label_part(part: &str) -> bool {
    let bytes = part.as_bytes();
    !bytes.is_empty()
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

/// A flavor name: letters, digits, `-`, `_` and `.`, not starting with `.`.
fn is_flavor_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 253
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

const SUBDOMAIN: &str =
    "lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit, at most 253 characters";
const LABEL: &str =
    "lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63 characters";
const FLAVOR: &str = "letters, digits, `-`, `_` and `.`, not starting with `.`";

/// The first name of the fleet that is not allowed: its JSON pointer and the message.
pub fn first_bad_name(spec: &FleetSpec) -> Option<(String, String)> {
    let bad = |pointer: String, what: &str, value: &str, rule: &str| {
        Some((
            pointer,
            format!(
                "{what} `{}` is not allowed: use {rule} (names become directories of the output tree, so they are checked even with --no-validate)",
                value.escape_debug()
            ),
        ))
    };
    for (i, class) in spec.cluster_classes.iter().enumerate() {
        if !is_subdomain(&class.name) {
            return bad(format!("/clusterClasses/{i}/name"), "ClusterClass name", &class.name, SUBDOMAIN);
        }
        if !is_label(&class.namespace) {
            return bad(format!("/clusterClasses/{i}/namespace"), "namespace", &class.namespace, LABEL);
        }
        if !is_flavor_name(&class.class) {
            return bad(format!("/clusterClasses/{i}/class"), "class", &class.class, FLAVOR);
        }
    }
    for (i, cluster) in spec.clusters.iter().enumerate() {
        if !is_subdomain(&cluster.name) {
            return bad(format!("/clusters/{i}/name"), "cluster name", &cluster.name, SUBDOMAIN);
        }
        if !is_label(&cluster.namespace) {
            return bad(format!("/clusters/{i}/namespace"), "namespace", &cluster.namespace, LABEL);
        }
        if let Some(flavor) = &cluster.flavor
            && !is_flavor_name(flavor)
        {
            return bad(format!("/clusters/{i}/flavor"), "flavor", flavor, FLAVOR);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_forming_names() {
        for ok in ["c0001", "payments-prod-weu", "a.b"] {
            assert!(is_subdomain(ok), "{ok}");
        }
        for bad in ["../../../escaped", "/abs", "a/b", "..", ".", "a..b", "-a", "A", "", "a\0b"] {
            assert!(!is_subdomain(bad), "{bad:?}");
        }
        assert!(is_label("team-1") && !is_label("team.1") && !is_label(&"a".repeat(64)));
        assert!(is_flavor_name("aks-aso") && !is_flavor_name("../aks") && !is_flavor_name(".hidden"));
    }
}
