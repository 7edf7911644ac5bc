#!/usr/bin/env python3
"""Writes one target's referee recordings as a delta against another target's full recordings.

The CAPZ releases agree on most cases, so an older target keeps only what differs (the webhook and the
translation oracles, tools/capz-webhook-oracle and tools/capz-translation-oracle, record per target):

    delta.py BASE_DIR FULL_RECORDINGS OUT

BASE_DIR is the folder name of the target whose recordings.json is kept whole (`v1.27`), FULL_RECORDINGS the
older target's complete recordings (what regen.sh records), OUT its recordings.delta.json: the header of
FULL_RECORDINGS, `"base": BASE_DIR`, and the cases whose recording differs from the base's in anything (verdicts,
messages, patches), whole. The tests read the base and lay the delta's cases over it (tests/support,
`recordings`).
"""
import json
import os
import sys


def main() -> None:
    base_dir, full_path, out_path = sys.argv[1:4]
    fixtures = os.path.dirname(os.path.dirname(os.path.abspath(out_path)))
    with open(os.path.join(fixtures, base_dir, "recordings.json"), encoding="utf-8") as f:
        base = json.load(f)
    with open(full_path, encoding="utf-8") as f:
        full = json.load(f)
    base_cases = {case["case"]: case for case in base["cases"]}
    full_names = [case["case"] for case in full["cases"]]
    if sorted(full_names) != sorted(base_cases):
        sys.exit(f"{full_path} and {base_dir}/recordings.json record different cases: regenerate both")
    delta = {key: value for key, value in full.items() if key != "cases"}
    delta["base"] = base_dir
    delta["cases"] = [case for case in full["cases"] if case != base_cases[case["case"]]]
    with open(out_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(delta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(out_path + ".tmp", out_path)
    print(f"wrote {out_path}: {len(delta['cases'])} of {len(full_names)} cases differ from {base_dir}")


if __name__ == "__main__":
    main()
