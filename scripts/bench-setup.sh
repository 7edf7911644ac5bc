#!/usr/bin/env bash
# Installs what the benchmarks compare against, into .bench/bin (gitignored):
#   hyperfine (Debian), kubeconform and clusterctl built from their Go modules, and a release build of kubectl-capz.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/.bench/bin"
mkdir -p "$bin"
if ! command -v hyperfine >/dev/null; then
  apt-get update -qq && apt-get install -y -qq hyperfine
fi
[ -x "$bin/kubeconform" ] || GOBIN="$bin" CGO_ENABLED=0 go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0
[ -x "$bin/clusterctl" ] || GOBIN="$bin" CGO_ENABLED=0 go install sigs.k8s.io/cluster-api/cmd/clusterctl@v1.14.2
cargo build --release --manifest-path "$repo/Cargo.toml"
echo "bench-setup: $(ls "$bin" | tr '\n' ' ')" >&2
