#!/usr/bin/env bash
# Rebuilds tests/fixtures/aso-updates/recordings.json: what Azure Service Operator's generated webhooks
# (defaulting, then ValidateUpdate) decide for each pair in tests/fixtures/aso-updates/cases/ (NAME.old.yaml, the
# stored object ASO has created; NAME.new.yaml, the one applied). Builds main.go against
# github.com/Azure/azure-service-operator/v2 v2.20.0 from the Go module proxy (CAPZ v1.27.0 pins v2.19.0, which the
# proxy refuses; the write-once check is the same function in both). Needs Go and the module proxy; CI never runs
# this: tests/referee/aso_update_referee.rs replays the recordings.
# Usage: tools/aso-update-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
aso=v2.20.0
bin="$(mktemp -d)/aso-update-oracle"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && GOFLAGS=-mod=mod go build -o "$bin" .)
out="$root/tests/fixtures/aso-updates/recordings.json"
"$bin" -pairs "$root/tests/fixtures/aso-updates/cases" -aso-version "$aso" -go-version "$(go env GOVERSION)" > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(grep -c '"case":' "$out") cases)"
