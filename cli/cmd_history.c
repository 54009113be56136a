/* dataprof history */
#include "cli.h"
#include "../compare/history.h"
#include "../view/history_page.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	cli_usage(
	    f, 23,
	    "usage: dataprof history --db DB add [OPTIONS] PROFILE... --commit SHA\n"
	    "       dataprof history --db DB show [OPTIONS] [--html FILE]\n"
	    "       dataprof history --db DB check [OPTIONS] [PROFILE...] [--commit SHA]\n"
	    "       dataprof history --db DB import FROM\n"
	    "       dataprof history --db DB export TO\n\n"
	    "Keeps the aggregates of runs in a database, one row per key per run\n"
	    "(docs/history.md), shows how each key went over the commits, and checks\n"
	    "a commit against the commits before it.\n\n"
	    "  --db DB              an SQLite file (created when missing), or a PostgreSQL\n"
	    "                       database: postgresql://user@host/db or 'host=... dbname=...'\n"
	    "                       (the password from PGPASSWORD, ~/.pgpass or PGSERVICE)\n\n"
	    "add: stores each PROFILE as a run of the commit, once (docs/history.md)\n"
	    "  --commit SHA         the commit the runs are of (required)\n"
	    "  --commit-time TIME   when it was made (git log --format=%%cI; default: now):\n"
	    "                       commits are ordered by it\n"
	    "  --branch NAME        its branch\n"
	    "  --label TEXT         a note kept with each run\n"
	    "  -b, --by A[,B...]    an attribute list to keep (repeat; default: function,\n"
	    "                       line, object and member, each on its own)\n"
	    "  --event NAME         the event kept (default: the first)\n"
	    "@where\n"
	    "  -j, --jobs N         read each profile in N threads (default: the CPUs\n"
	    "                       this process may use); what is stored is the same\n\n"
	    "show: each key per commit, oldest first; * marks a change beyond noise\n"
	    "  --last N             the newest N commits (default 10)\n"
	    "  --html FILE          a page with a chart per key (offline, one file)\n"
	    "  --csv                CSV: commit, runs, key, value, beyond_noise\n\n"
	    "check: the commit's runs (or the PROFILEs) against a rolling baseline\n"
	    "  --commit SHA         the commit checked (its runs as stored)\n"
	    "  --baseline-commits N the last N commits of the branch before it (default 5)\n"
	    "  --baseline REF       a commit's runs, or the last N commits of branch REF\n"
	    "  --fail-if EXPR       exit %d when a change beyond noise crosses it (repeat;\n"
	    "                       as diff: 'member=struct node.next: period > +10%%')\n"
	    "  --markdown, --json   as diff (JSON: dataprof-history-check/1)\n\n"
	    "show and check:\n"
	    "  -b, --by A[,B...]    the attribute list (default member)\n"
	    "@metric\n"
	    "  --per UNIT           second (default), run, ginsn (as diff)\n"
	    "  --confidence P       level of the intervals (default 0.95)\n"
	    "  --noise CV           assume at least this run-to-run noise (as diff)\n"
	    "  --program NAME       the program (default: the newest run's)\n"
	    "  --event NAME         the event (default: the newest run's)\n"
	    "  --branch NAME        only runs of this branch\n"
	    "  -n, --top N          keys shown (default 20)\n\n"
	    "import FROM, export TO: copies every run from FROM (into TO), each once\n\n"
	    "@help\n\n"
	    "Exit status: 0, %d when a --fail-if held, 1 on errors, 2 on bad usage.\n",
	    CLI_EXIT_FAIL_IF, CLI_EXIT_FAIL_IF);
}

enum {
	O_DB = 256,
	O_COMMIT,
	O_COMMIT_TIME,
	O_BRANCH,
	O_LABEL,
	O_EVENT,
	O_LAST,
	O_PROGRAM,
	O_CSV,
	O_HTML,
	O_BASELINE,
	O_BASELINE_N,
};

typedef struct hopts {
	const char *db, *by_text, *html;
	char commit_time[32];
	dp_history_add_opts add;
	dp_history_show_opts show;
	dp_history_check_opts check;
	int nby;
} hopts;

