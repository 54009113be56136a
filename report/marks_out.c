/* dataprof markers' output: the intervals between code marks per thread,
 * with the marks' overheads, as text or JSON (docs/markers.md). */
#include "marks.h"
#include "json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void human(char *out, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(out, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(out, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(out, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(out, len, "%.3f s", (double)ns / 1e9);
}

/* Overhead of every mark: min, median, max. */
static void overheads(const dp_marks *m, uint64_t *min, uint64_t *med, uint64_t *max)
{
	uint64_t *o = dp_malloc((m->v.n + 1) * sizeof(*o));

	*min = UINT64_MAX;
	*max = 0;
	for (size_t i = 0; i < m->v.n; i++) {
		o[i] = m->v.v[i].end - m->v.v[i].time;
		*min = DP_MIN(*min, o[i]);
		*max = DP_MAX(*max, o[i]);
	}
	if (!m->v.n)
		*min = 0;
	*med = dp_median_u64(o, m->v.n);
	free(o);
}

static size_t count_threads(const dp_marks *m, size_t *procs)
{
	size_t threads = 0;

	*procs = 0;
	for (size_t i = 0; i < m->v.n; i++) {
		const dp_mark_rec *k = &m->v.v[i];

		if (i == 0 || k->tid != k[-1].tid || k->pid != k[-1].pid)
			threads++;
		if (i == 0 || k->pid != k[-1].pid)
			(*procs)++;
	}
	return threads;
}

void dp_marks_text(FILE *f, const char *path, const dp_marks *m, const dp_interval_sets *s,
		   bool each)
{
	char a[32], b[32], c[32], d[32], nb1[16], nb2[16];
	uint64_t omin, omed, omax;
	size_t procs, threads = count_threads(m, &procs);
	uint32_t pid = 0, tid = 0;

	overheads(m, &omin, &omed, &omax);
	human(a, sizeof(a), omin);
	human(b, sizeof(b), omed);
	human(c, sizeof(c), omax);
	fprintf(f,
		"# %s: %zu marks from %zu thread%s of %zu process%s; overhead of a mark: min %s, "
		"median %s, max %s\n",
		path, m->v.n, threads, threads == 1 ? "" : "s", procs, procs == 1 ? "" : "es", a, b,
		c);
	if (m->hand_overs)
		fprintf(f,
			"# %" PRIu64 " marks found their thread's block full and handed it over; "
			"the cost is in their overhead, subtracted\n",
			m->hand_overs);
	fprintf(f, "# interval = time of the later mark - time of the earlier - overheads of the "
		   "marks from the earlier up to the later\n");
	for (size_t i = 0; i < s->n; i++) {
		const dp_interval_set *e = &s->v[i];
		char title[160];

		if (i == 0 || e->pid != pid || e->tid != tid) {
			pid = e->pid;
			tid = e->tid;
			fprintf(f, "\npid %u thread %u (%s)\n", pid, tid,
				dp_marks_name(m, e->app, DP_MARKER_APP, nb1, sizeof(nb1)));
			fprintf(f, "  %-40s %7s %12s %12s %12s %12s\n", "from -> to", "count",
				"min", "median", "max", "total");
		}
		snprintf(title, sizeof(title), "%s -> %s",
			 dp_marks_name(m, e->app, e->from_id, nb1, sizeof(nb1)),
			 dp_marks_name(m, e->app, e->to_id, nb2, sizeof(nb2)));
		human(a, sizeof(a), e->min);
		human(b, sizeof(b), e->median);
		human(c, sizeof(c), e->max);
		human(d, sizeof(d), e->total);
		fprintf(f, "  %-40s %7zu %12s %12s %12s %12s\n", title, e->v.n, a, b, c, d);
		for (size_t k = 0; each && k < e->v.n; k++) {
			const dp_interval *iv = &e->v.v[k];
			uint64_t t = m->v.v[iv->from].time;

			human(a, sizeof(a), iv->ns);
			human(b, sizeof(b), iv->overhead);
			fprintf(
			    f, "      #%-5zu at %" PRIu64 ".%09" PRIu64 " s  %12s  (overhead %s)\n",
			    k + 1, t / 1000000000u, t % 1000000000u, a, b);
		}
	}
}

void dp_marks_json(FILE *f, const char *path, const dp_marks *m, const dp_interval_sets *s)
{
	uint64_t omin, omed, omax;
	size_t procs, threads = count_threads(m, &procs);
	char nb[16];

	overheads(m, &omin, &omed, &omax);
	fprintf(f, "{\n  \"profile\": ");
	dp_json_str(f, path);
	fprintf(f,
		",\n  \"marks\": %zu,\n  \"threads\": %zu,\n  \"processes\": %zu,\n"
		"  \"hand_overs\": %" PRIu64 ",\n  \"overhead_ns\": {\"min\": %" PRIu64
		", \"median\": %" PRIu64 ", \"max\": %" PRIu64 "},\n  \"intervals\": [",
		m->v.n, threads, procs, m->hand_overs, omin, omed, omax);
	for (size_t i = 0; i < s->n; i++) {
		const dp_interval_set *e = &s->v[i];

		fprintf(f, "%s\n    {\"pid\": %u, \"tid\": %u, \"app\": ", i ? "," : "", e->pid,
			e->tid);
		dp_json_str(f, dp_marks_name(m, e->app, DP_MARKER_APP, nb, sizeof(nb)));
		fprintf(f, ", \"from\": ");
		dp_json_str(f, dp_marks_name(m, e->app, e->from_id, nb, sizeof(nb)));
		fprintf(f, ", \"to\": ");
		dp_json_str(f, dp_marks_name(m, e->app, e->to_id, nb, sizeof(nb)));
		fprintf(f, ", \"from_id\": %u, \"to_id\": %u,\n     \"count\": %zu", e->from_id,
			e->to_id, e->v.n);
		fprintf(f, ", \"min_ns\": %" PRIu64 ", \"median_ns\": %" PRIu64, e->min, e->median);
		fprintf(f, ", \"max_ns\": %" PRIu64 ", \"total_ns\": %" PRIu64, e->max, e->total);
		fprintf(f, ",\n     \"occurrences\": [");
		for (size_t k = 0; k < e->v.n; k++) {
			const dp_interval *iv = &e->v.v[k];

			fprintf(f, "%s{\"start_ns\": %" PRIu64 ", \"ns\": %" PRIu64, k ? ", " : "",
				m->v.v[iv->from].time, iv->ns);
			fprintf(f, ", \"raw_ns\": %" PRIu64 ", \"overhead_ns\": %" PRIu64 "}",
				iv->raw, iv->overhead);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]\n}\n");
}

static int by_thread(const void *a, const void *b)
{
	const dp_interval_set *x = a, *y = b;
	size_t fx = x->v.n ? x->v.v[0].from : SIZE_MAX, fy = y->v.n ? y->v.v[0].from : SIZE_MAX;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return fx < fy ? -1 : fx > fy;
}

void dp_interval_sets_sort(dp_interval_sets *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_thread);
}
