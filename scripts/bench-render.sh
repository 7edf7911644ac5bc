#!/usr/bin/env bash
# Whole-process render time per flavor, side by side in one hyperfine run per flavor:
#   kubectl-capz render FLAVOR demo -n default                        (our flavor, clusterctl's variables)
#   kubectl-capz render --from cluster-template-FLAVOR.yaml demo -n default (clusterctl template compatibility)
#   clusterctl generate cluster demo -n default --from cluster-template-FLAVOR.yaml
# (-n: without a management cluster clusterctl cannot discover the namespace.)
# plus peak RSS of each. Output goes to /dev/null (hyperfine's default); results in .bench/results/render-*.
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$CLUSTERCTL" hyperfine
flavors=${FLAVORS:-aks aks-aso aks-clusterclass aks-aso-clusterclass aks-topology aks-aso-topology}
for flavor in $flavors; do
  template="$templates/cluster-template-$flavor.yaml"
  [ -f "$template" ] || { echo "missing $template" >&2; exit 2; }
  # A ClusterClass flavor takes no cluster name (its class is named by CLUSTER_CLASS_NAME, as in clusterctl).
  case $flavor in *-clusterclass) ours="$CAPZ render $flavor -n default" ;; *) ours="$CAPZ render $flavor demo -n default" ;; esac
  compat="$CAPZ render --from $template demo -n default"
  peer="$CLUSTERCTL generate cluster demo -n default --from $template"
  if [[ "$($ours 2>&1 >/dev/null || true)" == *"unknown flavor"* ]]; then
    echo "bench-render: $CAPZ has no flavor $flavor; skipped" >&2
    continue
  fi
  if [[ "$($compat 2>&1 >/dev/null || true)" == *"not built yet"* ]]; then
    echo "bench-render: \`render --from\` is not built in $CAPZ; measuring without it" >&2
    compat=""
  fi
  # Correctness first: every command must succeed (a failing command would be timed as fast).
  for cmd in "$ours" ${compat:+"$compat"} "$peer"; do
    $cmd > "$data/render-check.out" 2> "$data/render-check.err" || {
      echo "FAILED ($?): $cmd"; cat "$data/render-check.err"; exit 1; } >&2
  done
  bench "render-$flavor" -- "$ours" ${compat:+"$compat"} "$peer"
  peak_rss "render-$flavor-capz" "$ours"
  [ -z "$compat" ] || peak_rss "render-$flavor-capz-from" "$compat"
  peak_rss "render-$flavor-clusterctl" "$peer"
done
# Our flavors from the example values files (no clusterctl counterpart: clusterctl has no values files).
for flavor in aks aks-aso; do
  cmd="$CAPZ render $flavor demo -n default --values $repo/examples/$flavor.values.yaml"
  $cmd > /dev/null || { echo "FAILED: $cmd" >&2; exit 1; }
  bench "render-$flavor-values" -- "$cmd"
done
