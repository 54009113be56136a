#!/usr/bin/python3
"""Validates dataprof report's machine-readable outputs against their
documented schemas (docs/schema/report.schema.json, docs/report.md):
    check_report_formats.py DATAPROF SCHEMA PROFILE
--json must validate against the JSON schema, be internally consistent
(children sum to their parent), and agree with --csv row for row."""
import csv
import io
import json
import sys

import jsonschema

import checks
from checks import check

dataprof, schema_path, profile = sys.argv[1:4]


def run(*args):
    return checks.run(dataprof, "report", profile, *args)


schema = json.load(open(schema_path))
cases = [["--by", "object", "--then", "member", "--then", "line"],
         ["--by", "function,verdict"],
         ["--by", "time:50ms", "--metric", "samples"],
         ["--by", "member", "--where", "verdict=verified or verdict=exact"],
         []]
for args in cases:
    doc = json.loads(run("--json", *args))
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        check(False, f"{args}: {e.message}")
        continue

    def walk(rows, parent, depth):
        total = sum(r["samples"] for r in rows)
        if rows:
            check(total == parent, f"{args}: children sum {total} != parent {parent}")
        for r in rows:
            check(len(r["key"]) == len(doc["levels"][depth]), f"{args}: key width")
            walk(r["children"], r["samples"], depth + 1)
    walk(doc["rows"], doc["total"]["samples"], 0)
    check(doc["samples_kept"] == doc["total"]["samples"], f"{args}: kept == total")
    check(sum(l["count"] for l in doc["lost_by"]) == doc["lost"],
          f"{args}: lost_by adds up to lost")

    # CSV: the same rows, depth first, same numbers
    rows = list(csv.DictReader(io.StringIO(run("--csv", *args))))
    flat = []

    def flatten(rs):
        for r in rs:
            flat.append(r)
            flatten(r["children"])
    flatten(doc["rows"])
    check(len(rows) == len(flat), f"{args}: {len(rows)} CSV rows, {len(flat)} JSON rows")
    for c, j in zip(rows, flat):
        check(int(c["samples"]) == j["samples"] and int(c["period"]) == j["period"],
              f"{args}: CSV and JSON rows differ")
    print(f"ok: {' '.join(args) or '(default view)'}: {len(flat)} rows")

print(f"{checks.failures} failed")
sys.exit(1 if checks.failures else 0)
