#!/usr/bin/env python3
"""Crafted profiles that claim more than they hold: huge counts, ids and
sizes in headers and records. Each must be read (or refused) with memory in
proportion to its size; fuzz_report checks that bound. Written to DIR:
    hostile.py DIR"""
import os
import struct
import sys

HDR = b"DPROF\r\n\x1a" + struct.pack("<IIQQII", 1, 64, 1000, 0, 1, 0) + bytes(24)


def rec(typ, payload):
    payload += bytes(-(8 + len(payload)) % 8)
    return struct.pack("<IHH", typ, 0, 8 + len(payload)) + payload


def event(index, name=b"page-faults\0"):
    attr = bytearray(136)
    struct.pack_into("<IIQQQ", attr, 0, 1, 136, 2, 1, 0x10087 | 0x10000)  # sw page faults
    struct.pack_into("<Q", attr, 40, 1 << 18)  # sample_id_all
    return rec(0x44500002, struct.pack("<IHHII", index, 1, 3, 136, len(name)) + bytes(attr) + name)


def sensor(sid, name=b"proc/x/y\0"):
    return rec(0x44500008, struct.pack("<IB3x16s", sid, 1, b"events") + name)


def reading(first, n, have):
    return rec(0x44500009, struct.pack("<QIIII", 2000, 1, first, n, 0) + bytes(8 * have))


def marker(n, have):
    marks = b"".join(struct.pack("<IIQQ", 1, 0, 3000 + i, 3001 + i) for i in range(have))
    return rec(0x4450000A, struct.pack("<IIII", 1, 1, 1, n) + marks)


def alloc(addr, size, nframes, have):
    return rec(0x44500006, struct.pack("<QIIQQII", 4000, 1, 1, addr, size, 1, nframes) +
               bytes(8 * have))


def mmap2(start, length, name):
    body = struct.pack("<IIQQQIIQQII", 1, 1, start, length, 0, 0, 0, 0, 0, 5, 2) + name + b"\0"
    return rec(10, body)


# an event whose samples carry IDENTIFIER, IP, TID, TIME, ADDR, CPU, PERIOD
ST = 0x10000 | 0x1 | 0x2 | 0x4 | 0x8 | 0x80 | 0x100


def event_s():
    attr = bytearray(136)
    struct.pack_into("<IIQQQ", attr, 0, 1, 136, 2, 1, ST)
    struct.pack_into("<Q", attr, 40, 1 << 18)
    return (rec(0x44500002, struct.pack("<IHHII", 0, 1, 3, 136, 12) + bytes(attr) + b"page-faults\0") +
            rec(0x44500003, struct.pack("<IIQ", 0, 1, 7)))


def event_ids(index, *ids):
    return rec(0x44500003, struct.pack("<II", index, len(ids)) + b"".join(struct.pack("<Q", i) for i in ids))


def meta(key, value):
    return rec(0x44500001, key + b"\0" + value + b"\0")


def mmap2_s(start, length, name, sid=7):
    """An executable MMAP2 with its sample_id trailer (TID, TIME, CPU, IDENTIFIER)."""
    body = struct.pack("<IIQQQIIQQII", 1, 1, start, length, 0, 0, 0, 0, 0, 5, 2) + name + b"\0"
    body += bytes(-(8 + len(body)) % 8) + struct.pack("<IIQIIQ", 1, 1, 100, 0, 0, sid)
    return struct.pack("<IHH", 10, 2, 8 + len(body)) + body


def sample_s(ip, addr, time=200, sid=7):
    return struct.pack("<IHHQQIIQQIIQ", 9, 2, 64, sid, ip, 1, 1, time, addr, 0, 0, 1)


# cycles with a branch stack (any, user): IDENTIFIER, IP, TID, TIME, CPU,
# PERIOD, BRANCH_STACK
ST_B = 0x10000 | 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x800


def event_b():
    attr = bytearray(136)
    struct.pack_into("<IIQQQ", attr, 0, 0, 136, 0, 100000, ST_B)  # hardware cycles
    struct.pack_into("<Q", attr, 40, 1 << 18)
    struct.pack_into("<Q", attr, 72, 0x8 | 0x1)  # branch_sample_type any|u
    return (rec(0x44500002, struct.pack("<IHHII", 0, 3, 4, 136, 7) + bytes(attr) + b"cycles\0") +
            rec(0x44500003, struct.pack("<IIQ", 0, 1, 7)))


