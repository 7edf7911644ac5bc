#!/usr/bin/env bash
# Records tests/fixtures/argo-kustomize-edit/cases.json: for each case of cases.input.json, the `kustomize edit`
# sequence Argo CD's repo-server runs for the case's kustomize options, run with the real kustomize
# (sigs.k8s.io/kustomize/kustomize/v5 v5.7.1, built by build.sh from the Go module proxy), then `kustomize build`.
# tests/referee/argo_kustomize_referee.rs replays the recordings; CI never runs this. Usage: tools/kustomize-edit-oracle/record.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
"$here/build.sh"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/oracle" .)
mkdir -p "$root/tests/fixtures/argo-kustomize-edit"
"$bin/oracle" "$here/bin/kustomize" < "$here/cases.input.json" > "$root/tests/fixtures/argo-kustomize-edit/cases.json"
echo "wrote tests/fixtures/argo-kustomize-edit/cases.json ($(grep -c '"name":' "$root/tests/fixtures/argo-kustomize-edit/cases.json") cases)" >&2
