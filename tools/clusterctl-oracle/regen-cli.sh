#!/usr/bin/env bash
# Rebuilds tests/fixtures/envsubst/cli-cases.json: runs the real `clusterctl generate cluster --from`
# (sigs.k8s.io/cluster-api v1.14.2) on every scenario of cli-scenarios.json and records stdout,
# stderr and the exit code. tests/cli/render_from_clusterctl.rs replays them against kubectl-capz.
#
# CLUSTERCTL=/path/to/clusterctl uses an existing binary; otherwise clusterctl is built from the Go
# module proxy. `go install sigs.k8s.io/cluster-api/cmd/clusterctl@v1.14.2` refuses to (the module
# has a `replace ./api` directive), so this builds it from a scratch module that replaces
# sigs.k8s.io/cluster-api/api with its published v1.14.2 (CGO off; a few minutes, ~2 GB of Go cache).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
clusterctl="${CLUSTERCTL:-}"
if [ -z "$clusterctl" ]; then
  mkdir -p "$scratch/build"
  cat > "$scratch/build/go.mod" <<'MOD'
module clusterctlbuild

go 1.26.0

require sigs.k8s.io/cluster-api v1.14.2

replace sigs.k8s.io/cluster-api/api => sigs.k8s.io/cluster-api/api v1.14.2
MOD
  printf '//go:build tools\npackage tools\n\nimport _ "sigs.k8s.io/cluster-api/cmd/clusterctl"\n' > "$scratch/build/tools.go"
  (cd "$scratch/build" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -o "$scratch/clusterctl" sigs.k8s.io/cluster-api/cmd/clusterctl)
  clusterctl="$scratch/clusterctl"
fi
"$clusterctl" version -o short >&2 || true
(cd "$here" && go build -o "$scratch/cli-oracle" ./cli)
"$scratch/cli-oracle" "$clusterctl" "$here/cli-scenarios.json" "$root/tests/fixtures/envsubst" \
  > "$root/tests/fixtures/envsubst/cli-cases.json"
echo "wrote $root/tests/fixtures/envsubst/cli-cases.json" >&2
