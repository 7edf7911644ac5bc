#!/usr/bin/env bash
# What each start-up and build setting buys today: builds the tree with one setting removed at a time and
# records, per variant, the build's CPU and wall time (and the binary's size); `measure` then times the shipped
# binaries side by side in one hyperfine run and counts their instructions and page faults.
#
#   scripts/bench-settings.sh build [VARIANT...]     build the variants (default: all, in the order below)
#   scripts/bench-settings.sh measure               time and count the built shipped binaries, side by side
#   scripts/bench-settings.sh tests [VARIANT...]    the unit tests' run time on the test-profile variants
#
# Each variant is a git worktree of HEAD below .bench/settings/ with one edit (the `edit_*` functions), built into
# a target directory of its own. Variants that change only the last crate start from a copy of `ship`'s target
# directory, so their build time is that of the change alone. Results: .bench/results/settings/.
#
# Shipped binary (`dist` profile, `--target`, scripts/static-flags.sh: what scripts/package.sh builds):
#   ship               as shipped
#   ship-dynamic       without the static flags (dynamic glibc, position-dependent through build.rs's -no-pie)
#   ship-pie           the dynamic build linked position-independent (build.rs's -no-pie removed)
#   ship-no-mimalloc   glibc's malloc (the #[global_allocator] in src/main.rs removed)
#   ship-thp           mimalloc without the `no_thp` feature
#   ship-environ       mimalloc without -DMI_USE_ENVIRON=0 (.cargo/config.toml)
#   ship-collect       mimalloc without -DMI_SKIP_COLLECT_ON_EXIT
#   ship-drop-command  clap's command tree freed before the command runs (src/cli.rs's mem::forget removed)
#   ship-unstripped    `strip` off (binary size only)
#   ship-release       the `release` profile with the static flags: no thin LTO, 16 codegen units
#   (MI_DEFAULT_ARENA_RESERVE is measured on `ship` itself: MIMALLOC_ARENA_RESERVE=1GiB restores mimalloc's default)
# Test builds (`cargo test --lib --tests --no-run` from cold, as scripts/test-all.sh's first build):
#   test               as committed
#   test-debuginfo     debug info on (profile.dev `debug`/`strip` removed)
#   test-deps-opt0     dependencies unoptimised (`"*" = { opt-level = 1 }` removed)
#   test-no-opt0-list  the large runtime crates optimised like the others (their opt-level = 0 entries removed)
#   test-buildtime     the compile-time-only crates optimised (their opt-level = 0 entries removed)
#   test-no-incremental the same cold build with incremental compilation off (CARGO_INCREMENTAL=0)
# README's first command:
#   quick              `cargo build --profile quick --bin kubectl-capz` from cold
#   quick-dev          the same binary in the `dev` profile as committed
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work="$repo/.bench/settings"
results="$repo/.bench/results/settings"
mkdir -p "$work" "$results" "$work/bin"
host=$(rustc -vV | sed -n 's/^host: //p')
. "$repo/scripts/static-flags.sh"
static=$(static_flags "$host")

ship_variants=(ship ship-no-mimalloc ship-unstripped ship-environ ship-collect ship-drop-command ship-thp ship-dynamic ship-pie ship-release)
test_variants=(test test-deps-opt0 test-no-opt0-list test-buildtime test-debuginfo test-no-incremental)
quick_variants=(quick quick-dev)

# One worktree per variant, reset to HEAD and edited.
tree() {
  local variant=$1 dir="$work/src-$1"
  if [ ! -d "$dir" ]; then
    git -C "$repo" worktree add -q --detach "$dir" HEAD
  else
    git -C "$dir" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)" && git -C "$dir" checkout -q -- .
  fi
  echo "$dir"
}

# Deletes the lines of a TOML table's entries named in $2 (a regex of crate names) from Cargo.toml.
drop_entries() { sed -i -E "/^($2) = \{ opt-level = 0 \}$/d" "$1/Cargo.toml"; }

