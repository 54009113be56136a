/* Chrome's trace event format (JSON object form), which ui.perfetto.dev and
 * chrome://tracing open. Times are µs since the profile's start, with ns
 * kept as decimals. */
#include "export.h"
#include "json.h"
#include "../report/context.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hashmap.h"

struct dp_perfetto {
	FILE *f;
	char *path;
	dp_report_result *res;
	dp_hashmap threads; /* pid << 32 | tid -> last sample time (ns since start) + 1 */
	dp_hashmap names;   /* pid << 32 | tid -> thread name (string id) */
	uint32_t first_pid;
	bool any;
};


/* ns since the start as µs */
static void ts(FILE *f, int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;

	fprintf(f, "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

static void sep(dp_perfetto *p)
{
	fputs(p->any ? ",\n" : "\n", p->f);
	p->any = true;
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
	dp_hashmap_init(&p->threads, 16);
	dp_hashmap_init(&p->names, 16);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", p->f);
	return p;
}

static const dp_attr_id arg_attrs[] = {DP_A_EVENT, DP_A_OBJECT, DP_A_MEMBER, DP_A_LINE,
				       DP_A_SITE,  DP_A_LEVEL,	DP_A_VERDICT};

void dp_perfetto_row(void *ctx, dp_attr_ctx *attrs, dp_row *row)
{
	dp_perfetto *p = ctx;
	const dp_sample *s = row->s;
	uint64_t key = (uint64_t)s->pid << 32 | s->tid, v;
	dp_attr fn = {DP_A_FUNCTION, 0}, th = {DP_A_THREAD, 0};
	char buf[128];

	if (!p->threads.n)
		p->first_pid = s->pid;
	if (!dp_hashmap_get(&p->threads, key, &v) || v < row->time_rel + 1)
		dp_hashmap_put(&p->threads, key, row->time_rel + 1);
	if (!dp_hashmap_get(&p->names, key, &v))
		dp_hashmap_put(&p->names, key, dp_attr_key(attrs, row, &th));
	sep(p);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\",\"name\":", p->f);
	dp_json_str(p->f, dp_attr_format(attrs, &fn, dp_attr_key(attrs, row, &fn), buf, sizeof(buf)));
	fprintf(p->f, ",\"pid\":%u,\"tid\":%u,\"ts\":", s->pid, s->tid);
	ts(p->f, (int64_t)row->time_rel);
	fputs(",\"args\":{", p->f);
	for (size_t i = 0; i < DP_ARRAY_LEN(arg_attrs); i++) {
		dp_attr a = {arg_attrs[i], 0};

		fprintf(p->f, "%s\"%s\":", i ? "," : "", dp_attr_name(a.id));
		dp_json_str(p->f, dp_attr_format(attrs, &a, dp_attr_key(attrs, row, &a), buf, sizeof(buf)));
	}
	fprintf(p->f, ",\"period\":%" PRIu64 "}}", s->period);
}

static int64_t rel(uint64_t t, uint64_t start)
{
	return t >= start ? (int64_t)(t - start) : -(int64_t)(start - t);
}

/* Marker regions: from each mark of a thread to its next, "A..B", as B and
 * E events; after the thread's last mark, "A..end" up to its last sample. */
static void regions(dp_perfetto *p, uint64_t start)
{
	const dp_marks *mk = dp_report_ctx_marks(dp_row_ctx_marks(p->res->rows));
	char a[96], b[96], name[200];

	for (size_t i = 0; i < mk->v.n; i++) {
		const dp_mark_rec *m = &mk->v.v[i], *n = i + 1 < mk->v.n ? &mk->v.v[i + 1] : NULL;
		uint64_t last = 0, key = (uint64_t)m->pid << 32 | m->tid;
		int64_t t0 = rel(m->time, start), t1;

		if (!p->threads.n)
			p->first_pid = m->pid;
		dp_marks_name(mk, m->app, m->id, a, sizeof(a));
		if (n && n->pid == m->pid && n->tid == m->tid) {
			snprintf(name, sizeof(name), "%s..%s", a,
				 dp_marks_name(mk, n->app, n->id, b, sizeof(b)));
			t1 = rel(n->time, start);
		} else {
			if (!dp_hashmap_get(&p->threads, key, &last) || (int64_t)last - 1 <= t0)
				continue;
			snprintf(name, sizeof(name), "%s..end", a);
			t1 = (int64_t)last - 1;
		}
		sep(p);
		fputs("{\"ph\":\"B\",\"cat\":\"marker\",\"name\":", p->f);
		dp_json_str(p->f, name);
		fprintf(p->f, ",\"pid\":%u,\"tid\":%u,\"ts\":", m->pid, m->tid);
		ts(p->f, t0);
		fprintf(p->f, ",\"args\":{\"mark\":");
		dp_json_str(p->f, a);
		fprintf(p->f, ",\"overhead_ns\":%" PRIu64 "}}",
			m->end > m->time ? m->end - m->time : 0);
		sep(p);
		fprintf(p->f,
			"{\"ph\":\"E\",\"cat\":\"marker\",\"pid\":%u,\"tid\":%u,\"ts\":", m->pid,
			m->tid);
		ts(p->f, t1);
		fputc('}', p->f);
		if (!dp_hashmap_get(&p->names, key, &last))
			dp_hashmap_put(&p->names, key, 0);
	}
}

static void names(dp_perfetto *p)
{
	dp_strtab *strs = dp_attr_strings(p->res->attrs);

	size_t pos = 0;
	uint64_t key, val;

	while (dp_hashmap_next(&p->names, &pos, &key, &val)) {
		uint32_t pid, tid;
		char buf[32];
		const char *name;

		pid = (uint32_t)(key >> 32);
		tid = (uint32_t)key;
		name = val ? dp_strtab_get(strs, (uint32_t)val) : NULL;
		if (!name || !*name) {
			snprintf(buf, sizeof(buf), "tid %u", tid);
			name = buf;
		}
		sep(p);
		fprintf(p->f,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"name\":",
			pid, tid);
		dp_json_str(p->f, name);
		fputs("}}", p->f);
		if (pid == tid) {
			sep(p);
			fprintf(p->f,
				"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":",
				pid, tid);
			dp_json_str(p->f, name);
			fputs("}}", p->f);
		}
	}
}

/* One counter track per series, on the first process seen. */
static void counters(dp_perfetto *p, const dp_series_set *ss, uint64_t start)
{
	for (size_t k = 0; k < ss->ns; k++) {
		const dp_series *s = &ss->s[k];
		char name[200];

		snprintf(name, sizeof(name), "%s (%s%s)", s->name, s->unit, s->gauge ? "" : "/s");
		for (size_t i = 0; i < ss->n; i++) {
			if (isnan(s->v[i]))
				continue;
			sep(p);
			fputs("{\"ph\":\"C\",\"cat\":\"counter\",\"name\":", p->f);
			dp_json_str(p->f, name);
			fprintf(p->f, ",\"pid\":%u,\"ts\":", p->first_pid);
			ts(p->f, rel(ss->times[i], start));
			fprintf(p->f, ",\"args\":{\"value\":%.6g}}", s->v[i]);
		}
	}
}

static void dp_perfetto_free(dp_perfetto *p)
{
	dp_hashmap_free(&p->threads);
	dp_hashmap_free(&p->names);
	free(p->path);
	free(p);
}

int dp_perfetto_finish(dp_perfetto *p, const dp_series_set *ss, dp_error *err)
{
	uint64_t start = dp_row_ctx_start(p->res->rows);
	const char *cmd = dp_profile_meta(p->res->p, "cmdline");
	int rc = 0;

	regions(p, start);
	names(p);
	if (ss)
		counters(p, ss, start);
	fputs("\n],\"otherData\":{\"producer\":\"dataprof\",\"profile\":", p->f);
	dp_json_str(p->f, p->res->o->input);
	fputs(",\"cmdline\":", p->f);
	dp_json_str(p->f, cmd ? cmd : "");
	fprintf(p->f, ",\"start_ns\":%" PRIu64 "}}\n", start);
	if (ferror(p->f) || fclose(p->f) != 0) {
		dp_error_set(err, "writing '%s' failed: %m (is the disk full?)", p->path);
		unlink(p->path);
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
	unlink(p->path);
	dp_perfetto_free(p);
}
