# Sourced by the regen.sh of the CAPZ referees (tools/capz-webhook-oracle, tools/capz-translation-oracle):
# builds a referee program inside a writable copy of CAPZ's module source as the Go module proxy serves it,
# since CAPZ's internal packages can only be imported from inside its own module.
#
#   capz_module_build NAME HERE  -> builds HERE/cmd/NAME/main.go as $work/NAME inside $work/capz
#
# Sets `work` (CAPZ_ORACLE_WORKDIR, else a temporary directory removed on exit) and `copy` (the module copy).
capz_module="sigs.k8s.io/cluster-api-provider-azure"
capz_version="v1.26.0"

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

  # 2. A writable copy with our package added.
  copy="$work/capz"
  if [[ ! -f "$copy/go.mod" ]]; then
    rm -rf "$copy"
    cp -r "$src_dir/." "$copy"
    chmod -R u+w "$copy"
  fi
  mkdir -p "$copy/cmd/$name"
  cp "$here/cmd/$name/main.go" "$copy/cmd/$name/main.go"

  # 3. Build inside the module (its go.mod/go.sum pin every dependency).
  (cd "$copy" && go build -o "$work/$name" "./cmd/$name")
}
