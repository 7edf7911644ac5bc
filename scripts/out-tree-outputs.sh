#!/usr/bin/env bash
# Writes what the output-directory commands produce with one build into one directory, to compare two builds
# byte for byte (`diff -r`): `render --fleet` on the example fleet (as it is, with Flux, with --no-validate),
# `render --out-dir` on the example values (YAML and JSON), and `migrate --out-dir` on every classic fixture.
# Each run's exit code, stdout and stderr go beside its tree (paths shown relative to OUT).
#
#   scripts/out-tree-outputs.sh BINARY OUT     e.g. scripts/out-tree-outputs.sh target/debug/kubectl-capz /tmp/after
#   diff -r /tmp/before /tmp/after
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BINARY OUT" >&2
  exit 2
fi
bin=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
out=$2
if [ -e "$out" ]; then
  echo "$out exists; give a new directory" >&2
  exit 2
fi
mkdir -p "$out"
out=$(realpath "$out")

# Runs BINARY ARGS... in $out with a clean environment; records exit code, stdout and stderr as NAME.{code,out,err}.
run() {
  local name=$1
  shift
  local code=0
  (cd "$out" && env -i PATH="$PATH" HOME="$out/.home" KUBECTL_CAPZ_CACHE_DIR="$out/.cache" "$bin" "$@") \
    >"$out/$name.out" 2>"$out/$name.err" || code=$?
  echo "$code" >"$out/$name.code"
  # Absolute paths of this run are not what is compared.
  sed -i "s#$out#OUT#g; s#$root#ROOT#g" "$out/$name.out" "$out/$name.err"
}

# The fleet example, its Flux variant (the example's gitops block replaced), and without validation.
mkdir -p "$out/inputs/flux"
sed '/^gitops:/,$d' "$root/examples/fleet/fleet.yaml" >"$out/inputs/flux/fleet.yaml"
printf 'gitops:\n  kind: flux\n' >>"$out/inputs/flux/fleet.yaml"
cp "$root/examples/fleet/production.values.yaml" "$out/inputs/flux/"
run fleet-example render --fleet "$root/examples/fleet/fleet.yaml" --out-dir fleet-example
run fleet-example-again render --fleet "$root/examples/fleet/fleet.yaml" --out-dir fleet-example
run fleet-flux render --fleet inputs/flux/fleet.yaml --out-dir fleet-flux
run fleet-no-validate render --no-validate --fleet "$root/examples/fleet/fleet.yaml" --out-dir fleet-no-validate
run fleet-check render --check --fleet inputs/flux/fleet.yaml --out-dir fleet-example

# `render --out-dir` with the example values.
for values in aks aks-aso; do
  run "render-$values" render "$values" --values "$root/examples/$values.values.yaml" --out-dir "render-$values"
  run "render-$values-json" render "$values" --values "$root/examples/$values.values.yaml" -o json \
    --out-dir "render-$values-json"
done

# `migrate --out-dir` on every classic fixture, each into its own directory, then all into one.
for case in "$root"/tests/fixtures/capz-translation/cases/*.yaml; do
  name=$(basename "$case" .yaml)
  run "migrate-$name" migrate -f "$case" --out-dir "migrate/$name"
done
run migrate-again migrate -f "$root/tests/fixtures/capz-translation/cases/23-windows-pool.yaml" \
  --out-dir migrate/23-windows-pool
rm -rf "$out/.home" "$out/.cache"
echo "wrote $out" >&2
