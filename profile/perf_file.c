/* perf.data containers: the file header, its attribute and feature
 * sections, and the record stream of file and pipe mode, with the records
 * perf compresses with zstd (perf record -z). Layouts follow perf's
 * tools/perf/Documentation/perf.data-file-format.txt; docs/perf-data.md
 * says what is read and what is skipped.
 *
 * Opening reads the header, then walks the whole stream once for perf's
 * description records (attributes, IDs, names, features, build-ids), so that
 * every event is known before the first sample, and maps it for readers in
 * parallel (a large file's walk split between threads: perf_scan.h);
 * dp_perf_next walks it again.
 * Decompressed data is kept until close, so a second walk (and rewind)
 * reuses it and pointers into records stay valid. */
#include "perf_file.h"
#include "perf_record.h"
#include "perf_scan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#define PIPE_HEADER_SIZE 16
#define FILE_HEADER_V0	 72  /* perf before the feature bitmap */
#define FILE_HEADER_SIZE 104 /* magic, size, attr_size, 3 sections, 256 feature bits */
#define ATTR_SIZE_MIN	 64  /* PERF_ATTR_SIZE_VER0 */
#define NO_CHUNK	 SIZE_MAX
#define INNER		 (1ull << 63) /* key bit: a position in the decompressed stream */
/* Decompressed data may be this many times the input, plus ZSTD_SLACK: far
 * more than perf's zstd level 1 reaches on records, small enough that a
 * hostile file cannot ask for unbounded memory. */
#define ZSTD_RATIO 1000
#define ZSTD_SLACK (64u << 20)

/* One record of the stream, as the walk found it. */
typedef struct raw_rec {
	const uint8_t *rec; /* 8-byte aligned: in place or a copy */
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint64_t off; /* file offset, or offset in the decompressed stream */
	bool inner;   /* from the decompressed stream */
} raw_rec;

static uint64_t get64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/* Kernel records are read through struct casts: one that starts off an
 * 8-byte boundary (after perf's unpadded COMPRESSED or HEADER_FEATURE
 * records) is copied once and the copy kept. */
static const uint8_t *aligned(dp_profile *p, const uint8_t *rec, size_t size, uint64_t key)
{
	struct dp_perf_state *s = p->perf;
	uint64_t i;
	uint8_t *copy;

	if (!((uintptr_t)rec & 7))
		return rec;
	if (dp_hashmap_get(&s->copies, key, &i))
		return s->copy_bufs.v[i];
	copy = dp_malloc(size);
	memcpy(copy, rec, size);
	dp_hashmap_put(&s->copies, key, s->copy_bufs.n);
	dp_vec_push(&s->copy_bufs, copy);
	return copy;
}

/* ---- compressed records ---- */

static char *zerror(uint64_t file_off, const char *fmt, ...) DP_PRINTF(2, 3);
static char *zerror(uint64_t file_off, const char *fmt, ...)
{
	dp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dp_buf_printf(&b, " (in the compressed record at offset %llu)",
		      (unsigned long long)file_off);
	return b.p;
}

/* Runs the stream's decompressor over one record's payload, appending to
 * c->buf. Returns NULL or an error message. */
static char *inflate(struct dp_perf_state *s, dp_zchunk *c, const uint8_t *src, size_t n,
		     size_t cap)
{
	ZSTD_inBuffer in = {src, n, 0};
	size_t start = c->len;
	/* the budget, plus one byte to see that the output goes beyond it */
	size_t budget = start + (size_t)(s->zcap - s->zbytes) + 1;

	if (!s->zds) {
		s->zds = ZSTD_createDStream();
		if (!s->zds || ZSTD_isError(ZSTD_initDStream(s->zds)))
			return zerror(c->file_off, "cannot set up zstd");
	}
	cap = DP_MIN(cap, budget);
	c->buf = dp_realloc(c->buf, cap);
	for (;;) {
		if (c->len == cap) {
			if (cap >= budget)
				return zerror(c->file_off,
					      "decompressed data beyond %llu bytes, the most "
					      "this reader takes from a %llu-byte input",
					      (unsigned long long)s->zcap,
					      (unsigned long long)((s->zcap - ZSTD_SLACK) /
								   ZSTD_RATIO));
			cap = DP_MIN(cap * 2, budget);
			c->buf = dp_realloc(c->buf, cap);
		}
		ZSTD_outBuffer out = {c->buf + c->len, cap - c->len, 0};
		size_t before = in.pos, r = ZSTD_decompressStream(s->zds, &out, &in);

		if (ZSTD_isError(r))
			return zerror(c->file_off, "zstd: %s", ZSTD_getErrorName(r));
		c->len += out.pos;
		/* all input taken and room left over: everything is out */
		if (in.pos == in.size && c->len < cap)
			break;
		if (!out.pos && in.pos == before && c->len < cap)
			return zerror(c->file_off, "zstd made no progress");
	}
	s->zbytes += c->len - start;
	c->buf = dp_realloc(c->buf, DP_MAX(c->len, 1)); /* kept until close: no slack */
	return NULL;
}

