/* dataprof layout */
#include "cli.h"
#include "../layout/layout.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof layout [OPTIONS] TYPE [FILE]\n"
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
		   "  -m, --metric M        samples, period (default) or weight\n"
		   "      --event NAME      the event (default: the profile's first)\n"
		   "  -w, --where EXPR      keep the samples that match (as report)\n"
		   "      --time START..END keep a time range\n"
		   "      --verdict LIST    keep these verdicts\n"
		   "  -n, --top N           memory lines shown (default 5)\n"
		   "      --json            JSON (schema dataprof-layout/1, docs/layout.md)\n"
		   "      --symfs DIR       look for the profiled binaries under DIR first\n"
		   "  -h, --help            show this help\n");
}

enum { O_DIFF = 256, O_LINE, O_EVENT, O_TIME, O_VERDICT, O_JSON, O_SYMFS };

int cmd_layout(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"diff", no_argument, 0, O_DIFF},
	    {"cacheline", required_argument, 0, O_LINE},
	    {"metric", required_argument, 0, 'm'},
	    {"event", required_argument, 0, O_EVENT},
	    {"where", required_argument, 0, 'w'},
	    {"time", required_argument, 0, O_TIME},
	    {"verdict", required_argument, 0, O_VERDICT},
	    {"top", required_argument, 0, 'n'},
	    {"json", no_argument, 0, O_JSON},
	    {"symfs", required_argument, 0, O_SYMFS},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	dp_layout_opts o, o2;
	dp_layout a, b;
	dp_error err = {{0}};
	bool diff = false, json = false;
	int c;
	uint64_t v;

	memset(&o, 0, sizeof(o));
	o.cacheline = 64;
	o.metric = DP_M_PERIOD;
	o.input = "dataprof.dprof";
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:w:n:h", opts, NULL)) != -1) {
		switch (c) {
		case O_DIFF:
			diff = true;
			break;
		case O_LINE:
			if (!dp_parse_u64(optarg, &v) || v < 8 || v > 4096 || (v & (v - 1))) {
				dp_error_set(&err,
					     "--cacheline '%s': a power of two from 8 to 4096",
					     optarg);
				goto bad;
			}
			o.cacheline = (unsigned)v;
			break;
		case 'm': {
			int m;

			if (cli_parse_metric(optarg, &m, &err) < 0)
				goto bad;
			o.metric = (dp_metric)m;
			break;
		}
		case O_EVENT:
			o.run.event = optarg;
			break;
		case 'w':
			o.run.where = optarg;
			break;
		case O_TIME:
			o.run.time_range = optarg;
			break;
		case O_VERDICT:
			if (cli_parse_verdicts(optarg, &o.run.verdicts, &err) < 0)
				goto bad;
			break;
		case 'n':
			if (!dp_parse_u64(optarg, &v) || !v) {
				dp_error_set(&err, "--top '%s': a positive count", optarg);
				goto bad;
			}
			o.top = (size_t)v;
			break;
		case O_JSON:
			json = true;
			break;
		case O_SYMFS:
			o.run.symfs = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "'dataprof layout --help' lists the options\n");
			return 2;
		}
	}
	if (diff) {
		if (argc - optind != 3) {
			dp_error_set(&err, "layout --diff takes BASE NEW TYPE: two profiles (or "
					   "binaries) and the type");
			goto bad;
		}
		if (json) {
			dp_error_set(&err,
				     "layout --diff writes text: run layout --json on each side");
			goto bad;
		}
		o2 = o;
		o.input = argv[optind];
		o2.input = argv[optind + 1];
		o.type = o2.type = argv[optind + 2];
		if (dp_layout_build(&o, &a, &err) < 0)
			goto fail;
		if (dp_layout_build(&o2, &b, &err) < 0) {
			dp_layout_free(&a);
			goto fail;
		}
		dp_layout_diff_text(&a, &b, stdout);
		dp_layout_free(&a);
		dp_layout_free(&b);
		return 0;
	}
	if (cli_check_filters(o.run.where, o.run.time_range) < 0)
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
	if (json)
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
