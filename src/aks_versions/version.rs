//! A Kubernetes minor version read from what manifests write (`v1.33.2`, `1.33.2`, `1.33`).

use std::fmt;

/// Major and minor version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Minor {
    pub major: u32,
    pub minor: u32,
}

impl Minor {
    /// The minor version of `text`: an optional `v`, then MAJOR.MINOR, then anything after a `.`, `-` or `+`;
    /// `None` for anything else (CAPZ's format rule reports malformed versions).
    pub fn parse(text: &str) -> Option<Minor> {
        let text = text.trim();
        let text = text.strip_prefix('v').unwrap_or(text);
        let (major, rest) = text.split_once('.')?;
        let end = rest.find(['.', '-', '+']).unwrap_or(rest.len());
        let number = |part: &str| {
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) && (part == "0" || !part.starts_with('0')))
                .then(|| part.parse().ok())
                .flatten()
        };
        Some(Minor { major: number(major)?, minor: number(&rest[..end])? })
    }

    /// `count` minor versions later (same major).
    pub fn plus(self, count: u32) -> Minor {
        Minor { minor: self.minor + count, ..self }
    }

    /// How many minor versions `self` is ahead of `other` (negative when behind); `None` across majors.
    pub fn minors_after(self, other: Minor) -> Option<i64> {
        (self.major == other.major).then(|| i64::from(self.minor) - i64::from(other.minor))
    }
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_minor_of_written_versions() {
        let minor = |text| Minor::parse(text).map(|m| m.to_string());
        assert_eq!(minor("v1.33.2").as_deref(), Some("1.33"));
        assert_eq!(minor("1.33.2").as_deref(), Some("1.33"));
        assert_eq!(minor("1.33").as_deref(), Some("1.33"));
        assert_eq!(minor("v1.34.0-rc.1+build").as_deref(), Some("1.34"));
        assert_eq!(minor("v1.34-rc.1").as_deref(), Some("1.34"));
        for bad in ["", "latest", "v1", "1.", "v01.2.3", "1.x.2", "${KUBERNETES_VERSION}"] {
            assert_eq!(minor(bad), None, "{bad}");
        }
    }

    #[test]
    fn skew_arithmetic() {
        let m = |text| Minor::parse(text).unwrap();
        assert_eq!(m("1.33").minors_after(m("1.30")), Some(3));
        assert_eq!(m("1.30").minors_after(m("1.33")), Some(-3));
        assert_eq!(m("2.0").minors_after(m("1.33")), None);
        assert_eq!(m("1.33").plus(4), m("1.37"));
    }
}
