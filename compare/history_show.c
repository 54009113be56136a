/* dataprof history show: each key's value in the newest commits, oldest
 * first, with the steps beyond noise marked. Each step is a diff of one
 * commit's runs against the one before (so lines that moved are followed),
 * and the trend a diff of the first shown against the last. */
#include "history.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

typedef struct commit {
	char *sha;
	int runs;
} commit;

typedef DP_VEC(commit) commit_vec;

typedef struct trow {
	const char *key; /* in the last step's table */
	bool gone;	 /* not in the newest commit */
	double *v;
	bool *have, *sig;
	const dp_diff_row *trend;
	const dp_diff_result *trend_r;
} trow;

/* The program and event of the newest run stored by these attributes. */
static int newest(dp_history *h, const char *by, const char *branch, char **program, char **event,
		  dp_error *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(dp_history_db(h),
			       "SELECT program, event FROM runs r WHERE (?2 IS NULL OR branch = ?2)"
			       " AND EXISTS (SELECT 1 FROM aggregates a WHERE a.run_id = r.id AND"
			       " a.attrs = ?1) ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK) {
		dp_error_set(err, "%s: %s", dp_history_path(h), sqlite3_errmsg(dp_history_db(h)));
		return -1;
	}
	sqlite3_bind_text(st, 1, by, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (!*program)
			*program = dp_strdup((const char *)sqlite3_column_text(st, 0));
		if (!*event)
			*event = dp_strdup((const char *)sqlite3_column_text(st, 1));
		rc = 0;
	} else {
		dp_error_set(
		    err,
		    "%s holds no run stored by %s: add runs with 'dataprof history --db %s "
		    "add --by %s PROFILE --commit SHA'",
		    dp_history_path(h), by, dp_history_path(h), by);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The newest n commits with runs of program and event, oldest first. */
static int commits(dp_history *h, const char *by, const char *program, const char *event,
		   const char *branch, size_t n, commit_vec *out, dp_error *err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(dp_history_db(h),
			       "SELECT commit_sha, count(*), max(id) AS last FROM runs r"
			       " WHERE program = ?1 AND event = ?2 AND (?3 IS NULL OR branch = ?3)"
			       " AND EXISTS (SELECT 1 FROM aggregates a WHERE a.run_id = r.id AND"
			       " a.attrs = ?4) GROUP BY commit_sha ORDER BY last DESC LIMIT ?5",
			       -1, &st, NULL) != SQLITE_OK) {
		dp_error_set(err, "%s: %s", dp_history_path(h), sqlite3_errmsg(dp_history_db(h)));
		return -1;
	}
	sqlite3_bind_text(st, 1, program, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, by, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)n);
	while (sqlite3_step(st) == SQLITE_ROW) {
		commit c = {dp_strdup((const char *)sqlite3_column_text(st, 0)),
			    sqlite3_column_int(st, 1)};
		dp_vec_push(out, c);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < out->n / 2; i++) {
		commit t = out->v[i];
		out->v[i] = out->v[out->n - 1 - i];
		out->v[out->n - 1 - i] = t;
	}
	if (!out->n) {
		dp_error_set(err, "%s holds no run of %s (%s) stored by %s", dp_history_path(h),
			     program, event, by);
		return -1;
	}
	return 0;
}

/* A diff of commit a's runs against commit b's. */
static int step(dp_history *h, const dp_history_show_opts *o, const char *program,
		const char *event, const char *a, const char *b, dp_diff_result *r, dp_error *err)
{
	dp_diff_init(r, &o->diff);
	if (dp_history_load(h, a, program, event, o->branch, &r->tab, &r->base, err) < 0 ||
	    dp_history_load(h, b, program, event, o->branch, &r->tab, &r->new_, err) < 0 ||
	    dp_diff_compute(r, err) < 0) {
		dp_diff_free(r);
		return -1;
	}
	return 0;
}

static const dp_diff_row *with_key(const dp_diff_result *r, const char *key, bool new_side)
{
	for (size_t i = 0; i < r->rows.n; i++) {
		const dp_diff_row *row = &r->rows.v[i];

		if ((new_side ? row->nkey : row->bkey) >= 0 &&
		    !strcmp(dp_diff_key_text(r, row, new_side), key))
			return row;
	}
	return NULL;
}

static size_t sort_n;

