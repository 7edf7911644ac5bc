//! ASO's `--crd-pattern`, matched as ASO's controller matches it (`internal/util/match` of ASO v2.18.0 and
//! v2.20.0, the same code): `;`-separated entries, each against a CRD's `group/Kind`; an entry holding `*` or `?` is a
//! glob (case-insensitive, over the whole `group/Kind`, not trimmed), any other a literal compared
//! case-insensitively after trimming white space. ASO refuses to start when an entry matches no CRD of its release.

use std::fmt;

/// One entry of a pattern, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternEntry {
    text: String,
}

impl PatternEntry {
    /// The entry as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn is_glob(&self) -> bool {
        self.text.contains(['*', '?'])
    }

    /// Whether the entry matches `group/kind`.
    pub fn matches(&self, group: &str, kind: &str) -> bool {
        let subject = format!("{group}/{kind}").to_lowercase();
        if self.is_glob() {
            let glob: Vec<char> = self.text.to_lowercase().chars().collect();
            let subject: Vec<char> = subject.chars().collect();
            glob_matches(&glob, &subject)
        } else {
            self.text.trim().to_lowercase() == subject.trim()
        }
    }

    /// Why the entry can match no CRD at all (ASO then refuses to start): empty (two `;` in a row, a trailing
    /// `;`), or a glob with white space (globs are not trimmed, and no group or kind holds a space).
    pub fn never_matches(&self) -> Option<&'static str> {
        if self.text.trim().is_empty() {
            Some("an empty entry (a `;` too many)")
        } else if self.is_glob() && self.text.contains(char::is_whitespace) {
            Some("a wildcard entry with white space (ASO does not trim wildcard entries)")
        } else if !self.text.contains('/') && !self.is_glob() {
            Some("an entry without `/` (entries are group/Kind)")
        } else {
            None
        }
    }
}

/// A `--crd-pattern` value (or an `ADDITIONAL_ASO_CRDS` value, which CAPZ appends to its own with `;`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrdPattern {
    entries: Vec<PatternEntry>,
}

impl CrdPattern {
    /// The entries of `text`, split at `;` as ASO does (each kept as written).
    pub fn parse(text: &str) -> Self {
        CrdPattern { entries: text.split(';').map(|entry| PatternEntry { text: entry.to_string() }).collect() }
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[PatternEntry] {
        &self.entries
    }

    /// The first entry matching `group/kind`, as ASO reports it.
    pub fn matching(&self, group: &str, kind: &str) -> Option<&PatternEntry> {
        self.entries.iter().find(|entry| entry.matches(group, kind))
    }

    /// This pattern followed by `other`'s entries.
    pub fn extend(&mut self, other: &CrdPattern) {
        self.entries.extend(other.entries.iter().cloned());
    }
}

impl fmt::Display for CrdPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<&str> = self.entries.iter().map(PatternEntry::as_str).collect();
        write!(f, "{}", texts.join(";"))
    }
}

/// Whether `glob` (`*`: any run of characters, `?`: one character) matches all of `subject`.
fn glob_matches(glob: &[char], subject: &[char]) -> bool {
    // The classic linear matcher: on a mismatch, retry from the last `*` one character further on.
    let (mut g, mut s) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while s < subject.len() {
        match glob.get(g) {
            Some('*') => {
                star = Some((g, s));
                g += 1;
            }
            Some(&c) if c == '?' || c == subject[s] => {
                g += 1;
                s += 1;
            }
            _ => match star {
                Some((star_g, star_s)) => {
                    g = star_g + 1;
                    s = star_s + 1;
                    star = Some((star_g, star_s + 1));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_globs_and_case_match_as_asos_matchers_do() {
        let pattern = CrdPattern::parse(
            "managedidentity.azure.com/UserAssignedIdentity; authorization.azure.com/roleassignment ;cache.azure.com/*;net*.azure.com/?atGateway",
        );
        assert_eq!(pattern.entries().len(), 4);
        let entry = |group, kind| pattern.matching(group, kind).map(PatternEntry::as_str);
        assert_eq!(
            entry("managedidentity.azure.com", "UserAssignedIdentity"),
            Some("managedidentity.azure.com/UserAssignedIdentity")
        );
        // Literals are trimmed and compared without case (strings.EqualFold).
        assert_eq!(
            entry("authorization.azure.com", "RoleAssignment"),
            Some(" authorization.azure.com/roleassignment ")
        );
        assert_eq!(entry("cache.azure.com", "Redis"), Some("cache.azure.com/*"));
        assert_eq!(entry("CACHE.azure.com", "RedisFirewallRule"), Some("cache.azure.com/*"));
        assert_eq!(entry("network.azure.com", "NatGateway"), Some("net*.azure.com/?atGateway"));
        assert_eq!(entry("network.azure.com", "NNatGateway"), None);
        assert_eq!(entry("managedidentity.azure.com", "FederatedIdentityCredential"), None);
        // A glob covers the whole name: `cache.azure.com/*` is not `xcache.azure.com/...`.
        assert_eq!(entry("xcache.azure.com", "Redis"), None);
        assert_eq!(pattern.to_string().split(';').count(), 4);
    }

    #[test]
    fn globs_are_not_trimmed_and_empty_entries_match_nothing() {
        let pattern =
            CrdPattern::parse("managedidentity.azure.com/*; cache.azure.com/*;;resources.azure.com/ResourceGroup;");
        assert!(pattern.matching("cache.azure.com", "Redis").is_none());
        assert!(pattern.matching("managedidentity.azure.com", "UserAssignedIdentity").is_some());
        let never: Vec<(&str, &str)> = pattern
            .entries()
            .iter()
            .filter_map(|e| Some((e.as_str(), e.never_matches()?)))
            .map(|(text, why)| (text, why.split(' ').nth(1).unwrap_or("")))
            .collect();
        assert_eq!(never, [(" cache.azure.com/*", "wildcard"), ("", "empty"), ("", "empty")]);
        assert!(CrdPattern::parse("UserAssignedIdentity").entries()[0].never_matches().is_some());
    }

    #[test]
    fn the_glob_matcher_backtracks() {
        let m = |glob: &str, subject: &str| {
            glob_matches(&glob.chars().collect::<Vec<_>>(), &subject.chars().collect::<Vec<_>>())
        };
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXbYbZc"));
        assert!(!m("a*b*c", "aXbYbZ"));
        assert!(m("*.azure.com/*", "network.azure.com/VirtualNetwork"));
        assert!(!m("?", ""));
        assert!(m("a**", "a"));
    }
}
