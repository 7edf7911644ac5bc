//! Start-up: the GNU/Linux binary is linked at a fixed address (build.rs), so the dynamic loader has no
//! relative relocations to apply before `main` (they were ~45,000 and half of `kubectl-capz version`).

/// The ELF header's `e_type` (offset 16, little-endian on x86-64 and aarch64): 2 = ET_EXEC, 3 = ET_DYN (PIE).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_not_position_independent() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_kubectl-capz")).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "an ELF file");
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    assert_eq!(e_type, 2, "ET_EXEC expected (linked with -no-pie), found e_type {e_type}");
}

/// Linked at a fixed address, the binary still runs and prints what it printed before.
#[test]
fn the_binary_runs_version() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-capz")).arg("version").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("kubectl-capz v"));
}
