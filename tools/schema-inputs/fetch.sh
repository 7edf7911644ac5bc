#!/usr/bin/env bash
# Gathers the inputs of the bundled Kubernetes, Flux and Argo CD schemas from the Go module proxy into
# OUT (default: target/schema-inputs of the repository) and prints OUT:
#   OUT/kubernetes/v<major.minor>/*.json   api/openapi-spec/v3 of k8s.io/kubernetes (tools/kube-testenv's version,
#                                          and K8S_PREVIOUS_VERSION of versions.env: the minor before it)
#   OUT/gitops/flux/*.yaml                 config/crd/bases of kustomize-controller and source-controller
#   OUT/gitops/flux-generated/*.yaml       controller-gen over helm-, notification- and image-*-controller's api/
#   OUT/gitops/argocd/*.yaml               manifests/crds of argo-cd/v3
#   OUT/*/SOURCES                          module@version and path of every input
# Cached: nothing is fetched again while OUT/.stamp matches this script and the versions. Then (src/schema/releases.rs
# names the releases built from OUT: kubernetes-v<major.minor> and gitops):
#   kubectl-capz import-schemas --from upstream-crds --fetched OUT --out schemas
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/schema-inputs}"
# shellcheck source=versions.env
. "$here/versions.env"
# shellcheck source=../kube-testenv/versions.env
. "$root/tools/kube-testenv/versions.env"
export GOFLAGS="-mod=readonly"

stamp="$(cat "$0" "$here/versions.env" "$root/tools/kube-testenv/versions.env" "$here/flux-crd-gen/go.sum" | sha256sum | cut -d' ' -f1)"
# One fetch at a time (tests run this from several threads and binaries): the others wait, then find the stamp.
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$out"
  exit 0
fi

# module_dir MODULE@VERSION: the module's directory in the module cache (downloaded when missing).
module_dir() {
  local json
  json="$(cd "$scratch" && GOFLAGS= go mod download -json "$1")" || true
  if echo "$json" | grep -q '"Error"'; then
    echo "fetch.sh: $1: $(echo "$json" | grep '"Error"')" >&2
    exit 2
  fi
  echo "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

rm -rf "$out.new"
mkdir -p "$out.new"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

for version in "$K8S_VERSION" "$K8S_PREVIOUS_VERSION"; do
  minor="v$(echo "$version" | cut -d. -f1,2)"
  k8s="$(module_dir "k8s.io/kubernetes@v$version")"
  mkdir -p "$out.new/kubernetes/$minor"
  cp "$k8s"/api/openapi-spec/v3/*.json "$out.new/kubernetes/$minor/"
  echo "k8s.io/kubernetes@v$version api/openapi-spec/v3 (Go module proxy)" > "$out.new/kubernetes/$minor/SOURCES"
done

gitops="$out.new/gitops"
mkdir -p "$gitops/flux" "$gitops/flux-generated" "$gitops/argocd"
{
  echo "| module | path | files |"
  echo "|---|---|---|"
} > "$gitops/SOURCES"
copy() { # MODULE@VERSION PATH DEST GLOB
  local dir
  dir="$(module_dir "$1")"
  # shellcheck disable=SC2086
  (cd "$dir/$2" && cp $4 "$3/")
  # shellcheck disable=SC2086
  echo "| $1 | $2 | $(cd "$dir/$2" && echo $4) |" >> "$gitops/SOURCES"
}
copy "github.com/fluxcd/kustomize-controller@$FLUX_KUSTOMIZE_CONTROLLER" config/crd/bases "$gitops/flux" '*.yaml'
copy "github.com/fluxcd/source-controller@$FLUX_SOURCE_CONTROLLER" config/crd/bases "$gitops/flux" '*.yaml'
copy "github.com/argoproj/argo-cd/v3@$ARGO_CD" manifests/crds "$gitops/argocd" '*-crd.yaml'

# helm-controller and notification-controller: the proxy refuses the root modules (with config/crd/bases);
# generate the CRDs from the api/ modules with controller-gen, as their Makefiles do.
(
  cd "$here/flux-crd-gen"
  go build -o "$out.new/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen
  "$out.new/controller-gen" crd \
    paths=github.com/fluxcd/helm-controller/api/... \
    paths=github.com/fluxcd/notification-controller/api/... \
    paths=github.com/fluxcd/image-reflector-controller/api/... \
    paths=github.com/fluxcd/image-automation-controller/api/... \
    output:crd:dir="$gitops/flux-generated"
)
rm -f "$out.new/controller-gen"
for m in "helm-controller/api@$FLUX_HELM_CONTROLLER_API" "notification-controller/api@$FLUX_NOTIFICATION_CONTROLLER_API" \
  "image-reflector-controller/api@$FLUX_IMAGE_REFLECTOR_CONTROLLER_API" \
  "image-automation-controller/api@$FLUX_IMAGE_AUTOMATION_CONTROLLER_API"; do
  echo "| github.com/fluxcd/$m | ... (controller-gen crd, sigs.k8s.io/controller-tools@$CONTROLLER_TOOLS) | flux-generated/ |" >> "$gitops/SOURCES"
done

echo "$stamp" > "$out.new/.stamp"
rm -rf "$out"
mv "$out.new" "$out"
echo "$out"
