#!/usr/bin/env bash
# Gathers ASO's own samples (samples/<group>/ of the Go module github.com/Azure/azure-service-operator/v2) of the
# groups CAPZ's --crd-pattern draws on most (containerservice, network, resources) for each ASO release whose samples
# tests/corpora/aso_samples.rs checks, from the Go module proxy, into OUT (default: target/aso-samples of the repository),
# and prints OUT:
#   OUT/<aso version>/<group>/<path below samples/<group>>.yaml   every sample file of the group, unchanged
#   OUT/SOURCES                                                   module@version of each folder
# Held-out cases: nothing here is read by the importer, and nothing is committed. Cached: nothing is fetched again
# while OUT/.stamp matches this script.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/aso-samples}"
# ASO v2.18.0 (pinned by CAPZ v1.26.0) and v2.20.0 (the nearest to v2.19.0, which CAPZ v1.27.0 pins and the proxy
# refuses: upstream-crds/aso-v2.19-refused.txt).
releases="v2.18.0 v2.20.0"
groups="containerservice network resources"
export GOFLAGS="-mod=readonly"

stamp="$(cat "$0" | sha256sum | cut -d' ' -f1)"
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$out"
  exit 0
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
rm -rf "$out.new"
mkdir -p "$out.new"
for release in $releases; do
  json="$(cd "$scratch" && GOFLAGS= go mod download -json "github.com/Azure/azure-service-operator/v2@$release")" || true
  if echo "$json" | grep -q '"Error"'; then
    echo "fetch.sh: ASO $release: $(echo "$json" | grep '"Error"')" >&2
    exit 2
  fi
  dir="$(echo "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  for group in $groups; do
    mkdir -p "$out.new/$release/$group"
    cp -r "$dir/samples/$group/." "$out.new/$release/$group/"
  done
  echo "$release: github.com/Azure/azure-service-operator/v2@$release samples/{${groups// /,}} (Go module proxy)" >> "$out.new/SOURCES"
done
chmod -R u+w "$out.new"
echo "$stamp" > "$out.new/.stamp"
rm -rf "$out"
mv "$out.new" "$out"
echo "$out"
