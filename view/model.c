#include "model_int.h"
#include "annot.h"
#include "encode.h"
#include "../report/context.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

dp_view_model *dp_view_model_new(const dp_view_opts *o)
{
	dp_view_model *m = dp_calloc(1, sizeof(*m));

	m->o = *o;
	if (!m->o.max_buckets)
		m->o.max_buckets = 4096;
	if (m->o.max_buckets > (1u << (BUCKET_BITS - 1)))
		m->o.max_buckets = 1u << (BUCKET_BITS - 1);
	if (!m->o.max_cells)
		m->o.max_cells = 1u << 20;
	if (!m->o.max_points)
		m->o.max_points = 4000;
	for (size_t i = 0; i < NATTRS; i++)
		m->attrs[i].id = dp_vm_attrs[i];
	dp_strtab_init(&m->strs);
	dp_hashmap_init(&m->combo_index, 256);
	dp_hashmap_init(&m->lane_index, 16);
	dp_hashmap_init(&m->cell_index, 4096);
	dp_hashmap_init(&m->group_index, 1024);
	m->shift = 10; /* 1 µs to begin with */
	m->first = UINT64_MAX;
	return m;
}

void dp_view_model_free(dp_view_model *m)
{
	if (!m)
		return;
	dp_strtab_free(&m->strs);
	dp_vec_free(&m->combo_strs);
	dp_vec_free(&m->combo_keys);
	dp_vec_free(&m->combo_seq);
	dp_hashmap_free(&m->combo_index);
	dp_vec_free(&m->lanes);
	dp_hashmap_free(&m->lane_index);
	dp_vec_free(&m->cells);
	dp_hashmap_free(&m->cell_index);
	dp_vec_free(&m->groups);
	dp_hashmap_free(&m->group_index);
	dp_series_free(&m->ss);
	free(m);
}

void dp_view_model_set_annot(dp_view_model *m, dp_view_annot *a)
{
	m->annot = a;
}

uint64_t dp_view_model_samples(const dp_view_model *m)
{
	return m->samples;
}

uint64_t dp_view_model_bucket_ns(const dp_view_model *m)
{
	return 1ull << m->shift;
}

size_t dp_view_model_cells(const dp_view_model *m)
{
	return m->cells.n;
}

static uint32_t combo_of(dp_view_model *m, dp_attr_ctx *attrs, dp_row *row)
{
	uint64_t keys[NATTRS], h, v;
	char buf[128];

	for (size_t i = 0; i < NATTRS; i++)
		keys[i] = dp_attr_key(attrs, row, &m->attrs[i]);
	h = dp_hash_bytes(keys, sizeof(keys), 0x76696577);
	/* a 64-bit hash that collides probes the next one */
	while (dp_hashmap_get(&m->combo_index, h, &v)) {
		if (!memcmp(&m->combo_keys.v[v * NATTRS], keys, sizeof(keys)))
			return (uint32_t)v;
		h++;
	}
	v = m->combo_strs.n / NATTRS;
	if (v >= (1u << COMBO_BITS) - 1)
		return (1u << COMBO_BITS) - 2; /* beyond reason: folded into the last one */
	for (size_t i = 0; i < NATTRS; i++) {
		const char *s = dp_attr_format(attrs, &m->attrs[i], keys[i], buf, sizeof(buf));
		uint32_t id = dp_strtab_intern(&m->strs, s);

		dp_vec_push(&m->combo_strs, id);
		dp_vec_push(&m->combo_keys, keys[i]);
	}
	dp_vec_push(&m->combo_seq, row->seq);
	dp_hashmap_put(&m->combo_index, h, v);
	return (uint32_t)v;
}

uint32_t dp_vm_lane_of(dp_view_model *m, bool cpu, uint32_t pid, uint32_t tid, uint32_t cpu_no,
		       const char *name, uint64_t seq)
{
	uint64_t key = cpu ? 1ull << 63 | cpu_no : (uint64_t)pid << 32 | tid, v;
	char buf[64];

	if (dp_hashmap_get(&m->lane_index, key, &v))
		return (uint32_t)v;
	if (m->lanes.n >= (1u << LANE_BITS) - 1)
		return (1u << LANE_BITS) - 2;
	if (cpu) {
		snprintf(buf, sizeof(buf), "CPU %u", cpu_no);
		name = buf;
	}
	lane l = {cpu, pid, tid, cpu_no, dp_strtab_intern(&m->strs, name ? name : "?"), seq};
	dp_vec_push(&m->lanes, l);
	v = m->lanes.n - 1;
	dp_hashmap_put(&m->lane_index, key, v);
	return (uint32_t)v;
}

