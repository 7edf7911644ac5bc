#!/usr/bin/env bash
# Builds the krew release archive(s) this machine can build and writes krew-manifest.yaml from them.
#
#   scripts/package.sh                     release build for the host target (linux/amd64 here) into dist/
#   scripts/package.sh --binary PATH       package an already built binary (tests use this)
#   scripts/package.sh --out DIR           where archives and the manifest go (default: dist/)
#   scripts/package.sh --manifest FILE     where to write the manifest (default: krew-manifest.yaml)
#   scripts/package.sh --target TRIPLE     cargo target to build (repeatable)
#   scripts/package.sh --archives DIR      build nothing: write the manifest from the archives already in DIR
#                                          (the release workflow gathers every platform's archive there)
#
# Archives are reproducible (sorted entries, fixed mtime and owner, gzip without timestamp), each holds the
# binary and LICENSE; every sha256 in the manifest is computed from an archive this run actually wrote.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/dist"
manifest="$repo/krew-manifest.yaml"
binary=""
archives=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --manifest) manifest="$2"; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --archives) archives="$2"; shift 2 ;;
    *) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)
[ -n "$version" ] || { echo "package.sh: no version in Cargo.toml" >&2; exit 2; }
tag="v$version"
homepage="https://github.com/kubectl-capz/kubectl-capz"
mkdir -p "$out"

# Linux binaries are linked statically with glibc (scripts/static-flags.sh says why).
. "$repo/scripts/static-flags.sh"

# os/arch of a Rust target triple, as krew's selector labels spell them.
os_arch() {
  case "$1" in
    x86_64-unknown-linux-*) echo "linux amd64" ;;
    aarch64-unknown-linux-*) echo "linux arm64" ;;
    x86_64-apple-darwin) echo "darwin amd64" ;;
    aarch64-apple-darwin) echo "darwin arm64" ;;
    x86_64-pc-windows-*) echo "windows amd64" ;;
    *) echo "package.sh: unsupported target $1" >&2; return 1 ;;
  esac
}

entries=()
if [ -n "$archives" ]; then
  for archive in "$archives"/kubectl-capz_"${tag}"_*.tar.gz; do
    [ -e "$archive" ] || { echo "package.sh: no kubectl-capz_${tag}_*.tar.gz in $archives" >&2; exit 2; }
    base=$(basename "$archive" .tar.gz)
    os_and_arch=${base#kubectl-capz_"${tag}"_}
    os=${os_and_arch%_*}; arch=${os_and_arch#*_}
    exe="kubectl-capz"; [ "$os" = windows ] && exe="kubectl-capz.exe"
    entries+=("$os|$arch|$(basename "$archive")|$(sha256sum "$archive" | cut -d' ' -f1)|$exe")
  done
  targets=()
else
  host=$(rustc -vV | sed -n 's/^host: //p')
  if [ ${#targets[@]} -eq 0 ]; then targets=("$host"); fi
fi

for target in "${targets[@]}"; do
  read -r os arch < <(os_arch "$target")
  exe="kubectl-capz"; [ "$os" = windows ] && exe="kubectl-capz.exe"
  if [ -n "$binary" ]; then
    built="$binary"
  else
    echo "package.sh: building $target (dist profile: release with thin LTO)" >&2
    RUSTFLAGS="${RUSTFLAGS:-} $(static_flags "$target") --remap-path-prefix=$repo=. --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo" \
      cargo build --profile dist --locked --target "$target" --manifest-path "$repo/Cargo.toml" >&2
    built="${CARGO_TARGET_DIR:-$repo/target}/$target/dist/$exe"
  fi
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  cp "$built" "$stage/$exe"
  chmod 0755 "$stage/$exe"
  cp "$repo/LICENSE" "$stage/LICENSE"
  chmod 0644 "$stage/LICENSE"
  helper=""
  if [ "$os" != windows ]; then
    helper="kubectl_complete-capz"
    cp "$repo/scripts/kubectl_complete-capz" "$stage/$helper"
    chmod 0755 "$stage/$helper"
  fi
  archive="kubectl-capz_${tag}_${os}_${arch}.tar.gz"
  tar --format=gnu --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf - LICENSE "$exe" $helper | gzip -n -9 > "$out/$archive"
  rm -rf "$stage"
  trap - EXIT
  sha=$(sha256sum "$out/$archive" | cut -d' ' -f1)
  entries+=("$os|$arch|$archive|$sha|$exe")
  echo "package.sh: $out/$archive $sha" >&2
done

# The manifest: fixed text from quoted heredocs (nothing in it is expanded or run: the caveats quote a
# command in backticks), the variable parts printed with printf. Written to a temporary file first so
# a failure never leaves a half-written manifest.
{
  cat <<'EOM'
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: capz
spec:
EOM
  printf '  version: %s\n  homepage: %s\n' "$tag" "$homepage"
  cat <<'EOM'
  shortDescription: Render, validate and diff CAPZ AKS cluster manifests
  description: |
    kubectl-capz renders the Cluster API Provider Azure (CAPZ) aks and aks-aso flavors, their
    ClusterClasses and topology Clusters from typed parameters (and any clusterctl template with
    clusterctl's variable semantics), validates manifests offline against the CAPI, CAPZ and Azure
    Service Operator schemas (including the ASO objects embedded in AzureASOManaged*), CEL rules and
    CAPZ's webhook rules, and diffs them against a live cluster without noise.
  caveats: |
    The embedded schemas target CAPZ v1.27 (default) and v1.26 with the CAPI and ASO releases
    they pin; run `kubectl capz version` to see the exact versions.

    Shell completion of `kubectl capz ...` (kubectl 1.26+, with kubectl's own completion loaded):
    kubectl runs kubectl_complete-capz from PATH. It comes in the archive; krew does not link it
    (kubernetes-sigs/krew#812), so link it next to the plugin once:
EOM
  printf '      ln -sf "${KREW_ROOT:-$HOME/.krew}/store/capz/%s/kubectl_complete-capz" "${KREW_ROOT:-$HOME/.krew}/bin/"\n' "$tag"
  cat <<'EOM'
    For `kubectl-capz ...` itself: source <(kubectl-capz completion bash) (or zsh, fish).
  platforms:
EOM
  for entry in "${entries[@]}"; do
    IFS='|' read -r os arch archive sha exe <<<"$entry"
    printf '  - selector:\n      matchLabels:\n        os: %s\n        arch: %s\n' "$os" "$arch"
    printf '    uri: %s\n    sha256: %s\n    bin: %s\n' "$homepage/releases/download/$tag/$archive" "$sha" "$exe"
  done
} > "$manifest.tmp"
mv -f "$manifest.tmp" "$manifest"
echo "package.sh: wrote $manifest" >&2
