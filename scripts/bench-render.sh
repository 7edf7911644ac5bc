#!/usr/bin/env bash
# Whole-process render time per flavor (issue 2), side by side in one hyperfine run per flavor:
#   kubectl-capz render FLAVOR demo                        (our flavor, clusterctl's environment variables)
#   kubectl-capz render --from cluster-template-FLAVOR.yaml (clusterctl template compatibility)
#   clusterctl generate cluster demo --from cluster-template-FLAVOR.yaml
# plus peak RSS of each. Output goes to /dev/null (hyperfine's default); results in .bench/results/render-*.
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$CLUSTERCTL" hyperfine
flavors=${FLAVORS:-aks aks-aso aks-clusterclass aks-aso-clusterclass aks-topology aks-aso-topology}
for flavor in $flavors; do
  template="$templates/cluster-template-$flavor.yaml"
  ours="$CAPZ render $flavor demo"
  compat="$CAPZ render --from $template demo"
  peer="$CLUSTERCTL generate cluster demo --from $template"
  # Correctness first: every command must succeed (a failing command would be timed as fast).
  for cmd in "$ours" "$compat" "$peer"; do
    $cmd > "$data/render-check.out" 2> "$data/render-check.err" || {
      echo "FAILED ($?): $cmd"; cat "$data/render-check.err"; exit 1; } >&2
  done
  if [ -f "$template" ]; then
    bench "render-$flavor" -- "$ours" "$compat" "$peer"
  else
    bench "render-$flavor" -- "$ours"
  fi
  peak_rss "render-$flavor-capz" "$ours"
  peak_rss "render-$flavor-capz-from" "$compat"
  peak_rss "render-$flavor-clusterctl" "$peer"
done
