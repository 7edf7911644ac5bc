#!/usr/bin/env bash
# The one command that runs every test of kubectl-capz, locally and in CI:
#   0. checks the formatting (`cargo fmt --check`);
#   1. builds the real kube-apiserver + etcd for the live tests (tools/kube-testenv/build.sh; a no-op
#      when they are up to date, 5-20 minutes the very first time on 2 cores);
#   2. builds krew v0.5.0 and its manifest validator for tests/tooling/krew.rs (tools/krew/build.sh; seconds when warm),
#      and helm v3.18.6 for the repository-mode tests (tools/helm/build.sh; a few minutes cold, a second warm);
#   3. builds every test target (`cargo test --lib --tests --no-run`: the unit tests, the harnesses and the plugin
#      binary they run; main.rs has no tests of its own, `test = false`) with clippy as the workspace's compiler
#      wrapper and `-D warnings`: the lints of `cargo clippy --all-targets -- -D warnings`, run on the crate while it
#      is compiled for the tests, instead of a second pass that type-checks every dependency again (3-4 minutes
#      cold on 2 cores). Without clippy installed the lints are skipped with a warning;
#   4. runs the test binaries: the live harness (one kube-apiserver for all its tests, which waits on the server
#      much of the time) in the background, the unit tests and the other harnesses
#      (tests/{cli,corpora,referee,tooling}/main.rs) one after another beside it. Every binary runs even after a
#      failure, so one run reports everything; the summary lists each binary's result and time.
# Extra arguments skip step 4's split and go to `cargo test` as they are, e.g.
# `scripts/test-all.sh --test live live_apiserver`.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The completion tests run kubectl's bash completion (bash-completion) and the fish script in a real fish;
# tests/corpora/repo_hostile.rs traces repository mode's child processes with strace.
missing=()
[ -e /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
command -v fish >/dev/null || missing+=(fish)
command -v strace >/dev/null || missing+=(strace)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "apt-get install ${missing[*]} (for the completion tests and the strace of the hostile repository)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "warning: ${missing[*]} missing: install them, or tests/tooling/completion.rs and tests/corpora/repo_hostile.rs fail" >&2
  fi
fi

if cargo fmt --version >/dev/null 2>&1; then
  step "cargo fmt --check (rustfmt.toml)"
  cargo fmt --check
else
  echo "rustfmt is not installed: formatting not checked" >&2
fi

step "kube-testenv: real kube-apiserver + etcd for live tests"
t0=$SECONDS
tools/kube-testenv/build.sh
echo "kube-testenv ready after $((SECONDS - t0))s" >&2

step "krew tools: krew and validate-krew-manifest v0.5.0 for tests/tooling/krew.rs"
t0=$SECONDS
tools/krew/build.sh
echo "krew tools ready after $((SECONDS - t0))s" >&2

step "helm v3.18.6 for the repository-mode tests (charts rendered with helm template)"
t0=$SECONDS
tools/helm/build.sh
echo "helm ready after $((SECONDS - t0))s" >&2

# Clippy as the compiler wrapper of this workspace's crates (what `cargo clippy` itself sets up), so the lints run
# while the test binaries are compiled. Dependencies are compiled by plain rustc either way.
if cargo clippy --version >/dev/null 2>&1 && command -v clippy-driver >/dev/null; then
  export RUSTC_WORKSPACE_WRAPPER=clippy-driver
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
  lints="with clippy's lints (-D warnings)"
else
  echo "warning: clippy is not installed: lints not checked" >&2
  lints="without lints"
fi

if [ $# -gt 0 ]; then
  step "cargo test --no-fail-fast $* ($lints)"
  exec cargo test --no-fail-fast "$@"
fi

step "building every test target $lints"
t0=$SECONDS
logs=target/test-logs
mkdir -p "$logs"
cargo test --lib --tests --no-run --message-format=json-render-diagnostics >"$logs/artifacts.json"
echo "test build finished after $((SECONDS - t0))s" >&2
# One line per test binary: its name, then its path (the plugin binary itself is not a test artifact), in the order
# they run: live first (in the background), then cli, whose 2,000-cluster kill test is one long test that leaves a
# core to live, and the unit tests last, which keep both cores busy once live has finished (cargo's artifact order
# varies; in a cold run of 2026-11-29 cli ran last and alone for 77 s).
python3 - "$logs/artifacts.json" >"$logs/binaries.txt" <<'PY'
import json, sys
ORDER = ["live", "cli", "referee", "corpora", "tooling", "unit-lib"]
binaries = []
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["profile"]["test"]:
        target = msg["target"]
        name = "unit-" + target["kind"][0] if target["kind"][0] in ("lib", "bin") else target["name"]
        binaries.append((name, msg["executable"]))
binaries.sort(key=lambda b: (ORDER.index(b[0]) if b[0] in ORDER else len(ORDER), b[0]))
for name, executable in binaries:
    print(name, executable)
PY

run_binary() { # name path -> its output in $logs/name.log, "name exit-code seconds" in $logs/name.status
  local name=$1 exe=$2 began=$SECONDS rc=0
  "$exe" >"$logs/$name.log" 2>&1 || rc=$?
  echo "$name $rc $((SECONDS - began))" >"$logs/$name.status"
}

step "running the test binaries (live in the background)"
t0=$SECONDS
rm -f "$logs"/*.status
background_pid=
while read -r name exe; do
  if [ "$name" = live ]; then
    run_binary "$name" "$exe" &
    background_pid=$!
  fi
done <"$logs/binaries.txt"
while read -r name exe; do
  [ "$name" = live ] && continue
  step "$name ($exe)"
  run_binary "$name" "$exe"
  cat "$logs/$name.log"
done <"$logs/binaries.txt"
if [ -n "$background_pid" ]; then
  wait "$background_pid" || true
  step "live (ran in the background)"
  cat "$logs/live.log"
fi

step "summary: test binaries run in $((SECONDS - t0))s"
failed=0
while read -r name exe; do
  read -r _ rc seconds <"$logs/$name.status" || { rc=missing seconds=?; }
  result=$(grep -E '^test result:' "$logs/$name.log" | tail -1)
  printf '%-12s exit %-3s %4ss  %s\n' "$name" "$rc" "$seconds" "${result:-no test result line}" >&2
  [ "$rc" = 0 ] || failed=1
done <"$logs/binaries.txt"
exit "$failed"
