# Sourced by scripts/package.sh and scripts/bench-setup.sh: the rustc flags of the released binary for a target.
#
# On Linux with glibc the binary is linked statically and at a fixed address (BENCHMARKS.md): the
# dynamic loader's work (loading libc, libm and libgcc_s, binding their symbols) was about half the
# instructions of `kubectl-capz version` and a third of its time, and the binary then also runs on systems
# with an older glibc than the build machine's. glibc's name service is kept to its built-in `files` and `dns`
# (src/cluster/name_service.rs), so the static binary never loads an NSS module of the host's glibc.
# `--target` must be given with these flags, so that build scripts and proc macros stay dynamic. Listed with the
# other build and start-up settings above the profiles in Cargo.toml.
static_flags() {
  case "$1" in
    *-linux-gnu) echo "-C target-feature=+crt-static -C relocation-model=static" ;;
    *) echo "" ;;
  esac
}
