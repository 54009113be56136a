#include "heap_codec.h"

#include <string.h>

#include "dataprof/format.h"

/* Each record starts with a tag byte: its form in bits 0-1, TAG_THREAD when
 * its pid and tid follow (else they are the record before's), and for an
 * ALLOC its number of frames in bits 3-6 and TAG_CHAIN when its frames
 * after the first are those of the last chain that began with the same
 * first frame (a call site's callers rarely change). A record the compact
 * forms cannot say exactly (other types, flags in misc, more frames)
 * follows its tag as it is.
 *
 * Codec 2 adds the form TAG_ALLOC_SEEN: an ALLOC whose whole chain is one
 * seen before in the chunk, given by its place in a table of chains by a
 * hash of the chain (SEEN entries; a later chain with the same hash takes
 * the place). A program allocates from few chains (Lua: 127 in a million
 * blocks), but they take turns behind the same first frame, which the
 * chain of codec 1 then wrote out again: 40% of its bytes on Lua; packed,
 * 5.5% of the bytes (docs/heap.md#profile-size). */
enum { TAG_RAW = 0, TAG_ALLOC = 1, TAG_FREE = 2, TAG_ALLOC_SEEN = 3 };
#define TAG_THREAD 4u
#define TAG_CHAIN  0x80u
#define MAX_FRAMES 15u
#define LOW48	   0xffffffffffffull
#define CHAINS	   256 /* chains remembered, by their first frame */

typedef struct chain {
	uint64_t frames[MAX_FRAMES];
} chain;

typedef struct state {
	uint64_t time, addr, first;
	uint32_t pid, tid;
	unsigned codec;
	chain chains[CHAINS];
} state;

/* Codec 2's chains seen, valid in the chunk whose number they carry (no
 * clearing of 128 KiB per chunk); one table per thread, each call to the
 * encoder or the decoder a chunk of its own. */
#define SEEN 1024
typedef struct seen_chain {
	uint32_t chunk, n;
	uint64_t frames[MAX_FRAMES];
} seen_chain;
static __thread seen_chain seen[SEEN];
static __thread uint32_t seen_chunk;

static void start_chunk(void)
{
	if (++seen_chunk == 0) { /* wrapped: old entries could pass for new */
		memset(seen, 0, sizeof(seen));
		seen_chunk = 1;
	}
}

static seen_chain *seen_of(const uint8_t *fp, uint32_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t f;

		memcpy(&f, fp + i * 8, 8);
		h = (h ^ f) * 0x9e3779b97f4a7c15ull;
	}
	return &seen[h >> 54];
}

static void remember(seen_chain *e, const uint8_t *fp, uint32_t n)
{
	e->chunk = seen_chunk;
	e->n = n;
	memcpy(e->frames, fp, n * 8ull);
}

static chain *chain_of(state *s, uint64_t first)
{
	return &s->chains[(first * 0x9e3779b97f4a7c15ull) >> 56];
}

/* What every ALLOC with frames leaves, whatever its form: the first frame,
 * and the rest as the chain behind it. */
static void note_chain(state *s, const uint8_t *fp, uint32_t n)
{
	memcpy(&s->first, fp, 8);
	memcpy(chain_of(s, s->first)->frames, fp + 8, (n - 1) * 8ull);
}

size_t dp_heap_encode_bound(size_t len)
{
	/* the most a record can grow: an ALLOC of 15 frames, none like the
	 * chain before, every varint at its longest (46 + 10 bytes a frame
	 * against 48 + 8), a sixth; a verbatim one gains its tag, an eighth */
	return len + len / 4 + 16;
}

static uint8_t *put(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Frames carry a stack distance in their top 16 bits (heap.c): the low 48
 * bits go as a difference, wrapped to 48 bits, the top as they are. */
static int64_t diff48(uint64_t a, uint64_t b)
{
	return (int64_t)(((a - b) & LOW48) << 16) >> 16;
}

static uint8_t *put_common(uint8_t *o, state *s, unsigned tag, uint64_t time, uint32_t pid,
			   uint32_t tid, uint64_t addr)
{
	int thread = pid != s->pid || tid != s->tid;

	*o++ = (uint8_t)(tag | (thread ? TAG_THREAD : 0));
	if (thread) {
		o = put(o, pid);
		o = put(o, tid);
		s->pid = pid;
		s->tid = tid;
	}
	o = put(o, zz((int64_t)(time - s->time)));
	o = put(o, zz((int64_t)(addr - s->addr)));
	s->time = time;
	s->addr = addr;
	return o;
}

/* A loop, not memcmp: a few words, where a call costs more than them. */
static int same_frames(const uint64_t *w, const uint8_t *fp, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t f;

		memcpy(&f, fp + i * 8, 8);
		if (f != w[i])
			return 0;
	}
	return 1;
}

