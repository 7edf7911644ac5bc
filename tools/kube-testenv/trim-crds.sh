#!/usr/bin/env bash
# Regenerates tests/fixtures/crds/{capi,capz,aso}/ from the upstream CRDs (see trim.go for the rules).
# Source: $CRD_SRC if set, else the project's schemas/crds/ if it exists, else ../shared/crds beside the
# repository. Run after updating the upstream CRDs; commit the result. Needs bin/kube-testenv (build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=${CRD_SRC:-}
if [ -z "$src" ]; then
  if [ -d "$repo/schemas/crds" ]; then src="$repo/schemas/crds"; else src="$repo/../shared/crds"; fi
fi
[ -d "$src/capi" ] && [ -d "$src/capz" ] && [ -d "$src/aso" ] || {
  echo "trim-crds.sh: $src must hold capi/, capz/ and aso/ (set CRD_SRC)" >&2; exit 2; }
[ -x "$here/bin/kube-testenv" ] || "$here/build.sh"
out="$repo/tests/fixtures/crds"

# CAPI: serve v1beta1 and v1beta2, but STORE v1beta1, which our manifests and CAPZ's templates use. With
# conversion None an object is only relabelled between versions and then pruned by the stored version's
# schema: stored as v1beta2, a v1beta1 Cluster read back loses spec.controlPlaneRef.apiVersion (v1beta2 has
# apiGroup instead), which tests/live_apiserver.rs checks does not happen.
capi_storage=()
for f in "$src"/capi/*.yaml; do
  name=$(sed -n 's/^  name: \(.*\)$/\1/p' "$f" | head -1)
  capi_storage+=(-storage "$name=v1beta1")
done
"$here/bin/kube-testenv" trim-crds -out "$out/capi" "${capi_storage[@]}" "$src"/capi/*.yaml
"$here/bin/kube-testenv" trim-crds -out "$out/capz" "$src"/capz/*.yaml
# ASO: store the API versions CAPZ's templates use, so objects read back exactly as applied.
"$here/bin/kube-testenv" trim-crds -out "$out/aso" \
  -storage managedclusters.containerservice.azure.com=v1api20240901 \
  -storage managedclustersagentpools.containerservice.azure.com=v1api20240901 \
  -storage maintenanceconfigurations.containerservice.azure.com=v1api20240901 \
  "$src"/aso/*.yaml
du -sh "$out"/* >&2
