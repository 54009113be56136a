#include "context.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

typedef struct reading {
	uint64_t time;
	uint32_t first, n;
	const uint64_t *values; /* in the mapped profile: valid until it is closed */
} reading;

typedef struct interval {
	uint64_t lo, hi;
} interval;

typedef struct interval_vec {
	interval *v;
	size_t n, cap;
} interval_vec;

typedef struct counter {
	uint32_t sensor;
	enum dp_sensor_kind kind;
	char name[160], unit[16];
} counter;

struct dp_report_ctx {
	dp_strtab *strs;
	dp_marks marks;
	dp_hashmap threads; /* pid << 32 | tid -> first mark index << 32 | count */
	dp_hashmap regions; /* mark index (+1; 0: before the first) ^ tid -> string id */
	uint32_t s_none;
	DP_VEC(reading) readings;
	DP_VEC(counter) counters;
	dp_hashmap between; /* pid << 32 | tid -> index in sets */
	DP_VEC(interval_vec *) sets;
	bool between_on;
};

dp_report_ctx *dp_report_ctx_new(dp_strtab *strs)
{
	dp_report_ctx *c = dp_calloc(1, sizeof(*c));

	c->strs = strs;
	dp_hashmap_init(&c->threads, 16);
	dp_hashmap_init(&c->regions, 64);
	dp_hashmap_init(&c->between, 16);
	c->s_none = dp_strtab_intern(strs, "[no marker region]");
	return c;
}

void dp_report_ctx_free(dp_report_ctx *c)
{
	if (!c)
		return;
	dp_marks_free(&c->marks);
	dp_hashmap_free(&c->threads);
	dp_hashmap_free(&c->regions);
	dp_hashmap_free(&c->between);
	dp_vec_free(&c->readings);
	dp_vec_free(&c->counters);
	for (size_t i = 0; i < c->sets.n; i++) {
		dp_vec_free(c->sets.v[i]);
		free(c->sets.v[i]);
	}
	dp_vec_free(&c->sets);
	free(c);
}

void dp_report_ctx_observe(dp_report_ctx *c, const dp_record *r)
{
	if (r->kind == DP_R_MARKER || r->kind == DP_R_MARKER_NAME) {
		dp_marks_add(&c->marks, r);
	} else if (r->kind == DP_R_READING && r->has_time) {
		reading g = {r->time, r->reading.first, r->reading.n, r->reading.values};
		dp_vec_push(&c->readings, g);
	}
}

