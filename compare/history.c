/* The history's SQLite file: its tables, adding a run, loading a commit's
 * runs back as diff reads them from profiles. */
#include "history.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dp_history {
	sqlite3 *db;
	char *path;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS history_meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY,"
    " commit_sha TEXT NOT NULL, branch TEXT, label TEXT,"
    " added_at TEXT NOT NULL,"
    " profile TEXT NOT NULL, program TEXT NOT NULL, event TEXT NOT NULL, hostname TEXT,"
    " seconds REAL NOT NULL, ginsn REAL NOT NULL,"
    " samples_read INTEGER NOT NULL, samples_kept INTEGER NOT NULL, lost INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS aggregates("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " attrs TEXT NOT NULL, key TEXT NOT NULL, anchor TEXT NOT NULL,"
    " samples REAL NOT NULL, period REAL NOT NULL, weight REAL NOT NULL,"
    " period_sq REAL NOT NULL, weight_sq REAL NOT NULL,"
    " PRIMARY KEY(run_id, attrs, key));"
    "CREATE INDEX IF NOT EXISTS runs_commit ON runs(program, event, commit_sha);"
    "INSERT OR IGNORE INTO history_meta VALUES('schema', '" DP_HISTORY_SCHEMA "');";

static int exec(dp_history *h, const char *sql, dp_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		dp_error_set(err, "%s: %s", h->path, msg ? msg : sqlite3_errmsg(h->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

dp_history *dp_history_open(const char *path, dp_error *err)
{
	dp_history *h = dp_calloc(1, sizeof(*h));
	sqlite3_stmt *st;

	h->path = dp_strdup(path);
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		dp_error_set(err, "cannot open '%s': %s", path, sqlite3_errmsg(h->db));
		dp_history_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h->db, 10000); /* CI jobs of several branches at once */
	if (exec(h, "PRAGMA foreign_keys=ON;", err) < 0 || exec(h, schema_sql, err) < 0) {
		dp_error_prefix(err, "not a dataprof history? ");
		dp_history_close(h);
		return NULL;
	}
	if (sqlite3_prepare_v2(h->db, "SELECT value FROM history_meta WHERE key = 'schema'", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		if (v && strcmp(v, DP_HISTORY_SCHEMA)) {
			dp_error_set(err, "%s holds history of schema %s; this dataprof writes %s",
				     path, v, DP_HISTORY_SCHEMA);
			sqlite3_finalize(st);
			dp_history_close(h);
			return NULL;
		}
	}
	sqlite3_finalize(st);
	return h;
}

void dp_history_close(dp_history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

void dp_history_by_text(const dp_agg_level *by, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < by->nattrs && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      dp_attr_name(by->attrs[i].id));
}

static int prepare(dp_history *h, const char *sql, sqlite3_stmt **st, dp_error *err)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
		dp_error_set(err, "%s: %s", h->path, sqlite3_errmsg(h->db));
		return -1;
	}
	return 0;
}

static int insert_run(dp_history *h, const dp_run *r, const dp_history_add_opts *o,
		      sqlite3_int64 *id, dp_error *err)
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (prepare(h,
		    "INSERT INTO runs(commit_sha, branch, label, added_at, profile, program, event,"
		    " hostname, seconds, ginsn, samples_read, samples_kept, lost)"
		    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
		    &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, o->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, o->branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, o->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, when, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, r->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, r->program, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->event, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, r->hostname, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 9, r->seconds);
	sqlite3_bind_double(st, 10, r->ginsn);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)r->read);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->kept);
	sqlite3_bind_int64(st, 13, (sqlite3_int64)r->lost);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		dp_error_set(err, "%s: %s", h->path, sqlite3_errmsg(h->db));
		return -1;
	}
	*id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

