/* --sqlite FILE: the sample table and the report's rows in an SQLite
 * database, for ad-hoc SQL. Schema in docs/report.md. */
#include "export.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dp_sqlite_out {
	sqlite3 *db;
	sqlite3_stmt *ins;
	char *path;
};

static const char *const sample_cols[] = {
    "time_ns", "event",	  "pid",    "tid",    "cpu",	"process", "thread", "ip",   "function",
    "inline",  "file",	  "line",   "insn",   "object", "kind",	   "site",   "type", "member",
    "addr",    "verdict", "reason", "period", "weight", "level",   "tlb",    "op",
};

static int exec(sqlite3 *db, const char *sql, dp_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		dp_error_set(err, "sqlite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

dp_sqlite_out *dp_sqlite_new(const char *path)
{
	dp_sqlite_out *s = dp_calloc(1, sizeof(*s));

	s->path = dp_strdup(path);
	return s;
}

int dp_sqlite_start(void *ctx, dp_report_result *r, dp_error *err)
{
	dp_sqlite_out *s = ctx;
	dp_buf b = {0};

	unlink(s->path); /* a fresh database each time */
	if (sqlite3_open(s->path, &s->db) != SQLITE_OK) {
		dp_error_set(err, "cannot create '%s': %s", s->path, sqlite3_errmsg(s->db));
		sqlite3_close(s->db);
		s->db = NULL;
		return -1;
	}
	if (exec(s->db,
		 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
		 "CREATE TABLE events(id INTEGER PRIMARY KEY, name TEXT, ip_semantics TEXT, class "
		 "TEXT);"
		 "CREATE TABLE samples(time_ns INTEGER, event INTEGER REFERENCES events(id),"
		 " pid INTEGER, tid INTEGER, cpu INTEGER, process TEXT, thread TEXT, ip INTEGER,"
		 " function TEXT, inline TEXT, file TEXT, line TEXT, insn TEXT, object TEXT,"
		 " kind TEXT, site TEXT, type TEXT, member TEXT, addr INTEGER, verdict TEXT,"
		 " reason TEXT, period INTEGER, weight INTEGER, level TEXT, tlb TEXT, op TEXT);"
		 "CREATE TABLE report(id INTEGER PRIMARY KEY, parent INTEGER, depth INTEGER,"
		 " attributes TEXT, key TEXT, samples INTEGER, period INTEGER, weight INTEGER,"
		 " percent_total REAL, percent_parent REAL);"
		 "BEGIN;",
		 err) < 0)
		goto fail;
	for (size_t e = 0; e < r->nev; e++) {
		char *q = sqlite3_mprintf("INSERT INTO events VALUES(%lld, %Q, %Q, %Q);",
					  (long long)e, r->ev[e].name ? r->ev[e].name : "?",
					  dp_ip_semantics_name(r->ev[e].ip_sem),
					  dp_event_class_name(r->ev[e].evclass));
		int rc = exec(s->db, q, err);
		sqlite3_free(q);
		if (rc < 0)
			goto fail;
	}
	char *q = sqlite3_mprintf(
	    "INSERT INTO meta VALUES('profile', %Q), ('schema', 'dataprof-sqlite/1');",
	    r->o->input);
	exec(s->db, q, err);
	sqlite3_free(q);
	/* named, so that a column added to the table cannot shift the rest */
	dp_buf_puts(&b, "INSERT INTO samples(");
	for (size_t i = 0; i < DP_ARRAY_LEN(sample_cols); i++) {
		dp_buf_puts(&b, i ? "," : "");
		dp_buf_puts(&b, sample_cols[i]);
	}
	dp_buf_puts(&b, ") VALUES(");
	for (size_t i = 0; i < DP_ARRAY_LEN(sample_cols); i++)
		dp_buf_puts(&b, i ? ",?" : "?");
	dp_buf_puts(&b, ")");
	if (sqlite3_prepare_v2(s->db, b.p, -1, &s->ins, NULL) != SQLITE_OK) {
		dp_error_set(err, "sqlite: %s", sqlite3_errmsg(s->db));
		goto fail;
	}
	dp_buf_free(&b);
	return 0;
fail:
	dp_buf_free(&b);
	sqlite3_close(s->db);
	s->db = NULL;
	return -1;
}

static void text(sqlite3_stmt *st, int col, dp_attr_ctx *c, dp_row *row, dp_attr_id id)
{
	dp_attr a = {id, 0};
	char buf[64];
	uint64_t k = dp_attr_key(c, row, &a);

	sqlite3_bind_text(st, col, dp_attr_format(c, &a, k, buf, sizeof(buf)), -1,
			  SQLITE_TRANSIENT);
}

void dp_sqlite_row(void *ctx, dp_attr_ctx *c, dp_row *row)
{
	dp_sqlite_out *s = ctx;
	sqlite3_stmt *st = s->ins;
	const dp_sample *x = row->s;
	int i = 1;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)row->time_rel);
	sqlite3_bind_int64(st, i++, x->event);
	sqlite3_bind_int64(st, i++, x->pid);
	sqlite3_bind_int64(st, i++, x->tid);
	sqlite3_bind_int64(st, i++, x->cpu);
	text(st, i++, c, row, DP_A_PROCESS);
	text(st, i++, c, row, DP_A_THREAD);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)x->ip);
	text(st, i++, c, row, DP_A_FUNCTION);
	text(st, i++, c, row, DP_A_INLINE);
	text(st, i++, c, row, DP_A_FILE);
	text(st, i++, c, row, DP_A_LINE);
	text(st, i++, c, row, DP_A_INSN);
	text(st, i++, c, row, DP_A_OBJECT);
	text(st, i++, c, row, DP_A_KIND);
	text(st, i++, c, row, DP_A_SITE);
	text(st, i++, c, row, DP_A_TYPE);
	text(st, i++, c, row, DP_A_MEMBER);
	if (row->x->data_addr)
		sqlite3_bind_int64(st, i++, (sqlite3_int64)row->x->data_addr);
	else
		sqlite3_bind_null(st, i++);
	text(st, i++, c, row, DP_A_VERDICT);
	text(st, i++, c, row, DP_A_REASON);
	sqlite3_bind_int64(st, i++, (sqlite3_int64)(x->period ? x->period : 1));
	sqlite3_bind_int64(st, i++, (sqlite3_int64)x->weight);
	text(st, i++, c, row, DP_A_LEVEL);
	text(st, i++, c, row, DP_A_TLB);
	text(st, i++, c, row, DP_A_OP);
	sqlite3_step(st);
}

