/* dataprof history: three commits of the layout fixture (A, A, then B)
 * stored in SQLite; show finds the step of struct item.b at the third and
 * none at the second, follows lines that moved, and the tables hold what
 * docs/diff.md says; bad input gets one line.
 *
 * The runs count simulated L1d misses (sim:, deterministic), so that the
 * two commits of layout A are the same and "no change at the second" is a
 * fact, not a bet: with cpu-clock, two runs a commit on a loaded machine
 * once put .b 29% lower at c2 than c1, beyond the noise the runs showed
 * (CI, stop 22). Without the simulator the runs are cpu-clock and only the
 * step at c3 is asserted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

static char *db;
static bool deterministic; /* sim: runs, not cpu-clock */

static char *record(const char *fixture, const char *name)
{
	char *out = tu_path(name), *fx = tu_fixture(fixture);
	/* under the simulator, less work: the same misses, a tenth the time */
	char *cmd = dp_asprintf(deterministic ? "'%s' 200000 16" : "'%s'", fx);
	tu_result res;

	assert_int_equal(
	    rec_run(&res, out,
		    deterministic ? "--heap -e sim:l1d-miss -c 100" : "--heap -e cpu-clock -F 4000",
		    cmd),
	    0);
	tu_result_free(&res);
	free(cmd);
	free(fx);
	return out;
}

static void add(const char *commit, const char *a, const char *b, const char *opts)
{
	tu_result res;

	if (tu_sh(&res, "'%s' history --db '%s' add %s '%s' '%s' --commit %s", DATAPROF_BIN, db,
		  opts, a, b, commit) != 0)
		fail_msg("history add: %s", res.err);
	tu_result_free(&res);
}

/* Three commits, two runs each, recorded in turn. */
static void fill(void)
{
	char *p[6];

	if (db)
		return;
	db = tu_path("history.sqlite");
	for (int i = 0; i < 6; i++) {
		char name[32];

		snprintf(name, sizeof(name), "h%d.dprof", i);
		p[i] = record(i % 3 == 2 ? "b/layout_O2" : "layout_O2", name);
	}
	add("c1", p[0], p[3], "");
	add("c2", p[1], p[4], "--branch main --label 'second run'");
	add("c3", p[2], p[5], "--by member --by line");
	for (int i = 0; i < 6; i++)
		free(p[i]);
}

