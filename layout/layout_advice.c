/* What the samples say about a layout, as facts: which members are hot,
 * how many cache lines a visit of an instance touches for them now and in
 * an order that packs them, cold members and holes between them, and
 * memory lines written by one thread while another uses other bytes of
 * them (false sharing).
 *
 * A "visit" is taken to touch every hot member (samples cannot tell which
 * members one visit touches together); hot members are the fewest, hottest
 * first, that hold 90% of the type's samples, each at least 2%. Lines per
 * visit average over where the instances were seen to start within a line
 * (arrays of a size that is not a multiple of the line start at several
 * offsets). */
#include "layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HOT_MIN 0.02 /* of the type's samples, for a member to be hot */
#define HOT_CUM 0.90 /* the hot members hold this much together */

static const dp_layout *sorting;

static int by_heat(const void *a, const void *b)
{
	double x = sorting->m.v[*(const size_t *)a].x, y = sorting->m.v[*(const size_t *)b].x;

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

unsigned dp_layout_lines(const dp_layout *l, const size_t *idx, size_t k, const uint64_t *off,
			 uint64_t a)
{
	uint64_t n = l->o && l->o->cacheline ? l->o->cacheline : 64;
	uint64_t span = (a + DP_MAX(l->t.size, l->suggested_size)) / n + 2;
	bool *used = dp_calloc(span, sizeof(bool));
	unsigned lines = 0;

	for (size_t i = 0; i < k; i++) {
		const dp_layout_member *m = &l->t.members.v[idx[i]];
		uint64_t start = a + (off ? off[i] : m->offset),
			 end = start + DP_MAX(m->size, 1) - 1;

		for (uint64_t ln = start / n; ln <= end / n && ln < span; ln++)
			if (!used[ln]) {
				used[ln] = true;
				lines++;
			}
	}
	free(used);
	return lines;
}

/* Lines per visit of the hot members at offsets off (NULL: their own),
 * averaged over instance starts (offset, weight). */
static double lines_per_visit(const dp_layout *l, const size_t *hot, size_t nh, const uint64_t *off,
			      const dp_lcount *starts, size_t ns)
{
	double sum = 0, w = 0;

	if (!nh)
		return 0;
	if (!ns)
		return dp_layout_lines(l, hot, nh, off, 0);
	for (size_t i = 0; i < ns; i++) {
		sum += starts[i].x * dp_layout_lines(l, hot, nh, off, starts[i].id);
		w += starts[i].x;
	}
	return w > 0 ? sum / w : 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* A unit of reordering: one member, or a run of bitfields in one unit. */
typedef struct block {
	size_t first, n;
	uint64_t size, align;
	double x;
	bool hot, pinned;
} block;

static int by_place(const void *a, const void *b)
{
	const block *x = a, *y = b;

	if (x->pinned != y->pinned)
		return x->pinned ? -1 : 1;
	if (x->pinned)
		return x->first < y->first ? -1 : 1;
	if (x->hot != y->hot)
		return x->hot ? -1 : 1;
	/* largest alignment first leaves no holes between them */
	if (x->align != y->align)
		return x->align > y->align ? -1 : 1;
	if (x->hot && x->x != y->x)
		return x->x > y->x ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

static void suggest_order(dp_layout *l)
{
	const dp_type_layout *t = &l->t;
	DP_VEC(block) bs = {0};
	uint64_t cur = 0;

	for (size_t i = 0; i < t->members.n;) {
		const dp_layout_member *m = &t->members.v[i];
		block b = {i,
			   1,
			   DP_MAX(m->size, 1),
			   DP_MAX(m->align, 1),
			   l->m.v[i].x,
			   l->m.v[i].hot,
			   m->base || m->artificial};

		while (m->bit_size && i + b.n < t->members.n && t->members.v[i + b.n].bit_size &&
		       t->members.v[i + b.n].offset == m->offset) {
			b.x += l->m.v[i + b.n].x;
			b.hot |= l->m.v[i + b.n].hot;
			b.n++;
		}
		dp_vec_push(&bs, b);
		i += b.n;
	}
	if (bs.n > 1 && !t->is_union)
		qsort(bs.v, bs.n, sizeof(block), by_place);
	for (size_t k = 0; k < bs.n; k++) {
		const block *b = &bs.v[k];

		if (!t->is_union)
			cur = DP_ALIGN(cur, b->align);
		for (size_t j = 0; j < b->n; j++) {
			const dp_layout_member *m = &t->members.v[b->first + j];

			l->m.v[b->first + j].new_offset =
			    t->is_union ? m->offset
					: cur + (m->offset - t->members.v[b->first].offset);
			dp_vec_push(&l->order, b->first + j);
		}
		if (!t->is_union)
			cur += b->size;
	}
	l->suggested_size = t->is_union ? t->size : DP_ALIGN(cur, DP_MAX(t->align, 1));
	dp_vec_free(&bs);
}

static void advise(dp_layout *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void advise(dp_layout *l, const char *fmt, ...)
{
	dp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dp_vec_push(&l->advice, b.p);
}

static void sharing(dp_layout *l)
{
	for (size_t i = 0; i < l->lines.n; i++) {
		dp_lline *ln = &l->lines.v[i];

		for (size_t a = 0; a < ln->acc.n; a++)
			for (size_t b = 0; b < ln->acc.n; b++) {
				const dp_laccess *x = &ln->acc.v[a], *y = &ln->acc.v[b];

				if (x->tid == y->tid || x->member < 0 || y->member < 0 ||
				    !x->stores)
					continue;
				if (x->member != y->member)
					ln->false_sharing = true;
				else
					ln->true_sharing = true;
			}
		l->nfalse += ln->false_sharing;
	}
}

static void clear(dp_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

/* Two hot members written by different threads (none writes both): on one
 * line they would share it falsely. Returns whether any pair is; the
 * first pair goes to *x, *y. */
static bool writer_conflict(const dp_layout *l, size_t *x, size_t *y)
{
	size_t nm = l->t.members.n;

	for (size_t i = 0; i < nm; i++)
		for (size_t j = i + 1; j < nm; j++) {
			bool wi = false, wj = false, both = false;

			if (!l->m.v[i].hot || !l->m.v[j].hot)
				continue;
			for (size_t k = 0; k < l->lines.n; k++)
				for (size_t a = 0; a < l->lines.v[k].acc.n; a++) {
					const dp_laccess *e = &l->lines.v[k].acc.v[a];

					if (!e->stores)
						continue;
					wi |= e->member == (int)i;
					wj |= e->member == (int)j;
					/* a thread that writes both: no conflict */
					for (size_t kb = 0; kb < l->lines.n && e->member == (int)i;
					     kb++)
						for (size_t b = 0; b < l->lines.v[kb].acc.n; b++) {
							const dp_laccess *g =
							    &l->lines.v[kb].acc.v[b];

							both |= g->tid == e->tid &&
								g->member == (int)j && g->stores;
						}
				}
			if (wi && wj && !both) {
				*x = i;
				*y = j;
				return true;
			}
		}
	return false;
}

static const char *mname(const dp_layout *l, size_t i)
{
	return l->t.members.v[i].name;
}

void dp_layout_analyze(dp_layout *l)
{
	const dp_type_layout *t = &l->t;
	uint64_t n = l->o && l->o->cacheline ? l->o->cacheline : 64;
	size_t nm = t->members.n, nh = 0, *idx = dp_malloc((nm ? nm : 1) * sizeof(size_t));
	size_t *hot = dp_malloc((nm ? nm : 1) * sizeof(size_t));
	uint64_t *newoff = dp_malloc((nm ? nm : 1) * sizeof(uint64_t)), lo = UINT64_MAX, hi = 0;
	double cum = 0;
	dp_buf b = {0};

	/* the hot members */
	for (size_t i = 0; i < nm; i++)
		idx[i] = i;
	sorting = l;
	if (nm > 1)
		qsort(idx, nm, sizeof(size_t), by_heat);
	sorting = NULL;
	for (size_t k = 0; k < nm && l->total > 0 && cum < HOT_CUM; k++) {
		double share = l->m.v[idx[k]].x / l->total;

		if (share < HOT_MIN)
			break;
		l->m.v[idx[k]].hot = true;
		cum += share;
	}
	for (size_t i = 0; i < nm; i++)
		if (l->m.v[i].hot) {
			hot[nh++] = i;
			l->hot_bytes += DP_MAX(t->members.v[i].size, 1);
			lo = DP_MIN(lo, t->members.v[i].offset);
			hi = DP_MAX(hi, t->members.v[i].offset + t->members.v[i].size);
		}
	suggest_order(l);
	for (size_t k = 0; k < nh; k++)
		newoff[k] = l->m.v[hot[k]].new_offset;

	/* lines per visit: now, in the suggested order, and aligned to a line */
	l->lines_now = lines_per_visit(l, hot, nh, NULL, l->align.v, l->align.n);
	if (l->align.n > 1 && l->suggested_size != t->size) {
		/* an array of another size starts its elements elsewhere in lines */
		uint64_t g = gcd(l->suggested_size, n);
		DP_VEC(dp_lcount) starts = {0};

		for (uint64_t a = 0; a < n; a += g) {
			dp_lcount s = {(uint32_t)a, 0, 1};
			dp_vec_push(&starts, s);
		}
		l->lines_suggested = lines_per_visit(l, hot, nh, newoff, starts.v, starts.n);
		dp_vec_free(&starts);
	} else {
		l->lines_suggested = lines_per_visit(l, hot, nh, newoff, l->align.v, l->align.n);
	}
	l->lines_aligned = lines_per_visit(l, hot, nh, newoff, NULL, 0);
	sharing(l);

	/* the advice, as what was measured */
	if (l->has_profile && !l->samples)
		advise(l, "no sample fell on %s (of %.0f kept): the layout alone", t->name,
		       l->kept);
	size_t cx = 0, cy = 0;
	bool conflict = writer_conflict(l, &cx, &cy);

	if (conflict && l->nfalse)
		advise(l,
		       "put %s and %s on separate cache lines (pad each to %llu bytes, or "
		       "alignas(%llu)): different threads write them",
		       mname(l, cx), mname(l, cy), (unsigned long long)n, (unsigned long long)n);
	else if (conflict)
		advise(l,
		       "hot members %s and %s are written by different threads: keep them on "
		       "separate lines (one line would be shared falsely)",
		       mname(l, cx), mname(l, cy));
	if (nh && !conflict) {
		unsigned best = (unsigned)((l->hot_bytes + n - 1) / n);

		for (size_t k = 0; k < nh; k++)
			dp_buf_printf(&b, "%s%s (%.0f%%)", k ? ", " : "", mname(l, hot[k]),
				      100 * l->m.v[hot[k]].x / l->total);
		if (l->lines_now > best + 0.005)
			advise(l,
			       "hot members %s, %llu bytes, touch %.2f cache lines per visit; they "
			       "fit "
			       "in %u",
			       b.p, (unsigned long long)l->hot_bytes, l->lines_now, best);
		else
			advise(
			    l,
			    "hot members %s touch %.2f cache line%s per visit: as few as they can",
			    b.p, l->lines_now, l->lines_now == 1 ? "" : "s");
		clear(&b);
		/* cold members between the hot ones */
		uint64_t cold_bytes = 0;
		for (size_t i = 0; i < nm; i++) {
			const dp_layout_member *m = &t->members.v[i];

			if (l->m.v[i].hot || m->offset < lo || m->offset + m->size > hi ||
			    t->is_union)
				continue;
			dp_buf_printf(&b, "%s%s", cold_bytes ? ", " : "", m->name);
			cold_bytes += m->size;
		}
		if (cold_bytes)
			advise(l, "cold members %s (%llu bytes) lie between hot ones", b.p,
			       (unsigned long long)cold_bytes);
	}
	clear(&b);
	uint64_t hole_bytes = 0;
	for (size_t i = 0; i < t->holes.n; i++) {
		const dp_layout_hole *h = &t->holes.v[i];

		if (h->bytes)
			dp_buf_printf(&b, "%s%llu byte%s after %s", hole_bytes ? ", " : "",
				      (unsigned long long)h->bytes, h->bytes == 1 ? "" : "s",
				      mname(l, h->after));
		hole_bytes += h->bytes;
	}
	if (hole_bytes || t->padding)
		advise(l, "holes: %s%s%llu bytes of padding at the end", hole_bytes ? b.p : "none",
		       hole_bytes ? "; " : "; ", (unsigned long long)t->padding);
	if (!t->is_union && !conflict &&
	    (l->lines_suggested + 0.005 < l->lines_now || l->suggested_size < t->size)) {
		clear(&b);
		for (size_t k = 0; k < l->order.n; k++)
			dp_buf_printf(&b, "%s%s", k ? ", " : "", mname(l, l->order.v[k]));
		advise(l, "suggested order: %s -- %llu bytes (now %llu)%s", b.p,
		       (unsigned long long)l->suggested_size, (unsigned long long)t->size, "");
		if (nh)
			advise(l, "lines per visit: %.2f now, %.2f in the suggested order",
			       l->lines_now, l->lines_suggested);
	}
	if (nh && !conflict && l->lines_aligned + 0.005 < l->lines_suggested)
		advise(l,
		       "aligned to %llu bytes (alignas(%llu)), the suggested order touches %.2f "
		       "lines per visit",
		       (unsigned long long)n, (unsigned long long)n, l->lines_aligned);
	if (l->nfalse) {
		double x = 0;

		for (size_t i = 0; i < l->lines.n; i++)
			x += l->lines.v[i].false_sharing ? l->lines.v[i].x : 0;
		advise(l,
		       "possible false sharing on %zu line%s (%.0f%% of the type's samples): one "
		       "thread writes a member while another uses another member of the same line",
		       l->nfalse, l->nfalse == 1 ? "" : "s", l->total > 0 ? 100 * x / l->total : 0);
	}
	dp_buf_free(&b);
	free(idx);
	free(hot);
	free(newoff);
}
