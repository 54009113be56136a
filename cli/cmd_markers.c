/* dataprof markers: the time between code marks, their own overhead
 * subtracted, per thread; per occurrence and summarised; text or JSON. */
#include "cli.h"
#include "dataprof/profile.h"
#include "json.h"
#include "../report/marks.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
	uint32_t from, to;
} pair;

typedef struct markers_opts {
	bool each, json;
	DP_VEC(char *) pairs; /* "A,B" as written */
} markers_opts;

static void usage(FILE *f)
{
	cli_usage(f, 21,
		  "usage: dataprof markers [OPTIONS] [FILE]\n\n"
		  "The time between the code marks of each thread of a profile\n"
		  "(dataprof.dprof by default), recorded with 'dataprof record --markers':\n"
		  "by default between consecutive marks, grouped by the pair of markers;\n"
		  "each interval has the overheads of the marks it spans subtracted:\n"
		  "  (time of the later mark - time of the earlier) - overheads of the marks\n"
		  "  from the earlier up to the later.\n\n"
		  "@input\n"
		  "  -b, --between A,B  from each mark A to the next mark B of the same thread\n"
		  "                     (names or numbers; repeat for more pairs)\n"
		  "  -a, --each         list every occurrence, not only count/min/median/max\n"
		  "  -j, --json         JSON (schema in docs/markers.md)\n"
		  "@help\n");
}

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

static void print_text(const char *path, const dp_marks *m, const dp_interval_sets *s,
		       const markers_opts *o)
{
	char a[32], b[32], c[32], d[32], nb1[16], nb2[16];
	uint64_t omin, omed, omax;
	size_t procs, threads = count_threads(m, &procs);
	uint32_t pid = 0, tid = 0;

	overheads(m, &omin, &omed, &omax);
	human(a, sizeof(a), omin);
	human(b, sizeof(b), omed);
	human(c, sizeof(c), omax);
	printf("# %s: %zu marks from %zu thread%s of %zu process%s; overhead of a mark: min %s, "
	       "median %s, max %s\n",
	       path, m->v.n, threads, threads == 1 ? "" : "s", procs, procs == 1 ? "" : "es", a, b,
	       c);
	if (m->hand_overs)
		printf("# %" PRIu64 " marks found their thread's block full and handed it over; "
		       "the cost is in their overhead, subtracted\n",
		       m->hand_overs);
	printf("# interval = time of the later mark - time of the earlier - overheads of the "
	       "marks from the earlier up to the later\n");
	for (size_t i = 0; i < s->n; i++) {
		const dp_interval_set *e = &s->v[i];
		char title[160];

		if (i == 0 || e->pid != pid || e->tid != tid) {
			pid = e->pid;
			tid = e->tid;
			printf("\npid %u thread %u (%s)\n", pid, tid,
			       dp_marks_name(m, e->app, DP_MARKER_APP, nb1, sizeof(nb1)));
			printf("  %-40s %7s %12s %12s %12s %12s\n", "from -> to", "count", "min",
			       "median", "max", "total");
		}
		snprintf(title, sizeof(title), "%s -> %s",
			 dp_marks_name(m, e->app, e->from_id, nb1, sizeof(nb1)),
			 dp_marks_name(m, e->app, e->to_id, nb2, sizeof(nb2)));
		human(a, sizeof(a), e->min);
		human(b, sizeof(b), e->median);
		human(c, sizeof(c), e->max);
		human(d, sizeof(d), e->total);
		printf("  %-40s %7zu %12s %12s %12s %12s\n", title, e->v.n, a, b, c, d);
		for (size_t k = 0; o->each && k < e->v.n; k++) {
			const dp_interval *iv = &e->v.v[k];
			uint64_t t = m->v.v[iv->from].time;

			human(a, sizeof(a), iv->ns);
			human(b, sizeof(b), iv->overhead);
			printf("      #%-5zu at %" PRIu64 ".%09" PRIu64 " s  %12s  (overhead %s)\n",
			       k + 1, t / 1000000000u, t % 1000000000u, a, b);
		}
	}
}

