#!/usr/bin/env bash
# Runs every benchmark area in turn and prints the Markdown tables (scripts/bench-report.py).
# The machine and tool versions go to .bench/results/machine.txt. An area whose feature is missing from the
# binary (exit 3) is reported and skipped; any other failure stops the run.
# usage: scripts/bench-all.sh [AREA...]     (areas: render validate diff fleet; default all)
source "$(dirname "$0")/bench-common.sh"
areas=("$@")
[ ${#areas[@]} -gt 0 ] || areas=(render validate diff fleet)
{
  echo "date: $(date -u +%FT%TZ)"
  echo "nproc: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "memory: $(free -m | awk '/^Mem:/ {print $2 " MiB"}'); kernel: $(uname -r)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "kubectl-capz: $("$CAPZ" version 2>/dev/null | head -1) ($CAPZ, commit $(git -C "$repo" rev-parse --short HEAD))"
  echo "clusterctl: $("$CLUSTERCTL" version -o short 2>/dev/null)"
  echo "kubeconform: $("$KUBECONFORM" -v 2>/dev/null)"
  echo "kubectl: $("$KUBECTL" version --client 2>/dev/null | head -1)"
  echo "hyperfine: $(hyperfine --version)"
} | tee "$results/machine.txt" >&2
for area in "${areas[@]}"; do
  echo "=== $area ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
  rc=0; "$repo/scripts/bench-$area.sh" || rc=$?
  case $rc in
    0) ;;
    3) echo "=== $area skipped: feature not built" >&2 ;;
    *) echo "=== $area FAILED (exit $rc)" >&2; exit "$rc" ;;
  esac
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results/machine.txt" >&2
python3 "$repo/scripts/bench-report.py" "$results"
