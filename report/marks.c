#include "marks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dp_marks_add(dp_marks *m, const dp_record *r)
{
	if (r->kind == DP_R_MARKER) {
		dp_vec_grow(&m->v, m->v.n + r->marker.n);
		for (uint32_t i = 0; i < r->marker.n; i++) {
			const struct dp_mark *k = &r->marker.marks[i];
			dp_mark_rec *d = &m->v.v[m->v.n++];

			d->time = k->time;
			d->end = k->end >= k->time ? k->end : k->time;
			d->pid = r->pid;
			d->tid = r->tid;
			d->app = r->marker.app;
			d->id = k->id;
			d->flags = k->flags;
			m->hand_overs += (k->flags & DP_MARK_FLUSHED) != 0;
		}
	} else if (r->kind == DP_R_MARKER_NAME) {
		dp_mark_name n = {r->marker_name.app, r->marker_name.id,
				  dp_strdup(r->marker_name.name)};

		for (size_t i = 0; i < m->names.n; i++) {
			if (m->names.v[i].app == n.app && m->names.v[i].id == n.id) {
				free(n.name); /* the same name from another process */
				return;
			}
		}
		dp_vec_push(&m->names, n);
	}
}

static int by_thread_time(const void *a, const void *b)
{
	const dp_mark_rec *x = a, *y = b;
	int c = dp_cmp_u64(x->pid, y->pid);

	if (!c)
		c = dp_cmp_u64(x->tid, y->tid);
	return c ? c : dp_cmp_u64(x->time, y->time);
}

void dp_marks_done(dp_marks *m)
{
	/* records of one thread arrive in order, but threads interleave */
	if (m->v.n)
		qsort(m->v.v, m->v.n, sizeof(*m->v.v), by_thread_time);
}

void dp_marks_free(dp_marks *m)
{
	for (size_t i = 0; i < m->names.n; i++)
		free(m->names.v[i].name);
	dp_vec_free(&m->names);
	dp_vec_free(&m->v);
}

const char *dp_marks_name(const dp_marks *m, uint32_t app, uint32_t id, char *buf, size_t len)
{
	for (size_t i = 0; i < m->names.n; i++)
		if (m->names.v[i].app == app && m->names.v[i].id == id)
			return m->names.v[i].name;
	snprintf(buf, len, "#%u", id);
	return buf;
}

bool dp_marks_lookup(const dp_marks *m, const char *what, uint32_t *id)
{
	uint64_t v;

	for (size_t i = 0; i < m->names.n; i++) {
		if (m->names.v[i].id != DP_MARKER_APP && !strcmp(m->names.v[i].name, what)) {
			*id = m->names.v[i].id;
			return true;
		}
	}
	if (dp_parse_u64(what[0] == '#' ? what + 1 : what, &v) && v < UINT32_MAX) {
		*id = (uint32_t)v;
		return true;
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t dp_median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n & 1 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The set for (thread of mark i, from, to), made on first use. */
static dp_interval_set *set_of(dp_interval_sets *out, const dp_mark_rec *k, uint32_t from,
			       uint32_t to)
{
	dp_interval_set *s;

	for (size_t i = 0; i < out->n; i++) {
		s = &out->v[i];
		if (s->pid == k->pid && s->tid == k->tid && s->from_id == from && s->to_id == to)
			return s;
	}
	dp_vec_grow(out, out->n + 1);
	s = &out->v[out->n++];
	memset(s, 0, sizeof(*s));
	s->pid = k->pid;
	s->tid = k->tid;
	s->app = k->app;
	s->from_id = from;
	s->to_id = to;
	return s;
}

static void add_interval(const dp_marks *m, dp_interval_sets *out, size_t a, size_t b)
{
	const dp_mark_rec *v = m->v.v;
	dp_interval iv = {a, b, 0, v[b].time - v[a].time, 0};
	dp_interval_set *s = set_of(out, &v[a], v[a].id, v[b].id);

	for (size_t k = a; k < b; k++)
		iv.overhead += v[k].end - v[k].time;
	/* overheads cannot exceed the span they lie in; clamp against clock noise */
	iv.ns = iv.raw > iv.overhead ? iv.raw - iv.overhead : 0;
	dp_vec_push(&s->v, iv);
}

static void summarise(dp_interval_sets *out)
{
	for (size_t i = 0; i < out->n; i++) {
		dp_interval_set *s = &out->v[i];
		uint64_t *ns = dp_malloc((s->v.n + 1) * sizeof(*ns));

		s->min = UINT64_MAX;
		s->max = s->total = 0;
		for (size_t k = 0; k < s->v.n; k++) {
			ns[k] = s->v.v[k].ns;
			s->min = DP_MIN(s->min, ns[k]);
			s->max = DP_MAX(s->max, ns[k]);
			s->total += ns[k];
		}
		if (!s->v.n)
			s->min = 0;
		s->median = dp_median_u64(ns, s->v.n);
		free(ns);
	}
}

static bool same_thread(const dp_mark_rec *a, const dp_mark_rec *b)
{
	return a->pid == b->pid && a->tid == b->tid;
}

void dp_marks_consecutive(const dp_marks *m, dp_interval_sets *out)
{
	for (size_t i = 0; i + 1 < m->v.n; i++)
		if (same_thread(&m->v.v[i], &m->v.v[i + 1]))
			add_interval(m, out, i, i + 1);
	summarise(out);
}

void dp_marks_between(const dp_marks *m, uint32_t a, uint32_t b, dp_interval_sets *out)
{
	size_t open = SIZE_MAX;

	for (size_t i = 0; i < m->v.n; i++) {
		const dp_mark_rec *k = &m->v.v[i];

		if (open != SIZE_MAX && !same_thread(&m->v.v[open], k))
			open = SIZE_MAX;
		if (k->id == b && open != SIZE_MAX) {
			add_interval(m, out, open, i);
			open = SIZE_MAX;
		}
		if (k->id == a)
			open = i;
	}
	summarise(out);
}

void dp_interval_sets_free(dp_interval_sets *s)
{
	for (size_t i = 0; i < s->n; i++)
		dp_vec_free(&s->v[i].v);
	dp_vec_free(s);
}
