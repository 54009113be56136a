/* dataprof markers: the time between code marks, their own overhead
 * subtracted, per thread; per occurrence and summarised; text or JSON. */
#include "cli.h"
#include "dataprof/profile.h"
#include "../report/marks.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
	uint32_t from, to;
} pair;

typedef struct markers_opts {
	bool each, json;
	DP_VEC(const char *) pairs; /* "A,B" as written */
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

/* markers' own options */
static int markers_opt(void *ctx, int c, const char *arg)
{
	markers_opts *o = ctx;

	if (c != 'b')
		return CLI_OPT_SHARED;
	dp_vec_push(&o->pairs, arg);
	return CLI_OPT_TAKEN;
}

/* The marks of p into m: -1 after saying there are none. */
static int read_marks(dp_profile *p, const char *path, dp_marks *m)
{
	dp_record r;

	while (dp_profile_next(p, &r) > 0)
		dp_marks_add(m, &r);
	dp_marks_done(m);
	if (!m->v.n) {
		cli_error("'%s' has no code marks: record the program with 'dataprof record "
			  "--markers' (and mark it with dataprof/markers.h)",
			  path);
		return -1;
	}
	return 0;
}

/* The intervals of each --between pair (once each), or between consecutive
 * marks: -1 after saying a marker is unknown. */
static int intervals(const dp_marks *m, const markers_opts *o, dp_interval_sets *s)
{
	for (size_t i = 0; i < o->pairs.n; i++) {
		pair pr;
		bool again = false;

		if (parse_pair(m, o->pairs.v[i], &pr) < 0)
			return -1;
		for (size_t k = 0; k < i; k++) {
			pair q;

			parse_pair(m, o->pairs.v[k], &q);
			again |= q.from == pr.from && q.to == pr.to;
		}
		if (!again)
			dp_marks_between(m, pr.from, pr.to, s);
	}
	if (!o->pairs.n)
		dp_marks_consecutive(m, s);
	dp_interval_sets_sort(s);
	return 0;
}

int cmd_markers(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input"),
	    CLI_OWN("between", required_argument, 'b'), /* -b, -j: not --by, --jobs */
	    CLI_SET("each", 'a', markers_opts, each),
	    CLI_SET("json", 'j', markers_opts, json),
	    CLI_SHARED("help"),
	    CLI_END,
	};
	cli_common co;
	markers_opts o = {0};
	dp_marks m = {0};
	dp_interval_sets s = {0};
	dp_error err = {{0}};
	dp_profile *p;
	int rc = 1;

	cli_common_init(&co, "markers", usage);
	rc = cli_parse(&co, argc, argv, "i:b:ajh", opts, markers_opt, &o);
	if (rc != CLI_OPT_TAKEN)
		goto out_opts;
	rc = 1;
	if (!(p = dp_profile_open(co.input, &err))) {
		cli_error("%s", err.msg);
		goto out_opts;
	}
	if (read_marks(p, co.input, &m) == 0 && intervals(&m, &o, &s) == 0) {
		if (o.json)
			dp_marks_json(stdout, co.input, &m, &s);
		else
			dp_marks_text(stdout, co.input, &m, &s, o.each);
		rc = 0;
	}
	dp_interval_sets_free(&s);
	dp_marks_free(&m);
	dp_profile_close(p);
out_opts:
	dp_vec_free(&o.pairs);
	return rc;
}
