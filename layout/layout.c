/* dataprof layout: the samples of a profile on a type's members, its
 * instances' alignment within cache lines, and which threads touched which
 * memory line of them. */
#include "layout.h"
#include "../report/report.h"

#include <stdlib.h>
#include <string.h>

struct collect {
	dp_layout *l;
	uint32_t event;
	uint32_t type_id; /* the type's name in the profile's strings; 0 before the first sample */
	dp_strtab *pstrs; /* the profile's strings */
	dp_hashmap member_of; /* member path id -> member index + 2 (1: none) */
	dp_hashmap own;	      /* profile string id -> ours */
	dp_hashmap line_of;   /* memory line -> index in l->lines */
	dp_hashmap align_of;  /* offset in a line -> index in l->align */
};

static uint32_t own(struct collect *c, uint32_t id)
{
	uint64_t v;

	if (!id)
		return 0;
	if (dp_hashmap_get(&c->own, id, &v))
		return (uint32_t)v;
	v = dp_strtab_intern(&c->l->strs, dp_strtab_get(c->pstrs, id));
	dp_hashmap_put(&c->own, id, v);
	return (uint32_t)v;
}

static void count(dp_lcounts *v, uint32_t id, uint32_t tid, double x)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].id == id && v->v[i].tid == tid) {
			v->v[i].x += x;
			return;
		}
	dp_lcount n = {id, tid, x};
	dp_vec_push(v, n);
}

/* The top-level member a member path goes through: "struct item.b" and
 * "struct item.b.x" and "struct item.b[]" are all b. */
static int member_index(struct collect *c, uint32_t path_id)
{
	const dp_type_layout *t = &c->l->t;
	const char *path = dp_strtab_get(c->pstrs, path_id), *rest;
	size_t tn = strlen(t->name), n;
	uint64_t v;
	int idx = -1;

	if (dp_hashmap_get(&c->member_of, path_id, &v))
		return (int)v - 2;
	if (!strncmp(path, t->name, tn) && path[tn] == '.') {
		rest = path + tn + 1;
		/* a base class part is named by its type, which holds no '.' */
		n = strcspn(rest, ".[");
		for (size_t i = 0; i < t->members.n; i++)
			if (strlen(t->members.v[i].name) == n &&
			    !strncmp(t->members.v[i].name, rest, n))
				idx = (int)i;
	}
	dp_hashmap_put(&c->member_of, path_id, (uint64_t)(idx + 2));
	return idx;
}

/* The member holding byte off, or -1. */
static int member_at(const dp_type_layout *t, uint64_t off)
{
	for (size_t i = 0; i < t->members.n; i++) {
		const dp_layout_member *m = &t->members.v[i];

		if (off >= m->offset && off < m->offset + DP_MAX(m->size, 1))
			return (int)i;
	}
	return -1;
}

static dp_lline *line_of(struct collect *c, uint64_t addr)
{
	uint64_t v;
	dp_lline n;

	if (dp_hashmap_get(&c->line_of, addr, &v))
		return &c->l->lines.v[v];
	memset(&n, 0, sizeof(n));
	n.addr = addr;
	dp_vec_push(&c->l->lines, n);
	dp_hashmap_put(&c->line_of, addr, c->l->lines.n - 1);
	return &c->l->lines.v[c->l->lines.n - 1];
}

static void on_row(void *ctx, dp_attr_ctx *ac, dp_row *row)
{
	struct collect *c = ctx;
	dp_layout *l = c->l;
	const dp_sample *s = row->s;
	const dp_decoded *x = row->x;
	const dp_annotation *a = row->a;
	uint64_t line = l->o->cacheline, v;
	double w = l->o->metric == DP_M_SAMPLES	 ? 1
		   : l->o->metric == DP_M_WEIGHT ? (double)s->weight
						 : (double)(s->period ? s->period : 1);
	bool trusted = (x->verdict == DP_V_EXACT || x->verdict == DP_V_VERIFIED) && x->data_addr;
	const char *op;
	int mi;
	uint64_t off = 0;
	bool have_off = false;

	if (s->event != c->event)
		return;
	if (!c->type_id) {
		c->pstrs = dp_attr_strings(ac);
		c->type_id = dp_strtab_intern(c->pstrs, l->t.name);
	}
	l->kept += w;
	if (a->type != c->type_id)
		return;
	l->samples++;
	l->total += w;
	mi = a->member ? member_index(c, a->member) : -1;
	if (mi >= 0) {
		off = l->t.members.v[mi].offset;
		have_off = true;
	}
	/* the byte itself, when the object is made of instances of the type */
	if (trusted && a->obj_addr && x->data_addr >= a->obj_addr && l->t.size) {
		uint64_t o2 = (x->data_addr - a->obj_addr) % l->t.size;
		int m2 = member_at(&l->t, o2);

		if (mi < 0 || m2 == mi) {
			off = o2;
			have_off = true;
			mi = m2;
		}
	}
	if (mi < 0) {
		l->other += w;
	} else {
		dp_lmember *m = &l->m.v[mi];

		m->x += w;
		m->samples++;
		op = dp_strtab_get(c->pstrs, row->op);
		if (*op) {
			l->have_op = true;
			m->loads += strstr(op, "load") != NULL;
			m->stores += strstr(op, "store") != NULL;
		}
		if (row->level) {
			l->have_level = true;
			count(&m->levels, own(c, row->level), 0, w);
		}
		count(&m->threads, own(c, row->thread), s->tid, w);
		count(&m->functions, own(c, a->function), 0, w);
	}
	if (!trusted)
		return;
	l->have_addr = true;
	if (have_off && x->data_addr >= off) {
		uint64_t start = (x->data_addr - off) % line;

		if (!dp_hashmap_get(&c->align_of, start, &v)) {
			dp_lcount n = {(uint32_t)start, 0, 0};
			dp_vec_push(&l->align, n);
			v = l->align.n - 1;
			dp_hashmap_put(&c->align_of, start, v);
		}
		l->align.v[v].x += w;
	}
	dp_lline *ln = line_of(c, x->data_addr & ~(line - 1));
	ln->x += w;
	ln->object = own(c, a->object);
	if (a->obj_addr && l->t.size && x->data_addr >= a->obj_addr && a->obj_size > l->t.size)
		ln->index = (x->data_addr - a->obj_addr) / l->t.size;
	op = dp_strtab_get(c->pstrs, row->op);
	for (size_t i = 0; i <= ln->acc.n; i++) {
		if (i == ln->acc.n) {
			dp_laccess n = {s->tid, own(c, row->thread), mi, 0, 0, own(c, a->function)};
			dp_vec_push(&ln->acc, n);
		}
		dp_laccess *e = &ln->acc.v[i];
		if (e->tid != s->tid || e->member != mi)
			continue;
		e->loads += strstr(op, "load") != NULL;
		e->stores += strstr(op, "store") != NULL;
		break;
	}
}

