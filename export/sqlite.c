/* --sqlite FILE: the sample table and the report's rows in an SQLite
 * database, for ad-hoc SQL. Schema in docs/report.md. */
#include "export.h"
#include "../report/spool.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dp_sqlite_out {
	sqlite3 *db;
	sqlite3_stmt *ins;
	char *path;
	DP_VEC(dp_spool *) spools; /* the parts' samples */
	struct sqlite_part *first; /* part 0's, kept by the output */
	bool spool_failed;
};

/* A part's samples, spooled (report/spool.h) as their columns' values: per
 * column 'i' and 8 bytes, 't' and a NUL-terminated text, or 'n' (null). The
 * end inserts them in file order, so that the table is the same for any
 * number of parts. */
typedef struct sqlite_part {
	dp_sqlite_out *s;
	dp_spool *spool;
	dp_buf rec;
} sqlite_part;

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

	dp_unlink_file(s->path); /* a fresh database each time */
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

static void put_int(dp_buf *b, int64_t v)
{
	dp_buf_add(b, "i", 1);
	dp_buf_add(b, &v, 8);
}

static void put_text(dp_buf *b, dp_attr_ctx *c, dp_row *row, dp_attr_id id)
{
	dp_attr a = {id, 0};
	char buf[64];
	const char *t = dp_attr_format(c, &a, dp_attr_key(c, row, &a), buf, sizeof(buf));

	dp_buf_add(b, "t", 1);
	dp_buf_add(b, t, strlen(t) + 1);
}

static void *part_new(void *ctx, unsigned index, const dp_report_result *part)
{
	sqlite_part *pt = dp_calloc(1, sizeof(*pt));

	(void)part;
	pt->s = ctx;
	if (index == 0)
		pt->s->first = pt;
	pt->spool = dp_spool_new();
	if (!pt->spool)
		pt->s->spool_failed = true;
	return pt;
}

static void part_row(void *state, dp_attr_ctx *c, dp_row *row)
{
	sqlite_part *pt = state;
	const dp_sample *x = row->s;
	dp_buf *b = &pt->rec;

	if (!pt->spool)
		return;
	b->len = 0;
	put_int(b, (int64_t)row->time_rel);
	put_int(b, x->event);
	put_int(b, x->pid);
	put_int(b, x->tid);
	put_int(b, x->cpu);
	put_text(b, c, row, DP_A_PROCESS);
	put_text(b, c, row, DP_A_THREAD);
	put_int(b, (int64_t)x->ip);
	put_text(b, c, row, DP_A_FUNCTION);
	put_text(b, c, row, DP_A_INLINE);
	put_text(b, c, row, DP_A_FILE);
	put_text(b, c, row, DP_A_LINE);
	put_text(b, c, row, DP_A_INSN);
	put_text(b, c, row, DP_A_OBJECT);
	put_text(b, c, row, DP_A_KIND);
	put_text(b, c, row, DP_A_SITE);
	put_text(b, c, row, DP_A_TYPE);
	put_text(b, c, row, DP_A_MEMBER);
	if (row->x->data_addr)
		put_int(b, (int64_t)row->x->data_addr);
	else
		dp_buf_add(b, "n", 1);
	put_text(b, c, row, DP_A_VERDICT);
	put_text(b, c, row, DP_A_REASON);
	put_int(b, (int64_t)(x->period ? x->period : 1));
	put_int(b, (int64_t)x->weight);
	put_text(b, c, row, DP_A_LEVEL);
	put_text(b, c, row, DP_A_TLB);
	put_text(b, c, row, DP_A_OP);
	dp_spool_add(pt->spool, row->seq, b->p, (uint32_t)b->len);
}

static void part_merge(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
		       const dp_report_result *src_part)
{
	sqlite_part *b = src;

	(void)dst, (void)dst_part, (void)src_part;
	if (b->spool)
		dp_vec_push(&((dp_sqlite_out *)ctx)->spools, b->spool);
	b->spool = NULL;
}

static void part_free(void *ctx, void *state)
{
	sqlite_part *pt = state;

	(void)ctx;
	if (!pt)
		return;
	dp_spool_free(pt->spool);
	dp_buf_free(&pt->rec);
	free(pt);
}

const dp_report_parts dp_sqlite_parts = {part_new, part_row, part_merge, part_free};

/* One spooled sample into the table. */
static void insert(void *ctx, const void *data, uint32_t len)
{
	dp_sqlite_out *s = ctx;
	sqlite3_stmt *st = s->ins;
	const char *p = data, *end = p + len;

	sqlite3_reset(st);
	for (int col = 1; p < end; col++) {
		char tag = *p++;

		if (tag == 'i' && end - p >= 8) {
			int64_t v;

			memcpy(&v, p, 8);
			p += 8;
			sqlite3_bind_int64(st, col, v);
		} else if (tag == 't' && memchr(p, 0, (size_t)(end - p))) {
			sqlite3_bind_text(st, col, p, -1, SQLITE_TRANSIENT);
			p += strlen(p) + 1;
		} else {
			sqlite3_bind_null(st, col);
		}
	}
	sqlite3_step(st);
}

/* The rows depth first, in the printed order (each level sorted), numbered
 * in that order: the numbers do not depend on how the report was read. */
static void report_rows(dp_sqlite_out *s, const dp_report_result *r, uint32_t idx,
			uint32_t parent_id, uint32_t *next)
{
	uint32_t id = 0;

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
		    (long long)(id = ++*next), (long long)parent_id, (long long)n->depth, attrs.p,
		    key.p, (long long)n->m[0], (long long)n->m[1], (long long)n->m[2],
		    root->m[g->metric] ? 100.0 * (double)v / (double)root->m[g->metric] : 0.0,
		    parent->m[g->metric] ? 100.0 * (double)v / (double)parent->m[g->metric] : 0.0);
		sqlite3_exec(s->db, q, NULL, NULL, NULL);
		sqlite3_free(q);
		dp_buf_free(&key);
		dp_buf_free(&attrs);
	}
	for (uint32_t i = 0; i < n->nchildren; i++)
		report_rows(s, r, n->children[i], id, next);
}

static void free_out(dp_sqlite_out *s)
{
	part_free(s, s->first);
	dp_vec_free_each(&s->spools, dp_spool_free);
	free(s->path);
	free(s);
}

int dp_sqlite_finish(dp_sqlite_out *s, const dp_report_result *r, dp_error *err)
{
	int rc = 0;

	if (!s->db) {
		free_out(s);
		return 0;
	}
	if (s->first && s->first->spool) {
		/* part 0's spool: with the others', the samples in file order */
		dp_vec_push(&s->spools, s->first->spool);
		s->first->spool = NULL;
	}
	if (r && (s->spool_failed || dp_spool_merge(s->spools.v, s->spools.n, insert, s) < 0)) {
		dp_error_set(err, "a temporary file of the samples failed: %m (is the disk where "
				  "TMPDIR points full?)");
		rc = -1;
	}
	if (r && r->agg.nodes.v && r->agg.nodes.v[0].children && r->agg.child_pool) {
		uint32_t next = 0;

		report_rows(s, r, 0, 0, &next);
	}
	sqlite3_finalize(s->ins);
	if (exec(s->db, "COMMIT;", err) < 0)
		rc = -1;
	if (sqlite3_close(s->db) != SQLITE_OK && rc == 0) {
		dp_error_set(err, "cannot write '%s'", s->path);
		rc = -1;
	}
	free_out(s);
	return rc;
}
