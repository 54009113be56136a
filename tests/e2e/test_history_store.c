/* The history's stores, SQLite and PostgreSQL (a server the test starts):
 * 6 writers adding 20 runs each at once, of shared commits, each also
 * adding some of its neighbour's at the same moment -- all 120 stored once,
 * none partial, in both stores, which then answer the same queries with the
 * same bytes; import and export between them, twice; a connection dropped in
 * the middle of an add leaves nothing; bad input (unreachable server, wrong
 * or missing password, a password on the command line, a newer schema, a
 * profile of another program) gets one line, a non-zero exit and writes
 * nothing; the password comes from ~/.pgpass; a version 1 file is migrated.
 *
 * The 120 profiles are copies of three recordings, each with a META record
 * of its own (rec_copy_tagged): 120 identities, recorded in a second.
 * (bench/history.sh runs 8 writers x 50: the test stays within minutes on
 * a loaded 2-core machine, where each add attributes its profiles.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_util.h"
#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

#define WRITERS	  6
#define PER	  20
#define COMMITS	  5
#define PER_ADD	  (PER / COMMITS) /* a writer's own runs of one commit */
#define NEIGHBOUR 2		  /* and its neighbour's, added again */

static char *prof[WRITERS][PER];
static char *other; /* a profile of another program */
static tu_pg pg;
static char *sqlite_db, *pg_db;

static void profiles(void)
{
	char *rec[3];

	if (prof[0][0])
		return;
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "rec%d.dprof", i);
		rec[i] = rec_fixture(i == 2 ? "b/layout_O2" : "layout_O2", "1000000 16",
				     "-e cpu-clock -F 2000", name);
	}
	for (int w = 0; w < WRITERS; w++)
		for (int j = 0; j < PER; j++) {
			char name[32], tag[32];

			snprintf(name, sizeof(name), "w%d-%02d.dprof", w, j);
			snprintf(tag, sizeof(tag), "%d/%d", w, j);
			prof[w][j] = tu_path(name);
			rec_copy_tagged(rec[(w + j) % 3], prof[w][j], "test_copy", tag);
		}
	other = rec_fixture("spin_O2", "", "-e cpu-clock -F 2000", "other.dprof");
	for (int i = 0; i < 3; i++)
		free(rec[i]);
	sqlite_db = tu_path("history.sqlite");
	if (tu_pg_start(&pg))
		pg_db = tu_pg_createdb(&pg, "team");
}

/* Writer w adds, commit by commit, its own runs of the commit and again two
 * of its neighbour's, which the neighbour adds at about the same moment. */
static void writers(const char *db)
{
	char *script = tu_path("writers.sh");
	FILE *f = fopen(script, "w");
	tu_result res;

	assert_non_null(f);
	fprintf(f, "set -u\nfail=0\n");
	for (int w = 0; w < WRITERS; w++) {
		fprintf(f, "(\n");
		for (int c = 0; c < COMMITS; c++) {
			fprintf(f,
				"'%s' history --db '%s' add --commit c%d --commit-time "
				"2024-04-%02dT08:00:00Z --branch main",
				DATAPROF_BIN, db, c, c + 1);
			for (int j = 0; j < PER_ADD; j++)
				fprintf(f, " '%s'", prof[w][c * PER_ADD + j]);
			for (int j = 0; j < NEIGHBOUR; j++)
				fprintf(f, " '%s'", prof[(w + 1) % WRITERS][c * PER_ADD + j]);
			fprintf(f, " 2>>'%s.w%d.err' || exit 1\n", script, w);
		}
		fprintf(f, ") &\npids=\"${pids:-} $!\"\n");
	}
	fprintf(f,
		"for p in $pids; do wait $p || fail=1; done\n"
		"cat '%s'.w*.err >&2\nexit $fail\n",
		script);
	fclose(f);
	if (tu_sh(&res, "sh '%s'", script) != 0)
		fail_msg("a writer failed: %s", res.err);
	tu_result_free(&res);
	free(script);
}

