#!/usr/bin/env bash
# Rebuilds tests/fixtures/capi-conversion/recorded.json: runs the real conversion code on every
# tests/fixtures/capi-conversion/corpus/*.yaml (README.md says what runs):
#   - Cluster API v1.14.2's conversion webhook (controller-runtime's handler holding the converters of
#     core/, bootstrap/kubeadm/ and controlplane/kubeadm/ webhooks/conversion), v1beta1 -> v1beta2;
#   - the API server's CR converter (k8s.io/apiextensions-apiserver v0.36.3) built from CAPZ v1.26.0's own
#     AzureASOManaged* CRDs (conversion strategy None), v1alpha1 -> v1beta1.
# Also writes tests/fixtures/capi-conversion/dropped.json (the -dropped report: v1beta1 fields that do not survive
# v1beta1 -> v1beta2 -> v1beta1; see dropped.go and NOTES.md).
# Then checks that the outputs are stable: a second run must give the same bytes.
# Needs Go and the Go module proxy. Usage: tools/capi-conversion-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fixtures="$root/tests/fixtures/capi-conversion"
capz_module="sigs.k8s.io/cluster-api-provider-azure"
capz_version="v1.26.0"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# CAPZ's CRD files, as the Go module proxy serves the module (read only; nothing of CAPZ is compiled).
capz_dir="$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$capz_module@$capz_version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
crd_dir="$capz_dir/config/crd/bases"
if [[ ! -d "$crd_dir" ]]; then
  echo "regen.sh: go mod download $capz_module@$capz_version gave no config/crd/bases" >&2
  exit 2
fi

(cd "$here" && go build -o "$tmp/capi-conversion-oracle" .)
"$tmp/capi-conversion-oracle" "$fixtures/corpus" "$crd_dir" > "$tmp/recorded.json"
"$tmp/capi-conversion-oracle" "$fixtures/corpus" "$crd_dir" > "$tmp/recorded-again.json"
if ! cmp -s "$tmp/recorded.json" "$tmp/recorded-again.json"; then
  echo "regen.sh: two runs gave different recordings; not written" >&2
  diff "$tmp/recorded.json" "$tmp/recorded-again.json" | head -20 >&2
  exit 1
fi
"$tmp/capi-conversion-oracle" -dropped "$fixtures/corpus" > "$tmp/dropped.json"
"$tmp/capi-conversion-oracle" -dropped "$fixtures/corpus" > "$tmp/dropped-again.json"
if ! cmp -s "$tmp/dropped.json" "$tmp/dropped-again.json"; then
  echo "regen.sh: two -dropped runs gave different reports; not written" >&2
  exit 1
fi
cp "$tmp/recorded.json" "$fixtures/recorded.json"
cp "$tmp/dropped.json" "$fixtures/dropped.json"
echo "wrote $fixtures/recorded.json ($(ls "$fixtures"/corpus/*.yaml | wc -l) cases, $(grep -c '^      "error": "' "$fixtures/recorded.json") errors) and dropped.json"