def sample_b(ip, branches, nr=None, time=200):
    """A sample with branch stack entries (from, to); nr: what it claims."""
    body = struct.pack("<QQIIQIIQQ", 7, ip, 1, 1, time, 0, 0, 1,
                       len(branches) if nr is None else nr)
    body += b"".join(struct.pack("<QQQ", f, t, 0) for f, t in branches)
    return struct.pack("<IHH", 9, 2, 8 + len(body)) + body


def zstd_raw(data):
    """A zstd frame holding data in raw (stored) blocks: valid zstd that any
    decoder reads, without a compressor here (RFC 8878: single segment,
    4-byte content size, blocks of at most 128 KiB, the last one marked)."""
    out = struct.pack("<IB", 0xFD2FB528, 0xA0) + struct.pack("<I", len(data))
    blocks = [data[i:i + 131072] for i in range(0, len(data), 131072)] or [b""]
    for k, b in enumerate(blocks):
        hdr = (len(b) << 3) | (1 if k == len(blocks) - 1 else 0)
        out += struct.pack("<I", hdr)[:3] + b
    return out


def packed(inner, raw_size=None, packed_size=None, misc=0):
    """A PACKED record of the records in inner (its raw_size and packed_size
    may lie); misc 1: inner is in the heap codec (profile/heap_codec.c)."""
    frame = zstd_raw(inner)
    r = bytearray(rec(0x4450000E, struct.pack("<II", len(inner) if raw_size is None else raw_size,
                                              len(frame) if packed_size is None else packed_size) +
                      frame))
    struct.pack_into("<H", r, 4, misc)
    return bytes(r)


def uv(v):
    """An unsigned LEB128 varint, as the heap codec writes them."""
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7F | 0x80])
        v >>= 7
    return out + bytes([v])


def coded_alloc(first, dtime, daddr, size):
    """One ALLOC of one frame (0) in the heap codec: tag (ALLOC, its chain
    as before, the thread 1/1 when first), then the differences."""
    tag = 1 | 1 << 3 | 0x80 | (4 if first else 0)
    return (bytes([tag]) + (uv(1) + uv(1) if first else b"") + uv(2 * dtime) + uv(2 * daddr) +
            uv(size) + uv(1) + uv(0) + uv(0))


def seen_slot(frames):
    """Codec 2's place for a chain: profile/heap_codec.c's seen_of."""
    k, m = 0x9E3779B97F4A7C15, (1 << 64) - 1
    h = len(frames) * k & m
    for f in frames:
        h = (h ^ f) * k & m
    return h >> 54


def coded_alloc_seen(dtime, daddr, size, slot):
    """One ALLOC of one frame in codec 2's form for a chain seen before in
    the chunk (tag form 3): the differences, then the chain's place."""
    return bytes([3 | 1 << 3]) + uv(2 * dtime) + uv(2 * daddr) + uv(size) + uv(1) + uv(slot)


def packed_case(inner, **lie):
    """A sample on a heap block whose ALLOC is packed, then a sample after the
    PACKED record: damage inside it must not cost the sample after."""
    return (HDR + event_s() + mmap2_s(0x400000, 0x1000, b"/bin/x") + packed(inner, **lie) +
            sample_s(0x400100, 0x10010, 300) + sample_s(0x400100, 0x20000, 400))


HEAP = alloc(0x10000, 64, 1, 1) + alloc(0x20000, 64, 1, 1)
# the same two blocks in the heap codec, compact and verbatim
CODED = coded_alloc(True, 4000, 0x10000, 64) + coded_alloc(False, 0, 0x10000, 64)
VERBATIM = b"\0" + alloc(0x10000, 64, 1, 1) + b"\0" + alloc(0x20000, 64, 1, 1)
# codec 2: the second block's chain (frame 0) by its place, or by a place
# nothing was put in
SEEN = coded_alloc(True, 4000, 0x10000, 64) + coded_alloc_seen(0, 0x10000, 64, seen_slot([0]))
UNSEEN = (coded_alloc(True, 4000, 0x10000, 64) +
          coded_alloc_seen(0, 0x10000, 64, (seen_slot([0]) + 1) % 1024))

