#!/usr/bin/env bash
# Installs what the benchmarks compare against, into .bench/bin (gitignored):
#   hyperfine (Debian), kubeconform v0.7.0 built from its Go module, clusterctl v1.14.2 built from the consuming
#   module tools/bench-peers (cluster-api's own go.mod has a replace directive for its api module, so
#   `go install sigs.k8s.io/cluster-api/cmd/clusterctl@v1.14.2` is refused), and the dist build (release + thin LTO)
#   of kubectl-capz as the krew archive holds it.
# The kube-apiserver for bench-diff.sh comes from tools/kube-testenv/build.sh.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/.bench/bin"
mkdir -p "$bin"
if ! command -v hyperfine >/dev/null; then
  apt-get update -qq && apt-get install -y -qq hyperfine
fi
export CGO_ENABLED=0
[ -x "$bin/kubeconform" ] || GOBIN="$bin" go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0
[ -x "$bin/clusterctl" ] || (cd "$repo/tools/bench-peers" && go build -o "$bin/clusterctl" sigs.k8s.io/cluster-api/cmd/clusterctl)
# kubectl 1.36.3 (same version as the test kube-apiserver) from tools/kube-testenv's module, for bench-diff.sh:
# PATH's kubectl here is Google Cloud SDK's version dispatcher (an extra exec per call) at 1.32/1.33.
if [ ! -x "$bin/kubectl" ] && [ -f "$repo/tools/kube-testenv/versions.env" ]; then
  (cd "$repo/tools/kube-testenv" && . ./versions.env && GOFLAGS="-mod=readonly -trimpath" go build \
    -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)" \
    -o "$bin/kubectl" k8s.io/kubernetes/cmd/kubectl)
fi
# The binary as scripts/package.sh builds it for krew: dist profile, for the host target given explicitly, with the
# release's rustc flags (statically linked on Linux: scripts/static-flags.sh).
. "$repo/scripts/static-flags.sh"
host=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="${RUSTFLAGS:-} $(static_flags "$host")" \
  cargo build --profile dist --target "$host" --manifest-path "$repo/Cargo.toml" --bin kubectl-capz
echo "bench-setup: $(ls "$bin" | tr '\n' ' ')" >&2
