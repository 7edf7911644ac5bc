#!/usr/bin/env bash
# Writes upstream-crds/ (the inputs of `kubectl-capz import-schemas`, committed) from the Go module proxy only:
#   capz-<v>/   config/crd/bases of each CAPZ release (the kinds the rules read) + aso-crd-pattern.txt (the
#               --crd-pattern CAPZ's config/aso/kustomization.yaml gives ASO, without ${ADDITIONAL_ASO_CRDS})
#               + served-kinds.txt (every CRD of config/crd/bases with its served versions: the kinds the
#               release owns, bundled or not)
#   capi-<v>/   every CRD clusterctl init installs for the CAPI release each CAPZ release's go.mod pins: core
#               (cluster., addons., ipam., runtime.cluster.x-k8s.io) and the kubeadm bootstrap and control-plane
#               providers (not clusterctl's own CRDs, cmd/clusterctl)
#   capi-operator-<v>/  the Cluster API Operator's CRDs (config/crd/bases of sigs.k8s.io/cluster-api-operator)
#   aso-<v>/    the CRDs of the kinds in the crd-pattern and of the kinds users commonly add with
#               ADDITIONAL_ASO_CRDS (aso-extra-kinds.txt), generated from ASO's Go types with controller-gen
#               (the flags of ASO's Taskfile: crd:crdVersions=v1,allowDangerousTypes=true), only for the
#               api/ packages that hold those kinds
# (ASO's own samples, the held-out cases of tests/corpora/aso_samples.rs, are fetched by tools/aso-samples/fetch.sh.) It
# checks that CAPZ's own cluster-template-aks*.yaml of each release equal tests/fixtures/capz/ (the
# templates the tests render and validate per target), listing any that differ.
# Every CRD is trimmed by trim/ (schema descriptions and status dropped). ASO v2.19.0, which CAPZ v1.27.0
# pins, is refused by the module proxy (the refusal is written to aso-v2.19-refused.txt); the importer
# derives it from v2.18.0 and v2.20.0 (src/schema/releases.rs). CAPZ v1.28.0, the provisional target v1.28, is
# refused too, and so is CAPZ main (both recorded in capz-v1.28-refused.txt; the target models CAPZ v1.27.0 with
# the ASO v2.20.0 and CAPI v1.14.2 CAPZ main pins): it checks that CAPI v1.14.2's CRDs, trimmed, equal
# capi-v1.14.0/ (the folder the v1.28 target's release capi-v1.14 is imported from). Needs Go; takes a few
# minutes and about 2 GiB of memory (controller-gen on the network packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/upstream-crds}
templates=$repo/tests/fixtures/capz
export GOFLAGS=-mod=mod CGO_ENABLED=0
NICE=""
command -v nice >/dev/null && NICE="nice -n 10"
# The ASO kinds users commonly add to CAPZ's crd-pattern with ADDITIONAL_ASO_CRDS (a workload identity, its
# federated credential and its role assignments, which an AKS cluster's workloads need): bundled so that they are
# checked once a repository adds them (docs/config.md).
aso_extra_kinds="authorization.azure.com/RoleAssignment;managedidentity.azure.com/FederatedIdentityCredential;managedidentity.azure.com/UserAssignedIdentity"
# The Cluster API Operator release whose CRDs are bundled for every target: the newest the module proxy serves
# (`go list -m -versions sigs.k8s.io/cluster-api-operator`: v0.28.0 v0.29.0; v0.30.0 is refused). Its go.mod pins
# cluster-api v1.13.5, the CAPI minor of CAPZ v1.26; no release built against CAPI v1.14 is served, so CAPZ v1.27
# gets the same one (the operator installs any provider release; only its own API is bundled).
capi_operator=v0.29.0
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

(cd "$here" && $NICE go build -o bin/controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen &&
  $NICE go build -o bin/trim ./trim)
cg="$here/bin/controller-gen"
trim="$here/bin/trim"