static long sqlite_long_at(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long v = -1;

	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static long sqlite_long(const char *sql)
{
	return sqlite_long_at(sqlite_db, sql);
}

/* Every run once, whole: its four lists, its member rows adding up to what
 * it kept. */
static void expect_all_once(long (*q)(const char *), const char *store)
{
	long runs = q("SELECT count(*) FROM runs");
	long ids = q("SELECT count(DISTINCT profile_sha256) FROM runs");
	long partial = q("SELECT count(*) FROM runs r WHERE (SELECT count(DISTINCT attrs) FROM "
			 "aggregates a WHERE a.run_id = r.id) <> 4");
	long unequal = q("SELECT count(*) FROM runs r WHERE samples_kept <> (SELECT "
			 "coalesce(sum(samples), 0) FROM aggregates a WHERE a.run_id = r.id AND "
			 "a.attrs = 'member')");
	char sql[160];

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM (SELECT commit_sha FROM runs GROUP BY commit_sha HAVING "
		 "count(*) = %d) c",
		 WRITERS * PER_ADD);
	long per_commit = q(sql);

	printf("%s: %ld runs, %ld identities, %ld partial, %ld with rows not adding up, %ld "
	       "commits of %d runs\n",
	       store, runs, ids, partial, unequal, per_commit, WRITERS * PER_ADD);
	assert_int_equal(runs, WRITERS * PER);
	assert_int_equal(ids, WRITERS * PER);
	assert_int_equal(partial, 0);
	assert_int_equal(unequal, 0);
	assert_int_equal(per_commit, COMMITS);
}

static long pg_q(const char *sql)
{
	return tu_pg_long(pg_db, sql);
}

static char *output(const char *fmt, const char *db)
{
	tu_result res;
	char *out;

	if (tu_sh(&res, fmt, DATAPROF_BIN, db) != 0 && res.status != 3)
		fail_msg("'%s' on %s: %s", fmt, db, res.err);
	out = res.out;
	res.out = NULL;
	tu_result_free(&res);
	return out;
}

/* The same queries on both stores: the same bytes. */
static void expect_same(const char *a, const char *b)
{
	static const char *const queries[] = {
	    "'%s' history --db '%s' show --per run --csv",
	    "'%s' history --db '%s' show --by function --metric samples --csv --last 4",
	    "'%s' history --db '%s' check --commit c4 --per run --json --fail-if 'period > +5%%'",
	    "'%s' history --db '%s' check --commit c3 --baseline c1 --by line --markdown",
	};

	for (size_t i = 0; i < DP_ARRAY_LEN(queries); i++) {
		char *x = output(queries[i], a), *y = output(queries[i], b);

		if (strcmp(x, y))
			fail_msg("%s differs:\n%s\n---\n%s", queries[i], x, y);
		printf("same answer (%zu bytes): %s\n", strlen(x), queries[i] + 10);
		free(x);
		free(y);
	}
}

static void test_writers_sqlite(void **state)
{
	(void)state;
	profiles();
	writers(sqlite_db);
	expect_all_once(sqlite_long, "SQLite");
}

static void test_writers_postgresql(void **state)
{
	(void)state;
	profiles();
	tu_pg_require(&pg);
	writers(pg_db);
	expect_all_once(pg_q, "PostgreSQL");
	expect_same(sqlite_db, pg_db);
}

static void test_import_export(void **state)
{
	char *copy, *db2;
	tu_result res;

	(void)state;
	profiles();
	tu_pg_require(&pg); /* before anything is allocated: a skip leaks it */
	copy = tu_path("exported.sqlite");
	db2 = tu_pg_createdb(&pg, "moved");
	/* PostgreSQL -> a file -> another PostgreSQL database, twice */
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' export '%s'", DATAPROF_BIN, pg_db, copy), 0);
	assert_non_null(strstr(res.err, "120 runs copied"));
	tu_result_free(&res);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		    tu_sh(&res, "'%s' history --db '%s' import '%s'", DATAPROF_BIN, db2, copy), 0);
		printf("import %d: %s", i + 1, res.err);
		assert_non_null(strstr(res.err, i ? "0 runs copied" : "120 runs copied"));
		assert_non_null(strstr(res.err, i ? "120 there already" : "0 there already"));
		tu_result_free(&res);
	}
	assert_int_equal(tu_pg_long(db2, "SELECT count(*) FROM runs"), WRITERS * PER);
	assert_int_equal(tu_pg_long(db2, "SELECT count(*) FROM aggregates"),
			 tu_pg_long(pg_db, "SELECT count(*) FROM aggregates"));
	expect_same(pg_db, db2);
	expect_same(sqlite_db, copy);
	free(db2);
	free(copy);
}

