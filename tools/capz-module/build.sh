# Sourced by the regen.sh of the CAPZ referees (tools/capz-webhook-oracle, tools/capz-translation-oracle):
# builds a referee program inside a writable copy of CAPZ's module source as the Go module proxy serves it,
# since CAPZ's internal packages can only be imported from inside its own module.
#
#   capz_module_version VERSION      -> checks VERSION is a CAPZ release the referees record (v1.26.0, v1.27.0)
#                                       and sets `capz_version`, `capz_target` (v1.27) and `aso_replace`
#   capz_module_build NAME HERE      -> builds HERE/cmd/NAME/main.go as $work/NAME-$capz_version inside
#                                       $work/capz-$capz_version
#
# Sets `work` (CAPZ_ORACLE_WORKDIR, else a temporary directory removed on exit), `copy` (the module copy),
# `binary` (the built referee) and `header_flags` (the referee's -capz-version, -capi-version, -aso-version and
# -aso-replace flags: what `go list -m` says the build's module graph holds, for the recordings' header).
#
# Where a release's go.mod pins an ASO release the Go module proxy does not serve, the copy's go.mod gets a
# `replace` to the nearest served ASO release (aso_replace below) and go.sum is completed for it; the referee
# records that replace (from its own build information) in the recordings' header.
capz_module="sigs.k8s.io/cluster-api-provider-azure"
aso_module="github.com/Azure/azure-service-operator/v2"

capz_module_version() {
  capz_version=$1
  case "$capz_version" in
    v1.26.0) aso_replace="" ;; # pins ASO v2.18.0, served
    # Pins ASO v2.19.0, which the proxy refuses (upstream-crds/aso-v2.19-refused.txt); v2.20.0 is the nearest
    # served release after it and CAPZ v1.27.0 compiles against it unchanged.
    v1.27.0) aso_replace="v2.20.0" ;;
    *)
      echo "regen.sh: CAPZ version must be v1.26.0 or v1.27.0 (one per target of src/versions.rs), got '$capz_version'" >&2
      exit 2
      ;;
  esac
  capz_target="${capz_version%.*}"
}

capz_module_build() {
  local name=$1 here=$2
  work="${CAPZ_ORACLE_WORKDIR:-}"
  if [[ -z "$work" ]]; then
    work="$(mktemp -d)"
    trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
  fi
  mkdir -p "$work"

  # 1. The module source, as the proxy serves it.
  local src_dir
  src_dir="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$capz_module@$capz_version" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [[ -z "$src_dir" || ! -f "$src_dir/go.mod" ]]; then
    echo "regen.sh: go mod download $capz_module@$capz_version gave no module directory" >&2
    exit 2
  fi

  # 2. A writable copy with our package added (and ASO replaced where the pinned release is not served).
  copy="$work/capz-$capz_version"
  if [[ ! -f "$copy/go.mod" ]]; then
    rm -rf "$copy"
    cp -r "$src_dir/." "$copy"
    chmod -R u+w "$copy"
    if [[ -n "$aso_replace" ]]; then
      (cd "$copy" && go mod edit -replace "$aso_module=$aso_module@$aso_replace")
    fi
  fi
  mkdir -p "$copy/cmd/$name"
  cp "$here/cmd/$name/main.go" "$copy/cmd/$name/main.go"

  # 3. Build inside the module (its go.mod/go.sum pin every dependency; with a replace, `-mod=mod` adds the
  #    go.sum entries of the replacement and whatever it requires).
  binary="$work/$name-$capz_version"
  local mod_flag=()
  [[ -n "$aso_replace" ]] && mod_flag=(-mod=mod)
  (cd "$copy" && go build "${mod_flag[@]}" -o "$binary" "./cmd/$name")

  # 4. What the build used, for the recordings' header.
  local capi aso replace
  capi="$(cd "$copy" && go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api)"
  aso="$(cd "$copy" && go list -m -f '{{.Version}}' "$aso_module")"
  replace="$(cd "$copy" && go list -m -f '{{with .Replace}}{{.Path}} {{.Version}}{{end}}' "$aso_module")"
  header_flags=(-capz-version "$capz_version" -capi-version "$capi" -aso-version "$aso")
  [[ -n "$replace" ]] && header_flags+=(-aso-replace "$aso_module => $replace")
  return 0
}
