#!/usr/bin/python3
"""dataprof doctor --json against its schema (docs/schema/doctor.schema.json),
and the same answers as the text form:
    check_doctor.py DATAPROF SCHEMA"""
import json
import subprocess
import sys

import jsonschema

dataprof, schema_path = sys.argv[1:3]
doc = json.loads(subprocess.run([dataprof, "doctor", "--json"], check=True,
                                capture_output=True, text=True).stdout)
with open(schema_path) as f:
    schema = json.load(f)
jsonschema.validate(doc, schema)
# every probe the schema names, once each
every = schema["properties"]["probes"]["items"]["properties"]["name"]["enum"]
names = [p["name"] for p in doc["probes"]]
assert sorted(names) == sorted(every), names
text = subprocess.run([dataprof, "doctor"], check=True, capture_output=True,
                      text=True).stdout
for p in doc["probes"]:
    want = "%-3s  %-12s" % ("yes" if p["ok"] else "no", p["name"])
    assert any(line.startswith(want) for line in text.splitlines()), (want, text)
print("doctor --json: %d probes, valid, as the text says" % len(names))
