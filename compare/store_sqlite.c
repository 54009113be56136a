/* The history in an SQLite file: the embedded default, one file per
 * developer or per CI cache. */
#include "store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sqlite_store {
	dp_store base;
	sqlite3 *db;
} sqlite_store;

static const dp_store_dialect dialect = {
    .name = "SQLite",
    .id_column = "INTEGER PRIMARY KEY",
    .text = "TEXT", /* BINARY collation: byte by byte */
    .has_table = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
    /* the write lock at once: writers queue on the busy timeout instead of
     * failing when a read lock cannot be upgraded */
    .begin_write = "BEGIN IMMEDIATE",
    .lock_schema = NULL,
};

static int fail(sqlite_store *s, int rc, dp_error *err)
{
	s->base.conflict = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
	dp_error_set(err, "%s: %s", s->base.name, sqlite3_errmsg(s->db));
	return -1;
}

static int bind(sqlite3_stmt *st, const dp_sval *args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		char name[16];
		int idx, rc;

		snprintf(name, sizeof(name), "$%d", i + 1);
		if (!(idx = sqlite3_bind_parameter_index(st, name)))
			continue;
		switch (args[i].type) {
		case DP_SV_TEXT:
			rc = sqlite3_bind_text(st, idx, args[i].s, -1, SQLITE_STATIC);
			break;
		case DP_SV_INT:
			rc = sqlite3_bind_int64(st, idx, args[i].i);
			break;
		case DP_SV_REAL:
			rc = sqlite3_bind_double(st, idx, args[i].d);
			break;
		default:
			rc = sqlite3_bind_null(st, idx);
		}
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int sq_exec(dp_store *base, const char *sql, const dp_sval *args, int nargs,
		   dp_store_row_fn fn, void *ctx, dp_error *err)
{
	sqlite_store *s = (sqlite_store *)base;
	const char *tail = sql;

	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		dp_store_row row = {base, NULL, 0};
		int rc = sqlite3_prepare_v2(s->db, tail, -1, &st, &tail), stop = 0;

		if (rc != SQLITE_OK)
			return fail(s, rc, err);
		if (!st) /* only a comment or blanks were left */
			break;
		if ((rc = bind(st, args, nargs)) != SQLITE_OK) {
			sqlite3_finalize(st);
			return fail(s, rc, err);
		}
		row.impl = st;
		while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
			stop = fn ? fn(ctx, &row) : 0;
		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
		if (rc != SQLITE_DONE) {
			fail(s, rc, err);
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

static bool sq_is_null(const dp_store_row *r, int col)
{
	return sqlite3_column_type(r->impl, col) == SQLITE_NULL;
}

static const char *sq_text(const dp_store_row *r, int col)
{
	const char *v = (const char *)sqlite3_column_text(r->impl, col);

	return v ? v : "";
}

static int64_t sq_integer(const dp_store_row *r, int col)
{
	return sqlite3_column_int64(r->impl, col);
}

static double sq_real(const dp_store_row *r, int col)
{
	return sqlite3_column_double(r->impl, col);
}

static void sq_close(dp_store *base)
{
	sqlite3_close(((sqlite_store *)base)->db);
}

static const dp_store_ops ops = {
    .exec = sq_exec,
    .is_null = sq_is_null,
    .text = sq_text,
    .integer = sq_integer,
    .real = sq_real,
    .close = sq_close,
};

dp_store *dp_store_sqlite_open(const char *path, bool create, dp_error *err)
{
	sqlite_store *s = dp_calloc(1, sizeof(*s));

	s->base.ops = &ops;
	s->base.dialect = &dialect;
	s->base.name = dp_strdup(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			    NULL) != SQLITE_OK) {
		dp_error_set(err, "cannot open '%s': %s", path,
			     !create && access(path, F_OK) ? "no such file"
							   : sqlite3_errmsg(s->db));
		dp_store_close(&s->base);
		return NULL;
	}
	/* CI jobs of several branches at once: a writer waits its turn */
	sqlite3_busy_timeout(s->db, 60000);
	if (sq_exec(&s->base, "PRAGMA foreign_keys=ON", NULL, 0, NULL, NULL, err) < 0) {
		dp_store_close(&s->base);
		return NULL;
	}
	return &s->base;
}
