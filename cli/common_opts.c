/* The options several commands share (cli.h): one parser, one message and
 * one help line each, so that report, view, diff... take them alike. */
#include "cli.h"
#include "../compare/diff.h"
#include "../compare/runtab.h"
#include "../report/report.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(cli_common *co, const char *cmd, void (*usage)(FILE *f))
{
	memset(co, 0, sizeof(*co));
	co->cmd = cmd;
	co->usage = usage;
	co->min_width = 40;
	co->input = "dataprof.dprof";
	co->metric = DP_M_PERIOD;
}

static int bad(const dp_error *err)
{
	cli_error("%s", err->msg);
	return 2;
}

/* -n 20,5: a count per level; the counts past the last level are ignored */
static int parse_top_levels(cli_common *co, const char *arg)
{
	char *copy = dp_strdup(arg), *save = NULL;
	uint64_t v;
	int i = 0;

	for (char *t = strtok_r(copy, ",", &save); t && i < DP_AGG_MAX_LEVELS;
	     t = strtok_r(NULL, ",", &save), i++) {
		if (!dp_parse_u64(t, &v) || !v) {
			cli_error("--top '%s': positive counts, comma-separated", arg);
			free(copy);
			return 2;
		}
		co->top[i] = (size_t)v;
	}
	free(copy);
	return CLI_OPT_TAKEN;
}

static int parse_top(cli_common *co, const char *arg)
{
	uint64_t v;

	if (co->top_per_level)
		return parse_top_levels(co, arg);
	if (!dp_parse_u64(arg, &v) || !v) {
		cli_error("--top '%s': a positive count", arg);
		return 2;
	}
	co->top[0] = (size_t)v;
	return CLI_OPT_TAKEN;
}

static int parse_then(cli_common *co, const char *arg)
{
	dp_error err = {{0}};

	if (co->nthen == DP_AGG_MAX_LEVELS - 1) {
		cli_error("at most %d --then levels", DP_AGG_MAX_LEVELS - 1);
		return 2;
	}
	if (cli_parse_level(arg, &co->then[co->nthen++], &err) < 0)
		return bad(&err);
	return CLI_OPT_TAKEN;
}

static int parse_per(cli_common *co, const char *arg)
{
	int last = co->per_interval ? DP_PER_INTERVAL : DP_PER_GINSN;

	for (int p = 0; p <= last; p++)
		if (!strcmp(arg, dp_diff_per_name((dp_diff_per)p))) {
			co->diff->per = (dp_diff_per)p;
			return CLI_OPT_TAKEN;
		}
	cli_error("--per '%s': use second, run%s", arg,
		  co->per_interval ? ", ginsn or interval" : " or ginsn");
	return 2;
}

/* diff's and history's: how runs compare, into co->diff */
static int parse_compare(cli_common *co, int c, const char *arg)
{
	dp_diff_opts *d = co->diff;

	switch (c) {
	case CLI_O_PER:
		return parse_per(co, arg);
	case CLI_O_CONFIDENCE:
		if (!cli_parse_fraction(arg, &d->confidence) || d->confidence <= 0) {
			cli_error("--confidence '%s': a level between 0 and 1 (0.95) or a "
				  "percentage (95%%)",
				  arg);
			return 2;
		}
		return CLI_OPT_TAKEN;
	case CLI_O_NOISE:
		if (!cli_parse_fraction(arg, &d->noise)) {
			cli_error("--noise '%s': a fraction (0.05) or a percentage (5%%)", arg);
			return 2;
		}
		return CLI_OPT_TAKEN;
	}
	if (d->nfail == DP_DIFF_MAX_FAIL) {
		cli_error("at most %d --fail-if", DP_DIFF_MAX_FAIL);
		return 2;
	}
	d->fail_if[d->nfail++] = arg;
	return CLI_OPT_TAKEN;
}

