#!/usr/bin/env bash
# The hostile-repository measurements of BENCHMARKS.md: makes the inputs under $OUT (default
# /tmp/bench-hostile), then runs `BIN validate . -o json` in each under /usr/bin/time, with helm (tools/helm/bin)
# through a wrapper on PATH that runs it under /usr/bin/time too, and prints one line per case.
# Usage: scripts/bench-hostile.sh LABEL BIN [CASE...]   (cases: laughs-one laughs-ten ratio-one huge helm-repeat
#        helm-alloc helm-output helm-output3 helm-slow). Without budgets some cases take gigabytes: see BENCHMARKS.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
label="$1"; bin="$2"; shift 2
out="${OUT:-/tmp/bench-hostile}"
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(laughs-one laughs-ten ratio-one huge helm-repeat helm-alloc helm-output helm-output3 helm-slow)
mkdir -p "$out/wrap"
if [ ! -d "$out/laughs-one" ]; then
  OUT="$out" python3 - <<'PY'
import os
out = os.environ["OUT"]
def laughs(name, levels=5, last=7):
    t = f"apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: {name}\nspec:\n  l0: &l0 [{', '.join(['x'] * 10)}]\n"
    for l in range(1, levels):
        t += f"  l{l}: &l{l} [{', '.join([f'*l{l - 1}'] * 10)}]\n"
    return t + f"  bomb: [{', '.join([f'*l{levels - 1}'] * last)}]\n"
for d in ["laughs-one", "laughs-ten", "ratio-one", "huge"]:
    os.makedirs(f"{out}/{d}", exist_ok=True)
open(f"{out}/laughs-one/bombs.yaml", "w").write("---\n".join(laughs(f"b{i}") for i in range(100)))
for f in range(10):
    open(f"{out}/laughs-ten/bombs{f}.yaml", "w").write("---\n".join(laughs(f"f{f}-b{i}") for i in range(100)))
items, refs = ", ".join(["x"] * 1000), ", ".join(["*a"] * 990)
open(f"{out}/ratio-one/bombs.yaml", "w").write("---\n".join(
    f"apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb{i}\nspec:\n  a: &a [{items}]\n  b: [{refs}]\n"
    for i in range(100)))
with open(f"{out}/huge/big.yaml", "w") as f:
    f.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  a: ")
    for _ in range(1024):
        f.write("x" * (1 << 20))
    f.write("\n")
def chart(d, name, template):
    os.makedirs(f"{out}/{d}/charts/{name}/templates", exist_ok=True)
    open(f"{out}/{d}/charts/{name}/Chart.yaml", "w").write(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    open(f"{out}/{d}/charts/{name}/templates/t.yaml", "w").write(template)
chart("helm-alloc", "bomb", "data: {{ range until 100000000 }}xxxxxxxxxxxxxxxx{{ end }}\n")
chart("helm-repeat", "bomb", "data: {{ repeat 100000000 \"xxxxxxxxxx\" }}\n")
big = ("{{ range until 200000 }}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{{ . }}\ndata:\n  a: \""
       + "x" * 100 + "\"\n{{ end }}")
for i in range(4):
    chart("helm-output", f"big{i}", big)
for i in range(3):
    chart("helm-output3", f"big{i}", big)
    chart("helm-slow", f"slow{i}", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n")
PY
fi
cat > "$out/wrap/helm" <<WRAP
#!/bin/sh
exec /usr/bin/time -f "helm %M KB %e s %x" -a -o "$out/helm-usage.log" "$root/tools/helm/bin/helm" "\$@"
WRAP
chmod +x "$out/wrap/helm"
for case in "${cases[@]}"; do
  extra=()
  [ "$case" = helm-slow ] && extra=(--timeout 30s)
  : > "$out/helm-usage.log"
  (cd "$out/$case" && PATH="$out/wrap:$PATH" /usr/bin/time -f "%M %e %x" -o "$out/capz-usage.log" \
    "$bin" validate . -o json "${extra[@]}" > "$out/out-$label-$case.json" 2> "$out/err-$label-$case.txt") || true
  read -r rss secs code < <(tail -1 "$out/capz-usage.log")
  helm=$(awk 'BEGIN{m=0} /^helm/{if($2>m)m=$2} END{print m}' "$out/helm-usage.log")
  runs=$(grep -c "^helm" "$out/helm-usage.log" || true)
  summary=$(grep -E "objects:|not built" "$out/err-$label-$case.txt" | tr '\n' ' ' | cut -c1-220)
  echo "$label | $case | capz peak $((rss / 1024)) MiB | ${secs} s | exit $code | helm runs $runs, largest peak $((helm / 1024)) MiB | load $(cut -d' ' -f1 /proc/loadavg) | $summary"
done
