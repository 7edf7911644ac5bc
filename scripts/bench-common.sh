# Sourced by scripts/bench-*.sh: paths, the shared environment, and helpers that print every command they time.
# Knobs (environment): RUNS (hyperfine runs per command, default 10), WARMUP (default 2),
# RSS_RUNS (runs of /usr/bin/time -f %M per command, default 5), CAPZ (kubectl-capz binary).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$repo/.bench/bin"
results="$repo/.bench/results"
data="$repo/.bench/data"
templates=${CAPZ_TEMPLATES:-/work/shared/reference/capz-templates}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
RSS_RUNS=${RSS_RUNS:-5}
CAPZ=${CAPZ:-${CARGO_TARGET_DIR:-$repo/target}/$(rustc -vV | sed -n 's/^host: //p')/dist/kubectl-capz}
CLUSTERCTL=${CLUSTERCTL:-$bin/clusterctl}
KUBECONFORM=${KUBECONFORM:-$bin/kubeconform}
# kubectl matching the test server (1.36), built by scripts/bench-setup.sh; PATH's kubectl otherwise.
KUBECTL=${KUBECTL:-$( [ -x "$bin/kubectl" ] && echo "$bin/kubectl" || command -v kubectl)}
mkdir -p "$results" "$data"

# The generated fleets pin Kubernetes v1.33.2: AKS support is judged on a day AKS supported it (KUBECTL_CAPZ_AT,
# validate's --at), so every run measures the same clean trees whatever the date.
export KUBECTL_CAPZ_AT=${KUBECTL_CAPZ_AT:-2025-11-15}
# clusterctl's variables for every CAPZ AKS template; kubectl-capz reads the same environment.
export CLUSTER_NAME=demo NAMESPACE=default KUBERNETES_VERSION=v1.33.2 AZURE_LOCATION=westeurope
export AZURE_NODE_MACHINE_TYPE=Standard_D4s_v5 WORKER_MACHINE_COUNT=3 ASO_CREDENTIAL_SECRET_NAME=aso-credentials
export AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000000 AZURE_TENANT_ID=11111111-1111-1111-1111-111111111111
export AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY=22222222-2222-2222-2222-222222222222
export CLUSTER_IDENTITY_NAME=cluster-identity CLUSTER_IDENTITY_TYPE=WorkloadIdentity AZURE_RESOURCE_GROUP=demo-rg
export AZURE_SSH_PUBLIC_KEY_B64="" CLUSTER_CLASS_NAME=demo-class
# clusterctl: no version check over the network, a config directory of its own (no ~/.cluster-api).
export CLUSTERCTL_DISABLE_VERSIONCHECK=true XDG_CONFIG_HOME="$repo/.bench/xdg"
mkdir -p "$XDG_CONFIG_HOME"

need() {
  for tool in "$@"; do
    [ -x "$tool" ] || command -v "$tool" >/dev/null || { echo "missing $tool: run scripts/bench-setup.sh" >&2; exit 2; }
  done
}

# Prints then runs hyperfine; results go to $results/NAME.json (and .md). Extra hyperfine args come first.
# usage: bench NAME [hyperfine options...] -- 'command' ['command'...]
bench() {
  local name=$1; shift
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  local cmd=(hyperfine --style basic -N --runs "$RUNS" --warmup "$WARMUP" "${opts[@]}"
    --export-json "$results/$name.json" --export-markdown "$results/$name.md" "$@")
  echo "+ $(printf '%q ' "${cmd[@]}")" >&2
  "${cmd[@]}" >&2
}

# Peak RSS (KiB) of a command, RSS_RUNS times; prints and records every run, then the median.
# usage: peak_rss NAME 'shell command'   (run by bash -c, so pipes and redirections work)
peak_rss() {
  local name=$1 cmd=$2 i
  local out="$results/$name.rss"
  : > "$out"
  echo "+ /usr/bin/time -f %M bash -c $(printf %q "$cmd")   (x$RSS_RUNS)" >&2
  for ((i = 0; i < RSS_RUNS; i++)); do
    /usr/bin/time -o "$out.one" -f %M bash -c "$cmd" >/dev/null 2>"$out.err" || {
      local rc=$?
      # exit 1 = findings/differences for every tool here; anything else is a failed run.
      [ "$rc" -eq 1 ] || { echo "peak_rss $name: exit $rc: $(tail -3 "$out.err")" >&2; return 1; }
    }
    tail -1 "$out.one" >> "$out"
  done
  rm -f "$out.one" "$out.err"
  echo "  peak RSS KiB: $(tr '\n' ' ' < "$out")-> median $(sort -n "$out" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" >&2
}

# The schema folders (schemas/gvk/*) of the default target (src/versions.rs) and the newest Kubernetes release, one
# per line: what kubeconform gets converted, so both tools check against the same schemas.
target_gvk_dirs() {
  local dir name family release
  for dir in "$repo"/schemas/gvk/*/; do
    # A folder shared by releases of one family names the family once: aso-v2.18+v2.19.
    name=$(basename "$dir"); family=${name%%-v*}
    for release in $(echo "$name" | tr '+' ' ' | sed "s/\(^\| \)v/\1$family-v/g"); do
      case " ${TARGET_RELEASES:-capi-v1.14 capz-v1.27 aso-v2.19 gitops kubernetes-v1.36} " in
        *" $release "*) echo "${dir%/}"; break ;;
      esac
    done
  done
}
