#!/usr/bin/env bash
# Builds krew's own programs for tests/tooling/krew.rs into tools/krew/bin/ (gitignored):
#   bin/krew                    sigs.k8s.io/krew/cmd/krew v0.5.0 (run as `kubectl krew`, KREW_ROOT in a temp dir)
#   bin/validate-krew-manifest  sigs.k8s.io/krew/cmd/validate-krew-manifest v0.5.0 (krew-index's manifest check)
# Both come from the Go module proxy through this consuming module (go.mod/go.sum pin v0.5.0; tools.go
# imports the two commands). CGO_ENABLED=0. Idempotent: a binary is rebuilt only when it is missing or
# its recorded input hash (go.sum, go.mod, Go version, flags) changed; a warm build takes seconds, a cold
# one about a minute on 2 cores. Set KREW_TOOLS_FORCE=1 to rebuild.
set -euo pipefail
cd "$(dirname "$0")"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath -buildvcs=false"
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"
mkdir -p bin
inputs=$( { go version; echo "$GOFLAGS $CGO_ENABLED"; cat go.mod go.sum tools.go; } | sha256sum | cut -d' ' -f1)
for cmd in krew validate-krew-manifest; do
  if [ "${KREW_TOOLS_FORCE:-}" != 1 ] && [ -x "bin/$cmd" ] && [ "$(cat "bin/.$cmd.inputs" 2>/dev/null)" = "$inputs" ]; then
    echo "krew tools: bin/$cmd is up to date" >&2
    continue
  fi
  echo "krew tools: building bin/$cmd (sigs.k8s.io/krew/cmd/$cmd)..." >&2
  t0=$SECONDS
  # A temporary name first, so an interrupted build never leaves a binary that looks up to date.
  $NICE go build -ldflags "-s -w" -o "bin/.$cmd.tmp" "sigs.k8s.io/krew/cmd/$cmd"
  mv -f "bin/.$cmd.tmp" "bin/$cmd"
  echo "$inputs" > "bin/.$cmd.inputs"
  echo "krew tools: built bin/$cmd in $((SECONDS - t0))s" >&2
done
