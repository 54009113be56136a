/* dataprof report */
#include "cli.h"
#include "../export/export.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void usage(FILE *f)
{
	cli_usage(
	    f, 24,
	    "usage: dataprof report [OPTIONS] [FILE]\n\n"
	    "Aggregates the samples of a profile (dataprof.dprof by default, or a\n"
	    "perf.data file) by attributes, keeps chosen instances, and regroups them.\n"
	    "Without --by: the data objects with their hottest members and lines.\n\n"
	    "@input\n"
	    "  -b, --by A[,B...]     group by these attributes (together)\n"
	    "  -t, --then C[,D...]   regroup each group by these (repeat for more levels)\n"
	    "  -w, --where EXPR      keep the samples that match, e.g.\n"
	    "                        'object=nodes and member~\"struct node.*\"'\n"
	    "@time\n"
	    "      --between A B     keep what each thread did from code mark A to its\n"
	    "                        next mark B (record --markers)\n"
	    "      --counters GLOBS  with --by time:WIDTH: system counter rates per bucket\n"
	    "                        (record --counters), e.g. proc/stat/cpu_user\n"
	    "      --verdict LIST    keep these verdicts: exact, verified, unverifiable,\n"
	    "                        unresolvable, no-memory (default: all, each in its rows)\n"
	    "@metric\n"
	    "  -n, --top N[,M...]    rows shown per level (default 20, then 5)\n"
	    "      --csv             CSV, one row per group at every level\n"
	    "      --json            JSON (schema dataprof-report/1, docs/report.md)\n"
	    "      --sqlite FILE     also write the samples and the rows to an SQLite file\n"
	    "@symfs\n"
	    "@width\n"
	    "  -j, --jobs N          read the samples in N threads (default: the CPUs this\n"
	    "                        process may use); the output is the same for any N\n"
	    "@help\n\n"
	    "Attributes: %s.\n"
	    "time takes a bucket width for --by: time:100ms.\n",
	    dp_attr_all_names());
}

/* Without --by: the data objects, their hottest members and lines. */
static void default_view(cli_common *co, dp_report_opts *o)
{
	dp_error err = {{0}};

	o->default_view = true;
	cli_parse_level("object", &co->by, &err);
	cli_parse_level("member", &co->then[0], &err);
	cli_parse_level("line", &co->then[1], &err);
	co->nthen = 2;
	for (int i = 0; i < 3; i++)
		if (!o->top[i])
			o->top[i] = i == 0 ? 10 : i == 1 ? 3 : 2;
}

/* report's own options */
typedef struct report_args {
	cli_common *co;
	dp_report_opts *o;
	const char *sqlite;
	int argc;
	char **argv;
} report_args;

static int report_opt(void *ctx, int c, const char *arg)
{
	report_args *a = ctx;

	switch (c) {
	case 'B':
		if (optind >= a->argc || a->argv[optind][0] == '-') {
			cli_error("--between takes two markers: --between A B");
			return 2;
		}
		a->co->sel.between[0] = arg;
		a->co->sel.between[1] = a->argv[optind++];
		break;
	case 'K':
		a->o->counters = arg;
		break;
	default:
		return CLI_OPT_SHARED;
	}
	return CLI_OPT_TAKEN;
}

int cmd_report(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input,by,then,where,time,verdict,metric,top,csv,json"),
	    CLI_STR("sqlite", 'Q', report_args, sqlite),
	    CLI_SHARED("symfs,width,help"),
	    CLI_OWN("between", required_argument, 'B'),
	    CLI_OWN("counters", required_argument, 'K'),
	    CLI_SHARED("jobs"),
	    CLI_END,
	};
	static const dp_out_format formats[] = {
	    [CLI_FMT_TEXT] = DP_OUT_TEXT, [CLI_FMT_CSV] = DP_OUT_CSV, [CLI_FMT_JSON] = DP_OUT_JSON};
	cli_common co;
	dp_report_opts o;
	report_args a = {&co, &o, NULL, argc, argv};
	dp_error err = {{0}};
	int st;

	memset(&o, 0, sizeof(o));
	o.out = stdout;
	cli_common_init(&co, "report", usage);
	co.top_per_level = true;
	st = cli_parse(&co, argc, argv, "i:b:t:w:m:n:j:h", opts, report_opt, &a);
	if (st != CLI_OPT_TAKEN)
		return st;
	cli_common_to_report(&co, &o);
	if (!co.have_by && co.nthen) {
		cli_error("--then regroups the groups of --by: give --by first");
		return 2;
	}
	if (!co.have_by)
		default_view(&co, &o);
	if (o.counters && (co.by.attrs[0].id != DP_A_TIME || !co.by.attrs[0].bucket)) {
		cli_error("--counters shows rates per time bucket: use it with --by time:WIDTH "
			  "(time:100ms)");
		return 2;
	}
	o.levels[0] = co.by;
	for (int i = 0; i < co.nthen; i++)
		o.levels[i + 1] = co.then[i];
	o.nlevels = 1 + co.nthen;
	o.progress = dp_stderr_is_tty();
	if (!o.width && isatty(1)) {
		struct winsize ws;
		if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
			o.width = ws.ws_col;
	}
	if (dp_report_print(&o, formats[co.format], a.sqlite, &err) < 0) {
		cli_error("%s", err.msg);
		return 1;
	}
	return 0;
}
