#!/usr/bin/env python3
"""Seeds for the record-level fuzz targets, cut from the raw profiles in
SEEDS/fuzz_profile: fuzz_perf_record gets kernel records, each behind the
41 attr bytes that lay it out (fuzz_perf_record.c); fuzz_agent gets the
records an agent sends (heap, threads, marks, warnings) as one stream
behind 4 bytes that choose the write sizes (fuzz_agent.c).
    split_records.py SEEDS"""
import glob
import os
import struct
import sys

AGENT = {0x44500005, 0x44500006, 0x44500007, 0x4450000A, 0x4450000B, 0x4450000C}


def records(data):
    pos = 64
    while pos + 8 <= len(data):
        typ, _misc, size = struct.unpack_from("<IHH", data, pos)
        if size < 8 or size % 8 or pos + size > len(data):
            return
        yield typ, data[pos:pos + size]
        pos += size


def main(seeds):
    for path in glob.glob(os.path.join(seeds, "fuzz_profile", "*.dprof")):
        data = open(path, "rb").read()
        if data[:8] != b"DPROF\r\n\x1a":
            continue
        base = os.path.basename(path)
        attr = None
        seen = {}
        stream = bytearray(struct.pack("<I", 0x9e3779b9))
        for typ, rec in records(data):
            if typ == 0x44500002 and attr is None:  # EVENT: attr after 24 bytes
                a = rec[24:]
                st, rf = struct.unpack_from("<QQ", a, 24)
                flags, = struct.unpack_from("<Q", a, 40)
                bst, ru = struct.unpack_from("<QQ", a, 72)
                ri, = struct.unpack_from("<Q", a, 96)
                attr = struct.pack("<QQQQQB", st, rf, bst, ru, ri, (flags >> 18) & 1)
            elif typ < 0x44500000 and attr is not None and seen.get(typ, 0) < 8:
                seen[typ] = seen.get(typ, 0) + 1
                out = os.path.join(seeds, "fuzz_perf_record", "%s.%d.%d" % (base, typ, seen[typ]))
                open(out, "wb").write(attr + rec)
            elif typ in AGENT and len(stream) + len(rec) <= 65536:
                stream += rec
        if len(stream) > 4:
            open(os.path.join(seeds, "fuzz_agent", base), "wb").write(stream)


if __name__ == "__main__":
    main(sys.argv[1])
