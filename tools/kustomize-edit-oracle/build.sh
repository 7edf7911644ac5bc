#!/usr/bin/env bash
# Builds kustomize for the Argo CD kustomize-edit referee (record.sh) into tools/kustomize-edit-oracle/bin/
# (gitignored): bin/kustomize is sigs.k8s.io/kustomize/kustomize/v5 v5.7.1 from the Go module proxy, through
# this consuming module (go.mod/go.sum pin it; tools.go imports the command). CGO_ENABLED=0. Idempotent: rebuilt
# only when missing or its input hash (go.mod, go.sum, Go version, flags) changed. KUSTOMIZE_TOOL_FORCE=1 rebuilds.
# CI never runs this: the tests replay the committed recordings.
set -euo pipefail
cd "$(dirname "$0")"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath -buildvcs=false"
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"
mkdir -p bin
inputs=$( { go version; echo "$GOFLAGS $CGO_ENABLED"; cat go.mod go.sum tools.go; } | sha256sum | cut -d' ' -f1)
if [ "${KUSTOMIZE_TOOL_FORCE:-}" != 1 ] && [ -x bin/kustomize ] && [ "$(cat bin/.kustomize.inputs 2>/dev/null)" = "$inputs" ]; then
  echo "kustomize: bin/kustomize is up to date" >&2
  exit 0
fi
echo "kustomize: building bin/kustomize (sigs.k8s.io/kustomize/kustomize/v5 v5.7.1)..." >&2
$NICE go build -ldflags "-s -w" -o bin/.kustomize.tmp sigs.k8s.io/kustomize/kustomize/v5
mv -f bin/.kustomize.tmp bin/kustomize
echo "$inputs" > bin/.kustomize.inputs
echo "kustomize: built bin/kustomize" >&2
