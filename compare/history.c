/* The history's rows: adding runs, once each, and reading them back -- a
 * commit's runs as diff reads them from profiles, the commits in order. The
 * queries are the same for every store (store.h). */
#include "history.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dp_history {
	dp_store *s;
	char *db;
};

dp_history *dp_history_open(const char *db, bool create, dp_error *err)
{
	dp_store *s = dp_store_open(db, create, err);
	dp_history *h;

	if (!s)
		return NULL;
	if (dp_history_schema(s, create, err) < 0) {
		dp_store_close(s);
		return NULL;
	}
	h = dp_calloc(1, sizeof(*h));
	h->s = s;
	h->db = dp_strdup(db);
	return h;
}

void dp_history_close(dp_history *h)
{
	if (!h)
		return;
	dp_store_close(h->s);
	free(h->db);
	free(h);
}

dp_store *dp_history_store(dp_history *h)
{
	return h->s;
}

const char *dp_history_name(const dp_history *h)
{
	return h->s->name;
}

const char *dp_history_db(const dp_history *h)
{
	return h->db;
}

void dp_history_by_text(const dp_agg_level *by, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < by->nattrs && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      dp_attr_name(by->attrs[i].id));
}

/* One profile read, before anything is written. */
typedef struct pending {
	const char *path;
	char id[65];
	dp_rtable tabs[DP_HISTORY_MAX_BY];
	dp_run runs[DP_HISTORY_MAX_BY];
	bool existed;
	char *commit; /* of the run stored before */
} pending;

static int read_profile(pending *p, const dp_history_add_opts *o, dp_error *err)
{
	dp_rtable *tp[DP_HISTORY_MAX_BY];
	dp_run *rp[DP_HISTORY_MAX_BY];

	for (int i = 0; i < o->nby; i++) {
		dp_rtable_init(&p->tabs[i], &o->by[i]);
		tp[i] = &p->tabs[i];
		rp[i] = &p->runs[i];
	}
	if (dp_history_identity(p->path, p->id, err) < 0 ||
	    dp_run_read(p->path, &o->run, tp, rp, o->nby, err) < 0)
		return -1;
	for (int i = 0; i < o->nby; i++)
		dp_rtable_finish(&p->tabs[i]);
	return 0;
}

static void pending_free(pending *p, int nby, bool read)
{
	for (int i = 0; i < nby; i++) {
		if (read)
			dp_run_free(&p->runs[i]);
		dp_rtable_free(&p->tabs[i]);
	}
	free(p->commit);
}

/* Writers take the runs in the order of their identity: two jobs adding the
 * same profiles wait for each other, never each for the other. */
static int by_identity(const void *a, const void *b)
{
	return strcmp(((const pending *)a)->id, ((const pending *)b)->id);
}

/* Rows a statement inserts at once: 7 parameters each, under every
 * database's limit, and few round trips to a server. */
#define ROWS_PER_INSERT 64

int dp_history_insert_rows(dp_store *s, int64_t id, const char *attrs,
			   const dp_history_aggrow *rows, size_t n, dp_error *err)
{
	dp_sval a[2 + 7 * ROWS_PER_INSERT];
	dp_buf sql = {0};
	size_t built = 0;
	int rc = 0;

	a[0] = dp_sv_int(id);
	a[1] = dp_sv_text(attrs);
	for (size_t i = 0; i < n && !rc; i += ROWS_PER_INSERT) {
		size_t batch = DP_MIN(n - i, ROWS_PER_INSERT);

		if (batch != built) {
			sql.len = 0;
			dp_buf_puts(&sql,
				    "INSERT INTO aggregates(run_id, attrs, key, anchor, samples,"
				    " period, weight, period_sq, weight_sq) VALUES");
			for (size_t k = 0; k < batch; k++) {
				int p = 3 + 7 * (int)k;

				dp_buf_printf(&sql, "%s($1,$2,$%d,$%d,$%d,$%d,$%d,$%d,$%d)",
					      k ? "," : "", p, p + 1, p + 2, p + 3, p + 4, p + 5,
					      p + 6);
			}
			/* a run stored before keeps its rows */
			dp_buf_puts(&sql, " ON CONFLICT DO NOTHING");
			built = batch;
		}
		for (size_t k = 0; k < batch; k++) {
			const dp_history_aggrow *row = &rows[i + k];
			dp_sval *v = &a[2 + 7 * k];

			v[0] = dp_sv_text(row->key);
			v[1] = dp_sv_text(row->anchor);
			for (int j = 0; j < 5; j++)
				v[2 + j] = dp_sv_real(row->v[j]);
		}
		rc = dp_store_exec(s, sql.p, a, 2 + 7 * (int)batch, NULL, NULL, err) < 0 ? -1 : 0;
	}
	dp_buf_free(&sql);
	return rc;
}

