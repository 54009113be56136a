/* The view's model made in parts (a parallel pass: each part its share of
 * the samples, in chunks) and put together. A part's combinations are keyed
 * by its own attribute keys and strings; they meet the others' by their
 * strings. Each combination and lane keeps its first sample's seq, so that
 * once merged they are put in the order one pass in file order makes, and
 * the page is the same byte for byte whatever the number of parts. */
#include "model_int.h"

#include <stdlib.h>
#include <string.h>

static uint64_t strs_hash(const uint32_t *ids)
{
	return dp_hash_bytes(ids, NATTRS * sizeof(uint32_t), 0x73747273);
}

/* The combination with these string ids in index (hash -> combination;
 * collisions probe the next hash), or UINT32_MAX. */
static uint32_t combo_by_strs(const dp_view_model *m, const dp_hashmap *index, const uint32_t *ids,
			      uint64_t *hash)
{
	uint64_t h = strs_hash(ids), v;

	for (; dp_hashmap_get(index, h, &v); h++)
		if (!memcmp(&m->combo_strs.v[v * NATTRS], ids, NATTRS * sizeof(uint32_t)))
			return (uint32_t)v;
	*hash = h;
	return UINT32_MAX;
}

static void index_by_strs(const dp_view_model *m, dp_hashmap *index)
{
	size_t n = m->combo_strs.n / NATTRS;
	uint64_t h = 0;

	dp_hashmap_init(index, n + 16);
	for (size_t c = 0; c < n; c++)
		if (combo_by_strs(m, index, &m->combo_strs.v[c * NATTRS], &h) == UINT32_MAX)
			dp_hashmap_put(index, h, c);
}

static uint64_t lane_key(const lane *l)
{
	return l->cpu ? 1ull << 63 | l->cpu_no : (uint64_t)l->pid << 32 | l->tid;
}

void dp_view_model_merge(dp_view_model *dst, dp_view_model *src)
{
	size_t nc = src->combo_strs.n / NATTRS;
	uint32_t *cmap = dp_calloc(nc + 1, sizeof(uint32_t));
	uint32_t *lmap = dp_calloc(src->lanes.n + 1, sizeof(uint32_t));
	dp_hashmap index;

	while (dst->shift < src->shift)
		dp_vm_widen(dst);
	while (src->shift < dst->shift)
		dp_vm_widen(src);
	index_by_strs(dst, &index);
	for (size_t c = 0; c < nc; c++) {
		uint32_t ids[NATTRS], v;
		uint64_t h = 0;

		for (size_t i = 0; i < NATTRS; i++)
			ids[i] = dp_strtab_from(&dst->strs, &src->strs,
						src->combo_strs.v[c * NATTRS + i]);
		v = combo_by_strs(dst, &index, ids, &h);
		if (v == UINT32_MAX) {
			/* its keys are the other part's: no row looks it up by them */
			v = (uint32_t)(dst->combo_strs.n / NATTRS);
			for (size_t i = 0; i < NATTRS; i++) {
				dp_vec_push(&dst->combo_strs, ids[i]);
				dp_vec_push(&dst->combo_keys, 0);
			}
			dp_vec_push(&dst->combo_seq, src->combo_seq.v[c]);
			dp_hashmap_put(&index, h, v);
		} else if (src->combo_seq.v[c] < dst->combo_seq.v[v]) {
			dst->combo_seq.v[v] = src->combo_seq.v[c];
		}
		cmap[c] = v;
	}
	for (size_t i = 0; i < src->lanes.n; i++) {
		const lane *l = &src->lanes.v[i];
		const char *name = dp_strtab_get(&src->strs, l->name);
		lane *d;

		lmap[i] = dp_vm_lane_of(dst, l->cpu, l->pid, l->tid, l->cpu_no, name, l->seq);
		d = &dst->lanes.v[lmap[i]];
		if (l->seq < d->seq) {
			/* a thread is named as at its first sample */
			d->seq = l->seq;
			d->name = dp_strtab_intern(&dst->strs, name);
		}
	}
	for (size_t i = 0; i < src->cells.n; i++) {
		const cell *c = &src->cells.v[i];

		dp_vm_cell_add(dst, lmap[c->lane], c->bucket, cmap[c->combo], c->count, c->period);
	}
	for (size_t i = 0; i < src->groups.n; i++) {
		const group *g = &src->groups.v[i];

		dp_vm_group_add(dst, lmap[g->lane], g->bucket, g->count, g->toff);
	}
	dst->samples += src->samples;
	dst->first = DP_MIN(dst->first, src->first);
	dst->last = DP_MAX(dst->last, src->last);
	dp_hashmap_free(&index);
	free(cmap);
	free(lmap);
}

/* What needed a string first: a combination (its NATTRS strings), then a
 * thread's lane, then a CPU's, as a row makes them. */
