#!/usr/bin/env python3
"""Converts our per-GVK schemas (schemas/gvk/<group>/<version>/<Kind>.json, made from the upstream CRDs by
`import-schemas`) into kubeconform's layout, the way kubeconform's scripts/openapi2jsonschema.py converts CRDs:

  * every schema node that has `properties` and no `additionalProperties` gets `additionalProperties: false`
    (the root is left open, as the script does unless DENY_ROOT_ADDITIONAL_PROPERTIES is set);
  * `format: int-or-string` becomes `oneOf: [{type: string}, {type: integer}]`;
  * everything else (x-kubernetes-* extensions, nullable, CEL rules) is passed through untouched and ignored
    by kubeconform, as with the script.

    scripts/gen-kubeconform-schemas.py SCHEMA_DIR... OUT_DIR

(each SCHEMA_DIR a folder of `schemas/gvk/`, e.g. the default target's: scripts/bench-common.sh target_gvk_dirs)

writes OUT_DIR/<group>/<kind lowercased>_<version>.json, to be used as
    kubeconform -schema-location 'OUT_DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'
(the CRDs-catalog pattern from kubeconform's README). kubeconform's {{.Group}} is the part of apiVersion before
the `/`, so for core kinds (apiVersion `v1`) it is `v1`: they go to OUT_DIR/v1/.
"""
import json
import os
import sys


def additional_properties(node, skip=False):
    # As the script: recurses through mapping values only (not into lists such as allOf/anyOf).
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node and not skip:
            node["additionalProperties"] = False
        for value in node.values():
            additional_properties(value)
    return node


def replace_int_or_string(node):
    # As the script: a mapping-valued child with format int-or-string is replaced; lists are walked.
    if not isinstance(node, dict):
        return node
    new = {}
    for key, value in node.items():
        if isinstance(value, dict):
            if value.get("format") == "int-or-string":
                value = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            else:
                value = replace_int_or_string(value)
        elif isinstance(value, list):
            value = [replace_int_or_string(item) for item in value]
        new[key] = value
    return new


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sources, out = sys.argv[1:-1], sys.argv[-1]
    count = 0
    for src, group in sorted((src, group) for src in sources for group in os.listdir(src)):
        for version in sorted(os.listdir(os.path.join(src, group))):
            for name in sorted(os.listdir(os.path.join(src, group, version))):
                if not name.endswith(".json"):
                    continue
                with open(os.path.join(src, group, version, name)) as f:
                    entry = json.load(f)
                schema = replace_int_or_string(additional_properties(entry["schema"], skip=True))
                target_dir = os.path.join(out, entry["group"] or entry["version"])
                os.makedirs(target_dir, exist_ok=True)
                target = os.path.join(target_dir, "%s_%s.json" % (entry["kind"].lower(), entry["version"]))
                with open(target, "w") as f:
                    json.dump(schema, f, indent=2, sort_keys=True)
                    f.write("\n")
                count += 1
    print("gen-kubeconform-schemas: %d schemas written under %s" % (count, out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
