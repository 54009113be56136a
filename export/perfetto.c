/* Chrome's trace event format (JSON object form), which ui.perfetto.dev and
 * chrome://tracing open. Times are µs since the profile's start, with ns
 * kept as decimals. */
#include "export.h"
#include "json.h"
#include "../report/context.h"
#include "../report/spool.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hashmap.h"

/* A thread's name: the one of its first sample (in file order). */
typedef struct tname {
	uint64_t key, seq; /* pid << 32 | tid; the sample's place (dp_row.seq) */
	char *name;
} tname;

/* What the samples of one part of the report say: their events (spooled,
 * report/spool.h) and their threads. */
typedef struct dp_perfetto_part {
	dp_perfetto *p;
	dp_spool *spool;
	dp_hashmap threads; /* pid << 32 | tid -> last sample time (ns since start) + 1 */
	dp_hashmap names;   /* pid << 32 | tid -> index in name_v */
	DP_VEC(tname) name_v;
	uint64_t first_seq; /* the first sample's: its pid is the counters' */
	uint32_t first_pid;
	bool failed;
	dp_buf text;
} dp_perfetto_part;

struct dp_perfetto {
	FILE *f;
	char *path;
	dp_report_result *res;
	dp_perfetto_part *all;	   /* part 0's, the others merged into it */
	DP_VEC(dp_spool *) events; /* each part's events */
	bool any;
};

