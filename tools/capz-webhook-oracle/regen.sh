#!/usr/bin/env bash
# Rebuilds tests/fixtures/capz-webhooks/<target>/recordings.json (recordings.delta.json for a target older than
# v1.27: regenerate v1.27 first) by running the real admission webhooks of one
# CAPZ release (sigs.k8s.io/cluster-api-provider-azure, internal/webhooks) over every bundle in
# tests/fixtures/capz-webhooks/cases/. One recording set per target of src/versions.rs:
#   v1.26.0 -> v1.26/ (pins azure-service-operator v2.18.0, built as pinned)
#   v1.27.0 -> v1.27/ (pins azure-service-operator v2.19.0, which the Go module proxy refuses: built with
#                      `replace github.com/Azure/azure-service-operator/v2 => ...@v2.20.0`; the recordings'
#                      header says so)
#
# Internal packages can only be imported from inside their module, so the harness
# (cmd/capz-webhook-oracle/main.go here) is built inside a temporary copy of CAPZ's module source taken
# from the Go module proxy (tools/capz-module/build.sh). Needs Go and the module proxy; takes a while on a cold
# build cache.
#
# Usage: tools/capz-webhook-oracle/regen.sh v1.26.0|v1.27.0 [updates]
#   updates  record the update pairs of tests/fixtures/capz-updates/cases/ (NAME.old.yaml + NAME.new.yaml:
#            CAPZ's webhooks on UPDATE, old = the stored object) into tests/fixtures/capz-updates/<target>/
#   CAPZ_ORACLE_WORKDIR=/some/dir  keep the module copies and binaries there (reused when present)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mode="${2:-}"
case "$mode" in
  "") fixtures="$root/tests/fixtures/capz-webhooks"; input_flag=-cases ;;
  updates) fixtures="$root/tests/fixtures/capz-updates"; input_flag=-pairs ;;
  *) echo "regen.sh: the second argument may only be 'updates', got '$mode'" >&2; exit 2 ;;
esac
# shellcheck source=../capz-module/build.sh
. "$root/tools/capz-module/build.sh"
capz_module_version "${1:-}"
capz_module_build capz-webhook-oracle "$here"

# Record. The newest target's recordings are kept whole; an older target's as the cases in which it differs
# from the newest (tools/capz-module/delta.py), which the replay test lays over the newest's.
base_target=v1.27
out="$fixtures/$capz_target/recordings.json"
mkdir -p "$(dirname "$out")"
"$binary" -module "$copy" "$input_flag" "$fixtures/cases" "${header_flags[@]}" > "$out.tmp"
if [ "$capz_target" = "$base_target" ]; then
  mv "$out.tmp" "$out"
  echo "wrote $out ($(grep -c '"case":' "$out") cases)"
else
  python3 "$root/tools/capz-module/delta.py" "$base_target" "$out.tmp" "$fixtures/$capz_target/recordings.delta.json"
  rm -f "$out.tmp" "$out"
fi
