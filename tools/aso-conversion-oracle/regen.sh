#!/usr/bin/env bash
# Rebuilds tests/fixtures/aso-conversion/<release>.jsonl for ASO v2.18.0 and v2.20.0: what Azure Service
# Operator's generated conversions (ConvertTo the hub, ConvertFrom into another version) make of the objects
# gen_cases.py draws from each release's CRDs (upstream-crds/aso-<release>/), of ASO's own samples and of the ASO
# objects of CAPZ's aks-aso templates and our fixtures (gen_cases.py CAPZ_FILES). For each
# release: a throwaway module requiring github.com/Azure/azure-service-operator/v2 at that version from the Go
# module proxy, main.go and kinds_<release>.go (its API packages) built with the release's build tag. Needs Go,
# python3 with PyYAML and the module proxy; CI never runs this: tests/referee/aso_conversion_referee.rs replays
# the recordings. Usage: tools/aso-conversion-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/tests/fixtures/aso-conversion"
mkdir -p "$out"
export GOFLAGS=-mod=mod CGO_ENABLED=0
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"
for release in v2.18.0 v2.20.0; do
  tag="aso_${release//./_}"
  work="$(mktemp -d)"
  cp "$here/main.go" "$here/kinds_${release//./_}.go" "$work/"
  info="$(cd "$work" && go mod download -json "github.com/Azure/azure-service-operator/v2@$release")"
  module="$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  revision="$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Hash": "\(.*\)",*$/\1/p' | head -1)"
  (cd "$work" && go mod init kubectl-capz/aso-conversion-oracle >/dev/null 2>&1 &&
    go get "github.com/Azure/azure-service-operator/v2@$release" >/dev/null 2>&1 &&
    go mod tidy >/dev/null 2>&1 && $NICE go build -tags "$tag" -o oracle .)
  python3 "$here/gen_cases.py" "$root/upstream-crds" "$release" "$module" "$root" |
    "$work/oracle" -aso "$release" -revision "$revision" > "$out/$release.jsonl.tmp"
  mv "$out/$release.jsonl.tmp" "$out/$release.jsonl"
  chmod -R u+w "$work" && rm -rf "$work"
  echo "wrote $out/$release.jsonl ($(($(wc -l < "$out/$release.jsonl") - 1)) objects)" >&2
done
