#!/usr/bin/env bash
# Compares what two kubectl-capz binaries say about the same inputs, byte for byte: `validate -o json` and
# `validate -o text` (stdout, stderr, exit code) of every fixture repository (tests/fixtures/repos/*, read as
# repositories), of the validation corpus (tests/corpus/{valid,invalid}), and of `render --fleet` trees (the
# example fleet and a generated 50-cluster fleet of each API, written by each binary and then validated by it).
# For refactors that must not change behaviour: run it with the binary built before and the one built after.
#
#   scripts/compare-reports.sh OLD_BINARY NEW_BINARY [OUT_DIR]
#
# Exits 0 when every output is identical, 1 when one differs (the differing files are listed, the outputs kept in
# OUT_DIR, default a temporary directory).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [OUT_DIR]" >&2; exit 2; }
old=$(realpath "$1"); new=$(realpath "$2")
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${3:-$(mktemp -d)}
mkdir -p "$out"
cd "$root"
# AKS support judged on the tests' fixed day (KUBECTL_CAPZ_AT, validate's --at): the verdicts do not move with the
# date, and a binary from before the aks-version rules is compared on a day they add nothing.
export KUBECTL_CAPZ_AT=${KUBECTL_CAPZ_AT:-2025-11-15}
# The charts of the fixture repositories are rendered with the helm the tests use.
[ -x tools/helm/bin/helm ] && export PATH="$root/tools/helm/bin:$PATH"

fleets="$out/fleet-inputs"
mkdir -p "$fleets"
cp examples/fleet/*.yaml "$fleets/"
python3 scripts/gen-fleet.py 50 > "$fleets/aso-50.yaml"
FLAVOR=aks python3 scripts/gen-fleet.py 50 > "$fleets/classic-50.yaml"

# run SIDE BINARY NAME ARGS...: stdout, stderr and exit code of one command into $out/SIDE/NAME.*
run() {
  local side=$1 binary=$2 name=$3; shift 3
  local dir="$out/$side"
  mkdir -p "$dir"
  set +e
  "$binary" "$@" > "$dir/$name.stdout" 2> "$dir/$name.stderr"
  echo $? > "$dir/$name.code"
  set -e
}

for side in old new; do
  binary=$old; [ "$side" = new ] && binary=$new
  for repo in tests/fixtures/repos/*/; do
    name=repo-$(basename "$repo")
    run "$side" "$binary" "$name.json" validate -o json "$repo"
    run "$side" "$binary" "$name.text" validate "$repo"
  done
  for corpus in valid invalid; do
    run "$side" "$binary" "corpus-$corpus.json" validate -o json "tests/corpus/$corpus"
    run "$side" "$binary" "corpus-$corpus.text" validate --no-build "tests/corpus/$corpus"
  done
  for fleet in fleet aso-50 classic-50; do
    tree="$out/$side/tree-$fleet"
    run "$side" "$binary" "fleet-$fleet.render" render --fleet "$fleets/$fleet.yaml" --out-dir "$tree"
    run "$side" "$binary" "fleet-$fleet.json" validate -o json "$tree"
    (cd "$out/$side" && find "tree-$fleet" -type f | sort | xargs sha256sum) > "$out/$side/fleet-$fleet.tree"
  done
done

# Paths inside the outputs name the side's own tree; compare them as if both had written to the same place.
differ=0
for file in "$out"/old/*.stdout "$out"/old/*.stderr "$out"/old/*.code "$out"/old/*.tree; do
  other="$out/new/$(basename "$file")"
  if ! diff -q <(sed "s#$out/old/#OUT/#g" "$file") <(sed "s#$out/new/#OUT/#g" "$other") >/dev/null; then
    echo "differs: $(basename "$file")"
    differ=1
  fi
done
count=$(ls "$out"/old/*.code | wc -l)
if [ $differ = 0 ]; then
  echo "identical: $count commands (outputs in $out)"
else
  echo "outputs in $out"
fi
exit $differ
