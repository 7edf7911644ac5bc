#!/usr/bin/env bash
# Rebuilds tests/fixtures/go-duration/recordings.json: what Go's time.ParseDuration returns for
# the cases in tests/fixtures/go-duration/cases.json and a deterministic set of generated ones.
# Stdlib only; needs Go. CI never runs this: tests/referee/go_duration_referee.rs replays the recordings.
# Usage: tools/go-duration-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)/go-duration-oracle"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && go build -o "$bin" .)
out="$root/tests/fixtures/go-duration/recordings.json"
"$bin" "$root/tests/fixtures/go-duration/cases.json" > "$out"
echo "wrote $out ($(grep -c '"input"' "$out") cases, $(go version))"
