/* Matching keys across builds. Keys without a source line match by their
 * text. Keys holding one (line, site, heap objects named by their
 * allocation site) match within a group of keys that are the same but for
 * their line numbers and were mostly seen in the same function (the
 * allocating function for sites): lines of one function move together
 * when code above them is added or removed, so the group takes the shift
 * within --line-tolerance that pairs the most of its keys (no shift when
 * nothing moved), then the next shift for what is left. Taking the same
 * text first would pair line 120 of the old build with whatever code
 * moved onto line 120. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

typedef struct lkey {
	uint32_t key, shape;
	long lines[DP_AGG_MAX_ATTRS];
	double weight;
	int32_t match; /* the other side's index, -1 */
	long shift;
} lkey;

static bool line_attr(dp_attr_id a)
{
	return a == DP_A_LINE || a == DP_A_SITE || a == DP_A_OBJECT;
}

/* The key with its line numbers taken out and its anchor added; false if
 * it holds no line. */
static bool shape(dp_diff_result *r, uint32_t key, uint32_t *id, long *lines)
{
	dp_rtable *t = &r->tab;
	const dp_rkey *k = &t->keys.v[key];
	dp_buf b = {0};
	bool any = false;

	for (int i = 0; i < t->by.nattrs; i++) {
		const char *v = dp_rtable_str(t, k->vals[i]);
		size_t plen;

		lines[i] = -1;
		if (line_attr(t->by.attrs[i].id) && dp_rkey_line(v, &plen, &lines[i])) {
			dp_buf_printf(&b, "%.*s:*\x1f", (int)plen, v);
			any = true;
		} else {
			dp_buf_printf(&b, "%s\x1f", v);
		}
	}
	dp_buf_printf(&b, "@%s", dp_rtable_str(t, k->anchor));
	*id = dp_strtab_intern(&t->strs, b.p);
	dp_buf_free(&b);
	return any;
}

