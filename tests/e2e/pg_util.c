#include "pg_util.h"
#include "tu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

bool tu_pg_start(tu_pg *pg)
{
	const char *tmp = getenv("TMPDIR");
	tu_result res;

	memset(pg, 0, sizeof(*pg));
	/* a socket's path is short; as root the server runs as another user,
	 * who must reach it: straight under /tmp */
	snprintf(pg->dir, sizeof(pg->dir), "%s/dp-pg-XXXXXX",
		 tmp && strlen(tmp) < 30 && geteuid() ? tmp : "/tmp");
	if (!mkdtemp(pg->dir)) {
		snprintf(pg->why, sizeof(pg->why), "cannot make %s: %s", pg->dir, strerror(errno));
		return false;
	}
	/* stopped when this test ends, even killed */
	if (tu_sh(&res, "'%s/tests/e2e/pg_cluster.sh' start '%s' %d", SOURCE_DIR, pg->dir,
		  (int)getpid()) != 0) {
		char why[sizeof(pg->why)];

		snprintf(why, sizeof(why), "%.*s", (int)strcspn(res.err, "\n"), res.err);
		tu_result_free(&res);
		tu_pg_stop(pg);
		snprintf(pg->why, sizeof(pg->why), "%s", *why ? why : "pg_cluster.sh failed");
		return false;
	}
	res.out[strcspn(res.out, "\n")] = 0;
	pg->conninfo = dp_strdup(res.out);
	tu_result_free(&res);
	printf("PostgreSQL: %s\n", pg->conninfo);
	return true;
}

void tu_pg_stop(tu_pg *pg)
{
	tu_result res;

	if (pg->dir[0]) {
		tu_sh(&res, "'%s/tests/e2e/pg_cluster.sh' stop '%s'", SOURCE_DIR, pg->dir);
		tu_result_free(&res);
	}
	free(pg->conninfo);
	memset(pg, 0, sizeof(*pg));
}

void tu_pg_require_at(const tu_pg *pg, const char *test)
{
	FILE *log;

	if (pg->conninfo)
		return;
	printf("SKIP %s: no PostgreSQL server here (%s)\n", test, pg->why);
	fflush(stdout);
	/* test_history_store_nopg takes the server away on purpose: nothing
	 * this machine lacks, so not in the summary of what it does */
	if (getenv("DATAPROF_TEST_NO_PG"))
		skip();
	log = fopen(getenv("DATAPROF_TEST_SKIPS") ? getenv("DATAPROF_TEST_SKIPS") : SKIP_LOG, "a");
	if (log) {
		fprintf(log, "%s: %s\tno PostgreSQL server could start here\n",
			program_invocation_short_name, test);
		fclose(log);
	}
	skip();
}

long tu_pg_long(const char *conninfo, const char *sql)
{
	PGconn *c = PQconnectdb(conninfo);
	PGresult *r;
	long v = -1;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to %s: %s", conninfo, PQerrorMessage(c));
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		v = strtol(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	PQfinish(c);
	return v;
}

char *tu_pg_createdb(tu_pg *pg, const char *name)
{
	char *sql = dp_asprintf("CREATE DATABASE %s", name);

	tu_pg_long(pg->conninfo, sql);
	free(sql);
	return dp_asprintf("host=%s port=5432 user=dataprof dbname=%s", pg->dir, name);
}