static int insert_rows(dp_history *h, sqlite3_int64 id, const dp_rtable *t, const dp_run *r,
		       dp_error *err)
{
	sqlite3_stmt *st;
	char by[256];
	int rc = 0;

	dp_history_by_text(&t->by, by, sizeof(by));
	if (prepare(h, "INSERT INTO aggregates VALUES(?,?,?,?,?,?,?,?,?)", &st, err) < 0)
		return -1;
	for (size_t i = 0; i < r->stats.n && !rc; i++) {
		const dp_rstat *s = &r->stats.v[i];
		const dp_rkey *k = &t->keys.v[s->key];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, by, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, dp_rtable_str(t, k->text), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, dp_rtable_str(t, k->anchor), -1, SQLITE_STATIC);
		for (int j = 0; j < 3; j++)
			sqlite3_bind_double(st, 5 + j, s->x[j]);
		sqlite3_bind_double(st, 8, s->q[1]);
		sqlite3_bind_double(st, 9, s->q[2]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			dp_error_set(err, "%s: %s", h->path, sqlite3_errmsg(h->db));
			rc = -1;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int dp_history_add(dp_history *h, const char *profile, const dp_history_add_opts *o, dp_error *err)
{
	dp_rtable tabs[DP_HISTORY_MAX_BY], *tp[DP_HISTORY_MAX_BY];
	dp_run runs[DP_HISTORY_MAX_BY], *rp[DP_HISTORY_MAX_BY];
	sqlite3_int64 id;
	int rc = -1;

	for (int i = 0; i < o->nby; i++) {
		dp_rtable_init(&tabs[i], &o->by[i]);
		tp[i] = &tabs[i];
		rp[i] = &runs[i];
	}
	if (dp_run_read(profile, &o->run, tp, rp, o->nby, err) < 0)
		goto out_tabs;
	if (exec(h, "BEGIN IMMEDIATE;", err) < 0)
		goto out;
	if (insert_run(h, &runs[0], o, &id, err) < 0)
		goto rollback;
	for (int i = 0; i < o->nby; i++) {
		dp_rtable_finish(&tabs[i]);
		if (insert_rows(h, id, &tabs[i], &runs[i], err) < 0)
			goto rollback;
	}
	rc = exec(h, "COMMIT;", err);
	goto out;
rollback:
	exec(h, "ROLLBACK;", NULL);
out:
	for (int i = 0; i < o->nby; i++)
		dp_run_free(&runs[i]);
out_tabs:
	for (int i = 0; i < o->nby; i++)
		dp_rtable_free(&tabs[i]);
	return rc;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return dp_strdup(v ? v : "");
}

int dp_history_load(dp_history *h, const char *commit, const char *program, const char *event,
		    const char *branch, dp_rtable *t, dp_diff_side *side, dp_error *err)
{
	sqlite3_stmt *runs, *rows;
	char by[256];
	int rc = 0;

	dp_history_by_text(&t->by, by, sizeof(by));
	if (prepare(
		h,
		"SELECT id, profile, program, event, hostname, seconds, ginsn, samples_read,"
		" samples_kept, lost FROM runs WHERE commit_sha = ? AND program = ? AND event = ?"
		" AND (?4 IS NULL OR branch = ?4) ORDER BY id",
		&runs, err) < 0)
		return -1;
	if (prepare(h,
		    "SELECT key, anchor, samples, period, weight, period_sq, weight_sq"
		    " FROM aggregates WHERE run_id = ? AND attrs = ?",
		    &rows, err) < 0) {
		sqlite3_finalize(runs);
		return -1;
	}
	sqlite3_bind_text(runs, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(runs, 2, program, -1, SQLITE_STATIC);
	sqlite3_bind_text(runs, 3, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(runs, 4, branch, -1, SQLITE_STATIC);
	while (sqlite3_step(runs) == SQLITE_ROW) {
		dp_run r;
		bool any = false;

		memset(&r, 0, sizeof(r));
		r.path = col_dup(runs, 1);
		r.program = col_dup(runs, 2);
		r.event = col_dup(runs, 3);
		r.events = dp_strdup(r.event);
		r.hostname = col_dup(runs, 4);
		r.seconds = sqlite3_column_double(runs, 5);
		r.ginsn = sqlite3_column_double(runs, 6);
		r.read = (uint64_t)sqlite3_column_int64(runs, 7);
		r.kept = (uint64_t)sqlite3_column_int64(runs, 8);
		r.lost = (uint64_t)sqlite3_column_int64(runs, 9);
		sqlite3_reset(rows);
		sqlite3_bind_int64(rows, 1, sqlite3_column_int64(runs, 0));
		sqlite3_bind_text(rows, 2, by, -1, SQLITE_STATIC);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			char *key = col_dup(rows, 0), *vals[DP_AGG_MAX_ATTRS], *p = key;
			double x[3], q[3];
			uint32_t k;

			/* the values were joined with " | " */
			for (int i = 0; i < t->by.nattrs; i++) {
				char *sep = i + 1 < t->by.nattrs ? strstr(p, " | ") : NULL;

				vals[i] = p;
				if (sep) {
					*sep = 0;
					p = sep + 3;
				} else {
					p += strlen(p);
				}
			}
			k = dp_rtable_key(t, (const char *const *)vals);
			for (int j = 0; j < 3; j++)
				x[j] = sqlite3_column_double(rows, 2 + j);
			q[0] = x[0];
			q[1] = sqlite3_column_double(rows, 5);
			q[2] = sqlite3_column_double(rows, 6);
			dp_run_add(&r, k, x, q);
			dp_rtable_anchor_add(t, k, (const char *)sqlite3_column_text(rows, 1),
					     (uint64_t)x[0]);
			any = true;
			free(key);
		}
		if (any)
			dp_vec_push(&side->runs, r);
		else
			dp_run_free(&r);
	}
	if (!side->runs.n) {
		dp_error_set(err, "%s has no run of commit %s stored by %s", h->path, commit, by);
		rc = -1;
	}
	sqlite3_finalize(rows);
	sqlite3_finalize(runs);
	return rc;
}

sqlite3 *dp_history_db(dp_history *h)
{
	return h->db;
}

const char *dp_history_path(const dp_history *h)
{
	return h->path;
}