/* Finds the complete records at the start of a chunk. */
static void find_records(dp_zchunk *c)
{
	size_t at = 0;

	while (c->len - at >= sizeof(struct perf_event_header)) {
		uint16_t size;

		memcpy(&size, c->buf + at + 6, 2);
		if (size < sizeof(struct perf_event_header)) {
			c->error = zerror(c->file_off,
					  "corrupt record (size %u) at offset %llu of the "
					  "decompressed data",
					  size, (unsigned long long)(c->zoff + at));
			break;
		}
		if (size > c->len - at)
			break; /* continues in the next compressed record */
		at += size;
	}
	c->whole = at;
}

/* Makes the chunk of the compressed record rec (at file offset off) the
 * one the walk reads next, decompressing it the first time. Like perf, the
 * part of a record the previous chunk ended with is carried over in front. */
static void enter_compressed(dp_profile *p, const uint8_t *rec, uint16_t size, uint64_t off)
{
	struct dp_perf_state *s = p->perf;
	size_t k = s->nz++;
	dp_zchunk c = {0};
	uint32_t type;
	const uint8_t *src = rec + 8;
	size_t n = size - 8u;

	s->chunk = k;
	s->cpos = 0;
	if (k < s->chunks.n)
		return;
	memcpy(&type, rec, 4);
	c.file_off = off;
	if (k) {
		const dp_zchunk *prev = &s->chunks.v[k - 1];

		c.zoff = prev->zoff + prev->whole;
		c.len = prev->len - prev->whole;
		c.buf = dp_malloc(DP_MAX(c.len, 1));
		memcpy(c.buf, prev->buf + prev->whole, c.len);
	}
	if (type == DP_PERF_COMPRESSED2) {
		/* COMPRESSED2 pads to 8 bytes and says how much is data */
		uint64_t data_size = n >= 8 ? get64(rec + 8) : UINT64_MAX;

		if (data_size > n - 8)
			c.error = zerror(off, "data size %llu does not fit in a record of %u bytes",
					 (unsigned long long)data_size, size);
		src = rec + 16;
		n = (size_t)data_size;
	}
	if (!c.error)
		c.error = inflate(s, &c, src, n, DP_MAX(c.len, (size_t)4 * n + 4096));
	if (!c.error)
		find_records(&c);
	dp_vec_push(&s->chunks, c);
}

/* ---- the record stream ---- */

/* The caller returns -1 itself: a variadic function is never inlined, so a
 * -1 returned from here would hide from the optimizer that *out of walk is
 * set whenever walk returns 1 (gcc -O3: maybe-uninitialized). */
static void corrupt(dp_profile *p, const char *fmt, ...) DP_PRINTF(2, 3);
static void corrupt(dp_profile *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->st.error, sizeof(p->st.error), fmt, ap);
	va_end(ap);
}

/* The next record of the stream, compressed records' contents included.
 * 1: a record; 0: the end (truncated_at set if the input was cut); -1:
 * corrupt, message in st.error. Errors are sticky: the position stays. */