static inline uint64_t cell_key(uint32_t lane_no, uint32_t bucket, uint32_t combo)
{
	return (uint64_t)lane_no << (BUCKET_BITS + COMBO_BITS) | (uint64_t)bucket << COMBO_BITS |
	       combo;
}

void dp_vm_cell_add(dp_view_model *m, uint32_t lane_no, uint32_t bucket, uint32_t combo,
		    uint64_t count, uint64_t period)
{
	uint64_t key = cell_key(lane_no, bucket, combo), v;

	if (dp_hashmap_get(&m->cell_index, key, &v)) {
		m->cells.v[v].count += count;
		m->cells.v[v].period += period;
		return;
	}
	cell c = {lane_no, bucket, combo, count, period};
	dp_vec_push(&m->cells, c);
	dp_hashmap_put(&m->cell_index, key, m->cells.n - 1);
}

void dp_vm_group_add(dp_view_model *m, uint32_t lane_no, uint32_t bucket, uint64_t count,
		     uint64_t toff)
{
	uint64_t key = (uint64_t)lane_no << 32 | bucket, v;

	if (dp_hashmap_get(&m->group_index, key, &v)) {
		m->groups.v[v].count += count;
		m->groups.v[v].toff += toff;
		return;
	}
	group g = {lane_no, bucket, count, toff};
	dp_vec_push(&m->groups, g);
	dp_hashmap_put(&m->group_index, key, m->groups.n - 1);
}

void dp_vm_rebuild(dp_view_model *m, const uint32_t *lmap, const uint32_t *cmap, unsigned by)
{
	DP_VEC(cell) cells = {0};
	DP_VEC(group) groups = {0};
	uint64_t old_w = 1ull << m->shift, low = (1ull << by) - 1;

	cells.v = m->cells.v, cells.n = m->cells.n, cells.cap = m->cells.cap;
	groups.v = m->groups.v, groups.n = m->groups.n, groups.cap = m->groups.cap;
	memset(&m->cells, 0, sizeof(m->cells));
	memset(&m->groups, 0, sizeof(m->groups));
	dp_hashmap_free(&m->cell_index);
	dp_hashmap_free(&m->group_index);
	dp_hashmap_init(&m->cell_index, cells.n + 16);
	dp_hashmap_init(&m->group_index, groups.n + 16);
	m->shift += by;
	for (size_t i = 0; i < cells.n; i++) {
		const cell *c = &cells.v[i];

		dp_vm_cell_add(m, lmap ? lmap[c->lane] : c->lane, c->bucket >> by,
			       cmap ? cmap[c->combo] : c->combo, c->count, c->period);
	}
	/* a group's times count from its bucket's start: the wider bucket's
	 * starts earlier */
	for (size_t i = 0; i < groups.n; i++) {
		const group *g = &groups.v[i];

		dp_vm_group_add(m, lmap ? lmap[g->lane] : g->lane, g->bucket >> by, g->count,
				g->toff + (g->bucket & low) * old_w * g->count);
	}
	dp_vec_free(&cells);
	dp_vec_free(&groups);
}

void dp_vm_widen(dp_view_model *m)
{
	dp_vm_rebuild(m, NULL, NULL, 1);
}

void dp_view_model_row(void *ctx, dp_attr_ctx *attrs, dp_row *row)
{
	dp_view_model *m = ctx;
	const dp_sample *s = row->s;
	uint64_t t = row->time_rel, period = s->period ? s->period : 1;
	uint32_t combo, bucket, tl;
	uint64_t v;
	char buf[64];
	dp_attr thread = {DP_A_THREAD, 0};

	while ((t >> m->shift) >= m->o.max_buckets)
		dp_vm_widen(m);
	bucket = (uint32_t)(t >> m->shift);
	combo = combo_of(m, attrs, row);
	/* the thread's name is looked up only for a thread not seen before */
	if (!dp_hashmap_get(&m->lane_index, (uint64_t)s->pid << 32 | s->tid, &v))
		v = dp_vm_lane_of(m, false, s->pid, s->tid, 0,
				  dp_attr_format(attrs, &thread, dp_attr_key(attrs, row, &thread),
						 buf, sizeof(buf)),
				  row->seq);
	tl = (uint32_t)v;
	dp_vm_cell_add(m, tl, bucket, combo, 1, period);
	dp_vm_group_add(m, tl, bucket, 1, t - ((uint64_t)bucket << m->shift));
	if (m->o.cpu_lanes)
		dp_vm_cell_add(m, dp_vm_lane_of(m, true, 0, 0, s->cpu, NULL, row->seq), bucket,
			       combo, 1, period);
	m->samples++;
	if (t < m->first)
		m->first = t;
	if (t > m->last)
		m->last = t;
}

