#!/usr/bin/env bash
# The one command that runs every test of kubectl-capz, locally and in CI:
#   0. checks the formatting (`cargo fmt --check`) and the lints (`cargo clippy --all-targets -- -D warnings`),
#      when rustfmt and clippy are installed;
#   1. builds the real kube-apiserver + etcd for the live tests (tools/kube-testenv/build.sh; a no-op
#      when they are up to date, 5-20 minutes the very first time on 2 cores);
#   2. builds krew v0.5.0 and its manifest validator for tests/tooling/krew.rs (tools/krew/build.sh; seconds when warm),
#      and helm v3.18.6 for the repository-mode tests (tools/helm/build.sh; a few minutes cold, a second warm);
#   3. cargo test --all-targets --no-fail-fast (every test binary runs even after a failure, so one run
#      reports everything). The integration tests are five harnesses, tests/{cli,referee,corpora,live,tooling}/main.rs;
#      the live one starts one API server from those binaries for all its tests.
# Extra arguments go to cargo test, e.g. `scripts/test-all.sh --test live live_apiserver`.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The completion tests run kubectl's bash completion (bash-completion) and the fish script in a real fish.
missing=()
[ -e /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
command -v fish >/dev/null || missing+=(fish)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "apt-get install ${missing[*]} (for the completion tests)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "warning: ${missing[*]} missing: install them, or tests/tooling/completion.rs fails" >&2
  fi
fi

if cargo fmt --version >/dev/null 2>&1; then
  step "cargo fmt --check (rustfmt.toml)"
  cargo fmt --check
else
  echo "rustfmt is not installed: formatting not checked" >&2
fi

if cargo clippy --version >/dev/null 2>&1; then
  step "cargo clippy --all-targets -- -D warnings"
  cargo clippy --all-targets -- -D warnings
else
  echo "clippy is not installed: lints not checked" >&2
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

step "cargo test --all-targets --no-fail-fast $*"
t0=$SECONDS
cargo test --all-targets --no-fail-fast "$@"
echo "cargo test finished after $((SECONDS - t0))s" >&2
