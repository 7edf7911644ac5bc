#!/usr/bin/env bash
# Rebuilds tests/fixtures/capi-topology/recordings-v1.14.2.json: runs Cluster API v1.14.2's own topology code (the
# conversion, ClusterClass and Cluster webhooks, the ClusterClass reconciler, the topology reconciler's steps up to
# exp/topology/desiredstate) on every tests/fixtures/capi-topology/cases/*.yaml and cases-v1.14/*.yaml.
#
# CAPI's internal/ packages and the reconciler's unexported steps can only be reached from inside its module, so
# this builds in a writable copy of sigs.k8s.io/cluster-api@v1.14.2 as the Go module proxy serves it, with
# cmd/capi-topology-oracle-v114/main.go and inject/zz_oracle_export.go (into core/reconcilers/topology/cluster)
# added. The copy is temporary (CAPI_ORACLE_WORKDIR keeps it between runs). CAPZ's contract labels come from
# sigs.k8s.io/cluster-api-provider-azure@v1.26.0's config/crd/patches (also from the proxy).
# Needs Go and the Go module proxy; no cluster is contacted. Usage: tools/capi-topology-oracle-v114/regen.sh
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
  # go.mod replaces sigs.k8s.io/cluster-api/api with ./api, a module of its own the proxy serves apart.
  mkdir -p "$copy/api"
  cp -r "$capi_api_dir/." "$copy/api"
  chmod -R u+w "$copy"
fi
mkdir -p "$copy/cmd/capi-topology-oracle-v114"
cp "$here/cmd/capi-topology-oracle-v114/main.go" "$copy/cmd/capi-topology-oracle-v114/main.go"
cp "$here/inject/zz_oracle_export.go" "$copy/core/reconcilers/topology/cluster/zz_oracle_export.go"
(cd "$copy" && go build -o "$work/capi-topology-oracle-v114" ./cmd/capi-topology-oracle-v114)
cases="$work/cases"
rm -rf "$cases" && mkdir -p "$cases"
cp "$root"/tests/fixtures/capi-topology/cases/*.yaml "$cases/"
if compgen -G "$root/tests/fixtures/capi-topology/cases-v1.14/*.yaml" > /dev/null; then
  cp "$root"/tests/fixtures/capi-topology/cases-v1.14/*.yaml "$cases/"
fi
"$work/capi-topology-oracle-v114" "$cases" "$capz_dir/config/crd/patches" "$copy/core/config/crd/bases" \
  > "$root/tests/fixtures/capi-topology/recordings-v1.14.2.json"
echo "wrote $root/tests/fixtures/capi-topology/recordings-v1.14.2.json ($(ls "$cases"/*.yaml | wc -l) cases)"