static int by_shape(const void *a, const void *b)
{
	const lkey *x = a, *y = b;

	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Lines of n are those of b moved by d: each by d or not at all (a key of
 * two lines may have one that did not move), and one by d. */
static bool moved_by(const lkey *b, const lkey *n, int nattrs, long d)
{
	bool moved = false;

	for (int i = 0; i < nattrs; i++) {
		long diff = n->lines[i] - b->lines[i];

		if (diff && diff != d)
			return false;
		moved |= diff == d;
	}
	return moved;
}

/* The first line number a key holds. */
static long first_line(const lkey *k, int nattrs)
{
	for (int i = 0; i < nattrs; i++)
		if (k->lines[i] >= 0)
			return k->lines[i];
	return -1;
}

/* What the shifts taken so far say: the lines of the old build each one
 * spans (code between lines that moved together moved with them), and the
 * pairs it made (edits keep the order of lines: a pair may not cross one). */
typedef struct span {
	long lo, hi;
} span;

typedef struct lpair {
	long old, now;
} lpair;

typedef struct taken_so_far {
	DP_VEC(span) spans;
	DP_VEC(lpair) pairs;
} taken_so_far;

static bool spanned(const taken_so_far *t, long line)
{
	for (size_t i = 0; i < t->spans.n; i++)
		if (line > t->spans.v[i].lo && line < t->spans.v[i].hi)
			return true;
	return false;
}

static bool crosses(const taken_so_far *t, long old, long now)
{
	for (size_t i = 0; i < t->pairs.n; i++) {
		const lpair *p = &t->pairs.v[i];

		if ((old > p->old && now <= p->now) || (old < p->old && now >= p->now))
			return true;
	}
	return false;
}

/* Pairs the free keys of b and n moved by d, the heaviest first, into
 * pair[] (index in n, -1); returns how many, and their samples in common.
 * A key within the span of a shift taken before is not paired by another:
 * a line between two lines that moved by 3 moved by 3, and when its
 * counterpart has no sample it is gone, not the line now at its number.
 * Nor is a pair that crosses one taken before: line 71 is not paired with
 * line 69 once line 70 is with line 73. */
static size_t pair_by(const lkey *b, size_t nb, const lkey *n, size_t nn, int nattrs, long d,
		      const taken_so_far *t, int32_t *pair, bool *taken, double *common)
{
	size_t cnt = 0;

	*common = 0;
	memset(taken, 0, nn * sizeof(bool));
	for (size_t i = 0; i < nb; i++) {
		pair[i] = -1;
		long old = first_line(&b[i], nattrs);

		if (b[i].match >= 0 || spanned(t, old))
			continue;
		for (size_t j = 0; j < nn; j++) {
			if (taken[j] || n[j].match >= 0 || !moved_by(&b[i], &n[j], nattrs, d) ||
			    crosses(t, old, first_line(&n[j], nattrs)))
				continue;
			pair[i] = (int32_t)j;
			taken[j] = true;
			cnt++;
			*common += b[i].weight < n[j].weight ? b[i].weight : n[j].weight;
			break;
		}
	}
	return cnt;
}

/* Pairs the keys of one group, b[0..nb) and n[0..nn) (each the heaviest
 * first): the shift that pairs the most keys, then the most samples, then
 * the smallest; again for what is left. */
static void match_group(lkey *b, size_t nb, lkey *n, size_t nn, int nattrs, long tol)
{
	int32_t *pair = dp_malloc(nb * sizeof(int32_t)),
		*best_pair = dp_malloc(nb * sizeof(int32_t));
	bool *taken = dp_malloc(nn * sizeof(bool));
	taken_so_far t = {{0}, {0}};

	for (;;) {
		long best_d = 0;
		size_t best = 0;
		double best_common = 0;

		for (long step = 0; step <= 2 * tol; step++) {
			long d = step % 2 ? (step + 1) / 2 : -(step / 2);
			double common;
			size_t cnt = pair_by(b, nb, n, nn, nattrs, d, &t, pair, taken, &common);

			if (cnt > best || (cnt == best && cnt && common > best_common)) {
				best = cnt;
				best_d = d;
				best_common = common;
				memcpy(best_pair, pair, nb * sizeof(int32_t));
			}
		}
		if (!best)
			break;
		span cur = {-1, -1};
		for (size_t i = 0; i < nb; i++) {
			int32_t j = best_pair[i];
			long line = first_line(&b[i], nattrs);

			if (j < 0)
				continue;
			b[i].match = j;
			n[j].match = (int32_t)i;
			b[i].shift = n[j].shift = best_d;
			dp_vec_push(&t.pairs, ((lpair){line, first_line(&n[j], nattrs)}));
			if (cur.lo < 0 || line < cur.lo)
				cur.lo = line;
			if (line > cur.hi)
				cur.hi = line;
		}
		dp_vec_push(&t.spans, cur);
	}
	dp_vec_free(&t.spans);
	dp_vec_free(&t.pairs);
	free(pair);
	free(best_pair);
	free(taken);
}

static void push(dp_diff_result *r, int32_t bkey, int32_t nkey, long shift)
{
	dp_diff_row row;

	memset(&row, 0, sizeof(row));
	row.bkey = bkey;
	row.nkey = nkey;
	row.shift = shift;
	dp_vec_push(&r->rows, row);
}

void dp_diff_match(dp_diff_result *r)
{
	const dp_run *side[2] = {&r->base.pool, &r->new_.pool};
	DP_VEC(lkey) lk[2] = {{0}, {0}};
	int nattrs = r->tab.by.nattrs;
	long tol = (long)r->o->line_tolerance;

	for (int s = 0; s < 2; s++) {
		const dp_run *me = side[s], *other = side[!s];

		for (size_t i = 0; i < me->stats.n; i++) {
			uint32_t k = me->stats.v[i].key;
			lkey l;

			memset(&l, 0, sizeof(l));
			l.key = k;
			l.match = -1;
			l.weight = me->stats.v[i].x[0];
			if (shape(r, k, &l.shape, l.lines)) {
				dp_vec_push(&lk[s], l);
			} else if (!s) {
				push(r, (int32_t)k, dp_run_stat(other, k) ? (int32_t)k : -1, 0);
			} else if (!dp_run_stat(other, k)) {
				push(r, -1, (int32_t)k, 0);
			}
		}
		if (lk[s].n > 1)
			qsort(lk[s].v, lk[s].n, sizeof(lkey), by_shape);
	}
	/* groups of one shape on both sides */
	for (size_t i = 0, j = 0; i < lk[0].n;) {
		size_t ie = i, je;

		while (ie < lk[0].n && lk[0].v[ie].shape == lk[0].v[i].shape)
			ie++;
		while (j < lk[1].n && lk[1].v[j].shape < lk[0].v[i].shape)
			j++;
		for (je = j; je < lk[1].n && lk[1].v[je].shape == lk[0].v[i].shape; je++)
			;
		if (je > j)
			match_group(&lk[0].v[i], ie - i, &lk[1].v[j], je - j, nattrs, tol);
		/* the indices are within the group: make them global */
		for (size_t k = i; k < ie; k++)
			if (lk[0].v[k].match >= 0)
				lk[0].v[k].match += (int32_t)j;
		i = ie;
		j = je;
	}
	for (size_t i = 0; i < lk[0].n; i++) {
		const lkey *b = &lk[0].v[i];

		push(r, (int32_t)b->key, b->match >= 0 ? (int32_t)lk[1].v[b->match].key : -1,
		     b->shift);
	}
	for (size_t j = 0; j < lk[1].n; j++)
		if (lk[1].v[j].match < 0)
			push(r, -1, (int32_t)lk[1].v[j].key, 0);
	dp_vec_free(&lk[0]);
	dp_vec_free(&lk[1]);
}
