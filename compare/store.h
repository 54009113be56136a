/* The history's storage: one SQL database, SQLite (a file, embedded: the
 * default) or PostgreSQL (a server shared by CI jobs, through libpq), chosen
 * by the --db string. The history's queries are written once, above this
 * interface, in the SQL both accept: parameters $1..$n, INSERT ... ON
 * CONFLICT DO NOTHING, RETURNING. What differs between the two (an identity
 * column, the collation of text, the catalogue, the lock that serialises a
 * schema migration) is named in dp_store_dialect. */
#ifndef DP_STORE_H
#define DP_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* A parameter of a statement. */
typedef enum dp_sval_type { DP_SV_NULL, DP_SV_TEXT, DP_SV_INT, DP_SV_REAL } dp_sval_type;

typedef struct dp_sval {
	dp_sval_type type;
	const char *s;
	int64_t i;
	double d;
} dp_sval;

static inline dp_sval dp_sv_text(const char *s)
{
	return (dp_sval){.type = s ? DP_SV_TEXT : DP_SV_NULL, .s = s};
}
static inline dp_sval dp_sv_int(int64_t i)
{
	return (dp_sval){.type = DP_SV_INT, .i = i};
}
static inline dp_sval dp_sv_real(double d)
{
	return (dp_sval){.type = DP_SV_REAL, .d = d};
}

typedef struct dp_store dp_store;

/* One row of a result, valid during the callback. */
typedef struct dp_store_row {
	dp_store *store;
	void *impl; /* the backend's statement or result */
	int index;  /* the row in impl */
} dp_store_row;

/* Called for each row; non-zero stops the statement and is returned. */
typedef int (*dp_store_row_fn)(void *ctx, const dp_store_row *row);

typedef struct dp_store_dialect {
	const char *name;	 /* "SQLite", "PostgreSQL" */
	const char *id_column;	 /* an integer primary key the database numbers */
	const char *text;	 /* text compared and sorted byte by byte */
	const char *has_table;	 /* count of tables named $1 */
	const char *begin_write; /* a transaction that will write */
	const char *lock_schema; /* in it, one migration at a time (NULL: begin_write does) */
} dp_store_dialect;

typedef struct dp_store_ops {
	int (*exec)(dp_store *s, const char *sql, const dp_sval *args, int nargs,
		    dp_store_row_fn fn, void *ctx, dp_error *err);
	bool (*is_null)(const dp_store_row *r, int col);
	const char *(*text)(const dp_store_row *r, int col); /* "" for NULL */
	int64_t (*integer)(const dp_store_row *r, int col);
	double (*real)(const dp_store_row *r, int col);
	void (*close)(dp_store *s); /* the connection; dp_store_close frees the rest */
} dp_store_ops;

struct dp_store {
	const dp_store_ops *ops;
	const dp_store_dialect *dialect;
	char *name;    /* for messages: the file, or the server and database (never a password) */
	bool conflict; /* the last error was a conflict between writers: retry the transaction */
};

/* True when db names a PostgreSQL database: a postgresql:// or postgres://
 * URI, or a libpq key=value string ("host=db.ci dbname=perf"); anything
 * else is an SQLite file. */
bool dp_store_is_server(const char *db);

/* Opens the database db names (an SQLite file is created when missing
 * with create). */
dp_store *dp_store_open(const char *db, bool create, dp_error *err);
dp_store *dp_store_sqlite_open(const char *path, bool create, dp_error *err);
dp_store *dp_store_pg_open(const char *conninfo, dp_error *err);
void dp_store_close(dp_store *s);

/* Runs one statement (several, without args and rows: a script), calling
 * fn (may be NULL) for each row. -1 with a message naming the database. */
static inline int dp_store_exec(dp_store *s, const char *sql, const dp_sval *args, int nargs,
				dp_store_row_fn fn, void *ctx, dp_error *err)
{
	s->conflict = false;
	return s->ops->exec(s, sql, args, nargs, fn, ctx, err);
}

static inline const char *dp_store_text(const dp_store_row *r, int col)
{
	return r->store->ops->text(r, col);
}
static inline bool dp_store_null(const dp_store_row *r, int col)
{
	return r->store->ops->is_null(r, col);
}
static inline int64_t dp_store_int(const dp_store_row *r, int col)
{
	return r->store->ops->integer(r, col);
}
static inline double dp_store_real(const dp_store_row *r, int col)
{
	return r->store->ops->real(r, col);
}

/* The first column of the first row as an integer into *out (left alone
 * when there is no row). */
int dp_store_int_query(dp_store *s, const char *sql, const dp_sval *args, int nargs, int64_t *out,
		       dp_error *err);

/* A transaction that writes; commit; rollback (never fails: a dropped
 * connection has rolled back already). */
int dp_store_begin(dp_store *s, dp_error *err);
int dp_store_commit(dp_store *s, dp_error *err);
void dp_store_rollback(dp_store *s);

#endif