static long query_long(const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long v = -1;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static void test_tables(void **state)
{
	(void)state;
	fill();
	assert_int_equal(query_long("SELECT count(*) FROM runs"), 6);
	assert_int_equal(query_long("SELECT count(DISTINCT commit_sha) FROM runs"), 3);
	assert_int_equal(query_long("SELECT count(*) FROM history_meta WHERE key = 'schema' AND "
				    "value = 'dataprof-history/2'"),
			 1);
	/* the default lists, then the ones asked for */
	assert_int_equal(query_long("SELECT count(DISTINCT attrs) FROM aggregates a JOIN runs r ON "
				    "r.id = a.run_id WHERE r.commit_sha = 'c1'"),
			 4);
	assert_int_equal(query_long("SELECT count(DISTINCT attrs) FROM aggregates a JOIN runs r ON "
				    "r.id = a.run_id WHERE r.commit_sha = 'c3'"),
			 2);
	assert_int_equal(query_long("SELECT count(*) FROM runs WHERE branch = 'main' AND label = "
				    "'second run'"),
			 2);
	/* a run's keys add up to what it kept */
	long kept = query_long("SELECT samples_kept FROM runs WHERE id = 1");
	long sum = query_long("SELECT sum(samples) FROM aggregates WHERE run_id = 1 AND attrs = "
			      "'member'");
	printf("run 1: %ld samples kept, %ld in its member rows\n", kept, sum);
	assert_true(kept > 500);
	assert_int_equal(kept, sum);
	/* layout A's four runs stall on .b, every one; in B (c3) .b hits the line
	 * .a just missed, and a run of B may have no sample on it at all */
	assert_int_equal(query_long("SELECT count(*) FROM aggregates a JOIN runs r ON r.id = "
				    "a.run_id WHERE key = 'struct item.b' AND attrs = 'member' AND "
				    "r.commit_sha IN ('c1', 'c2')"),
			 4);
	assert_true(query_long("SELECT count(*) FROM aggregates a JOIN runs r ON r.id = "
			       "a.run_id WHERE key = 'struct item.b' AND attrs = 'member' AND "
			       "r.commit_sha = 'c3'") <= 2);
}

static void test_show(void **state)
{
	tu_result res;
	char *save = NULL;
	int seen = 0;

	(void)state;
	fill();
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' show --per run --last 3", DATAPROF_BIN, db), 0);
	printf("%s", res.out);
	assert_non_null(strstr(res.out, deterministic
					    ? "# dataprof history of layout_O2, event sim:l1d-miss"
					    : "# dataprof history of layout_O2, event cpu-clock"));
	tu_result_free(&res);
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' show --per run --csv", DATAPROF_BIN, db), 0);
	for (char *l = strtok_r(res.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char commit[16];
		double v;
		int runs, flag;

		if (sscanf(l, "\"%15[^\"]\",%d,\"struct item.b\",%lf,%d", commit, &runs, &v,
			   &flag) != 4)
			continue;
		printf("struct item.b at %s (%d runs): %.3g %s\n", commit, runs, v,
		       flag ? "changed beyond noise" : "");
		assert_int_equal(runs, 2);
		/* c2 is layout A again: unchanged, when runs repeat exactly */
		if (deterministic || !strcmp(commit, "c3"))
			assert_int_equal(flag, !strcmp(commit, "c3"));
		seen++;
	}
	assert_int_equal(seen, 3);
	tu_result_free(&res);
	/* by line: the line of .b is followed from layout A's number to B's */
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' show --per run --by line --csv", DATAPROF_BIN, db),
	    0);
	save = NULL;
	seen = 0;
	for (char *l = strtok_r(res.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		seen += !strncmp(l, "\"c3\"", 4) || !strncmp(l, "\"c1\"", 4);
	assert_true(seen > 4);
	tu_result_free(&res);
	/* only c3 stored by line: the trend starts there */
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' show --by line --last 1", DATAPROF_BIN, db), 0);
	assert_non_null(strstr(res.out, "the last 1 commit"));
	tu_result_free(&res);
}

/* Bad input after --db DB, and the one line it gets. */
static const char *const bad_after_db[][2] = {
    {"add x.dprof", "history add needs --commit SHA"},
    {"add --commit c4", "history add needs a PROFILE"},
    {"frob", "'frob' is none of them"},
    {"show --by caller", "holds no run stored by caller"},
    {"show --by objekt", "unknown attribute 'objekt'"},
    {"add --by addr --commit c4 x.dprof", "--by addr: addresses move"},
    {"add --commit c4 /nonexistent.dprof", "/nonexistent.dprof"},
};

static void test_bad_input(void **state)
{
	char *text = tu_path("not-a-db.txt");
	FILE *f = fopen(text, "w");

	(void)state;
	fill();
	fputs("this is not a database, but it is long enough to be read as one\n", f);
	fclose(f);
	rec_expect_error(0, "history needs --db FILE", "history show");
	for (size_t i = 0; i < DP_ARRAY_LEN(bad_after_db); i++)
		rec_expect_error(0, bad_after_db[i][1], "history --db '%s' %s", db,
				 bad_after_db[i][0]);
	rec_expect_error(0, "not-a-db.txt", "history --db '%s' show", text);
	free(text);
}

static int teardown(void **state)
{
	(void)state;
	free(db);
	tu_cleanup();
	return 0;
}

/* sim: events when this machine has them: the same run twice; cpu-clock
 * otherwise */
static void choose_event(void)
{
	const char *why;

	deterministic = rec_have_sim(&why);
	if (!deterministic) {
		tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT);
		printf("test_history: cpu-clock runs (%s): c2's flag is not asserted\n", why);
	}
}

TU_MAIN_AFTER(choose_event(), NULL, teardown, test_tables, test_show, test_bad_input)
