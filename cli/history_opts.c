/* The options of history: the database, what add stores, what show and
 * check compare (the shared --by, --metric, --per... through cli_common). */
#include "cli.h"
#include "history_opts.h"

#include <getopt.h>
#include <string.h>

/* history's own options */
static int history_opt(void *ctx, int c, const char *arg)
{
	hopts *o = ctx;
	dp_diff_opts *d = &o->show.diff;
	dp_error err = {{0}};
	uint64_t v;

	switch (c) {
	case O_COMMIT:
		o->add.commit = o->check.commit = arg;
		break;
	case O_COMMIT_TIME:
		if (!dp_history_time(arg, o->commit_time, sizeof(o->commit_time))) {
			cli_error("--commit-time '%s': a time as git log --format=%%cI writes it "
				  "(2024-05-01T12:00:00+02:00) or seconds since 1970 (%%ct)",
				  arg);
			return 2;
		}
		o->add.commit_time = o->commit_time;
		break;
	case O_BRANCH:
		o->add.branch = o->show.branch = o->check.branch = arg;
		break;
	case 'b': /* add keeps several lists: not the shared --by */
		if (o->nby == DP_HISTORY_MAX_BY) {
			cli_error("at most %d --by lists", DP_HISTORY_MAX_BY);
			return 2;
		}
		if (cli_parse_level(arg, &o->add.by[o->nby++], &err) < 0) {
			cli_error("%s", err.msg);
			return 2;
		}
		d->by = o->add.by[o->nby - 1];
		o->by_text = arg;
		break;
	case O_LAST:
		if (!dp_parse_u64(arg, &v) || !v) {
			cli_error("--last '%s': a positive number of commits", arg);
			return 2;
		}
		o->show.last = (size_t)v;
		break;
	case O_BASELINE_N:
		if (!dp_parse_u64(arg, &v) || !v || v > 10000) {
			cli_error("--baseline-commits '%s': a positive number of commits", arg);
			return 2;
		}
		o->check.baseline_commits = (size_t)v;
		break;
	case O_PROGRAM:
		o->show.program = o->check.program = arg;
		break;
	default:
		return CLI_OPT_SHARED;
	}
	return CLI_OPT_TAKEN;
}

int cli_history_parse(int argc, char **argv, hopts *o, void (*usage)(FILE *f))
{
	static const cli_opt opts[] = {
	    CLI_STR("db", O_DB, hopts, db),
	    CLI_OWN("commit", required_argument, O_COMMIT),
	    CLI_OWN("commit-time", required_argument, O_COMMIT_TIME),
	    CLI_OWN("branch", required_argument, O_BRANCH),
	    CLI_STR("label", O_LABEL, hopts, add.label),
	    CLI_SHARED("by"), /* history's own (add keeps several) */
	    CLI_SHARED("event,where,jobs"),
	    CLI_OWN("last", required_argument, O_LAST),
	    CLI_SHARED("metric,per,confidence,noise"),
	    CLI_OWN("program", required_argument, O_PROGRAM),
	    CLI_SHARED("top"),
	    CLI_SET("csv", O_CSV, hopts, show.csv), /* show's, while --json is check's */
	    CLI_STR("html", O_HTML, hopts, html),
	    CLI_STR("baseline", O_BASELINE, hopts, check.baseline),
	    CLI_OWN("baseline-commits", required_argument, O_BASELINE_N),
	    CLI_SHARED("fail-if,json,markdown,help"),
	    CLI_END,
	};
	dp_diff_opts *d = &o->show.diff;
	cli_common co;
	int st;

	cli_common_init(&co, "history", usage);
	co.diff = d;
	d->confidence = 0.95;
	d->line_tolerance = 5;
	o->show.last = 10;
	st = cli_parse_options(&co, argc, argv, "b:w:m:n:j:h", opts, history_opt, o);
	if (st != CLI_OPT_TAKEN)
		return st ? st : 1;
	o->add.run.event = o->show.event = o->check.event = co.event;
	o->add.run.sel = co.sel; /* --where, --jobs: the others history does not take */
	d->metric = co.metric;
	d->top = co.top[0];
	if (co.format == CLI_FMT_JSON)
		o->check.format = DP_HF_JSON;
	else if (co.format == CLI_FMT_MARKDOWN)
		o->check.format = DP_HF_MARKDOWN;
	return 0;
}
