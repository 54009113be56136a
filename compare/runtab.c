#include "runtab.h"
#include "../report/marks.h"
#include "../report/report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLES 8

static void add_candidate(dp_rkey *k, uint32_t id, uint64_t n);

const char *dp_rtable_unstable(dp_attr_id a)
{
	switch (a) {
	case DP_A_IP:
	case DP_A_ADDR:
	case DP_A_CACHELINE:
	case DP_A_PAGE:
		return "addresses move with every build and run";
	case DP_A_PID:
	case DP_A_TID:
		return "process and thread IDs change with every run";
	case DP_A_INSN:
		return "instruction offsets change with every build";
	default:
		return NULL;
	}
}

void dp_rtable_init(dp_rtable *t, const dp_agg_level *by)
{
	memset(t, 0, sizeof(*t));
	t->by = *by;
	dp_strtab_init(&t->strs);
	dp_hashmap_init(&t->index, 256);
	for (int i = 0; i < by->nattrs; i++) {
		t->anchor_func |= by->attrs[i].id == DP_A_LINE;
		t->anchor_site |= by->attrs[i].id == DP_A_SITE || by->attrs[i].id == DP_A_OBJECT;
	}
}

void dp_rtable_free(dp_rtable *t)
{
	dp_strtab_free(&t->strs);
	dp_vec_free(&t->keys);
	dp_hashmap_free(&t->index);
}

uint32_t dp_rtable_key(dp_rtable *t, const char *const *vals)
{
	dp_buf text = {0};
	uint32_t id;
	uint64_t v;
	dp_rkey k;

	for (int i = 0; i < t->by.nattrs; i++)
		dp_buf_printf(&text, "%s%s", i ? " | " : "", vals[i]);
	id = dp_strtab_intern(&t->strs, text.p ? text.p : "");
	dp_buf_free(&text);
	if (dp_hashmap_get(&t->index, id, &v))
		return (uint32_t)v;
	memset(&k, 0, sizeof(k));
	k.text = id;
	for (int i = 0; i < t->by.nattrs; i++)
		k.vals[i] = dp_strtab_intern(&t->strs, vals[i]);
	dp_vec_push(&t->keys, k);
	dp_hashmap_put(&t->index, id, t->keys.n - 1);
	return (uint32_t)(t->keys.n - 1);
}

void dp_rtable_anchor_add(dp_rtable *t, uint32_t key, const char *anchor, uint64_t n)
{
	if (anchor && *anchor)
		add_candidate(&t->keys.v[key], dp_strtab_intern(&t->strs, anchor), n);
}

static void add_candidate(dp_rkey *k, uint32_t id, uint64_t n)
{
	int min = 0;

	for (int i = 0; i < 4; i++) {
		if (k->cand[i].id == id && k->cand[i].n) {
			k->cand[i].n += n;
			return;
		}
		if (k->cand[i].n < k->cand[min].n)
			min = i;
	}
	if (k->cand[min].n < n) {
		k->cand[min].id = id;
		k->cand[min].n = n;
	}
}

void dp_rtable_finish(dp_rtable *t)
{
	for (size_t i = 0; i < t->keys.n; i++) {
		dp_rkey *k = &t->keys.v[i];
		uint64_t best = 0;

		for (int c = 0; c < 4; c++)
			if (k->cand[c].n > best) {
				best = k->cand[c].n;
				k->anchor = k->cand[c].id;
			}
	}
}

