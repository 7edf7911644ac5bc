#!/usr/bin/env bash
# Rebuilds tests/fixtures/envsubst/cases.json from cases.input.json by running clusterctl's own
# template processor (sigs.k8s.io/cluster-api v1.14.2, drone/envsubst v2.0.0-20210730161058-179042472c46).
# Needs Go and the Go module proxy. Usage: tools/clusterctl-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)/clusterctl-oracle"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && go build -o "$bin" .)
"$bin" < "$here/cases.input.json" > "$root/tests/fixtures/envsubst/cases.json"
echo "wrote $root/tests/fixtures/envsubst/cases.json ($(grep -c '"name":' "$root/tests/fixtures/envsubst/cases.json") cases)"
