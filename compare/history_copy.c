/* history import and export: every run of one history into another, an
 * SQLite file into a shared PostgreSQL database or back, in one transaction
 * of the destination, each run once by its identity (copying twice, or two
 * CI caches holding the same runs, keeps one). The destination numbers the
 * runs its own way; nothing else changes on the way. */
#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TEXT_COLS 11 /* profile_sha256 ... hostname */

typedef struct src_run {
	int64_t id;
	char *col[RUN_TEXT_COLS];
	double seconds, ginsn;
	int64_t read, kept, lost;
} src_run;

typedef DP_VEC(src_run) src_runs;

static int src_run_row(void *ctx, const dp_store_row *row)
{
	src_runs *v = ctx;
	src_run r;

	r.id = dp_store_int(row, 0);
	for (int i = 0; i < RUN_TEXT_COLS; i++)
		r.col[i] = dp_store_null(row, 1 + i) ? NULL : dp_strdup(dp_store_text(row, 1 + i));
	r.seconds = dp_store_real(row, 12);
	r.ginsn = dp_store_real(row, 13);
	r.read = dp_store_int(row, 14);
	r.kept = dp_store_int(row, 15);
	r.lost = dp_store_int(row, 16);
	dp_vec_push(v, r);
	return 0;
}

static void src_runs_free(src_runs *v)
{
	for (size_t i = 0; i < v->n; i++)
		for (int k = 0; k < RUN_TEXT_COLS; k++)
			free(v->v[i].col[k]);
	dp_vec_free(v);
}

/* The rows of one run, a list at a time (they come ordered by list). */
typedef struct rows_ctx {
	dp_store *to;
	int64_t id;
	char *attrs;
	DP_VEC(dp_history_aggrow) rows;
	dp_error *err;
} rows_ctx;

static int flush(rows_ctx *c)
{
	int rc = 0;

	if (c->attrs && c->rows.n)
		rc = dp_history_insert_rows(c->to, c->id, c->attrs, c->rows.v, c->rows.n, c->err);
	for (size_t i = 0; i < c->rows.n; i++) {
		free((char *)c->rows.v[i].key);
		free((char *)c->rows.v[i].anchor);
	}
	c->rows.n = 0;
	free(c->attrs);
	c->attrs = NULL;
	return rc;
}

static int agg_row(void *ctx, const dp_store_row *row)
{
	rows_ctx *c = ctx;
	const char *attrs = dp_store_text(row, 0);
	dp_history_aggrow a;

	if (c->attrs && strcmp(c->attrs, attrs) && flush(c) < 0)
		return -1;
	if (!c->attrs)
		c->attrs = dp_strdup(attrs);
	a.key = dp_strdup(dp_store_text(row, 1));
	a.anchor = dp_strdup(dp_store_text(row, 2));
	for (int j = 0; j < 5; j++)
		a.v[j] = dp_store_real(row, 3 + j);
	dp_vec_push(&c->rows, a);
	return 0;
}

static int copy_run(dp_history *from, dp_history *to, const src_run *r, bool *existed,
		    dp_error *err)
{
	dp_history_runrow rr = {r->col[0], r->col[1], r->col[2], r->col[3], r->col[4],	r->col[5],
				r->col[6], r->col[7], r->col[8], r->col[9], r->col[10], r->seconds,
				r->ginsn,  r->read,   r->kept,	 r->lost};
	rows_ctx c = {dp_history_store(to), 0, NULL, {0}, err};
	dp_sval a = dp_sv_int(r->id);
	char *commit = NULL;
	int rc;

	if (dp_history_insert_run(c.to, &rr, &c.id, &commit, existed, err) < 0)
		return -1;
	free(commit);
	/* a run the destination had may lack some of the lists */
	rc = dp_store_exec(
	    dp_history_store(from),
	    "SELECT attrs, key, anchor, samples, period, weight, period_sq, weight_sq "
	    "FROM aggregates WHERE run_id = $1 ORDER BY attrs, key",
	    &a, 1, agg_row, &c, err);
	if (rc == 0)
		rc = flush(&c);
	else
		flush(&c);
	dp_vec_free(&c.rows);
	return rc < 0 ? -1 : 0;
}

static int copy_all(dp_history *from, dp_history *to, const src_runs *runs, size_t *copied,
		    size_t *present, dp_error *err)
{
	dp_store *s = dp_history_store(to);

	*copied = *present = 0;
	if (dp_store_begin(s, err) < 0)
		return -1;
	for (size_t i = 0; i < runs->n; i++) {
		bool existed;

		if (copy_run(from, to, &runs->v[i], &existed, err) < 0)
			goto fail;
		(*(existed ? present : copied))++;
	}
	if (dp_store_commit(s, err) == 0)
		return 0;
fail:
	dp_store_rollback(s);
	return -1;
}

int dp_history_copy(dp_history *from, dp_history *to, size_t *copied, size_t *present,
		    dp_error *err)
{
	src_runs runs = {0};
	int rc;

	/* in the order of their identity, as add writes: no two copies wait
	 * for each other in a circle */
	rc = dp_store_exec(dp_history_store(from),
			   "SELECT id, profile_sha256, selection, commit_sha, commit_time, branch,"
			   " label, added_at, profile, program, event, hostname, seconds, ginsn,"
			   " samples_read, samples_kept, lost FROM runs"
			   " ORDER BY profile_sha256, event, selection",
			   NULL, 0, src_run_row, &runs, err);
	for (int attempt = 0; rc == 0; attempt++) {
		rc = copy_all(from, to, &runs, copied, present, err);
		if (!rc || !dp_history_store(to)->conflict || attempt == 4)
			break;
		rc = 0;
	}
	src_runs_free(&runs);
	return rc;
}

int dp_history_copy_db(const char *from_db, const char *to_db, FILE *msg, dp_error *err)
{
	dp_history *from, *to;
	size_t copied, present;
	int rc;

	if (!(from = dp_history_open(from_db, false, err)))
		return -1;
	if (!(to = dp_history_open(to_db, true, err))) {
		dp_history_close(from);
		return -1;
	}
	rc = dp_history_copy(from, to, &copied, &present, err);
	if (!rc)
		fprintf(msg, "dataprof: %zu run%s copied into %s, %zu there already\n", copied,
			copied == 1 ? "" : "s", dp_history_name(to), present);
	dp_history_close(from);
	dp_history_close(to);
	return rc < 0 ? -1 : 0;
}