FILES = {
    # heap records packed (zstd), as the recorder writes them; and damaged:
    # a size that lies, a frame cut short, a record cut inside, PACKED in
    # PACKED, a kernel record inside; each keeps the samples around it
    "packed-heap": packed_case(HEAP),
    "packed-claims-more": packed_case(HEAP, raw_size=len(HEAP) + 64),
    "packed-raw-huge": packed_case(HEAP, raw_size=0xFFFFFFFF),
    "packed-frame-past-record": packed_case(HEAP, packed_size=0x7FFFFFFF),
    "packed-record-cut": packed_case(HEAP[:len(HEAP) - 16]),
    "packed-in-packed": packed_case(packed(HEAP)),
    "packed-kernel-record": packed_case(sample_s(0x400100, 0x10020, 250) + HEAP),
    # the heap codec (misc 1), as the recorder wrote it in version 2; a
    # record cut inside; codec 2 (misc 2, version 3), which reads codec 1's
    # forms too, a chain by its place, a place never filled; a codec of
    # tomorrow (misc 3)
    "packed-codec": packed_case(CODED, raw_size=len(HEAP), misc=1),
    "packed-codec-verbatim": packed_case(VERBATIM, raw_size=len(HEAP), misc=1),
    "packed-codec-cut": packed_case(CODED[:-2], raw_size=len(HEAP), misc=1),
    "packed-codec2": packed_case(CODED, raw_size=len(HEAP), misc=2),
    "packed-codec2-seen": packed_case(SEEN, raw_size=len(HEAP), misc=2),
    "packed-codec2-unseen": packed_case(UNSEEN, raw_size=len(HEAP), misc=2),
    "packed-codec1-seen": packed_case(SEEN, raw_size=len(HEAP), misc=1),
    "packed-codec-unknown": packed_case(CODED, raw_size=len(HEAP), misc=3),

    # the vdso of another kernel: decode cannot have it (its name leaked)
    "vdso-of-another-kernel": HDR + meta(b"kernel", b"another-kernel") + event_s() +
    mmap2_s(0x7fff0000, 0x2000, b"[vdso]") + sample_s(0x7fff0100, 0x1000),
    # a sensor id near the reader's limit: one small record, a huge table
    "sensor-id-huge": HDR + event(0) + sensor(0xFFFFE),
    "sensor-ids-spread": HDR + event(0) + b"".join(sensor(0xF0000 - 4096 * i) for i in range(32)),
    # an event index at the limit, and events without names
    "event-index-huge": HDR + event(4095) + event(2000),
    # readings naming sensors that do not exist, far beyond any
    "reading-first-huge": HDR + event(0) + sensor(0) + reading(0xFFFFFFF0, 64, 64) +
    reading(0xFFFFFFFF, 1, 1) + reading(0, 0xFFFFFFFF, 4),
    # marks: a count that the record does not hold
    "marker-n-huge": HDR + event(0) + marker(0xFFFFFFFF, 1) + marker(169, 169),
    # heap blocks covering the address space, and frames that are not there
    "alloc-huge": HDR + event(0) + alloc(0, 2**64 - 1, 1, 1) + alloc(2**63, 2**63, 0, 0) +
    alloc(4096, 4096, 0xFFFFFFFF, 1) + b"".join(alloc(8192 * i, 2**40, 1, 1) for i in range(64)),
    # mappings: long names, the whole address space
    "mmap-huge": HDR + event(0) + mmap2(0, 2**64 - 1, b"/" + b"a" * 4000) +
    b"".join(mmap2(4096 * i, 2**48, b"/x%d" % i) for i in range(64)),
    # sample IDs of an event that has no description: a sample with such an
    # ID once read its attr from past the end of the event table
    "event-ids-of-no-event": HDR + event_s() + event(1) + event_ids(9, 8) +
    mmap2_s(0x400000, 0x1000, b"/bin/x") + sample_s(0x400100, 0x1000) +
    sample_s(0x400100, 0x2000, 300, sid=8) + mmap2_s(0x500000, 0x1000, b"/bin/y", sid=8),
    # branch stacks whose ranges run backwards, out of the mapping, into
    # the kernel, through address 0 and past the end of the address space,
    # and a stack that claims more entries than its record holds
    # (in a real binary: its functions' instruction tables are consulted)
    "branch-stacks-wild": HDR + event_b() + mmap2_s(0x400000, 0x10000, b"/usr/bin/true") +
    sample_b(0x402100, [(0x402180, 0x402100), (0x402200, 0x402300), (0x40fff0, 0x400000),
                        (0xffffffff81000000, 0x402010), (0x402020, 0xffffffff81000000),
                        (0, 0), (2**64 - 1, 2**64 - 8), (0x402100, 0x402100),
                        (0x403000, 0x402ff0), (0x402fff, 0x402001)]) +
    sample_b(0x402100, [(0x402180 + 7 * i, 0x402100 + 3 * i) for i in range(32)], time=300) +
    sample_b(0x402100, [(0x402180, 0x402100)] * 2, nr=2**40, time=400),
    # a perf.data header whose sections point far beyond the file
    "perf-sections-huge.data": b"PERFILE2" + struct.pack("<QQ", 104, 136) +
    struct.pack("<QQQQQQ", 104, 2**62, 2**40, 2**62, 0, 0) + bytes(32) + bytes(64),
}


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
