#!/usr/bin/env bash
# Rebuilds tests/fixtures/argocd-normalizer/recording.json: the Rust test writes the cases (the rendered
# objects of a cluster, their live form and the Application's ignoreDifferences), then Argo CD's own
# ignoreDifferences normalizer (github.com/argoproj/argo-cd/v3 v3.2.12, util/argo/normalizers) normalizes
# both forms. Needs Go and the Go module proxy (the first build downloads Argo CD's dependencies).
# Usage: tools/argocd-normalizer-oracle/regen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/argocd-normalizer-oracle" .)
(cd "$root" && REGEN_ARGOCD_NORMALIZER_INPUT="$work/input.json" \
  cargo test --test live render_fleet_gitops::argocd_normalizer_ignores_exactly_the_controller_fields -- --exact >/dev/null)
mkdir -p "$root/tests/fixtures/argocd-normalizer"
"$work/argocd-normalizer-oracle" "$work/input.json" > "$root/tests/fixtures/argocd-normalizer/recording.json"
echo "wrote $root/tests/fixtures/argocd-normalizer/recording.json ($(grep -c '"ignoreDifferences":' "$root/tests/fixtures/argocd-normalizer/recording.json") cases)"