static int insert_list(dp_store *s, int64_t id, const dp_rtable *t, const dp_run *r, dp_error *err)
{
	dp_history_aggrow *rows = dp_calloc(r->stats.n ? r->stats.n : 1, sizeof(*rows));
	char by[256];
	int rc;

	dp_history_by_text(&t->by, by, sizeof(by));
	for (size_t i = 0; i < r->stats.n; i++) {
		const dp_rstat *st = &r->stats.v[i];
		const dp_rkey *key = &t->keys.v[st->key];

		rows[i].key = dp_rtable_str(t, key->text);
		rows[i].anchor = dp_rtable_str(t, key->anchor);
		for (int j = 0; j < 3; j++)
			rows[i].v[j] = st->x[j];
		rows[i].v[3] = st->q[1];
		rows[i].v[4] = st->q[2];
	}
	rc = dp_history_insert_rows(s, id, by, rows, r->stats.n, err);
	free(rows);
	return rc;
}

typedef struct found {
	int64_t id;
	char *commit;
} found;

static int found_row(void *ctx, const dp_store_row *row)
{
	found *f = ctx;

	f->id = dp_store_int(row, 0);
	if (!dp_store_null(row, 1))
		f->commit = dp_strdup(dp_store_text(row, 1));
	return 1;
}

int dp_history_insert_run(dp_store *s, const dp_history_runrow *r, int64_t *id, char **commit,
			  bool *existed, dp_error *err)
{
	dp_sval a[16] = {
	    dp_sv_text(r->sha256),	dp_sv_text(r->selection), dp_sv_text(r->commit),
	    dp_sv_text(r->commit_time), dp_sv_text(r->branch),	  dp_sv_text(r->label),
	    dp_sv_text(r->added_at),	dp_sv_text(r->profile),	  dp_sv_text(r->program),
	    dp_sv_text(r->event),	dp_sv_text(r->hostname),  dp_sv_real(r->seconds),
	    dp_sv_real(r->ginsn),	dp_sv_int(r->read),	  dp_sv_int(r->kept),
	    dp_sv_int(r->lost),
	};
	dp_sval k[3] = {a[0], a[9], a[1]};
	found f = {0, NULL};

	*commit = NULL;
	/* one statement: of jobs adding the same run at once, one inserts it,
	 * the others wait for it to commit and insert nothing */
	if (dp_store_exec(s,
			  "INSERT INTO runs(profile_sha256, selection, commit_sha, commit_time,"
			  " branch, label, added_at, profile, program, event, hostname, seconds,"
			  " ginsn, samples_read, samples_kept, lost)"
			  " VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)"
			  " ON CONFLICT DO NOTHING RETURNING id, NULL",
			  a, 16, found_row, &f, err) < 0)
		return -1;
	*existed = !f.id;
	if (!f.id && dp_store_exec(s,
				   "SELECT id, commit_sha FROM runs WHERE profile_sha256 = $1 AND "
				   "event = $2 AND selection = $3",
				   k, 3, found_row, &f, err) < 0)
		return -1;
	if (!f.id) {
		dp_error_set(err, "%s: %s was neither added nor found", s->name, r->profile);
		return -1;
	}
	*id = f.id;
	*commit = f.commit;
	return 0;
}

static int store_run(dp_history *h, pending *p, const dp_history_add_opts *o, const char *now,
		     dp_error *err)
{
	const dp_run *r = &p->runs[0];
	dp_history_runrow row = {
	    p->id,
	    o->run.sel.where ? o->run.sel.where : "",
	    o->commit,
	    o->commit_time ? o->commit_time : now,
	    o->branch,
	    o->label,
	    now,
	    p->path,
	    r->program,
	    r->event,
	    r->hostname,
	    r->seconds,
	    r->ginsn,
	    (int64_t)r->read,
	    (int64_t)r->kept,
	    (int64_t)r->lost,
	};
	int64_t id;

	free(p->commit);
	if (dp_history_insert_run(h->s, &row, &id, &p->commit, &p->existed, err) < 0)
		return -1;
	if (p->existed && p->commit && strcmp(p->commit, o->commit)) {
		dp_error_set(err,
			     "%s is already in %s as a run of commit %s, not %s: a recording is a "
			     "run of one commit",
			     p->path, h->s->name, p->commit, o->commit);
		return -1;
	}
	for (int i = 0; i < o->nby; i++)
		if (insert_list(h->s, id, &p->tabs[i], &p->runs[i], err) < 0)
			return -1;
	return 0;
}