int dp_view_model_finish(dp_view_model *m, dp_report_result *res, dp_error *err)
{
	const dp_marks *mk = dp_report_ctx_marks(dp_row_ctx_marks(res->rows));

	m->res = res;
	dp_view_model_order(m);
	while (m->cells.n > m->o.max_cells && m->shift < 62)
		dp_vm_widen(m);
	/* threads that marked but had no sample kept still get a lane */
	for (size_t i = 0; i < mk->v.n; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "tid %u", mk->v.v[i].tid);
		dp_vm_lane_of(m, false, mk->v.v[i].pid, mk->v.v[i].tid, 0, buf, UINT64_MAX);
	}
	return dp_series_build(res, m->o.counters, DP_SERIES_DEFAULT, m->o.max_points, &m->ss, err);
}

/* The cells' and groups' order: by lane, then bucket (what put_step's
 * steps rely on). */
static int cmp_lane_bucket(uint32_t lane_a, uint32_t bucket_a, uint32_t lane_b, uint32_t bucket_b)
{
	int c = dp_cmp_u64(lane_a, lane_b);

	return c ? c : dp_cmp_u64(bucket_a, bucket_b);
}

static int cmp_cell(const void *a, const void *b)
{
	const cell *x = a, *y = b;
	int c = cmp_lane_bucket(x->lane, x->bucket, y->lane, y->bucket);

	return c ? c : dp_cmp_u64(x->combo, y->combo);
}

static int cmp_group(const void *a, const void *b)
{
	const group *x = a, *y = b;

	return cmp_lane_bucket(x->lane, x->bucket, y->lane, y->bucket);
}

static void json_num(FILE *f, double v)
{
	if (v != v)
		fputs("null", f);
	else if (v == (double)(int64_t)v && v < 9e15 && v > -9e15)
		fprintf(f, "%" PRId64, (int64_t)v);
	else
		fprintf(f, "%.6g", v);
}

/* ns since the profile's start, signed: marks of a perf.data file may come
 * before its first sample */
static double rel(uint64_t t, uint64_t start)
{
	return t >= start ? (double)(t - start) : -(double)(start - t);
}

static void write_profile(dp_view_model *m, FILE *f)
{
	const dp_report_result *r = m->res;
	const dp_read_status *st = dp_profile_status(r->p);
	const char *fmt = st->format == DP_FMT_DPROF ? "dprof" : "perf.data";

	dp_json_key_str(f, "\"profile\":{\"path\":", r->o->input);
	dp_json_key_str(f, ",\"cmdline\":", dp_profile_meta(r->p, "cmdline"));
	dp_json_key_str(f, ",\"hostname\":", dp_profile_meta(r->p, "hostname"));
	fprintf(f,
		",\"format\":\"%s\",\"samples_read\":%" PRIu64 ",\"samples\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"truncated\":%s,\"lost_by\":",
		fmt, r->read, m->samples, st->lost + st->lost_samples,
		st->truncated_at ? "true" : "false");
	dp_report_lost_json(r, f);
	fputs("},\n", f);
	fputs("\"events\":[", f);
	for (size_t i = 0; i < r->nev; i++) {
		const char *n = r->ev[i].name ? r->ev[i].name : "?";
		bool tb = !strcmp(n, "cpu-clock") || !strcmp(n, "task-clock") ||
			  !strncmp(n, "cpu-clock:", 10) || !strncmp(n, "task-clock:", 11);

		fprintf(f, "%s{\"name\":", i ? "," : "");
		dp_json_str(f, n);
		fprintf(f, ",\"unit\":\"%s\"}", tb ? "ns" : "events");
	}
	fputs("],\n", f);
}