static int walk(dp_profile *p, raw_rec *out)
{
	struct dp_perf_state *s = p->perf;
	struct perf_event_header h;

	for (;;) {
		if (s->chunk != NO_CHUNK) {
			const dp_zchunk *c = &s->chunks.v[s->chunk];

			if (s->cpos < c->whole) {
				memcpy(&h, c->buf + s->cpos, sizeof(h));
				out->off = c->zoff + s->cpos;
				out->inner = true;
				out->rec = aligned(p, c->buf + s->cpos, h.size, INNER | out->off);
				s->cpos += h.size;
				break;
			}
			if (c->error) {
				corrupt(p, "%s", c->error);
				return -1;
			}
			s->chunk = NO_CHUNK;
			continue;
		}
		size_t left = s->data_end - p->pos;

		if (left == 0) {
			const dp_zchunk *last = s->chunks.n ? &s->chunks.v[s->chunks.n - 1] : NULL;

			/* the header promised more, or a record was cut across
			 * compressed records that never came */
			if (s->declared_end > s->data_end || (last && last->len > last->whole))
				p->st.truncated_at = p->pos;
			return 0;
		}
		if (left < sizeof(h)) {
			p->st.truncated_at = p->pos;
			return 0;
		}
		dp_win_need(&p->win, p->pos, sizeof(h));
		memcpy(&h, p->data + p->pos, sizeof(h));
		/* a page ahead: the records' headers are a cache miss each,
		 * which the hardware's prefetch does not see past a page */
		__builtin_prefetch(p->data + p->pos + 4096);
		if (h.size < sizeof(h)) {
			corrupt(p,
				"bad record size %u (type %u) at offset %zu: the file is corrupt "
				"from there on",
				h.size, h.type, p->pos);
			return -1;
		}
		if (h.size > left) {
			p->st.truncated_at = p->pos;
			return 0;
		}
		/* data that follows the record, outside its size */
		uint64_t extra = 0;
		if (h.type == DP_PERF_HEADER_TRACING_DATA && h.size >= 12) {
			uint32_t n;

			memcpy(&n, p->data + p->pos + 8, 4);
			extra = n;
		} else if (h.type == DP_PERF_AUXTRACE && h.size >= 16) {
			extra = get64(p->data + p->pos + 8);
		}
		if (extra > left - h.size) {
			p->st.truncated_at = p->pos;
			return 0;
		}
		out->off = p->pos;
		out->inner = false;
		dp_win_need(&p->win, p->pos, h.size);
		out->rec = aligned(p, p->data + p->pos, h.size, p->pos);
		if (h.type == DP_PERF_COMPRESSED || h.type == DP_PERF_COMPRESSED2)
			enter_compressed(p, out->rec, h.size, p->pos);
		p->pos += h.size + (size_t)extra;
		break;
	}
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	return 1;
}

static void walk_reset(dp_profile *p)
{
	struct dp_perf_state *s = p->perf;

	p->pos = p->first;
	s->chunk = NO_CHUNK;
	s->cpos = 0;
	s->nz = 0;
	s->nattr = 0;
}

/* The description records, on the first walk. ID_INDEX is not one: its
 * "idx" is the ring buffer an ID was read from, not the event; perf too
 * finds an ID's event by the IDs its attributes list. */
static void describe(dp_profile *p, const raw_rec *w)
{
	struct dp_perf_state *s = p->perf;

	switch (w->type) {
	case DP_PERF_HEADER_ATTR:
		dp_perf_attr_record(p, w->rec, w->size, s->header_attrs + s->nattr++);
		break;
	case DP_PERF_HEADER_EVENT_TYPE:
		dp_perf_event_type(p, w->rec, w->size);
		break;
	case DP_PERF_HEADER_BUILD_ID:
		dp_perf_build_id_record(p, w->rec, w->size);
		break;
	case DP_PERF_EVENT_UPDATE:
		dp_perf_event_update(p, w->rec, w->size);
		break;
	case DP_PERF_HEADER_FEATURE:
		if (w->size >= 16)
			dp_perf_feature(p, get64(w->rec + 8), w->rec + 16, w->size - 16u);
		break;
	}
}

/* ---- the file header ---- */

typedef struct fsection {
	uint64_t off, size;
} fsection;

