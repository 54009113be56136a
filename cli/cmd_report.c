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
	fprintf(f,
		"usage: dataprof report [OPTIONS] [FILE]\n\n"
		"Aggregates the samples of a profile (dataprof.dprof by default, or a\n"
		"perf.data file) by attributes, keeps chosen instances, and regroups them.\n"
		"Without --by: the data objects with their hottest members and lines.\n\n"
		"  -i, --input FILE      the profile\n"
		"  -b, --by A[,B...]     group by these attributes (together)\n"
		"  -t, --then C[,D...]   regroup each group by these (repeat for more levels)\n"
		"  -w, --where EXPR      keep the samples that match, e.g.\n"
		"                        'object=nodes and member~\"struct node.*\"'\n"
		"      --time START..END keep a time range (1s..2.5s, 100ms..)\n"
		"      --between A B     keep what each thread did from code mark A to its\n"
		"                        next mark B (record --markers)\n"
		"      --counters GLOBS  with --by time:WIDTH: system counter rates per bucket\n"
		"                        (record --counters), e.g. proc/stat/cpu_user\n"
		"      --verdict LIST    keep these verdicts: exact, verified, unverifiable,\n"
		"                        unresolvable, no-memory (default: all, each in its rows)\n"
		"  -m, --metric M        samples, period (default) or weight (latency)\n"
		"  -n, --top N[,M...]    rows shown per level (default 20, then 5)\n"
		"      --csv             CSV, one row per group at every level\n"
		"      --json            JSON (schema dataprof-report/1, docs/report.md)\n"
		"      --sqlite FILE     also write the samples and the rows to an SQLite file\n"
		"      --symfs DIR       look for the profiled binaries under DIR first\n"
		"      --width N         text width (default: the terminal's, or 80)\n"
		"  -j, --jobs N          read the samples in N threads (default: the CPUs this\n"
		"                        process may use); the output is the same for any N\n"
		"  -h, --help            show this help\n\n"
		"Attributes: %s.\n"
		"time takes a bucket width for --by: time:100ms.\n",
		dp_attr_all_names());
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"input", required_argument, 0, 'i'},
	    {"by", required_argument, 0, 'b'},
	    {"then", required_argument, 0, 't'},
	    {"where", required_argument, 0, 'w'},
	    {"time", required_argument, 0, 'T'},
	    {"verdict", required_argument, 0, 'V'},
	    {"metric", required_argument, 0, 'm'},
	    {"top", required_argument, 0, 'n'},
	    {"csv", no_argument, 0, 'C'},
	    {"json", no_argument, 0, 'J'},
	    {"sqlite", required_argument, 0, 'Q'},
	    {"symfs", required_argument, 0, 'S'},
	    {"width", required_argument, 0, 'W'},
	    {"help", no_argument, 0, 'h'},
	    {"between", required_argument, 0, 'B'},
	    {"counters", required_argument, 0, 'K'},
	    {"jobs", required_argument, 0, 'j'},
	    {0, 0, 0, 0},
	};
	dp_report_opts o;
	dp_out_format fmt = DP_OUT_TEXT;
	const char *sqlite = NULL;
	dp_error err = {{0}};
	dp_agg_level by = {0}, then[DP_AGG_MAX_LEVELS];
	int nthen = 0, c;
	bool have_by = false;
	uint64_t v;

	memset(&o, 0, sizeof(o));
	o.input = "dataprof.dprof";
	o.out = stdout;
	o.metric = DP_M_PERIOD;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:b:t:w:m:n:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'b':
			if (cli_parse_level(optarg, &by, &err) < 0)
				goto bad;
			have_by = true;
			break;
		case 't':
			if (nthen == DP_AGG_MAX_LEVELS - 1) {
				cli_error("at most %d --then levels", DP_AGG_MAX_LEVELS - 1);
				return 2;
			}
			if (cli_parse_level(optarg, &then[nthen++], &err) < 0)
				goto bad;
			break;
		case 'w':
			o.where = optarg;
			break;
		case 'T':
			o.time_range = optarg;
			break;
		case 'V':
			if (cli_parse_verdicts(optarg, &o.verdicts, &err) < 0)
				goto bad;
			break;
		case 'm': {
			int m;

			if (cli_parse_metric(optarg, &m, &err) < 0) {
				cli_error("%s", err.msg);
				return 2;
			}
			o.metric = (dp_metric)m;
			o.metric_given = true;
			break;
		}
		case 'n': {
			char *copy = dp_strdup(optarg), *save = NULL;
			int i = 0;
			for (char *t = strtok_r(copy, ",", &save); t && i < DP_AGG_MAX_LEVELS;
			     t = strtok_r(NULL, ",", &save), i++) {
				if (!dp_parse_u64(t, &v) || !v) {
					cli_error("--top '%s': positive counts, comma-separated",
						  optarg);
					free(copy);
					return 2;
				}
				o.top[i] = (size_t)v;
			}
			free(copy);
			break;
		}
		case 'C':
			fmt = DP_OUT_CSV;
			break;
		case 'J':
			fmt = DP_OUT_JSON;
			break;
		case 'Q':
			sqlite = optarg;
			break;
		case 'S':
			o.symfs = optarg;
			break;
		case 'B':
			if (optind >= argc || argv[optind][0] == '-') {
				cli_error("--between takes two markers: --between A B");
				return 2;
			}
			o.between[0] = optarg;
			o.between[1] = argv[optind++];
			break;
		case 'K':
			o.counters = optarg;
			break;
		case 'W':
			if (!dp_parse_u64(optarg, &v) || v < 40) {
				cli_error("--width needs 40 or more columns");
				return 2;
			}
			o.width = (int)v;
			break;
		case 'j':
			if (!dp_parse_u64(optarg, &v) || !v || v > 256) {
				cli_error("--jobs '%s': a number of threads from 1 to 256", optarg);
				return 2;
			}
			o.jobs = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "'dataprof report --help' lists the options\n");
			return 2;
		}
	}
	if (cli_one_profile(argc, argv, "report", &o.input) < 0)
		return 2;
	if (cli_check_filters(o.where, o.time_range) < 0)
		return 2;
	if (!have_by && nthen) {
		cli_error("--then regroups the groups of --by: give --by first");
		return 2;
	}
	if (!have_by) {
		/* the overview: data objects, their hottest members and lines */
		o.default_view = true;
		cli_parse_level("object", &by, &err);
		cli_parse_level("member", &then[0], &err);
		cli_parse_level("line", &then[1], &err);
		nthen = 2;
		for (int i = 0; i < 3; i++)
			if (!o.top[i])
				o.top[i] = i == 0 ? 10 : i == 1 ? 3 : 2;
	}
	if (o.counters && (by.attrs[0].id != DP_A_TIME || !by.attrs[0].bucket)) {
		cli_error("--counters shows rates per time bucket: use it with --by time:WIDTH "
			  "(time:100ms)");
		return 2;
	}
	o.levels[0] = by;
	for (int i = 0; i < nthen; i++)
		o.levels[i + 1] = then[i];
	o.nlevels = 1 + nthen;
	o.progress = dp_stderr_is_tty();
	if (!o.width && isatty(1)) {
		struct winsize ws;
		if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
			o.width = ws.ws_col;
	}
	if (dp_report_print(&o, fmt, sqlite, &err) < 0) {
		cli_error("%s", err.msg);
		return 1;
	}
	return 0;
bad:
	cli_error("%s", err.msg);
	return 2;
}