static void report_rows(dp_sqlite_out *s, const dp_report_result *r, uint32_t idx)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *n = &g->nodes.v[idx];

	if (idx) {
		const dp_agg_level *lv = &g->levels[n->depth - 1];
		const dp_agg_node *root = &g->nodes.v[0], *parent = &g->nodes.v[n->parent];
		dp_buf key = {0}, attrs = {0};
		uint64_t v = n->m[g->metric];

		for (int i = 0; i < lv->nattrs; i++) {
			char buf[64];
			dp_buf_printf(
			    &key, "%s%s", i ? " | " : "",
			    dp_attr_format(r->attrs, &lv->attrs[i], n->key[i], buf, sizeof(buf)));
			dp_buf_printf(&attrs, "%s%s", i ? "," : "", dp_attr_name(lv->attrs[i].id));
		}
		char *q = sqlite3_mprintf(
		    "INSERT INTO report VALUES(%lld, %lld, %lld, %Q, %Q, %lld, %lld, %lld, %f, "
		    "%f);",
		    (long long)idx, (long long)n->parent, (long long)n->depth, attrs.p, key.p,
		    (long long)n->m[0], (long long)n->m[1], (long long)n->m[2],
		    root->m[g->metric] ? 100.0 * (double)v / (double)root->m[g->metric] : 0.0,
		    parent->m[g->metric] ? 100.0 * (double)v / (double)parent->m[g->metric] : 0.0);
		sqlite3_exec(s->db, q, NULL, NULL, NULL);
		sqlite3_free(q);
		dp_buf_free(&key);
		dp_buf_free(&attrs);
	}
	for (uint32_t i = 0; i < n->nchildren; i++)
		report_rows(s, r, n->children[i]);
}

int dp_sqlite_finish(dp_sqlite_out *s, const dp_report_result *r, dp_error *err)
{
	int rc = 0;

	if (!s->db) {
		free(s->path);
		free(s);
		return 0;
	}
	if (r && r->agg.nodes.v && r->agg.nodes.v[0].children && r->agg.child_pool)
		report_rows(s, r, 0);
	sqlite3_finalize(s->ins);
	if (exec(s->db, "COMMIT;", err) < 0)
		rc = -1;
	if (sqlite3_close(s->db) != SQLITE_OK && rc == 0) {
		dp_error_set(err, "cannot write '%s'", s->path);
		rc = -1;
	}
	free(s->path);
	free(s);
	return rc;
}
