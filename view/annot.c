/* The annotate pane's data, collected while the view's report pass streams
 * the samples: srcview sums them per instruction (as dataprof annotate
 * does); here each sample also counts in its time bucket, so that the page
 * can recount a range. */
#include "annot_int.h"

#include <stdlib.h>
#include <string.h>

dp_view_annot *dp_view_annot_new(size_t top, const char *source_dir, unsigned prefix_strip)
{
	dp_view_annot *a = dp_calloc(1, sizeof(*a));

	a->o.select = DP_SV_HOTTEST;
	a->o.top = top;
	a->o.hot_extra = 10;
	a->o.source_dir = source_dir;
	a->o.prefix_strip = prefix_strip;
	dp_srcview_begin(&a->o, &a->v);
	dp_hashmap_init(&a->combo_of, 1024);
	dp_hashmap_init(&a->cell_of, 4096);
	a->shift = 10; /* the model's first width */
	return a;
}

void dp_view_annot_free(dp_view_annot *a)
{
	if (!a)
		return;
	dp_srcview_listings_free(&a->v, a->ls);
	dp_srcview_free(&a->v);
	dp_vec_free(&a->combos);
	dp_vec_free(&a->combo_seq);
	dp_hashmap_free(&a->combo_of);
	dp_vec_free(&a->cells);
	dp_hashmap_free(&a->cell_of);
	free(a);
}

static uint32_t combo_of(dp_view_annot *a, const dp_va_combo *c, uint64_t seq)
{
	uint64_t h = dp_hash_bytes(c, sizeof(*c), 0x616e6e6f), v;

	while (dp_hashmap_get(&a->combo_of, h, &v)) {
		if (!memcmp(&a->combos.v[v], c, sizeof(*c))) {
			a->combo_seq.v[v] = DP_MIN(a->combo_seq.v[v], seq);
			return (uint32_t)v;
		}
		h++;
	}
	dp_vec_push(&a->combos, *c);
	dp_vec_push(&a->combo_seq, seq);
	dp_hashmap_put(&a->combo_of, h, a->combos.n - 1);
	return (uint32_t)(a->combos.n - 1);
}

static void cell_add(dp_view_annot *a, const dp_va_cell *c)
{
	uint64_t key = (uint64_t)c->combo << 24 | c->bucket, v;

	if (dp_hashmap_get(&a->cell_of, key, &v)) {
		dp_va_cell *x = &a->cells.v[v];

		x->count += c->count;
		x->period += c->period;
		x->weight += c->weight;
		x->nweight += c->nweight;
		return;
	}
	dp_vec_push(&a->cells, *c);
	dp_hashmap_put(&a->cell_of, key, a->cells.n - 1);
}

/* The cells anew in buckets of 1 << shift ns (shift >= a->shift). */
static void rebucket(dp_view_annot *a, unsigned shift)
{
	DP_VEC(dp_va_cell) old = {0};

	old.v = a->cells.v, old.n = a->cells.n, old.cap = a->cells.cap;
	memset(&a->cells, 0, sizeof(a->cells));
	dp_hashmap_free(&a->cell_of);
	dp_hashmap_init(&a->cell_of, old.n);
	for (size_t i = 0; i < old.n; i++) {
		dp_va_cell c = old.v[i];

		c.bucket >>= shift - a->shift;
		cell_add(a, &c);
	}
	a->shift = shift;
	dp_vec_free(&old);
}

void dp_va_widen(dp_view_annot *a, unsigned shift)
{
	if (shift > a->shift)
		rebucket(a, shift);
}