static void expect_error(const char *env, const char *db, const char *args, const char *want)
{
	tu_result res;

	tu_sh(&res, "%s '%s' history --db '%s' %s", env, DATAPROF_BIN, db, args);
	printf("history %s: exit %d: %s", args, res.status, res.err);
	if (res.status == 0 || res.status == 3 || !strstr(res.err, want) ||
	    strchr(res.err, '\n') != res.err + strlen(res.err) - 1)
		fail_msg("history %s: exit %d, stderr '%s' (want one line with '%s')", args,
			 res.status, res.err, want);
	tu_result_free(&res);
}

static void test_bad_input(void **state)
{
	char *db, *add, *pw, *pass, *env, *admin, *none;
	long runs;
	FILE *f;

	(void)state;
	profiles();
	tu_pg_require(&pg); /* before anything is allocated: a skip leaks it */
	pass = tu_path("pgpass");
	runs = pg_q("SELECT count(*) FROM runs");
	add = dp_asprintf("add --commit c10 '%s'", prof[0][0]);
	db = dp_asprintf("host=%s/nowhere dbname=team", pg.dir);
	expect_error("", db, add, "cannot connect to postgresql:///team?host=");
	free(db);
	expect_error("", "postgresql://127.0.0.1:1/team", add, "Connection refused");
	/* a role that must give a password: wrong, missing, on the command line */
	tu_pg_long(pg_db, "CREATE ROLE ci LOGIN PASSWORD 'right'");
	tu_pg_long(pg.conninfo, "CREATE DATABASE ci_own OWNER ci");
	db = dp_asprintf("host=%s dbname=team user=ci", pg.dir);
	/* an empty password file: none from ~/.pgpass */
	none = tu_path("nopass");
	f = fopen(none, "w");
	assert_non_null(f);
	fclose(f);
	chmod(none, 0600);
	env = dp_asprintf("PGPASSWORD=wrong PGPASSFILE='%s'", none);
	expect_error(env, db, add, "password authentication failed for user \"ci\"");
	free(env);
	env = dp_asprintf("PGPASSFILE='%s'", none);
	expect_error(env, db, add, "no password supplied");
	free(env);
	free(none);
	pw = dp_asprintf("postgresql://ci:right@/team?host=%s", pg.dir);
	expect_error("", pw, add, "--db holds a password");
	free(pw);
	pw = dp_asprintf("host=%s dbname=team user=ci password=right", pg.dir);
	expect_error("", pw, add, "--db holds a password");
	free(pw);
	assert_int_equal(pg_q("SELECT count(*) FROM runs"), runs);
	/* libpq's own sources: the password file */
	f = fopen(pass, "w");
	assert_non_null(f);
	fprintf(f, "*:*:*:ci:right\n");
	fclose(f);
	chmod(pass, 0600);
	free(db);
	db = dp_asprintf("host=%s dbname=ci_own user=ci", pg.dir);
	env = dp_asprintf("PGPASSFILE='%s' '%s' history --db '%s'", pass, DATAPROF_BIN, db);
	{
		tu_result res;

		assert_int_equal(tu_sh(&res, "%s %s", env, add), 0);
		tu_result_free(&res);
	}
	admin = dp_asprintf("host=%s user=dataprof dbname=ci_own", pg.dir);
	assert_int_equal(tu_pg_long(admin, "SELECT count(*) FROM runs"), 1);
	/* a newer schema: refused before anything is written */
	tu_pg_long(admin, "UPDATE history_meta SET value = 'dataprof-history/3' WHERE key = "
			  "'schema'");
	free(add);
	add = dp_asprintf("add --commit c10 '%s'", prof[0][1]);
	free(env);
	env = dp_asprintf("PGPASSFILE='%s'", pass);
	expect_error(env, db, add, "newer than this dataprof's (dataprof-history/2)");
	expect_error(env, db, "show", "holds history of schema dataprof-history/3");
	assert_int_equal(tu_pg_long(admin, "SELECT count(*) FROM runs"), 1);
	free(admin);
	/* a profile of another program than the branch's runs */
	free(add);
	add = dp_asprintf("check '%s' --branch main --per run", other);
	expect_error("", pg_db, add, "the profiles are of 'spin_O2'");
	/* the same profile under another commit: refused, nothing written */
	free(add);
	add = dp_asprintf("add --commit c3 '%s' '%s'", other, prof[0][0]);
	expect_error("", pg_db, add, "as a run of commit c0, not c3");
	expect_error("", sqlite_db, add, "as a run of commit c0, not c3");
	assert_int_equal(pg_q("SELECT count(*) FROM runs"), runs);
	assert_int_equal(sqlite_long("SELECT count(*) FROM runs"), runs);
	free(add);
	free(db);
	free(env);
	free(pass);
}

