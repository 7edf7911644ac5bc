//! Go's `net` package as CAPZ's webhooks use it (`net.ParseIP`, `net.ParseCIDR`, `(*net.IPNet).Contains`,
//! `net.IP.String`): the one place our rules parse IP addresses and CIDRs, so they agree with each other and with
//! Go on the corners (an IPv4-mapped IPv6 address is the IPv4 address; prefix lengths with leading zeros).

use std::net::IpAddr;

/// `net.ParseIP`: `None` where Go returns nil. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) comes back as the
/// IPv4 address, as Go's `To4` and `String` treat it.
pub(crate) fn parse_ip(text: &str) -> Option<IpAddr> {
    text.parse::<IpAddr>().ok().map(unmapped)
}

fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// A CIDR as `net.ParseCIDR` reads it: the address as written and the prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cidr {
    address: IpAddr,
    prefix: u32,
}

/// `net.ParseCIDR`: an IPv4 or IPv6 address (no zone), `/`, a decimal prefix length (leading zeros allowed) no
/// longer than the address.
pub(crate) fn parse_cidr(text: &str) -> Option<Cidr> {
    let (address, prefix) = text.split_once('/')?;
    let address: IpAddr = address.parse().ok()?;
    if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let prefix: u32 = prefix.parse().ok()?;
    let bits = if address.is_ipv4() { 32 } else { 128 };
    (prefix <= bits).then_some(Cidr { address, prefix })
}

impl Cidr {
    /// The address as written (the first result of `net.ParseCIDR`), IPv4-mapped addresses as IPv4.
    pub(crate) fn ip(self) -> IpAddr {
        unmapped(self.address)
    }

    /// `(*net.IPNet).Contains`: IPv4 and IPv4-mapped IPv6 forms are the same address; an IPv4-mapped network keeps
    /// the last 32 bits of its mask.
    pub(crate) fn contains(self, ip: IpAddr) -> bool {
        let (network, prefix) = match self.address {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => (IpAddr::V4(v4), self.prefix.saturating_sub(96)),
                None => (self.address, self.prefix),
            },
            IpAddr::V4(_) => (self.address, self.prefix),
        };
        match (network, unmapped(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_cidrs_as_go_reads_them() {
        assert_eq!(parse_ip("::ffff:192.168.0.10"), Some("192.168.0.10".parse().unwrap()));
        assert_eq!(parse_ip("192.168.0.010"), None, "Go refuses leading zeros in IPv4 octets");
        assert_eq!(parse_ip("fe80::1%eth0"), None, "no zones");
        let cidr = parse_cidr("10.0.0.0/8").unwrap();
        assert!(cidr.contains("10.255.0.10".parse().unwrap()));
        assert!(cidr.contains("::ffff:10.1.2.3".parse().unwrap()));
        assert!(!cidr.contains("11.0.0.10".parse().unwrap()));
        assert!(!cidr.contains("fd00::10".parse().unwrap()));
        assert!(parse_cidr("fd00::/64").unwrap().contains("fd00::10".parse().unwrap()));
        assert!(parse_cidr("::ffff:10.0.0.0/104").unwrap().contains("10.9.9.9".parse().unwrap()));
        assert_eq!(parse_cidr("10.0.0.0/008"), parse_cidr("10.0.0.0/8"));
        assert_eq!(parse_cidr("10.10.1.1/16").unwrap().ip(), "10.10.1.1".parse::<IpAddr>().unwrap());
        for bad in ["10.0.0.0", "10.0.0.0/", "10.0.0.0/+8", "10.0.0.0/33", "fd00::/129", "x/8", "10.0.0.0/ 8"] {
            assert_eq!(parse_cidr(bad), None, "{bad}");
        }
    }
}