void dp_view_annot_row(dp_view_annot *a, const dp_row *row, uint64_t bucket_ns)
{
	long in = dp_srcview_row(&a->v, row);
	dp_va_combo c;
	dp_va_cell cell;

	if (in < 0)
		return;
	dp_va_widen(a, (unsigned)__builtin_ctzll(bucket_ns));
	memset(&c, 0, sizeof(c));
	c.insn = (uint32_t)in;
	c.object = row->a->object;
	c.member = row->a->object ? row->a->member : 0;
	c.level = row->level;
	c.verdict = row->x->verdict < DP_V_COUNT ? row->x->verdict : DP_V_COUNT;
	memset(&cell, 0, sizeof(cell));
	cell.combo = combo_of(a, &c, row->seq);
	cell.bucket = (uint32_t)(row->time_rel >> a->shift);
	cell.count = 1;
	cell.period = row->s->period ? row->s->period : 1;
	if (row->s->weight) {
		cell.weight = row->s->weight;
		cell.nweight = 1;
	}
	cell_add(a, &cell);
}

void dp_view_annot_start(dp_view_annot *a, const dp_report_result *res)
{
	/* the hottest ranges of branch stacks, as dataprof annotate counts them */
	a->v.dec = res->dec;
	a->v.ev = res->ev;
	a->v.nev = res->nev;
}

void dp_view_annot_merge(dp_view_annot *dst, const dp_report_result *dst_part, dp_view_annot *src,
			 const dp_report_result *src_part)
{
	dp_strtab *ds = dp_annotator_strings_mut(dst_part->ann);
	const dp_strtab *ss = dp_annotator_strings(src_part->ann);
	uint32_t *imap;

	dp_srcview_merge(&dst->v, dst_part->dec, ds, &src->v, ss, &imap);
	dp_va_widen(dst, src->shift);
	dp_va_widen(src, dst->shift);
	uint32_t *cmap = dp_calloc(src->combos.n + 1, sizeof(uint32_t));

	for (size_t i = 0; i < src->combos.n; i++) {
		dp_va_combo c = src->combos.v[i];

		cmap[i] = UINT32_MAX;
		if (imap[c.insn] == UINT32_MAX)
			continue; /* its binary: counted outside */
		c.insn = imap[c.insn];
		c.object = dp_strtab_from(ds, ss, c.object);
		c.member = dp_strtab_from(ds, ss, c.member);
		c.level = dp_strtab_from(ds, ss, c.level);
		cmap[i] = combo_of(dst, &c, src->combo_seq.v[i]);
	}
	for (size_t i = 0; i < src->cells.n; i++) {
		dp_va_cell c = src->cells.v[i];

		if (cmap[c.combo] == UINT32_MAX)
			continue;
		c.combo = cmap[c.combo];
		cell_add(dst, &c);
	}
	free(cmap);
	free(imap);
}

/* The combinations in the order of their first samples, on the
 * instructions as srcview ordered them (what one pass in file order
 * makes). */
static void order_combos(dp_view_annot *a)
{
	uint32_t *where = dp_calloc(a->combos.n + 1, sizeof(uint32_t));

	dp_sort_by_key(a->combos.v, a->combos.n, sizeof(dp_va_combo), a->combo_seq.v, where);
	dp_hashmap_free(&a->combo_of);
	dp_hashmap_init(&a->combo_of, a->combos.n + 16);
	for (size_t i = 0; i < a->combos.n; i++) {
		dp_va_combo *c = &a->combos.v[i];

		c->insn = a->v.moved.v[c->insn];
		dp_hashmap_put(&a->combo_of, dp_hash_bytes(c, sizeof(*c), 0x616e6e6f), i);
	}
	for (size_t i = 0; i < a->cells.n; i++)
		a->cells.v[i].combo = where[a->cells.v[i].combo];
	/* cells are found by combination: their index anew */
	rebucket(a, a->shift);
	free(where);
}

int dp_view_annot_finish(dp_view_annot *a, dp_report_result *res, dp_error *err)
{
	if (dp_srcview_end(&a->v, res, err) < 0)
		return -1;
	order_combos(a);
	a->ls = dp_srcview_listings(&a->v, err);
	return a->ls ? 0 : -1;
}
