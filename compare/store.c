/* The storage interface's own part: which backend a --db string names,
 * transactions, one-value queries. */
#include "store.h"

#include <libpq-fe.h>
#include <string.h>

bool dp_store_is_server(const char *db)
{
	PQconninfoOption *opts;
	char *msg = NULL;

	if (!strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11))
		return true;
	/* "host=x dbname=y" parses; a file name ("perf.sqlite", "a=b.db") does not */
	if (!strchr(db, '='))
		return false;
	opts = PQconninfoParse(db, &msg);
	PQfreemem(msg);
	if (!opts)
		return false;
	PQconninfoFree(opts);
	return true;
}

dp_store *dp_store_open(const char *db, bool create, dp_error *err)
{
	if (!*db) {
		dp_error_set(err, "--db is empty: name an SQLite file or a PostgreSQL database "
				  "(postgresql://user@host/db)");
		return NULL;
	}
	return dp_store_is_server(db) ? dp_store_pg_open(db, err)
				      : dp_store_sqlite_open(db, create, err);
}

void dp_store_close(dp_store *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s->name);
	free(s); /* the backend's store begins with it */
}

static int first_int(void *ctx, const dp_store_row *row)
{
	*(int64_t *)ctx = dp_store_int(row, 0);
	return 1;
}

int dp_store_int_query(dp_store *s, const char *sql, const dp_sval *args, int nargs, int64_t *out,
		       dp_error *err)
{
	return dp_store_exec(s, sql, args, nargs, first_int, out, err) < 0 ? -1 : 0;
}

int dp_store_begin(dp_store *s, dp_error *err)
{
	return dp_store_exec(s, s->dialect->begin_write, NULL, 0, NULL, NULL, err);
}

int dp_store_commit(dp_store *s, dp_error *err)
{
	return dp_store_exec(s, "COMMIT", NULL, 0, NULL, NULL, err);
}

void dp_store_rollback(dp_store *s)
{
	bool conflict = s->conflict;

	dp_store_exec(s, "ROLLBACK", NULL, 0, NULL, NULL, NULL);
	s->conflict = conflict;
}