static bool in_file(const dp_profile *p, fsection sec)
{
	return sec.off <= p->size && sec.size <= p->size - sec.off;
}

/* The attribute section: per event, its attr (attr.size bytes, older perf
 * wrote fewer) and a section of its IDs; entries are attr_size apart. */
static int read_attrs(dp_profile *p, fsection sec, uint64_t attr_size, dp_error *err)
{
	uint64_t nr;

	if (!sec.size)
		return 0;
	if (attr_size < ATTR_SIZE_MIN + 16 || !in_file(p, sec)) {
		dp_error_set(err,
			     "'%s': corrupt perf.data header: attribute section at offset %llu "
			     "(%llu bytes, %llu per attribute) does not fit in the file",
			     p->path, (unsigned long long)sec.off, (unsigned long long)sec.size,
			     (unsigned long long)attr_size);
		return -1;
	}
	nr = sec.size / attr_size;
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *e = p->data + sec.off + i * attr_size;
		uint32_t asz;
		fsection ids;

		memcpy(&asz, e + 4, 4);
		if (!asz)
			asz = ATTR_SIZE_MIN;
		ids.off = get64(e + attr_size - 16);
		ids.size = get64(e + attr_size - 8);
		if (asz < ATTR_SIZE_MIN || !in_file(p, ids) ||
		    !dp_profile_add_event(p, (uint32_t)i, NULL, e, DP_MIN(asz, attr_size - 16))) {
			dp_error_set(
			    err,
			    "'%s': corrupt perf.data header: attribute %llu at offset %llu "
			    "(size %u, IDs at offset %llu)",
			    p->path, (unsigned long long)i,
			    (unsigned long long)(sec.off + i * attr_size), asz,
			    (unsigned long long)ids.off);
			return -1;
		}
		for (uint64_t k = 0; k < ids.size / 8; k++)
			dp_profile_add_id(p, get64(p->data + ids.off + 8 * k), (uint32_t)i);
	}
	p->perf->header_attrs = (uint32_t)nr;
	return 0;
}

/* Feature sections: a table of sections after the data, one per bit set. */
static void read_features(dp_profile *p, const uint64_t bits[4], uint64_t table)
{
	for (unsigned feat = 0; feat < 256; feat++) {
		fsection sec;

		if (!(bits[feat / 64] & (1ull << (feat % 64))))
			continue;
		if (table > p->size || p->size - table < 16)
			return; /* the table was not written (perf killed): no features */
		sec.off = get64(p->data + table);
		sec.size = get64(p->data + table + 8);
		table += 16;
		if (!in_file(p, sec))
			continue;
		if (dp_perf_feature(p, feat, p->data + sec.off, (size_t)sec.size) > 0)
			p->perf->unknown_feat++;
	}
}

static int open_file_mode(dp_profile *p, dp_error *err)
{
	struct dp_perf_state *s = p->perf;
	uint64_t hsize = get64(p->data + 8), attr_size, bits[4] = {0};
	fsection attrs, data;

	if (hsize < FILE_HEADER_V0 || hsize > p->size) {
		dp_error_set(err, "'%s': corrupt perf.data header (size %llu, file %zu bytes)",
			     p->path, (unsigned long long)hsize, p->size);
		return -1;
	}
	attr_size = get64(p->data + 16);
	attrs = (fsection){get64(p->data + 24), get64(p->data + 32)};
	data = (fsection){get64(p->data + 40), get64(p->data + 48)};
	if (hsize >= FILE_HEADER_SIZE)
		memcpy(bits, p->data + 72, sizeof(bits));
	if (read_attrs(p, attrs, attr_size, err) < 0)
		return -1;
	if (data.off < hsize || data.off > p->size) {
		dp_error_set(err,
			     "'%s': corrupt perf.data header: data at offset %llu, file of %zu "
			     "bytes",
			     p->path, (unsigned long long)data.off, p->size);
		return -1;
	}
	p->first = (size_t)data.off;
	if (!data.size) {
		/* perf was killed before it rewrote the header: the records run to
		 * the end of the file, and there are no features */
		s->data_end = s->declared_end = p->size;
		return 0;
	}
	s->complete = true;
	s->declared_end = data.size > UINT64_MAX - data.off ? UINT64_MAX : data.off + data.size;
	s->data_end = in_file(p, data) ? (size_t)(data.off + data.size) : p->size;
	read_features(p, bits, s->declared_end);
	return 0;
}