static int by_x(const void *a, const void *b)
{
	const dp_lline *x = a, *y = b;

	if (x->x != y->x)
		return x->x > y->x ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The event to read: the one asked for, else the profile's first. */
static int pick_event(const dp_layout_opts *o, dp_layout *l, uint32_t *event, dp_error *err)
{
	dp_profile *p = dp_profile_open(o->input, err);
	const dp_event_info *ev;
	size_t nev;

	if (!p)
		return -1;
	ev = dp_profile_events(p, &nev);
	*event = 0;
	for (size_t i = 0; o->run.event && i < nev; i++)
		if (ev[i].name && !strcmp(ev[i].name, o->run.event))
			*event = (uint32_t)i + 1;
	if (o->run.event && !*event) {
		dp_error_set(err, "%s has no event '%s': choose one of its events with --event",
			     o->input, o->run.event);
		dp_profile_close(p);
		return -1;
	}
	*event = *event ? *event - 1 : 0;
	l->event = dp_strdup(nev && ev[*event].name ? ev[*event].name : "?");
	dp_profile_close(p);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const dp_lcount *x = a, *y = b;

	if (x->x != y->x)
		return x->x > y->x ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int dp_layout_build(const dp_layout_opts *o, dp_layout *l, dp_error *err)
{
	struct collect c;
	dp_report_opts ro;
	dp_report_result res;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	l->o = o;
	dp_strtab_init(&l->strs);
	if (dp_type_layout_find(o->input, o->run.sel.symfs, o->type, &l->t, &l->has_profile, err) <
	    0) {
		dp_strtab_free(&l->strs);
		return -1;
	}
	for (size_t i = 0; i < l->t.members.n; i++) {
		dp_lmember m;

		memset(&m, 0, sizeof(m));
		dp_vec_push(&l->m, m);
	}
	if (!l->has_profile) {
		dp_layout_analyze(l);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.l = l;
	dp_hashmap_init(&c.member_of, 64);
	dp_hashmap_init(&c.own, 256);
	dp_hashmap_init(&c.line_of, 1024);
	dp_hashmap_init(&c.align_of, 64);
	memset(&ro, 0, sizeof(ro));
	ro.input = o->input;
	ro.sel = o->run.sel;
	ro.metric = o->metric;
	dp_report_by_event(&ro);
	ro.on_row = on_row;
	ro.on_row_ctx = &c;
	rc = pick_event(o, l, &c.event, err);
	if (!rc && dp_report_build(&ro, &res, err) == 0)
		dp_report_result_free(&res);
	else
		rc = -1;
	dp_hashmap_free(&c.member_of);
	dp_hashmap_free(&c.own);
	dp_hashmap_free(&c.line_of);
	dp_hashmap_free(&c.align_of);
	if (rc < 0) {
		dp_layout_free(l);
		return -1;
	}
	if (l->lines.n > 1)
		qsort(l->lines.v, l->lines.n, sizeof(dp_lline), by_x);
	if (l->align.n > 1)
		qsort(l->align.v, l->align.n, sizeof(dp_lcount), by_count);
	dp_layout_analyze(l);
	return 0;
}

void dp_layout_free(dp_layout *l)
{
	for (size_t i = 0; i < l->m.n; i++) {
		dp_vec_free(&l->m.v[i].threads);
		dp_vec_free(&l->m.v[i].functions);
		dp_vec_free(&l->m.v[i].levels);
	}
	dp_vec_free(&l->m);
	for (size_t i = 0; i < l->lines.n; i++)
		dp_vec_free(&l->lines.v[i].acc);
	dp_vec_free(&l->lines);
	dp_vec_free(&l->align);
	dp_vec_free(&l->order);
	dp_vec_free_each(&l->advice, free);
	dp_type_layout_free(&l->t);
	dp_strtab_free(&l->strs);
	free(l->event);
	memset(l, 0, sizeof(*l));
}