/* ns since the start as µs */
static void ts(dp_buf *b, int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;

	dp_buf_printf(b, "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

static void sep(dp_perfetto *p)
{
	fputs(p->any ? ",\n" : "\n", p->f);
	p->any = true;
}

/* One event to the output (dp_spool_merge's callback too). */
static void put_event(void *ctx, const void *data, uint32_t len)
{
	dp_perfetto *p = ctx;

	sep(p);
	fwrite(data, 1, len, p->f);
}

/* Writes b to the output as one event and empties it. */
static void put(dp_perfetto *p, dp_buf *b)
{
	put_event(p, b->p, (uint32_t)b->len);
	b->len = 0;
}

dp_perfetto *dp_perfetto_open(const char *path, dp_report_result *res, dp_error *err)
{
	dp_perfetto *p = dp_calloc(1, sizeof(*p));

	p->f = fopen(path, "w");
	if (!p->f) {
		dp_error_set(err, "cannot write '%s': %m (choose another file)", path);
		free(p);
		return NULL;
	}
	p->path = dp_strdup(path);
	p->res = res;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", p->f);
	return p;
}

static const dp_attr_id arg_attrs[] = {DP_A_EVENT, DP_A_OBJECT, DP_A_MEMBER, DP_A_LINE,
				       DP_A_SITE,  DP_A_LEVEL,	DP_A_VERDICT};

void *dp_perfetto_part_new(dp_perfetto *p, unsigned index)
{
	dp_perfetto_part *w = dp_calloc(1, sizeof(*w));

	w->p = p;
	w->spool = dp_spool_new();
	w->failed = !w->spool;
	w->first_seq = UINT64_MAX;
	dp_hashmap_init(&w->threads, 16);
	dp_hashmap_init(&w->names, 16);
	if (index == 0)
		p->all = w;
	return w;
}

static void part_free(dp_perfetto_part *w)
{
	if (!w)
		return;
	dp_spool_free(w->spool);
	dp_hashmap_free(&w->threads);
	dp_hashmap_free(&w->names);
	for (size_t i = 0; i < w->name_v.n; i++)
		free(w->name_v.v[i].name);
	dp_vec_free(&w->name_v);
	dp_buf_free(&w->text);
	free(w);
}

void dp_perfetto_part_free(void *state)
{
	dp_perfetto_part *w = state;

	if (w && w->p->all != w)
		part_free(w);
}

/* A thread's name, where no earlier sample gave one. */
static void name_thread(dp_perfetto_part *w, uint64_t key, uint64_t seq, const char *name)
{
	uint64_t v;

	if (dp_hashmap_get(&w->names, key, &v)) {
		tname *t = &w->name_v.v[v];

		if (t->seq > seq) {
			free(t->name);
			t->name = dp_strdup(name);
			t->seq = seq;
		}
		return;
	}
	tname t = {key, seq, dp_strdup(name)};
	dp_vec_push(&w->name_v, t);
	dp_hashmap_put(&w->names, key, w->name_v.n - 1);
}

static void last_time(dp_perfetto_part *w, uint64_t key, uint64_t t1)
{
	uint64_t v;

	if (!dp_hashmap_get(&w->threads, key, &v) || v < t1)
		dp_hashmap_put(&w->threads, key, t1);
}

void dp_perfetto_part_row(void *state, dp_attr_ctx *attrs, dp_row *row)
{
	dp_perfetto_part *w = state;
	const dp_sample *s = row->s;
	uint64_t key = (uint64_t)s->pid << 32 | s->tid, v;
	dp_attr fn = {DP_A_FUNCTION, 0}, th = {DP_A_THREAD, 0};
	dp_buf *b = &w->text;
	char buf[128];

	if (row->seq < w->first_seq) {
		w->first_seq = row->seq;
		w->first_pid = s->pid;
	}
	last_time(w, key, row->time_rel + 1);
	if (!dp_hashmap_get(&w->names, key, &v))
		name_thread(
		    w, key, row->seq,
		    dp_attr_format(attrs, &th, dp_attr_key(attrs, row, &th), buf, sizeof(buf)));
	b->len = 0;
	dp_buf_puts(b, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\",\"name\":");
	dp_json_buf(b, dp_attr_format(attrs, &fn, dp_attr_key(attrs, row, &fn), buf, sizeof(buf)));
	dp_buf_printf(b, ",\"pid\":%u,\"tid\":%u,\"ts\":", s->pid, s->tid);
	ts(b, (int64_t)row->time_rel);
	dp_buf_puts(b, ",\"args\":{");
	for (size_t i = 0; i < DP_ARRAY_LEN(arg_attrs); i++) {
		dp_attr a = {arg_attrs[i], 0};

		dp_buf_printf(b, "%s\"%s\":", i ? "," : "", dp_attr_name(a.id));
		dp_json_buf(
		    b, dp_attr_format(attrs, &a, dp_attr_key(attrs, row, &a), buf, sizeof(buf)));
	}
	dp_buf_printf(b, ",\"period\":%" PRIu64 "}}", s->period);
	if (w->spool)
		dp_spool_add(w->spool, row->seq, b->p, (uint32_t)b->len);
}

void dp_perfetto_part_merge(void *dst, void *src)
{
	dp_perfetto_part *a = dst, *b = src;
	size_t pos = 0;
	uint64_t key, val;

	if (b->first_seq < a->first_seq) {
		a->first_seq = b->first_seq;
		a->first_pid = b->first_pid;
	}
	while (dp_hashmap_next(&b->threads, &pos, &key, &val))
		last_time(a, key, val);
	for (size_t i = 0; i < b->name_v.n; i++)
		name_thread(a, b->name_v.v[i].key, b->name_v.v[i].seq, b->name_v.v[i].name);
	a->failed |= b->failed;
	/* its events are read back at the end */
	if (b->spool)
		dp_vec_push(&a->p->events, b->spool);
	b->spool = NULL;
}

static int64_t rel(uint64_t t, uint64_t start)
{
	return t >= start ? (int64_t)(t - start) : -(int64_t)(start - t);
}

/* Marker regions: from each mark of a thread to its next, "A..B", as B and
 * E events; after the thread's last mark, "A..end" up to its last sample. */
static void regions(dp_perfetto *p, dp_perfetto_part *w, uint64_t start)
{
	const dp_marks *mk = dp_report_ctx_marks(dp_row_ctx_marks(p->res->rows));
	char a[96], b[96], name[200];
	dp_buf e = {0};

	for (size_t i = 0; i < mk->v.n; i++) {
		const dp_mark_rec *m = &mk->v.v[i], *n = i + 1 < mk->v.n ? &mk->v.v[i + 1] : NULL;
		uint64_t last = 0, key = (uint64_t)m->pid << 32 | m->tid;
		int64_t t0 = rel(m->time, start), t1;

		if (w->first_seq == UINT64_MAX && !i)
			w->first_pid = m->pid; /* no sample: the counters go on the first mark's */
		dp_marks_name(mk, m->app, m->id, a, sizeof(a));
		if (n && n->pid == m->pid && n->tid == m->tid) {
			snprintf(name, sizeof(name), "%s..%s", a,
				 dp_marks_name(mk, n->app, n->id, b, sizeof(b)));
			t1 = rel(n->time, start);
		} else {
			if (!dp_hashmap_get(&w->threads, key, &last) || (int64_t)last - 1 <= t0)
				continue;
			snprintf(name, sizeof(name), "%s..end", a);
			t1 = (int64_t)last - 1;
		}
		dp_buf_puts(&e, "{\"ph\":\"B\",\"cat\":\"marker\",\"name\":");
		dp_json_buf(&e, name);
		dp_buf_printf(&e, ",\"pid\":%u,\"tid\":%u,\"ts\":", m->pid, m->tid);
		ts(&e, t0);
		dp_buf_puts(&e, ",\"args\":{\"mark\":");
		dp_json_buf(&e, a);
		dp_buf_printf(&e, ",\"overhead_ns\":%" PRIu64 "}}",
			      m->end > m->time ? m->end - m->time : 0);
		put(p, &e);
		dp_buf_printf(&e, "{\"ph\":\"E\",\"cat\":\"marker\",\"pid\":%u,\"tid\":%u,\"ts\":",
			      m->pid, m->tid);
		ts(&e, t1);
		dp_buf_puts(&e, "}");
		put(p, &e);
		name_thread(w, key, UINT64_MAX, ""); /* a marking thread without samples */
	}
	dp_buf_free(&e);
}

static int by_key(const void *x, const void *y)
{
	const tname *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

/* Thread (and process) names, by pid and tid. */
static void names(dp_perfetto *p, dp_perfetto_part *w)
{
	dp_buf e = {0};

	if (w->name_v.n)
		qsort(w->name_v.v, w->name_v.n, sizeof(tname), by_key);
	for (size_t i = 0; i < w->name_v.n; i++) {
		uint32_t pid = (uint32_t)(w->name_v.v[i].key >> 32),
			 tid = (uint32_t)w->name_v.v[i].key;
		const char *name = w->name_v.v[i].name;
		char buf[32];

		if (!*name) {
			snprintf(buf, sizeof(buf), "tid %u", tid);
			name = buf;
		}
		for (int proc = 0; proc <= (pid == tid); proc++) {
			dp_buf_printf(&e,
				      "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
				      "\"args\":{\"name\":",
				      proc ? "process_name" : "thread_name", pid, tid);
			dp_json_buf(&e, name);
			dp_buf_puts(&e, "}}");
			put(p, &e);
		}
	}
	dp_buf_free(&e);
}

/* One counter track per series, on the first process seen. */
static void counters(dp_perfetto *p, uint32_t pid, const dp_series_set *ss, uint64_t start)
{
	dp_buf e = {0};

	for (size_t k = 0; k < ss->ns; k++) {
		const dp_series *s = &ss->s[k];
		char name[200];

		snprintf(name, sizeof(name), "%s (%s%s)", s->name, s->unit, s->gauge ? "" : "/s");
		for (size_t i = 0; i < ss->n; i++) {
			if (isnan(s->v[i]))
				continue;
			dp_buf_puts(&e, "{\"ph\":\"C\",\"cat\":\"counter\",\"name\":");
			dp_json_buf(&e, name);
			dp_buf_printf(&e, ",\"pid\":%u,\"ts\":", pid);
			ts(&e, rel(ss->times[i], start));
			dp_buf_printf(&e, ",\"args\":{\"value\":%.6g}}", s->v[i]);
			put(p, &e);
		}
	}
	dp_buf_free(&e);
}

static void dp_perfetto_free(dp_perfetto *p)
{
	dp_vec_free_each(&p->events, dp_spool_free);
	part_free(p->all);
	free(p->path);
	free(p);
}

int dp_perfetto_finish(dp_perfetto *p, const dp_series_set *ss, dp_error *err)
{
	uint64_t start = dp_row_ctx_start(p->res->rows);
	const char *cmd = dp_profile_meta(p->res->p, "cmdline");
	dp_perfetto_part *w = p->all;
	int rc = 0;

	if (!w) /* no part was made: no sample was read */
		w = p->all = dp_perfetto_part_new(p, 0);
	if (w->spool) {
		dp_vec_push(&p->events, w->spool);
		w->spool = NULL;
	}
	if (w->failed || dp_spool_merge(p->events.v, p->events.n, put_event, p) < 0) {
		dp_error_set(err, "a temporary file of the samples' events failed: %m "
				  "(is the disk where TMPDIR points full?)");
		dp_perfetto_abort(p);
		return -1;
	}
	regions(p, w, start);
	names(p, w);
	if (ss)
		counters(p, w->first_pid, ss, start);
	fputs("\n],\"otherData\":{\"producer\":\"dataprof\",\"profile\":", p->f);
	dp_json_str(p->f, p->res->o->input);
	fputs(",\"cmdline\":", p->f);
	dp_json_str(p->f, cmd ? cmd : "");
	fprintf(p->f, ",\"start_ns\":%" PRIu64 "}}\n", start);
	if (ferror(p->f) || fclose(p->f) != 0) {
		dp_error_set(err, "writing '%s' failed: %m (is the disk full?)", p->path);
		dp_unlink_file(p->path);
		rc = -1;
	}
	dp_perfetto_free(p);
	return rc;
}

void dp_perfetto_abort(dp_perfetto *p)
{
	if (!p)
		return;
	fclose(p->f);
	dp_unlink_file(p->path);
	dp_perfetto_free(p);
}
