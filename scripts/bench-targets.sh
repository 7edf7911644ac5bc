#!/usr/bin/env bash
# One run against several CAPZ targets: `validate --capz-version v1.27,v1.28` on 1000 aks-aso clusters
# (scripts/gen-bundle.sh) next to `validate --capz-version v1.27` alone, the two single-target runs one after the
# other, and kubeconform v0.7.0 run once per target's schemas (what a CI job without our merge would do), in one
# hyperfine run; plus the peak RSS of the one-target and the two-target run.
#   scripts/bench-targets.sh            (RUNS, N: the clusters, default 1000)
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" "$KUBECONFORM" hyperfine python3
n=${N:-1000}
input="$data/validate-aks-aso-$n.yaml"
[ -s "$input" ] || CAPZ="$CAPZ" FLAVOR=aks-aso "$repo/scripts/gen-bundle.sh" "$n" "$input"
# The schemas of each target, converted for kubeconform.
declare -A releases=(
  [v1.27]="capi-v1.14 capz-v1.27 aso-v2.19 gitops kubernetes-v1.36"
  [v1.28]="capi-v1.14 capz-v1.28 aso-v2.20 gitops kubernetes-v1.36"
)
kc=()
for target in v1.27 v1.28; do
  schemas="$data/kubeconform-schemas-$target"
  # shellcheck disable=SC2046 # one directory per word
  [ -d "$schemas" ] || python3 "$repo/scripts/gen-kubeconform-schemas.py" \
    $(TARGET_RELEASES="${releases[$target]}" target_gvk_dirs) "$schemas"
  kc+=("$KUBECONFORM -strict -summary -schema-location $schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json $input")
done
one="$CAPZ validate --capz-version v1.27 $input"
two="$CAPZ validate --capz-version v1.27,v1.28 $input"
# Every command accepts every object (exit 0); kubeconform skips none; the two-target run says it checked both.
for cmd in "$one" "$two" "${kc[@]}"; do
  $cmd > "$data/targets-check.out" 2>&1 || { echo "FAILED ($?): $cmd"; tail -20 "$data/targets-check.out"; exit 1; } >&2
done
$two 2>&1 >/dev/null | grep -q "checked against CAPZ v1.27 and v1.28" || { echo "no two-target run" >&2; exit 1; }
for cmd in "${kc[@]}"; do
  $cmd 2>&1 | grep -q "Skipped: 0" || { echo "kubeconform skipped objects: $cmd" >&2; exit 1; }
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
bench "validate-targets-$n" -- "$one" "$two" "bash -c '$one && $CAPZ validate --capz-version v1.28 $input'" \
  "bash -c '${kc[0]} && ${kc[1]}'"
peak_rss "validate-targets-$n-one" "exec $one"
peak_rss "validate-targets-$n-two" "exec $two"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