typedef struct first_use {
	uint64_t seq;
	uint32_t rank, index;
} first_use;

/* by first sample, then as a row makes them */
static int by_use(const void *pa, const void *pb)
{
	const first_use *a = pa, *b = pb;
	uint64_t ka = (uint64_t)a->rank << 32 | a->index, kb = (uint64_t)b->rank << 32 | b->index;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return ka < kb ? -1 : ka > kb;
}

typedef DP_VEC(first_use) use_vec;

/* Combinations with the same strings as one (the first met), then each
 * kept one's first use: cmap, index -> the one kept. */
static void fold_combos(dp_view_model *m, uint32_t *cmap, use_vec *uses)
{
	size_t nc = m->combo_strs.n / NATTRS;
	dp_hashmap index;
	uint64_t h = 0;

	dp_hashmap_init(&index, nc + 16);
	for (size_t c = 0; c < nc; c++) {
		uint32_t v = combo_by_strs(m, &index, &m->combo_strs.v[c * NATTRS], &h);

		if (v == UINT32_MAX) {
			dp_hashmap_put(&index, h, c);
			v = (uint32_t)c;
		}
		cmap[c] = v;
		m->combo_seq.v[v] = DP_MIN(m->combo_seq.v[v], m->combo_seq.v[c]);
	}
	for (size_t c = 0; c < nc; c++)
		if (cmap[c] == c)
			dp_vec_push(uses, ((first_use){m->combo_seq.v[c], 0, (uint32_t)c}));
	dp_hashmap_free(&index);
}

void dp_view_model_order(dp_view_model *m)
{
	size_t nc = m->combo_strs.n / NATTRS;
	uint32_t *cmap = dp_calloc(nc + 1, sizeof(uint32_t));
	uint32_t *cnew = dp_calloc(nc + 1, sizeof(uint32_t));
	uint32_t *lnew = dp_calloc(m->lanes.n + 1, sizeof(uint32_t));
	use_vec uses = {0};
	DP_VEC(uint32_t) strs = {0};
	DP_VEC(uint64_t) seqs = {0};
	DP_VEC(lane) lanes = {0};
	dp_strtab old = m->strs;
	size_t n = 0;

	fold_combos(m, cmap, &uses);
	for (size_t i = 0; i < m->lanes.n; i++)
		dp_vec_push(&uses, ((first_use){m->lanes.v[i].seq, m->lanes.v[i].cpu ? 2 : 1,
						(uint32_t)i}));
	if (uses.n > 1)
		qsort(uses.v, uses.n, sizeof(first_use), by_use);
	/* the strings anew, in the order a pass in file order interns them */
	dp_strtab_init(&m->strs);
	dp_hashmap_free(&m->lane_index);
	dp_hashmap_init(&m->lane_index, m->lanes.n + 16);
	for (size_t u = 0; u < uses.n; u++) {
		const first_use *x = &uses.v[u];

		if (x->rank == 0) {
			for (size_t i = 0; i < NATTRS; i++)
				dp_vec_push(&strs,
					    dp_strtab_intern(
						&m->strs,
						dp_strtab_get(
						    &old, m->combo_strs.v[x->index * NATTRS + i])));
			dp_vec_push(&seqs, m->combo_seq.v[x->index]);
			cnew[x->index] = (uint32_t)n++;
			continue;
		}
		lane l = m->lanes.v[x->index];

		l.name = dp_strtab_from(&m->strs, &old, l.name);
		lnew[x->index] = (uint32_t)lanes.n;
		dp_vec_push(&lanes, l);
		dp_hashmap_put(&m->lane_index, lane_key(&l), lanes.n - 1);
	}
	dp_strtab_free(&old);
	dp_vec_free(&m->combo_strs);
	dp_vec_free(&m->combo_seq);
	dp_vec_free(&m->lanes);
	m->combo_strs.v = strs.v, m->combo_strs.n = strs.n, m->combo_strs.cap = strs.cap;
	m->combo_seq.v = seqs.v, m->combo_seq.n = seqs.n, m->combo_seq.cap = seqs.cap;
	m->lanes.v = lanes.v, m->lanes.n = lanes.n, m->lanes.cap = lanes.cap;
	/* rows look combinations up no more: their keys and index are done */
	dp_vec_free(&m->combo_keys);
	dp_hashmap_free(&m->combo_index);
	dp_hashmap_init(&m->combo_index, 16);
	/* cells and groups with the new numbers; the same strings' add up */
	for (size_t c = 0; c < nc; c++)
		cmap[c] = cnew[cmap[c]];
	dp_vm_rebuild(m, lnew, cmap, 0);
	dp_vec_free(&uses);
	free(cmap);
	free(cnew);
	free(lnew);
}