edit() {
  local variant=$1 dir=$2
  case "$variant" in
    ship-no-mimalloc) sed -i -e '/^#\[global_allocator\]$/d' -e '/^static ALLOCATOR: mimalloc::MiMalloc/d' "$dir/src/main.rs" ;;
    ship-thp) sed -i 's/^mimalloc = { version = "0.1", features = \["no_thp"\] }$/mimalloc = "0.1"/' "$dir/Cargo.toml" ;;
    ship-environ) sed -i 's/-DMI_USE_ENVIRON=0 //' "$dir/.cargo/config.toml" ;;
    ship-collect) sed -i 's/ -DMI_SKIP_COLLECT_ON_EXIT//' "$dir/.cargo/config.toml" ;;
    ship-drop-command) sed -i '/^    std::mem::forget(command);$/d' "$dir/src/cli.rs" ;;
    ship-pie) sed -i 's/^    link_binary_at_a_fixed_address();$//' "$dir/build.rs" ;;
    test-debuginfo)
      sed -i -e '/^\[profile.dev\]$/,/^\[profile.dev.package\]$/{/^strip = "debuginfo"$/d;/^debug = false$/d}' \
        -e 's/^"\*" = { opt-level = 1, debug = false }$/"*" = { opt-level = 1 }/' "$dir/Cargo.toml" ;;
    test-deps-opt0) sed -i 's/^"\*" = { opt-level = 1, debug = false }$/"*" = { debug = false }/' "$dir/Cargo.toml" ;;
    test-no-opt0-list)
      drop_entries "$dir" 'k8s-openapi|kube-client|kube-core|jiff|tokio|hyper|hyper-util|idna|jsonschema|referencing|fancy-regex|num-bigint|insta|annotate-snippets|encoding_rs|rustls|rustls-webpki|hyper-rustls|tower|tower-http|tokio-util|futures-util|jsonpath-rust|pest|url|chrono|similar' ;;
    test-buildtime)
      # Every opt-level = 0 entry after the "nothing that only runs while compiling" comment.
      sed -i '/^# \.\.\. and nothing that only runs while compiling/,/^\[/{/ = { opt-level = 0 }$/d}' "$dir/Cargo.toml" ;;
  esac
  # The edit must have changed something (a setting renamed in the tree would otherwise measure nothing).
  case "$variant" in ship|ship-dynamic|ship-unstripped|ship-release|test|test-no-incremental|quick|quick-dev) ;;
    *) if git -C "$dir" diff --quiet; then echo "bench-settings: the edit of $variant changed nothing" >&2; exit 2; fi ;;
  esac
}

# /usr/bin/time around a build: wall, user, system seconds and peak KiB into $results/VARIANT.build.
timed() {
  local variant=$1; shift
  echo "+ $*" >&2
  /usr/bin/time -f "%e %U %S %M" -o "$results/$variant.build" "$@" >"$results/$variant.log" 2>&1 ||
    { echo "bench-settings: $variant failed, see $results/$variant.log" >&2; tail -20 "$results/$variant.log" >&2; exit 2; }
  echo "  $variant: $(cat "$results/$variant.build") (wall user sys KiB)" >&2
}

build_one() {
  local variant=$1 dir target
  dir=$(tree "$variant")
  edit "$variant" "$dir"
  target="$work/target-$variant"
  case "$variant" in
    ship-no-mimalloc|ship-unstripped|ship-drop-command|ship-pie|ship-thp|ship-environ|ship-collect)
      # Only the last crate (or its link; for the mimalloc settings, mimalloc and the crates above it) changes:
      # start from the shipped build's artefacts. ship-pie is a variant
      # of ship-dynamic, whose directory it copies.
      local from="$work/target-ship"; [ "$variant" = ship-pie ] && from="$work/target-ship-dynamic"
      rm -rf "$target" && cp -a "$from" "$target" ;;
    *) rm -rf "$target" ;;
  esac
  local flags="$static"
  case "$variant" in ship-dynamic|ship-pie) flags="" ;; esac
  case "$variant" in
    ship-unstripped)
      (cd "$dir" && timed "$variant" env RUSTFLAGS="$flags" CARGO_TARGET_DIR="$target" \
        cargo rustc --profile dist --target "$host" --bin kubectl-capz -- -C strip=none)
      cp "$target/$host/dist/kubectl-capz" "$work/bin/$variant" ;;
    ship-release)
      (cd "$dir" && timed "$variant" env RUSTFLAGS="$flags" CARGO_TARGET_DIR="$target" \
        cargo build --release --target "$host" --bin kubectl-capz)
      cp "$target/$host/release/kubectl-capz" "$work/bin/$variant" ;;
    ship*)
      (cd "$dir" && timed "$variant" env RUSTFLAGS="$flags" CARGO_TARGET_DIR="$target" \
        cargo build --profile dist --target "$host" --bin kubectl-capz)
      cp "$target/$host/dist/kubectl-capz" "$work/bin/$variant" ;;
    test-no-incremental)
      (cd "$dir" && timed "$variant" env CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$target" cargo test --lib --tests --no-run) ;;
    test*)
      (cd "$dir" && timed "$variant" env CARGO_TARGET_DIR="$target" cargo test --lib --tests --no-run) ;;
    quick)
      (cd "$dir" && timed "$variant" env CARGO_TARGET_DIR="$target" cargo build --profile quick --bin kubectl-capz)
      cp "$target/quick/kubectl-capz" "$work/bin/$variant" ;;
    quick-dev)
      (cd "$dir" && timed "$variant" env CARGO_TARGET_DIR="$target" cargo build --bin kubectl-capz)
      cp "$target/debug/kubectl-capz" "$work/bin/$variant" ;;
  esac
  case "$variant" in test*) du -sk "$target" | cut -f1 >"$results/$variant.size" ;;
    *) stat -c %s "$work/bin/$variant" >"$results/$variant.size" ;; esac
  # The tree is only needed while building; the test variants' targets hold the unit-test binary for `tests`.
  case "$variant" in ship|ship-dynamic|test|test-deps-opt0|test-no-opt0-list) ;; *) rm -rf "$target" ;; esac
}