/* history's own options */
static int history_opt(void *ctx, int c, const char *arg)
{
	hopts *o = ctx;
	dp_diff_opts *d = &o->show.diff;
	dp_error err = {{0}};
	uint64_t v;

	switch (c) {
	case O_DB:
		o->db = arg;
		break;
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
	case O_LABEL:
		o->add.label = arg;
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
	case O_EVENT:
		o->add.run.event = o->show.event = o->check.event = arg;
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
	case O_BASELINE:
		o->check.baseline = arg;
		break;
	case O_PROGRAM:
		o->show.program = o->check.program = arg;
		break;
	case O_CSV:
		o->show.csv = true;
		break;
	case O_HTML:
		o->html = arg;
		break;
	default:
		return CLI_OPT_SHARED;
	}
	return CLI_OPT_TAKEN;
}

/* The options into o: 0, or the status to exit with now (1: the help was
 * shown). */
static int parse(int argc, char **argv, hopts *o)
{
	static const struct option opts[] = {
	    {"db", required_argument, 0, O_DB},
	    {"commit", required_argument, 0, O_COMMIT},
	    {"commit-time", required_argument, 0, O_COMMIT_TIME},
	    {"branch", required_argument, 0, O_BRANCH},
	    {"label", required_argument, 0, O_LABEL},
	    CLI_OPT_BY,
	    {"event", required_argument, 0, O_EVENT},
	    CLI_OPT_WHERE,
	    CLI_OPT_JOBS,
	    {"last", required_argument, 0, O_LAST},
	    CLI_OPT_METRIC,
	    CLI_OPT_PER,
	    CLI_OPT_CONFIDENCE,
	    CLI_OPT_NOISE,
	    {"program", required_argument, 0, O_PROGRAM},
	    CLI_OPT_TOP,
	    {"csv", no_argument, 0, O_CSV}, /* show's, while --json is check's */
	    {"html", required_argument, 0, O_HTML},
	    {"baseline", required_argument, 0, O_BASELINE},
	    {"baseline-commits", required_argument, 0, O_BASELINE_N},
	    CLI_OPT_FAIL_IF,
	    CLI_OPT_JSON,
	    CLI_OPT_MARKDOWN,
	    CLI_OPT_HELP,
	    {0, 0, 0, 0},
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
	o->add.run.where = co.where;
	o->add.run.jobs = co.jobs;
	d->metric = co.metric;
	d->top = co.top[0];
	if (co.format == CLI_FMT_JSON)
		o->check.format = DP_HF_JSON;
	else if (co.format == CLI_FMT_MARKDOWN)
		o->check.format = DP_HF_MARKDOWN;
	return 0;
}

static int add(hopts *o, int argc, char **argv, dp_error *err)
{
	dp_history *h;
	size_t added;
	int rc;

	o->add.nby = o->nby;
	if (!o->add.commit) {
		dp_error_set(err, "history add needs --commit SHA: the commit the runs are of");
		return 2;
	}
	if (!argc) {
		dp_error_set(err, "history add needs a PROFILE to store");
		return 2;
	}
	if (!o->add.nby) {
		static const char *const defaults[] = {"function", "line", "object", "member"};

		for (size_t i = 0; i < DP_ARRAY_LEN(defaults); i++)
			cli_parse_level(defaults[i], &o->add.by[o->add.nby++], err);
	}
	for (int i = 0; i < o->add.nby; i++)
		for (int k = 0; k < o->add.by[i].nattrs; k++) {
			const char *why = dp_rtable_unstable(o->add.by[i].attrs[k].id);

			if (why) {
				dp_error_set(err,
					     "--by %s: %s: keep function, line, object or member",
					     dp_attr_name(o->add.by[i].attrs[k].id), why);
				return 2;
			}
		}
	if (!(h = dp_history_open(o->db, true, err)))
		return 1;
	rc = dp_history_add(h, (const char *const *)argv, (size_t)argc, &o->add, &added, err);
	dp_history_close(h);
	return rc < 0 ? 1 : 0;
}

static int show(hopts *o, dp_history *h, dp_error *err)
{
	dp_history_model m;
	FILE *f;
	int rc;

	if (!o->html)
		return dp_history_show(h, &o->show, stdout, err) < 0 ? 1 : 0;
	if (dp_history_model_build(h, &o->show, &m, err) < 0) {
		dp_history_model_free(&m);
		return 1;
	}
	if (!(f = fopen(o->html, "w"))) {
		dp_error_set(err, "cannot write %s: %m", o->html);
		dp_history_model_free(&m);
		return 1;
	}
	rc = dp_history_page_write(&m, o->db, f, err);
	if (fclose(f) != 0 && !rc) {
		dp_error_set(err, "cannot write %s: %m", o->html);
		rc = -1;
	}
	dp_history_model_free(&m);
	return rc < 0 ? 1 : 0;
}

static int check(hopts *o, dp_history *h, int argc, char **argv, dp_error *err)
{
	bool failed;

	o->check.diff = o->show.diff;
	o->check.profiles = (const char *const *)argv;
	o->check.nprofiles = (size_t)argc;
	if (!argc && !o->check.commit) {
		dp_error_set(err, "history check needs --commit SHA (its stored runs) or the "
				  "PROFILEs to check");
		return 2;
	}
	if (dp_history_check(h, &o->check, stdout, &failed, err) < 0)
		return 1;
	return failed ? CLI_EXIT_FAIL_IF : 0;
}

static int copy(hopts *o, const char *cmd, int argc, char **argv, dp_error *err)
{
	bool import = !strcmp(cmd, "import");
	dp_history *from, *to;
	size_t copied, present;
	int rc;

	if (argc != 1) {
		dp_error_set(err, "history %s takes one database: history --db DB %s %s", cmd, cmd,
			     import ? "FROM" : "TO");
		return 2;
	}
	if (!(from = dp_history_open(import ? argv[0] : o->db, false, err)))
		return 1;
	if (!(to = dp_history_open(import ? o->db : argv[0], true, err))) {
		dp_history_close(from);
		return 1;
	}
	rc = dp_history_copy(from, to, &copied, &present, err);
	if (!rc)
		fprintf(stderr, "dataprof: %zu run%s copied into %s, %zu there already\n", copied,
			copied == 1 ? "" : "s", dp_history_name(to), present);
	dp_history_close(from);
	dp_history_close(to);
	return rc < 0 ? 1 : 0;
}

int cmd_history(int argc, char **argv)
{
	static const char *const cmds[] = {"add", "show", "check", "import", "export"};
	dp_error err = {{0}};
	hopts o;
	const char *cmd = NULL;
	dp_history *h;
	int rc;

	memset(&o, 0, sizeof(o));
	if ((rc = parse(argc, argv, &o)) != 0)
		return rc == 1 ? 0 : rc;
	if (!o.db) {
		dp_error_set(&err,
			     "history needs --db FILE (SQLite) or --db postgresql://... : the "
			     "database that keeps the runs");
		goto bad;
	}
	for (size_t i = 0; optind < argc && i < DP_ARRAY_LEN(cmds); i++)
		if (!strcmp(argv[optind], cmds[i]))
			cmd = cmds[i];
	if (!cmd) {
		dp_error_set(&err, "history: say add, show, check, import or export%s%s%s",
			     optind < argc ? " ('" : "", optind < argc ? argv[optind] : "",
			     optind < argc ? "' is none of them)" : "");
		goto bad;
	}
	argc -= optind + 1;
	argv += optind + 1;
	if (!strcmp(cmd, "add")) {
		rc = add(&o, argc, argv, &err);
		goto done;
	}
	if (!strcmp(cmd, "import") || !strcmp(cmd, "export")) {
		rc = copy(&o, cmd, argc, argv, &err);
		goto done;
	}
	if (!strcmp(cmd, "show") && argc) {
		dp_error_set(&err, "history show reads the --db only; '%s' is one too many",
			     argv[0]);
		goto bad;
	}
	if (o.nby > 1) {
		dp_error_set(&err, "history %s takes one --by list", cmd);
		goto bad;
	}
	if (!o.show.diff.by.nattrs)
		cli_parse_level("member", &o.show.diff.by, &err);
	o.show.diff.by_text = o.by_text ? o.by_text : "member";
	/* check starts an empty history: a branch's first commit has no baseline */
	if (!(h = dp_history_open(o.db, !strcmp(cmd, "check"), &err))) {
		rc = 1;
		goto done;
	}
	rc = !strcmp(cmd, "show") ? show(&o, h, &err) : check(&o, h, argc, argv, &err);
	dp_history_close(h);
done:
	if (rc == 1 || rc == 2)
		cli_error("%s", err.msg);
	return rc;
bad:
	cli_error("%s", err.msg);
	return 2;
}
