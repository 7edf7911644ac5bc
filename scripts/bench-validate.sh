#!/usr/bin/env bash
# Benchmark: `kubectl-capz validate` vs kubeconform on one rendered aks-aso bundle and on 1000
# clusters. Needs scripts/bench-setup.sh first (kubeconform, hyperfine, release build).
# kubeconform gets the same CRD schemas, converted as its openapi2jsonschema.py does
# (additionalProperties: false on every object with properties), from schemas/gvk.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/.bench/bin"
capz="${CAPZ_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/kubectl-capz}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$repo/schemas/gvk" "$work/kc-schemas" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
def close(s):
    if isinstance(s, dict):
        if "properties" in s and "additionalProperties" not in s and not s.get("x-kubernetes-preserve-unknown-fields"):
            s["additionalProperties"] = False
        for v in s.values():
            close(v)
    elif isinstance(s, list):
        for v in s:
            close(v)
for root, _, files in os.walk(src):
    for f in files:
        k = json.load(open(os.path.join(root, f)))
        group = k["group"]
        out = os.path.join(dst, group)
        os.makedirs(out, exist_ok=True)
        schema = k["schema"]
        close(schema)
        json.dump(schema, open(os.path.join(out, f"{k['kind'].lower()}_{k['version']}.json"), "w"))
PY

render() {
  "$capz" render aks-aso "$1" --kubernetes-version v1.33.2 --set location=westeurope \
    --set poolDefaults.vmSize=Standard_D2s_v3 --set asoCredentialSecret.name=aso-creds
}
render demo > "$work/one.yaml"
for i in $(seq 1 1000); do sed "s/demo/demo-$i/g" "$work/one.yaml"; echo "---"; done > "$work/fleet.yaml"

location="$work/kc-schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
kc=("$bin/kubeconform" -strict -summary -schema-location "$location")
"${kc[@]}" "$work/one.yaml" >&2
"$capz" validate "$work/one.yaml" --disable deprecated-api >&2 || true
hyperfine -N --warmup 5 --export-markdown "$work/one.md" \
  "$capz validate $work/one.yaml" \
  "${kc[*]} $work/one.yaml"
hyperfine -N --warmup 1 --runs 5 --export-markdown "$work/fleet.md" \
  "$capz validate $work/fleet.yaml" \
  "${kc[*]} $work/fleet.yaml"
cat "$work/one.md" "$work/fleet.md"