static int write_all(dp_history *h, pending *ps, size_t n, const dp_history_add_opts *o,
		     const char *now, dp_error *err)
{
	if (dp_store_begin(h->s, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (store_run(h, &ps[i], o, now, err) < 0)
			goto fail;
	if (dp_store_commit(h->s, err) == 0)
		return 0;
fail:
	dp_store_rollback(h->s);
	return -1;
}

int dp_history_add_levels(dp_history_add_opts *o, dp_error *err)
{
	static const char *const defaults[] = {"function", "line", "object", "member"};

	if (!o->nby)
		for (size_t i = 0; i < DP_ARRAY_LEN(defaults); i++) {
			o->by[o->nby].nattrs = 1;
			dp_attr_parse(defaults[i], &o->by[o->nby++].attrs[0], err);
		}
	for (int i = 0; i < o->nby; i++)
		for (int k = 0; k < o->by[i].nattrs; k++) {
			const char *why = dp_rtable_unstable(o->by[i].attrs[k].id);

			if (why) {
				dp_error_set(err,
					     "--by %s: %s: keep function, line, object or member",
					     dp_attr_name(o->by[i].attrs[k].id), why);
				return -1;
			}
		}
	return 0;
}

int dp_history_add(dp_history *h, const char *const *profiles, size_t n,
		   const dp_history_add_opts *o, size_t *added, dp_error *err)
{
	pending *ps = dp_calloc(n ? n : 1, sizeof(*ps));
	size_t nread = 0;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	int rc = -1;

	*added = 0;
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	for (; nread < n; nread++) {
		ps[nread].path = profiles[nread];
		if (read_profile(&ps[nread], o, err) < 0) {
			pending_free(&ps[nread], o->nby, false);
			goto out;
		}
	}
	qsort(ps, n, sizeof(*ps), by_identity);
	/* a conflict the database could not order (a deadlock, a busy file
	 * past its timeout) rolled everything back: again, a few times */
	for (int attempt = 0;; attempt++) {
		rc = write_all(h, ps, n, o, now, err);
		if (!rc || !h->s->conflict || attempt == 4)
			break;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (!ps[i].existed)
			(*added)++;
		else
			fprintf(stderr,
				"dataprof: %s is already in the history (run of %s): kept once\n",
				ps[i].path, ps[i].commit ? ps[i].commit : o->commit);
	}
out:
	for (size_t i = 0; i < nread; i++)
		pending_free(&ps[i], o->nby, true);
	free(ps);
	return rc;
}

/* The filter every query about sel shares: $1 program, $2 event, $3 branch
 * (NULL: any), $4 the list; runs of r. */
#define SEL_WHERE                                                                                  \
	" r.program = $1 AND r.event = $2 AND ($3 IS NULL OR r.branch = $3) AND EXISTS (SELECT 1"  \
	" FROM aggregates a WHERE a.run_id = r.id AND a.attrs = $4)"

static void sel_args(const dp_history_sel *sel, dp_sval a[4])
{
	a[0] = dp_sv_text(sel->program);
	a[1] = dp_sv_text(sel->event);
	a[2] = dp_sv_text(sel->branch);
	a[3] = dp_sv_text(sel->by);
}

static int commit_row(void *ctx, const dp_store_row *row)
{
	dp_history_commits *out = ctx;
	dp_history_commit c = {dp_strdup(dp_store_text(row, 0)), dp_strdup(dp_store_text(row, 2)),
			       dp_store_int(row, 3), (int)dp_store_int(row, 1)};

	dp_vec_push(out, c);
	return 0;
}

void dp_history_commits_free(dp_history_commits *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].sha);
		free(c->v[i].time);
	}
	dp_vec_free(c);
}

