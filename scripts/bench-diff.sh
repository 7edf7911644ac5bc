#!/usr/bin/env bash
# Benchmark: `kubectl capz diff` vs `kubectl diff --server-side` on the same inputs and server.
#
# Starts the test control plane (tools/kube-testenv, real kube-apiserver + etcd with the trimmed
# CRDs), applies N copies of CAPZ's aks-aso flavor (N = 1 and 100 by default), changes one field
# per cluster, then times both diffs (hyperfine if installed, else the best of RUNS runs).
#
# Usage: scripts/bench-diff.sh [N...]        env: RUNS (default 5), KEEP_DIR=1 to keep the inputs,
#        BENCH_KUBECONFIG=FILE to use an API server that is already running instead of starting one.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 100)
runs=${RUNS:-5}

bin_dir=tools/kube-testenv/bin
if [ -z "${BENCH_KUBECONFIG:-}" ]; then
  for b in kube-testenv kube-apiserver etcd; do
    [ -x "$bin_dir/$b" ] || { echo "missing $bin_dir/$b: run tools/kube-testenv/build.sh" >&2; exit 2; }
  done
fi
kubectl_bin=kubectl
[ -x "$bin_dir/kubectl" ] && kubectl_bin=$bin_dir/kubectl

echo "building kubectl-capz (release)..." >&2
cargo build --release --quiet --bin kubectl-capz
target_dir=${CARGO_TARGET_DIR:-target}
capz=$target_dir/release/kubectl-capz

work=$(mktemp -d)
cleanup() {
  # Closing the launcher's stdin makes it stop etcd and kube-apiserver and remove its temp dirs.
  if [ -n "${TESTENV_PID:-}" ]; then
    local fd=${TESTENV[1]:-}
    [ -n "$fd" ] && { exec {fd}>&-; } 2>/dev/null || true
    wait "$TESTENV_PID" 2>/dev/null || true
  fi
  [ -n "${KEEP_DIR:-}" ] && echo "inputs kept in $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${BENCH_KUBECONFIG:-}" ]; then
  export KUBECONFIG=$BENCH_KUBECONFIG
else
  echo "starting kube-testenv..." >&2
  coproc TESTENV { exec "$bin_dir/kube-testenv" -crd-dir tests/fixtures/crds 2>"$work/testenv.log"; }
  ready=""
  while read -r -t 300 line <&"${TESTENV[0]}"; do
    case $line in READY\ *) ready=$line; break ;; esac
  done
  [ -n "$ready" ] || { echo "kube-testenv did not get ready:" >&2; cat "$work/testenv.log" >&2; exit 2; }
  export KUBECONFIG=${ready#READY }; KUBECONFIG=${KUBECONFIG%% *}
fi

template=tests/fixtures/capz/cluster-template-aks-aso.yaml
render() { # render NAMESPACE CLUSTER DNS_PREFIX
  sed -e "s/\${CLUSTER_NAME}/$2/g" -e 's/\${WORKER_MACHINE_COUNT:=2}/2/g' \
      -e 's/\${KUBERNETES_VERSION}/v1.33.2/g' -e 's/\${AZURE_LOCATION}/westeurope/g' \
      -e 's/\${AZURE_NODE_MACHINE_TYPE}/Standard_D2s_v3/g' -e 's/\${ASO_CREDENTIAL_SECRET_NAME}/aso-credentials/g' \
      -e "s/namespace: default/namespace: $1/" -e "s/dnsPrefix: $2\$/dnsPrefix: $3/" "$template"
  echo "---"
}

time_cmd() { # time_cmd LABEL CMD... ; prints the best wall time of $runs runs
  local label=$1; shift
  if command -v hyperfine >/dev/null; then
    hyperfine --runs "$runs" --ignore-failure --style basic -n "$label" "$(printf '%q ' "$@")" >&2
  else
    local best="" t0 t1 ms
    for _ in $(seq "$runs"); do
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      ms=$(( (t1 - t0) / 1000000 ))
      { [ -z "$best" ] || [ "$ms" -lt "$best" ]; } && best=$ms
    done
    printf '%-40s best of %s: %6d ms\n' "$label" "$runs" "$best"
  fi
}

for n in "${counts[@]}"; do
  ns=bench-$n-$$
  "$kubectl_bin" create namespace "$ns" >/dev/null
  applied=$work/applied-$n.yaml desired=$work/desired-$n.yaml
  : >"$applied"; : >"$desired"
  for i in $(seq "$n"); do
    render "$ns" "c$i" "c$i" >>"$applied"
    render "$ns" "c$i" "c$i-changed" >>"$desired"
  done
  objects=$(grep -c '^kind:' "$applied")
  "$kubectl_bin" apply --server-side --field-manager kubectl-capz -f "$applied" >/dev/null
  echo "== $n cluster(s), $objects objects, one changed field per cluster =="
  time_cmd "kubectl diff --server-side ($n)" "$kubectl_bin" diff --server-side --field-manager kubectl-capz -f "$desired"
  time_cmd "kubectl capz diff ($n)" "$capz" diff -f "$desired"
  time_cmd "kubectl capz diff -o json ($n)" "$capz" diff -o json -f "$desired"
done
