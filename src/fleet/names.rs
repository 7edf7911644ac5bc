//! Names from the fleet file that become paths of the output tree (cluster and ClusterClass names,
//! namespaces) or name a flavor to load: checked always, whatever `--no-validate` says, so that no entry of
//! a fleet file can point a write outside its own directory ([`super::spec`] applies them to a fleet file).

/// A Kubernetes object name (RFC 1123 subdomain): lowercase letters, digits, `-` and `.`, each dot-separated
/// part starting and ending with a letter or digit, at most 253 characters.
pub(super) fn is_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_label_part)
}

/// A namespace (RFC 1123 label): lowercase letters, digits and `-`, starting and ending with a letter or
/// digit, at most 63 characters.
pub(super) fn is_label(name: &str) -> bool {
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
pub(super) fn is_flavor_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 253
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

pub(super) const SUBDOMAIN: &str =
    "lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit, at most 253 characters";
pub(super) const LABEL: &str =
    "lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63 characters";
pub(super) const FLAVOR: &str = "letters, digits, `-`, `_` and `.`, not starting with `.`";

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
