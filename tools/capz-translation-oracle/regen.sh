#!/usr/bin/env bash
# Rebuilds tests/fixtures/capz-translation/recordings.json by running CAPZ's real translation of classic AKS
# objects into ASO objects (sigs.k8s.io/cluster-api-provider-azure v1.26.0: the defaulting webhooks, the
# ManagedControlPlaneScope / ManagedMachinePoolScope specs and the ASO reconciler's CreateOrUpdateResource, with
# azure-service-operator v2.18.0 as that module pins it) on a controller-runtime fake client, over every bundle in
# tests/fixtures/capz-translation/cases/ (written by gen_cases.py).
#
# Internal packages can only be imported from inside their module, so the harness
# (cmd/capz-translation-oracle/main.go here) is built inside a temporary copy of CAPZ's module source taken from
# the Go module proxy. Needs Go and the module proxy; takes a while on a cold build cache.
#
# Usage: tools/capz-translation-oracle/regen.sh
#   CAPZ_ORACLE_WORKDIR=/some/dir  keep the module copy and binary there (reused when present)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fixtures="$root/tests/fixtures/capz-translation"
# shellcheck source=../capz-module/build.sh
. "$root/tools/capz-module/build.sh"
capz_module_build capz-translation-oracle "$here"

# Record.
"$work/capz-translation-oracle" -module "$copy" -cases "$fixtures/cases" > "$fixtures/recordings.json.tmp"
mv "$fixtures/recordings.json.tmp" "$fixtures/recordings.json"
echo "wrote $fixtures/recordings.json ($(grep -c '"case":' "$fixtures/recordings.json") cases)"
