/* dataprof annotate */
#include "cli.h"
#include "../srcview/srcview.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	cli_usage(
	    f, 24,
	    "usage: dataprof annotate [OPTIONS] [FUNCTION-GLOB | FILE:LINE]\n\n"
	    "A function's source lines interleaved with its disassembly; each\n"
	    "instruction with its samples and share, the verdict mix, the data objects\n"
	    "and type.member paths it touched, the memory levels and mean weight;\n"
	    "with branch stacks (record -b), each function's hottest straight-line\n"
	    "ranges. Without a function: the hottest ones.\n\n"
	    "  -i, --input FILE      the profile (dataprof.dprof by default, or perf.data)\n"
	    "      --object SPEC     only the samples on data objects matching this glob\n"
	    "@where\n"
	    "@time\n"
	    "  -n, --top N[,R]       functions shown (default 5), and the hottest ranges\n"
	    "                        of each (default 10) where samples carry branch\n"
	    "                        stacks (record -b)\n"
	    "      --source-dir DIR  look for the source files under DIR\n"
	    "      --prefix-strip N  drop N leading components of the compiled paths\n"
	    "  -M, --syntax SYNTAX   att (default) or intel\n"
	    "      --json            JSON (schema dataprof-annotate/1, docs/annotate-cmd.md)\n"
	    "  -j, --jobs N          read the profile in N threads (default: the CPUs\n"
	    "                        this process may use); the listing does not depend on N\n"
	    "@symfs\n"
	    "@help\n");
}

/* annotate's own option: -M */
static int annotate_opt(void *ctx, int c, const char *arg)
{
	dp_srcview_opts *o = ctx;

	if (c != 'M')
		return CLI_OPT_SHARED;
	if (!strcmp(arg, "intel"))
		o->intel = true;
	else if (strcmp(arg, "att")) {
		cli_error("-M '%s': att or intel", arg);
		return 2;
	}
	return CLI_OPT_TAKEN;
}

int cmd_annotate(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input"),
	    CLI_STR("object", 'O', dp_srcview_opts, object),
	    CLI_SHARED("where,time,top"),
	    CLI_STR("source-dir", 'D', dp_srcview_opts, source_dir),
	    CLI_PREFIX_STRIP(dp_srcview_opts, prefix_strip),
	    CLI_OWN("syntax", required_argument, 'M'),
	    CLI_SHARED("json,symfs,jobs,help"),
	    CLI_END,
	};
	cli_common co;
	dp_srcview_opts o;
	dp_srcview v;
	dp_error err = {{0}};
	int st, rc = 0;

	memset(&o, 0, sizeof(o));
	o.out = stdout;
	cli_common_init(&co, "annotate", usage);
	co.top_per_level = true; /* -n N,R: functions, ranges */
	st = cli_parse_options(&co, argc, argv, "i:w:n:M:j:h", opts, annotate_opt, &o);
	if (st != CLI_OPT_TAKEN)
		return st;
	o.input = co.input;
	o.sel = co.sel;
	o.top = co.top[0];
	o.top_ranges = co.top[1];
	o.json = co.format == CLI_FMT_JSON;
	/* one word after the options: what to annotate (the profile is -i) */
	if (optind < argc) {
		o.pattern = argv[optind++];
		o.select = strchr(o.pattern, ':') && !strstr(o.pattern, "::") ? DP_SV_LINE
									      : DP_SV_FUNCTION;
	}
	if (optind < argc) {
		cli_error("annotate takes one function or FILE:LINE; '%s' is one too many "
			  "(the profile is -i FILE)",
			  argv[optind]);
		return 2;
	}
	if (cli_check_filters(o.sel.where, o.sel.time_range) < 0)
		return 2;
	if (dp_srcview_build(&o, &v, &err) < 0 || dp_srcview_print(&v, &err) < 0) {
		cli_error("%s", err.msg);
		rc = 1;
	}
	dp_srcview_free(&v);
	return rc;
}
