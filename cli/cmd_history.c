/* dataprof history */
#include "cli.h"
#include "history_opts.h"
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
	if (dp_history_add_levels(&o->add, err) < 0)
		return 2;
	if (!(h = dp_history_open(o->db, true, err)))
		return 1;
	rc = dp_history_add(h, (const char *const *)argv, (size_t)argc, &o->add, &added, err);
	dp_history_close(h);
	return rc < 0 ? 1 : 0;
}

static int show(hopts *o, dp_history *h, dp_error *err)
{
	if (o->html)
		return dp_history_page_save(h, &o->show, o->db, o->html, err) < 0 ? 1 : 0;
	return dp_history_show(h, &o->show, stdout, err) < 0 ? 1 : 0;
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

	if (argc != 1) {
		dp_error_set(err, "history %s takes one database: history --db DB %s %s", cmd, cmd,
			     import ? "FROM" : "TO");
		return 2;
	}
	if (dp_history_copy_db(import ? argv[0] : o->db, import ? o->db : argv[0], stderr, err) < 0)
		return 1;
	return 0;
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
	if ((rc = cli_history_parse(argc, argv, &o, usage)) != 0)
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
