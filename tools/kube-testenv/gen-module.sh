#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the kube-testenv module from versions.env.
#
# k8s.io/kubernetes requires every staging module (k8s.io/api, k8s.io/apiserver, ...) at v0.0.0 and
# points it at ./staging/src/... with replace directives that a consuming module ignores. We therefore
# read the replace list from the tag's own go.mod and pin every staging module to the matching v0.X.Y
# release. Run this after changing versions.env; commit go.mod and go.sum.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=versions.env
. ./versions.env
STAGING="v0.${K8S_VERSION#1.}"

rm -f go.mod go.sum
go mod init kube-testenv.invalid >/dev/null 2>&1
go mod edit -go=1.26.0

gomod=$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | jq -r .GoMod)
modules=$(sed -n 's#^[[:space:]]*\(replace[[:space:]]*\)\{0,1\}\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\2#p' "$gomod" | sort -u)
[ -n "$modules" ] || { echo "gen-module.sh: no staging replace directives found in $gomod" >&2; exit 1; }
for m in $modules; do
  go mod edit -replace="$m=$m@$STAGING"
done
echo "gen-module.sh: pinned $(echo "$modules" | wc -l) staging modules to $STAGING" >&2

go get "k8s.io/kubernetes@v${K8S_VERSION}" \
       "sigs.k8s.io/controller-runtime@v${CONTROLLER_RUNTIME_VERSION}" \
       "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
go get -tool k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl \
             "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
go mod tidy
# tidy keeps what main.go imports at the versions chosen above; make sure nothing drifted.
for want in "k8s.io/kubernetes v${K8S_VERSION}" "sigs.k8s.io/controller-runtime v${CONTROLLER_RUNTIME_VERSION}" \
            "go.etcd.io/etcd/server/v3 v${ETCD_VERSION}"; do
  grep -q "^[[:space:]]*${want}\( \|$\)" go.mod || { echo "gen-module.sh: go.mod lost ${want}" >&2; exit 1; }
done
go mod verify >/dev/null
echo "gen-module.sh: wrote go.mod and go.sum" >&2