bool dp_rkey_line(const char *val, size_t *prefix_len, long *line)
{
	const char *colon = strrchr(val, ':'), *p;

	if (!colon || !colon[1] || colon == val)
		return false;
	for (p = colon + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	*prefix_len = (size_t)(colon - val);
	*line = strtol(colon + 1, NULL, 10);
	return true;
}

void dp_run_free(dp_run *r)
{
	free(r->path);
	free(r->program);
	free(r->event);
	free(r->events);
	free(r->hostname);
	dp_vec_free(&r->stats);
	dp_hashmap_free(&r->index);
	memset(r, 0, sizeof(*r));
}

const dp_rstat *dp_run_stat(const dp_run *r, uint32_t key)
{
	uint64_t v;

	return dp_hashmap_get(&r->index, key, &v) ? &r->stats.v[v] : NULL;
}

static dp_rstat *stat_of(dp_run *r, uint32_t key)
{
	uint64_t v;
	dp_rstat s;

	if (!r->index.cap)
		dp_hashmap_init(&r->index, 256);
	if (dp_hashmap_get(&r->index, key, &v))
		return &r->stats.v[v];
	memset(&s, 0, sizeof(s));
	s.key = key;
	dp_vec_push(&r->stats, s);
	dp_hashmap_put(&r->index, key, r->stats.n - 1);
	return &r->stats.v[r->stats.n - 1];
}

void dp_run_add(dp_run *r, uint32_t key, const double x[3], const double q[3])
{
	dp_rstat *s = stat_of(r, key);

	for (int j = 0; j < 3; j++) {
		s->x[j] += x[j];
		s->q[j] += q[j];
		r->total[j] += x[j];
		r->total_q[j] += q[j];
	}
}

/* --between A B: the intervals from a mark A to the next B of each thread,
 * the unit of work of --per interval. */
static int count_intervals(const dp_marks *m, const char *const between[2], dp_run *r,
			   const char *path, dp_error *err)
{
	uint32_t a, b;
	dp_interval_sets sets = {0};

	for (int i = 0; i < 2; i++)
		if (!dp_marks_lookup(m, between[i], i ? &b : &a)) {
			dp_error_set(err, "%s has no code marker '%s'%s", path, between[i],
				     m->v.n ? " ('dataprof markers' lists them)"
					    : ": record with --markers a program that marks");
			return -1;
		}
	dp_marks_between(m, a, b, &sets);
	r->intervals = 0;
	for (size_t i = 0; i < sets.n; i++)
		r->intervals += (double)sets.v[i].v.n;
	dp_interval_sets_free(&sets);
	return 0;
}

/* What a profile says about itself, before its samples are read. */
static int survey(const char *path, const dp_run_opts *o, dp_run *r, uint32_t *event, dp_error *err)
{
	dp_profile *p = dp_profile_open(path, err);
	const dp_event_info *ev;
	size_t nev;
	dp_buf names = {0};
	dp_record rec;
	uint64_t first = 0, last = 0, finish = 0, start;
	double instructions = 0;
	int insn_ev = -1;
	dp_marks marks;
	const char *cmd;

	if (!p)
		return -1;
	memset(&marks, 0, sizeof(marks));
	ev = dp_profile_events(p, &nev);
	*event = 0;
	for (size_t i = 0; i < nev; i++) {
		const char *n = ev[i].name ? ev[i].name : "?";

		dp_buf_printf(&names, "%s%s", i ? "," : "", n);
		if (o->event && !strcmp(o->event, n))
			*event = (uint32_t)i;
		if (ev[i].attr.type == PERF_TYPE_HARDWARE &&
		    (ev[i].attr.config & 0xff) == PERF_COUNT_HW_INSTRUCTIONS)
			insn_ev = (int)i;
	}
	if (!nev || (o->event && strcmp(o->event, ev[*event].name ? ev[*event].name : "?"))) {
		dp_error_set(err, "%s has no event '%s' (its events: %s): choose one with --event",
			     path, o->event ? o->event : "", names.p ? names.p : "none");
		dp_buf_free(&names);
		dp_profile_close(p);
		return -1;
	}
	r->events = names.p ? names.p : dp_strdup("");
	r->event = dp_strdup(ev[*event].name ? ev[*event].name : "?");
	if (ev[*event].attr.freq)
		r->sample_freq = ev[*event].attr.sample_freq;
	else
		r->sample_period = ev[*event].attr.sample_period;
	cmd = dp_profile_meta(p, "hostname");
	r->hostname = dp_strdup(cmd ? cmd : "");
	cmd = dp_profile_meta(p, "command");
	if (cmd && *cmd) {
		size_t n = strcspn(cmd, " \t");
		char *first_word = dp_strndup(cmd, n), *slash = strrchr(first_word, '/');

		r->program = dp_strdup(slash ? slash + 1 : first_word);
		free(first_word);
	} else {
		r->program = dp_strdup("");
	}
	while (dp_profile_next(p, &rec) > 0) {
		if (rec.kind == DP_R_SAMPLE) {
			if (!first || rec.sample->time < first)
				first = rec.sample->time;
			if (rec.sample->time > last)
				last = rec.sample->time;
			if ((int)rec.sample->event == insn_ev)
				instructions += (double)rec.sample->period;
		} else if (rec.kind == DP_R_FINISH) {
			finish = rec.finish->time;
		} else if (rec.kind == DP_R_MARKER || rec.kind == DP_R_MARKER_NAME) {
			dp_marks_add(&marks, &rec);
		}
	}
	dp_marks_done(&marks);
	r->markers = marks.v.n > 0;
	if (o->sel.between[0] && count_intervals(&marks, o->sel.between, r, path, err) < 0) {
		dp_marks_free(&marks);
		dp_profile_close(p);
		return -1;
	}
	dp_marks_free(&marks);
	start = dp_profile_header(p) ? dp_profile_header(p)->start_time_ns : 0;
	if (!start)
		start = first;
	/* a recorder that did not finish (killed, perf.data): up to the last sample */
	r->seconds = (double)((finish > start ? finish : last) - DP_MIN(start, last)) / 1e9;
	r->ginsn = instructions / 1e9;
	dp_profile_close(p);
	return 0;
}

/* A part of the report (report.h: part_new) sums its samples per distinct
 * key in its own strings; the sums go into the shared tables and runs only
 * when the parts are merged, on one thread. */
struct local {
	uint64_t raw[DP_AGG_MAX_ATTRS]; /* the key in the part's strings */
	double x[3], q[3];
	struct {
		uint32_t f, sf;
		uint64_t n;
	} anc[4];
};

struct view {
	dp_rtable *t;
	dp_run *r;
	dp_hashmap cache; /* hash of the raw keys -> local */
	DP_VEC(struct local) loc;
};

struct part {
	struct collect *cl;
	struct view v[MAX_TABLES];
	uint64_t kept;
	bool added; /* to the tables */
};

struct collect {
	dp_rtable *t[MAX_TABLES];
	dp_run *r[MAX_TABLES];
	int n;
	uint32_t event;
	struct part first; /* part 0's */
};

static struct local *local_of(struct view *v, dp_attr_ctx *c, dp_row *row)
{
	uint64_t raw[DP_AGG_MAX_ATTRS] = {0}, h = 0x9e3779b97f4a7c15ull, idx;
	const dp_agg_level *by = &v->t->by;
	struct local l;

	for (int i = 0; i < by->nattrs; i++) {
		raw[i] = dp_attr_key(c, row, &by->attrs[i]);
		h = dp_hash64(h ^ raw[i]);
	}
	for (;; h++) {
		if (!dp_hashmap_get(&v->cache, h, &idx))
			break;
		if (!memcmp(v->loc.v[idx].raw, raw, sizeof(raw)))
			return &v->loc.v[idx];
	}
	memset(&l, 0, sizeof(l));
	memcpy(l.raw, raw, sizeof(raw));
	dp_vec_push(&v->loc, l);
	dp_hashmap_put(&v->cache, h, v->loc.n - 1);
	return &v->loc.v[v->loc.n - 1];
}

static void part_row(void *state, dp_attr_ctx *c, dp_row *row)
{
	struct part *pt = state;
	const dp_sample *s = row->s;
	double w[3];

	if (s->event != pt->cl->event)
		return;
	pt->kept++;
	w[0] = 1;
	w[1] = (double)(s->period ? s->period : 1);
	w[2] = (double)s->weight;
	for (int i = 0; i < pt->cl->n; i++) {
		struct view *v = &pt->v[i];
		struct local *l = local_of(v, c, row);

		for (int j = 0; j < 3; j++) {
			l->x[j] += w[j];
			l->q[j] += w[j] * w[j];
		}
		if (!v->t->anchor_func && !v->t->anchor_site)
			continue;
		uint32_t f = v->t->anchor_func ? row->a->function : 0;
		uint32_t sf = v->t->anchor_site ? row->a->site_func : 0;
		for (int k = 0; k < 4; k++) {
			if (!l->anc[k].n) {
				l->anc[k].f = f, l->anc[k].sf = sf, l->anc[k].n = 1;
				break;
			}
			if (l->anc[k].f == f && l->anc[k].sf == sf) {
				l->anc[k].n++;
				break;
			}
		}
	}
}

static void part_init(struct part *pt, struct collect *cl)
{
	memset(pt, 0, sizeof(*pt));
	pt->cl = cl;
	for (int i = 0; i < cl->n; i++) {
		pt->v[i].t = cl->t[i];
		pt->v[i].r = cl->r[i];
		dp_hashmap_init(&pt->v[i].cache, 256);
	}
}

static void part_fini(struct part *pt)
{
	for (int i = 0; i < pt->cl->n; i++) {
		dp_hashmap_free(&pt->v[i].cache);
		dp_vec_free(&pt->v[i].loc);
	}
}

static void *part_new(void *ctx, unsigned index, const dp_report_result *part)
{
	struct collect *cl = ctx;
	struct part *pt;

	(void)part;
	if (index == 0)
		return &cl->first;
	pt = dp_calloc(1, sizeof(*pt));
	part_init(pt, cl);
	return pt;
}

/* A part's sums, under their keys' texts, into the tables and runs; the
 * anchors' names from the part's strings. */
static void part_add(struct part *pt, dp_attr_ctx *c)
{
	dp_strtab *strs = dp_attr_strings(c);

	for (int i = 0; i < pt->cl->n; i++) {
		struct view *v = &pt->v[i];
		const dp_agg_level *by = &v->t->by;

		for (size_t j = 0; j < v->loc.n; j++) {
			struct local *l = &v->loc.v[j];
			const char *vals[DP_AGG_MAX_ATTRS];
			char bufs[DP_AGG_MAX_ATTRS][64];
			uint32_t key;

			for (int a = 0; a < by->nattrs; a++)
				vals[a] = dp_attr_format(c, &by->attrs[a], l->raw[a], bufs[a],
							 sizeof(bufs[a]));
			key = dp_rtable_key(v->t, vals);
			dp_run_add(v->r, key, l->x, l->q);
			for (int k = 0; k < 4 && l->anc[k].n; k++) {
				char *anchor =
				    dp_asprintf("%s|%s", dp_strtab_get(strs, l->anc[k].f),
						dp_strtab_get(strs, l->anc[k].sf));

				add_candidate(&v->t->keys.v[key],
					      dp_strtab_intern(&v->t->strs, anchor), l->anc[k].n);
				free(anchor);
			}
		}
	}
	pt->added = true;
}

/* Part 0's sums go in first, then each part's in part order. */
static void part_merge(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
		       const dp_report_result *src_part)
{
	struct part *first = dst, *pt = src;

	(void)ctx;
	if (!first->added)
		part_add(first, dst_part->attrs);
	part_add(pt, src_part->attrs);
	first->kept += pt->kept;
}

static void part_free(void *ctx, void *state)
{
	(void)ctx;
	part_fini(state);
	free(state);
}

static const dp_report_parts parts = {part_new, part_row, part_merge, part_free};

int dp_run_read(const char *path, const dp_run_opts *o, dp_rtable **tables, dp_run **runs, int n,
		dp_error *err)
{
	struct collect cl;
	dp_report_opts ro;
	dp_report_result res;
	dp_run head;
	int rc = -1;

	memset(&cl, 0, sizeof(cl));
	memset(&head, 0, sizeof(head));
	if (n < 1 || n > MAX_TABLES) {
		dp_error_set(err, "between 1 and %d attribute lists can be read at once",
			     MAX_TABLES);
		return -1;
	}
	if (survey(path, o, &head, &cl.event, err) < 0) {
		dp_run_free(&head);
		return -1;
	}
	memset(&ro, 0, sizeof(ro));
	ro.input = path;
	ro.sel = o->sel;
	ro.metric = DP_M_PERIOD;
	dp_report_by_event(&ro);
	ro.parts = &parts;
	ro.on_row_ctx = &cl;
	cl.n = n;
	for (int i = 0; i < n; i++) {
		dp_run *r = runs[i];

		memset(r, 0, sizeof(*r));
		r->path = dp_strdup(path);
		r->program = dp_strdup(head.program);
		r->event = dp_strdup(head.event);
		r->events = dp_strdup(head.events);
		r->hostname = dp_strdup(head.hostname);
		r->sample_period = head.sample_period;
		r->sample_freq = head.sample_freq;
		r->seconds = head.seconds;
		r->ginsn = head.ginsn;
		r->markers = head.markers;
		r->intervals = head.intervals;
		cl.t[i] = tables[i];
		cl.r[i] = r;
	}
	part_init(&cl.first, &cl);
	if (dp_report_build(&ro, &res, err) == 0) {
		const dp_read_status *st = dp_profile_status(res.p);

		if (!cl.first.added) /* one part */
			part_add(&cl.first, res.attrs);
		for (int i = 0; i < n; i++) {
			runs[i]->read = res.read;
			runs[i]->kept = cl.first.kept;
			runs[i]->lost = st->lost + st->lost_samples;
		}
		dp_report_result_free(&res);
		rc = 0;
	}
	part_fini(&cl.first);
	for (int i = 0; i < n && rc < 0; i++)
		dp_run_free(runs[i]);
	dp_run_free(&head);
	return rc;
}
