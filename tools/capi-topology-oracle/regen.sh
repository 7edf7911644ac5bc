#!/usr/bin/env bash
# Rebuilds tests/fixtures/capi-topology/recordings.json: runs Cluster API's own offline topology
# planner (`clusterctl alpha topology plan`'s code, sigs.k8s.io/cluster-api v1.10.10: the
# ClusterClass and Cluster webhooks, the ClusterClass reconciler, the topology reconciler on a
# dry-run client) on every tests/fixtures/capi-topology/cases/*.yaml.
# Needs Go and the Go module proxy; no cluster is contacted. Usage: tools/capi-topology-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go build -o "$tmp/capi-topology-oracle" .)
# clusterctl reads its config from $HOME/.cluster-api; give it an empty home.
mkdir -p "$tmp/home"
HOME="$tmp/home" "$tmp/capi-topology-oracle" "$root/tests/fixtures/capi-topology/cases" \
  > "$root/tests/fixtures/capi-topology/recordings.json"
echo "wrote $root/tests/fixtures/capi-topology/recordings.json ($(ls "$root"/tests/fixtures/capi-topology/cases/*.yaml | wc -l) cases)"
