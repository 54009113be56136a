/* dataprof history check, the CI gate against a rolling baseline: ten
 * commits of the layout fixture, two runs each; from commit 7 on struct
 * item.b sits on a colder cache line than .a (layout A; 1-6 are layout B,
 * where .b shares .a's line). Checked against the last 5 commits before
 * each, with a threshold on any member: commits 1-6 pass (1 has no
 * baseline), 7 fails and names struct item.b. The same history in
 * SQLite and in PostgreSQL gives the same answers, byte for byte.
 *
 * Runs are real recordings -- three of each layout -- and each commit's two
 * runs are copies of two of them with a META record of their own
 * (rec_copy_tagged): distinct runs to the history, at the cost of a copy.
 * They count simulated L1d misses (sim:, deterministic) where the simulator
 * is built, so that layout B's commits are the same to the gate and not
 * only most of the time; cpu-clock otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_util.h"
#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

#define COMMITS	  10
#define REGRESSED 7 /* the first commit of layout A */
#define FAIL_IF	  "period > +50%"
#define FAIL_FMT  "period > +50%%" /* in a format */

static char *sqlite_db, *pg_db;
static tu_pg pg;
static char *json[2][COMMITS + 1]; /* check --json per store and commit */
static int status[2][COMMITS + 1];
static const char *event = "cpu-clock", *opts = "--heap -e cpu-clock -F 4000", *args = "";

static void add_all(const char *db, char *const prof[COMMITS + 1][2])
{
	for (int c = 1; c <= COMMITS; c++) {
		tu_result res;

		if (tu_sh(&res,
			  "'%s' history --db '%s' add --commit c%02d --commit-time "
			  "2024-03-%02dT12:00:00+01:00 --branch main '%s' '%s'",
			  DATAPROF_BIN, db, c, c, prof[c][0], prof[c][1]) != 0)
			fail_msg("history add c%02d: %s", c, res.err);
		tu_result_free(&res);
	}
}

/* The ten commits' runs, stored in SQLite (and PostgreSQL when it runs). */
static void fill(void)
{
	char *rec[2][3], *prof[COMMITS + 1][2];

	if (sqlite_db)
		return;
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "a%d.dprof", i);
		rec[0][i] = rec_fixture("layout_O2", args, opts, name);
		snprintf(name, sizeof(name), "b%d.dprof", i);
		rec[1][i] = rec_fixture("b/layout_O2", args, opts, name);
	}
	for (int c = 1; c <= COMMITS; c++)
		for (int k = 0; k < 2; k++) {
			char name[32], tag[32];

			snprintf(name, sizeof(name), "c%02d-%d.dprof", c, k);
			snprintf(tag, sizeof(tag), "c%02d/%d", c, k);
			prof[c][k] = tu_path(name);
			rec_copy_tagged(rec[c < REGRESSED][(c + k) % 3], prof[c][k], "test_copy",
					tag);
		}
	sqlite_db = tu_path("history.sqlite");
	add_all(sqlite_db, prof);
	if (tu_pg_start(&pg)) {
		pg_db = tu_pg_createdb(&pg, "gate");
		add_all(pg_db, prof);
	}
	for (int c = 1; c <= COMMITS; c++)
		for (int k = 0; k < 2; k++)
			free(prof[c][k]);
	for (int i = 0; i < 3; i++) {
		free(rec[0][i]);
		free(rec[1][i]);
	}
}

/* The member rows of check's JSON that made the --fail-if hold. */
static void failing_members(const char *j, char *out, size_t len)
{
	const char *p = j;

	out[0] = 0;
	while ((p = strstr(p, "{\"key\":{\"member\":"))) {
		const char *name = p + strlen("{\"key\":{\"member\":\""), *end = strchr(name, '"');
		const char *fails = strstr(p, "\"fail_if\":[");

		if (!end || !fails)
			break;
		if (fails[strlen("\"fail_if\":[")] != ']')
			snprintf(out + strlen(out), len - strlen(out), "%s%.*s", *out ? ", " : "",
				 (int)(end - name), name);
		p = end;
	}
}

static void check_all(int store, const char *db)
{
	for (int c = 1; c <= COMMITS; c++) {
		tu_result res;
		char failing[512];

		status[store][c] = tu_sh(&res,
					 "'%s' history --db '%s' check --commit c%02d --per run "
					 "--fail-if '" FAIL_FMT "' --json",
					 DATAPROF_BIN, db, c);
		json[store][c] = res.out;
		res.out = NULL;
		failing_members(json[store][c], failing, sizeof(failing));
		printf("%s: commit %d: exit %d%s%s%s\n", store ? "PostgreSQL" : "SQLite", c,
		       status[store][c], *failing ? " (" : "", failing, *failing ? ")" : "");
		if (status[store][c] != 0 && status[store][c] != 3)
			fail_msg("check c%02d: %s", c, res.err);
		tu_result_free(&res);
	}
}