static uint8_t *put_alloc(uint8_t *o, state *s, const struct dp_rec_alloc *a)
{
	const uint8_t *fp = (const uint8_t *)a + sizeof(*a);
	uint32_t n = a->nframes;
	uint64_t first = 0;
	seen_chain *e = n ? seen_of(fp, n) : NULL;
	int was_seen = e && e->chunk == seen_chunk && e->n == n && same_frames(e->frames, fp, n);
	chain *ch = NULL;
	uint8_t *tag = o;

	o = put_common(o, s, (was_seen ? TAG_ALLOC_SEEN : TAG_ALLOC) | n << 3, a->time, a->pid,
		       a->tid, a->addr);
	o = put(o, a->size);
	o = put(o, a->kind);
	if (was_seen) {
		o = put(o, (uint64_t)(e - seen));
		note_chain(s, fp, n);
		return o;
	}
	if (!n)
		return o;
	remember(e, fp, n);
	memcpy(&first, fp, 8);
	o = put(o, zz(diff48(first, s->first)));
	o = put(o, first >> 48);
	s->first = first;
	ch = chain_of(s, first);
	if (same_frames(ch->frames, fp + 8, n - 1)) {
		*tag |= TAG_CHAIN;
		return o;
	}
	/* the rest as differences from the remembered chain: often a caller
	 * or two away from it */
	for (uint32_t i = 1; i < n; i++) {
		uint64_t f;

		memcpy(&f, fp + i * 8, 8);
		o = put(o, zz(diff48(f, ch->frames[i - 1])));
		o = put(o, f >> 48);
		ch->frames[i - 1] = f;
	}
	return o;
}

static uint8_t *put_free(uint8_t *o, state *s, const struct dp_rec_free *f)
{
	o = put_common(o, s, TAG_FREE, f->time, f->pid, f->tid, f->addr);
	o = put(o, f->kind);
	return put(o, f->size);
}

size_t dp_heap_encode(const uint8_t *recs, size_t len, uint8_t *out)
{
	static __thread state s; /* 120 KiB: not on the stack */
	uint8_t *o = out;

	memset(&s, 0, sizeof(s));
	start_chunk();
	for (size_t off = 0; off + sizeof(struct dp_rec_header) <= len;) {
		const struct dp_rec_header *h = (const void *)(recs + off);
		const struct dp_rec_alloc *a = (const void *)h;
		const struct dp_rec_free *f = (const void *)h;
		size_t size = h->size;

		if (size < sizeof(*h) || size > len - off)
			break; /* not a record: the caller gives complete ones */
		if (h->type == DP_REC_ALLOC && !h->misc && size >= sizeof(*a) &&
		    a->nframes <= MAX_FRAMES && size == sizeof(*a) + a->nframes * 8ull)
			o = put_alloc(o, &s, a);
		else if (h->type == DP_REC_FREE && !h->misc && size == sizeof(*f) && !f->reserved)
			o = put_free(o, &s, f);
		else {
			*o++ = TAG_RAW;
			memcpy(o, h, size);
			o += size;
		}
		off += size;
	}
	return (size_t)(o - out);
}

/* The reading side: every read is checked against the input's end. */
typedef struct cursor {
	const uint8_t *p, *end;
	int bad;
} cursor;