static const dp_format_ops perf_ops;

/* The opening walk maps the file for readers in parallel (index.c,
 * dp_profile_own_map), as a side-band pass with dp_profile_index(p,
 * DP_INDEX_CHUNK) would: every record such a pass returns (a malformed
 * kernel record is skipped there, and must not be sought to: the reader
 * would go on to the next), and where chunks of DP_INDEX_CHUNK samples
 * start, with their first sample's number (a chunk after a share another
 * thread read starts at its first sample: perf_scan.h). The report's pass
 * over the side band then seeks to those instead of walking the file
 * again, and its parts in parallel start at once (report/report.c). */
static void map_record(dp_profile *p, const raw_rec *w)
{
	struct dp_perf_state *s = p->perf;
	dp_record r;

	if (w->type == PERF_RECORD_SAMPLE) {
		if (p->stored_samples == s->chunk_at) {
			dp_vec_push(&p->stored_chunks, w->off);
			dp_vec_push(&p->stored_seq, p->stored_samples);
			s->chunk_at += DP_INDEX_CHUNK;
		}
		p->stored_samples++;
	} else if (w->type >= DP_PERF_HEADER_ATTR ||
		   dp_perf_decode_side_record(w->rec, w->size, &r) == 0) {
		dp_vec_push(&p->stored_side, w->off);
	}
}

static void append(dp_u64_vec *to, const uint64_t *v, size_t n, uint64_t plus)
{
	dp_vec_grow(to, to->n + n);
	for (size_t i = 0; i < n; i++)
		to->v[to->n++] = v[i] + plus;
}

/* The first walk, beside another reader's whose map is m: the description
 * records are side band, so only those are read; the map is m's. Not for
 * the pipe format, whose events come in records the whole walk reads (read
 * this way, none was found). */
static void walk_beside(dp_profile *p, const dp_profile_map *m)
{
	raw_rec w;

	for (size_t i = 0; i < m->nside; i++) {
		p->pos = (size_t)m->side[i];
		if (walk(p, &w) <= 0)
			break;
		describe(p, &w);
	}
	append(&p->stored_side, m->side, m->nside, 0);
	append(&p->stored_chunks, m->chunks, m->nchunks, 0);
	for (size_t c = 0; c < m->nchunks; c++)
		dp_vec_push(&p->stored_seq, m->seq ? m->seq[c] : c * DP_INDEX_CHUNK);
	p->stored_samples = m->samples;
	dp_profile_walked_index(p, true);
	dp_perf_finish_events(p);
	dp_profile_rewind(p);
}

/* ---- the opening walk, split between threads ---- */

/* A share another thread reads is at least this big: below, the walk
 * takes a few milliseconds, less than starting threads is worth.
 * DATAPROF_WALK_SHARE (bytes) sets another: to test the split on small
 * files. */
#define SHARE_MIN ((size_t)32 << 20)

static size_t share_min(void)
{
	const char *e = getenv("DATAPROF_WALK_SHARE");
	unsigned long long v = e && *e ? strtoull(e, NULL, 10) : 0;

	return v ? (size_t)DP_MAX(v, 4096) : SHARE_MIN;
}

/* The shares of up to threads - 1 other threads (the caller walks the
 * first): n of them in *out. None for the pipe format (description records
 * anywhere), a mapping read through copied windows (a thread's pages
 * given back would empty them) or a record stream off an 8-byte boundary. */