# The unit tests (the library's test binary) of a test variant, TEST_RUNS runs (default 3), wall and CPU.
tests_one() {
  local variant=$1 exe
  exe=$(ls -t "$work/target-$variant"/debug/deps/capz-* | grep -v '\.d$' | head -n 1)
  echo "+ $exe (x${TEST_RUNS:-3})" >&2
  : >"$results/$variant.tests"
  for _ in $(seq "${TEST_RUNS:-3}"); do
    (cd "$work/src-$variant" && /usr/bin/time -f "%e %U %S %M" -a -o "$results/$variant.tests" \
      env KUBECTL_CAPZ_AT=2025-11-15 "$exe" -q >/dev/null 2>&1) || true
  done
  echo "  $variant: $(tr '\n' ';' <"$results/$variant.tests")" >&2
}

measure() {
  local data="$work/data" present=() v
  for v in "${ship_variants[@]}" quick quick-dev; do [ -x "$work/bin/$v" ] && present+=("$v"); done
  mkdir -p "$data"
  export KUBECTL_CAPZ_AT=2025-11-15
  # The large workload: 1000 aks-aso clusters in one stream (scripts/gen-bundle.sh, as scripts/bench-validate.sh).
  [ -s "$data/aks-aso-1000.yaml" ] || CAPZ="$work/bin/ship" "$repo/scripts/gen-bundle.sh" 1000 "$data/aks-aso-1000.yaml"
  "$work/bin/ship" validate "$data/aks-aso-1000.yaml" >/dev/null || { echo "bench-settings: the bundle does not validate clean" >&2; exit 2; }
  local version=() big=()
  for v in "${present[@]}"; do
    case "$v" in quick|quick-dev) continue ;; esac
    version+=("$work/bin/$v version")
    big+=("$work/bin/$v validate $data/aks-aso-1000.yaml")
  done
  version+=("env MIMALLOC_ARENA_RESERVE=1GiB $work/bin/ship version")
  big+=("env MIMALLOC_ARENA_RESERVE=1GiB $work/bin/ship validate $data/aks-aso-1000.yaml")
  hyperfine --style basic -N --runs "${RUNS:-200}" --warmup 20 --export-json "$results/version.json" "${version[@]}" >&2
  hyperfine --style basic -N --runs "${BIG_RUNS:-15}" --warmup 2 --export-json "$results/validate.json" "${big[@]}" >&2
  : >"$results/counts.txt"
  for v in "${present[@]}" ship+arena1g; do
    local bin="$work/bin/${v%+arena1g}" pre=()
    [ "$v" = ship+arena1g ] && pre=(env MIMALLOC_ARENA_RESERVE=1GiB)
    local ir faults rss
    ir=$("${pre[@]}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" version 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    faults=$( { "${pre[@]}" /usr/bin/time -f "%R" "$bin" version >/dev/null; } 2>&1 | tail -n 1)
    case "$v" in quick|quick-dev) rss=- ;;
      *) rss=$( { "${pre[@]}" /usr/bin/time -f "%M" "$bin" validate "$data/aks-aso-1000.yaml" >/dev/null; } 2>&1 | tail -n 1) ;;
    esac
    echo "$v version_instructions=$ir version_minor_faults=$faults validate_peak_kib=$rss" | tee -a "$results/counts.txt" >&2
  done
}

case "${1:-}" in
  build) shift; [ $# -gt 0 ] || set -- "${ship_variants[@]}" "${test_variants[@]}" "${quick_variants[@]}"
    for v in "$@"; do build_one "$v"; done ;;
  measure) measure ;;
  tests) shift; [ $# -gt 0 ] || set -- test test-deps-opt0 test-no-opt0-list
    for v in "$@"; do tests_one "$v"; done ;;
  *) sed -n '2,35p' "$0" >&2; exit 2 ;;
esac