static void write_time(dp_view_model *m, FILE *f, uint64_t start)
{
	const dp_marks *mk = dp_report_ctx_marks(dp_row_ctx_marks(m->res->rows));
	uint64_t nb = m->samples ? (m->last >> m->shift) + 1 : 0;

	fprintf(f, "\"time\":{\"bucket_ns\":%" PRIu64 ",\"nbuckets\":%" PRIu64,
		(uint64_t)1 << m->shift, nb);
	/* each kind's first and last event: the page's time index finds the
	 * overlap from them, as report/timeline.h does */
	if (m->samples)
		fprintf(f, ",\"samples\":[%" PRIu64 ",%" PRIu64 "]", m->first, m->last);
	if (m->ss.readings) {
		fputs(",\"readings\":[", f);
		json_num(f, rel(m->ss.lo, start));
		fputc(',', f);
		json_num(f, rel(m->ss.hi, start));
		fputc(']', f);
	}
	if (mk->v.n) {
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t i = 0; i < mk->v.n; i++) {
			lo = DP_MIN(lo, mk->v.v[i].time);
			hi = DP_MAX(hi, mk->v.v[i].time);
		}
		fputs(",\"marks\":[", f);
		json_num(f, rel(lo, start));
		fputc(',', f);
		json_num(f, rel(hi, start));
		fputc(']', f);
	}
	fputs("},\n", f);
}

/* Where a column of cells or groups is: the last record's lane and bucket
 * (the lane UINT32_MAX before the first). */
typedef struct lane_step {
	uint32_t lane, bucket;
} lane_step;

/* A record's bucket as its step from the lane's previous record (the column
 * is sorted by lane, then bucket; a lane's first steps from 0): the small
 * numbers js/model.js's laneRecords adds up. */
static void put_step(dp_buf *b, lane_step *at, uint32_t lane_no, uint32_t bucket)
{
	dp_varint_put(b, bucket - (at->lane == lane_no ? at->bucket : 0));
	*at = (lane_step){lane_no, bucket};
}

static void write_cells(dp_view_model *m, FILE *f)
{
	dp_buf b = {0};
	lane_step at = {UINT32_MAX, 0};
	size_t *first = dp_calloc(m->lanes.n + 1, sizeof(size_t));
	size_t *gfirst = dp_calloc(m->lanes.n + 1, sizeof(size_t));

	if (m->cells.n)
		qsort(m->cells.v, m->cells.n, sizeof(cell), cmp_cell);
	if (m->groups.n)
		qsort(m->groups.v, m->groups.n, sizeof(group), cmp_group);
	/* the hash indexes now point at the wrong places: the model is done */
	for (size_t i = 0; i < m->cells.n; i++)
		first[m->cells.v[i].lane + 1]++;
	for (size_t i = 0; i < m->groups.n; i++)
		gfirst[m->groups.v[i].lane + 1]++;
	for (size_t l = 0; l < m->lanes.n; l++) {
		first[l + 1] += first[l];
		gfirst[l + 1] += gfirst[l];
	}
	fputs("\"lanes\":[", f);
	for (size_t l = 0; l < m->lanes.n; l++) {
		const lane *x = &m->lanes.v[l];

		fprintf(f, "%s\n{\"kind\":\"%s\",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"name\":%u",
			l ? "," : "", x->cpu ? "cpu" : "thread", x->pid, x->tid, x->cpu_no,
			x->name);
		fprintf(f, ",\"cells\":[%zu,%zu],\"groups\":[%zu,%zu]}", first[l], first[l + 1],
			gfirst[l], gfirst[l + 1]);
	}
	fputs("],\n", f);
	/* per cell: the bucket's step from the lane's previous cell, the
	 * combination, the count, the period */
	for (size_t i = 0; i < m->cells.n; i++) {
		const cell *c = &m->cells.v[i];

		put_step(&b, &at, c->lane, c->bucket);
		dp_varint_put(&b, c->combo);
		dp_varint_put(&b, c->count);
		dp_varint_put(&b, c->period);
	}
	dp_varint_column_json(f, "cells", m->cells.n, &b);
	fputs(",\n", f);
	/* per group: the bucket's step, the count, the mean time past the
	 * bucket's start */
	b.len = 0;
	at = (lane_step){UINT32_MAX, 0};
	for (size_t i = 0; i < m->groups.n; i++) {
		const group *g = &m->groups.v[i];

		put_step(&b, &at, g->lane, g->bucket);
		dp_varint_put(&b, g->count);
		dp_varint_put(&b, (g->toff + g->count / 2) / g->count);
	}
	dp_varint_column_json(f, "groups", m->groups.n, &b);
	fputs(",\n", f);
	dp_buf_free(&b);
	free(first);
	free(gfirst);
}