static dp_perf_scan *plan_scans(dp_profile *p, unsigned threads, size_t *out)
{
	struct dp_perf_state *s = p->perf;
	size_t len = s->data_end - p->first, n = threads ? threads - 1 : 0, most;
	dp_perf_scan *sc;

	*out = 0;
	if (s->pipe || p->win.fd >= 0 || (p->first & 7))
		return NULL;
	most = len / share_min();
	n = most > 1 ? DP_MIN(n, most - 1) : 0;
	if (!n)
		return NULL;
	sc = dp_calloc(n, sizeof(*sc));
	for (size_t k = 0; k < n; k++) {
		sc[k].data = p->data;
		sc[k].data_end = s->data_end;
		sc[k].align_to = p->first;
		sc[k].give_back = p->map != NULL;
		/* (pages: the scan gives them back) */
		sc[k].from = (p->first + (k + 1) * (len / (n + 1))) & ~(size_t)4095;
		sc[k].to = k + 1 < n ? (p->first + (k + 2) * (len / (n + 1))) & ~(size_t)4095
				     : s->data_end;
		dp_perf_scan_start(&sc[k]);
	}
	*out = n;
	return sc;
}

/* The walk reached the start of a share another thread read: its map is
 * the file's from there, and the walk goes on from where it ended. The
 * description records in it are read here, in the file's order. */
static void take_scan(dp_profile *p, const dp_perf_scan *sc)
{
	struct dp_perf_state *s = p->perf;
	raw_rec w;

	for (size_t i = 0; i < sc->desc.n; i++) {
		p->pos = (size_t)sc->desc.v[i];
		if (walk(p, &w) > 0)
			describe(p, &w);
	}
	append(&p->stored_side, sc->side.v, sc->side.n, 0);
	append(&p->stored_chunks, sc->chunks.v, sc->chunks.n, 0);
	append(&p->stored_seq, sc->seq.v, sc->seq.n, p->stored_samples);
	p->stored_samples += sc->samples;
	if (sc->samples)
		s->chunk_at = p->stored_samples;
	p->pos = sc->end;
}

/* The first walk: description records, wherever they are, and the file's
 * map, with up to threads threads. false when the map cannot be had (a
 * compressed stream). */
static bool walk_first(dp_profile *p, unsigned threads)
{
	struct dp_perf_state *s = p->perf;
	size_t n, k = 0;
	dp_perf_scan *sc = plan_scans(p, threads, &n);
	bool seekable = true;
	raw_rec w;

	while (walk(p, &w) > 0) {
		describe(p, &w);
		seekable = seekable && !w.inner;
		if (seekable)
			map_record(p, &w);
		/* as the later walks do: memory does not grow with the file */
		if (!w.inner)
			dp_profile_release_consumed(p, w.off);
		while (k < n && s->chunk == NO_CHUNK && p->pos >= sc[k].from) {
			dp_perf_scan_join(&sc[k]);
			if (sc[k].ok && p->pos < sc[k].start)
				break; /* not there yet */
			if (seekable && sc[k].ok && p->pos == sc[k].start)
				take_scan(p, &sc[k]);
			k++;
		}
	}
	for (size_t i = 0; i < n; i++)
		dp_perf_scan_free(&sc[i]);
	free(sc);
	return seekable;
}

int dp_perf_open(dp_profile *p, dp_error *err)
{
	/* the magics of the perf.data files dataprof does not read */
	static const struct {
		const char *magic;
		const char *what;
	} refused[] = {
	    {"2ELIFREP", "is a big-endian perf.data file (recorded on a big-endian "
			 "machine): dataprof reads little-endian perf.data only"},
	    {"PERFFILE", "is a perf.data file of perf's first format (before Linux "
			 "2.6.35), which dataprof does not read"},
	};
	struct dp_perf_state *s;

	for (size_t i = 0; i < DP_ARRAY_LEN(refused); i++) {
		if (!memcmp(p->data, refused[i].magic, 8)) {
			dp_error_set(err, "'%s' %s", p->path, refused[i].what);
			return -1;
		}
	}
	if (p->size < PIPE_HEADER_SIZE) {
		dp_error_set(err, "'%s': perf.data file too short (%zu bytes)", p->path, p->size);
		return -1;
	}
	s = p->perf = dp_calloc(1, sizeof(*s));
	p->ops = &perf_ops;
	dp_hashmap_init(&s->copies, 16);
	s->zcap = (uint64_t)p->size * ZSTD_RATIO + ZSTD_SLACK;
	if (get64(p->data + 8) == PIPE_HEADER_SIZE) {
		s->pipe = true;
		p->fmt = DP_FMT_PERF_PIPE;
		p->first = PIPE_HEADER_SIZE;
		s->data_end = s->declared_end = p->size;
	} else {
		p->fmt = DP_FMT_PERF_FILE;
		if (open_file_mode(p, err) < 0)
			return -1;
	}
	/* the first walk: description records, wherever they are, and the
	 * file's map */
	walk_reset(p);
	if (p->beside && !p->beside->stored && !s->pipe) {
		walk_beside(p, p->beside);
		return 0;
	}
	dp_profile_walked_index(p, walk_first(p, p->walkers));
	dp_perf_finish_events(p);
	dp_profile_rewind(p);
	return 0;
}

