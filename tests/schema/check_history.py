#!/usr/bin/python3
"""Checks what dataprof history writes for machines against its schemas:
    check_history.py SCHEMA_DIR check < check.json   (dataprof-history-check/1)
    check_history.py SCHEMA_DIR page PAGE.html       (the page's dataprof-history-page/1)
Prints "valid" and a summary line; exits 1 with the reason otherwise."""
import json
import re
import sys

import jsonschema

schemas, kind = sys.argv[1], sys.argv[2]


def load(name):
    return json.load(open(f"{schemas}/{name}"))


def unref(node):
    """The $ref to diff's schema as "an object": the diff is checked on its own,
    against diff.schema.json, with no resolver needed."""
    if isinstance(node, dict):
        if node.get("$ref") == "diff.schema.json":
            return {"type": "object"}
        return {k: unref(v) for k, v in node.items()}
    if isinstance(node, list):
        return [unref(v) for v in node]
    return node


if kind == "check":
    doc = json.load(sys.stdin)
    jsonschema.validate(doc, unref(load("history-check.schema.json")))
    if doc["diff"] is not None:
        jsonschema.validate(doc["diff"], load("diff.schema.json"))
    print("valid", f"commit={doc['commit']} baseline={','.join(doc['baseline']['commits'])} "
          f"failed={int(doc['failed'])}")
else:
    html = open(sys.argv[3]).read()
    m = re.search(r'<script type="application/json" id="dp-history">(.*?)</script>', html, re.S)
    if not m:
        sys.exit("no dp-history data in the page")
    doc = json.loads(m.group(1))
    jsonschema.validate(doc, load("history-page.schema.json"))
    n = len(doc["commits"])
    for k in doc["keys"]:
        if len(k["values"]) != n or len(k["beyond_noise"]) != n:
            sys.exit(f"{k['key']}: {len(k['values'])} values for {n} commits")
    print("valid", f"commits={n} keys={len(doc['keys'])} "
          f"steps={','.join(str(s['index']) for s in doc['steps'])}")
