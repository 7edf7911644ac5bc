//! Fleet's names: the bundle name `fleet apply` gives a directory and the Helm release name derived from it
//! (rancher/fleet internal/names/name.go `HelmReleaseName`, `Limit`, `Hex`; internal/cmd/cli/apply/apply.go
//! `bundleFromDir`), with the MD5 they hash with.

use std::sync::LazyLock;

use regex::Regex;

/// Helm's limit on release names (`v1alpha1.MaxHelmReleaseNameLen`).
const MAX_HELM_RELEASE_NAME_LEN: usize = 53;

static DISALLOWED_CHARS: LazyLock<Regex> = LazyLock::new(|| Regex::new("[^a-zA-Z0-9-]+").expect("valid regex"));
static HELM_RELEASE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$").expect("valid regex")
});
static DNS_LABEL_SAFE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").expect("valid regex"));
static MULTI_DASH: LazyLock<Regex> = LazyLock::new(|| Regex::new("-+").expect("valid regex"));

/// The name of the bundle `fleet apply` makes of directory `dir` (repository-relative, `""` for the root) of the
/// GitRepo `repo_name`: `HelmReleaseName(filepath.Join(repoName, baseDir))`.
pub fn bundle_id(repo_name: &str, dir: &str) -> String {
    let joined = match (repo_name.is_empty(), dir.is_empty()) {
        (_, true) => repo_name.to_string(),
        (true, false) => dir.to_string(),
        (false, false) => format!("{repo_name}/{dir}"),
    };
    helm_release_name(&joined)
}

/// Fleet's `names.HelmReleaseName`: a DNS-label-safe name of at most 53 characters, with a hash appended when
/// characters had to be replaced, or a hash alone when nothing valid is left.
pub fn helm_release_name(text: &str) -> String {
    let mut name = text.replace('/', "-");
    // Avoid collisions from different case or from disallowed characters.
    let need_hex = name != name.to_lowercase() || DISALLOWED_CHARS.is_match(&name);
    if need_hex {
        name = format!("{name}-{}", hex(&name, 8));
    }
    name = name.to_lowercase();
    name = DISALLOWED_CHARS.replace_all(&name, "-").into_owned();
    name = MULTI_DASH.replace_all(&name, "-").into_owned();
    let name = name.trim_matches('-');
    if HELM_RELEASE_NAME.is_match(name) && DNS_LABEL_SAFE.is_match(name) {
        return limit(name, MAX_HELM_RELEASE_NAME_LEN);
    }
    hex(text, 24)
}

/// Fleet's `names.Limit`: at most `count` bytes, a truncated name ending with `-` and 5 hex digits of its hash.
fn limit(text: &str, count: usize) -> String {
    const HEX_LEN: usize = 5;
    if text.len() <= count {
        return text.to_string();
    }
    if count <= HEX_LEN + 1 {
        return text[..count].to_string();
    }
    let kept = count - HEX_LEN - 1;
    let separator = if text.as_bytes()[kept - 1] == b'-' { "" } else { "-" };
    format!("{}{separator}{}", &text[..kept], hex(text, HEX_LEN))
}

/// Fleet's `names.Hex`: the first `length` hex digits of the MD5 of `text`.
fn hex(text: &str, length: usize) -> String {
    let digest = md5(text.as_bytes());
    let mut out: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    out.truncate(length);
    out
}

/// MD5 (RFC 1321), only for the names Fleet derives with it (not for anything secret).
fn md5(input: &[u8]) -> [u8; 16] {
    const SHIFTS: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ];
    let constants: Vec<u32> =
        (0..64).map(|i: i32| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u64 as u32).collect();
    let mut message = input.to_vec();
    let bit_length = (input.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bit_length.to_le_bytes());
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for block in message.chunks_exact(64) {
        let words: Vec<u32> =
            block.chunks_exact(4).map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]])).collect();
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a.wrapping_add(f).wrapping_add(constants[i]).wrapping_add(words[g]).rotate_left(SHIFTS[i]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(rotated);
        }
        state =
            [state[0].wrapping_add(a), state[1].wrapping_add(b), state[2].wrapping_add(c), state[3].wrapping_add(d)];
    }
    let mut out = [0u8; 16];
    for (index, word) in state.iter().enumerate() {
        out[index * 4..index * 4 + 4].copy_from_slice(&word.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_the_rfc_1321_test_suite() {
        let hex = |text: &str| md5(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect::<String>();
        assert_eq!(hex(""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex("a"), "0cc175b9c0f1b6a831c399e269772661");
        assert_eq!(hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
        assert_eq!(
            hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    /// The expectations of Fleet's own tests of `Limit` and `HelmReleaseName` (internal/names/name_test.go).
    #[test]
    fn release_names_as_fleet_derives_them() {
        for (text, count, expected) in [
            ("1234567", 5, "12345"),
            ("1234567", 6, "123456"),
            ("1234567", 7, "1234567"),
            ("1234567", 8, "1234567"),
            ("12345678", 8, "12345678"),
            ("12345678", 7, "1-25d55"),
            ("123456789", 8, "12-25f9e"),
            ("1-3456789", 8, "1-9b657"),
        ] {
            assert_eq!(limit(text, count), expected, "Limit({text:?}, {count})");
        }
        let str50 = "1234567890".repeat(5);
        let str53 = format!("{str50}123");
        let str63 = format!("{str50}1234567890123");
        for (text, expected) in [
            (str53.clone(), str53.clone()),
            (format!("{str53}a"), "12345678901234567890123456789012345678901234567-fdba4".to_string()),
            (format!("{str63}a"), "12345678901234567890123456789012345678901234567-eb12d".to_string()),
            ("long-name-test-shortpath-with@char".into(), "long-name-test-shortpath-with-char-031bab5e".into()),
            ("long-name-test-shortpath-with+char".into(), "long-name-test-shortpath-with-char-21c88393".into()),
            ("long-name-test-0.App_ ".into(), "long-name-test-0-app-5bf6b3fb".into()),
            ("long-name-test--App_-_12.factor".into(), "long-name-test-app-12-factor-0efbac37".into()),
            ("bundle.name.example.com".into(), "bundle-name-example-com-645ef821".into()),
            (format!("{}-1234567", &str53[..46]), "1234567890123456789012345678901234567890123456-d0bce".into()),
        ] {
            assert_eq!(helm_release_name(&text), expected, "HelmReleaseName({text:?})");
        }
        // `fleet apply`'s bundle names: the GitRepo's name joined with the directory.
        assert_eq!(bundle_id("platform", "fleet/aks-classes"), "platform-fleet-aks-classes");
        assert_eq!(bundle_id("platform", ""), "platform");
        // Nothing valid left: the hash of the text.
        assert_eq!(helm_release_name(""), hex("", 24));
    }
}