static int by_newest(const void *a, const void *b)
{
	const trow *x = a, *y = b;
	double vx = x->have[sort_n - 1] ? x->v[sort_n - 1] : -1;
	double vy = y->have[sort_n - 1] ? y->v[sort_n - 1] : -1;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void print_text(const dp_history_show_opts *o, const char *program, const char *event,
		       const commit *c, size_t n, const trow *rows, size_t nrows, FILE *f,
		       const char *path)
{
	static const char *const metrics[] = {"samples", "period", "weight"};
	size_t top = o->diff.top ? o->diff.top : 20;
	char buf[32], label[32];

	fprintf(f, "# dataprof history of %s, event %s, in %s\n", program, event, path);
	fprintf(f, "# %s %s, by %s; the last %zu commit%s, oldest first\n", metrics[o->diff.metric],
		dp_diff_per_text(o->diff.per), o->diff.by_text, n, n == 1 ? "" : "s");
	fprintf(f,
		"# *: beyond noise from the commit before (%g%%, shared among the keys); "
		"trend: the first shown to the last\n# columns: commit/runs\n#",
		o->diff.confidence * 100);
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%.8s/%d", c[i].sha, c[i].runs);
		fprintf(f, "%10s ", label);
	}
	fprintf(f, "    trend   %s\n", o->diff.by_text);
	for (size_t k = 0; k < nrows && k < top; k++) {
		const trow *t = &rows[k];

		fputs(" ", f);
		for (size_t i = 0; i < n; i++) {
			if (t->have[i])
				dp_diff_fmt_num(t->v[i], false, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "-");
			fprintf(f, "%10s%c", buf, t->sig[i] ? '*' : ' ');
		}
		if (t->trend)
			dp_diff_fmt_change(&t->trend->c[o->diff.metric], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, "  %8s%c  %s%s\n", buf,
			t->trend && t->trend->c[o->diff.metric].significant ? '*' : ' ', t->key,
			t->gone ? " (gone)" : "");
	}
	if (nrows > top)
		fprintf(f, "  (%zu more; --top shows more)\n", nrows - top);
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(const commit *c, size_t n, const trow *rows, size_t nrows, FILE *f)
{
	fprintf(f, "commit,runs,key,value,beyond_noise\n");
	for (size_t k = 0; k < nrows; k++)
		for (size_t i = 0; i < n; i++) {
			if (!rows[k].have[i])
				continue;
			csv_field(f, c[i].sha);
			fprintf(f, ",%d,", c[i].runs);
			csv_field(f, rows[k].key);
			fprintf(f, ",%.10g,%d\n", rows[k].v[i], rows[k].sig[i]);
		}
}

int dp_history_show(dp_history *h, const dp_history_show_opts *o, FILE *f, dp_error *err)
{
	char by[256], *program = o->program ? dp_strdup(o->program) : NULL;
	char *event = o->event ? dp_strdup(o->event) : NULL;
	commit_vec cs = {0};
	dp_diff_result *res = NULL, trend;
	DP_VEC(trow) rows = {0};
	size_t n;
	bool have_trend = false;
	int rc = -1;

	dp_history_by_text(&o->diff.by, by, sizeof(by));
	if (newest(h, by, o->branch, &program, &event, err) < 0 ||
	    commits(h, by, program, event, o->branch, o->last ? o->last : 10, &cs, err) < 0)
		goto out;
	n = cs.n;
	/* step i: commit i-1 against commit i; one commit: itself */
	res = dp_calloc(n, sizeof(*res));
	for (size_t i = n > 1 ? 1 : 0; i < n; i++)
		if (step(h, o, program, event, cs.v[i ? i - 1 : 0].sha, cs.v[i].sha, &res[i], err) <
		    0)
			goto out;
	if (n > 2) {
		if (step(h, o, program, event, cs.v[0].sha, cs.v[n - 1].sha, &trend, err) < 0)
			goto out;
		have_trend = true;
	}
	const dp_diff_result *last = &res[n - 1], *tr = have_trend ? &trend : n > 1 ? last : NULL;
	for (size_t k = 0; k < last->rows.n; k++) {
		const dp_diff_row *row = &last->rows.v[k];
		trow t;

		memset(&t, 0, sizeof(t));
		t.v = dp_calloc(n, sizeof(double));
		t.have = dp_calloc(n, sizeof(bool));
		t.sig = dp_calloc(n, sizeof(bool));
		t.gone = row->nkey < 0;
		t.key = dp_diff_key_text(last, row, !t.gone);
		if (row->nkey >= 0) {
			t.v[n - 1] = row->c[o->diff.metric].new_;
			t.have[n - 1] = true;
		}
		if (n > 1) {
			t.sig[n - 1] = row->c[o->diff.metric].significant;
			if (row->bkey >= 0) {
				t.v[n - 2] = row->c[o->diff.metric].base;
				t.have[n - 2] = true;
			}
		}
		/* back through the steps, following the key as it was named */
		const dp_diff_row *at = row;
		for (size_t i = n - 1; i > 1 && at->bkey >= 0; i--) {
			const dp_diff_row *prev =
			    with_key(&res[i - 1], dp_diff_key_text(&res[i], at, false), true);

			if (!prev)
				break;
			t.sig[i - 1] = prev->c[o->diff.metric].significant;
			if (prev->bkey >= 0) {
				t.v[i - 2] = prev->c[o->diff.metric].base;
				t.have[i - 2] = true;
			}
			at = prev;
		}
		if (tr && tr != last)
			t.trend = row->nkey >= 0 ? with_key(tr, t.key, true) : NULL;
		else if (tr)
			t.trend = row;
		dp_vec_push(&rows, t);
	}
	sort_n = n;
	if (rows.n > 1)
		qsort(rows.v, rows.n, sizeof(trow), by_newest);
	if (o->csv)
		print_csv(cs.v, n, rows.v, rows.n, f);
	else
		print_text(o, program, event, cs.v, n, rows.v, rows.n, f, dp_history_path(h));
	rc = 0;
out:
	for (size_t i = 0; i < rows.n; i++) {
		free(rows.v[i].v);
		free(rows.v[i].have);
		free(rows.v[i].sig);
	}
	dp_vec_free(&rows);
	if (have_trend)
		dp_diff_free(&trend);
	for (size_t i = 0; res && i < cs.n; i++)
		if (res[i].o)
			dp_diff_free(&res[i]);
	free(res);
	for (size_t i = 0; i < cs.n; i++)
		free(cs.v[i].sha);
	dp_vec_free(&cs);
	free(program);
	free(event);
	return rc;
}
