#!/usr/bin/env python3
"""Prints Markdown tables from the raw results of scripts/bench-*.sh (.bench/results/*.json from hyperfine
--export-json, *.rss from /usr/bin/time -f %M):

    scripts/bench-report.py [RESULTS_DIR]          # default .bench/results

Per hyperfine run: command, median / min / max wall time over the runs, mean user+sys CPU, number of runs,
and the ratio to the first command of that run. Then every peak-RSS series: median / min / max in MiB.
A growth table (fleet-N.json) adds the per-cluster cost.
"""
import json
import os
import re
import statistics
import sys


def ms(seconds):
    return "%.1f" % (seconds * 1000)


def short(command):
    """Commands as a reader would type them: binaries by name, paths relative to the repository."""
    command = re.sub(r"\S*/(?:release|dist)/kubectl-capz", "kubectl-capz", command)
    command = re.sub(r"\S*/\.bench/bin/", "", command)
    command = re.sub(r"\S*/(\.bench/data/)", r"\1", command)
    command = re.sub(r"/work/shared/reference/capz-templates/", "$CAPZ_TEMPLATES/", command)
    command = re.sub(r"/\S*/(examples/)", r"\1", command)
    return command


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".bench", "results")
    names = sorted(f[:-5] for f in os.listdir(root) if f.endswith(".json"))
    for name in names:
        with open(os.path.join(root, name + ".json")) as f:
            results = json.load(f)["results"]
        print("### %s\n" % name)
        print("| command | median ms | min ms | max ms | CPU ms (user+sys, mean) | runs | vs first |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        base = results[0]["median"]
        for r in results:
            failed = [c for c in r.get("exit_codes", []) if c not in (0, None)]
            note = " (exit %s)" % sorted(set(failed)) if failed else ""
            print("| `%s`%s | %s | %s | %s | %s | %d | %.2fx |" % (
                short(r["command"]), note, ms(r["median"]), ms(r["min"]), ms(r["max"]),
                ms(r["user"] + r["system"]), len(r["times"]), r["median"] / base))
        print()
    growth = []
    for name in names:
        m = re.fullmatch(r"fleet-(\d+)", name)
        if m:
            with open(os.path.join(root, name + ".json")) as f:
                r = json.load(f)["results"][0]
            growth.append((int(m.group(1)), r))
    if growth:
        growth.sort(key=lambda g: g[0])
        print("### fleet growth\n")
        print("| clusters | median | per cluster (median / N) | min | max | runs | peak RSS MiB (median) |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n, r in growth:
            rss = read_rss(os.path.join(root, "fleet-%d.rss" % n))
            print("| %d | %s ms | %.3f ms | %s ms | %s ms | %d | %s |" % (
                n, ms(r["median"]), r["median"] * 1000 / n, ms(r["min"]), ms(r["max"]), len(r["times"]),
                "%.1f" % (statistics.median(rss) / 1024) if rss else "-"))
        print()
    rss_names = sorted(f[:-4] for f in os.listdir(root) if f.endswith(".rss"))
    if rss_names:
        print("### peak RSS (`/usr/bin/time -f %M`)\n")
        print("| series | median MiB | min MiB | max MiB | runs |")
        print("|---|---:|---:|---:|---:|")
        for name in rss_names:
            rss = read_rss(os.path.join(root, name + ".rss"))
            if rss:
                print("| %s | %.1f | %.1f | %.1f | %d |" % (
                    name, statistics.median(rss) / 1024, min(rss) / 1024, max(rss) / 1024, len(rss)))
        print()
    return 0


def read_rss(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [int(line) for line in f if line.strip().isdigit()]


if __name__ == "__main__":
    sys.exit(main())
