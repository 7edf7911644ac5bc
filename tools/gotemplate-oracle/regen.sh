#!/usr/bin/env bash
# Rebuilds tests/fixtures/topology/gotemplate_go_reference.jsonl from cases.jsonl by running Go's
# text/template with sprig v3.3.0's HermeticTxtFuncMap, as Cluster API runs ClusterClass patch
# templates, on the data in tests/fixtures/topology/gotemplate_data.json.
# Needs Go and the Go module proxy. Usage: tools/gotemplate-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)/gotemplate-oracle"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && go build -o "$bin" .)
out="$root/tests/fixtures/topology/gotemplate_go_reference.jsonl"
"$bin" "$root/tests/fixtures/topology/gotemplate_data.json" < "$here/cases.jsonl" > "$out"
echo "wrote $out ($(wc -l < "$out") cases, $(go version))"
