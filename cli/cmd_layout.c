/* dataprof layout */
#include "cli.h"
#include "../layout/layout.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	cli_usage(f, 24,
		  "usage: dataprof layout [OPTIONS] TYPE [FILE]\n"
		  "       dataprof layout --diff [OPTIONS] BASE NEW TYPE\n\n"
		  "The layout of a struct, class or union from DWARF (as pahole: members,\n"
		  "offsets, sizes, holes, padding, cache lines), with each member's share of\n"
		  "the samples of a profile, its loads and stores, memory levels and threads;\n"
		  "the memory lines of its instances, lines that threads share falsely, and\n"
		  "an order that packs the hot members into fewer lines. FILE is a profile\n"
		  "(default dataprof.dprof) or a binary (the layout alone). TYPE as C writes\n"
		  "it: 'struct node', 'node', 'class Account', 'cell_t'.\n\n"
		  "  --diff                the type in two builds: BASE and NEW profiles (or\n"
		  "                        binaries), member by member\n"
		  "  --cacheline N         cache line size (default 64)\n"
		  "@metric\n"
		  "      --event NAME      the event (default: the profile's first)\n"
		  "@where\n"
		  "@time\n"
		  "@verdict\n"
		  "  -n, --top N           memory lines shown (default 5)\n"
		  "      --json            JSON (schema dataprof-layout/1, docs/layout.md)\n"
		  "@symfs\n"
		  "@help\n");
}

enum { O_DIFF = 256, O_LINE };

/* layout's own options: --cacheline (bytes, 64 by default), --diff */
typedef struct layout_args {
	unsigned cacheline;
	bool diff;
} layout_args;

/* layout --diff BASE NEW TYPE: the type's layout on each side, compared. */
static int layout_diff(dp_layout_opts *o, cli_format format, int argc, char **argv)
{
	dp_layout_opts o2;
	dp_layout a, b;
	dp_error err = {{0}};

	if (argc - optind != 3) {
		cli_error("layout --diff takes BASE NEW TYPE: two profiles (or binaries) and the "
			  "type");
		return 2;
	}
	if (format == CLI_FMT_JSON) {
		cli_error("layout --diff writes text: run layout --json on each side");
		return 2;
	}
	o2 = *o;
	o->input = argv[optind];
	o2.input = argv[optind + 1];
	o->type = o2.type = argv[optind + 2];
	if (dp_layout_build(o, &a, &err) < 0)
		goto fail;
	if (dp_layout_build(&o2, &b, &err) < 0) {
		dp_layout_free(&a);
		goto fail;
	}
	dp_layout_diff_text(&a, &b, stdout);
	dp_layout_free(&a);
	dp_layout_free(&b);
	return 0;
fail:
	cli_error("%s", err.msg);
	return 1;
}

int cmd_layout(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SET("diff", O_DIFF, layout_args, diff),
	    CLI_POW2("cacheline", O_LINE, layout_args, cacheline, 8, 4096,
		     "--cacheline '%s': a power of two from 8 to 4096"),
	    CLI_SHARED("metric,event,where,time,verdict,top,json,symfs,help"),
	    CLI_END,
	};
	cli_common co;
	dp_layout_opts o;
	dp_layout a;
	dp_error err = {{0}};
	layout_args la = {.cacheline = 64};
	int st;

	memset(&o, 0, sizeof(o));
	o.input = "dataprof.dprof";
	cli_common_init(&co, "layout", usage);
	st = cli_parse_options(&co, argc, argv, "m:w:n:h", opts, NULL, &la);
	if (st != CLI_OPT_TAKEN)
		return st;
	o.cacheline = la.cacheline;
	cli_common_to_run(&co, &o.run);
	o.metric = co.metric;
	o.top = co.top[0];
	if (la.diff)
		return layout_diff(&o, co.format, argc, argv);
	if (cli_check_filters(o.run.sel.where, o.run.sel.time_range) < 0)
		return 2;
	if (optind >= argc) {
		dp_error_set(&err, "layout needs a TYPE: dataprof layout 'struct node' [PROFILE]");
		goto bad;
	}
	o.type = argv[optind++];
	if (optind < argc)
		o.input = argv[optind++];
	if (optind < argc) {
		dp_error_set(&err, "layout takes one TYPE and one FILE; '%s' is one too many",
			     argv[optind]);
		goto bad;
	}
	if (dp_layout_build(&o, &a, &err) < 0)
		goto fail;
	if (co.format == CLI_FMT_JSON)
		dp_layout_json(&a, stdout);
	else
		dp_layout_text(&a, stdout);
	dp_layout_free(&a);
	return 0;
bad:
	cli_error("%s", err.msg);
	return 2;
fail:
	cli_error("%s", err.msg);
	return 1;
}
