#!/usr/bin/env bash
# Builds the test control plane into tools/kube-testenv/bin/ (gitignored):
#   bin/kube-apiserver  k8s.io/kubernetes/cmd/kube-apiserver (version from versions.env)
#   bin/etcd            go.etcd.io/etcd/server/v3
#   bin/kube-testenv    the launcher (main.go, trim.go)
#   bin/kubectl         only with KUBE_TESTENV_KUBECTL=1 (for machines without kubectl; the tests use it
#                       in preference to the one on PATH when it exists)
# Everything comes from the Go module proxy through go.mod/go.sum; CGO_ENABLED=0, like upstream's static
# kube-apiserver. Idempotent: a binary is rebuilt only when it is missing, older than go.sum (or, for the
# launcher, its sources), and its recorded input hash (bin/.NAME.inputs) differs too, so a git checkout
# that merely touches go.sum does not trigger a rebuild. Reuses GOMODCACHE/GOCACHE; a cold build takes 5-20 minutes on 2 cores, a warm one
# seconds. Set KUBE_TESTENV_FORCE=1 to rebuild everything.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=versions.env
. ./versions.env

export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath -buildvcs=false"
MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
K8S_LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${MINOR} \
-X k8s.io/component-base/version.gitTreeState=clean"
ETCD_LDFLAGS="-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=v${ETCD_VERSION}"
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"

mkdir -p bin

# inputs_hash LDFLAGS DEPENDENCY...: what a binary is built from (sources, go.sum, flags, Go version).
inputs_hash() {
  { go version; echo "$GOFLAGS $CGO_ENABLED"; echo "$1"; shift; cat "$@"; } | sha256sum | cut -d' ' -f1
}

# stale BINARY LDFLAGS DEPENDENCY...: true when BINARY must be (re)built.
stale() {
  local bin=$1 ldflags=$2; shift 2
  [ "${KUBE_TESTENV_FORCE:-}" = 1 ] && return 0
  [ -x "$bin" ] || return 0
  local dep newer=""
  for dep in "$@"; do
    [ "$dep" -nt "$bin" ] && newer=1
  done
  [ -z "$newer" ] && return 1
  # Newer by timestamp (e.g. after a checkout): rebuild only if the content changed.
  [ "$(cat "$(dirname "$bin")/.$(basename "$bin").inputs" 2>/dev/null)" != "$(inputs_hash "$ldflags" "$@")" ]
}

build() {
  local out=$1 pkg=$2 ldflags=$3; shift 3
  if stale "bin/$out" "$ldflags" "$@"; then
    echo "kube-testenv: building bin/$out ($pkg)..." >&2
    local t0=$SECONDS
    # Build to a temporary name so an interrupted build never leaves a binary that looks up to date.
    $NICE go build -ldflags "$ldflags" -o "bin/.$out.tmp" "$pkg"
    mv -f "bin/.$out.tmp" "bin/$out"
    inputs_hash "$ldflags" "$@" > "bin/.$out.inputs"
    echo "kube-testenv: built bin/$out in $((SECONDS - t0))s" >&2
  else
    echo "kube-testenv: bin/$out is up to date" >&2
  fi
}

build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$K8S_LDFLAGS" go.sum versions.env
build etcd go.etcd.io/etcd/server/v3 "$ETCD_LDFLAGS" go.sum versions.env
build kube-testenv . "-s -w" go.sum ./*.go
if [ "${KUBE_TESTENV_KUBECTL:-}" = 1 ]; then
  build kubectl k8s.io/kubernetes/cmd/kubectl "$K8S_LDFLAGS" go.sum versions.env
fi
