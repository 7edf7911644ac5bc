#!/usr/bin/env python3
"""Writes the source objects of the ASO conversion recordings (one JSON object per line on stdout): for each kind
of CAPZ's ASO groups in one ASO release and each of its non-storage API versions, random objects drawn from that
version's CRD schema (upstream-crds/aso-<release>/, committed), sparse ones and dense ones with most fields,
ASO's own samples of the kind and version (from the module: argument 3), and the ASO objects of CAPZ's aks-aso
templates and of our own fixtures (embedded in AzureASOManaged*.spec.resources and their templates, or standalone;
argument 4, the repository root). Deterministic: same inputs, same bytes.

Usage: gen_cases.py UPSTREAM_CRDS_DIR RELEASE MODULE_DIR REPO_ROOT > cases.jsonl"""
import glob
import json
import os
import random
import re
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


# The repository's files whose ASO objects are recorded too: CAPZ's templates (their ${VARS} given the values of
# CAPZ's docs, tests/support/cli_runner.rs CAPZ_DOCS_ENV) and fixtures of the tests that convert or validate them.
CAPZ_FILES = [
    "tests/fixtures/capz/cluster-template-aks-aso.yaml",
    "tests/fixtures/capz/cluster-template-aks-aso-maintenance.yaml",
    "tests/fixtures/capz/cluster-template-aks-aso-clusterclass.yaml",
    "tests/fixtures/convert-aso/*.yaml",
    "tests/fixtures/lint/aks-aso.yaml",
    "tests/fixtures/validate-targets/*.yaml",
]
CAPZ_DOCS_ENV = {
    "CLUSTER_NAME": "demo", "KUBERNETES_VERSION": "v1.33.2", "AZURE_LOCATION": "southcentralus",
    "AZURE_RESOURCE_GROUP": "demo", "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3", "CLUSTER_IDENTITY_NAME": "cluster-identity",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials", "WORKER_MACHINE_COUNT": "2",
}


def substitute(text):
    """${VAR}, ${VAR:=default} and ${VAR:-default} as clusterctl expands them, with CAPZ_DOCS_ENV."""
    def one(match):
        name, default = match.group(1), match.group(3)
        return CAPZ_DOCS_ENV.get(name, default if default is not None else "x")
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:[=-]([^}]*))?\}", one, text)


def capz_objects(root):
    """(path relative to root, index, object) of every ASO object of CAPZ_FILES, in file order."""
    found = []
    paths = sorted({p for pattern in CAPZ_FILES for p in glob.glob(os.path.join(root, pattern))})
    for path in paths:
        rel = os.path.relpath(path, root)
        for doc in yaml.safe_load_all(substitute(open(path).read())):
            if not isinstance(doc, dict):
                continue
            spec = doc.get("spec") or {}
            embedded = spec.get("resources") or ((spec.get("template") or {}).get("spec") or {}).get("resources") or []
            for item in ([doc] if str(doc.get("apiVersion", "")).split("/")[0] in KINDS else []) + list(embedded):
                if isinstance(item, dict):
                    found.append((rel, len(found), item))
    return found


def main():
    crds, release, module, root = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    capz = capz_objects(root)
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
                for rel, index, doc in capz:
                    if doc.get("kind") != kind or doc.get("apiVersion") != f"{group}/{version['name']}":
                        continue
                    meta = {"name": f"capz{index}", "namespace": "default"}
                    print(json.dumps({
                        "name": f"{base}/capz-{rel}/{index}", "origin": f"capz fixture {rel}",
                        "group": group, "kind": kind, "from": version["name"], "to": targets,
                        "input": {"apiVersion": doc["apiVersion"], "kind": kind, "metadata": meta,
                                  "spec": doc.get("spec", {})},
                    }, sort_keys=True))


main()
