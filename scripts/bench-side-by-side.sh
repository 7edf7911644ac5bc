#!/usr/bin/env bash
# Every row of the peers' table in one run, each kubectl-capz command side by side with its peer in one hyperfine
# invocation (hyperfine runs the two back to back, so both see the same machine load), then
# the 10 / 100 / 1000 / 10000-cluster validate table for both APIs (classic `aks` and `aks-aso`). Prints the
# Markdown tables (median, min-max, peak RSS median of RSS_RUNS runs of /usr/bin/time, load average before each
# row) from .bench/results/i22-*; the raw hyperfine JSON stays there.
#   scripts/bench-side-by-side.sh    (knobs: RUNS, RUNS_BIG for the 1000+ cluster rows, SIZES, CLUSTERS_FLEET, CLUSTERS_50MB)
#   RUNS=2 RUNS_BIG=1 RSS_RUNS=1 SIZES="10 100" CLUSTERS_50MB=300 scripts/bench-side-by-side.sh   (a quick check)
# A peer missing from .bench/bin (scripts/bench-setup.sh) leaves its rows with kubectl-capz alone.
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" hyperfine python3
sizes=${SIZES:-10 100 1000 10000}
have() { [ -x "$1" ]; }
load() { cut -d' ' -f1 /proc/loadavg; }
rows="$results/i22-rows.tsv"
: > "$rows"
# row KEY LABEL 'ours' ['peer']: one hyperfine run of both, then peak RSS of each.
row() {
  local key=$1 label=$2 ours=$3 peer=${4:-} l
  l=$(load)
  for cmd in "$ours" ${peer:+"$peer"}; do
    bash -c "$cmd" > /dev/null 2> "$data/i22-check.err" || [ $? -eq 1 ] || {
      echo "FAILED: $cmd"; tail -5 "$data/i22-check.err"; exit 1; } >&2
  done
  bench "i22-$key" ${PREPARE:+--prepare "$PREPARE"} -- "$ours" ${peer:+"$peer"}
  peak_rss "i22-$key-0" "${PREPARE:+$PREPARE; }exec $ours"
  [ -z "$peer" ] || peak_rss "i22-$key-1" "${PREPARE:+$PREPARE; }exec $peer"
  printf '%s\t%s\t%s\n' "$key" "$label" "$l" >> "$rows"
}

# kubeconform's schemas: the default target's, converted its way (as scripts/bench-validate.sh).
kc=""
if have "$KUBECONFORM"; then
  schemas="$data/kubeconform-schemas"
  [ -d "$schemas" ] || python3 "$repo/scripts/gen-kubeconform-schemas.py" $(target_gvk_dirs) "$schemas"
  kc="$KUBECONFORM -strict -summary -schema-location $schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
fi
peer_kc() { [ -z "$kc" ] || echo "$kc $1"; }
bundle() { # bundle FLAVOR N -> path of a bundle of N rendered clusters
  local input="$data/validate-$1-$2.yaml"
  [ -s "$input" ] || FLAVOR=$1 "$repo/scripts/gen-bundle.sh" "$2" "$input"
  echo "$input"
}

# Start-up floor: a Rust hello-world built here with the same rustc.
hello="$data/hello"
[ -x "$hello" ] || { echo 'fn main() { println!("hello"); }' > "$data/hello.rs" && rustc -O -o "$hello" "$data/hello.rs"; }
template="$templates/cluster-template-aks-aso.yaml"
clusterctl=""
have "$CLUSTERCTL" && [ -f "$template" ] && clusterctl="$CLUSTERCTL generate cluster demo -n default --from $template"
"$CAPZ" render aks-aso demo -n default > "$data/validate-1.yaml"
row render "\`render aks-aso demo\` vs clusterctl \`generate cluster --from\`" "$CAPZ render aks-aso demo -n default" "$clusterctl"
row validate-1 "\`validate\` one aks-aso bundle vs kubeconform" "$CAPZ validate $data/validate-1.yaml" "$(peer_kc "$data/validate-1.yaml")"
n=${CLUSTERS_FLEET:-1000}
RUNS=${RUNS_BIG:-$RUNS} row validate-aso-$n "\`validate\` $n aks-aso clusters vs kubeconform" \
  "$CAPZ validate $(bundle aks-aso "$n")" "$(peer_kc "$(bundle aks-aso "$n")")"
RUNS=${RUNS_BIG:-$RUNS} row validate-aks-$n "\`validate\` $n classic (aks) clusters vs kubeconform" \
  "$CAPZ validate $(bundle aks "$n")" "$(peer_kc "$(bundle aks "$n")")"
big=$(bundle aks-aso "${CLUSTERS_50MB:-15000}")
RUNS=${RUNS_BIG:-$RUNS} row validate-stream "\`validate\` $(awk "BEGIN {printf \"%.1f\", $(wc -c < "$big") / 1e6}") MB stream vs kubeconform" \
  "$CAPZ validate $big" "$(peer_kc "$big")"
python3 "$repo/scripts/gen-fleet.py" "$n" > "$data/fleet-$n.yaml"
out="$data/i22-fleet-out"
# Each fresh run's previous tree is moved aside, not deleted, and the moved trees are deleted after the row: on ext4
# without a journal (this VM's disk) creating a file skips every inode deleted in the last minutes one by one, so an
# `rm -rf` of 4000 inodes before each run made the next run's creates cost up to 1.8 s of system time (BENCHMARKS.md,
# "Earlier runs, summarised", "render --fleet"), which measured the benchmark's deletions, not the tool.
trash="$data/i22-fleet-trash"
mkdir -p "$trash"; [ ! -e "$out" ] || mv "$out" "$trash/previous-$$"
RUNS=${RUNS_BIG:-$RUNS} PREPARE="bash -c '[ ! -e $out ] || mv $out $trash/\$(date +%s%N)'" row fleet-fresh "\`render --fleet\` $n clusters, fresh directory" \
  "$CAPZ render --fleet $data/fleet-$n.yaml --out-dir $out"
rm -rf "$trash"
RUNS=${RUNS_BIG:-$RUNS} row fleet-rerun "\`render --fleet\` $n clusters, unchanged re-run" \
  "$CAPZ render --fleet $data/fleet-$n.yaml --out-dir $out"
row version "\`kubectl-capz version\` vs a Rust hello-world" "$CAPZ version" "$hello"

# Cost growing linearly: both APIs at every size.
for flavor in aks aks-aso; do
  for s in $sizes; do
    input=$(bundle "$flavor" "$s")
    runs=$RUNS; [ "$s" -ge 1000 ] && runs=${RUNS_BIG:-$RUNS}
    RUNS=$runs row "scale-$flavor-$s" "$flavor $s" "$CAPZ validate $input" "$(peer_kc "$input")"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 "$repo/scripts/bench-side-by-side-report.py" "$results"
