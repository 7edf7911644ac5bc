#!/usr/bin/env python3
"""Wall time of a few commands run in turn, one run of each per round, so that a machine whose speed drifts (a shared
VM) slows them alike: hyperfine runs all runs of one command before the next. Prints median, min and max per command
and the ratio of each median to the first command's.

    scripts/bench-alternate.py ROUNDS NAME=COMMAND [NAME=COMMAND ...]

A command is split on spaces (no shell); its output is discarded; exit codes 0 and 1 (findings) are accepted."""
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = dict(arg.split("=", 1) for arg in sys.argv[2:])
    times = {name: [] for name in commands}

    def run(name: str) -> float:
        began = time.perf_counter()
        done = subprocess.run(commands[name].split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - began
        if done.returncode not in (0, 1):
            sys.exit(f"{name}: exit {done.returncode}: {commands[name]}")
        return elapsed

    for name in commands:  # one warm-up run each
        run(name)
    for _ in range(rounds):
        for name in commands:
            times[name].append(run(name))
    first = statistics.median(times[next(iter(commands))])
    for name, series in times.items():
        median = statistics.median(series)
        print(f"{name:12} median {median * 1000:8.1f} ms  min {min(series) * 1000:8.1f}  max {max(series) * 1000:8.1f}"
              f"  {median / first:5.2f}x the first")


if __name__ == "__main__":
    main()
