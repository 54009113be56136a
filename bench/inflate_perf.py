#!/usr/bin/env python3
"""Writes a copy of a perf.data file (file mode, not compressed) whose
samples are repeated until there are at least MIN of them: a larger profile
with the same distinct instructions, for perf report and dataprof report -i
to read the same file (bench/report_jobs.sh). inflate.c does the same for
raw profiles.

    inflate_perf.py IN OUT MIN_SAMPLES

The copies go after the original records, before the feature sections,
whose offsets move by what was added (docs/perf-data.md: the file layout).
"""
import struct
import sys

PERF_RECORD_SAMPLE = 9
HEADER = struct.Struct("<8sQQ" + "QQ" * 3 + "4Q")  # magic, size, attr_size, 3 sections, features
SECTION = struct.Struct("<QQ")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: inflate_perf.py IN OUT MIN_SAMPLES")
    src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, "rb").read()
    h = list(HEADER.unpack_from(data, 0))
    if h[0] != b"PERFILE2":
        sys.exit(f"{src}: not a perf.data file in file mode")
    doff, dsize = h[5], h[6]
    samples = []
    pos, end = doff, doff + dsize
    while pos + 8 <= end:
        typ, _misc, size = struct.unpack_from("<IHH", data, pos)
        if size < 8:
            sys.exit(f"{src}: bad record at {pos}")
        if typ in (81, 83):  # PERF_RECORD_COMPRESSED, COMPRESSED2
            sys.exit(f"{src}: compressed (perf record -z): record without -z")
        if typ == PERF_RECORD_SAMPLE:
            samples.append(data[pos:pos + size])
        pos += size
    if not samples:
        sys.exit(f"{src}: no samples")
    block = b"".join(samples)
    copies = max(0, -(-(want - len(samples)) // len(samples)))
    delta = len(block) * copies
    # the feature sections' table follows the data; each entry points past it
    nfeat = sum(bin(w).count("1") for w in h[9:13])
    feats = bytearray(data[end:end + nfeat * SECTION.size])
    for i in range(nfeat):
        off, size = SECTION.unpack_from(feats, i * SECTION.size)
        SECTION.pack_into(feats, i * SECTION.size, off + delta, size)
    h[6] = dsize + delta
    with open(dst, "wb") as out:
        out.write(HEADER.pack(*h))
        out.write(data[HEADER.size:end])
        for _ in range(copies):  # streamed: 10M samples are 2 GB
            out.write(block)
        out.write(feats)
        out.write(data[end + nfeat * SECTION.size:])
    print(len(samples) * (copies + 1))


if __name__ == "__main__":
    main()
