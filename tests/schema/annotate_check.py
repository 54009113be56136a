#!/usr/bin/python3
"""dataprof annotate --json against its schema (docs/schema/annotate.schema.json)
and against report: every line's samples are report --by line's, so the
hottest line is report's. Then prints, for the caller to compare with the
truth, each instruction's accessed members:
    annotate_check.py DATAPROF SCHEMA PROFILE
    -> "access BINARY 0xADDR MEMBER" lines (MEMBER "-" for the whole object),
       "hottest LINE SAMPLES", "valid" last; exit 1 on a failed check."""
import json
import sys

import jsonschema

import checks
from checks import check

dataprof, schema_path, profile = sys.argv[1:4]
schema = json.load(open(schema_path))


def run(*args):
    return checks.run(dataprof, *args)


for syntax in ("att", "intel"):
    doc = json.loads(run("annotate", "-i", profile, "--json", "--top", "100000",
                         "-M", syntax))
    jsonschema.validate(doc, schema)

lines = {}
for f in doc["functions"]:
    check(f["samples"] == sum(i["samples"] for i in f["instructions"]),
          f"{f['name']}: instructions sum to the function")
    for ln in f["lines"]:
        if ln["samples"]:
            lines[ln["line"]] = lines.get(ln["line"], 0) + ln["samples"]
    for i in f["instructions"]:
        for a in i["accesses"]:
            print("access", f["binary"], i["addr"], a["member"] or "-")

rep = json.loads(run("report", "-i", profile, "--json", "--by", "line", "--metric",
                     "samples", "--top", "100000"))
want = {r["key"]["line"]: r["samples"] for r in rep["rows"]
        if r["key"]["line"] not in ("", "-", "[unknown]")}
for k, n in want.items():
    check(lines.get(k) == n, f"line {k}: report {n}, annotate {lines.get(k)}")
for k, n in lines.items():
    check(k in want, f"line {k}: annotate {n}, not in report")
if want:
    top = max(want.values())
    mine = max(lines, key=lambda k: lines[k])
    check(lines[mine] == top, f"hottest line: annotate {mine} ({lines[mine]}), report {top}")
    print("hottest", mine, lines[mine], "report's", top)
text = run("annotate", "-i", profile)
check(text.startswith("# "), "text output")
print("lines compared with report:", len(want))
if checks.failures:
    sys.exit(1)
print("valid")