int dp_history_commit_list(dp_history *h, const dp_history_sel *sel, const char *before, size_t n,
			   dp_history_commits *out, dp_error *err)
{
	dp_sval a[7];
	dp_history_commits at = {0};
	int rc;

	sel_args(sel, a);
	if (before) {
		/* where the commit stands: its time and first run */
		a[4] = dp_sv_text(before);
		if (dp_store_exec(h->s,
				  "SELECT $5, count(*), min(r.commit_time), min(r.id) FROM runs r "
				  "WHERE r.commit_sha = $5 AND" SEL_WHERE,
				  a, 5, commit_row, &at, err) < 0)
			return -1;
		if (!at.n || !at.v[0].runs) {
			dp_error_set(err,
				     "%s holds no run of commit %s of %s (%s)%s%s stored by %s",
				     h->s->name, before, sel->program, sel->event,
				     sel->branch ? " on branch " : "",
				     sel->branch ? sel->branch : "", sel->by);
			dp_history_commits_free(&at);
			return -1;
		}
		a[5] = dp_sv_text(at.v[0].time);
		a[6] = dp_sv_int(at.v[0].first);
	}
	a[4] = dp_sv_int((int64_t)n);
	/* newest first, to take n; then turned round */
	rc = dp_store_exec(
	    h->s,
	    before ? "SELECT r.commit_sha, count(*), min(r.commit_time), min(r.id) FROM runs r "
		     "WHERE" SEL_WHERE " GROUP BY r.commit_sha HAVING min(r.commit_time) < $6 OR "
		     "(min(r.commit_time) = $6 AND min(r.id) < $7) ORDER BY min(r.commit_time) "
		     "DESC, min(r.id) DESC LIMIT $5"
		   : "SELECT r.commit_sha, count(*), min(r.commit_time), min(r.id) FROM runs r "
		     "WHERE" SEL_WHERE " GROUP BY r.commit_sha ORDER BY min(r.commit_time) DESC, "
		     "min(r.id) DESC LIMIT $5",
	    a, before ? 7 : 5, commit_row, out, err);
	dp_history_commits_free(&at);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < out->n / 2; i++) {
		dp_history_commit t = out->v[i];

		out->v[i] = out->v[out->n - 1 - i];
		out->v[out->n - 1 - i] = t;
	}
	return 0;
}

static int sha_row(void *ctx, const dp_store_row *row)
{
	DP_VEC(char *) *v = ctx;
	char *s = dp_strdup(dp_store_text(row, 0));

	dp_vec_push(v, s);
	return 0;
}

int dp_history_commit_find(dp_history *h, const char *ref, char **sha, dp_error *err)
{
	DP_VEC(char *) shas = {0};
	size_t n = strlen(ref);
	char *upper = dp_strdup(ref);
	dp_sval a[2] = {dp_sv_text(ref), dp_sv_text(upper)};
	int rc = 0;

	*sha = NULL;
	/* a prefix: the commits from it up to the next string of its length
	 * (text compares byte by byte in both stores) */
	if (n && (unsigned char)upper[n - 1] < 0x7e)
		upper[n - 1]++;
	if (dp_store_exec(h->s,
			  "SELECT DISTINCT commit_sha FROM runs WHERE commit_sha = $1 OR "
			  "(commit_sha > $1 AND commit_sha < $2) ORDER BY commit_sha LIMIT 3",
			  a, 2, sha_row, &shas, err) < 0) {
		rc = -1;
	} else if (shas.n > 1 && strcmp(shas.v[0], ref)) {
		dp_error_set(err, "'%s' is the start of %s, %s%s in %s: give more of the commit",
			     ref, shas.v[0], shas.v[1], shas.n > 2 ? " and more" : "", h->s->name);
		rc = -1;
	} else if (shas.n) {
		*sha = shas.v[0];
		shas.v[0] = NULL;
	}
	dp_vec_free_each(&shas, free);
	free(upper);
	return rc;
}

typedef struct newest_ctx {
	char **program, **event;
} newest_ctx;

static int newest_row(void *ctx, const dp_store_row *row)
{
	newest_ctx *c = ctx;

	if (!*c->program)
		*c->program = dp_strdup(dp_store_text(row, 0));
	if (!*c->event)
		*c->event = dp_strdup(dp_store_text(row, 1));
	return 1;
}

int dp_history_newest(dp_history *h, const dp_history_sel *sel, char **program, char **event,
		      dp_error *err)
{
	dp_sval a[4];
	newest_ctx c = {program, event};
	int rc;

	sel_args(sel, a);
	rc = dp_store_exec(h->s,
			   "SELECT r.program, r.event FROM runs r WHERE ($1 IS NULL OR r.program = "
			   "$1) AND ($2 IS NULL OR r.event = $2) AND ($3 IS NULL OR r.branch = $3) "
			   "AND EXISTS (SELECT 1 FROM aggregates a WHERE a.run_id = r.id AND "
			   "a.attrs = $4) ORDER BY r.commit_time DESC, r.id DESC LIMIT 1",
			   a, 4, newest_row, &c, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		dp_error_set(
		    err,
		    "%s holds no run%s%s%s%s stored by %s: add runs with 'dataprof history "
		    "--db ... add --by %s PROFILE --commit SHA'",
		    h->s->name, sel->program ? " of " : "", sel->program ? sel->program : "",
		    sel->branch ? " on branch " : "", sel->branch ? sel->branch : "", sel->by,
		    sel->by);
		return -1;
	}
	return 0;
}

