#!/usr/bin/env bash
# Validation: `kubectl-capz validate` vs kubeconform v0.7.0 (built from its Go module), side by side
# in one hyperfine run, on one rendered aks-aso bundle and on a bundle of 1000 clusters (scripts/gen-bundle.sh).
# kubeconform gets the same schemas (schemas/gvk, from the same upstream CRDs) converted its way by
# scripts/gen-kubeconform-schemas.py (what its openapi2jsonschema.py does), read from local files.
# Also peak RSS of each. kubeconform runs with its defaults (-n 4 workers) plus -strict -summary.
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$KUBECONFORM" hyperfine python3
if "$CAPZ" validate --help >/dev/null 2>&1 && ! "$CAPZ" validate /dev/null 2>&1 | grep -q "not built yet"; then :; else
  echo "bench-validate: \`kubectl-capz validate\` is not built in $CAPZ; nothing to measure" >&2; exit 3
fi
schemas="$data/kubeconform-schemas"
rm -rf "$schemas"
python3 "$repo/scripts/gen-kubeconform-schemas.py" $(target_gvk_dirs) "$schemas"
"$CAPZ" render aks-aso demo > "$data/validate-1.yaml"
[ -s "$data/validate-1000.yaml" ] || "$repo/scripts/gen-bundle.sh" 1000 "$data/validate-1000.yaml"
kc="$KUBECONFORM -strict -summary -schema-location $schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"

for n in 1 1000; do
  input="$data/validate-$n.yaml"
  # Correctness first: both must accept every object of the bundle (exit 0), with no skipped kind.
  echo "+ $CAPZ validate $input" >&2
  "$CAPZ" validate "$input" > "$data/validate-check.out" 2>&1 || {
    echo "FAILED ($?): kubectl-capz validate $input"; tail -20 "$data/validate-check.out"; exit 1; } >&2
  echo "+ $kc $input" >&2
  $kc "$input" > "$data/validate-check.out" 2>&1 || {
    echo "FAILED ($?): kubeconform $input"; tail -20 "$data/validate-check.out"; exit 1; } >&2
  tail -1 "$data/validate-check.out" >&2
  grep -q "Skipped: 0" "$data/validate-check.out" || { echo "kubeconform skipped objects" >&2; exit 1; }
  runs=$RUNS; [ "$n" -gt 1 ] && runs=${RUNS_BIG:-$RUNS}
  RUNS=$runs bench "validate-$n" -- "$CAPZ validate $input" "$kc $input"
  peak_rss "validate-$n-capz" "exec $CAPZ validate $input"
  peak_rss "validate-$n-kubeconform" "exec $kc $input"
done