static int by_time(const void *a, const void *b)
{
	const reading *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

void dp_report_ctx_ready(dp_report_ctx *c)
{
	dp_marks_done(&c->marks);
	/* marks are sorted by pid, tid, time: one range per thread */
	for (size_t i = 0; i < c->marks.v.n;) {
		const dp_mark_rec *m = &c->marks.v.v[i];
		size_t j = i;

		while (j < c->marks.v.n && c->marks.v.v[j].pid == m->pid &&
		       c->marks.v.v[j].tid == m->tid)
			j++;
		dp_hashmap_put(&c->threads, (uint64_t)m->pid << 32 | m->tid,
			       (uint64_t)i << 32 | (j - i));
		i = j;
	}
	if (c->readings.n > 1)
		qsort(c->readings.v, c->readings.n, sizeof(reading), by_time);
}

bool dp_report_ctx_has_marks(const dp_report_ctx *c)
{
	return c->marks.v.n > 0;
}

/* The index of the thread's last mark at or before t, or -1. */
static long last_mark(const dp_report_ctx *c, uint32_t pid, uint32_t tid, uint64_t t, size_t *first,
		      size_t *count)
{
	uint64_t v;
	size_t lo;

	if (!dp_hashmap_get(&c->threads, (uint64_t)pid << 32 | tid, &v))
		return -2;
	*first = v >> 32;
	*count = v & 0xffffffff;
	lo = *first + DP_PARTITION_POINT(*count, i, c->marks.v.v[*first + i].time <= t);
	return (long)lo - 1 >= (long)*first ? (long)lo - 1 : -1;
}

uint32_t dp_report_ctx_region(dp_report_ctx *c, uint32_t pid, uint32_t tid, uint64_t t)
{
	size_t first, count;
	long k = last_mark(c, pid, tid, t, &first, &count);
	uint64_t key, v;
	char a[96], b[96], buf[200];

	if (k < 0)
		return c->s_none;
	key = (uint64_t)k;
	if (dp_hashmap_get(&c->regions, key, &v))
		return (uint32_t)v;
	const dp_mark_rec *m = &c->marks.v.v[k];
	dp_marks_name(&c->marks, m->app, m->id, a, sizeof(a));
	if ((size_t)k + 1 < first + count) {
		const dp_mark_rec *n = &c->marks.v.v[k + 1];
		snprintf(buf, sizeof(buf), "%s..%s",
			 dp_marks_name(&c->marks, m->app, m->id, a, sizeof(a)),
			 dp_marks_name(&c->marks, n->app, n->id, b, sizeof(b)));
	} else {
		snprintf(buf, sizeof(buf), "%s..end",
			 dp_marks_name(&c->marks, m->app, m->id, a, sizeof(a)));
	}
	v = dp_strtab_intern(c->strs, buf);
	dp_hashmap_put(&c->regions, key, v);
	return (uint32_t)v;
}

int dp_report_ctx_between(dp_report_ctx *c, const char *a, const char *b, dp_error *err)
{
	uint32_t ia, ib;
	dp_interval_sets sets = {0};

	if (!c->marks.v.n) {
		dp_error_set(err,
			     "--between: the profile has no code marks (record with --markers)");
		return -1;
	}
	if (!dp_marks_lookup(&c->marks, a, &ia) || !dp_marks_lookup(&c->marks, b, &ib)) {
		dp_error_set(err,
			     "--between: no marker '%s' in the profile ('dataprof markers' lists "
			     "them)",
			     dp_marks_lookup(&c->marks, a, &ia) ? b : a);
		return -1;
	}
	dp_marks_between(&c->marks, ia, ib, &sets);
	for (size_t i = 0; i < sets.n; i++) {
		const dp_interval_set *s = &sets.v[i];
		uint64_t key = (uint64_t)s->pid << 32 | s->tid, v;
		interval_vec *iv;

		if (!dp_hashmap_get(&c->between, key, &v)) {
			iv = dp_calloc(1, sizeof(*iv));
			dp_vec_push(&c->sets, iv);
			v = c->sets.n - 1;
			dp_hashmap_put(&c->between, key, v);
		}
		iv = c->sets.v[v];
		for (size_t k = 0; k < s->v.n; k++) {
			interval x = {c->marks.v.v[s->v.v[k].from].time,
				      c->marks.v.v[s->v.v[k].to].time};
			dp_vec_push(iv, x);
		}
	}
	dp_interval_sets_free(&sets);
	c->between_on = true;
	return 0;
}

bool dp_report_ctx_inside(dp_report_ctx *c, uint32_t pid, uint32_t tid, uint64_t t)
{
	uint64_t v;

	if (!c->between_on)
		return true;
	if (!dp_hashmap_get(&c->between, (uint64_t)pid << 32 | tid, &v))
		return false;
	const interval_vec *iv = c->sets.v[v];
	/* intervals of one thread, in time order, not overlapping */
	size_t lo = DP_PARTITION_POINT(iv->n, i, iv->v[i].lo <= t);

	return lo > 0 && t <= iv->v[lo - 1].hi;
}

int dp_report_ctx_counters(dp_report_ctx *c, const dp_profile *p, const char *globs, dp_error *err)
{
	size_t n;
	const dp_sensor_info *s = dp_profile_sensors(p, &n);
	char *copy = dp_strdup(globs), *save = NULL;
	int rc = 0;

	if (!c->readings.n) {
		dp_error_set(err, "--counters: the profile has no counter readings (record with "
				  "--counters)");
		free(copy);
		return -1;
	}
	for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		size_t before = c->counters.n;

		for (size_t i = 0; i < n; i++) {
			if (!s[i].name || fnmatch(g, s[i].name, 0))
				continue;
			counter k = {s[i].id, s[i].kind, "", ""};
			snprintf(k.name, sizeof(k.name), "%s", s[i].name);
			snprintf(k.unit, sizeof(k.unit), "%s", s[i].unit ? s[i].unit : "");
			dp_vec_push(&c->counters, k);
		}
		if (c->counters.n == before) {
			dp_error_set(err,
				     "--counters: no sensor of the profile matches '%s' "
				     "('dataprof dump' shows the SENSOR records)",
				     g);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

size_t dp_report_ctx_ncounters(const dp_report_ctx *c)
{
	return c->counters.n;
}

const char *dp_report_ctx_counter_name(const dp_report_ctx *c, size_t i)
{
	return c->counters.v[i].name;
}

/* The sensor's value in the last reading at or before t that has it. */
static bool value_at(const dp_report_ctx *c, uint32_t sensor, uint64_t t, uint64_t *v,
		     uint64_t *when)
{
	size_t lo = DP_PARTITION_POINT(c->readings.n, k, c->readings.v[k].time <= t);

	for (size_t i = lo; i-- > 0;) {
		const reading *g = &c->readings.v[i];

		if (sensor < g->first || sensor >= g->first + g->n)
			continue;
		if (g->values[sensor - g->first] == DP_READING_NONE)
			continue;
		*v = g->values[sensor - g->first];
		*when = g->time;
		return true;
	}
	return false;
}

/* The first reading of sensor after t. */
static bool value_after(const dp_report_ctx *c, uint32_t sensor, uint64_t t, uint64_t *v,
			uint64_t *when)
{
	for (size_t i = DP_PARTITION_POINT(c->readings.n, k, c->readings.v[k].time <= t);
	     i < c->readings.n; i++) {
		const reading *g = &c->readings.v[i];

		if (sensor < g->first || sensor >= g->first + g->n ||
		    g->values[sensor - g->first] == DP_READING_NONE)
			continue;
		*v = g->values[sensor - g->first];
		*when = g->time;
		return true;
	}
	return false;
}

bool dp_report_ctx_counter(const dp_report_ctx *c, size_t i, uint64_t t0, uint64_t t1,
			   double *value, char *text, size_t len)
{
	const counter *k = &c->counters.v[i];
	uint64_t v0, v1, w0, w1;

	/* only where the readings cover the bucket */
	if (!c->readings.n || t1 < c->readings.v[0].time ||
	    t0 > c->readings.v[c->readings.n - 1].time)
		return false;
	if (!value_at(c, k->sensor, t1, &v1, &w1))
		return false;
	if (k->kind == DP_SENSOR_GAUGE) {
		*value = (double)v1;
		snprintf(text, len, "%.0f %s", *value, k->unit);
		return true;
	}
	if (!value_at(c, k->sensor, t0, &v0, &w0))
		return false;
	/* no reading within the bucket (the reader was late: a loaded
	 * machine): the rate of the readings' interval that spans it */
	if (w1 <= w0 && !value_after(c, k->sensor, t1, &v1, &w1))
		return false;
	if (w1 <= w0)
		return false;
	*value = (double)(v1 - v0) / ((double)(w1 - w0) / 1e9);
	if (!strcmp(k->unit, "ns"))
		snprintf(text, len, "%.2f CPUs", *value / 1e9);
	else if (!strcmp(k->unit, "bytes"))
		snprintf(text, len, "%.1f MiB/s", *value / (1 << 20));
	else
		snprintf(text, len, "%.0f/s", *value);
	return true;
}

bool dp_report_ctx_readings_span(const dp_report_ctx *c, uint64_t *lo, uint64_t *hi)
{
	if (!c->readings.n)
		return false;
	*lo = c->readings.v[0].time;
	*hi = c->readings.v[c->readings.n - 1].time;
	return true;
}

const dp_marks *dp_report_ctx_marks(const dp_report_ctx *c)
{
	return &c->marks;
}

size_t dp_report_ctx_nreadings(const dp_report_ctx *c)
{
	return c->readings.n;
}

uint64_t dp_report_ctx_reading_time(const dp_report_ctx *c, size_t i)
{
	return c->readings.v[i].time;
}
