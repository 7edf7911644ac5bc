#!/usr/bin/env bash
# Regenerates tests/fixtures/crds/ (or the directory given as $1) from the project's imported CRDs
# (schemas/crds/<folder>/ of the default target, written by `kubectl-capz import-schemas`), or from $CRD_SRC (files or directories of
# upstream CRD YAML). The rules are in trim.go. tests/live/live_apiserver.rs runs this into a temp dir and
# fails if the committed fixtures differ. Needs bin/kube-testenv (build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/tests/fixtures/crds}
# By default the CRDs of the default target (the first row of the targets table in schemas/README.md that is not
# provisional: a provisional target is never the default): the
# folders of schemas/crds/ holding one of its releases (`aso-v2.18+v2.19` holds aso-v2.18 and aso-v2.19).
if [ -n "${CRD_SRC:-}" ]; then
  srcs=("$CRD_SRC")
else
  releases=$(awk -F'|' '/^\| target \|/ { getline; while ((getline) > 0) { if ($2 !~ /provisional/) { print $6; exit } } }' "$repo/schemas/README.md" | tr -d ' ' | tr ',' ' ')
  [ -n "$releases" ] || { echo "trim-crds.sh: no targets table in schemas/README.md" >&2; exit 2; }
  srcs=()
  for dir in "$repo"/schemas/crds/*/; do
    folder=$(basename "$dir")
    family=${folder%-*}
    # The GitOps CRDs (Flux, Argo CD) are not part of the management cluster under test (see below).
    [ "$family" = gitops ] && continue
    for version in $(echo "${folder##*-}" | tr '+' ' '); do
      case " $releases " in *" $family-$version "*) srcs+=("$dir") ;; esac
    done
  done
fi
# The GitOps CRDs (Flux, Argo CD) are not part of the management cluster under test: the fleet tests
# install them untrimmed from tests/fixtures/gitops-crds/ where they need them. Nor are the ASO kinds only
# ADDITIONAL_ASO_CRDS adds (upstream-crds/aso-extra-kinds.txt, groups CAPZ's own crd-pattern does not name): the
# server is a management cluster as CAPZ installs it (tests/live/live_target_kinds.rs installs them itself).
skip=(! -name 'argoproj.io_*' ! -name 'kustomize.toolkit.fluxcd.io_*')
if [ -z "${CRD_SRC:-}" ]; then
  for group in $(tr ';' '\n' < "$repo/upstream-crds/aso-extra-kinds.txt" | sed 's|/.*||' | LC_ALL=C sort -u); do
    grep -q "$group/" "$repo"/upstream-crds/capz-*/aso-crd-pattern.txt || skip+=(! -name "${group}_*")
  done
fi
mapfile -t inputs < <(find "${srcs[@]}" -name '*.yaml' -type f "${skip[@]}" | LC_ALL=C sort)
[ ${#inputs[@]} -gt 0 ] || { echo "trim-crds.sh: no *.yaml under ${srcs[*]}" >&2; exit 2; }
[ -x "$here/bin/kube-testenv" ] || "$here/build.sh"

# CAPI serves v1beta1 and v1beta2; we STORE v1beta1, which our manifests and CAPZ's templates use. With
# conversion None an object is only relabelled between versions and then pruned by the stored version's
# schema: stored as v1beta2, a v1beta1 Cluster read back loses spec.controlPlaneRef.apiVersion (v1beta2
# has apiGroup instead); tests/live/live_apiserver.rs checks that the round trip is exact.
# ASO: store the API versions CAPZ's templates use, so those objects read back exactly as applied.
"$here/bin/kube-testenv" trim-crds -out "$out" \
  -storage cluster.x-k8s.io=v1beta1 \
  -storage bootstrap.cluster.x-k8s.io=v1beta1 \
  -storage managedclusters.containerservice.azure.com=v1api20240901 \
  -storage managedclustersagentpools.containerservice.azure.com=v1api20240901 \
  -storage maintenanceconfigurations.containerservice.azure.com=v1api20240901 \
  "${inputs[@]}"
