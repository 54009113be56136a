#!/usr/bin/env python3
"""A view page at the model's limits, for view_render.js: the data of PAGE
replaced by NCELLS (default 1M, the model's cap) random cells over 32 thread
lanes, 4096 buckets and 400 combinations, with the groups that go with them:
    view_stress.py PAGE OUT [NCELLS]
The page's size and render time then show the worst a profile can give."""
import base64
import json
import random
import re
import sys

src, out = sys.argv[1], sys.argv[2]
ncells = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
page = open(src).read()
m = re.search(r'(<script type="application/json" id="dp-data">)(.*?)(</script>)', page, re.S)
d = json.loads(m.group(2))
rnd = random.Random(7)
nl, nb, nc = 32, 4096, 400
S = d["strings"]
base = len(S)
S += [f"object{i}" for i in range(40)] + [f"struct s{i}.m{j}" for i in range(40) for j in range(3)]
S += [f"file{i}.c:{j}" for i in range(40) for j in range(10)] + [f"fn{i}" for i in range(60)]
S += [f"thread{i}" for i in range(nl)]
combos = [[0] * nc for _ in d["attrs"]]
for c in range(nc):
    o = rnd.randrange(40)
    vals = {"object": base + o, "member": base + 40 + o * 3 + rnd.randrange(3),
            "line": base + 160 + o * 10 + rnd.randrange(10), "function": base + 560 + rnd.randrange(60)}
    for i, a in enumerate(d["attrs"]):
        combos[i][c] = vals.get(a, d["combos"][i][0] if d["combos"][i] else 0)
d["combos"], d["ncombos"] = combos, nc


def varint(v, buf):
    while True:
        b = v & 0x7F
        v >>= 7
        buf.append(b | (0x80 if v else 0))
        if not v:
            return


per_lane = ncells // nl
cells, groups, lanes = bytearray(), bytearray(), []
bw = d["time"]["bucket_ns"] = max(d["time"]["bucket_ns"], 1 << 20)
for l in range(nl):
    # per_lane cells spread over the buckets, a few combinations each
    per_bucket = max(1, per_lane // nb)
    c0, g0 = len(lanes) and lanes[-1]["cells"][1] or 0, len(lanes) and lanes[-1]["groups"][1] or 0
    n = g = prev = 0
    for b in range(nb):
        combos_here = sorted(rnd.sample(range(nc), per_bucket))
        tot = 0
        for k, c in enumerate(combos_here):
            cnt = rnd.randrange(1, 40)
            tot += cnt
            varint(b - prev if k == 0 else 0, cells)
            varint(c, cells)
            varint(cnt, cells)
            varint(cnt * 100000, cells)
            prev = b
            n += 1
        varint(1 if b else 0, groups)
        varint(tot, groups)
        varint(rnd.randrange(bw), groups)
        g += 1
    lanes.append({"kind": "thread", "pid": 1, "tid": 100 + l, "cpu": 0, "name": base + 620 + l,
                  "cells": [c0, c0 + n], "groups": [g0, g0 + g]})
d["lanes"], d["cells"], d["ncells"] = lanes, base64.b64encode(cells).decode(), lanes[-1]["cells"][1]
d["groups"], d["ngroups"] = base64.b64encode(groups).decode(), lanes[-1]["groups"][1]
d["time"]["nbuckets"] = nb
d["time"]["samples"] = [0, nb * bw]
data = json.dumps(d, separators=(",", ":")).replace("<", "\\u003c")
open(out, "w").write(page[:m.start(2)] + data + page[m.end(2):])
print(f"{d['ncells']} cells, {d['ngroups']} groups, {len(lanes)} lanes")
