#!/usr/bin/python3
"""Checks a dataprof diff --json document (on stdin) against its schema and
prints one line per row for the C tests to read:
    diff_rows.py SCHEMA < diff.json
    ROW sig=1 dir=down shift=0 change=-92.3 base=176 new=13.5 key=struct item.b
    TOTAL sig=0 change=-3.1
    FAILED 0
Keys of several attributes are joined with " | "."""
import json
import sys

import jsonschema

doc = json.load(sys.stdin)
jsonschema.validate(doc, json.load(open(sys.argv[1])))


def fmt(v):
    return "none" if v is None else f"{v:.4f}"


for r in doc["rows"]:
    key = " | ".join(r["key"][a] for a in doc["by"])
    print(f"ROW sig={int(r['significant'])} dir={r['direction']} shift={r['line_shift']} "
          f"change={fmt(r['change'])} base={r['base']:.6g} new={r['new']:.6g} key={key}")
t = doc["total"]
print(f"TOTAL sig={int(t['significant'])} change={fmt(t['change'])}")
print(f"FAILED {int(doc['failed'])}")
