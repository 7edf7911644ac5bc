#!/usr/bin/env python3
"""Prints the Markdown tables of scripts/bench-side-by-side.sh from its results directory (i22-rows.tsv, the hyperfine
JSON i22-KEY.json and the peak RSS series i22-KEY-0.rss / -1.rss): median wall time, min-max, peak RSS median,
the ratio peer/kubectl-capz and the load average before each row."""
import json
import os
import statistics
import sys

results = sys.argv[1]


def timing(key):
    with open(os.path.join(results, "i22-%s.json" % key)) as f:
        return [r["times"] for r in json.load(f)["results"]]


def rss(key, i):
    path = os.path.join(results, "i22-%s-%d.rss" % (key, i))
    if not os.path.exists(path):
        return None
    with open(path) as f:
        values = [int(line) for line in f if line.strip()]
    return statistics.median_low(values) / 1024 if values else None


def cell(times, mib):
    ms = [t * 1000 for t in times]
    text = "%.1f ms (%.1f-%.1f)" % (statistics.median(ms), min(ms), max(ms))
    return text + ("; %.0f MiB" % mib if mib is not None else "")


with open(os.path.join(results, "i22-rows.tsv")) as f:
    rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
print("| workload | kubectl-capz median (min-max); peak RSS | peer median (min-max); peak RSS | peer / ours | load |")
print("|---|---|---|---|---|")
scale = []
for key, label, load in rows:
    if key.startswith("scale-"):
        scale.append((key, label, load))
        continue
    series = timing(key)
    ours = cell(series[0], rss(key, 0))
    peer = cell(series[1], rss(key, 1)) if len(series) > 1 else "-"
    ratio = "%.1fx" % (statistics.median(series[1]) / statistics.median(series[0])) if len(series) > 1 else "-"
    print("| %s | %s | %s | %s | %s |" % (label, ours, peer, ratio, load))
if scale:
    print()
    print("| API | clusters | kubectl-capz median (min-max); peak RSS | per cluster | kubeconform | peer / ours | load |")
    print("|---|---|---|---|---|---|---|")
    for key, label, load in scale:
        flavor, n = label.split()
        series = timing(key)
        per = statistics.median(series[0]) * 1000 / int(n)
        peer = cell(series[1], rss(key, 1)) if len(series) > 1 else "-"
        ratio = "%.1fx" % (statistics.median(series[1]) / statistics.median(series[0])) if len(series) > 1 else "-"
        print("| %s | %s | %s | %.3f ms | %s | %s | %s |" % (flavor, n, cell(series[0], rss(key, 0)), per, peer, ratio, load))