static void expect_gate(int store)
{
	char failing[512];

	/* the first commit has nothing to compare with */
	assert_non_null(strstr(json[store][1], "\"diff\":null"));
	for (int c = 1; c < REGRESSED; c++)
		if (status[store][c] != 0)
			fail_msg("commit %d (layout B like its baseline) failed the gate: %s", c,
				 json[store][c]);
	assert_int_equal(status[store][REGRESSED], 3);
	failing_members(json[store][REGRESSED], failing, sizeof(failing));
	if (!strstr(failing, "struct item.b"))
		fail_msg("commit %d failed on '%s', not struct item.b", REGRESSED, failing);
	/* its baseline: the five commits before it, of its branch */
	assert_non_null(strstr(json[store][REGRESSED],
			       "\"baseline\":{\"branch\":\"main\",\"commits\":[\"c02\",\"c03\","
			       "\"c04\",\"c05\",\"c06\"]}"));
}

/* tests/schema/check_history.py MODE (and its input) against docs/schema:
 * fails the test, naming what it checked, unless it passes; its output in
 * res. */
static void history_schema(tu_result *res, const char *what, const char *mode)
{
	if (tu_sh(res, "/usr/bin/python3 '%s/tests/schema/check_history.py' '%s/docs/schema' %s",
		  SOURCE_DIR, SOURCE_DIR, mode) != 0)
		fail_msg("%s against its schema: %s", what, res->err);
}

/* The JSON as docs/schema/history-check.schema.json says (diff's inside). */
static void expect_schema(const char *doc)
{
	char *path = tu_path("check.json"), *mode;
	FILE *f = fopen(path, "w");
	tu_result res;

	assert_non_null(f);
	fputs(doc, f);
	fclose(f);
	mode = dp_asprintf("check < '%s'", path);
	history_schema(&res, "check --json", mode);
	printf("%s", res.out);
	tu_result_free(&res);
	free(mode);
	free(path);
}

static void test_gate_sqlite(void **state)
{
	tu_result res;
	char *page, *title, *mode;

	(void)state;
	fill();
	check_all(0, sqlite_db);
	expect_gate(0);
	expect_schema(json[0][1]);
	expect_schema(json[0][REGRESSED]);
	/* the trend page: its data as documented, the step to commit 7 in it */
	page = tu_path("history.html");
	assert_int_equal(tu_sh(&res, "'%s' history --db '%s' show --per run --html '%s'",
			       DATAPROF_BIN, sqlite_db, page),
			 0);
	tu_result_free(&res);
	mode = dp_asprintf("page '%s'", page);
	history_schema(&res, "the page's data", mode);
	free(mode);
	printf("page: %s", res.out);
	assert_non_null(strstr(res.out, "commits=10 "));
	assert_non_null(strstr(res.out, "6")); /* index 6: c07 */
	tu_result_free(&res);
	free(page);
	/* Markdown as diff's, the failing row named and marked */
	assert_int_equal(tu_sh(&res,
			       "'%s' history --db '%s' check --commit c%02d --per run --fail-if "
			       "'" FAIL_FMT "' --markdown",
			       DATAPROF_BIN, sqlite_db, REGRESSED),
			 3);
	printf("%s", res.out);
	title = dp_asprintf("#### dataprof history check of c07 against the last 5 commits of main "
			    "(c02..c06): layout_O2, %s",
			    event);
	assert_non_null(strstr(res.out, title));
	free(title);
	assert_non_null(strstr(res.out, "**Failed:** `" FAIL_IF "`"));
	assert_non_null(strstr(res.out, "| ▲ | `struct item.b` |"));
	tu_result_free(&res);
	/* a named baseline: one commit's runs */
	assert_int_equal(tu_sh(&res,
			       "'%s' history --db '%s' check --commit c08 --baseline c0 --per run",
			       DATAPROF_BIN, sqlite_db),
			 1);
	assert_non_null(strstr(res.err, "'c0' is the start of c01, c02 and more"));
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res,
			       "'%s' history --db '%s' check --commit c08 --baseline c06 --per run "
			       "--fail-if 'member=struct item.b: period > +50%%' --markdown",
			       DATAPROF_BIN, sqlite_db),
			 3);
	assert_non_null(strstr(res.out, "check of c08 against commit c06"));
	tu_result_free(&res);
}

static void test_gate_postgresql(void **state)
{
	(void)state;
	fill();
	tu_pg_require(&pg);
	check_all(1, pg_db);
	expect_gate(1);
	if (!json[0][COMMITS])
		check_all(0, sqlite_db);
	/* the same rows, the same statistics, the same bytes */
	for (int c = 1; c <= COMMITS; c++) {
		assert_int_equal(status[0][c], status[1][c]);
		assert_string_equal(json[0][c], json[1][c]);
	}
}

static int teardown(void **state)
{
	(void)state;
	tu_pg_stop(&pg);
	for (int s = 0; s < 2; s++)
		for (int c = 0; c <= COMMITS; c++)
			free(json[s][c]);
	free(sqlite_db);
	free(pg_db);
	tu_cleanup();
	return 0;
}

/* sim: events when this machine has them, cpu-clock otherwise */
static void choose_event(void)
{
	const char *why;

	if (rec_have_sim(&why)) {
		event = "sim:l1d-miss";
		opts = "--heap -e sim:l1d-miss -c 100";
		args = "200000 16";
	} else {
		tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT);
		printf("test_history_check: cpu-clock runs (%s)\n", why);
	}
}

TU_MAIN_AFTER(choose_event(), NULL, teardown, test_gate_sqlite, test_gate_postgresql)