/* pid of the command run in the background, its stderr into err */
static pid_t spawn(const char *cmd, const char *err)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_dropped_connection(void **state)
{
	char *copy, *errf, *cmd;
	tu_result res;
	long runs, backend = -1;
	int status;
	pid_t pid;

	(void)state;
	profiles();
	tu_pg_require(&pg); /* before anything is allocated: a skip leaks it */
	copy = tu_path("dropped.dprof");
	errf = tu_path("dropped.err");
	rec_copy_tagged(prof[0][0], copy, "test_copy", "dropped");
	runs = pg_q("SELECT count(*) FROM runs");
	/* a session that holds the rows table: the add inserts its run, then
	 * waits for the lock in the middle of its transaction */
	cmd =
	    dp_asprintf("exec psql -X -q '%s' -c 'BEGIN' -c 'LOCK TABLE aggregates IN SHARE MODE' "
			"-c 'SELECT pg_sleep(600)' >/dev/null 2>&1",
			pg_db);
	pid_t holder = spawn(cmd, "/dev/null");
	free(cmd);
	for (int i = 0; i < 6000 && tu_pg_long(pg_db, "SELECT count(*) FROM pg_locks WHERE "
						      "relation = 'aggregates'::regclass AND "
						      "mode = 'ShareLock' AND granted") < 1;
	     i++)
		usleep(10000);
	cmd = dp_asprintf("exec '%s' history --db '%s' add --commit c10 '%s'", DATAPROF_BIN, pg_db,
			  copy);
	pid = spawn(cmd, errf);
	free(cmd);
	for (int i = 0; i < 6000 && backend < 0; i++) {
		backend = tu_pg_long(pg_db, "SELECT pid FROM pg_stat_activity WHERE "
					    "application_name = 'dataprof' AND wait_event_type = "
					    "'Lock'");
		if (backend < 0)
			usleep(10000);
	}
	assert_true(backend > 0);
	/* its run is in, uncommitted: the server drops the connection */
	cmd = dp_asprintf("SELECT pg_terminate_backend(%ld)", backend);
	tu_pg_long(pg.conninfo, cmd);
	free(cmd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	kill(holder, SIGTERM);
	waitpid(holder, NULL, 0);
	tu_pg_long(pg.conninfo, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
				"application_name = 'psql'");
	assert_int_equal(tu_sh(&res, "cat '%s'", errf), 0);
	printf("add, its connection dropped: exit %d: %s", WEXITSTATUS(status), res.out);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	assert_non_null(strstr(res.out, "nothing of this transaction was kept"));
	assert_true(strchr(res.out, '\n') == res.out + strlen(res.out) - 1);
	tu_result_free(&res);
	assert_int_equal(pg_q("SELECT count(*) FROM runs"), runs);
	assert_int_equal(pg_q("SELECT count(*) FROM runs WHERE profile LIKE '%dropped%'"), 0);
	free(copy);
	free(errf);
}

/* A file of schema version 1 (the tables docs/history.md had then) is
 * migrated on first use; one of a newer version is refused. */
static void test_sqlite_versions(void **state)
{
	char *v1 = tu_path("v1.sqlite"), *v9 = tu_path("v9.sqlite");
	sqlite3 *h;
	tu_result res;

	(void)state;
	assert_int_equal(sqlite3_open(v1, &h), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(h,
			 "CREATE TABLE history_meta(key TEXT PRIMARY KEY, value TEXT);"
			 "CREATE TABLE runs(id INTEGER PRIMARY KEY, commit_sha TEXT NOT NULL,"
			 " branch TEXT, label TEXT, added_at TEXT NOT NULL, profile TEXT NOT NULL,"
			 " program TEXT NOT NULL, event TEXT NOT NULL, hostname TEXT,"
			 " seconds REAL NOT NULL, ginsn REAL NOT NULL, samples_read INTEGER NOT "
			 "NULL, samples_kept INTEGER NOT NULL, lost INTEGER NOT NULL);"
			 "CREATE TABLE aggregates(run_id INTEGER NOT NULL REFERENCES runs(id) ON "
			 "DELETE CASCADE, attrs TEXT NOT NULL, key TEXT NOT NULL, anchor TEXT NOT "
			 "NULL, samples REAL NOT NULL, period REAL NOT NULL, weight REAL NOT NULL,"
			 " period_sq REAL NOT NULL, weight_sq REAL NOT NULL,"
			 " PRIMARY KEY(run_id, attrs, key));"
			 "INSERT INTO history_meta VALUES('schema', 'dataprof-history/1');"
			 "INSERT INTO runs VALUES(1, 'old1', 'main', NULL, '2023-01-01T00:00:00Z',"
			 " 'r.dprof', 'app', 'cpu-clock', 'h', 1.0, 0, 100, 100, 0),"
			 "(2, 'old2', 'main', NULL, '2023-01-02T00:00:00Z', 'r.dprof', 'app',"
			 " 'cpu-clock', 'h', 1.0, 0, 100, 100, 0);"
			 "INSERT INTO aggregates VALUES(1, 'member', 'struct s.x', '', 100, 1e8, 0,"
			 " 1e14, 0), (2, 'member', 'struct s.x', '', 300, 3e8, 0, 3e14, 0),"
			 /* a name no page may take for its end */
			 " (1, 'member', 'struct </script><b>&.y', '', 100, 1e8, 0, 1e14, 0),"
			 " (2, 'member', 'struct </script><b>&.y', '', 100, 1e8, 0, 1e14, 0);",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(
	    tu_sh(&res, "'%s' history --db '%s' show --per run --csv", DATAPROF_BIN, v1), 0);
	printf("%s", res.out);
	tu_assert_contains(res.out, "\"old1\",1,\"struct s.x\",100000000,0",
			   "\"old2\",1,\"struct s.x\",300000000,1", NULL);
	tu_result_free(&res);
	/* its page: the name's "</script>" escaped, the data whole */
	assert_int_equal(
	    tu_sh(&res,
		  "'%s' history --db '%s' show --per run --html '%s.html' && "
		  "/usr/bin/python3 '%s/tests/schema/check_history.py' '%s/docs/schema' "
		  "page '%s.html' && grep -c '</script><b>' '%s.html'",
		  DATAPROF_BIN, v1, v1, SOURCE_DIR, SOURCE_DIR, v1, v1),
	    1); /* grep found none */
	printf("page: %s", res.out);
	assert_non_null(strstr(res.out, "valid commits=2 keys=2"));
	tu_result_free(&res);
	assert_int_equal(sqlite3_open(v1, &h), SQLITE_OK);
	{
		sqlite3_stmt *st;

		assert_int_equal(
		    sqlite3_prepare_v2(h,
				       "SELECT (SELECT value FROM history_meta), "
				       "count(DISTINCT profile_sha256), min(commit_time) "
				       "FROM runs WHERE profile_sha256 LIKE 'v1-%'",
				       -1, &st, NULL),
		    SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal(sqlite3_column_text(st, 0), "dataprof-history/2");
		assert_int_equal(sqlite3_column_int(st, 1), 2);
		assert_string_equal(sqlite3_column_text(st, 2), "2023-01-01T00:00:00Z");
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	/* newer: refused, the file left as it was */
	assert_int_equal(sqlite3_open(v9, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
				      "CREATE TABLE history_meta(key TEXT PRIMARY KEY, value TEXT);"
				      "INSERT INTO history_meta VALUES('schema', "
				      "'dataprof-history/9');",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	profiles();
	tu_sh(&res, "'%s' history --db '%s' add --commit x '%s'", DATAPROF_BIN, v9, prof[1][1]);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "schema dataprof-history/9, newer than this dataprof's"));
	tu_result_free(&res);
	assert_int_equal(
	    sqlite_long_at(v9, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 1);
	free(v1);
	free(v9);
}

/* --commit-time as git log writes it (%cI, %ct), into UTC; the order of
 * commits follows it, not the order they were added in. */
static void test_commit_time(void **state)
{
	static const char *const given[] = {"2024-05-01T12:00:00+02:00", "1714557600",
					    "@1714557600", "2024-05-01 10:00:00Z"};
	char *db = tu_path("times.sqlite"), *sql;
	tu_result res;

	(void)state;
	profiles();
	for (int i = 0; i < 4; i++) {
		assert_int_equal(tu_sh(&res,
				       "'%s' history --db '%s' add --commit t%d --commit-time '%s' "
				       "'%s'",
				       DATAPROF_BIN, db, i, given[i], prof[2][i]),
				 0);
		tu_result_free(&res);
		sql = dp_asprintf("SELECT count(*) FROM runs WHERE commit_sha = 't%d' AND "
				  "commit_time = '2024-05-01T10:00:00Z'",
				  i);
		if (sqlite_long_at(db, sql) != 1)
			fail_msg("--commit-time '%s' was not stored as 2024-05-01T10:00:00Z",
				 given[i]);
		free(sql);
	}
	/* added last, made first: shown first */
	assert_int_equal(
	    tu_sh(&res,
		  "'%s' history --db '%s' add --commit early --commit-time "
		  "2024-04-30T00:00:00Z '%s' && '%s' history --db '%s' show --csv --last 5 "
		  "| sed -n 2p",
		  DATAPROF_BIN, db, prof[2][4], DATAPROF_BIN, db),
	    0);
	assert_true(!strncmp(res.out, "\"early\",", 8));
	tu_result_free(&res);
	tu_sh(&res, "'%s' history --db '%s' add --commit t9 --commit-time yesterday '%s'",
	      DATAPROF_BIN, db, prof[2][5]);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "--commit-time 'yesterday': a time as git log"));
	tu_result_free(&res);
	free(db);
}

static int teardown(void **state)
{
	(void)state;
	tu_pg_stop(&pg);
	for (int w = 0; w < WRITERS; w++)
		for (int j = 0; j < PER; j++)
			free(prof[w][j]);
	free(other);
	free(sqlite_db);
	free(pg_db);
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT), NULL, teardown,
	      test_writers_sqlite, test_writers_postgresql, test_import_export, test_bad_input,
	      test_dropped_connection, test_sqlite_versions, test_commit_time)
