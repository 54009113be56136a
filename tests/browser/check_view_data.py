#!/usr/bin/env python3
"""The data in a view page against dataprof report on the same profile:
    check_view_data.py DATAPROF PROFILE
decodes the page's cells and groups (docs/view.md) and requires, per data
object, per (object, member, line), per thread: the same samples and period
as report gives; the sample groups' counts summing to the same; marks as
many as the profile has; and the annotate pane's data, summed over all its
buckets, equal to dataprof annotate --json for every instruction of every
function it holds (samples, period, verdicts, accesses, levels, weight). Prints one line per check, then "N passed, N failed".
"""
import base64
import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter

dataprof, profile = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    print(f"{'ok' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else ""))
    if ok:
        passed += 1
    else:
        failed += 1


def varints(b64):
    out, v, shift = [], 0, 0
    for b in base64.b64decode(b64):
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            out.append(v)
            v, shift = 0, 0
    return out


def report(*args):
    out = subprocess.run([dataprof, "report", profile, "--csv", *args], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.reader(io.StringIO(out)))


page = subprocess.run([dataprof, "view", profile, "-o", "-"], check=True, capture_output=True,
                      text=True).stdout
m = re.search(r'<script type="application/json" id="dp-data">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
S = d["strings"]
col = {a: d["combos"][i] for i, a in enumerate(d["attrs"])}
cells = varints(d["cells"])
check("cells: four varints each", len(cells) == 4 * d["ncells"], f"{d['ncells']} cells")

by_obj, by_oml, by_tid = Counter(), Counter(), Counter()
per_obj, seen = Counter(), set()
for lane in d["lanes"]:
    b = 0
    last = -1
    for i in range(*lane["cells"]):
        step, combo, n, period = cells[4 * i:4 * i + 4]
        b += step
        if b < last:
            check("cells of a lane in bucket order", False, f"lane {lane['tid']}")
        last = b
        if lane["kind"] != "thread":
            continue
        o = S[col["object"][combo]]
        by_obj[o] += n
        per_obj[o] += period
        by_oml[(o, S[col["member"][combo]], S[col["line"][combo]])] += n
        by_tid[lane["tid"]] += n

rep_obj, rep_per = Counter(), Counter()
for r in report("--by", "object", "-n", "100000"):  # depth, object, samples, period, ...
    if r and r[0] == "1":
        rep_obj[r[1]] = int(r[2])
        rep_per[r[1]] = int(r[3])
check("samples per object equal report --by object", by_obj == rep_obj,
      f"{len(by_obj)} objects, {sum(by_obj.values())} samples")
check("period per object equals report --by object", per_obj == rep_per)
rep_oml = Counter()
for r in report("--by", "object,member,line", "--metric", "samples", "-n", "100000"):
    if r and r[0] == "1":
        rep_oml[(r[1], r[2], r[3])] = int(r[4])
check("samples per (object, member, line) equal report's", by_oml == rep_oml, f"{len(by_oml)} rows")
rep_tid = Counter()
for r in report("--by", "tid", "--metric", "samples", "-n", "100000"):
    if r and r[0] == "1":
        rep_tid[int(r[1])] = int(r[2])
check("samples per thread equal report --by tid", by_tid == rep_tid, f"{len(by_tid)} threads")

groups = varints(d["groups"])
gsum = sum(groups[3 * i + 1] for i in range(d["ngroups"]))
check("sample groups hold every sample", gsum == d["profile"]["samples"] == sum(by_tid.values()),
      f"{gsum}")
ok_mean = True
for lane in d["lanes"]:
    b = 0
    for i in range(*lane["groups"]):
        b += groups[3 * i]
        ok_mean &= groups[3 * i + 2] < d["time"]["bucket_ns"]
check("group mean times inside their buckets", ok_mean)
dump = subprocess.run([dataprof, "dump", "-s", profile], check=True, capture_output=True,
                      text=True).stdout
marks = re.search(r"(\d+) marks", dump)
check("marks: as many as the profile has", len(d["marks"]) == (int(marks.group(1)) if marks else 0),
      f"{len(d['marks'])}")

# the annotate pane's data against dataprof annotate --json
a = d["annotate"]
aj = json.loads(subprocess.run([dataprof, "annotate", "-i", profile, "--json", "-n", "100000"], check=True,
                               capture_output=True, text=True).stdout)
check("annotate: the page's totals are annotate's",
      (a["samples"], a["period"], a["outside"], a["functions_sampled"]) ==
      (aj["samples"], aj["period"], aj["outside"], aj["functions_sampled"]), f"{a['samples']} samples")
top = [f["name"] for f in aj["functions"][:a["top"]]]
names = [S[f["name"]] for f in a["functions"]]
check("annotate: the page holds annotate's hottest functions first, in its order", names[:len(top)] == top,
      ", ".join(names[:4]))
acells = varints(a["cells"])
check("annotate cells: six varints each", len(acells) == 6 * a["ncells"], f"{a['ncells']} cells")
kc = a["combos"]
nrows = len(a["rows"]["addr"])
rows = [{"samples": 0, "period": 0, "weight": 0, "nweight": 0, "verdicts": Counter(), "acc": Counter(),
         "other": 0, "levels": Counter()} for _ in range(nrows)]
b = 0
for i in range(a["ncells"]):
    step, k, n, period, weight, nweight = acells[6 * i:6 * i + 6]
    b += step
    r = rows[kc["insn"][k]]
    r["samples"] += n
    r["period"] += period
    r["weight"] += weight
    r["nweight"] += nweight
    if kc["verdict"][k] < len(a["verdicts"]):
        r["verdicts"][a["verdicts"][kc["verdict"][k]]] += n
    if kc["object"][k] < 0:
        r["other"] += n
    elif kc["object"][k]:
        r["acc"][(S[kc["object"][k]], S[kc["member"][k]] or None)] += n
    if kc["level"][k]:
        r["levels"][S[kc["level"][k]]] += n
byname = {f["name"]: f for f in aj["functions"]}
bad, ninsn = [], 0
for f in a["functions"]:
    jf = byname.get(S[f["name"]])
    r0, r1 = f["rows"]
    if not jf or len(jf["instructions"]) != r1 - r0 or (jf["samples"], jf["period"]) != (f["samples"], f["period"]):
        bad.append(f"{S[f['name']]}: not annotate's function")
        continue
    why = S[f["why"]] if f["why"] else None
    if why != jf["source_missing"]:
        bad.append(f"{S[f['name']]}: why '{why}'")
    for j, ins in zip(range(r0, r1), jf["instructions"]):
        r, ninsn = rows[j], ninsn + 1
        acc = Counter({(x["object"], x["member"]): x["samples"] for x in ins["accesses"]})
        lev = Counter({x["level"]: x["samples"] for x in ins["levels"]})
        wm = r["weight"] / r["nweight"] if r["nweight"] else None
        got = (a["rows"]["addr"][j], r["samples"], r["period"], dict(r["verdicts"]), acc == r["acc"], r["other"],
               lev == r["levels"], wm is None if ins["weight_mean"] is None else abs(wm - ins["weight_mean"]) < 1e-6 * wm)
        want = (int(ins["addr"], 16), ins["samples"], ins["period"], ins["verdicts"], True, ins["accesses_other"],
                True, True)
        if got != want:
            bad.append(f"{S[f['name']]} {ins['addr']}: {got} vs {want}")
check("annotate: every instruction's sums over all buckets are annotate's", not bad and ninsn > 0,
      f"{len(a['functions'])} functions, {ninsn} instructions" + (f"; {bad[:3]}" if bad else ""))
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