typedef struct load_ctx {
	dp_rtable *t;
	dp_diff_side *side;
	const char *commit;
	size_t first; /* the commit's first run in side */
	DP_VEC(int64_t) ids;
} load_ctx;

static int run_row(void *ctx, const dp_store_row *row)
{
	load_ctx *c = ctx;
	const char *path = dp_store_text(row, 1), *base = strrchr(path, '/');
	dp_run r;

	memset(&r, 0, sizeof(r));
	/* which commit a run came from, in diff's lists of runs */
	r.path = dp_asprintf("%.12s:%s", c->commit, base ? base + 1 : path);
	r.program = dp_strdup(dp_store_text(row, 2));
	r.event = dp_strdup(dp_store_text(row, 3));
	r.events = dp_strdup(r.event);
	r.hostname = dp_strdup(dp_store_text(row, 4));
	r.seconds = dp_store_real(row, 5);
	r.ginsn = dp_store_real(row, 6);
	r.read = (uint64_t)dp_store_int(row, 7);
	r.kept = (uint64_t)dp_store_int(row, 8);
	r.lost = (uint64_t)dp_store_int(row, 9);
	dp_vec_push(&c->side->runs, r);
	dp_vec_push(&c->ids, dp_store_int(row, 0));
	return 0;
}

static int key_row(void *ctx, const dp_store_row *row)
{
	load_ctx *c = ctx;
	dp_rtable *t = c->t;
	int64_t id = dp_store_int(row, 0);
	char *key = dp_strdup(dp_store_text(row, 1)), *vals[DP_AGG_MAX_ATTRS], *p = key;
	double x[3], q[3];
	size_t i;
	uint32_t k;

	for (i = 0; i < c->ids.n && c->ids.v[i] != id; i++)
		;
	/* the values were joined with " | " */
	for (int j = 0; j < t->by.nattrs; j++) {
		char *sep = j + 1 < t->by.nattrs ? strstr(p, " | ") : NULL;

		vals[j] = p;
		if (sep) {
			*sep = 0;
			p = sep + 3;
		} else {
			p += strlen(p);
		}
	}
	k = dp_rtable_key(t, (const char *const *)vals);
	for (int j = 0; j < 3; j++)
		x[j] = dp_store_real(row, 3 + j);
	q[0] = x[0];
	q[1] = dp_store_real(row, 6);
	q[2] = dp_store_real(row, 7);
	if (i < c->ids.n)
		dp_run_add(&c->side->runs.v[c->first + i], k, x, q);
	dp_rtable_anchor_add(t, k, dp_store_text(row, 2), (uint64_t)x[0]);
	free(key);
	return 0;
}

int dp_history_load(dp_history *h, const char *commit, const dp_history_sel *sel, dp_rtable *t,
		    dp_diff_side *side, dp_error *err)
{
	dp_sval a[5];
	load_ctx c = {t, side, commit, side->runs.n, {0}};
	int rc = -1;

	sel_args(sel, a);
	a[4] = dp_sv_text(commit);
	/* in the order of their identity: the same on every store, however
	 * the writers raced */
	if (dp_store_exec(
		h->s,
		"SELECT r.id, r.profile, r.program, r.event, r.hostname, r.seconds, r.ginsn,"
		" r.samples_read, r.samples_kept, r.lost FROM runs r WHERE r.commit_sha = "
		"$5 AND" SEL_WHERE " ORDER BY r.profile_sha256, r.selection",
		a, 5, run_row, &c, err) < 0 ||
	    dp_store_exec(
		h->s,
		"SELECT a.run_id, a.key, a.anchor, a.samples, a.period, a.weight,"
		" a.period_sq, a.weight_sq FROM runs r JOIN aggregates a ON a.run_id = r.id"
		" AND a.attrs = $4 WHERE r.commit_sha = $5 AND" SEL_WHERE
		" ORDER BY r.profile_sha256, r.selection, a.key",
		a, 5, key_row, &c, err) < 0)
		goto out;
	if (side->runs.n == c.first) {
		dp_error_set(err, "%s has no run of commit %s stored by %s", h->s->name, commit,
			     sel->by);
		goto out;
	}
	rc = 0;
out:
	dp_vec_free(&c.ids);
	return rc;
}
