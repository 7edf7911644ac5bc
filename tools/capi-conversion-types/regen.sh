#!/usr/bin/env bash
# Regenerates src/convert/capi/types.json from Cluster API v1.14.2's CRDs, fetched from the Go
# module proxy. CI does not run this: the generated file is committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
module_dir="$(cd "$here" && go mod download -json sigs.k8s.io/cluster-api@v1.14.2 | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
test -d "$module_dir" || { echo "cannot download sigs.k8s.io/cluster-api@v1.14.2" >&2; exit 2; }
cd "$here"
go run . "$module_dir" > "$here/../../src/convert/capi/types.json"
echo "wrote src/convert/capi/types.json from $module_dir"
go run ./marshal > "$here/../../src/convert/capi/marshal.json"
echo "wrote src/convert/capi/marshal.json"
