/* dataprof annotate */
#include "cli.h"
#include "../srcview/srcview.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dataprof annotate [OPTIONS] [FUNCTION-GLOB | FILE:LINE]\n\n"
		"A function's source lines interleaved with its disassembly; each\n"
		"instruction with its samples and share, the verdict mix, the data objects\n"
		"and type.member paths it touched, the memory levels and mean weight.\n"
		"Without a function: the hottest ones.\n\n"
		"  -i, --input FILE      the profile (dataprof.dprof by default, or perf.data)\n"
		"      --object SPEC     only the samples on data objects matching this glob\n"
		"  -w, --where EXPR      keep the samples that match (as report's --where)\n"
		"      --time START..END keep a time range (1s..2.5s)\n"
		"  -n, --top N           functions shown (default 5)\n"
		"      --source-dir DIR  look for the source files under DIR\n"
		"      --prefix-strip N  drop N leading components of the compiled paths\n"
		"  -M, --syntax SYNTAX   att (default) or intel\n"
		"      --json            JSON (schema dataprof-annotate/1, docs/annotate-cmd.md)\n"
		"      --symfs DIR       look for the profiled binaries under DIR first\n"
		"  -h, --help            show this help\n");
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"input", required_argument, 0, 'i'},
	    {"object", required_argument, 0, 'O'},
	    {"where", required_argument, 0, 'w'},
	    {"time", required_argument, 0, 'T'},
	    {"top", required_argument, 0, 'n'},
	    {"source-dir", required_argument, 0, 'D'},
	    {"prefix-strip", required_argument, 0, 'P'},
	    {"syntax", required_argument, 0, 'M'},
	    {"json", no_argument, 0, 'J'},
	    {"symfs", required_argument, 0, 'S'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	dp_srcview_opts o;
	dp_srcview v;
	dp_error err = {{0}};
	uint64_t n;
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	o.input = "dataprof.dprof";
	o.out = stdout;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:w:n:M:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'O':
			o.object = optarg;
			break;
		case 'w':
			o.where = optarg;
			break;
		case 'T':
			o.time_range = optarg;
			break;
		case 'n':
			if (!dp_parse_u64(optarg, &n) || !n) {
				cli_error("--top '%s': a positive number of functions", optarg);
				return 2;
			}
			o.top = (size_t)n;
			break;
		case 'D':
			o.source_dir = optarg;
			break;
		case 'P':
			if (!dp_parse_u64(optarg, &n) || n > 64) {
				cli_error("--prefix-strip '%s': a number of path components (0-64)",
					  optarg);
				return 2;
			}
			o.prefix_strip = (unsigned)n;
			break;
		case 'M':
			if (!strcmp(optarg, "intel"))
				o.intel = true;
			else if (strcmp(optarg, "att")) {
				cli_error("-M '%s': att or intel", optarg);
				return 2;
			}
			break;
		case 'J':
			o.json = true;
			break;
		case 'S':
			o.symfs = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "'dataprof annotate --help' lists the options\n");
			return 2;
		}
	}
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
	if (cli_check_filters(o.where, o.time_range) < 0)
		return 2;
	if (dp_srcview_build(&o, &v, &err) < 0 || dp_srcview_print(&v, &err) < 0) {
		cli_error("%s", err.msg);
		rc = 1;
	}
	dp_srcview_free(&v);
	return rc;
}
