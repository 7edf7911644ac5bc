#!/usr/bin/env bash
# Repository mode: `kubectl-capz validate TREE` on a GitOps tree that `render --fleet` wrote for N
# clusters (Flux objects: every kustomization.yaml and Flux Kustomization is followed), next to validating the same
# objects as one stream (the tree's manifests concatenated into one file, `validate FILE`), interleaved in one
# hyperfine run, plus peak RSS of both. Both runs must find nothing (exit 0).
#   SIZES="100 1000" RUNS=10 scripts/bench-repository.sh
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" hyperfine python3
sizes=${SIZES:-1000}
for n in $sizes; do
  fleet="$data/repo-fleet-$n.yaml"
  tree="$data/repo-tree-$n"
  stream="$data/repo-stream-$n.yaml"
  {
    python3 "$repo/scripts/gen-fleet.py" "$n"
    printf 'gitops:\n  kind: flux\n  sourceName: platform\n'
  } > "$fleet"
  rm -rf "$tree"
  "$CAPZ" render --fleet "$fleet" --out-dir "$tree" > /dev/null
  # The same objects as one stream: every manifest of the tree, kustomization.yaml files left out (they are
  # kustomize's input, not objects the controller applies).
  find "$tree" -name '*.yaml' ! -name kustomization.yaml | LC_ALL=C sort | while read -r file; do
    printf -- '---\n'; cat "$file"
  done > "$stream"
  for cmd in "$CAPZ validate $tree" "$CAPZ validate $stream"; do
    $cmd > "$data/repo-check.out" 2>&1 || { echo "FAILED (exit $?): $cmd" >&2; tail -20 "$data/repo-check.out" >&2; exit 1; }
  done
  echo "fleet of $n: $(find "$tree" -name '*.yaml' | wc -l) files, stream $(wc -c < "$stream") bytes" >&2
  bench "repository-$n" -- "$CAPZ validate $tree" "$CAPZ validate $stream"
  peak_rss "repository-$n-tree" "exec $CAPZ validate $tree"
  peak_rss "repository-$n-stream" "exec $CAPZ validate $stream"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
