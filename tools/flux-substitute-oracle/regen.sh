#!/usr/bin/env bash
# Rebuilds tests/fixtures/flux-substitute/cases.json from cases.input.json by running Flux's own post-build
# substitution (github.com/fluxcd/pkg/kustomize v1.39.0 SubstituteVariables, fluxcd/pkg/envsubst v1.7.0: the code
# the kustomize-controller runs). Needs Go and the Go module proxy. Usage: tools/flux-substitute-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)/flux-substitute-oracle"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && go build -o "$bin" .)
"$bin" "$here/cases.input.json" > "$root/tests/fixtures/flux-substitute/cases.json"
echo "wrote $root/tests/fixtures/flux-substitute/cases.json ($(grep -c '"name":' "$root/tests/fixtures/flux-substitute/cases.json") cases)"
