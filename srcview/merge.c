/* annotate's sums made in parts and put together. A parallel pass gives
 * each part its share of the samples in chunks: the parts' instructions,
 * functions and pairs are added up by what they are (binary, address,
 * strings), then put in the order of their first samples, so that the
 * result is the one a single pass in file order gives: the same
 * instructions in the same order, each with the first pairs it met. */
#include "srcview.h"

#include <stdlib.h>
#include <string.h>

static uint64_t pair_hash(const dp_sv_pair *p)
{
	return dp_hash_bytes(p, 4 * sizeof(uint32_t), 0x70616972);
}

void dp_sv_pair_add(dp_srcview *v, uint32_t insn, uint32_t kind, uint32_t a, uint32_t b,
		    uint64_t first, uint64_t samples)
{
	dp_sv_pair p = {insn, kind, a, b, first, samples};
	uint64_t h = pair_hash(&p), i;

	/* a 64-bit hash that collides probes the next one */
	for (; dp_hashmap_get(&v->pair_of, h, &i); h++) {
		dp_sv_pair *q = &v->pairs.v[i];

		if (q->insn == insn && q->kind == kind && q->a == a && q->b == b) {
			q->samples += samples;
			if (first < q->first)
				q->first = first;
			return;
		}
	}
	dp_vec_push(&v->pairs, p);
	dp_hashmap_put(&v->pair_of, h, v->pairs.n - 1);
}

static uint32_t merge_func(dp_srcview *dst, dp_decoder *dec, dp_strtab *dst_strs,
			   const dp_sv_func *f, const dp_strtab *src_strs)
{
	dp_image *im = dp_decoder_image_like(dec, f->im);
	const dp_func_table *t = im ? dp_decoder_function_table(dec, im, f->t->start) : NULL;
	uint64_t k, i;
	dp_sv_func *g;

	if (!t)
		return UINT32_MAX;
	k = dp_sv_key(im, t->start);
	if (!dp_hashmap_get(&dst->func_of, k, &i)) {
		dp_sv_func n;

		memset(&n, 0, sizeof(n));
		n.im = im;
		n.t = t;
		n.first = f->first;
		dp_vec_push(&dst->funcs, n);
		dp_hashmap_put(&dst->func_of, k, i = dst->funcs.n - 1);
	}
	g = &dst->funcs.v[i];
	g->samples += f->samples;
	g->period += f->period;
	if (f->first < g->first)
		g->first = f->first;
	if (f->name && (!g->name || f->name_first < g->name_first)) {
		g->name = dp_strtab_from(dst_strs, src_strs, f->name);
		g->name_first = f->name_first;
	}
	return (uint32_t)i;
}

static uint32_t merge_insn(dp_srcview *dst, const dp_sv_insn *in, uint32_t fi)
{
	const dp_sv_func *f = &dst->funcs.v[fi];
	uint64_t k = dp_sv_key(f->im, in->vaddr), i;
	dp_sv_insn *x;

	if (!dp_hashmap_get(&dst->insn_of, k, &i)) {
		dp_sv_insn n;

		memset(&n, 0, sizeof(n));
		n.vaddr = in->vaddr;
		n.first = in->first;
		n.func = fi;
		dp_vec_push(&dst->insns, n);
		dp_hashmap_put(&dst->insn_of, k, i = dst->insns.n - 1);
	}
	x = &dst->insns.v[i];
	if (in->first < x->first)
		x->first = in->first;
	x->samples += in->samples;
	x->period += in->period;
	x->weight += in->weight;
	x->nweight += in->nweight;
	for (int v = 0; v < DP_V_COUNT; v++)
		x->verdicts[v] += in->verdicts[v];
	return (uint32_t)i;
}

static void merge_ranges(dp_srcview *dst, dp_decoder *dec, const dp_srcview *src)
{
	const dp_sv_branches *b = &src->br;

	dst->br.samples += b->samples;
	dst->br.entries += b->entries;
	dst->br.no_ranges += b->no_ranges;
	dst->br.unmapped += b->unmapped;
	dst->br.crossing += b->crossing;
	for (size_t i = 0; i < src->ranges.n; i++) {
		const dp_sv_range *r = &src->ranges.v[i];
		dp_image *im = dp_decoder_image_like(dec, r->im);

		if (im)
			dp_sv_range_add(dst, im, r->start, r->end, r->count);
		else
			dst->br.unmapped += r->count;
	}
}

