//! OpenSSH public keys as CAPZ's webhook reads `sshPublicKey`: Go's `base64.StdEncoding` and
//! `ssh.ParseAuthorizedKey` (golang.org/x/crypto/ssh, keys.go, of the release the target pins), including the parse
//! of the key blob (`ssh.ParsePublicKey`: algorithm name, the algorithm's fields, no trailing bytes).

use crate::versions::SshKeyParser;

/// Go's `base64.StdEncoding.DecodeString`: padded standard alphabet, CR and LF ignored, non-zero trailing bits
/// accepted.
pub(crate) fn go_std_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let cleaned: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    ENGINE.decode(cleaned).ok()
}

/// `ssh.ParseAuthorizedKey` succeeds: some line holds `[options] keytype base64-blob [comment]` whose blob parses
/// (and, with `parser.key_type_must_match_blob`, whose key type field names the blob's algorithm).
pub(crate) fn is_authorized_key(text: &str, parser: &SshKeyParser) -> bool {
    text.split('\n').any(|line| {
        let line = line.split('\r').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            return false;
        }
        let Some(first_space) = line.find([' ', '\t']) else {
            return false;
        };
        if parses_after_key_type(&line[..first_space], &line[first_space..], parser) {
            return true;
        }
        // An options field first: up to the first blank outside quotes.
        let bytes = line.as_bytes();
        let mut in_quote = false;
        let mut end = bytes.len();
        for (i, &b) in bytes.iter().enumerate() {
            if !in_quote && (b == b' ' || b == b'\t') {
                end = i;
                break;
            }
            if b == b'"' && (i == 0 || bytes[i - 1] != b'\\') {
                in_quote = !in_quote;
            }
        }
        let rest = line[end..].trim_start_matches([' ', '\t']);
        match rest.find([' ', '\t']) {
            Some(type_end) if !rest.is_empty() => parses_after_key_type(&rest[..type_end], &rest[type_end..], parser),
            _ => false,
        }
    })
}

/// `parseAuthorizedKey`: the first field of `text` is the base64 key blob; `key_type` is the field before it.
fn parses_after_key_type(key_type: &str, text: &str, parser: &SshKeyParser) -> bool {
    let text = text.trim();
    let blob = text.split([' ', '\t']).next().unwrap_or("");
    go_std_base64(blob).is_some_and(|blob| {
        parse_public_key(&blob, parser)
            .is_some_and(|algorithm| !parser.key_type_must_match_blob || algorithm == key_type.as_bytes())
    })
}

/// A reader of the SSH wire format (RFC 4251: uint32, string, mpint).
struct Wire<'b>(&'b [u8]);

impl<'b> Wire<'b> {
    fn string(&mut self) -> Option<&'b [u8]> {
        let (length, rest) = self.0.split_first_chunk::<4>()?;
        let length = usize::try_from(u32::from_be_bytes(*length)).ok()?;
        let (value, rest) = (rest.get(..length)?, &rest[length..]);
        self.0 = rest;
        Some(value)
    }

    /// An mpint's magnitude bytes (big-endian, leading zeros stripped) and whether it is negative.
    fn mpint(&mut self) -> Option<(&'b [u8], bool)> {
        let bytes = self.string()?;
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
        Some((&bytes[start..], negative))
    }

    fn done(&self) -> bool {
        self.0.is_empty()
    }
}

fn bit_len(magnitude: &[u8]) -> usize {
    magnitude.first().map_or(0, |&first| (magnitude.len() - 1) * 8 + (8 - first.leading_zeros() as usize))
}

/// `ssh.ParsePublicKey`: the algorithm's fields parse and nothing follows them; the algorithm (the key's `Type()`).
/// Certificates are only checked for a known certificate algorithm.
fn parse_public_key<'b>(blob: &'b [u8], parser: &SshKeyParser) -> Option<&'b [u8]> {
    let mut wire = Wire(blob);
    let algorithm = wire.string()?;
    let parsed = match algorithm {
        b"ssh-rsa" => rsa(&mut wire, parser.rsa_max_modulus_bits),
        b"ssh-dss" => (0..4).all(|_| wire.mpint().is_some()),
        b"ssh-ed25519" => wire.string().is_some_and(|key| key.len() == 32),
        b"sk-ssh-ed25519@openssh.com" => wire.string().is_some_and(|key| key.len() == 32) && wire.string().is_some(),
        b"ecdsa-sha2-nistp256" => ecdsa(&mut wire, "nistp256", 32),
        b"ecdsa-sha2-nistp384" => ecdsa(&mut wire, "nistp384", 48),
        b"ecdsa-sha2-nistp521" => ecdsa(&mut wire, "nistp521", 66),
        b"sk-ecdsa-sha2-nistp256@openssh.com" => ecdsa(&mut wire, "nistp256", 32) && wire.string().is_some(),
        b"ssh-rsa-cert-v01@openssh.com"
        | b"ssh-dss-cert-v01@openssh.com"
        | b"ecdsa-sha2-nistp256-cert-v01@openssh.com"
        | b"ecdsa-sha2-nistp384-cert-v01@openssh.com"
        | b"ecdsa-sha2-nistp521-cert-v01@openssh.com"
        | b"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com"
        | b"ssh-ed25519-cert-v01@openssh.com"
        | b"sk-ssh-ed25519-cert-v01@openssh.com" => return Some(algorithm),
        _ => false,
    };
    (parsed && wire.done()).then_some(algorithm)
}

