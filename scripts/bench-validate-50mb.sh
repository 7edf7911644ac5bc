#!/usr/bin/env bash
# Validation of a 50 MB stream: `kubectl-capz validate` vs kubeconform v0.7.0 on one multi-document file
# of 15000 rendered aks-aso clusters (105000 objects, 49.4 MB; scripts/gen-bundle.sh), wall time in one hyperfine
# run and peak RSS of each. CAPZ_BEFORE=<binary> adds an older kubectl-capz to the same run (before/after);
# NAMESPACES=1 puts every cluster in one namespace (see scripts/gen-fleet.py).
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$KUBECONFORM" hyperfine python3
n=${CLUSTERS:-15000}
tag="$n${NAMESPACES:+-ns$NAMESPACES}"
input="$data/validate-$tag.yaml"
[ -s "$input" ] || "$repo/scripts/gen-bundle.sh" "$n" "$input"
schemas="$data/kubeconform-schemas"
rm -rf "$schemas"
python3 "$repo/scripts/gen-kubeconform-schemas.py" $(target_gvk_dirs) "$schemas"
kc="$KUBECONFORM -strict -summary -schema-location $schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
commands=("$CAPZ validate $input")
[ -n "${CAPZ_BEFORE:-}" ] && commands+=("$CAPZ_BEFORE validate $input")
commands+=("$kc $input")
# Correctness first: every command accepts the bundle (exit 0); both kubectl-capz print the same findings.
for cmd in "${commands[@]}"; do
  echo "+ $cmd" >&2
  $cmd > "$data/validate-50mb-$(echo "$cmd" | md5sum | cut -c1-8).out" 2>&1 || { echo "FAILED ($?): $cmd" >&2; exit 1; }
done
RUNS=${RUNS_BIG:-3} bench "validate-$tag" -- "${commands[@]}"
peak_rss "validate-$tag-capz" "exec $CAPZ validate $input"
[ -n "${CAPZ_BEFORE:-}" ] && peak_rss "validate-$tag-capz-before" "exec $CAPZ_BEFORE validate $input"
peak_rss "validate-$tag-capz-json" "exec $CAPZ validate -o json $input"
[ -n "${CAPZ_BEFORE:-}" ] && peak_rss "validate-$tag-capz-before-json" "exec $CAPZ_BEFORE validate -o json $input"
peak_rss "validate-$tag-kubeconform" "exec $kc $input"
