#!/usr/bin/env bash
# The staged copy of repository mode: `validate TREE` on a `render --fleet` tree of N clusters as written
# (every kustomization only lists local files: read directly, no tool runs, no stage is made) and on the same tree
# with one cluster's kustomization given `commonAnnotations` (kustomize builds that one, so the stage is made and
# holds what that build names), with the stage on the tree's file system (hard links) and on another one (copies,
# TMPDIR=/dev/shm when the tree is on disk). Prints how many files each run staged (strace, when installed). Set
# CAPZ_OTHER to a second binary (an older build) to time it beside CAPZ.
#   SIZES=1000 RUNS=15 scripts/bench-stage.sh
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" hyperfine python3
sizes=${SIZES:-1000}
for n in $sizes; do
  fleet="$data/stage-fleet-$n.yaml"
  tree="$data/stage-tree-$n"
  custom="$data/stage-tree-custom-$n"
  {
    python3 "$repo/scripts/gen-fleet.py" "$n"
    printf 'gitops:\n  kind: flux\n  sourceName: platform\n'
  } > "$fleet"
  rm -rf "$tree" "$custom"
  "$CAPZ" render --fleet "$fleet" --out-dir "$tree" > /dev/null
  cp -a "$tree" "$custom"
  first=$(find "$custom/clusters" -name kustomization.yaml | LC_ALL=C sort | head -1)
  printf 'commonAnnotations:\n  example.com/owner: bench\n' >> "$first"
  echo "fleet of $n: $(find "$tree" -type f | wc -l) files; $first built by kustomize" >&2
  if command -v strace > /dev/null; then
    for t in "$tree" "$custom"; do
      strace -f -qq -e trace=link,linkat -o "$data/stage.trace" "$CAPZ" validate "$t" > /dev/null 2>&1 || true
      echo "  $(basename "$t"): $(grep -c 'link' "$data/stage.trace") files hard-linked into the stage" >&2
    done
  fi
  commands=("$CAPZ validate $tree" "$CAPZ validate $custom" "env TMPDIR=/dev/shm $CAPZ validate $custom")
  if [ -n "${CAPZ_OTHER:-}" ]; then
    commands+=("$CAPZ_OTHER validate $custom" "env TMPDIR=/dev/shm $CAPZ_OTHER validate $custom")
  fi
  bench "stage-$n" -- "${commands[@]}"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