/* perf's own records (types from 64): what the walk returns for them. */
static void user_record(dp_profile *p, const raw_rec *w, dp_record *r)
{
	struct dp_perf_state *s = p->perf;

	r->kind = DP_R_OTHER;
	r->other = w->rec;
	switch (w->type) {
	case DP_PERF_HEADER_ATTR: {
		uint32_t index = s->header_attrs + s->nattr++;

		if (index < p->events.n) {
			r->kind = DP_R_EVENT;
			r->event = index;
		}
		break;
	}
	case DP_PERF_HEADER_FEATURE:
		/* an empty one is perf's end-of-features mark (HEADER_LAST_FEATURE) */
		if (w->size < 16 || (w->size > 16 && get64(w->rec + 8) > DP_FEAT_LAST_KNOWN))
			p->st.unknown_records++;
		break;
	default:
		if (!dp_perf_record_type_name(w->type))
			p->st.unknown_records++;
		break;
	}
}

static int perf_next(dp_profile *p, dp_record *r)
{
	raw_rec w;
	int rc;

	while ((rc = walk(p, &w)) > 0) {
		memset(r, 0, sizeof(*r));
		r->type = w.type;
		r->misc = w.misc;
		r->size = w.size;
		r->offset = w.off;
		r->decompressed = w.inner;
		p->st.records++;
		if (!w.inner)
			dp_profile_release_consumed(p, w.off);
		if (w.type == PERF_RECORD_SAMPLE && dp_profile_skips_sample(p, w.off, w.inner))
			continue;
		if (w.type >= DP_PERF_HEADER_ATTR) {
			user_record(p, &w, r);
			return 1;
		}
		if (dp_profile_decode_kernel(p, w.rec, w.size, r) == 0)
			return 1;
		/* a malformed record: skipped and counted, like the raw profile's */
		if (w.type != PERF_RECORD_SAMPLE)
			p->st.unknown_records++;
	}
	return rc;
}

static void perf_rewind(dp_profile *p)
{
	walk_reset(p);
	p->st.unknown_records = p->perf->unknown_feat;
	p->st.finished = p->perf->complete;
}

static uint64_t perf_tell(const dp_profile *p)
{
	/* (a compressed stream cannot be entered in the middle: never sought) */
	return p->perf->chunk != NO_CHUNK ? UINT64_MAX : p->pos;
}

static void perf_seek(dp_profile *p, uint64_t pos)
{
	struct dp_perf_state *s = p->perf;

	p->pos = pos < p->first ? p->first : pos > s->data_end ? s->data_end : pos;
	s->chunk = NO_CHUNK;
	s->cpos = 0;
}

static void perf_close(dp_profile *p)
{
	struct dp_perf_state *s = p->perf;

	for (size_t i = 0; i < s->chunks.n; i++) {
		free(s->chunks.v[i].buf);
		free(s->chunks.v[i].error);
	}
	dp_vec_free(&s->chunks);
	dp_vec_free_each(&s->copy_bufs, free);
	dp_hashmap_free(&s->copies);
	for (size_t i = 0; i < s->build_ids.n; i++)
		free((char *)s->build_ids.v[i].filename);
	dp_vec_free(&s->build_ids);
	ZSTD_freeDStream(s->zds);
	free(s);
	p->perf = NULL;
}

static const dp_format_ops perf_ops = {perf_next, perf_rewind, perf_tell, perf_seek, perf_close};
