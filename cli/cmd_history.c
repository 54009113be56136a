/* dataprof history */
#include "cli.h"
#include "../compare/history.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof history --db FILE add [OPTIONS] PROFILE... --commit SHA\n"
		   "       dataprof history --db FILE show [OPTIONS]\n\n"
		   "Keeps the aggregates of runs in an SQLite file, one row per key per run\n"
		   "(tables in docs/diff.md), and shows how each key went over the commits.\n\n"
		   "  --db FILE            the history (created when missing)\n\n"
		   "add: stores each PROFILE as a run of the commit\n"
		   "  --commit SHA         the commit the runs are of (required)\n"
		   "  --branch NAME        its branch\n"
		   "  --label TEXT         a note kept with each run\n"
		   "  -b, --by A[,B...]    an attribute list to keep (repeat; default: function,\n"
		   "                       line, object and member, each on its own)\n"
		   "  --event NAME         the event kept (default: the first)\n"
		   "  -w, --where EXPR     keep the samples that match (as report)\n\n"
		   "show: each key per commit, oldest first; * marks a change beyond noise\n"
		   "  -b, --by A[,B...]    the attribute list (default member)\n"
		   "  --last N             the newest N commits (default 10)\n"
		   "  -m, --metric M       samples, period (default) or weight\n"
		   "  --per UNIT           second (default), run, ginsn (as diff)\n"
		   "  --confidence P       level of the intervals (default 0.95)\n"
		   "  --noise CV           assume at least this run-to-run noise (as diff)\n"
		   "  --program NAME       the program (default: the newest run's)\n"
		   "  --event NAME         the event (default: the newest run's)\n"
		   "  --branch NAME        only runs of this branch\n"
		   "  -n, --top N          keys shown (default 20)\n"
		   "  --csv                CSV: commit, runs, key, value, beyond_noise\n\n"
		   "  -h, --help           show this help\n");
}

enum {
	O_DB = 256,
	O_COMMIT,
	O_BRANCH,
	O_LABEL,
	O_EVENT,
	O_LAST,
	O_PER,
	O_CONF,
	O_NOISE,
	O_PROGRAM,
	O_CSV
};

