#!/usr/bin/env bash
# Rebuilds tests/fixtures/capz-translation/recordings.json by running CAPZ's real translation of classic AKS
# objects into ASO objects (sigs.k8s.io/cluster-api-provider-azure v1.26.0: the defaulting webhooks, the
# ManagedControlPlaneScope / ManagedMachinePoolScope specs and the ASO reconciler's CreateOrUpdateResource, with
# azure-service-operator v2.18.0 as that module pins it) on a controller-runtime fake client, over every bundle in
# tests/fixtures/capz-translation/cases/ (written by gen_cases.py).
#
# Internal packages can only be imported from inside their module, so the harness
# (cmd/capz-translation-oracle/main.go here) is built inside a temporary copy of CAPZ's module source taken from
# the Go module proxy. Needs Go and the module proxy; takes a while on a cold build cache.
#
# Usage: tools/capz-translation-oracle/regen.sh
#   CAPZ_ORACLE_WORKDIR=/some/dir  keep the module copy and binary there (reused when present)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
capz_module="sigs.k8s.io/cluster-api-provider-azure"
capz_version="v1.26.0"
fixtures="$root/tests/fixtures/capz-translation"

work="${CAPZ_ORACLE_WORKDIR:-}"
if [[ -z "$work" ]]; then
  work="$(mktemp -d)"
  trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# 1. The module source, as the proxy serves it.
src_dir="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$capz_module@$capz_version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ -z "$src_dir" || ! -f "$src_dir/go.mod" ]]; then
  echo "regen.sh: go mod download $capz_module@$capz_version gave no module directory" >&2
  exit 2
fi

# 2. A writable copy with our package added.
copy="$work/capz"
if [[ ! -f "$copy/go.mod" ]]; then
  rm -rf "$copy"
  cp -r "$src_dir/." "$copy"
  chmod -R u+w "$copy"
fi
mkdir -p "$copy/cmd/capz-translation-oracle"
cp "$here/cmd/capz-translation-oracle/main.go" "$copy/cmd/capz-translation-oracle/main.go"

# 3. Build inside the module (its go.mod/go.sum pin every dependency).
(cd "$copy" && go build -o "$work/capz-translation-oracle" ./cmd/capz-translation-oracle)

# 4. Record.
"$work/capz-translation-oracle" -module "$copy" -cases "$fixtures/cases" > "$fixtures/recordings.json.tmp"
mv "$fixtures/recordings.json.tmp" "$fixtures/recordings.json"
echo "wrote $fixtures/recordings.json ($(grep -c '"case":' "$fixtures/recordings.json") cases)"
