/* The index a finished raw profile ends with (format.h, DP_REC_INDEX): read
 * at open, and kept only when its check holds and every offset in it is
 * where a record of its kind can be, so that a reader can seek by it as
 * safely as it would walk. Anything else (no index, a file cut short or damaged, an
 * index of another chunk size) leaves the profile without one: it is then
 * walked, as files of earlier versions are. */
#include "reader_impl.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "dataprof/format.h"

/* The record header at off, when it lies whole before end. */
static bool header_at(const dp_profile *p, uint64_t off, uint64_t end, struct dp_rec_header *h)
{
	if (off < p->first || off > end - sizeof(*h) || (off & 7))
		return false;
	memcpy(h, p->data + off, sizeof(*h));
	return h->size >= sizeof(*h) && !(h->size & 7) && h->size <= end - off;
}

/* The pages of the mapping from lo to hi (a fault maps up to 64 KiB around
 * the page it needs), given back: they are the file's, read again when a
 * reader passes by, and a check of every offset of a 10 GB file would
 * otherwise hold a few hundred MiB until then. */
#define AROUND 0x10000u
static void release(dp_profile *p, uint64_t lo, uint64_t hi)
{
	lo &= ~(uint64_t)(AROUND - 1);
	hi = (hi | (AROUND - 1)) + 1;
	dp_profile_give_back(p, lo, hi);
}

/* Offsets strictly ascending, each at a whole record before end that is
 * not a sample. */
static bool side_agrees(dp_profile *p, const uint64_t *v, size_t n, uint64_t end)
{
	struct dp_rec_header h;
	size_t from = 0;
	bool ok = true;

	for (size_t i = 0; i < n && ok; i++) {
		ok = !(i && v[i] <= v[i - 1]) && header_at(p, v[i], end, &h) &&
		     h.type != PERF_RECORD_SAMPLE;
		if (i - from == 63 || i + 1 == n || !ok) {
			release(p, v[from] < end ? v[from] : end, v[i] < end ? v[i] : end);
			from = i + 1;
		}
	}
	return ok;
}

/* Offsets strictly ascending, 8-aligned, inside the records. Whether a
 * sample starts at each is seen when its chunk is read (report/part.c:
 * where none does, the chunk is damaged, and only it is skipped): reading
 * the header of every chunk here would fault in a page per 1024 samples. */
static bool chunks_agree(const dp_profile *p, const uint64_t *v, size_t n, uint64_t end)
{
	for (size_t i = 0; i < n; i++)
		if ((i && v[i] <= v[i - 1]) || v[i] < p->first || v[i] >= end || (v[i] & 7))
			return false;
	return true;
}

/* The INDEX records from e->index_at to the end record, into the profile's
 * vectors: false unless they hold exactly what the end record counts. */
static bool read_records(dp_profile *p, const struct dp_rec_index_end *e, uint64_t end_at)
{
	struct dp_rec_header h;
	uint32_t last = DP_INDEX_SIDE;

	for (uint64_t off = e->index_at; off < end_at; off += h.size) {
		struct dp_rec_index x;

		if (!header_at(p, off, end_at, &h) || h.type != DP_REC_INDEX || h.size < sizeof(x))
			return false;
		memcpy(&x, p->data + off, sizeof(x));
		if (h.size != sizeof(x) + (uint64_t)x.count * 8 || x.what < last ||
		    x.what > DP_INDEX_CHUNKS)
			return false;
		last = x.what;
		for (uint32_t i = 0; i < x.count; i++) {
			uint64_t v;

			memcpy(&v, p->data + off + sizeof(x) + (uint64_t)i * 8, 8);
			dp_vec_push(x.what == DP_INDEX_SIDE ? &p->stored_side : &p->stored_chunks,
				    v);
		}
	}
	return p->stored_side.n == e->nside && p->stored_chunks.n == e->nchunks;
}

void dp_profile_read_index(dp_profile *p)
{
	struct dp_rec_index_end e;
	uint64_t end_at;

	if (p->size < p->first + sizeof(e) || (p->size & 7))
		return;
	end_at = p->size - sizeof(e);
	memcpy(&e, p->data + end_at, sizeof(e));
	if (e.h.type != DP_REC_INDEX_END || e.h.size != sizeof(e) || e.magic != DP_INDEX_MAGIC ||
	    e.chunk != DP_INDEX_CHUNK || e.index_at < p->first || e.index_at > end_at ||
	    (e.index_at & 7) || e.nside > end_at / 8 || e.nchunks > end_at / 8 ||
	    e.nchunks != (e.samples + DP_INDEX_CHUNK - 1) / DP_INDEX_CHUNK)
		return;
	uint64_t check = dp_fnv1a(p->data + e.index_at, end_at - e.index_at, DP_FNV_INIT);
	if (dp_fnv1a(&e, offsetof(struct dp_rec_index_end, check), check) != e.check)
		return; /* damaged, or another file's */
	if (read_records(p, &e, end_at) &&
	    side_agrees(p, p->stored_side.v, p->stored_side.n, e.index_at) &&
	    chunks_agree(p, p->stored_chunks.v, p->stored_chunks.n, e.index_at)) {
		p->stored = true;
		p->stored_samples = e.samples;
	} else {
		p->stored_side.n = p->stored_chunks.n = 0;
	}
	release(p, e.index_at, p->size - 1); /* the index itself */
}

void dp_profile_join_index(dp_profile *p, dp_profile *const *q, size_t n)
{
	DP_VEC(uint64_t) side = {0}, chunks = {0}, seq = {0};
	uint64_t base = 0, samples = 0;
	bool all = true;

	for (size_t i = 0; i < n && all; i++) {
		all = q[i]->stored;
		for (size_t k = 0; all && k < q[i]->stored_side.n; k++)
			dp_vec_push(&side, base + q[i]->stored_side.v[k]);
		for (size_t k = 0; all && k < q[i]->stored_chunks.n; k++) {
			dp_vec_push(&chunks, base + q[i]->stored_chunks.v[k]);
			dp_vec_push(&seq, samples + (q[i]->stored_seq.n ? q[i]->stored_seq.v[k]
									: k * DP_INDEX_CHUNK));
		}
		base += q[i]->size;
		samples += q[i]->stored_samples;
	}
	dp_vec_free(&p->stored_side);
	dp_vec_free(&p->stored_chunks);
	dp_vec_free(&p->stored_seq);
	p->stored = all;
	p->stored_samples = samples;
	if (!all) {
		dp_vec_free(&side);
		dp_vec_free(&chunks);
		dp_vec_free(&seq);
		return;
	}
	memcpy(&p->stored_side, &side, sizeof(side));
	memcpy(&p->stored_chunks, &chunks, sizeof(chunks));
	memcpy(&p->stored_seq, &seq, sizeof(seq));
}

void dp_profile_walked_index(dp_profile *p, bool good)
{
	p->stored = p->walked = good;
	if (!good) {
		p->stored_side.n = p->stored_chunks.n = 0;
		p->stored_samples = 0;
	}
}

bool dp_profile_stored_index(const dp_profile *p, dp_profile_map *m)
{
	return !p->walked && dp_profile_own_map(p, m);
}

bool dp_profile_own_map(const dp_profile *p, dp_profile_map *m)
{
	if (!p->stored)
		return false;
	m->side = p->stored_side.v;
	m->nside = p->stored_side.n;
	m->chunks = p->stored_chunks.v;
	m->nchunks = p->stored_chunks.n;
	m->seq = p->stored_seq.n ? p->stored_seq.v : NULL;
	m->samples = p->stored_samples;
	m->stored = !p->walked;
	return true;
}
