#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a given time each (default 60 s), seeded from
# fuzz/seeds/<target>, fuzz/regressions/<target> and the repository's fixtures, and prints the
# execution count libFuzzer reports. Crashes land in fuzz/artifacts/<target>/: copy each into
# fuzz/regressions/<target>/ once fixed (tests/corpora/fuzz_regressions.rs replays them on stable).
#
# Needs nightly Rust and cargo-fuzz (`cargo install cargo-fuzz`).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Env: FUZZ_JOBS (parallel libFuzzer workers per target, default 1), NICE (default 15),
#      FAST=1 (build without `-sanitizer-coverage-trace-compares` into fuzz/target-fast: about twice the
#      executions per second, coarser guidance; the volume runs of FUZZING.md use it on the corpus the
#      default build grew).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(envsubst manifest_roundtrip params gotemplate validate plan escape read_budget)
fi
jobs="${FUZZ_JOBS:-1}"
cd "$root/fuzz"
# -s none: safe Rust needs no AddressSanitizer and builds much faster; -a (debug assertions)
# turns integer overflow into a crash, which is what we look for.
build_flags=(-s none -a)
[ "${FAST:-0}" = 1 ] && build_flags+=(--no-trace-compares --target-dir "$root/fuzz/target-fast")
nice -n "${NICE:-15}" cargo +nightly fuzz build "${build_flags[@]}"
for target in "${targets[@]}"; do
  corpus="corpus/$target"
  mkdir -p "$corpus" "artifacts/$target"
  for dir in "seeds/$target" "regressions/$target"; do
    [ -d "$dir" ] && cp -n "$dir"/* "$corpus"/ 2>/dev/null || true
  done
  case "$target" in
    plan|validate|manifest_roundtrip|read_budget)
      cp -n "$root"/tests/fixtures/topology/upstream/*.yaml "$root"/tests/fixtures/topology/custom/*.yaml "$corpus"/ ;;
  esac
  dict=()
  [ -f "dictionaries/$target.dict" ] && dict=("-dict=$root/fuzz/dictionaries/$target.dict")
  log="artifacts/$target/fuzz.log"
  echo "== $target: ${seconds}s, $jobs job(s), log $log"
  # libFuzzer writes its workers' logs (fuzz-N.log) into the working directory: give each target
  # its own, so that runs of different targets at the same time keep their counts apart.
  workdir="$root/fuzz/artifacts/$target/work"
  rm -rf "$workdir" && mkdir -p "$workdir"
  (cd "$workdir" && nice -n "${NICE:-15}" cargo +nightly fuzz run --fuzz-dir "$root/fuzz" "${build_flags[@]}" "$target" \
    "$root/fuzz/$corpus" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$root/fuzz/artifacts/$target/" -print_final_stats=1 "${dict[@]}" \
    -jobs="$jobs" -workers="$jobs") >"$log" 2>&1 || echo "!! $target stopped with a finding: see $log"
  # The workers' logs (fuzz-N.log) are copied into $log at the end: count the stats there once.
  grep -h "stat::number_of_executed_units" "$log" \
    | awk -v t="$target" '{s+=$2} END {print "   " t ": " s " executions"}'
  rm -rf "$workdir"
done
