#!/usr/bin/env bash
# Writes one multi-document YAML bundle of N rendered aks-aso clusters (deterministic) to OUT:
#   scripts/gen-bundle.sh N OUT            (NAMESPACES=1: every cluster in one namespace, see gen-fleet.py)
#   FLAVOR=aks scripts/gen-bundle.sh N OUT (classic clusters: CAPZ's `aks` flavor)
# The clusters come from `kubectl-capz render --fleet` over scripts/gen-fleet.py N (distinct names,
# namespaces, regions, pool layouts); their cluster.yaml files are concatenated in path order.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: gen-bundle.sh N OUT" >&2; exit 2; }
n=$1 out=$2
capz=${CAPZ:-${CARGO_TARGET_DIR:-$repo/target}/dist/kubectl-capz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$repo/scripts/gen-fleet.py" "$n" > "$work/fleet.yaml"
"$capz" render --fleet "$work/fleet.yaml" --out-dir "$work/tree" --no-validate > /dev/null 2>&1 || {
  echo "gen-bundle: render --fleet failed:" >&2
  "$capz" render --fleet "$work/fleet.yaml" --out-dir "$work/tree2" --no-validate >&2; exit 1; }
find "$work/tree/clusters" -name cluster.yaml | LC_ALL=C sort | while read -r f; do
  cat "$f"
  [ "$(tail -c1 "$f")" = "" ] || echo
  echo "---"
done > "$out.tmp"
mv "$out.tmp" "$out"
echo "gen-bundle: $n clusters, $(grep -c '^kind:' "$out") objects, $(wc -c < "$out") bytes -> $out" >&2
