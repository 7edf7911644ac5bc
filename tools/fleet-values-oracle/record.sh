#!/usr/bin/env bash
# Records tests/fixtures/fleet-values/cases.json: the Helm values Fleet installs each case's default and customized
# target with, merged by wrangler's data.MergeMaps (github.com/rancher/wrangler/v3 v3.7.1, the version rancher/fleet
# pins) in the order of Fleet's code (main.go says where each step comes from). Needs Go and the Go module proxy.
# tests/referee/fleet_values_referee.rs replays the recordings; CI never runs this.
# Usage: tools/fleet-values-oracle/record.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here" && CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath -buildvcs=false" go build -o "$bin/oracle" .)
mkdir -p "$root/tests/fixtures/fleet-values"
"$bin/oracle" "$here/cases.input.json" > "$root/tests/fixtures/fleet-values/cases.json"
echo "wrote tests/fixtures/fleet-values/cases.json ($(grep -c '"name":' "$root/tests/fixtures/fleet-values/cases.json") cases)" >&2
