#!/usr/bin/env bash
# Diff: `kubectl-capz diff -f` vs `kubectl diff --server-side -f`, same kube-apiserver, same inputs,
# side by side in one hyperfine run, for bundles of 1 and 100 aks-aso clusters (scripts/gen-bundle.sh).
# The server is tools/kube-testenv (real kube-apiserver + etcd, CRDs of tests/fixtures/crds). Each bundle is
# first applied server-side (field manager kubectl-capz); the diffed input is the same bundle with
# kubernetesVersion v1.33.2 -> v1.33.3 (an upgrade: a few changed fields per cluster). Both tools use the same
# field manager, so neither reports ownership conflicts. Also peak RSS of each.
# Knobs: DIFF_SIZES (default "1 100"), KUBE_TESTENV_BIN (dir with kube-testenv, kube-apiserver, etcd),
# BENCH_KUBECONFIG=FILE to use an API server that is already running (with the CRDs) instead of starting one.
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" hyperfine "$KUBECTL"
if "$CAPZ" diff -f /dev/null 2>&1 | grep -q "not built yet"; then
  echo "bench-diff: \`kubectl-capz diff\` is not built in $CAPZ; nothing to measure" >&2; exit 3
fi
work=$(mktemp -d)
cleanup() {
  # Closing the launcher's stdin stops etcd and kube-apiserver and removes their temporary directory.
  if [ -n "${TESTENV_PID:-}" ]; then
    local fd=${TESTENV[1]:-}
    [ -n "$fd" ] && { exec {fd}>&-; } 2>/dev/null || true
    wait "$TESTENV_PID" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -n "${BENCH_KUBECONFIG:-}" ]; then
  export KUBECONFIG=$BENCH_KUBECONFIG
else
  testenv_bin=${KUBE_TESTENV_BIN:-$repo/tools/kube-testenv/bin}
  for b in kube-testenv kube-apiserver etcd; do
    [ -x "$testenv_bin/$b" ] || { echo "missing $testenv_bin/$b: run tools/kube-testenv/build.sh" >&2; exit 2; }
  done
  crds=${CRD_DIR:-$repo/tests/fixtures/crds}
  [ -d "$crds" ] || { echo "missing $crds (trimmed CRDs of kube-testenv)" >&2; exit 2; }
  echo "+ $testenv_bin/kube-testenv -crd-dir $crds" >&2
  coproc TESTENV { exec "$testenv_bin/kube-testenv" -crd-dir "$crds" 2> "$work/testenv.log"; }
  ready=""
  while read -r -t 300 line <&"${TESTENV[0]}"; do
    case $line in READY\ *) ready=$line; break ;; esac
  done
  [ -n "$ready" ] || { echo "kube-testenv did not get ready:" >&2; cat "$work/testenv.log" >&2; exit 2; }
  export KUBECONFIG=${ready#READY }; KUBECONFIG=${KUBECONFIG%% *}
  echo "kube-testenv ready; $("$testenv_bin/kube-apiserver" --version 2>/dev/null)" >&2
fi
for i in 0 1 2 3 4 5 6 7; do
  "$KUBECTL" create namespace "team-$i" --dry-run=client -o yaml | "$KUBECTL" apply -f - > /dev/null
done

for n in ${DIFF_SIZES:-1 100}; do
  applied="$data/diff-$n-applied.yaml" desired="$data/diff-$n-desired.yaml"
  "$repo/scripts/gen-bundle.sh" "$n" "$applied"
  sed 's/v1\.33\.2/v1.33.3/g' "$applied" > "$desired"
  echo "+ $KUBECTL apply --server-side --field-manager kubectl-capz -f $applied" >&2
  "$KUBECTL" apply --server-side --field-manager kubectl-capz -f "$applied" > /dev/null
  ours="$CAPZ diff -f $desired"
  peer="$KUBECTL diff --server-side --field-manager kubectl-capz -f $desired"
  # Correctness first: both must find differences (exit 1), and nothing is written (a second run agrees).
  for cmd in "$ours" "$peer"; do
    rc=0; $cmd > "$data/diff-check.out" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || { echo "FAILED: '$cmd' exited $rc (expected 1: differences)"; tail -20 "$data/diff-check.out"; exit 1; } >&2
    echo "  $(grep -c '^[-+] ' "$data/diff-check.out" || true) changed lines from: $cmd" >&2
  done
  rc=0; "$KUBECTL" diff --server-side --field-manager kubectl-capz -f "$applied" > /dev/null 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { echo "the applied bundle differs from the server after diffing (exit $rc)" >&2; exit 1; }
  bench "diff-$n" -i -- "$ours" "$peer"
  peak_rss "diff-$n-capz" "exec $ours"
  peak_rss "diff-$n-kubectl" "exec $peer"
done