void dp_srcview_merge(dp_srcview *dst, dp_decoder *dst_dec, dp_strtab *dst_strs,
		      const dp_srcview *src, const dp_strtab *src_strs, uint32_t **insn_map)
{
	uint32_t *fmap = dp_calloc(src->funcs.n + 1, sizeof(uint32_t));
	uint32_t *imap = dp_calloc(src->insns.n + 1, sizeof(uint32_t));

	dst->samples += src->samples;
	dst->period += src->period;
	dst->outside += src->outside;
	dst->outside_per += src->outside_per;
	for (size_t i = 0; i < src->funcs.n; i++)
		fmap[i] = merge_func(dst, dst_dec, dst_strs, &src->funcs.v[i], src_strs);
	for (size_t i = 0; i < src->insns.n; i++) {
		const dp_sv_insn *in = &src->insns.v[i];

		if (fmap[in->func] == UINT32_MAX) {
			/* a binary this part could not open: counted outside */
			dst->outside += in->samples;
			dst->outside_per += in->period;
			imap[i] = UINT32_MAX;
			continue;
		}
		imap[i] = merge_insn(dst, in, fmap[in->func]);
	}
	for (size_t i = 0; i < src->pairs.n; i++) {
		const dp_sv_pair *p = &src->pairs.v[i];

		if (imap[p->insn] != UINT32_MAX)
			dp_sv_pair_add(
			    dst, imap[p->insn], p->kind, dp_strtab_from(dst_strs, src_strs, p->a),
			    dp_strtab_from(dst_strs, src_strs, p->b), p->first, p->samples);
	}
	merge_ranges(dst, dst_dec, src);
	free(fmap);
	if (insn_map)
		*insn_map = imap;
	else
		free(imap);
}

static void order_funcs(dp_srcview *v, uint32_t *fwhere)
{
	uint64_t *first = dp_calloc(v->funcs.n + 1, sizeof(uint64_t));

	for (size_t i = 0; i < v->funcs.n; i++)
		first[i] = v->funcs.v[i].first;
	dp_sort_by_key(v->funcs.v, v->funcs.n, sizeof(dp_sv_func), first, fwhere);
	dp_hashmap_free(&v->func_of);
	dp_hashmap_init(&v->func_of, v->funcs.n);
	for (size_t i = 0; i < v->funcs.n; i++)
		dp_hashmap_put(&v->func_of, dp_sv_key(v->funcs.v[i].im, v->funcs.v[i].t->start), i);
	free(first);
}

static void order_insns(dp_srcview *v, const uint32_t *fwhere)
{
	uint64_t *first = dp_calloc(v->insns.n + 1, sizeof(uint64_t));

	for (size_t i = 0; i < v->insns.n; i++)
		first[i] = v->insns.v[i].first;
	dp_vec_free(&v->moved);
	for (size_t i = 0; i < v->insns.n; i++)
		dp_vec_push(&v->moved, 0);
	dp_sort_by_key(v->insns.v, v->insns.n, sizeof(dp_sv_insn), first, v->moved.v);
	dp_hashmap_free(&v->insn_of);
	dp_hashmap_init(&v->insn_of, v->insns.n);
	for (size_t i = 0; i < v->insns.n; i++) {
		dp_sv_insn *in = &v->insns.v[i];

		in->func = fwhere[in->func];
		dp_hashmap_put(&v->insn_of, dp_sv_key(v->funcs.v[in->func].im, in->vaddr), i);
	}
	free(first);
}

/* by instruction, kind, then first sample */
static int pair_cmp(const void *pa, const void *pb)
{
	const dp_sv_pair *a = pa, *b = pb;
	uint64_t ka = (uint64_t)a->insn << 1 | a->kind, kb = (uint64_t)b->insn << 1 | b->kind;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Each instruction's first DP_SV_MAX_ACCESS (object, member) pairs, the
 * rest summed, and its first DP_SV_MAX_LEVELS levels. */
static void keep_first_pairs(dp_srcview *v)
{
	for (size_t i = 0; i < v->pairs.n; i++)
		v->pairs.v[i].insn = v->moved.v[v->pairs.v[i].insn];
	if (v->pairs.n > 1)
		qsort(v->pairs.v, v->pairs.n, sizeof(dp_sv_pair), pair_cmp);
	dp_hashmap_free(&v->pair_of);
	dp_hashmap_init(&v->pair_of, 16); /* the pairs are done */
	for (size_t i = 0; i < v->insns.n; i++) {
		v->insns.v[i].naccess = v->insns.v[i].nlevels = 0;
		v->insns.v[i].access_other = 0;
	}
	for (size_t i = 0; i < v->pairs.n; i++) {
		const dp_sv_pair *p = &v->pairs.v[i];
		dp_sv_insn *in = &v->insns.v[p->insn];

		if (p->kind == 1) {
			if (in->nlevels < DP_SV_MAX_LEVELS)
				in->levels[in->nlevels++] = (dp_sv_level){p->a, p->samples};
		} else if (in->naccess < DP_SV_MAX_ACCESS) {
			in->access[in->naccess++] = (dp_sv_access){p->a, p->b, p->samples};
		} else {
			in->access_other += p->samples;
		}
	}
}

void dp_sv_order(dp_srcview *v)
{
	uint32_t *fwhere = dp_calloc(v->funcs.n + 1, sizeof(uint32_t));

	order_funcs(v, fwhere);
	order_insns(v, fwhere);
	keep_first_pairs(v);
	free(fwhere);
}
