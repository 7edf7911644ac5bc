#!/usr/bin/env python3
"""Writes the source objects of the ASO conversion recordings (one JSON object per line on stdout): for each kind
of CAPZ's ASO groups in one ASO release and each of its non-storage API versions, random objects drawn from that
version's CRD schema (upstream-crds/aso-<release>/, committed), sparse ones and dense ones with most fields, and
ASO's own samples of the kind and version (from the module: argument 3). Deterministic: same inputs, same bytes.

Usage: gen_cases.py UPSTREAM_CRDS_DIR RELEASE MODULE_DIR > cases.jsonl"""
import glob
import json
import os
import random
import sys

import yaml

KINDS = {
    "containerservice.azure.com": ["ManagedCluster", "ManagedClustersAgentPool", "MaintenanceConfiguration", "FleetsMember"],
    "network.azure.com": ["VirtualNetwork", "VirtualNetworksSubnet", "NatGateway", "PrivateEndpoint", "BastionHost", "PrivateLinkService"],
    "resources.azure.com": ["ResourceGroup"],
}
RANDOM, DENSE = 56, 4


def word(rnd):
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 8)))


def gen(schema, rnd, p, depth):
    """A value for `schema`, or None to leave the property out."""
    if "enum" in schema:
        value = rnd.choice(schema["enum"])
        if isinstance(value, str) and rnd.random() < 0.15:
            value = value.lower() if value != value.lower() else value.upper()
        return value
    if schema.get("x-kubernetes-int-or-string"):
        return rnd.choice([rnd.randint(1, 99), word(rnd)])
    if schema.get("x-kubernetes-preserve-unknown-fields") and "properties" not in schema:
        return {word(rnd): rnd.choice([word(rnd), rnd.randint(0, 9), True])}
    kind = schema.get("type")
    if kind == "object":
        if depth <= 0:
            return None
        props = schema.get("properties")
        if props:
            out = {}
            required = set(schema.get("required", []))
            for key in sorted(props):
                if key in required or rnd.random() < p:
                    value = gen(props[key], rnd, p, depth - 1)
                    if value is not None:
                        out[key] = value
            return out
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            out = {}
            for _ in range(rnd.randint(1, 2)):
                value = gen(extra, rnd, p, depth - 1)
                if value is not None:
                    out[word(rnd)] = value
            return out
        return {}
    if kind == "array":
        if depth <= 0:
            return None
        items = [gen(schema.get("items", {}), rnd, p, depth - 1) for _ in range(rnd.randint(1, 2))]
        items = [i for i in items if i is not None]
        return items or None
    if kind == "string":
        if schema.get("format") == "date-time":
            return "2025-0%d-1%dT10:00:00Z" % (rnd.randint(1, 9), rnd.randint(0, 9))
        return word(rnd)
    if kind == "integer":
        low = int(schema.get("minimum", 0))
        high = int(schema.get("maximum", low + 100))
        return rnd.randint(low, min(high, low + 100))
    if kind == "number":
        return round(rnd.uniform(0, 10), 2)
    if kind == "boolean":
        return rnd.random() < 0.5
    return None


def main():
    crds, release, module = sys.argv[1], sys.argv[2], sys.argv[3]
    for group, kinds in KINDS.items():
        for kind in kinds:
            path = None
            for candidate in sorted(glob.glob(os.path.join(crds, f"aso-{release}", f"{group}_*.yaml"))):
                crd = yaml.safe_load(open(candidate))
                if crd["spec"]["names"]["kind"] == kind:
                    path = candidate
                    break
            if path is None:
                continue
            versions = [v for v in crd["spec"]["versions"] if not v["name"].endswith("storage")]
            names = [v["name"] for v in versions]
            for version in versions:
                spec_schema = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
                targets = [n for n in names if n != version["name"]] or [version["name"]]
                seed = 0
                base = f"{group.split('.')[0]}/{kind}/{version['name']}"
                for index in range(RANDOM + DENSE):
                    dense = index >= RANDOM
                    seed = index
                    rnd = random.Random(f"{release}/{base}/{index}")
                    spec = gen(spec_schema, rnd, 0.9 if dense else 0.25, 7 if dense else 6) or {}
                    print(json.dumps({
                        "name": f"{base}/{'dense' if dense else 'random'}-{index:03d}",
                        "origin": f"{'dense' if dense else 'random'} seed {seed}",
                        "group": group, "kind": kind, "from": version["name"], "to": targets,
                        "input": {"apiVersion": f"{group}/{version['name']}", "kind": kind,
                                  "metadata": {"name": f"obj{index}", "namespace": "default"}, "spec": spec},
                    }, sort_keys=True))
                sample_dir = os.path.join(module, "samples", group.split(".")[0], version["name"])
                for sample in sorted(glob.glob(os.path.join(sample_dir, "**", "*.yaml"), recursive=True)):
                    for doc in yaml.safe_load_all(open(sample)):
                        if not isinstance(doc, dict) or doc.get("kind") != kind:
                            continue
                        if doc.get("apiVersion") != f"{group}/{version['name']}":
                            continue
                        rel = os.path.relpath(sample, module)
                        meta = {"name": doc.get("metadata", {}).get("name", "sample"), "namespace": "default"}
                        print(json.dumps({
                            "name": f"{base}/sample-{rel}/{meta['name']}", "origin": f"sample {rel}",
                            "group": group, "kind": kind, "from": version["name"], "to": targets,
                            "input": {"apiVersion": doc["apiVersion"], "kind": kind, "metadata": meta,
                                      "spec": doc.get("spec", {})},
                        }, sort_keys=True))


main()
