#!/usr/bin/env bash
# Whole-process render time per flavor with hyperfine (apt-get install hyperfine).
# Usage: scripts/bench-render.sh [path/to/kubectl-capz]   (default: builds and uses target/release)
# Writes .bench/render.md (markdown table) and .bench/render.json (hyperfine's raw results).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [[ -z "$bin" ]]; then
  cargo build --release --quiet
  bin="${CARGO_TARGET_DIR:-target}/release/kubectl-capz"
fi
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
mkdir -p .bench
# The variables CAPZ's docs export for `clusterctl generate cluster --flavor aks[-aso]`.
export CLUSTER_NAME=demo KUBERNETES_VERSION=v1.33.2 AZURE_LOCATION=southcentralus \
  AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000001 AZURE_TENANT_ID=00000000-0000-0000-0000-000000000002 \
  AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY=00000000-0000-0000-0000-000000000003 AZURE_NODE_MACHINE_TYPE=Standard_D2s_v3 \
  CLUSTER_IDENTITY_NAME=cluster-identity ASO_CREDENTIAL_SECRET_NAME=aso-credentials WORKER_MACHINE_COUNT=2
hyperfine --warmup 5 --min-runs 50 -N \
  --export-markdown .bench/render.md --export-json .bench/render.json \
  -n "render aks" "$bin render aks" \
  -n "render aks-aso" "$bin render aks-aso" \
  -n "render aks-aso (example values, maintenance, secret)" "$bin render aks-aso --values examples/aks-aso.values.yaml" \
  -n "render aks (example values)" "$bin render aks --values examples/aks.values.yaml" \
  -n "params aks-aso" "$bin params aks-aso"
cat .bench/render.md