static void write_combos(dp_view_model *m, FILE *f)
{
	size_t n = m->combo_strs.n / NATTRS;

	fputs("\"attrs\":[", f);
	for (size_t i = 0; i < NATTRS; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", dp_attr_name(dp_vm_attrs[i]));
	fprintf(f, "],\n\"ncombos\":%zu,\"combos\":[", n);
	/* one column per attribute */
	for (size_t a = 0; a < NATTRS; a++) {
		fprintf(f, "%s[", a ? ",\n" : "");
		for (size_t c = 0; c < n; c++)
			fprintf(f, "%s%u", c ? "," : "", m->combo_strs.v[c * NATTRS + a]);
		fputc(']', f);
	}
	fputs("],\n", f);
}

static void write_counters(dp_view_model *m, FILE *f, uint64_t start)
{
	const dp_series_set *ss = &m->ss;

	fputs("\"counters\":", f);
	if (!ss->readings) {
		fputs("null,\n", f);
		return;
	}
	fputs("{\"times\":[", f);
	for (size_t i = 0; i < ss->n; i++) {
		if (i)
			fputc(',', f);
		json_num(f, rel(ss->times[i], start));
	}
	fputs("],\"series\":[", f);
	for (size_t k = 0; k < ss->ns; k++) {
		const dp_series *s = &ss->s[k];

		fprintf(f, "%s\n{\"name\":", k ? "," : "");
		dp_json_str(f, s->name);
		dp_json_key_str(f, ",\"unit\":", s->unit);
		fprintf(f, ",\"kind\":\"%s\",\"values\":[", s->gauge ? "gauge" : "counter");
		for (size_t i = 0; i < ss->n; i++) {
			if (i)
				fputc(',', f);
			json_num(f, s->v[i]);
		}
		fputs("]}", f);
	}
	fputs("]},\n", f);
}

static void write_marks(dp_view_model *m, FILE *f, uint64_t start)
{
	const dp_marks *mk = dp_report_ctx_marks(dp_row_ctx_marks(m->res->rows));

	/* [time, lane, name, overhead ns] */
	fputs("\"marks\":[", f);
	for (size_t i = 0; i < mk->v.n; i++) {
		const dp_mark_rec *r = &mk->v.v[i];
		char buf[96];
		uint64_t l = 0;

		dp_hashmap_get(&m->lane_index, (uint64_t)r->pid << 32 | r->tid, &l);
		fprintf(f, "%s[", i ? (i % 8 ? "," : ",\n") : "");
		json_num(f, rel(r->time, start));
		fprintf(
		    f, ",%" PRIu64 ",%u,%" PRIu64 "]", l,
		    dp_strtab_intern(&m->strs, dp_marks_name(mk, r->app, r->id, buf, sizeof(buf))),
		    r->end > r->time ? r->end - r->time : 0);
	}
	fputs("],\n", f);
}

void dp_view_model_json(dp_view_model *m, FILE *f)
{
	uint64_t start = dp_row_ctx_start(m->res->rows);

	fputs("{\"format\":\"dataprof-view/1\",\n", f);
	write_profile(m, f);
	write_time(m, f, start);
	write_combos(m, f);
	write_cells(m, f);
	write_counters(m, f, start);
	write_marks(m, f, start);
	if (m->annot)
		dp_view_annot_json(m->annot, 1ull << m->shift, &m->strs, f);
	else
		fputs("\"annotate\":null,\n", f);
	/* last: the marks above add their names */
	fputs("\"strings\":[", f);
	for (size_t i = 0; i < dp_strtab_count(&m->strs); i++) {
		fputs(i ? (i % 16 ? "," : ",\n") : "", f);
		dp_json_str(f, dp_strtab_get(&m->strs, (uint32_t)i));
	}
	fputs("]}", f);
}