static bool fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return false;
	if (*end == '%' && !end[1])
		v /= 100;
	else if (*end)
		return false;
	*out = v;
	return v >= 0 && v < 1;
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, 0, O_DB},
	    {"commit", required_argument, 0, O_COMMIT},
	    {"branch", required_argument, 0, O_BRANCH},
	    {"label", required_argument, 0, O_LABEL},
	    {"by", required_argument, 0, 'b'},
	    {"event", required_argument, 0, O_EVENT},
	    {"where", required_argument, 0, 'w'},
	    {"last", required_argument, 0, O_LAST},
	    {"metric", required_argument, 0, 'm'},
	    {"per", required_argument, 0, O_PER},
	    {"confidence", required_argument, 0, O_CONF},
	    {"noise", required_argument, 0, O_NOISE},
	    {"program", required_argument, 0, O_PROGRAM},
	    {"top", required_argument, 0, 'n'},
	    {"csv", no_argument, 0, O_CSV},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	dp_history_add_opts add;
	dp_history_show_opts show;
	dp_error err = {{0}};
	const char *db = NULL, *by_text = NULL;
	dp_history *h;
	int c, rc = 2;
	uint64_t v;

	memset(&add, 0, sizeof(add));
	memset(&show, 0, sizeof(show));
	show.diff.metric = DP_M_PERIOD;
	show.diff.confidence = 0.95;
	show.diff.line_tolerance = 5;
	show.last = 10;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:w:m:n:h", opts, NULL)) != -1) {
		switch (c) {
		case O_DB:
			db = optarg;
			break;
		case O_COMMIT:
			add.commit = optarg;
			break;
		case O_BRANCH:
			add.branch = show.branch = optarg;
			break;
		case O_LABEL:
			add.label = optarg;
			break;
		case 'b':
			if (add.nby == DP_HISTORY_MAX_BY) {
				dp_error_set(&err, "at most %d --by lists", DP_HISTORY_MAX_BY);
				goto bad;
			}
			if (cli_parse_level(optarg, &add.by[add.nby++], &err) < 0)
				goto bad;
			show.diff.by = add.by[add.nby - 1];
			by_text = optarg;
			break;
		case O_EVENT:
			add.run.event = show.event = optarg;
			break;
		case 'w':
			add.run.where = optarg;
			break;
		case O_LAST:
			if (!dp_parse_u64(optarg, &v) || !v) {
				dp_error_set(&err, "--last '%s': a positive number of commits",
					     optarg);
				goto bad;
			}
			show.last = (size_t)v;
			break;
		case 'm': {
			int m;

			if (cli_parse_metric(optarg, &m, &err) < 0)
				goto bad;
			show.diff.metric = (dp_metric)m;
			break;
		}
		case O_PER: {
			int p;
			for (p = 0; p < DP_PER_INTERVAL; p++)
				if (!strcmp(optarg, dp_diff_per_name((dp_diff_per)p)))
					break;
			if (p == DP_PER_INTERVAL) {
				dp_error_set(&err, "--per '%s': use second, run or ginsn", optarg);
				goto bad;
			}
			show.diff.per = (dp_diff_per)p;
			break;
		}
		case O_CONF:
			if (!fraction(optarg, &show.diff.confidence) || show.diff.confidence <= 0) {
				dp_error_set(&err,
					     "--confidence '%s': a level between 0 and 1 (0.95)",
					     optarg);
				goto bad;
			}
			break;
		case O_NOISE:
			if (!fraction(optarg, &show.diff.noise)) {
				dp_error_set(
				    &err, "--noise '%s': a fraction (0.05) or a percentage (5%%)",
				    optarg);
				goto bad;
			}
			break;
		case O_PROGRAM:
			show.program = optarg;
			break;
		case 'n':
			if (!dp_parse_u64(optarg, &v) || !v) {
				dp_error_set(&err, "--top '%s': a positive count", optarg);
				goto bad;
			}
			show.diff.top = (size_t)v;
			break;
		case O_CSV:
			show.csv = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "'dataprof history --help' lists the options\n");
			return 2;
		}
	}
	if (!db) {
		dp_error_set(&err, "history needs --db FILE: the SQLite file that keeps the runs");
		goto bad;
	}
	if (optind >= argc || (strcmp(argv[optind], "add") && strcmp(argv[optind], "show"))) {
		dp_error_set(&err, "history: say 'add PROFILE... --commit SHA' or 'show'%s%s%s",
			     optind < argc ? " ('" : "", optind < argc ? argv[optind] : "",
			     optind < argc ? "' is neither)" : "");
		goto bad;
	}
	if (!strcmp(argv[optind], "add")) {
		if (!add.commit) {
			dp_error_set(&err,
				     "history add needs --commit SHA: the commit the runs are of");
			goto bad;
		}
		if (optind + 1 >= argc) {
			dp_error_set(&err, "history add needs a PROFILE to store");
			goto bad;
		}
		if (!add.nby) {
			static const char *const defaults[] = {"function", "line", "object",
							       "member"};

			for (size_t i = 0; i < DP_ARRAY_LEN(defaults); i++)
				cli_parse_level(defaults[i], &add.by[add.nby++], &err);
		}
		for (int i = 0; i < add.nby; i++)
			for (int k = 0; k < add.by[i].nattrs; k++) {
				const char *why = dp_rtable_unstable(add.by[i].attrs[k].id);

				if (why) {
					dp_error_set(&err,
						     "--by %s: %s: keep function, line, object or "
						     "member",
						     dp_attr_name(add.by[i].attrs[k].id), why);
					goto bad;
				}
			}
		if (!(h = dp_history_open(db, &err)))
			goto fail;
		for (int i = optind + 1; i < argc; i++)
			if (dp_history_add(h, argv[i], &add, &err) < 0) {
				dp_history_close(h);
				goto fail;
			}
		dp_history_close(h);
		return 0;
	}
	if (optind + 1 < argc) {
		dp_error_set(&err, "history show reads the --db only; '%s' is one too many",
			     argv[optind + 1]);
		goto bad;
	}
	if (!show.diff.by.nattrs)
		cli_parse_level("member", &show.diff.by, &err);
	if (add.nby > 1) {
		dp_error_set(&err, "history show takes one --by list");
		goto bad;
	}
	show.diff.by_text = by_text ? by_text : "member";
	if (!(h = dp_history_open(db, &err)))
		goto fail;
	rc = dp_history_show(h, &show, stdout, &err) < 0 ? 1 : 0;
	dp_history_close(h);
	if (rc)
		goto fail;
	return 0;
bad:
	cli_error("%s", err.msg);
	return rc;
fail:
	cli_error("%s", err.msg);
	return 1;
}