static uint64_t get(cursor *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (c->p >= c->end)
			break;
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static uint32_t get32(cursor *c)
{
	uint64_t v = get(c);

	if (v > UINT32_MAX)
		c->bad = 1;
	return (uint32_t)v;
}

/* A frame given as its difference from was (diff48 above). */
static uint64_t get_frame(cursor *c, uint64_t was)
{
	uint64_t lo = (was + (uint64_t)unzz(get(c))) & LOW48, hi = get(c);

	if (hi > 0xffff)
		c->bad = 1;
	return lo | hi << 48;
}

static void get_common(cursor *c, state *s, unsigned tag, uint64_t *time, uint32_t *pid,
		       uint32_t *tid, uint64_t *addr)
{
	if (tag & TAG_THREAD) {
		s->pid = get32(c);
		s->tid = get32(c);
	}
	s->time += (uint64_t)unzz(get(c));
	s->addr += (uint64_t)unzz(get(c));
	*time = s->time;
	*pid = s->pid;
	*tid = s->tid;
	*addr = s->addr;
}

/* One ALLOC into out, room bytes long; its size, or 0. */
static size_t get_alloc(cursor *c, state *s, unsigned tag, uint8_t *out, size_t room)
{
	int seen_form = (tag & 3) == TAG_ALLOC_SEEN;
	struct dp_rec_alloc a;
	uint32_t n = (tag >> 3) & 15;
	uint8_t *fp = out + sizeof(a);

	if (room < sizeof(a) + n * 8) {
		c->bad = 1;
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.h.type = DP_REC_ALLOC;
	a.h.size = (uint16_t)(sizeof(a) + n * 8);
	get_common(c, s, tag, &a.time, &a.pid, &a.tid, &a.addr);
	a.size = get(c);
	a.kind = get32(c);
	a.nframes = n;
	memcpy(out, &a, sizeof(a));
	if (!n)
		return (tag & TAG_CHAIN) || seen_form || c->bad ? 0 : a.h.size;
	if (seen_form) {
		uint64_t i = get(c);
		const seen_chain *e = i < SEEN && s->codec >= 2 ? &seen[i] : NULL;

		if ((tag & TAG_CHAIN) || !e || e->chunk != seen_chunk || e->n != n || c->bad)
			return 0;
		memcpy(fp, e->frames, n * 8ull);
		note_chain(s, fp, n);
		return a.h.size;
	}
	s->first = get_frame(c, s->first);
	memcpy(fp, &s->first, 8);
	chain *ch = chain_of(s, s->first);
	for (uint32_t i = 1; i < n; i++) {
		if (!(tag & TAG_CHAIN))
			ch->frames[i - 1] = get_frame(c, ch->frames[i - 1]);
		memcpy(fp + i * 8, &ch->frames[i - 1], 8);
	}
	if (s->codec >= 2 && !c->bad)
		remember(seen_of(fp, n), fp, n);
	return c->bad ? 0 : a.h.size;
}

static size_t get_free(cursor *c, state *s, unsigned tag, uint8_t *out, size_t room)
{
	struct dp_rec_free f;

	if ((tag >> 3) || room < sizeof(f)) {
		c->bad = 1;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	f.h.type = DP_REC_FREE;
	f.h.size = sizeof(f);
	get_common(c, s, tag, &f.time, &f.pid, &f.tid, &f.addr);
	f.kind = get32(c);
	f.size = get(c);
	memcpy(out, &f, sizeof(f));
	return c->bad ? 0 : sizeof(f);
}

static size_t get_raw(cursor *c, uint8_t *out, size_t room)
{
	struct dp_rec_header h;

	if ((size_t)(c->end - c->p) < sizeof(h)) {
		c->bad = 1;
		return 0;
	}
	memcpy(&h, c->p, sizeof(h));
	if (h.size < sizeof(h) || (h.size & 7) || h.size > (size_t)(c->end - c->p) ||
	    h.size > room) {
		c->bad = 1;
		return 0;
	}
	memcpy(out, c->p, h.size);
	c->p += h.size;
	return h.size;
}

size_t dp_heap_decode(const uint8_t *in, size_t len, unsigned codec, uint8_t *out, size_t cap,
		      int *damaged)
{
	cursor c = {in, in + len, 0};
	static __thread state s;
	size_t n = 0;

	memset(&s, 0, sizeof(s));
	s.codec = codec;
	start_chunk();
	while (c.p < c.end) {
		unsigned tag = *c.p++;
		size_t got = 0;

		if (tag == TAG_RAW)
			got = get_raw(&c, out + n, cap - n);
		else if ((tag & 3) == TAG_ALLOC || (tag & 3) == TAG_ALLOC_SEEN)
			got = get_alloc(&c, &s, tag, out + n, cap - n);
		else if ((tag & 3) == TAG_FREE)
			got = get_free(&c, &s, tag, out + n, cap - n);
		if (!got) {
			*damaged = 1;
			return n;
		}
		n += got;
	}
	return n;
}
