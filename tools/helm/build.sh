#!/usr/bin/env bash
# Builds helm for the repository-mode tests (tests/repo_helm*.rs) into tools/helm/bin/ (gitignored):
#   bin/helm    helm.sh/helm/v3/cmd/helm v3.18.6 (the plugin runs it as `helm template`, found on PATH)
# It comes from the Go module proxy through this consuming module (go.mod/go.sum pin v3.18.6; tools.go
# imports the command). CGO_ENABLED=0. Idempotent: the binary is rebuilt only when it is missing or its
# recorded input hash (go.sum, go.mod, Go version, flags) changed; a warm run takes a second, a cold build
# a few minutes on 2 cores. Set HELM_TOOL_FORCE=1 to rebuild.
set -euo pipefail
cd "$(dirname "$0")"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath -buildvcs=false"
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"
mkdir -p bin
version=v3.18.6
# `helm version` reports what the release build stamps into internal/version (not set by a plain go build).
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$version"
inputs=$( { go version; echo "$GOFLAGS $CGO_ENABLED $ldflags"; cat go.mod go.sum tools.go; } | sha256sum | cut -d' ' -f1)
if [ "${HELM_TOOL_FORCE:-}" != 1 ] && [ -x bin/helm ] && [ "$(cat bin/.helm.inputs 2>/dev/null)" = "$inputs" ]; then
  echo "helm: bin/helm is up to date" >&2
  exit 0
fi
echo "helm: building bin/helm (helm.sh/helm/v3/cmd/helm $version)..." >&2
t0=$SECONDS
# A temporary name first, so an interrupted build never leaves a binary that looks up to date.
$NICE go build -ldflags "$ldflags" -o bin/.helm.tmp helm.sh/helm/v3/cmd/helm
mv -f bin/.helm.tmp bin/helm
echo "$inputs" > bin/.helm.inputs
echo "helm: built bin/helm in $((SECONDS - t0))s" >&2
