#!/usr/bin/env bash
# Rebuilds tests/fixtures/capi-updates/recordings.json: runs Cluster API v1.14.2's own admission webhooks
# (core/webhooks/admission: Cluster and MachinePool defaulting, then ValidateUpdate of Cluster, ClusterClass and
# MachinePool, with ValidateCreate beside) on every pair tests/fixtures/capi-updates/cases/NAME.{old,new}.yaml.
#
# The webhooks' decoders are unexported and the contract helpers live in internal/, so this builds in a writable
# copy of sigs.k8s.io/cluster-api@v1.14.2 as the Go module proxy serves it (with its api submodule, which its
# go.mod replaces with ./api), with cmd/capi-update-oracle/main.go and inject/zz_oracle_export.go (into
# core/webhooks/admission) added. The copy is temporary (CAPI_ORACLE_WORKDIR keeps it between runs). CAPZ's
# contract labels come from sigs.k8s.io/cluster-api-provider-azure@v1.26.0's config/crd/patches (also from the
# proxy). Needs Go and the Go module proxy; no cluster is contacted.
# Usage: tools/capi-update-oracle/regen.sh   (python3 tools/capi-update-oracle/make-cases.py first, to rewrite the cases)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
capi="sigs.k8s.io/cluster-api@v1.14.2"
capz="sigs.k8s.io/cluster-api-provider-azure@v1.26.0"
work="${CAPI_ORACLE_WORKDIR:-}"
if [[ -z "$work" ]]; then
  work="$(mktemp -d)"
  trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fi
mkdir -p "$work"
module_dir() { (cd "$work" && GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'); }
capi_dir="$(module_dir "$capi")"
capi_api_dir="$(module_dir "sigs.k8s.io/cluster-api/api@v1.14.2")"
capz_dir="$(module_dir "$capz")"
[[ -f "$capi_dir/go.mod" && -f "$capi_api_dir/go.mod" && -d "$capz_dir/config/crd/patches" ]] || { echo "regen.sh: go mod download failed" >&2; exit 2; }
copy="$work/cluster-api"
if [[ ! -f "$copy/go.mod" ]]; then
  rm -rf "$copy"
  cp -r "$capi_dir/." "$copy"
  mkdir -p "$copy/api"
  cp -r "$capi_api_dir/." "$copy/api"
  chmod -R u+w "$copy"
fi
mkdir -p "$copy/cmd/capi-update-oracle"
cp "$here/cmd/capi-update-oracle/main.go" "$copy/cmd/capi-update-oracle/main.go"
cp "$here/inject/zz_oracle_export.go" "$copy/core/webhooks/admission/zz_oracle_export.go"
(cd "$copy" && go build -o "$work/capi-update-oracle" ./cmd/capi-update-oracle)
out="$root/tests/fixtures/capi-updates/recordings.json"
"$work/capi-update-oracle" "$root/tests/fixtures/capi-updates/cases" "$capz_dir/config/crd/patches" > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(ls "$root"/tests/fixtures/capi-updates/cases/*.old.yaml | wc -l) pairs)"
