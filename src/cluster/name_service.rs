//! Host names of API servers resolved from `/etc/hosts` and DNS only, as kubectl's own binaries do.
//!
//! The released Linux binary is linked statically (start-up). A statically linked glibc still
//! follows `/etc/nsswitch.conf`, and for any service there other than `files` and `dns` (Ubuntu's
//! `mdns4_minimal`, `resolve`, `sss`, ...) it loads that NSS module, which brings the host's own glibc into the
//! process: a crash when the two glibc versions differ. Configured here before the first lookup, glibc
//! consults its two built-in services and never loads a module. kubectl, a Go binary built without cgo, has the
//! same two sources. Every build on glibc does this, dynamically linked or not, so that both resolve alike
//! and the tests exercise it.
#![allow(unsafe_code)]

use std::sync::OnceLock;

/// What glibc said when asked to resolve host names from `files` and `dns` only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostLookup {
    /// Host names are looked up in `/etc/hosts`, then DNS.
    FilesThenDns,
    /// glibc refused the configuration (never seen): lookups follow `/etc/nsswitch.conf` as they are.
    AsConfigured,
}

/// Restricts host-name lookups to `/etc/hosts` and DNS, once per process, before the first lookup.
/// Callers run this before they build a client that resolves the server's host name.
pub fn restrict_host_lookup() -> HostLookup {
    static DONE: OnceLock<HostLookup> = OnceLock::new();
    *DONE.get_or_init(configure)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn configure() -> HostLookup {
    unsafe extern "C" {
        /// glibc's `<nss.h>`: replaces the services of one database; returns 0 on success.
        fn __nss_configure_lookup(dbname: *const std::ffi::c_char, service_line: *const std::ffi::c_char) -> i32;
    }
    // SAFETY: both arguments are NUL-terminated constants that outlive the call; glibc copies what it
    // keeps. The call runs once (OnceLock), before this process resolves any host name: no lookup runs
    // concurrently with it.
    let status = unsafe { __nss_configure_lookup(c"hosts".as_ptr(), c"files dns".as_ptr()) };
    if status == 0 { HostLookup::FilesThenDns } else { HostLookup::AsConfigured }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn configure() -> HostLookup {
    HostLookup::AsConfigured
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::ToSocketAddrs;

    /// glibc accepts the configuration, and a name `/etc/hosts` holds still resolves afterwards (the
    /// configuration restricted the sources, it did not break them).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn hosts_resolve_from_files_after_the_restriction() {
        assert_eq!(restrict_host_lookup(), HostLookup::FilesThenDns);
        let hosts = std::fs::read_to_string("/etc/hosts").expect("/etc/hosts");
        assert!(hosts.lines().any(|line| line.split_whitespace().skip(1).any(|name| name == "localhost")));
        let addresses: Vec<_> = ("localhost", 443).to_socket_addrs().expect("localhost resolves").collect();
        assert!(addresses.iter().any(|a| a.ip().is_loopback()), "{addresses:?}");
    }
}