/// `parseRSA`: exponent then modulus; the modulus at most `max_modulus_bits`, the exponent odd, at least 3, at most
/// 24 bits.
fn rsa(wire: &mut Wire<'_>, max_modulus_bits: usize) -> bool {
    let (Some((exponent, exponent_negative)), Some((modulus, _))) = (wire.mpint(), wire.mpint()) else {
        return false;
    };
    if bit_len(modulus) > max_modulus_bits || bit_len(exponent) > 24 || exponent_negative {
        return false;
    }
    let value = exponent.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
    value >= 3 && value % 2 == 1
}

/// `parseECDSA`: the curve name matches the algorithm and the point is uncompressed (`0x04 || X || Y`).
fn ecdsa(wire: &mut Wire<'_>, curve: &str, coordinate_bytes: usize) -> bool {
    wire.string() == Some(curve.as_bytes())
        && wire.string().is_some_and(|point| point.len() == 1 + 2 * coordinate_bytes && point[0] == 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    fn string(bytes: &[u8]) -> Vec<u8> {
        let mut out = u32::try_from(bytes.len()).unwrap().to_be_bytes().to_vec();
        out.extend_from_slice(bytes);
        out
    }

    fn line(kind: &str, blob: &[u8]) -> String {
        format!("{kind} {} me@host", base64::engine::general_purpose::STANDARD.encode(blob))
    }

    #[test]
    fn key_blobs_parse_as_go_parses_them() {
        for target in crate::versions::TARGETS {
            let parser = &target.ssh_key_parser;
            let is_authorized_key = |text: &str| is_authorized_key(text, parser);
            let ed25519 = [string(b"ssh-ed25519"), string(&[7; 32])].concat();
            assert!(is_authorized_key(&line("ssh-ed25519", &ed25519)));
            assert!(is_authorized_key(&format!("no-pty,command=\"a b\" {}", line("ssh-ed25519", &ed25519))));
            assert!(!is_authorized_key(&line("ssh-ed25519", &[string(b"ssh-ed25519"), string(&[7; 31])].concat())));
            assert!(!is_authorized_key(&line("ssh-ed25519", &[ed25519.clone(), vec![0]].concat())), "trailing junk");
            assert!(!is_authorized_key(&line("ssh-ed25519", &ed25519[..20])), "cut short");
            let rsa = |exponent: &[u8]| [string(b"ssh-rsa"), string(exponent), string(&[0xc5; 256])].concat();
            assert!(is_authorized_key(&line("ssh-rsa", &rsa(&[1, 0, 1]))));
            assert!(!is_authorized_key(&line("ssh-rsa", &rsa(&[4]))), "even exponent");
            assert!(!is_authorized_key(&line("ssh-rsa", &rsa(&[1]))), "exponent below 3");
            let ecdsa = |curve: &[u8], len: usize| {
                [string(b"ecdsa-sha2-nistp256"), string(curve), string(&[vec![4], vec![1; len]].concat())].concat()
            };
            assert!(is_authorized_key(&line("ecdsa-sha2-nistp256", &ecdsa(b"nistp256", 64))));
            assert!(!is_authorized_key(&line("ecdsa-sha2-nistp256", &ecdsa(b"nistp384", 64))));
            assert!(!is_authorized_key(&line("x", &[string(b"ssh-foo"), string(&[1; 32])].concat())));
            assert!(!is_authorized_key("ssh-ed25519"), "no blob");
            assert!(!is_authorized_key("# ssh-ed25519 AAAA"));

            // Where the x/crypto releases differ: the key type field, and the largest RSA modulus.
            let mismatched = is_authorized_key(&line("ssh-rsa", &ed25519));
            assert_eq!(
                mismatched, !parser.key_type_must_match_blob,
                "{}: type field ssh-rsa, ed25519 blob",
                target.name
            );
            let with_options = format!("restrict {}", line("ssh-rsa", &ed25519));
            assert_eq!(is_authorized_key(&with_options), !parser.key_type_must_match_blob, "{}", target.name);
            let big_rsa = [string(b"ssh-rsa"), string(&[1, 0, 1]), string(&[0x7f; 1280])].concat(); // 10240 bits
            assert_eq!(is_authorized_key(&line("ssh-rsa", &big_rsa)), parser.rsa_max_modulus_bits > 10_000);
        }
        let v126 = &crate::versions::find_target("v1.26").unwrap().ssh_key_parser;
        let v127 = &crate::versions::find_target("v1.27").unwrap().ssh_key_parser;
        assert!(!v126.key_type_must_match_blob && v127.key_type_must_match_blob);
        assert_eq!((v126.rsa_max_modulus_bits, v127.rsa_max_modulus_bits), (8192, 16384));
        // The provisional v1.28 parses as v1.27.0 does (the release it is modelled on).
        assert_eq!(&crate::versions::find_target("v1.28").unwrap().ssh_key_parser, v127);
    }
}
