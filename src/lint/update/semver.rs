//! `golang.org/x/mod/semver.Compare`, which CAPZ's version-downgrade check uses (util/versions): `vMAJOR[.MINOR
//! [.PATCH[-PRERELEASE][+BUILD]]]`, shorthands `v1` and `v1.2` allowed, an invalid version below every valid one.

use std::cmp::Ordering;

struct Parsed<'a> {
    major: &'a str,
    minor: &'a str,
    patch: &'a str,
    /// With its leading `-`, or "".
    prerelease: &'a str,
}

fn parse_int(v: &str) -> Option<(&str, &str)> {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (v.starts_with('0') && digits != 1) {
        return None;
    }
    Some(v.split_at(digits))
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

fn bad_num(v: &str) -> bool {
    v.len() > 1 && v.bytes().all(|c| c.is_ascii_digit()) && v.starts_with('0')
}

/// The identifiers after the leading `-` or `+`: non-empty, `[0-9A-Za-z-]`, numbers without leading zeros
/// (prerelease only); the length consumed.
fn dotted(v: &str, stop_at_plus: bool, check_numbers: bool) -> Option<usize> {
    let bytes = v.as_bytes();
    let mut i = 1;
    let mut start = 1;
    while i < bytes.len() && !(stop_at_plus && bytes[i] == b'+') {
        if !ident_char(bytes[i]) && bytes[i] != b'.' {
            return None;
        }
        if bytes[i] == b'.' {
            if start == i || (check_numbers && bad_num(&v[start..i])) {
                return None;
            }
            start = i + 1;
        }
        i += 1;
    }
    if start == i || (check_numbers && bad_num(&v[start..i])) {
        return None;
    }
    Some(i)
}

fn parse(v: &str) -> Option<Parsed<'_>> {
    let v = v.strip_prefix('v')?;
    let (major, v) = parse_int(v)?;
    let Some(v) = v.strip_prefix('.') else {
        return v.is_empty().then_some(Parsed { major, minor: "0", patch: "0", prerelease: "" });
    };
    let (minor, v) = parse_int(v)?;
    let Some(v) = v.strip_prefix('.') else {
        return v.is_empty().then_some(Parsed { major, minor, patch: "0", prerelease: "" });
    };
    let (patch, mut v) = parse_int(v)?;
    let mut prerelease = "";
    if v.starts_with('-') {
        let end = dotted(v, true, true)?;
        prerelease = &v[..end];
        v = &v[end..];
    }
    if v.starts_with('+') {
        let end = dotted(v, false, false)?;
        v = &v[end..];
    }
    v.is_empty().then_some(Parsed { major, minor, patch, prerelease })
}

fn compare_int(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn is_num(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit())
}

fn compare_prerelease(x: &str, y: &str) -> Ordering {
    if x == y {
        return Ordering::Equal;
    }
    if x.is_empty() {
        return Ordering::Greater;
    }
    if y.is_empty() {
        return Ordering::Less;
    }
    let (mut xs, mut ys) = (x[1..].split('.'), y[1..].split('.'));
    loop {
        match (xs.next(), ys.next()) {
            (Some(dx), Some(dy)) if dx != dy => {
                return match (is_num(dx), is_num(dy)) {
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (true, true) => compare_int(dx, dy),
                    (false, false) => dx.cmp(dy),
                };
            }
            (Some(_), Some(_)) => {}
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => return Ordering::Equal,
        }
    }
}

/// `semver.Compare(v, w)`.
pub(crate) fn compare(v: &str, w: &str) -> Ordering {
    match (parse(v), parse(w)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => compare_int(a.major, b.major)
            .then_with(|| compare_int(a.minor, b.minor))
            .then_with(|| compare_int(a.patch, b.patch))
            .then_with(|| compare_prerelease(a.prerelease, b.prerelease)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_as_x_mod_semver() {
        let ordered = [
            "v1.0.0-alpha",
            "v1.0.0-alpha.1",
            "v1.0.0-alpha.beta",
            "v1.0.0-beta",
            "v1.0.0-beta.2",
            "v1.0.0-beta.11",
            "v1.0.0-rc.1",
            "v1.0.0",
            "v1.2",
            "v1.10.0",
        ];
        for pair in ordered.windows(2) {
            assert_eq!(compare(pair[0], pair[1]), Ordering::Less, "{pair:?}");
        }
        assert_eq!(compare("v1.2", "v1.2.0"), Ordering::Equal);
        assert_eq!(compare("v1.2.0+build", "v1.2.0"), Ordering::Equal);
        assert_eq!(compare("bad", "v0.0.1"), Ordering::Less);
        assert_eq!(compare("bad", "v1.02.0"), Ordering::Equal, "both invalid");
        assert_eq!(compare("v1.2-pre", "v0.0.1"), Ordering::Less, "a shorthand takes no prerelease");
    }
}