static void print_json(const char *path, const dp_marks *m, const dp_interval_sets *s)
{
	uint64_t omin, omed, omax;
	size_t procs, threads = count_threads(m, &procs);
	char nb[16];

	overheads(m, &omin, &omed, &omax);
	printf("{\n  \"profile\": ");
	dp_json_str(stdout, path);
	printf(",\n  \"marks\": %zu,\n  \"threads\": %zu,\n  \"processes\": %zu,\n"
	       "  \"hand_overs\": %" PRIu64 ",\n  \"overhead_ns\": {\"min\": %" PRIu64
	       ", \"median\": %" PRIu64 ", \"max\": %" PRIu64 "},\n  \"intervals\": [",
	       m->v.n, threads, procs, m->hand_overs, omin, omed, omax);
	for (size_t i = 0; i < s->n; i++) {
		const dp_interval_set *e = &s->v[i];

		printf("%s\n    {\"pid\": %u, \"tid\": %u, \"app\": ", i ? "," : "", e->pid,
		       e->tid);
		dp_json_str(stdout, dp_marks_name(m, e->app, DP_MARKER_APP, nb, sizeof(nb)));
		printf(", \"from\": ");
		dp_json_str(stdout, dp_marks_name(m, e->app, e->from_id, nb, sizeof(nb)));
		printf(", \"to\": ");
		dp_json_str(stdout, dp_marks_name(m, e->app, e->to_id, nb, sizeof(nb)));
		printf(", \"from_id\": %u, \"to_id\": %u,\n     \"count\": %zu", e->from_id,
		       e->to_id, e->v.n);
		printf(", \"min_ns\": %" PRIu64 ", \"median_ns\": %" PRIu64, e->min, e->median);
		printf(", \"max_ns\": %" PRIu64 ", \"total_ns\": %" PRIu64, e->max, e->total);
		printf(",\n     \"occurrences\": [");
		for (size_t k = 0; k < e->v.n; k++) {
			const dp_interval *iv = &e->v.v[k];

			printf("%s{\"start_ns\": %" PRIu64 ", \"ns\": %" PRIu64, k ? ", " : "",
			       m->v.v[iv->from].time, iv->ns);
			printf(", \"raw_ns\": %" PRIu64 ", \"overhead_ns\": %" PRIu64 "}", iv->raw,
			       iv->overhead);
		}
		printf("]}");
	}
	printf("\n  ]\n}\n");
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

/* "A,B" -> ids; an unknown marker is an error that lists the known ones. */
static int parse_pair(const dp_marks *m, const char *arg, pair *p)
{
	char *copy = dp_strdup(arg), *comma = strchr(copy, ',');
	int rc = 0;

	if (!comma) {
		cli_error("--between needs two markers, A,B, not '%s'", arg);
		free(copy);
		return -1;
	}
	*comma = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		const char *w = i ? comma + 1 : copy;
		dp_buf known = {0};

		if (dp_marks_lookup(m, w, i ? &p->to : &p->from))
			continue;
		for (size_t k = 0; k < m->names.n; k++)
			if (m->names.v[k].id != DP_MARKER_APP)
				dp_buf_printf(&known, "%s'%s'", known.len ? ", " : "",
					      m->names.v[k].name);
		cli_error("no marker '%s' in this profile (named markers: %s; or give a number)", w,
			  known.len ? known.p : "none");
		dp_buf_free(&known);
		rc = -1;
	}
	free(copy);
	return rc;
}

int cmd_markers(int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_OPT_INPUT,
	    {"between", required_argument, 0, 'b'}, /* -b, -j: not --by, --jobs */
	    {"each", no_argument, 0, 'a'},
	    {"json", no_argument, 0, 'j'},
	    CLI_OPT_HELP,
	    {0, 0, 0, 0},
	};
	cli_common co;
	const char *path;
	markers_opts o = {0};
	dp_marks m = {0};
	dp_interval_sets s = {0};
	dp_error err = {{0}};
	dp_profile *p;
	dp_record r;
	int c, st, rc = 1;

	cli_common_init(&co, "markers", usage);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:b:ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			dp_vec_push(&o.pairs, optarg);
			break;
		case 'a':
			o.each = true;
			break;
		case 'j':
			o.json = true;
			break;
		default:
			if ((st = cli_common_opt(&co, c)) != CLI_OPT_TAKEN)
				return st;
		}
	}
	if (cli_common_profile(&co, argc, argv) < 0)
		return 2;
	path = co.input;
	p = dp_profile_open(path, &err);
	if (!p) {
		cli_error("%s", err.msg);
		return 1;
	}
	while (dp_profile_next(p, &r) > 0)
		dp_marks_add(&m, &r);
	dp_marks_done(&m);
	if (!m.v.n) {
		cli_error("'%s' has no code marks: record the program with 'dataprof record "
			  "--markers' (and mark it with dataprof/markers.h)",
			  path);
		goto out;
	}
	for (size_t i = 0; i < o.pairs.n; i++) {
		pair pr;
		bool again = false;

		if (parse_pair(&m, o.pairs.v[i], &pr) < 0)
			goto out;
		for (size_t k = 0; k < i; k++) {
			pair q;

			parse_pair(&m, o.pairs.v[k], &q);
			again |= q.from == pr.from && q.to == pr.to;
		}
		if (!again)
			dp_marks_between(&m, pr.from, pr.to, &s);
	}
	if (!o.pairs.n)
		dp_marks_consecutive(&m, &s);
	/* thread by thread, each thread's sets in the order of their first interval */
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), by_thread);
	if (o.json)
		print_json(path, &m, &s);
	else
		print_text(path, &m, &s, &o);
	rc = 0;
out:
	dp_interval_sets_free(&s);
	dp_marks_free(&m);
	dp_vec_free(&o.pairs);
	dp_profile_close(p);
	return rc;
}
