/* A throwaway PostgreSQL server for the history tests (pg_cluster.sh: a
 * cluster of the test's own, on a Unix socket in a directory of its own),
 * and SQL on it through libpq. */
#ifndef DP_PG_UTIL_H
#define DP_PG_UTIL_H

#include <stdbool.h>

typedef struct tu_pg {
	char dir[64];
	char *conninfo; /* its superuser on database postgres; NULL: none started */
	char why[256];	/* why none could start */
} tu_pg;

/* Starts one; false with the reason in pg->why when the server cannot be
 * installed or started here. */
bool tu_pg_start(tu_pg *pg);
void tu_pg_stop(tu_pg *pg);
/* Skips the calling cmocka test when no server started, saying why (and
 * in the skip log that ./build.sh test sums up). */
#define tu_pg_require(pg) tu_pg_require_at((pg), __func__)
void tu_pg_require_at(const tu_pg *pg, const char *test);
/* A new, empty database: its connection string (malloc'd). */
char *tu_pg_createdb(tu_pg *pg, const char *name);
/* Runs sql (fails the test on an error); the first value of the result as
 * a number (-1: none). */
long tu_pg_long(const char *conninfo, const char *sql);

#endif
