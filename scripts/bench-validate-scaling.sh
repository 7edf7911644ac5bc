#!/usr/bin/env bash
# Validation at scale, both APIs: `kubectl-capz validate` vs kubeconform v0.7.0 side by side in one
# hyperfine run per size, on bundles of 10 / 100 / 1000 (SIZES) rendered classic (`aks`, AzureManagedControlPlane)
# and aks-aso clusters (scripts/gen-bundle.sh with FLAVOR), plus peak RSS of each. kubeconform gets the same
# schemas converted its way (scripts/gen-kubeconform-schemas.py), as in scripts/bench-validate.sh.
#   scripts/bench-validate-scaling.sh            (RUNS, RUNS_BIG for 1000 and more, SIZES, FLAVORS)
#   CAPZ_BASE=/path/to/older/kubectl-capz ...   (also times an older build in the same hyperfine run)
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$KUBECONFORM" hyperfine python3
sizes=${SIZES:-10 100 1000}
flavors=${FLAVORS:-aks aks-aso}
schemas="$data/kubeconform-schemas"
[ -d "$schemas" ] || python3 "$repo/scripts/gen-kubeconform-schemas.py" $(target_gvk_dirs) "$schemas"
kc="$KUBECONFORM -strict -summary -schema-location $schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for flavor in $flavors; do
  for n in $sizes; do
    input="$data/validate-$flavor-$n.yaml"
    [ -s "$input" ] || FLAVOR=$flavor "$repo/scripts/gen-bundle.sh" "$n" "$input"
    # Both accept every object (exit 0), kubeconform skips none.
    "$CAPZ" validate "$input" > "$data/validate-check.out" 2>&1 || {
      echo "FAILED ($?): kubectl-capz validate $input"; tail -20 "$data/validate-check.out"; exit 1; } >&2
    $kc "$input" > "$data/validate-check.out" 2>&1 || {
      echo "FAILED ($?): kubeconform $input"; tail -20 "$data/validate-check.out"; exit 1; } >&2
    grep -q "Skipped: 0" "$data/validate-check.out" || { echo "kubeconform skipped objects" >&2; exit 1; }
    runs=$RUNS; [ "$n" -ge 1000 ] && runs=${RUNS_BIG:-$RUNS}
    base=(); [ -n "${CAPZ_BASE:-}" ] && base=("$CAPZ_BASE validate $input")
    RUNS=$runs bench "validate-$flavor-$n" -- "$CAPZ validate $input" "$kc $input" "${base[@]}"
    peak_rss "validate-$flavor-$n-capz" "exec $CAPZ validate $input"
    peak_rss "validate-$flavor-$n-kubeconform" "exec $kc $input"
    echo "load average after $flavor $n: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  done
done
