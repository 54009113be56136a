#!/usr/bin/python3
"""Checks dataprof layout --json (on stdin) against its schema and, with
--pahole BINARY, against pahole's layout of the same type; prints the facts
the C tests read:
    layout_facts.py SCHEMA [--pahole BINARY] < layout.json
    MEMBER name share hot loads stores
    LINES now suggested aligned
    ORDER a,b,...
    FALSE n
    WRITER line member tid          (members written on flagged lines)
    PAHOLE ok | PAHOLE mismatch ...
"""
import json
import re
import subprocess
import sys

import jsonschema

doc = json.load(sys.stdin)
jsonschema.validate(doc, json.load(open(sys.argv[1])))

for m in doc["members"]:
    print(f"MEMBER {m['name']} {m['share']:.3f} {int(m['hot'])} {m['loads']} {m['stores']}")
lp = doc["lines_per_visit"]
print(f"LINES {lp['now']:.3f} {lp['suggested']:.3f} {lp['aligned']:.3f}")
print("ORDER " + ",".join(doc["suggested_order"]))
print(f"FALSE {doc['false_sharing']}")
for ln in doc["lines"]:
    if ln["false_sharing"]:
        for a in ln["accesses"]:
            if a["stores"] and a["member"]:
                print(f"WRITER {ln['addr']} {a['member']} {a['tid']}")


def pahole(binary, name):
    """members (name, offset, size, bit_offset, bit_size), holes, size, padding"""
    bare = re.sub(r"^(struct|class|union) ", "", name)
    out = subprocess.run(["pahole", "-C", bare, binary], check=True, capture_output=True,
                         text=True).stdout
    members, holes, size, padding, last = [], [], None, 0, None
    for line in out.splitlines():
        # a base class: /* class Base <ancestor>; */ /* 0 16 */
        a = re.match(r"\s+/\*\s*(.*?)\s*<ancestor>;\s*\*/\s*/\*\s*(\d+)\s+(\d+)\s*\*/", line)
        if a:
            members.append((a.group(1), int(a.group(2)), int(a.group(3)), 0, 0))
            last = a.group(1)
            continue
        m = re.match(r"\s+(.*?)\s*;\s*/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/", line)
        if m and "XXX" not in line:
            decl = m.group(1)
            bits = re.search(r":(\d+)$", decl)
            decl = re.sub(r":\d+$", "", decl)
            nm = re.sub(r"(\[\d*\])+$", "", decl).split()[-1].lstrip("*")
            members.append((nm, int(m.group(2)), int(m.group(4)),
                            int(m.group(3) or 0), int(bits.group(1)) if bits else 0))
            last = nm
            continue
        h = re.search(r"XXX (\d+) (bytes|bits) hole", line)
        if h:
            n = int(h.group(1))
            holes.append((last, n if h.group(2) == "bytes" else 0,
                          n if h.group(2) == "bits" else 0))
        s = re.search(r"/\* size: (\d+)[, ]", line)
        if s:
            size = int(s.group(1))
        p = re.search(r"/\* padding: (\d+) \*/", line)
        if p:
            padding = int(p.group(1))
    return members, holes, size, padding


if len(sys.argv) > 3 and sys.argv[2] == "--pahole":
    members, holes, size, padding = pahole(sys.argv[3], doc["type"])
    ours = [(m["name"], m["offset"], m["size"], m["bit_offset"], m["bit_size"])
            for m in doc["members"]]
    our_holes = [(h["after"], h["bytes"], h["bits"]) for h in doc["holes"]]
    bad = []
    if ours != members:
        bad.append(f"members {ours} != pahole {members}")
    if our_holes != holes:
        bad.append(f"holes {our_holes} != pahole {holes}")
    if size is not None and doc["size"] != size:  # pahole gives no size for unions
        bad.append(f"size {doc['size']} != pahole {size}")
    if doc["padding"] != padding:
        bad.append(f"padding {doc['padding']} != pahole {padding}")
    print(f"PAHOLE {doc['type']}: {len(members)} members, {len(holes)} holes, size {size}, "
          f"padding {padding}: " + ("; ".join(bad) if bad else "ok"))
    sys.exit(1 if bad else 0)