/* The options whose value is checked here: a message and 2 if it is bad. */
static int parse_value(cli_common *co, int c, const char *arg)
{
	dp_error err = {{0}};
	uint64_t v;
	int m;

	switch (c) {
	case 'b':
		if (cli_parse_level(arg, &co->by, &err) < 0)
			return bad(&err);
		co->have_by = true;
		co->by_text = arg;
		return CLI_OPT_TAKEN;
	case 't':
		return parse_then(co, arg);
	case CLI_O_VERDICT:
		if (cli_parse_verdicts(arg, &co->sel.verdicts, &err) < 0)
			return bad(&err);
		return CLI_OPT_TAKEN;
	case 'm':
		if (cli_parse_metric(arg, &m, &err) < 0)
			return bad(&err);
		co->metric = (dp_metric)m;
		co->metric_given = true;
		return CLI_OPT_TAKEN;
	case 'n':
		return parse_top(co, arg);
	case CLI_O_WIDTH:
		if (!dp_parse_u64(arg, &v) || v < (uint64_t)co->min_width) {
			cli_error("--width needs %d or more columns", co->min_width);
			return 2;
		}
		co->width = (int)v;
		return CLI_OPT_TAKEN;
	case 'j':
		if (!dp_parse_u64(arg, &v) || !v || v > 256) {
			cli_error("--jobs '%s': a number of threads from 1 to 256", arg);
			return 2;
		}
		co->sel.jobs = (unsigned)v;
		return CLI_OPT_TAKEN;
	case CLI_O_PER:
	case CLI_O_CONFIDENCE:
	case CLI_O_NOISE:
	case CLI_O_FAIL_IF:
		return parse_compare(co, c, arg);
	}
	/* getopt_long's '?': it said which option it does not know */
	fprintf(stderr, "'dataprof %s --help' lists the options\n", co->cmd);
	return 2;
}

int cli_common_opt(cli_common *co, int c)
{
	switch (c) {
	case 'i':
		co->input = cli_add_profile(co->input_given ? co->input : NULL, optarg);
		co->input_given = true;
		break;
	case 'w':
		co->sel.where = optarg;
		break;
	case CLI_O_TIME:
		co->sel.time_range = optarg;
		break;
	case CLI_O_SYMFS:
		co->sel.symfs = optarg;
		break;
	case CLI_O_EVENT:
		co->event = optarg;
		break;
	case CLI_O_CSV: /* the three in cli_format's order */
	case CLI_O_JSON:
	case CLI_O_MARKDOWN:
		co->format = (cli_format)(CLI_FMT_CSV + (c - CLI_O_CSV));
		break;
	case 'h':
		co->usage(stdout);
		return 0;
	default:
		return parse_value(co, c, optarg);
	}
	return CLI_OPT_TAKEN;
}

int cli_common_profile(cli_common *co, int argc, char **argv)
{
	if (cli_one_profile(argc, argv, co->cmd, &co->input) < 0)
		return -1;
	return cli_check_filters(co->sel.where, co->sel.time_range);
}

void cli_common_to_report(const cli_common *co, dp_report_opts *o)
{
	o->input = co->input;
	o->sel = co->sel;
	o->metric = co->metric;
	o->metric_given = co->metric_given;
	memcpy(o->top, co->top, sizeof(o->top));
	o->width = co->width;
}

void cli_common_to_run(const cli_common *co, dp_run_opts *o)
{
	o->event = co->event;
	o->sel = co->sel;
}

int cli_parse_pass(cli_common *co, dp_report_opts *o, int argc, char **argv, const char *shortopts,
		   const cli_opt *opts, void *ctx)
{
	int st;

	memset(o, 0, sizeof(*o));
	st = cli_parse(co, argc, argv, shortopts, opts, NULL, ctx);
	if (st != CLI_OPT_TAKEN)
		return st;
	cli_common_to_report(co, o);
	dp_report_by_event(o);
	o->progress = dp_stderr_is_tty();
	return CLI_OPT_TAKEN;
}
