#!/usr/bin/env bash
# The change review: `kubectl-capz diff --base HEAD TREE` on a GitOps tree that `render --fleet` wrote for N
# clusters (Flux objects), committed in a git repository, with one cluster's pool count changed in the working tree,
# next to one repository-mode `validate TREE` of the same tree, interleaved in one hyperfine run, plus peak RSS of
# both. The diff must find exactly that change (exit 1), validate nothing (exit 0).
#   SIZES="1000" RUNS=10 scripts/bench-change.sh
source "$(dirname "$0")/bench-common.sh"
need "$CAPZ" hyperfine python3 git
sizes=${SIZES:-1000}
for n in $sizes; do
  fleet="$data/change-fleet-$n.yaml"
  tree="$data/change-tree-$n"
  {
    python3 "$repo/scripts/gen-fleet.py" "$n"
    printf 'gitops:\n  kind: flux\n  sourceName: platform\n'
  } > "$fleet"
  rm -rf "$tree"
  "$CAPZ" render --fleet "$fleet" --out-dir "$tree" > /dev/null
  git -C "$tree" init -q -b main
  git -C "$tree" add -A
  git -C "$tree" -c user.email=bench@example.com -c user.name=bench commit -q -m base
  # One change: the first cluster's first pool gets one node more.
  file=$(grep -rl "kind: MachinePool" "$tree" | LC_ALL=C sort | sed -n 1p)
  python3 - "$file" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
new, count = re.subn(r"(\n  replicas: )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), text, count=1)
assert count == 1, path
open(path, "w").write(new)
PY
  "$CAPZ" diff --base HEAD "$tree" -o json > "$data/change-check.json" && { echo "diff found no change" >&2; exit 1; } || true
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['summary']=={'removed':0,'added':0,'changed':1}, r['summary']" "$data/change-check.json"
  "$CAPZ" validate "$tree" > "$data/change-validate.out" 2>&1 || { echo "validate found something:" >&2; tail "$data/change-validate.out" >&2; exit 1; }
  echo "fleet of $n: $(find "$tree" -name '*.yaml' | wc -l) files, one change: $file" >&2
  bench "change-$n" -i -- "$CAPZ validate $tree" "$CAPZ diff --base HEAD $tree"
  peak_rss "change-$n-validate" "exec $CAPZ validate $tree"
  peak_rss "change-$n-diff-base" "exec $CAPZ diff --base HEAD $tree"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