# The module's directory in the module cache, fetched through the proxy.
module_dir() {
  (cd "$here" && go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}
# The version go.mod of a module directory requires of `$2`.
required() { awk -v m="$2" '$1 == m { print $2; exit }' "$1/go.mod"; }

mkdir -p "$out"
stale_templates=()
declare -A capi_of aso_of
for capz in v1.26.0 v1.27.0; do
  dir=$(module_dir sigs.k8s.io/cluster-api-provider-azure "$capz")
  rm -rf "${out:?}/capz-$capz"
  "$trim" -out "$out/capz-$capz" "$dir"/config/crd/bases/infrastructure.cluster.x-k8s.io_{azureasomanaged,azuremanaged}*.yaml \
    "$dir/config/crd/bases/infrastructure.cluster.x-k8s.io_azureclusteridentities.yaml"
  "$trim" -list "$dir"/config/crd/bases/*.yaml > "$out/capz-$capz/served-kinds.txt"
  sed -n 's/.*--crd-pattern=\(..*\);\${ADDITIONAL_ASO_CRDS.*/\1/p' "$dir/config/aso/kustomization.yaml" > "$out/capz-$capz/aso-crd-pattern.txt"
  [ -s "$out/capz-$capz/aso-crd-pattern.txt" ] || { echo "gen.sh: no --crd-pattern in CAPZ $capz config/aso" >&2; exit 2; }
  for template in "$templates"/cluster-template-aks*.yaml; do
    cmp -s "$template" "$dir/templates/${template##*/}" || stale_templates+=("$capz ${template##*/}")
  done
  capi_of[$capz]=$(required "$dir" sigs.k8s.io/cluster-api)
  aso_of[$capz]=$(required "$dir" github.com/Azure/azure-service-operator/v2)
  echo "CAPZ $capz: CAPI ${capi_of[$capz]}, ASO ${aso_of[$capz]}" >&2
done

# Trims the CRDs clusterctl init installs for CAPI release $1 into folder $2.
capi_crds() {
  local dir files
  dir=$(module_dir sigs.k8s.io/cluster-api "$1")
  mapfile -t files < <(cd "$dir" && find . -path '*/config/crd/bases/*.yaml' ! -path './cmd/*' ! -path './test/*' | LC_ALL=C sort)
  [ ${#files[@]} -gt 0 ] || { echo "gen.sh: no CRDs in CAPI $1" >&2; exit 2; }
  "$trim" -out "$2" "${files[@]/#./$dir}"
}
for capi in $(printf '%s\n' "${capi_of[@]}" | sort -u); do
  rm -rf "${out:?}/capi-$capi"
  capi_crds "$capi" "$out/capi-$capi"
done

# The provisional target v1.28: the proxy's refusal of CAPZ v1.28.0 and of CAPZ main is recorded; should either be
# served, v1.28 is to become a real release (src/versions.rs). CAPZ main pins CAPI v1.14.2 (CAPZ PR #6660), whose
# trimmed CRDs must equal capi-v1.14.0/ for the target to use release capi-v1.14.
provisional_capi=v1.14.2 provisional_capi_folder=capi-v1.14.0
rm -f "$out/capz-v1.28-refused.txt"
for version in v1.28.0 main; do
  if (cd "$here" && go mod download -json "sigs.k8s.io/cluster-api-provider-azure@$version" > "$work/dl.json" 2>&1); then
    echo "gen.sh: the module proxy serves CAPZ $version: make target v1.28 a released one" >&2
    exit 2
  fi
  { echo "\$ go mod download -json sigs.k8s.io/cluster-api-provider-azure@$version"
    grep '"Error"' "$work/dl.json" | sed 's/^[[:space:]]*//'; } >> "$out/capz-v1.28-refused.txt"
done
echo "CAPZ v1.28.0 and main: refused by the module proxy (recorded)" >&2
capi_crds "$provisional_capi" "$work/capi-$provisional_capi"
if ! diff -r "$work/capi-$provisional_capi" "$out/$provisional_capi_folder" >&2; then
  echo "gen.sh: CAPI $provisional_capi's CRDs differ from $provisional_capi_folder/: v1.28 needs its own CAPI release" >&2
  exit 2
fi
echo "CAPI $provisional_capi: CRDs equal $provisional_capi_folder/" >&2

dir=$(module_dir sigs.k8s.io/cluster-api-operator "$capi_operator")
rm -rf "${out:?}"/capi-operator-*
"$trim" -out "$out/capi-operator-$capi_operator" "$dir"/config/crd/bases/*.yaml
echo "Cluster API Operator $capi_operator: CAPI $(required "$dir" sigs.k8s.io/cluster-api)" >&2

# The proxy's answer for each pinned ASO release; a refused one is recorded (and derived by the importer).
echo "$aso_extra_kinds" > "$out/aso-extra-kinds.txt"
union_pattern=$(cat "$out"/capz-*/aso-crd-pattern.txt "$out/aso-extra-kinds.txt" | tr ';' '\n' | LC_ALL=C sort -u | paste -sd';')
rm -f "$out/aso-v2.19-refused.txt"
for aso in $(printf '%s\n' "${aso_of[@]}" | sort -u) v2.20.0; do
  rm -rf "${out:?}/aso-$aso"
  if ! (cd "$here" && go mod download -json "github.com/Azure/azure-service-operator/v2@$aso" > "$work/dl.json" 2>&1); then
    { echo "\$ go mod download -json github.com/Azure/azure-service-operator/v2@$aso"
      grep '"Error"' "$work/dl.json" | sed 's/^[[:space:]]*//'; } > "$out/aso-${aso%.0}-refused.txt"
    echo "ASO $aso: refused by the module proxy (recorded)" >&2
    continue
  fi
  src=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' "$work/dl.json")
  copy="$work/aso-$aso"
  cp -r "$src/." "$copy"
  chmod -R u+w "$copy"
  # Per API group, the api/<group>/<version>[/storage] packages declaring a kind of the pattern.
  for group in $(echo "$union_pattern" | tr ';' '\n' | sed 's/\..*//' | LC_ALL=C sort -u); do
    pkgs=()
    for entry in $(echo "$union_pattern" | tr ';' '\n' | grep "^$group\."); do
      kind=${entry#*/}
      while IFS= read -r file; do
        pkgs+=("./${file%/*}")
      done < <(cd "$copy" && grep -l "^type $kind struct" api/"$group"/*/*_types_gen.go api/"$group"/*/storage/*_types_gen.go 2>/dev/null || true)
    done
    mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | LC_ALL=C sort -u)
    paths=$(IFS=','; echo "${pkgs[*]}")
    echo "ASO $aso: controller-gen on $group (${#pkgs[@]} packages)" >&2
    (cd "$copy" && $NICE "$cg" crd:crdVersions=v1,allowDangerousTypes=true "paths={$paths}" output:crd:dir="$work/crd-$aso")
  done
  "$trim" -pattern "$union_pattern" -out "$out/aso-$aso" "$work/crd-$aso"/*.yaml
done

cg_version=$(sed -n 's/^require sigs.k8s.io\/controller-tools \(.*\)$/\1/p; s/^[[:space:]]*sigs.k8s.io\/controller-tools \(v[^ ]*\).*/\1/p' "$here/go.mod" | head -1)
echo "wrote $out (controller-gen $cg_version)" >&2
if [ ${#stale_templates[@]} -gt 0 ]; then
  printf 'tests/fixtures/capz differs from CAPZ %s\n' "${stale_templates[@]}" >&2
  exit 1
fi
